"""`redux.sync` over the reals (`volta check`), registered into dispatch.REAL (PTX ISA §9.7.13.x redux.sync).

Each lane gets the reduction of `src` over the lanes of its membermask. Over the reals:
- `.add` (.u32/.s32) is the sum of the member lanes' values, `.min`/`.max` (.u32/.s32, and the sm_100a
  `.f32` forms) the min/max atom over them, `.abs` taking |v| of each first; concrete lanes take part as
  constants. Integer wrap-around (`.add` truncates to 32 bits) is not modelled, as for every integer `add`
  of tensor data (machine._real_compute); unsigned and signed min/max are the real min/max of the values
  (concrete ones read with the instruction's signedness), where the input buffers' dtypes bound every data
  value inside the instruction's .u32/.s32 range (outside it the bit order is not the real order: refused).
  `.NaN` changes nothing: reals are never NaN, and a concrete NaN meeting data is refused (operands.constants).
- `.and/.or/.xor` of tensor data have no real meaning: UNSUPPORTED naming the instruction.
- A reduction of concrete values only keeps the bits the bit handler computes (dispatch._redux).
- Integer reductions of a float's bits (`__float_as_int`) are refused (floatbits.real_compute), and a
  `.f32` reduction of bits that integer arithmetic on data produced.

Membermask: the bit handler reduces each group of a warp's arriving lanes that share a membermask
(dispatch.reduction_groups). A group must be exactly the lanes its mask names: a lane running redux.sync
outside its own membermask, or overlapping masks, is undefined behaviour (PTX ISA), and refused here.
"""
from __future__ import annotations

import numpy as np

from volta.errors import Unsupported
from volta.exec import floatbits
from volta.exec.table import handles_real, reduction_groups, run_bits
from volta.exec.services import DATA
from volta.ir.program import RegRef
from volta.semantics import realops
from volta.semantics.bits import U64
from volta.symbolic import expr as E

BITWISE = (".and", ".or", ".xor")


class _Op:
    """The decoded-instruction view realops.apply needs: a two-operand add/min/max without modifiers."""

    def __init__(self, op: str):
        self.op = op

    def has(self, *mods) -> bool:
        return False


_COMBINE = {k: _Op(k) for k in ("add", "min", "max")}
_ABS = _Op("abs")



@handles_real("redux")
def _redux(m, op, lanes):
    ops = op.operands
    name = op.d.inst.opcode
    t = op.d.types[-1]
    src, dst = ops[1], ops[0]
    mk, fm = m.read(ops[2], lanes, ".b32")
    m.require_concrete(op, fm, lanes, "member mask")
    _, fv = m.read(src, lanes, t)
    data = np.zeros(lanes.size, bool) if fv is None else (fv & DATA) != 0
    values = None
    if data.any():
        kind = next((k for k in BITWISE if op.d.has(k)), None)
        if kind is not None:
            raise Unsupported(f"`{name}` on tensor data: a bitwise reduction ({kind[1:]}) has no real-number "
                              f"meaning", op.span)
        _refuse_float_bits(m, op, src, t, lanes[data])
        values = m.read_sym(src, lanes, t)   # before the bit handler writes (dst may be src)
    pc = m.pc[lanes].copy()
    run_bits(m, op, lanes)
    ran = np.flatnonzero(m.pc[lanes] != pc)
    if ran.size == 0:
        return   # waiting for the rest of the membermask
    flat = lanes[ran]
    mask_ran = mk[ran] & U64(0xFFFFFFFF)
    sym = np.full(flat.size, None, dtype=object)
    for g in reduction_groups(m, flat, mask_ran):
        want = int(mask_ran[g[0]])
        have = int(np.bitwise_or.reduce(U64(1) << m.laneid[flat[g]].astype(np.uint64)))
        if have != want:
            k = next(int(j) for j in g if not (want >> int(m.laneid[flat[j]])) & 1) if have & ~want else None
            who = (f"lane {int(m.laneid[flat[k]])} runs it outside its own membermask {want:#010x}"
                   if k is not None else f"the lanes of membermask {want:#010x} do not all run it with that mask")
            raise Unsupported(f"`{name}`: {who}; PTX leaves that undefined, so volta check compares no "
                              f"kernel that does it", op.span)
        if values is None or not data[ran[g]].any():
            continue   # concrete values only: the bit handler's bits
        if t in _RANGE and not op.d.has(".add"):
            _require_range(m, op, t, values[ran[g]][data[ran[g]]])
        sym[g] = _reduce(op, values[ran[g]])
    if values is not None:
        _write(m, dst, flat, sym)


