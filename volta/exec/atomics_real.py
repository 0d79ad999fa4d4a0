"""Atomic read-modify-writes over the reals (`volta check`), registered into dispatch.REAL (PTX ISA §9.7.13.5
atom, §9.7.13.6 red).

An address that a kernel updates only with `atom`/`red` add, min or max ends holding its initial value
combined with every contribution, and over the reals that value is the same in every order the threads could
reach it (+, min and max are associative and commutative; float rounding, which would make the order matter,
is not part of the real model, as for every other float instruction). So the machine applies the contributions
in the order it happens to run them and stores the combined expression.

What is order-dependent is refused or reported, never decided for one schedule:
- the value `atom` returns (the contents before this thread's update) is UNSUPPORTED when any instruction
  reads its destination register (nvcc writes `atom` with an unused destination for a plain `atomicAdd`);
  the grid barrier's own counter (`%grid_sync_workspace`) is exempt, its protocol is the barrier;
- two kinds of update on one address in a launch (add and max, say) are UNSUPPORTED: they do not commute;
- exch, cas, inc, dec, and/or/xor are UNSUPPORTED when tensor data takes part, and exch/cas on any value
  (their final value depends on the order); integer add/min/max and and/or/xor of concrete values keep their
  bits (modular + and the bitwise ops commute), and so do inc/dec when every update of an address has the same
  bound (n applications of one wrapping step, in whatever order);
- a plain read of such an address that is not ordered after every update is a RACE (atomic vs. non-atomic
  access, volta/exec/shadow.py), which `volta check` reports before any verdict.

Under a data-dependent condition c (an if-converted branch, volta/exec/ifconvert.py, which sets
`atomic_conditions`), a lane's add contributes select(c, v, 0) and its min/max is select(c, combine, before):
each conditional update is the identity or the update itself, so the order still does not matter.

Float atomics always build expressions, concrete contributions included: their real sum is exact, the bit
handler's rounded one is not. `out` buffers start as zeros (as after `cudaMemset`), so `atomicAdd` into a zeroed
output is the sum of its contributions; an `inout` buffer starts from its input value.
"""
from __future__ import annotations

import numpy as np

from volta.errors import Unsupported
from volta.exec import access as A
from volta.exec import floatbits, integer_real, tensor_real
from volta.exec.operands import constants
from volta.exec.table import DISPATCH, handles_real
from volta.ir.cfg import uses
from volta.ir.program import RegRef
from volta.semantics import realops
from volta.semantics.bits import is_float
from volta.symbolic import expr as E

KINDS = (".add", ".min", ".max", ".and", ".or", ".xor", ".exch", ".cas", ".inc", ".dec")
ORDER_FREE = (".add", ".min", ".max")   # over the reals, on expressions
BITWISE = (".and", ".or", ".xor")       # order-free on concrete integers only
SAME_STEP = (".inc", ".dec")            # one wrapping step: order-free when every update has the same bound


class _Combine:
    """The decoded-instruction view realops.apply needs (its `op` and modifiers) for one atomic kind."""

    def __init__(self, op: str):
        self.op = op

    def has(self, *mods) -> bool:
        return False


_COMBINE = {k: _Combine(k[1:]) for k in ORDER_FREE}


def kind_of(op) -> str | None:
    return next((k for k in KINDS if k in op.d.mods), None)


@handles_real("atom", "red")
def _atom(m, op, lanes):
    """The bit handler: bits, taint, races, bounds; it calls `update` for the expressions."""
    DISPATCH[op.op](m, op, lanes)


