"""Which kernel parameters (and module variables) a kernel may store through: a flow-insensitive provenance of
addresses, so the race detector can skip recording reads of buffers nothing writes (no write, no race).

Every register gets the set of parameters and variables its value may be derived from, to a fixed point over
all instructions (the order of execution does not matter, so loops and branches are covered). A 64-bit load
may produce a pointer from memory, so its result is unknown (None); narrower loads give indices, never base
addresses. An address written through must have a known, non-empty set of origins, or nothing is known.
What this cannot see — pointer arithmetic that walks from one buffer into another — is caught at run time:
the race detector refuses a store that lands in a buffer taken as read-only (volta/exec/state/access.py).
"""
from __future__ import annotations

from volta.ir.cfg import _is_destination, uses
from volta.ir.program import RegRef, VarRef
from volta.ptx import ast

# instructions whose address operands are only read; a cp.async reads its source (operand 1) and writes shared
READ_ONLY = frozenset({"ld", "ldu", "ldmatrix", "prefetch", "prefetchu", "isspacep", "applypriority",
                       "discard", "createpolicy"})


def written_origins(prog) -> frozenset[str] | None:
    """Names of the parameters and variables some store, atomic or asynchronous copy of prog may write
    through; None when an address written through cannot be traced (or a call may write anything)."""
    cached = prog.__dict__.get("_written_origins", ())
    if cached != ():
        return cached
    prog.__dict__["_written_origins"] = out = _written(prog)
    return out


def _written(prog):
    if any(op.op == "call" for op in prog.ops):
        return None
    origin = _origins(prog)
    written: set[str] = set()
    for op in prog.ops:
        if op.op in READ_ONLY:
            continue
        targets = [o for o in op.operands if isinstance(o, ast.Address)]
        if op.op == "cp" and not any(m.startswith(".bulk") or m == ".reduce" for m in op.d.mods):
            targets = targets[:1]   # cp.async: the shared destination; the global source is read
        for a in targets:
            got = _of(a.base, origin)
            if not got:   # None (unknown) or empty (an address from nowhere we can name)
                return None
            written |= got
    return frozenset(written)


def _origins(prog) -> dict:
    kernel_params = frozenset(p[0] for p in prog.params)
    origin: dict[int, frozenset | None] = {}
    changed = True
    while changed:
        changed = False
        for op in prog.ops:
            dsts = uses(op)[1]
            if not dsts:
                continue
            new = _defined(op, origin, kernel_params)
            for r in dsts:
                old = origin.get(r, frozenset())
                merged = None if old is None or new is None else old | new
                if merged != old:
                    origin[r] = merged
                    changed = True
    return origin


def _defined(op, origin, kernel_params):
    """Origins of what op writes into its destination registers."""
    loaded = next((o for o in op.operands if isinstance(o, ast.Address)), None)
    if loaded is not None:   # the destination holds memory contents (ld, atom, ldmatrix, wmma.load, ...)
        base = loaded.base
        if op.op == "ld" and op.d.space == ".param" and isinstance(base, VarRef) and base.name in kernel_params:
            return frozenset({base.name})   # a kernel parameter: the pointer it was passed
        # (a function's .param, or a struct slice the lowering did not split, is memory like any other)
        wide = any(t.endswith("64") for t in op.d.types) or op.d.vec > 1
        return None if wide else frozenset()   # a 64-bit value from memory may be a pointer
    out: frozenset = frozenset()
    for k, o in enumerate(op.operands):
        if _is_destination(op, k, o):
            continue
        got = _of(o, origin)
        if got is None:
            return None
        out |= got
    return out


def _of(operand, origin):
    if isinstance(operand, RegRef):
        return origin.get(operand.index, frozenset())
    if isinstance(operand, VarRef):
        return frozenset({operand.name})
    if isinstance(operand, ast.Address):
        return _of(operand.base, origin)
    if isinstance(operand, ast.Vector):
        out = frozenset()
        for e in operand.elems:
            got = _of(e, origin)
            if got is None:
                return None
            out |= got
        return out
    return frozenset()