def _reduce(op, vals):
    name = op.d.inst.opcode
    if op.d.has(".abs"):
        vals = [realops.POS_INF if isinstance(v, realops.Infinity) else realops.apply(_ABS, (v,)) for v in vals]
    d = _COMBINE[next(k for k in ("add", "min", "max") if op.d.has("." + k))]
    acc = vals[0]
    for v in vals[1:]:
        before = acc
        acc = realops.apply(d, (acc, v))
        if acc is None or isinstance(acc, realops.NoValue):
            raise Unsupported(f"`{name}`: {before} {d.op} {v} has no real value", op.span)
    if isinstance(acc, realops.NoValue) or acc is None:
        raise Unsupported(f"`{name}` reduces a value with no real meaning", op.span)
    return acc


_RANGE = {".u32": (0, 2**32 - 1), ".s32": (-2**31, 2**31 - 1)}
_DTYPES = {"u8": (0, 2**8 - 1), "s8": (-2**7, 2**7 - 1), "u16": (0, 2**16 - 1), "s16": (-2**15, 2**15 - 1),
           "u32": (0, 2**32 - 1), "s32": (-2**31, 2**31 - 1)}


def _require_range(m, op, t, vals):
    """An integer min/max compares its operands' bits as .u32 or .s32 values: that is the real order only
    where every value lies in that type's range. Interval bounds from the input buffers' dtypes prove it
    (a signed input in an unsigned max is refused: a negative value's bits are a large unsigned number)."""
    dtypes = {r.name: getattr(r, "dtype", None) for r in m.memory.regions if r is not None}
    lo, hi = _RANGE[t]
    memo: dict = {}
    for e in vals:
        r = _interval(e, dtypes, memo)
        if r is None or r[0] < lo or r[1] > hi:
            raise Unsupported(f"`{op.d.inst.opcode}` compares {t[1:]} bits, and the bounds of {E.to_str(e, 3)} "
                              f"do not prove it lies in the {t[1:]} range (there the {t[1:]} order is not the "
                              f"real order: a negative value's bits are a large unsigned number, and back)",
                              op.span)


def _interval(e, dtypes, memo):
    """Certain integer bounds (lo, hi) of e from its leaves' dtypes, or None (unknown)."""
    if not isinstance(e, E.Expr):
        return None
    if e in memo:
        return memo[e]
    r = None
    if e.op is E.CONST:
        r = (e.data, e.data)
    elif e.op is E.VAR:
        r = _DTYPES.get(dtypes.get(e.data[0]) or "")
    elif e.op in (E.ADD, E.MUL, E.MIN, E.MAX) and len(e.args) == 2:
        a, b = (_interval(x, dtypes, memo) for x in e.args)
        if a is not None and b is not None:
            if e.op is E.ADD:
                r = (a[0] + b[0], a[1] + b[1])
            elif e.op is E.MUL:
                ps = [x * y for x in a for y in b]
                r = (min(ps), max(ps))
            elif e.op is E.MIN:
                r = (min(a[0], b[0]), min(a[1], b[1]))
            else:
                r = (max(a[0], b[0]), max(a[1], b[1]))
    memo[e] = r
    return r


def _refuse_float_bits(m, op, src, t, dl):
    if not isinstance(src, RegRef):
        return
    if t == ".f32":
        if floatbits._is_int(src) and src.index in floatbits.plan(m.prog).int_data:
            raise Unsupported(f"`{op.d.inst.opcode}` reads as a float the bits that integer arithmetic on "
                              f"tensor data produced; the real number they stand for is not followed", op.span)
        return
    floatbits.real_compute(m, op, dl, [src])   # integer reductions of a float's bits: refused there


def _write(m, reg, flat, sym):
    """Give `reg` of `flat` the expressions `sym` (None: concrete) over the bits the bit handler wrote."""
    bits, flags = m.read(reg, flat)
    flags = np.zeros(flat.size, np.uint8) if flags is None else flags & np.uint8(0xFF ^ DATA)
    has = sym != None  # noqa: E711
    m.write(reg, flat, bits, flags | has.astype(np.uint8) * np.uint8(DATA), sym if has.any() else None)
