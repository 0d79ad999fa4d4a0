"""A read that races a write: does the value it got ever reach the kernel's outputs?

Replicated Triton layouts load what they update in place: with 2 kv heads of 64 at 4 warps, a rotary kernel's
k tile is held twice, both replicas load each element, and the store (which Triton predicates to one replica)
overwrites it. The other replica's load races the store: it may read the old value or the new one. When
nothing that replica computes from it lands anywhere (its stores are masked off), the outcome of the launch
cannot depend on the order, and the race is listed as a `benign-read-race` ("the value read never reaches an
output") instead of a RACE.

`settle` decides it with a second run over the reals in which every racing read of a global buffer returns a
fresh leaf (`k@race<pc>[i]`) instead of the value in memory. Which reads race is over-approximated from the
first run's final race shadow: a lane's read of a granule gets a fresh leaf when any other thread wrote that
granule during the launch (whatever orders the two: a fresh leaf where none was needed can only keep a RACE),
or several threads did. Structured kernels cannot branch or address on data, so what a launch does that anyone
can observe is the final contents of its global buffers: a race whose racing load got fresh leaves and none of
them appear in those buffers is benign; the others stay RACEs, and so does every race whose read is not a
load of a global buffer (shared memory, `cp.async`): its value was never replaced, so nothing was shown.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from volta.errors import Unsupported
from volta.exec import findings as F
from volta.symbolic import expr as E

MARK = "@race"


def reads(findings: list) -> list:
    """The RACE findings between a read and a write (one of the two a plain load)."""
    return [f for f in findings if f.kind == F.RACE and f.message.startswith(("read-write", "write-read"))]


def substitute(m, op, region, lanes, offs, size, sym):
    """The expressions a load returns in the second run: fresh leaves on the lanes whose read may race (another
    thread, or several, wrote a granule the read covers); records the load's pc in `m.racing_pcs`."""
    shadow = m.racing.get(region.name)
    if shadow is None or region.space != ".global":
        return sym
    g = shadow.g
    racing = np.zeros(lanes.size, bool)
    for first in range(0, max(size, 1), g):   # every granule the element covers
        gidx = (offs + first) // g
        w_tid = shadow.w_tid[gidx]
        racing |= (w_tid >= 0) & (shadow.w_many[gidx] | (w_tid != lanes))
    if not racing.any():
        return sym
    m.racing_pcs.add(op.index)
    out = np.array(sym, dtype=object)
    name = f"{region.name}{MARK}{op.index}"
    for k in np.flatnonzero(racing):
        out[k] = E.var(name, int(offs[k]) // max(size, 1))
    return out


def escaped(m) -> set:
    """The load pcs whose fresh leaves reach some global buffer's final contents."""
    found, memo = set(), set()
    for region in m.memory.regions:
        if region is None or region.space != ".global" or region.sym is None:
            continue
        for value in region.sym.data:
            if type(value) is not E.Expr:
                continue
            for node in E.postorder(value, memo):
                memo.add(node)
                if node.op is E.VAR and MARK in node.data[0]:
                    found.add(int(node.data[0].rpartition(MARK)[2]))
    return found


def settle(m, findings: list, rerun) -> list:
    """`findings` with each read-write RACE whose racing reads never reach an output made a benign read race.
    `rerun(racing)` runs the launch again over the reals (per-lane expressions) with `Machine(racing=racing)` (region
    name -> the first run's race shadow) and returns its machine, or None when it cannot."""
    racing = {r.name: r.shadow for r in m.memory.regions
              if r is not None and r.space == ".global" and r.shadow is not None}
    candidates = [f for f in reads(findings) if f.buffer in racing]   # only a global load gets fresh leaves
    if not candidates:   # races on shared memory stay RACEs: no second run can show otherwise
        return findings
    again = rerun(racing)
    if again is None:
        return findings
    leaked, replaced = escaped(again), again.racing_pcs
    loads = {}   # (line, col) -> the pcs of the loads there
    for op in m.prog.ops:
        if op.op in ("ld", "ldu"):
            loads.setdefault((op.span.line, op.span.col), set()).add(op.index)
    out = []
    for f in findings:
        pcs = set().union(*(loads.get((s.line, s.col), set()) for s in f.sites[:2]))
        if f in candidates and pcs and pcs <= replaced and not pcs & leaked:
            f = dataclasses.replace(f, kind=F.BENIGN_READ, message=(
                f"benign read race on `{f.buffer}`: {f.message.split(' race on ')[0]} race whose value read never "
                f"reaches an output (the reading thread's results are not stored: a replicated layout's "
                f"masked-off copy), so the launch's outcome cannot depend on the order (still a data race in the "
                f"PTX memory model)"), details={**f.details, "unused": True})
        out.append(f)
    return out


def rerun_launch(Machine, prog, launch, buffers: dict, symbols: dict, functions: dict,
                 allow_exit_before_barrier: bool):
    """The second run of one launch from scratch (its buffers fresh) on `Machine` (volta.exec.machine's, passed
    in: the machine's handlers import this module): a `rerun` for `settle`."""
    def rerun(racing):
        try:
            m = Machine(prog, launch, buffers, symbols, structured=True, check_races=False, symbolic=True,
                        functions=functions, allow_exit_before_barrier=allow_exit_before_barrier, racing=racing)
            return m.run()
        except Unsupported:
            return None
    return rerun