def update(m, op, region, lz, offs, es, t, values):
    """Store at each address the combination of what it holds with the contributions of lanes `lz` (in
    order; `values` their expressions or constants, aligned with `lz`), or refuse what depends on the order.
    Called by the bit handler for each region before it changes the bytes. Returns what the destination
    register of `atom` holds over the reals: None (its concrete bits), or no value (nothing reads it)."""
    kind = kind_of(op)
    if region.name == "%grid_sync_workspace":
        return   # the grid barrier's counter: its protocol is the barrier, bits only
    conditions = m.__dict__.get("atomic_conditions") or {}   # lane -> its data condition (ifconvert.py)
    data = bool(conditions) or any(not _constant(v) for v in values) or _holds_expressions(m, region, lz, offs)
    mark = kind
    if kind in SAME_STEP:
        bounds = {v.data for v in values} if not data else set()
        if len(bounds) != 1:
            raise Unsupported(f"`{op.d.inst.opcode}`: an atomic {kind[1:]} of tensor data or with different bounds "
                              f"ends at a value that depends on the order threads reach it, which volta check does "
                              f"not pick", op.span)
        mark = (kind, bounds.pop())   # the same step with the same bound, applied n times in any order
    elif kind not in ORDER_FREE + BITWISE:
        raise Unsupported(f"`{op.d.inst.opcode}`: the final value of an atomic {kind and kind[1:]} depends on the "
                          f"order threads reach it, which volta check does not pick", op.span)
    if kind in BITWISE and (data or is_float(t)):
        raise Unsupported(f"`{op.d.inst.opcode}` on tensor data: bitwise atomics have no real-number meaning",
                          op.span)
    if data and t in (".f16x2", ".bf16x2"):
        raise Unsupported(f"`{op.d.inst.opcode}` on tensor data: atomics on pairs of 16-bit elements are not "
                          f"modelled over the reals", op.span)
    if data:
        tensor_real.check_width(op, region, es)   # the outputs are read element by element
    if data and not is_float(t):
        _refuse_float_bits(m, op, region, lz, offs, es, t, values)
    _one_kind_per_address(m, op, region, lz, offs, mark)
    dst = op.operands[0] if op.op == "atom" else None
    if isinstance(dst, RegRef) and dst.index in _read_registers(m.prog):
        raise Unsupported(f"`{op.d.inst.opcode}` returns the value before this thread's update, and the kernel "
                          f"uses it: that value depends on the order threads run, which volta check does not "
                          f"pick (an atomic whose result is unused is decided)", op.span)
    unused = np.full(lz.size, realops.NoValue(f"the unused value `{op.d.inst.opcode}` returns"), dtype=object)
    if kind in BITWISE + SAME_STEP or not (data or is_float(t)):
        A.store_sym(m, region, lz, offs, es, None)   # written by the kernel, as the concrete bits the bit
        return unused   # handler computes: modular + and the bitwise ops are exact and order-free on integers
    bits, _ = A.load(m, region, lz, offs, es)
    held = A.load_sym(m, op, region, lz, offs, es, t, bits)
    concrete = held == None  # noqa: E711
    if concrete.any():
        held[concrete] = constants(bits[concrete], t, m.named)
    if kind != ".add" and integer_real.type_range(t) is not None:   # min/max read numbers (integer_real.py)
        values = integer_real.in_range(m, op, values, t, "its operand")
        held = integer_real.in_range(m, op, held, t, "the value it updates")
    key = A.row_index(region, lz, m) * region.data.shape[1] + offs
    current, last = {}, {}
    d = _COMBINE[kind]
    for j in range(lz.size):
        k = int(key[j])
        before = current.get(k, held[j])
        c = conditions.get(int(lz[j]))
        v = values[j] if c is None or kind != ".add" else E.select(c, values[j], E.const(0))
        after = realops.apply(d, (before, v))
        if after is None or isinstance(after, realops.NoValue):
            raise Unsupported(f"`{op.d.inst.opcode}`: {before} {kind[1:]} {v} has no real value", op.span)
        if c is not None and kind != ".add":
            after = E.select(c, after, before)   # the update happens only where the condition holds
        current[k], last[k] = after, j
    at = np.array(sorted(last.values()), np.int64)
    final = np.empty(at.size, dtype=object)
    final[:] = [current[int(key[j])] for j in at]
    A.store_sym(m, region, lz[at], offs[at], es, final)
    return unused


def _refuse_float_bits(m, op, region, lz, offs, es, t, values) -> None:
    """An integer atomic on a float's bits (`atomicMax((int*)p, __float_as_int(v))`, `atomicMin((unsigned*)p,
    ...)`) orders or adds the bits, not the values: negative floats order backwards as signed integers and above
    every positive one as unsigned ones, and the sum of bits is no float's value. Over the reals such a register
    or element carries the float's value, so the integer update would be the float one: refused."""
    src = op.operands[2] if op.op == "atom" else op.operands[1]
    bits, _ = A.load(m, region, lz, offs, es)
    held = A.load_sym(m, op, region, lz, offs, es, t, bits)
    if floatbits.holds_float_bits(m, src) or any(floatbits.float_valued(m, v) for v in values) \
            or any(floatbits.float_valued(m, v) for v in held):
        raise Unsupported(f"`{op.d.inst.opcode}` updates a float's bits as an integer: the integer {kind_of(op)[1:]} "
                          f"of the bits is not the float {kind_of(op)[1:]} of the values (negative floats order "
                          f"otherwise), which the real-number model of volta check does not follow", op.span)


def _one_kind_per_address(m, op, region, lz, offs, kind) -> None:
    """Refuse a second kind of update on an address during one launch: add and max (or min, or a bitwise op)
    do not commute with each other, so max(0 + a, b) and max(0, b) + a are both possible finals."""
    kinds = m.__dict__.setdefault("_atomic_kinds", {})
    rows = A.row_index(region, lz, m)
    for r, o in set(zip(rows.tolist(), offs.tolist())):
        first = kinds.setdefault((region.name, r, o), kind)
        if first != kind:
            other = first[0][1:] + f" (bound {first[1]})" if isinstance(first, tuple) else first[1:]
            raise Unsupported(f"`{op.d.inst.opcode}`: this address is also updated by atomic {other} in the "
                              f"same launch; mixed atomic kinds do not commute, so the final value depends on "
                              f"the order threads reach it, which volta check does not pick", op.span)


def _constant(v) -> bool:
    return isinstance(v, realops.Infinity) or v.op == E.CONST


def _holds_expressions(m, region, lz, offs) -> bool:
    rows = A.row_index(region, lz, m)
    if region.sym is not None and (region.sym[rows, offs] != None).any():  # noqa: E711
        return True
    refs = region.lsref
    if refs is not None and (refs[rows, offs] > 0).any():
        return True
    written = region.kwritten[rows, offs] if region.kwritten is not None else np.zeros(lz.size, bool)
    return region.space == ".global" and region.role in ("in", "inout") and not written.all()


def _read_registers(prog) -> frozenset:
    """Every register some instruction reads (PTX registers are mostly written once: a destination nothing
    reads is unused)."""
    cached = prog.__dict__.get("_atomics_read_registers")
    if cached is None:
        cached = frozenset().union(*(uses(op)[0] for op in prog.ops))
        prog.__dict__["_atomics_read_registers"] = cached
    return cached
