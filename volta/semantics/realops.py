"""Float instructions over the reals (`--fp real`): one expression constructor per opcode.

The same opcodes as `compute.py`, in the symbolic value domain of `volta.symbolic.expr`:
rounding modifiers are ignored (exact real operations), conversions between float types are the
identity, `fma(a,b,c) = a·b + c`, `ex2` is 2^x, and everything outside + − × ÷ 2^x becomes an
atom (max, min, abs, sqrt, rsqrt, rcp.approx, tanh, sin, cos, lg2). An opcode missing here is
`Unsupported` when it meets symbolic data, never approximated.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from volta.semantics import intervals
from volta.symbolic import expr as E
from volta.symbolic.constants import is_named, rational_bounds

_CMP = {
    ".eq": E.eq, ".ne": E.ne, ".lt": E.lt, ".le": E.le, ".gt": E.gt, ".ge": E.ge,
    ".equ": E.eq, ".neu": E.ne, ".ltu": E.lt, ".leu": E.le, ".gtu": E.gt, ".geu": E.ge,
}


def _rcp(d, a):
    return E.rcp_approx(a) if d.has(".approx") else E.div(E.ONE, a)


def _rsqrt(d, a):
    return E.rsqrt(a)


def _sqrt(d, a):
    return E.sqrt(a)


def _div(d, a, b):
    return E.div(a, b)


def _abs(d, a):
    return E.absolute(a)


def _copysign(d, a, b):
    """copysign d, a, b: |b| with the sign of a (PTX order). The reals have no -0, so a = 0 counts as
    positive (libdevice erff/tanhf apply it to their argument x, a real input). A constant zero sign
    source may be -0.0 in the PTX (copysignf(v, -0.0f)): no meaning here (None), never a guess."""
    if a.op is E.CONST:
        return None if a.data == 0 else (E.absolute(b) if a.data > 0 else E.neg(E.absolute(b)))
    return E.select(E.lt(a, E.ZERO), E.neg(E.absolute(b)), E.absolute(b))


# the largest finite value of each float format a conversion may saturate to (`.satfinite`)
FINITE_MAX = {
    ".f64": Fraction(2 ** 53 - 1) * Fraction(2) ** 971, ".f32": Fraction(2 ** 24 - 1) * Fraction(2) ** 104,
    ".tf32": Fraction(2 ** 11 - 1) * Fraction(2) ** 117, ".bf16": Fraction(2 ** 8 - 1) * Fraction(2) ** 120,
    ".f16": Fraction(65504), ".e4m3": Fraction(448), ".e5m2": Fraction(57344),
}


def clamped_conversion(d, value):
    """A float-to-float cvt's `.relu` (negative results become 0) and `.satfinite` (results beyond the destination's
    largest finite value become it, ±inf too) over the reals; the conversion itself is the identity. None where
    that has no meaning here (a non-real value, a format without a known maximum)."""
    relu, finite = d.has(".relu"), d.has(".satfinite")
    if isinstance(value, Infinity):
        if relu and value.sign < 0:
            return E.ZERO
        if not finite:
            return value
        top = FINITE_MAX.get(d.types[0])
        return None if top is None else E.const(top if value.sign > 0 else -top)
    if not isinstance(value, E.Expr):
        return None
    if relu:
        value = E.maximum(value, E.ZERO)
    if finite:
        top = FINITE_MAX.get(d.types[0])
        if top is None:
            return None
        value = E.minimum(E.maximum(value, E.const(-top)), E.const(top))
    return value


def _clamp01(d, value):
    if d.has(".sat"):
        return E.minimum(E.maximum(value, E.ZERO), E.ONE)
    return value


TABLE = {
    "add": lambda d, a, b: E.add(a, b),
    "sub": lambda d, a, b: E.sub(a, b),
    "mul": lambda d, a, b: E.mul(a, b),
    "fma": lambda d, a, b, c: E.fma(a, b, c),
    "mad": lambda d, a, b, c: E.fma(a, b, c),
    "div": _div,
    "neg": lambda d, a: E.neg(a),
    "abs": _abs,
    "min": lambda d, a, b, c=None: _relu(d, E.minimum(a, b) if c is None else E.minimum(E.minimum(a, b), c)),
    "max": lambda d, a, b, c=None: _relu(d, E.maximum(a, b) if c is None else E.maximum(E.maximum(a, b), c)),
    "sqrt": _sqrt,
    "rsqrt": _rsqrt,
    "rcp": _rcp,
    "ex2": lambda d, a: E.exp2(a),
    "lg2": lambda d, a: E.lg2(a),
    "tanh": lambda d, a: E.tanh(a),
    "sin": lambda d, a: E.sin(a),
    "cos": lambda d, a: E.cos(a),
    "mov": lambda d, a: a,
    "copysign": _copysign,
}


class Infinity:
    """±∞ as a constant (softmax starts its running max at -INFINITY). Only the operations where
    the extended reals have a clear value accept it; anything else is Unsupported."""

    __slots__ = ("sign",)

    def __init__(self, sign: int):
        self.sign = sign

    def __repr__(self) -> str:
        return "+inf" if self.sign > 0 else "-inf"


POS_INF, NEG_INF = Infinity(1), Infinity(-1)


def infinity(sign: int) -> Infinity:
    return POS_INF if sign > 0 else NEG_INF


def _relu(d, value):
    """`.relu` on min/max clamps the result at zero (three-input forms reduce left to right)."""
    return E.maximum(value, E.ZERO) if d.has(".relu") else value


def _extended(d, args):
    """The few operations on ±∞ that have an exact, data-independent value; None otherwise."""
    op = d.op
    inf = [a for a in args if isinstance(a, Infinity)]
    finite = [a for a in args if not isinstance(a, Infinity)]
    if op in ("max", "min") and len(args) == 2:
        a, b = args
        keep_other = (op == "max") == (inf[0].sign < 0)
        if len(inf) == 2:
            return infinity(max(a.sign, b.sign) if op == "max" else min(a.sign, b.sign))
        return finite[0] if keep_other else inf[0]
    if op in ("add", "sub") and len(inf) == 1:
        a, b = args
        if isinstance(a, Infinity):
            return a
        return infinity(b.sign if op == "add" else -b.sign)
    if op == "mul" and len(inf) == 1 and constant_sign(finite[0]):
        return infinity(inf[0].sign * constant_sign(finite[0]))
    if op in ("fma", "mad") and len(inf) == 1 and isinstance(args[2], Infinity) is False:
        a, b, c = args
        other = b if isinstance(a, Infinity) else a
        if constant_sign(other):   # a nonzero constant: a rational, or log2 e (expf of a masked -inf score)
            return infinity(inf[0].sign * constant_sign(other))
    if op in ("fma", "mad") and len(inf) == 2 and isinstance(args[2], Infinity):
        # ±inf·c + (same-signed inf) with c a nonzero constant: libdevice expf(-inf) reduces -inf this way
        a, b, c = args
        factor, other = (a, b) if isinstance(a, Infinity) else (b, a)
        if isinstance(other, E.Expr) and constant_sign(other):
            sign = factor.sign * constant_sign(other)
            if sign == c.sign:
                return infinity(sign)
    if op == "cvt" and d.has(".sat") and len(args) == 1:
        return E.ZERO if inf[0].sign < 0 else E.ONE   # saturation clamps ±inf to 0 / 1
    if op == "ex2" and inf[0].sign < 0:
        return E.ZERO
    if op == "mov":
        return args[0]
    if op == "neg":
        return infinity(-inf[0].sign)
    return None


def apply(d, args):
    """The real-valued result of a float instruction on expression arguments (None: no meaning)."""
    if any(isinstance(a, NoValue) for a in args):
        return propagate(d, args)
    if any(isinstance(a, Infinity) for a in args):
        return _extended(d, args)
    fn = TABLE.get(d.op)
    if fn is None:
        return None
    return _clamp01(d, fn(d, *args))


def compare(d, a, b):
    """A `setp` comparison over the (extended) reals; NaN cannot occur (a NoValue operand: None)."""
    if isinstance(a, NoValue) or isinstance(b, NoValue):
        return None
    if isinstance(a, Infinity) or isinstance(b, Infinity):
        x = a.sign if isinstance(a, Infinity) else 0
        y = b.sign if isinstance(b, Infinity) else 0
        if x == y:
            return None  # ∞ against ∞ (or both finite, impossible here): not decided here
        less = x < y
        result = {".lt": less, ".le": less, ".gt": not less, ".ge": not less, ".eq": False, ".ne": True,
                  ".ltu": less, ".leu": less, ".gtu": not less, ".geu": not less, ".equ": False, ".neu": True}
        return E.boolean(result[d.cmp]) if d.cmp in result else None
    fn = _CMP.get(d.cmp)
    return fn(a, b) if fn is not None else None


def combine(d, cond, other):
    if d.boolop is None or other is None:
        return cond
    return {".and": E.logical_and, ".or": E.logical_or}.get(d.boolop, lambda a, b: None)(cond, other)


# ---------------------------------------------------------------- full-precision expf: 2^n from bits
#
# libdevice's expf (nvcc without --use_fast_math) is, for sm_80 and sm_90 alike:
#     t = sat(x·0f3BBB989D + 0.5)                 cvt.sat.f32.f32: t ∈ [0, 1]
#     v = fma.rm(t, 252, 0f4B400001)              v ∈ [12582913, 12583165]
#     n = v + 0fCB40007F                          n = v − 12583039 ∈ [−126, 126]
#     f = x·0f3FB8AA3B − n + x·0f32A57060         (log2 e split into hi + lo)
#     s = bits(v) << 23  read as f32              2^n, built in the exponent field
#     expf(x) = 2^f · s                           over the reals: 2^(x·(hi+lo))
# Every f32 in [2^23, 2^24) is an integer, and such a v has bits 0x4B000000 + (v − 2^23), so
# `bits(v) << 23` (mod 2^32) is the f32 with biased exponent (v − 2^23) mod 512 and zero mantissa:
# exactly 2^(v − base − 127) with base = 2^23 + 512·j, provided v − base lies in [1, 254] (the
# normal range; 0 would give +0, 255 infinity, beyond that the sign bit). That condition is
# CHECKED here by interval bounds on v's expression (the .sat clamp bounds it); when the bounds
# do not prove it, the instruction is Unsupported, never assumed. Over the reals v is taken
# unrounded, like every other rounding in this mode; it cancels: 2^(x·c − n)·2^n = 2^(x·c)
# (rules `exp2-mul-fold` and `expf-idiom`, proofs/check_rules.py; the bit fact is checked there
# exhaustively by `check_exponent_field`).

F32_INT_LO, F32_INT_HI = 1 << 23, 1 << 24   # every f32 in [2^23, 2^24) is an integer


# node -> (lo, hi), process-wide. bounds() is a function of the node alone (no context: leaves are
# unbounded, constants exact), and an entry holds its node, so it never goes stale; outputs of one row
# share their sub-DAGs (attention: the same dot product under every expf), and a fresh walk per call made
# bounds half the check's time. Cleared when it outgrows BOUNDS_MEMO_MAX, and by equiv.check before each
# check (so that the intern table's sweep can drop the last check's nodes).
_BOUNDS: dict = {}
BOUNDS_MEMO_MAX = 1 << 20


def clear_bounds_memo() -> None:
    _BOUNDS.clear()


def bounds(e):
    """Certain real bounds (lo, hi) of an expression (None for unbounded); sound, not tight."""
    memo = _BOUNDS
    hit = memo.get(e)
    if hit is not None:
        return hit
    if len(memo) > BOUNDS_MEMO_MAX:
        memo.clear()
    return _bounds_walk(e, memo)


def _bounds_walk(e, memo):
    """bounds() of e and of every node below it not in memo yet (children before parents)."""
    for n in E.postorder(e, memo):
        op = n.op
        if op is E.CONST:
            r = (n.data, n.data)
        elif op in (E.ADD, E.MUL, E.MAX, E.MIN) and len(n.args) == 2:
            (a0, a1), (b0, b1) = memo[n.args[0]], memo[n.args[1]]
            if op is E.ADD:
                r = (None if a0 is None or b0 is None else a0 + b0,
                     None if a1 is None or b1 is None else a1 + b1)
            elif op is E.MUL:
                if None in (a0, a1, b0, b1):
                    r = intervals.mul((a0, a1), (b0, b1))   # unbounded factors: |x|·|x| >= 0
                else:
                    ps = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
                    r = (min(ps), max(ps))
            elif op is E.MAX:   # max(a, b) >= each lower bound; <= the larger upper bound
                lo = a0 if b0 is None else b0 if a0 is None else max(a0, b0)
                r = (lo, None if a1 is None or b1 is None else max(a1, b1))
            else:
                hi = a1 if b1 is None else b1 if a1 is None else min(a1, b1)
                r = (None if a0 is None or b0 is None else min(a0, b0), hi)
        elif op is E.EXP2:
            r = (_ZERO_FRACTION, None)
        elif op is E.SYM and is_named(n):   # log2 e, π: certified rational bounds (volta/symbolic/constants.py)
            r = rational_bounds(n.data)
        elif op is E.DIV:
            r = intervals.divide(memo[n.args[0]], memo[n.args[1]])
        elif op is E.SQRT:
            r = intervals.sqrt(memo[n.args[0]])
        elif op is E.ABS:
            r = intervals.absolute(memo[n.args[0]])
        elif op is E.RINT:
            r = intervals.rint(memo[n.args[0]])
        elif op is E.SELECT:   # the exp range reduction's clamp of j (coshf, erfcf): volta/semantics/intervals.py
            r = intervals.select(n, memo)
        else:
            r = (None, None)
        memo[n] = r
    return memo[e]


def constant_sign(e) -> int:
    """The sign of a constant expression (a rational, or one over named constants such as log2 e), certain;
    0 when it is zero, not a constant, or not decided by bounds."""
    if e.op is E.CONST:
        return (e.data > 0) - (e.data < 0)
    if any(not is_named(leaf) for leaf in E.leaves(e)):
        return 0
    lo, hi = bounds(e)
    return 1 if lo is not None and lo > 0 else -1 if hi is not None and hi < 0 else 0


_ZERO_FRACTION = Fraction(0)


def exponent_field_base(lo, hi):
    """The base with `bits(v) << 23` = 2^(v − base − 127) for every integer f32 v in [lo, hi], or None."""
    if lo is None or hi is None or lo < F32_INT_LO or hi >= F32_INT_HI:
        return None
    base = F32_INT_LO + 512 * ((int(lo) - F32_INT_LO) // 512)
    if lo - base >= 1 and hi - base <= 254:
        return base
    return None


def exponent_field(v):
    """The real value of the f32 whose bits are `bits(v) << 23`, v an f32 expression: 2^(v − base − 127).
    None when the bounds of v do not prove the normal-exponent-range condition."""
    lo, hi = bounds(v)
    base = exponent_field_base(lo, hi)
    if base is None:
        return None
    return E.exp2(E.sub(v, E.const(base + 127)))


# ---------------------------------------------------------------- values with no real meaning, and choices
#
# libdevice guards its special cases with branches on the data: logf(x) for x < 0 is `x·inf + inf` (NaN),
# for x = 0 it selects -inf. If-converted, both sides run for every input, so those sides compute values
# with no real meaning. Such a value is NOT_REAL (NaN, or ±inf whose sign depends on data) and may only
# be dropped: select(c, non-real, b) is b where c implies that b is undefined (b contains floor_log2(u),
# lg2(u) or rsqrt(u) with u <= 0 there, sqrt(u) with u < 0, or a division by 0): at those inputs the
# model has no value either way, and elsewhere the select is b. Anything else is refused.

class NoValue:
    """NaN, or ±inf of a data-dependent sign: no real value. Only a select can drop it (`choose`)."""

    __slots__ = ("why",)

    def __init__(self, why: str):
        self.why = why

    def __repr__(self) -> str:
        return f"<no real value: {self.why}>"


NON_REAL = (Infinity, NoValue)

# the opcodes through which a non-real operand stays non-real (NaN and ±inf propagate); min/max do not
# (max(NaN, x) = x in PTX), comparisons and conversions to integers have no such value
_PROPAGATES = frozenset({"mov", "neg", "abs", "add", "sub", "mul", "fma", "mad", "div", "sqrt", "rsqrt",
                         "rcp", "ex2", "lg2", "cvt", "copysign"})


def propagate(d, args):
    """The value of an instruction one of whose operands is NoValue: NoValue, or None (no meaning)."""
    first = next(a for a in args if isinstance(a, NoValue))
    return first if d.op in _PROPAGATES else None


def choose(c, a, b):
    """select(c, a, b) over the reals and the non-real values; None when the choice is not modelled."""
    if c is E.TRUE:
        return a
    if c is E.FALSE:
        return b
    a_real, b_real = isinstance(a, E.Expr), isinstance(b, E.Expr)
    if a_real and b_real:
        return E.select(c, a, b)
    if a is b and isinstance(a, Infinity):
        return a
    if b_real and isinstance(a, NON_REAL) and undefined_where(c, b):
        return b
    if a_real and isinstance(b, NON_REAL) and undefined_where(E.logical_not(c), a):
        return a
    return None


def _partial_arguments(e):
    """(u, strict): the arguments of e's partial operations, each undefined where u <= 0 (strict False)
    or u < 0 (strict True), or u = 0 for a divisor (strict None). Evaluation is strict in every subterm."""
    out = []
    for n in E.postorder(e):
        if n.op in (E.FLOOR_LOG2, E.LG2, E.RSQRT):
            out.append((n.args[0], False))
        elif n.op is E.SQRT:
            out.append((n.args[0], True))
        elif n.op is E.DIV:
            out.append((n.args[1], None))
    return out


def _scaled(u):
    """u as (k, t) with u = k·t, k a positive constant (k = 1 when u is not such a product)."""
    if u.op is E.MUL:
        x, y = u.args
        if x.op is E.CONST and x.data > 0:
            return x.data, y
        if y.op is E.CONST and y.data > 0:
            return y.data, x
    return 1, u


def _implies_sign(c, t, strict) -> bool:
    """Does condition c imply t <= 0 (strict False), t < 0 (strict True), t = 0 (strict None)? Syntactic."""
    op = c.op
    if op is E.AND:
        return _implies_sign(c.args[0], t, strict) or _implies_sign(c.args[1], t, strict)
    if op is E.OR:
        return _implies_sign(c.args[0], t, strict) and _implies_sign(c.args[1], t, strict)
    negated = op is E.NOT
    if negated:
        c = c.args[0]
        op = c.op
    if op not in E.COMPARISONS:
        return False
    x, y = c.args
    if op is E.EQ and not negated or op is E.NE and negated:     # t == k
        k = y if x is t else x if y is t else None
        if k is None or k.op is not E.CONST:
            return False
        return k.data == 0 if strict is None else (k.data < 0 if strict else k.data <= 0)
    if strict is None or op in (E.EQ, E.NE):
        return False
    # the comparison as "t < k" or "t <= k" (negation flips: not(k <= t) is t < k)
    if not negated and x is t and y.op is E.CONST:
        below, k = op is E.LT, y.data
    elif negated and y is t and x.op is E.CONST:
        below, k = op is E.LE, x.data
    else:
        return False
    return k <= 0 if below or not strict else k < 0


def undefined_where(c, e) -> bool:
    """Is e certainly undefined wherever c holds? Syntactic first; then Z3 on `c -> u <= 0` (unsat of the
    negation is a proof; a timeout is no)."""
    parts = _partial_arguments(e)
    for u, strict in parts:
        k, t = _scaled(u)
        if _implies_sign(c, t, strict):
            return True
    from volta.symbolic.verdict import Proved
    from volta.symbolic.z3bridge import prove

    for u, strict in parts[:8]:
        bad = E.eq(u, E.ZERO) if strict is None else E.lt(u, E.ZERO) if strict else E.le(u, E.ZERO)
        if isinstance(prove(E.logical_or(E.logical_not(c), bad), timeout_ms=2000), Proved):
            return True
    return False


# ---------------------------------------------------------------- the bits of an f32, read over the reals
#
# libdevice's logf/log2f/log1pf split an f32 v into exponent and mantissa with integer instructions:
#     b = bits(v)                      mov.b32       (an integer register holds the float's bits)
#     o = b − bits(c)                  add.s32       (c a positive normal f32 constant near 2/3, 1/√2, 3/4)
#     s = o & 0xFF800000               and.b32       = k·2^23 with k = floor(log2(v/c))   [v positive normal]
#     m = bits(w) − s  read as f32     sub.s32       = w·2^−k (w = v: m in [c, 2c))       [exponent stays normal]
#     cvt.rn.f32.s32(s)                              = k·2^23 (exact: |k| < 2^8)
# and test the bits against constants (`setp.lt.u32 b, 0x7F800000` is 0 <= v < inf). Over the reals an
# integer register holding bits(v) carries v itself (the value mov.b32 moves); o and s carry the tags
# below, which only the next step of the idiom reads (volta/exec/handlers/floatbits.py checks that statically).
# Each identity is checked in proofs/float_bits.py (the and/sub facts for every positive normal f32 of
# the libdevice constants, exhaustively); the conditions are checked per value here, else Unsupported.

F32_MIN_NORMAL = Fraction(1, 1 << 126)
F32_MIN_SUBNORMAL = Fraction(1, 1 << 149)
F32_MAX = Fraction((1 << 24) - 1) * (1 << 104)


def f32_value(bits: int) -> Fraction | None:
    """The exact value of the f32 with these bits (None for inf/NaN)."""
    bits &= 0xFFFFFFFF
    sign, field, mant = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    if field == 0xFF:
        return None
    v = Fraction(mant, 1 << 149) if field == 0 else Fraction((1 << 23) | mant) * Fraction(2) ** (field - 150)
    return -v if sign else v


def positive_normal(bits: int) -> bool:
    return 0x00800000 <= (bits & 0xFFFFFFFF) < 0x7F800000


@dataclass(frozen=True, eq=False)
class BitsMinus:
    """bits(v) − c_bits: the first step of the exponent split (an integer register's tag)."""

    v: E.Expr
    c_bits: int


@dataclass(frozen=True, eq=False)
class ExponentShift:
    """(bits(v) − bits(c)) & 0xFF800000 = k·2^23 with k = floor(log2(v/c)) (an integer register's tag);
    k_lo..k_hi bound k over the positive values v can take (`lowest` is v's certain lower bound when v > 0)."""

    v: E.Expr
    c: Fraction
    k: E.Expr
    k_lo: int
    k_hi: int


def _lower_bound_when_positive(v):
    """A certain lower bound on v wherever v > 0 (a positive f32 is never below it), with the reason; or
    (None, why-not). The three shapes libdevice produces:
      - its subnormal pre-scaling select(t < B, t·S, t): v >= min(B, 2^-149·S) (t an f32: >= 2^-149);
      - t + c for a constant c: a positive f32 sum is >= 2^(floor(log2|c|) - 24) (its grid near -c);
      - interval bounds of v."""
    if v.op is E.SELECT and v.args[0].op in (E.LT, E.LE):
        cond, scaled, plain = v.args
        t, bound = cond.args
        k, inner = _scaled(scaled)
        if plain is t and inner is t and bound.op is E.CONST and k >= 1:
            return min(bound.data, F32_MIN_SUBNORMAL * k), "libdevice's subnormal pre-scaling"
    if v.op is E.ADD:
        x, y = v.args
        c = x if x.op is E.CONST else y if y.op is E.CONST else None
        if c is not None and c.data != 0:
            return (Fraction(2) ** (E.exact_floor_log2(abs(c.data)) - 24),
                    "a positive f32 sum with a constant c is at least 2^(floor(log2|c|)-24)")
    lo, _ = bounds(v)
    if lo is not None and lo > 0:
        return lo, "interval bounds"
    return None, "no lower bound on its positive values (a subnormal float has no exponent in its field)"


def exponent_shift(v, c_bits: int):
    """The tag of `(bits(v) − c_bits) & 0xFF800000`, or a string saying which condition is not shown."""
    if not positive_normal(c_bits):
        return f"the subtracted constant 0x{c_bits:08X} is not a positive normal f32"
    c = f32_value(c_bits)
    if v.op is E.CONST and v.data <= 0:   # a concrete run (a counterexample's replay): logf's NaN/-inf side
        return NoValue(f"libdevice's exponent split of {v.data} <= 0")
    lowest, why = _lower_bound_when_positive(v)
    if lowest is None or lowest < F32_MIN_NORMAL:
        return (f"its argument is not shown to be a normal float whenever it is positive ({why}); "
                f"a subnormal's exponent field does not hold floor(log2 v)")
    k = E.floor_log2(E.mul(v, E.const(1 / c)))
    return ExponentShift(v, c, k, E.exact_floor_log2(lowest / c), E.exact_floor_log2(F32_MAX / c))


def scaled_bits(w, shift: ExponentShift):
    """The real value of the f32 whose bits are bits(w) − k·2^23: w·2^−k, or a string saying which
    condition fails. w is the shifted value itself (then w·2^−k is in [c, 2c)), a positive normal constant
    whose exponent field stays in [1, 254] for every k (log1pf's split of x + d is not followed)."""
    c = shift.c
    scale = E.exp2(E.neg(shift.k))
    if w is shift.v:
        return E.mul(w, scale)
    if w.op is E.CONST:
        value = w.data
        if value <= 0:
            return "the constant is not positive"
        field = E.exact_floor_log2(value) + 127
        if field - shift.k_hi >= 1 and field - shift.k_lo <= 254 and positive_normal(_f32_bits(value)):
            return E.mul(w, scale)
        return f"its exponent field leaves [1, 254] for k in [{shift.k_lo}, {shift.k_hi}]"
    return "the value whose bits are shifted is neither the split value nor a constant"


def _f32_bits(value: Fraction) -> int:
    import numpy as np
    f = np.float32(value)
    return int(np.array([f]).view(np.uint32)[0]) if Fraction(float(f)) == value else -1


def exponent_as_float(shift: ExponentShift):
    """cvt.rn.f32.s32 of k·2^23: exact (|k| < 2^8), so the real k·2^23."""
    return E.mul(shift.k, E.const(1 << 23))


def bits_compare(cmp: str, signed: bool, v, k: int, bits_first: bool):
    """`setp.cmp bits(v), k` (or `k, bits(v)` when not bits_first) as a comparison of the real v, or None.

    Positive floats order like their bits; negative ones like their magnitudes, above every positive
    one unsigned and below every positive one signed. The reals have no -0 (it reads as 0, like +0).
    A strict comparison of the bits stays strict against the constant's value and a non-strict one
    non-strict (`bits(v) > bits(1.0f)` is `v > 1`), so reals between two floats compare as the float
    comparison the compiler replaced does (`bits(v) >= bits(1.0f) + 1` would be `v >= 1 + 2^-23` there)."""
    flip = {".lt": ".gt", ".gt": ".lt", ".le": ".ge", ".ge": ".le", ".lo": ".hi", ".hi": ".lo", ".ls": ".hs",
            ".hs": ".ls"}
    if not bits_first:
        if cmp not in flip:
            return None
        cmp = flip[cmp]
    cmp = {".lo": ".lt", ".ls": ".le", ".hi": ".gt", ".hs": ".ge"}.get(cmp, cmp)
    if cmp not in (".lt", ".le", ".gt", ".ge"):
        return None
    k = k & 0xFFFFFFFF
    if signed and k >= 1 << 31:
        k -= 1 << 32
    below = _bits_below(signed, k, v, strict=cmp in (".lt", ".ge"))   # bits < k, or bits <= k
    return below if cmp in (".lt", ".le") else E.logical_not(below)


def _magnitude(m: int):
    """The value of the non-negative f32 with bits m; None when every finite magnitude is below it (inf, NaN)."""
    return None if m >= 0x7F800000 else f32_value(m)


def _bits_below(signed: bool, k: int, v, strict: bool):
    """bits(v) < k (strict) or bits(v) <= k (k in range), over the reals (a zero is +0)."""
    below = E.lt if strict else E.le
    if (signed and k < 0) or (not signed and k >= 1 << 31):
        # negatives whose magnitude is below m (their bits order like their magnitudes); unsigned: every
        # non-negative value too
        u = _magnitude(k + (1 << 31) if signed else k - (1 << 31))
        if signed:
            if u == 0:
                return E.FALSE
            return E.lt(v, E.ZERO) if u is None else E.logical_and(E.lt(v, E.ZERO), below(E.const(-u), v))
        if u is None:
            return E.TRUE
        return E.le(E.ZERO, v) if u == 0 else below(E.const(-u), v)
    # non-negative values below f32(k); signed: every negative value too
    u = _magnitude(k)
    if signed:
        return E.TRUE if u is None else below(v, E.const(u))
    if u is None:
        return E.le(E.ZERO, v)
    if u == 0 and strict:
        return E.FALSE
    return E.logical_and(E.le(E.ZERO, v), below(v, E.const(u)))
