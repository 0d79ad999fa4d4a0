"""The machine's opcode tables and what every instruction handler shares.

`DISPATCH` (opcode -> handler(machine, op, lanes): bits, flags, findings, advancing the lanes), `REAL` (the
handlers over the reals of the instructions in NOT_REAL that have one), `WATCHERS` (instructions that constrain
what others may do while they are in progress), the decorators that fill them, and the helpers the handler
modules share (advancing lanes, merging taint flags, the data flag of a load, warp-collective groups).

Its own module so that the handler modules (dispatch.py, asynccopy.py, tensor.py, ...) register here without
importing the machine or each other: volta/exec/machine.py imports them all, which fills the tables, and every
handler gets the machine passed in.
"""
from __future__ import annotations

import numpy as np

from volta.exec.state.services import RUN
from volta.launch.spec import FIXED

# Data movement and arithmetic whose handlers keep bits but no expressions: over the reals they
# would silently compute with placeholder values, so `volta check` refuses them.
NOT_REAL = frozenset({"cp", "ldmatrix", "stmatrix", "movmatrix", "mma", "wmma", "wgmma", "redux", "match",
                      "mbarrier", "tcgen05", "dp4a", "dp2a", "atom", "red", "tex", "tld4", "suld", "sust"})

DISPATCH = {}
# Over the reals (`volta check`), the instructions in NOT_REAL keep bits only unless a module
# gives them a real meaning here: handler(m, op, lanes) runs instead of the bit handler, or raises
# Unsupported naming what it does not model.
REAL = {}
# Instructions whose semantics constrain what *other* instructions may do while they are in progress (wgmma's
# registers in flight): opcode -> make(machine) -> watch(op, lanes), called before every instruction of a kernel
# that contains the opcode (Machine.watchers).
WATCHERS = {}


def handles(*names, table=DISPATCH):
    def register(fn):
        for n in names:
            table[n] = fn
        return fn
    return register


def handles_real(*names):
    return handles(*names, table=REAL)


def watches(name):
    def register(make):
        WATCHERS[name] = make
        return make
    return register


def run_bits(m, op, lanes, **extra):
    """The bit handler alone (bits, flags, races, findings, advancing the warp), for a REAL handler that then
    writes the expressions itself: while it runs (`m.expressions_follow`, the state of this one step; the machine's
    mode stays symbolic), `Machine.write` takes bits and flags without expressions, and a race between tensor data
    whose values bits cannot compare is left to the comparison over the reals, as in a bits run. `extra` goes to
    the bit handler (wmma.load's `exprs`), whose answer is returned."""
    m.expressions_follow = True
    try:
        return DISPATCH[op.op](m, op, lanes, **extra)
    finally:
        m.expressions_follow = False


def _advance(m, lanes):
    if lanes is m.all_lanes:
        m.pc += 1
        m.status[:] = RUN
    else:
        m.pc[lanes] += 1
        m.status[lanes] = RUN


def _merge(*flags):
    out = None
    for f in flags:
        if f is not None:
            out = f if out is None else out | f
    return out


def _data_flag(m, region, lanes, offs, size):
    """Values from global buffers, and anything stored in memory from data, are tensor data."""
    if region.space == ".global":
        # the grid-sync workspace (%envreg1:2) holds the barrier's own counter, not tensor data; a module
        # variable nothing has written yet holds its initializer (a `__device__` table of constants)
        if region.name == "%grid_sync_workspace" or region.role in ("module", FIXED) and not region.stored:
            return None   # (an integer input given fixed values, volta/equiv/fixed_inputs.py: known numbers)
        return np.ones(lanes.size, np.uint8)
    if region.space == ".const":
        return None
    return m.memory_flags(region, lanes, offs, size)


def reduction_groups(m, lanes, mk):
    """Index arrays into `lanes`, one per (warp, membermask) group of a warp collective."""
    warps = m.gwarp[lanes]
    return [np.nonzero((warps == w) & (mk == k))[0]
            for w in np.unique(warps) for k in np.unique(mk[warps == w])]
