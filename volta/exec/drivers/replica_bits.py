"""Do the bits of stores that are equal over the reals differ? (the `nondeterministic-bits` finding)

volta/exec/races/replicas.py proves, in a symbolic run, that the racing stores of replicated warps (and the stores
of one warp's lanes to one address in one instruction) hold one real value, and notes each such instruction
pair on the machine (`Machine.replicas`). Their bits can still differ: an fma-first butterfly contracts a
product into the first addition on each lane in its own order. This module runs the same launches on concrete
inputs, IEEE as `volta run` does (volta/exec/drivers/trials.py), where a difference at those instructions is a RACE
(different warps) or a NONDETERMINISTIC WRITE (one warp) with both words, and reports each as a
`nondeterministic-bits` finding: the slot, the two threads, both words and the input set that shows them
(`volta run --inputs random:0` replays it). Where the bits agree on every input tried nothing is added: the
benign race over the reals stays as it is.
"""
from __future__ import annotations

import dataclasses

from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.drivers import trials

BITS_INPUTS = ("random:0", "random:1")  # concrete input sets on which the bits of real-equal stores are compared


def bits_findings(spec, role: str, progs: list, launches: list, machines: list, modes=BITS_INPUTS) -> list:
    """NONDET_BITS findings of `role` (its launches in order, `progs` lowered) for the stores `machines` (its
    symbolic run) noted, one per instruction pair; none when nothing was noted. A concrete run that stops
    adds nothing."""
    wanted = set().union(*(m.replicas for m in machines))
    if not wanted:
        return []
    try:
        out = trials.run(spec, role, progs, launches, list(modes))
    except Unsupported:
        return []
    found = {}
    for f in out.findings:
        sites = frozenset((s.line, s.col) for s in f.sites[:2])
        if f.kind not in (F.RACE, F.NONDETERMINISTIC) or "values" not in f.details or sites not in wanted:
            continue
        a, b = f.details["values"]
        trial = f.details.get("inputs", [0])[0]
        message = (f"output bits depend on which write lands: {f.threads[0]} and {f.threads[1]} store values equal "
                   f"over the reals to `{f.buffer}` byte offset {f.offset}, but on input {modes[trial]} their bits "
                   f"differ ({a} and {b}): a sum contracted (fma) or ordered differently on each")
        found.setdefault(sites, dataclasses.replace(
            f, kind=F.NONDET_BITS, message=message,
            details={"values": [a, b], "inputs": modes[trial], "described": out.inputs[trial]}))
    return list(found.values())


def merge(findings: list, bits: list) -> list:
    """The findings with the bits findings added; a benign race at the same instructions as one is left out
    (the bits finding says more about the same stores)."""
    shown = {frozenset((s.line, s.col) for s in f.sites[:2]) for f in bits}
    return [f for f in findings if not (f.kind == F.BENIGN_RACE and
                                        frozenset((s.line, s.col) for s in f.sites[:2]) in shown)] + bits
