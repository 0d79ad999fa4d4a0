"""Normal forms over the reals: ratios of sums of monomials times 2^(polynomial).

A monomial is `(factors, e)`: `factors` a sorted tuple of (leaf id, power) with power >= 1 over
leaves (VAR, SYM) and atoms (max, select, sqrt, calls, ... rebuilt over normalized arguments),
and `e` the id of an interned exponent polynomial, meaning the factor 2^(EXP_POLYS[e]).
Exponents are kept with their constant term in [0, 1): the integer part 2^k folds into the
rational coefficient, so 2^(1/2)·2^(1/2) = 2 and 2^(x+3) = 8·2^x. A polynomial is a dict
monomial -> nonzero rational; a normal form is num/den with den None meaning 1.

Equal normal forms (after cross-multiplying the denominators) prove equality on every input
where the kernels are defined; for + - * / exp2 the converse holds too (proofs/README.md).
Every rewrite the normalizer makes is an entry of `rules.REWRITES` (the functions under "the rewrites"
below, registered with the rules they apply), and every rule an entry names is listed in rules.RULES and
proved by proofs/check_rules.py, which reads both tables.
"""
from __future__ import annotations

import math
from fractions import Fraction

from volta.errors import Unsupported
from volta.symbolic import expr as E
from volta.symbolic.boundary import agree_where_zero, leads_positive
from volta.symbolic.expr import Expr
from volta.symbolic.extrema import minmax, ordered_pair, through_extremum
from volta.symbolic.rules import REWRITES, Rewrite, rewrite

Mono = tuple  # (tuple[(leaf_id, power), ...], exp_id)
Poly = dict   # Mono -> int | Fraction, never zero
UNIT: Mono = ((), 0)

# ---------------------------------------------------------------- exponents (rule: exp2-add, exp2-int)

_EXP_IDS: dict[frozenset, int] = {frozenset(): 0}
EXP_POLYS: list[Poly] = [{}]       # exponent id -> polynomial (id 0 is 2^0 = 1)
_EXP_SUM: dict[tuple[int, int], tuple[int, int]] = {}
_EXP_NEG: dict[int, tuple[int, int]] = {}


def _intern_exponent(p: Poly) -> tuple[int, int]:
    """(id of p without the integer part k of its constant term, k): 2^p = 2^k·2^(p-k)."""
    p = dict(p)
    c = p.get(UNIT, 0)
    k = math.floor(c)
    if k:
        rest = c - k
        if rest:
            p[UNIT] = rest
        else:
            del p[UNIT]
    key = frozenset(p.items())
    e = _EXP_IDS.get(key)
    if e is None:
        e = len(EXP_POLYS)
        EXP_POLYS.append(p)
        _EXP_IDS[key] = e
    return e, int(k)


def _exp_add(e1: int, e2: int) -> tuple[int, int]:
    if e1 > e2:
        e1, e2 = e2, e1
    hit = _EXP_SUM.get((e1, e2))
    if hit is None:
        hit = _EXP_SUM[(e1, e2)] = _intern_exponent(p_add(EXP_POLYS[e1], EXP_POLYS[e2]))
    return hit


def _exp_neg(e: int) -> tuple[int, int]:
    hit = _EXP_NEG.get(e)
    if hit is None:
        hit = _EXP_NEG[e] = _intern_exponent(p_scale(EXP_POLYS[e], -1))
    return hit


def _pow2(c, k: int):
    if k == 0:
        return c
    return c * (1 << k) if k > 0 else Fraction(c) / (1 << -k)


# ---------------------------------------------------------------- polynomials

def mono_mul(m1: Mono, m2: Mono) -> tuple[Mono, int]:
    """Product of monomials and the power of two it carries out of the exponent."""
    f1, e1 = m1
    f2, e2 = m2
    if not f2:
        f = f1
    elif not f1:
        f = f2
    else:
        d = dict(f1)
        for leaf, p in f2:
            d[leaf] = d.get(leaf, 0) + p
        f = tuple(sorted(d.items()))
    if e1 and e2:
        e, k = _exp_add(e1, e2)
    else:
        e, k = e1 or e2, 0
    return (f, e), k


def p_add(p: Poly, q: Poly, into: bool = False) -> Poly:
    """p + q; with into=True p is updated in place (the caller owns it)."""
    r = p if into else dict(p)
    for m, c in q.items():
        v = r.get(m)
        if v is None:
            r[m] = c
        else:
            v = v + c
            if v:
                r[m] = v
            else:
                del r[m]
    return r


def p_scale(p: Poly, c) -> Poly:
    if not c:
        return {}
    return {m: v * c for m, v in p.items()}


def p_mul(p: Poly, q: Poly) -> Poly:
    if len(p) < len(q):
        p, q = q, p
    if len(q) == 1 and UNIT in q:
        return p_scale(p, q[UNIT])
    if len(p) == 1 and UNIT in p:
        return p_scale(q, p[UNIT])
    if len(p) * len(q) >= SCALED_PRODUCTS:
        return _p_mul_scaled(p, q)
    r: Poly = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m, k = mono_mul(m1, m2)
            c = _pow2(c1 * c2, k)
            v = r.get(m)
            r[m] = c if v is None else v + c
    return {m: c for m, c in r.items() if c}


def p_divide(p: Poly, d: Poly) -> Poly | None:
    """p / d when d is one monomial c·f (no 2^E) dividing every monomial of p, else None (rule: ratio-cancel):
    an exponent (|x| − j·ln 2)·log2 e, with ln 2 read as 1/log2 e, is |x|·log2 e − j."""
    if len(d) != 1:
        return None
    ((factors, e), c), = d.items()
    if e:
        return None
    out: Poly = {}
    for (f, pe), v in p.items():
        powers = dict(f)
        for leaf, k in factors:
            left = powers.get(leaf, 0) - k
            if left < 0:
                return None
            if left:
                powers[leaf] = left
            else:
                del powers[leaf]
        out[(tuple(sorted(powers.items())), pe)] = _int_if_whole(Fraction(v) / c)
    return out


SCALED_PRODUCTS = 64   # products of at least this many term pairs accumulate integers (_p_mul_scaled)


def _scaled(p: Poly) -> tuple[list, int]:
    """p as (monomial, integer) pairs and the common denominator d they are over: p = sum(n·m) / d."""
    d = 1
    for c in p.values():
        if type(c) is not int:
            den = c.denominator
            d = d * den // math.gcd(d, den)
    return [(m, c * d if type(c) is int else c.numerator * (d // c.denominator)) for m, c in p.items()], d


def _p_mul_scaled(p: Poly, q: Poly) -> Poly:
    """p_mul over integers: both sides scaled to integer coefficients, products summed as Python ints, one
    division (one gcd) per resulting monomial: the same polynomial as the term-by-term Fraction sum, which
    spent most of a layer norm's variance (2 million Fraction products and sums, each a gcd) in arithmetic."""
    ps, dp = _scaled(p)
    qs, dq = _scaled(q)
    r: dict = {}
    for m1, a in ps:
        for m2, b in qs:
            m, k = mono_mul(m1, m2)   # k is 0 or 1: exponents keep their constant parts in [0, 1)
            v = a * b << k
            r[m] = r.get(m, 0) + v
    d = dp * dq
    out: Poly = {}
    for m, v in r.items():
        if v:
            c = Fraction(v, d)
            out[m] = c.numerator if c.denominator == 1 else c
    return out


def p_const(c) -> Poly:
    c = _int_if_whole(c)
    return {UNIT: c} if c else {}


def _int_if_whole(c):
    if type(c) is Fraction and c.denominator == 1:
        return c.numerator
    return c


def p_constant_value(p: Poly):
    """The rational value of a constant polynomial, else None."""
    if not p:
        return 0
    if len(p) == 1 and UNIT in p:
        return p[UNIT]
    return None


# ---------------------------------------------------------------- ratios

class ExpansionLimit(Exception):
    """A bounded normalizer (`Normalizer(limit=...)`, or one with a `Budget`) would expand beyond its bound:
    nothing is decided."""


class Budget:
    """A hard bound on the work of a normalization, counted as it is done rather than estimated from the input.

    Every step of a normalizer that holds it spends, before it runs, an upper bound on the monomials it will
    build or visit, exponents counted by their terms (`_add_cost`, `_mul_cost`, `_div_cost`: a sum the terms
    of its parts, a product or ratio the products of its parts' terms, each weighted by the exponents it adds,
    `_weight`; an atom the terms of its arguments, rebuilt as expressions), and each node a call visits one;
    the normalizers made inside for a rewrite's premise spend from the same budget, and so does `equal`.
    Spending past `limit` raises ExpansionLimit before the step that would pass it (the one exception: the
    square-root reduction, spent just after), so a bounded attempt does at most about `limit` monomial
    operations, and builds at most that many, however the input is shaped: a sum of sigmoids whose common
    denominator doubles with every term, or nested selects whose rewrites normalize their arms again, give
    up after `limit`, where an estimate from the input's shape bounded neither."""

    __slots__ = ("limit", "spent", "refused")

    def __init__(self, limit: int) -> None:
        self.limit, self.spent = limit, 0
        self.refused = 0   # the work of the step that would have passed the limit (0: none was refused)

    def spend(self, work: int) -> None:
        """Count `work` about to be done, or refuse it (ExpansionLimit) when it would pass the limit: `spent`
        never exceeds `limit`."""
        if self.spent + work > self.limit:
            self.refused = work
            raise ExpansionLimit(f"normalizing would take more than {self.limit:,} monomial operations")
        self.spent += work


NODE_WORK = 8   # what visiting one node costs a normalizer, in monomial operations (its step, the rewrites' tests)


def _size(nf: NormalForm) -> int:
    return len(nf._num) + len(nf.den or ())


def _weight(nf: NormalForm) -> int:
    """The terms of nf's longest exponent (its pending scale's included), 0 when it has none."""
    longest = len(EXP_POLYS[nf.scale[0]]) if nf.scale is not None else 0
    for part in (nf._num, nf.den or ()):
        for _f, e in part:
            if e and len(EXP_POLYS[e]) > longest:
                longest = len(EXP_POLYS[e])
    return longest


def _per_product(a: NormalForm, b: NormalForm) -> int:
    """The work of one monomial of a times one of b: 1, plus the terms of the exponent it builds when both carry
    one (2^E·2^F makes E + F, interned once: a sum of sigmoids' common denominator has a new one in every
    monomial)."""
    wa, wb = _weight(a), _weight(b)
    return 1 + (wa + wb if wa and wb else 0)


def _n(p: Poly | None) -> int:
    return len(p) if p is not None else 0


def _add_cost(a: NormalForm, b: NormalForm) -> int:
    """An upper bound on the work of nf_add(a, b): pending scales multiplied in, then the terms of both
    (denominators equal or absent) or the cross products (a denominator on either side)."""
    size = _size(a) + _size(b)
    if a.scale is not None or b.scale is not None:
        size += (len(a._num) + len(b._num)) * _per_product(a, b)
    if a.den is None and b.den is None or a.den == b.den:
        return size
    products = len(a._num) * max(_n(b.den), 1) + len(b._num) * max(_n(a.den), 1) + _n(a.den) * _n(b.den)
    return size + products * _per_product(a, b)


def _mul_cost(a: NormalForm, b: NormalForm) -> int:
    """An upper bound on the work of nf_mul(a, b) (a long numerator times c·2^E: the two exponents added, a
    scale)."""
    for x, y in ((a, b), (b, a)):
        if len(x._num) >= LAZY_TERMS and _exponential(y) is not None:
            return _per_product(x, y)
    products = len(a._num) * len(b._num) + _n(a.den) * _n(b.den) + len(a._num) + len(b._num)   # (+ scales)
    return _size(a) + _size(b) + products * _per_product(a, b)


def _div_cost(a: NormalForm, b: NormalForm) -> int:
    """An upper bound on the work of nf_div(a, b): a's numerator times b's denominator (and by one monomial),
    a's denominator times b's numerator."""
    products = 2 * len(a._num) * max(_n(b.den), 1) + max(_n(a.den), 1) * len(b._num)
    return _size(a) + _size(b) + products * _per_product(a, b)


class NormalForm:
    """num/den over the reals; den None means 1. Not hash-consed: compare with `equal`.

    `scale` (exponent id e, nonzero rational c), when set, multiplies the numerator: the value is
    c·2^(EXP_POLYS[e])·num/den, and `num` multiplies it in on first use. An online softmax rescales
    its accumulator by 2^(m_old - m_new) at every key and then adds one term; kept as a scale, each step
    costs the one new term (divided by the scale) instead of rewriting every term, so the chain over n
    keys is O(n) rather than O(n^2) monomial products. The result is the same canonical polynomial.
    """

    __slots__ = ("_num", "den", "scale")

    def __init__(self, num: Poly, den: Poly | None = None, scale: tuple | None = None):
        if den is not None:
            c = p_constant_value(den)
            if c is not None:
                if c == 0:
                    raise Unsupported("division by a value that is identically zero")
                num, den = p_scale(num, _int_if_whole(Fraction(1) / c)), None
        self._num, self.den, self.scale = num, den, scale

    @property
    def num(self) -> Poly:
        if self.scale is not None:
            e, c = self.scale
            self._num = p_mul(self._num, {((), e): c})
            self.scale = None
        return self._num

    def __repr__(self) -> str:
        return f"NormalForm({E.to_str(to_expr(self), depth=8)})"

    @property
    def is_zero(self) -> bool:
        return not self._num


LAZY_TERMS = 8   # numerators at least this long are rescaled lazily (NormalForm.scale)


def _exponential(nf: NormalForm) -> tuple | None:
    """(e, c) when nf is c·2^(EXP_POLYS[e]) alone (no factors, no denominator), else None."""
    if nf.den is not None or nf.scale is not None or len(nf._num) != 1:
        return None
    ((factors, e), c), = nf._num.items()
    return None if factors else (e, c)


def _times_scale(s: tuple | None, e: int, c) -> tuple:
    if s is None:
        return e, c
    e2, k = _exp_add(s[0], e) if s[0] and e else (s[0] or e, 0)
    return e2, _pow2(s[1] * c, k)


def _lazy_add(a: NormalForm, b: NormalForm) -> NormalForm | None:
    """a + b keeping a's scale (b short, or under the same scale); None: add them expanded."""
    if a.scale is None or a.den is not None or b.den is not None:
        return None
    if b.scale == a.scale:
        return NormalForm(p_add(a._num, b._num), None, a.scale)
    if len(b._num) * 4 > len(a._num):
        return None
    e, c = a.scale
    e_inv, k = _exp_neg(e) if e else (0, 0)
    unscaled = p_mul(b.num, {((), e_inv): _pow2(_int_if_whole(Fraction(1) / c), k)})
    return NormalForm(p_add(a._num, unscaled), None, a.scale)


def nf_add(a: NormalForm, b: NormalForm) -> NormalForm:
    if a.scale is not None or b.scale is not None:
        lazy = _lazy_add(a, b) or _lazy_add(b, a)
        if lazy is not None:
            return lazy
    if a.den is None and b.den is None:
        return NormalForm(p_add(a.num, b.num))
    if a.den is None:
        return NormalForm(p_add(p_mul(a.num, b.den), b.num), b.den)
    if b.den is None:
        return NormalForm(p_add(a.num, p_mul(b.num, a.den)), a.den)
    if a.den == b.den:
        return NormalForm(p_add(a.num, b.num), a.den)
    return NormalForm(p_add(p_mul(a.num, b.den), p_mul(b.num, a.den)), p_mul(a.den, b.den))


def nf_neg(a: NormalForm) -> NormalForm:
    return NormalForm(p_scale(a.num, -1), a.den)


def nf_sub(a: NormalForm, b: NormalForm) -> NormalForm:
    return nf_add(a, nf_neg(b))


def _mul_den(x: Poly | None, y: Poly | None) -> Poly | None:
    if x is None:
        return y
    if y is None:
        return x
    return p_mul(x, y)


def nf_mul(a: NormalForm, b: NormalForm) -> NormalForm:
    for x, y in ((a, b), (b, a)):
        ey = _exponential(y)
        if ey is not None and len(x._num) >= LAZY_TERMS:   # a long numerator times c·2^E: a scale
            return NormalForm(x._num, x.den, _times_scale(x.scale, *ey))
    return NormalForm(p_mul(a.num, b.num), _mul_den(a.den, b.den))


def nf_div(a: NormalForm, b: NormalForm) -> NormalForm:
    """a / b; a monomial divisor c·f·2^E moves 2^-E and 1/c into the numerator (rule: exp2-neg)."""
    if not b.num:
        raise Unsupported("division by a value that is identically zero")
    num = a.num if b.den is None else p_mul(a.num, b.den)
    if len(b.num) == 1:
        ((factors, e), c), = b.num.items()
        e_inv, k = _exp_neg(e) if e else (0, 0)
        num = p_mul(num, {((), e_inv): _pow2(_int_if_whole(Fraction(1) / c), k)})
        den_factor = {(factors, 0): 1} if factors else None
        return NormalForm(num, _mul_den(a.den, den_factor))
    return NormalForm(num, _mul_den(a.den, b.num))


def equal(a: NormalForm, b: NormalForm, budget: Budget | None = None) -> bool:
    """a = b wherever both are defined (rule: cross-multiply; first ratio-exp2-scale, `_lead_free`). With a
    `budget`, the work of each stage is spent from it first (ExpansionLimit past it)."""
    if budget is not None:
        budget.spend(_size(a) + _size(b))
    if a.den is None and b.den is None:
        return a.num == b.num
    if a.den == b.den:
        return a.num == b.num
    if a.den is not None and b.den is not None:
        if budget is not None:   # (each scaled by one monomial)
            budget.spend(2 * (_size(a) * (1 + 2 * _weight(a)) + _size(b) * (1 + 2 * _weight(b))))
        a, b = _lead_free(a), _lead_free(b)
        if a.den == b.den:
            return a.num == b.num
    if budget is not None:
        budget.spend((len(a.num) * max(_n(b.den), 1) + len(b.num) * max(_n(a.den), 1)) * _per_product(a, b))
    an = a.num if b.den is None else p_mul(a.num, b.den)
    bn = b.num if a.den is None else p_mul(b.num, a.den)
    return an == bn


# ---------------------------------------------------------------- ratios scaled by their lead (rule: ratio-exp2-scale)

_EXP_VALUES: list[float] = [0.0]   # exponent id -> its polynomial's value at one fixed point (_exp_value)


def _exp_value(e: int) -> float:
    """EXP_POLYS[e] at a fixed pseudo-random point (each leaf or atom a value from its id): additive, so
    the value of an exponent shifted by s is the value plus s's."""
    while len(_EXP_VALUES) < len(EXP_POLYS):
        total = 0.0
        for (factors, inner), c in EXP_POLYS[len(_EXP_VALUES)].items():
            try:
                term = float(c)
            except OverflowError:   # (a coefficient beyond float64: only which monomial leads depends on it)
                term = math.copysign(math.inf, c)
            for leaf, power in factors:
                term *= _leaf_value(leaf) ** power
            if inner:
                term *= _leaf_value(("exp2", inner))
            total += term
        _EXP_VALUES.append(total)
    return _EXP_VALUES[e]


def _leaf_value(key) -> float:
    """A value in [0.5, 1.5) for a leaf id (or a nested exponent), the same for the life of the process."""
    return 0.5 + ((hash(key) * 0x9E3779B97F4A7C15) & 0xFFFFFFFF) / 2.0 ** 32


def _lead_free(nf: NormalForm) -> NormalForm:
    """nf with num and den both divided by c·2^E of den's lead monomial: the one whose log2|c| + E is least at
    the fixed point of `_exp_value`. Multiplying a den by any k·2^S adds one amount to every monomial's value,
    so the same monomial leads and the scaled forms agree: sum_k 2^(s_k)·v_k / sum_k 2^(s_k) (attention) and
    sum_k 2^(s_k - m)·v_k / sum_k 2^(s_k - m) (online softmax, m the running max) compare without the
    512 x 512 monomial products of cross-multiplying. Dividing both by one nonzero value keeps the ratio;
    a near tie in the values only leaves the two forms apart (compared by cross-multiplying, as before)."""
    den = nf.den
    if den is None or len(den) < 2 or not any(e for (_f, e) in den):
        return nf
    (_f, e), c = min(den.items(), key=lambda mc: _exp_value(mc[0][1]) + _log2_abs(mc[1]))
    e_inv, k = _exp_neg(e) if e else (0, 0)
    unit = {((), e_inv): _pow2(_int_if_whole(Fraction(1) / c), k)}
    return NormalForm(p_mul(nf.num, unit), p_mul(den, unit))


def _log2_abs(c) -> float:
    """log2 |c| of a nonzero rational, for numerators and denominators of any size."""
    if type(c) is int:
        return math.log2(abs(c))
    return math.log2(abs(c.numerator)) - math.log2(c.denominator)


def cross_difference(a: NormalForm, b: NormalForm) -> tuple[Poly, Poly | None, Poly | None]:
    """(a.num·b.den − b.num·a.den, a.den, b.den): a = b where defined iff the first is 0."""
    an = a.num if b.den is None else p_mul(a.num, b.den)
    bn = b.num if a.den is None else p_mul(b.num, a.den)
    return p_add(an, p_scale(bn, -1)), a.den, b.den


# ---------------------------------------------------------------- back to expressions

def poly_to_expr(p: Poly) -> Expr:
    """A canonical expression for p: monomials in sorted order, factors by leaf id."""
    acc = E.ZERO
    for (factors, e), c in sorted(p.items(), key=lambda kv: kv[0]):
        term = E.const(c)
        for leaf, power in factors:
            node = E.NODES[leaf]
            for _ in range(power):
                term = E.mul(term, node)
        if e:
            term = E.mul(term, E.exp2(poly_to_expr(EXP_POLYS[e])))
        acc = E.add(acc, term)
    return acc


def to_expr(nf: NormalForm) -> Expr:
    """A canonical expression for nf, denominator scaled to leading coefficient 1."""
    if nf.den is None and nf.scale is None and len(nf._num) == 1:
        ((factors, e), c), = nf._num.items()
        if c == 1 and not e and len(factors) == 1 and factors[0][1] == 1:
            return E.NODES[factors[0][0]]   # one leaf or atom (what poly_to_expr builds, without the walk)
    if nf.den is None:
        return poly_to_expr(nf.num)
    lead = nf.den[min(nf.den)]
    num, den = nf.num, nf.den
    if lead != 1:
        inv = _int_if_whole(Fraction(1) / lead)
        num, den = p_scale(num, inv), p_scale(den, inv)
    return E.div(poly_to_expr(num), poly_to_expr(den))


# ---------------------------------------------------------------- the normalizer

_ADD, _MUL, _VAR, _SYM, _CONST, _DIV, _EXP2 = E.ADD, E.MUL, E.VAR, E.SYM, E.CONST, E.DIV, E.EXP2
_OPAQUE = E.ATOMS | {E.EXP2}


# sqrt atoms by leaf id -> the normal form of their argument: sqrt(v)^2 = v (rule sqrt-square) is
# applied to every product; valid wherever the expression is defined, since it contains sqrt(v).
SQRT_ARGS: dict[int, NormalForm] = {}


def _copy(nf: NormalForm) -> NormalForm:
    return NormalForm(dict(nf.num), None if nf.den is None else dict(nf.den))


def _radicals_in(p: Poly) -> bool:
    return any(power >= 2 and leaf in SQRT_ARGS for (factors, _e) in p for leaf, power in factors)


def _reduce_radicals(nf: NormalForm) -> NormalForm:
    """Replace sqrt(v)^(2k+r) by v^k·sqrt(v)^r in every monomial of num and den."""
    if not SQRT_ARGS or not (_radicals_in(nf._num) or nf.den is not None and _radicals_in(nf.den)):
        return nf   # (a pending scale has no factors: looking at nf._num keeps it pending)

    def poly(p: Poly) -> tuple[Poly, Poly | None] | None:
        if not _radicals_in(p):
            return None
        total = NormalForm({})
        for (factors, e), c in p.items():
            keep, extra = [], NormalForm({UNIT: 1})
            for leaf, power in factors:
                arg = SQRT_ARGS.get(leaf)
                if arg is not None and power >= 2:
                    for _ in range(power // 2):
                        extra = nf_mul(extra, arg)
                    power %= 2
                if power:
                    keep.append((leaf, power))
            total = nf_add(total, nf_mul(NormalForm({(tuple(keep), e): c}), extra))
        return total

    num = poly(nf.num)
    den = poly(nf.den) if nf.den is not None else None
    if num is None and den is None:
        return nf
    n = num if num is not None else NormalForm(nf.num)
    if nf.den is None:
        return n
    d = den if den is not None else NormalForm(nf.den)
    return nf_div(n, d) if d.num else nf


def _leaf_nf(node: Expr) -> NormalForm:
    """node as a monomial factor, named by its id (pinned: found again by E.NODES[id])."""
    E.NODES[node.id] = node
    return NormalForm({(((node.id, 1),), 0): 1})


class Normalizer:
    """Memoized normalization over a DAG; one instance can serve many roots that share nodes.

    Every rewrite it makes is an entry of `rules.REWRITES` (below: a node's step is chosen by its operator
    from STEPS; the choices inside an atom run through the table in order), and each entry names the proved
    rules it applies. `trace` (a list, None: off) receives every application as (rewrite name, expression
    before, expression or normal form after), for tests that check each one on concrete inputs.

    Intermediate sums consumed by exactly one parent are updated in place and dropped from the
    memo, so a chain of n additions costs O(n) time and memory instead of O(n^2).

    `shared` (a `volta.symbolic.shared.SharedTerms`, None: expand everything) keeps each long sum that a
    root uses more than once as one atom, and unifies atoms whose arguments agree modulo those sums.
    `limit` bounds the monomial products of one sum, product or ratio: beyond it `ExpansionLimit` is
    raised (None: no bound), for an attempt that must give way to cheaper steps when it would expand.
    `budget` (a `Budget`, None: none) bounds the work of everything it does, in all (`bounded`).
    """

    def __init__(self, shared=None, limit: int | None = None, trace: list | None = None,
                 boundary: bool = True, budget: Budget | None = None) -> None:
        self.memo: dict[Expr, NormalForm] = {}
        self.bools: dict[Expr, Expr] = {}
        self.differences: dict[Expr, NormalForm] = {}   # normalized comparison -> its d (of `d < 0`, ...)
        self.shared = shared
        self.limit = limit
        self.trace = trace
        self.totals: dict[Expr, bool] = {}             # node -> no partial operation in it (E.is_total)
        # the select-boundary rules, off in the normalizer that proves their premise: nested selects (an argmax
        # chain) would otherwise prove each level's premise again inside the last one's, exponentially
        self.boundary = boundary
        self.budget = budget
        self.lifted: dict = {}   # node -> the node with selects on one condition fused (lift.py), across elements

    def bounded(self, budget: Budget) -> Normalizer:
        """This normalizer with `budget` on its work: the same memo, so what a bounded attempt normalized before
        it gave up is not done again, and what it finishes serves later calls. Giving up midway leaves the memo
        sound: an entry is only ever the complete normal form of its node (a sum consumed in place was taken
        out of the memo before its parent's step, `_take`), so a later call normalizes what is missing."""
        view = Normalizer(self.shared, self.limit, self.trace, self.boundary, budget)
        view.memo, view.bools, view.differences, view.totals = self.memo, self.bools, self.differences, self.totals
        view.lifted = self.lifted
        return view

    def clear(self) -> None:
        self.memo.clear()
        self.bools.clear()
        self.differences.clear()
        self.lifted.clear()

    def __call__(self, root: Expr) -> NormalForm:
        if root.op in E.BOOLEAN:
            raise TypeError("normalize a boolean with normalize_bool")
        hit = self.memo.get(root)
        if hit is not None:
            return hit
        order = E.postorder(root, self.memo)
        if self.budget is not None:
            self.budget.spend(NODE_WORK * len(order))
        parents: dict[Expr, int] = {}
        get = parents.get
        for node in order:
            for child in node.args:
                parents[child] = get(child, 0) + 1
        # Only sums first built in this call may be consumed in place: a node normalized by an earlier
        # call (its NormalForm already returned to a caller) must never be mutated.
        fresh = set(order)
        owned = {n for n, k in parents.items() if k == 1 and n.op is _ADD and n in fresh}
        boolean, memo, steps, shared = E.BOOLEAN, self.memo, _STEP_FUNCTIONS, self.shared
        if shared is None and self.trace is None:
            for node in order:   # (the common case, without the tests below)
                if node.op in boolean:
                    self._bool(node)
                else:
                    memo[node] = steps[node.op](self, node, owned)
            return memo[root]
        for node in order:
            if node.op in boolean:
                self._bool(node)
            elif shared is None or get(node, 0) < 2:
                memo[node] = self._step(node, owned)
            else:   # used twice or more: a long sum becomes its atom (volta/symbolic/shared.py)
                nf, atom = shared.abstract(self._step(node, owned))
                if atom is not None:
                    memo[atom] = _leaf_nf(atom)
                memo[node] = nf
        return memo[root]

    def _step(self, node: Expr, owned: set) -> NormalForm:
        if self.shared is not None and node.id in self.shared.definitions:
            return _leaf_nf(node)   # a shared sum's atom (after clear())
        entry = STEPS[node.op]
        nf = entry.apply(self, node, owned)
        if self.trace is not None:
            self._note(entry.name, node, nf)
        return nf

    def _note(self, name: str, before: Expr, after: Expr | NormalForm) -> None:
        """Record one application in the trace (a normal form as its expression, taken now: sums are
        later updated in place)."""
        if type(after) is NormalForm:
            after = to_expr(NormalForm(dict(after._num), after.den, after.scale))
        self.trace.append((name, before, after))

    def _apply(self, name: str, before, *args):
        """Rewrite `name` of the table on args; its result (None: it does not apply) is recorded in the trace
        with `before()`, the expression it replaces (built only when tracing)."""
        out = REWRITES[name].apply(self, *args)
        if out is not None and self.trace is not None:
            self._note(name, before(), out)
        return out

    def _take(self, node: Expr, owned: set) -> tuple[NormalForm, bool]:
        nf = self.memo[node]
        if node in owned:
            del self.memo[node]
            return nf, True
        return nf, False

    def _bound(self, a: NormalForm, b: NormalForm) -> None:
        """Raise ExpansionLimit when combining a and b could make more than `limit` monomial products."""
        if self.limit is not None:
            size_a, size_b = len(a._num) + len(a.den or ()), len(b._num) + len(b.den or ())
            if size_a * size_b > self.limit:
                raise ExpansionLimit(f"a product of {size_a} by {size_b} terms")

    def _fresh(self) -> Normalizer:
        """A new normalizer in the same mode (for a small expression built while normalizing), spending from
        the same budget."""
        return Normalizer(self.shared, self.limit, self.trace, self.boundary, self.budget)

    def _arg(self, child: Expr) -> Expr:
        if child.op in E.BOOLEAN:
            return self.bools[child]
        return to_expr(self.memo[child])

    def _radicals(self, nf: NormalForm) -> NormalForm:
        before = to_expr(NormalForm(dict(nf._num), nf.den, nf.scale)) if self.trace is not None else None
        out = REWRITES["radicals"].apply(self, nf)
        if out is not nf and before is not None:
            self._note("radicals", before, out)
        return out

    def _atom(self, node: Expr) -> NormalForm:
        """Rebuild the atom over canonical arguments; it is then an opaque leaf (rule: congruence), unless a
        rewrite of the table applies first: one found equal modulo shared sums, rsqrt as 1/sqrt, terms
        common to both arms taken out, a select turned into max/min, max/min flattened and sorted."""
        op = node.op
        if self.shared is not None and op in E.UNARY_ATOMS:   # an atom already made for an equal argument
            found = self._apply("shared-atom", lambda: node, node)   # (found before building this one's argument)
            if found is not None:
                return found
        if self.budget is not None:
            self.budget.spend(sum(_size(self.memo[c]) for c in node.args if c.op not in E.BOOLEAN) + len(node.args))
        args = tuple(self._arg(c) for c in node.args)
        if op is E.RSQRT:
            recip = self._apply("rsqrt-recip", lambda: node, node, args)
            if recip is not None:
                return recip
        common = self._apply("common-terms", lambda: node, node, args)
        if common is not None:
            return common
        if op is E.LG2:
            reflected = self._apply("softplus-reflect", lambda: node, node)
            if reflected is not None:
                return reflected
        if op is E.SELECT:
            rebuilt = self._select(node, args)
        elif op is E.MAX or op is E.MIN:
            rebuilt = self._apply("minmax", lambda: E.rebuild(node, args), op, args)
        else:
            rebuilt = self._apply("congruence", lambda: node, node, args)
        if rebuilt.op is node.op and rebuilt.op in _OPAQUE or rebuilt.op is E.MAX or rebuilt.op is E.MIN:
            if self.shared is not None and rebuilt.op is node.op and op not in (E.SELECT, E.MAX, E.MIN):
                rebuilt = self.shared.representative(rebuilt, tuple(self.memo[c] for c in node.args))
            if rebuilt.op is E.SQRT:
                SQRT_ARGS.setdefault(rebuilt.id, _copy(self.memo[node.args[0]]))
            return _leaf_nf(rebuilt)   # (a max/min from minmax() is canonical already)
        nf = self._fresh()(rebuilt)   # folded into something else: small, normalize afresh
        return NormalForm(dict(nf.num), None if nf.den is None else dict(nf.den))

    def _select(self, node: Expr, args: tuple) -> Expr:
        cond, x, y = args
        if node.args[1].op in E.BOOLEAN or node.args[2].op in E.BOOLEAN:
            return self._apply("congruence", lambda: node, node, args)
        return self._select_of(cond, x, y, self.memo[node.args[1]], self.memo[node.args[2]])

    def _select_of(self, cond: Expr, x: Expr, y: Expr, nx: NormalForm, ny: NormalForm) -> Expr:
        """`cond ? x : y` over normalized parts: turned around by the orienting rewrites, then replaced by
        the first resolving rewrite that applies, else rebuilt as it is."""
        state = (cond, x, y, nx, ny)
        for name in SELECT_ORIENT:
            turned = REWRITES[name].apply(self, state)
            if turned is not None:
                if self.trace is not None:
                    self._note(name, E.select(*state[:3]), E.select(*turned[:3]))
                state = turned
        for name in SELECT_RESOLVE:
            out = self._apply(name, lambda: E.select(*state[:3]), state)
            if out is not None:
                return out
        return E.select(*state[:3])

    def _bool(self, node: Expr) -> None:
        """Comparisons become `d < 0`, `d <= 0`, `d == 0`, `d != 0` with d the normalized difference."""
        if node in self.bools:
            return
        op = node.op
        if op is E.BOOL:
            result = node
        elif op in E.COMPARISONS:
            result = self._apply("compare", lambda: node, node)
        elif op is E.NOT and self.bools[node.args[0]] in self.differences:
            result = self._apply("not-compare", lambda: node, self.bools[node.args[0]])
        else:
            result = self._apply("logic", lambda: node, node)
        self.bools[node] = result

    def _negated(self, cmp: Expr) -> Expr:
        """not(cmp) for a normalized comparison (rules not-lt, not-le, not-eq, not-ne)."""
        nf = self.differences[cmp]
        if cmp.op is E.EQ or cmp.op is E.NE:
            result = (E.ne if cmp.op is E.EQ else E.eq)(to_expr(nf), E.ZERO)
        else:
            nf = nf_neg(nf)
            result = (E.le if cmp.op is E.LT else E.lt)(to_expr(nf), E.ZERO)
        if result.op in E.COMPARISONS:
            self.differences[result] = nf
        return result

    def normalize_bool(self, cond: Expr) -> Expr:
        for node in E.postorder(cond, self.bools):
            if node.op in E.BOOLEAN:
                self._bool(node)
            elif node not in self.memo:
                self(node)
        return self.bools[cond]


# ---------------------------------------------------------------- the rewrites (rules.REWRITES)
# Each function below is one entry of the table, registered with the rules it applies; normal forms
# themselves are the ring and field laws at work (polynomials as dicts, ratios cross-multiplied).

@rewrite("leaf")
def _leaf(norm: Normalizer, node: Expr, owned: set) -> NormalForm:
    """A variable or a symbol is its own monomial."""
    return _leaf_nf(node)


@rewrite("constant")
def _constant(norm: Normalizer, node: Expr, owned: set) -> NormalForm:
    """A constant is its exact rational."""
    return NormalForm(p_const(node.data))


@rewrite("sum", "add-comm", "add-assoc", "like-terms", "ratio-add", "ratio-add-same")
def _sum(norm: Normalizer, node: Expr, owned: set) -> NormalForm:
    (a, own_a), (b, own_b) = norm._take(node.args[0], owned), norm._take(node.args[1], owned)
    if a.scale is not None or b.scale is not None:
        if norm.budget is not None:
            norm.budget.spend(_add_cost(a, b))
        return nf_add(a, b)
    if a.den is None and b.den is None:
        if own_b and (len(b.num) > len(a.num) or not own_a):
            a, b, own_a = b, a, True
        if norm.budget is not None:
            norm.budget.spend(len(b.num) + (0 if own_a else len(a.num)))   # (in place: b's terms only)
        return NormalForm(p_add(a.num, b.num, into=own_a))
    norm._bound(a, b)
    if norm.budget is not None:
        norm.budget.spend(_add_cost(a, b))
    return nf_add(a, b)


@rewrite("product", "mul-comm", "mul-assoc", "distrib", "power-merge", "exp2-add", "exp2-int", "ratio-mul",
         "expf-idiom")
def _product(norm: Normalizer, node: Expr, owned: set) -> NormalForm:
    a, b = norm.memo[node.args[0]], norm.memo[node.args[1]]
    norm._bound(a, b)
    if norm.budget is not None:
        norm.budget.spend(_mul_cost(a, b))
    nf = nf_mul(a, b)
    return norm._radicals(nf) if SQRT_ARGS else nf


@rewrite("quotient", "ratio-div", "ratio-const-den", "div-const", "exp2-neg", "exp2-div")
def _quotient(norm: Normalizer, node: Expr, owned: set) -> NormalForm:
    a, b = norm.memo[node.args[0]], norm.memo[node.args[1]]
    norm._bound(a, b)
    if norm.budget is not None:
        norm.budget.spend(_div_cost(a, b))
    nf = nf_div(a, b)
    return norm._radicals(nf) if SQRT_ARGS else nf


@rewrite("exponential", "exp2-int", "exp2-add", "ratio-cancel")
def _exponential_step(norm: Normalizer, node: Expr, owned: set) -> NormalForm:
    """2^p for a polynomial p (or one a monomial divides exactly) is c·2^(p − k) with the integer part k of
    p's constant term in c; any other exponent leaves an opaque atom."""
    arg = norm.memo[node.args[0]]
    if norm.budget is not None:
        norm.budget.spend(2 * _size(arg))
    num = arg.num if arg.den is None else p_divide(arg.num, arg.den)
    if num is not None:
        return _pow2_nf(num)
    return norm._atom(node)


@rewrite("atom", "congruence")
def _atom_step(norm: Normalizer, node: Expr, owned: set) -> NormalForm:
    return norm._atom(node)


@rewrite("radicals", "sqrt-square", "sqrt-square-odd")
def _radicals_rewrite(norm: Normalizer, nf: NormalForm) -> NormalForm:
    if norm.budget is not None:
        norm.budget.spend(_size(nf))
    out = _reduce_radicals(nf)
    if out is not nf:   # (spent after: the terms the square roots' arguments brought in)
        if norm.budget is not None:
            norm.budget.spend(_size(out))
    return out


@rewrite("shared-atom", "congruence", "shared-pivot", "rsqrt-recip")
def _shared_atom(norm: Normalizer, node: Expr) -> NormalForm | None:
    """A unary atom whose argument equals an earlier one's modulo the shared sums is that atom (rsqrt: 1/the
    sqrt atom of its argument)."""
    op, arg = node.op, norm.memo[node.args[0]]
    if p_constant_value(arg.num) is not None and arg.den is None:
        return None
    found = norm.shared.find(E.SQRT if op is E.RSQRT else op, None, (arg,))
    if found is None:
        return None
    return nf_div(NormalForm({UNIT: 1}), _leaf_nf(found)) if op is E.RSQRT else _leaf_nf(found)


@rewrite("rsqrt-recip", "rsqrt-recip", "congruence")
def _rsqrt_recip(norm: Normalizer, node: Expr, args: tuple) -> NormalForm | None:
    """rsqrt(v) = 1/sqrt(v) (v > 0 both), its sqrt an atom whose square reduces (rule sqrt-square)."""
    if args[0].op is E.CONST and args[0].data <= 0:
        return None
    root = E.sqrt(args[0])
    if root.op is E.SQRT:
        if norm.shared is not None:
            root = norm.shared.representative(root, (norm.memo[node.args[0]],))
        SQRT_ARGS.setdefault(root.id, _copy(norm.memo[node.args[0]]))
        return nf_div(NormalForm({UNIT: 1}), _leaf_nf(root))
    return nf_div(NormalForm({UNIT: 1}), norm._fresh()(root))


@rewrite("softplus-reflect", "softplus-reflect", "exp2-int", "congruence")
def _softplus_reflect(norm: Normalizer, node: Expr) -> NormalForm | None:
    """lg2(1 + c·2^E), c = 2^k, is p + lg2(1 + 2^-p) with p = E + k, written so that p's first non-constant
    monomial (in the sorted order) has a negative coefficient: of p and −p exactly one has, so
    softplus log(1 + e^x) and its reflection x + log(1 + e^-x) (log1p(exp(-|x|)) + max(x, 0) once the sign of
    x is split on, cases.py) meet at one form. An argument of any other shape is left alone."""
    arg = norm.memo[node.args[0]]
    if arg.den is not None or len(arg.num) != 2 or arg.num.get(UNIT) != 1:
        return None
    ((factors, e), c), = ((m, c) for m, c in arg.num.items() if m != UNIT)
    k = E.exact_lg2(Fraction(c))
    if factors or not e or k is None:
        return None
    p = p_add(dict(EXP_POLYS[e]), p_const(k))
    variable = [m for m in p if m != UNIT]
    if not variable or p[min(variable)] < 0:
        return None
    exponent = poly_to_expr(p)
    reflected = E.add(exponent, E.lg2(E.add(E.ONE, E.exp2(E.neg(exponent)))))
    nf = norm._fresh()(reflected)
    return NormalForm(dict(nf.num), None if nf.den is None else dict(nf.den))


@rewrite("common-terms", "select-common", "max-common", "min-common")
def _common_terms(norm: Normalizer, node: Expr, args: tuple) -> NormalForm | None:
    """c ? b + x : b + y is b + (c ? x : y), and max(b + x, b + y) is b + max(x, y) (min likewise), b the
    terms both arms share: `if (c) s += p` and `s += c ? p : 0` meet at s + (c ? p : 0), `if (x > 0) s += x`
    and `fmaxf(s + x, s)` at s + max(x, 0). b is needed on both sides, so taking it out does not widen
    where partial operations must be defined. Polynomial arms."""
    arms = node.args[1:] if node.op is E.SELECT else node.args
    if node.op not in (E.SELECT, E.MAX, E.MIN) or len(arms) != 2 or arms[0].op in E.BOOLEAN:
        return None
    nx, ny = norm.memo[arms[0]], norm.memo[arms[1]]
    if node.op is E.SELECT:   # arms one rescaled sum (`1 + 2^(x−y)` and `1 + 2^(y−x)`): whole, before taking terms out
        whole = norm._apply("select-rescale", lambda: E.rebuild(node, args), (*args, nx, ny))
        if whole is not None:
            return norm._fresh()(whole)
    if nx.den is not None or ny.den is not None:
        return None
    common = {m: c for m, c in nx.num.items() if ny.num.get(m) == c}
    if not common:
        return None
    dx = NormalForm({m: c for m, c in nx.num.items() if m not in common})
    dy = NormalForm({m: c for m, c in ny.num.items() if m not in common})
    if node.op is E.SELECT:
        inner = norm._select_of(args[0], to_expr(dx), to_expr(dy), dx, dy)
    else:
        inner = norm._apply("minmax", lambda: E.rebuild(node, (to_expr(dx), to_expr(dy))),
                            node.op, (to_expr(dx), to_expr(dy)))
    rest = _leaf_nf(inner) if inner.op in (E.SELECT, E.MAX, E.MIN) else norm._fresh()(inner)
    return nf_add(NormalForm(common), rest)


@rewrite("minmax", "max-assoc", "min-assoc", "max-dedupe", "min-dedupe", "max-consts", "min-consts",
         "max-comm", "max-comm-min", "max-self", "min-self", "clamp-order", "min-neg", "max-neg")
def _minmax(norm: Normalizer, op, args: tuple) -> Expr:
    """max/min as its canonical chain (volta/symbolic/extrema.py)."""
    return minmax(op, args)


@rewrite("congruence", "congruence", "exp2-zero", "abs-abs", "select-same", "not-not", "and-self", "or-self",
         "and-true", "and-false", "or-true", "or-false", "select-bool")
def _congruence(norm: Normalizer, node: Expr, args: tuple) -> Expr:
    """The same operator over canonical arguments, through expr.py's folding constructors."""
    return E.rebuild(node, args)


@rewrite("select-not", "select-not")
def _select_not(norm: Normalizer, state: tuple) -> tuple | None:
    cond, x, y, nx, ny = state
    return (cond.args[0], y, x, ny, nx) if cond.op is E.NOT else None


@rewrite("select-polarity", "select-polarity-le", "select-polarity-eq", "not-le", "not-eq")
def _select_polarity(norm: Normalizer, state: tuple) -> tuple | None:
    """d <= 0 ? x : y is -d < 0 ? y : x, and d == 0 ? x : y is d != 0 ? y : x."""
    cond, x, y, nx, ny = state
    if (cond.op is E.LE or cond.op is E.EQ) and cond in norm.differences:
        return norm._negated(cond), y, x, ny, nx
    return None


@rewrite("select-nested", "select-nested-then", "select-nested-else")
def _select_nested(norm: Normalizer, state: tuple) -> tuple | None:
    """c ? (c ? x : z) : y is c ? x : y, and c ? x : (c ? z : y) is c ? x : y (an if/else that nvcc
    if-converted into a select of a select on the same predicate)."""
    cond, x, y, nx, ny = state
    inner_x = x.op is E.SELECT and x.args[0] is cond
    inner_y = y.op is E.SELECT and y.args[0] is cond
    if not (inner_x or inner_y):
        return None
    if inner_x:
        x = x.args[1]
        nx = norm._fresh()(x)
    if inner_y:
        y = y.args[2]
        ny = norm._fresh()(y)
    return cond, x, y, nx, ny


def _spend_on_arms(norm: Normalizer, times: int, *arms: Expr) -> None:
    """Spend what a rewrite that substitutes into the arms `times` times and normalizes the results costs (its
    normalizations spend their own visits too; this is the substituting, the walks of the premise's tests)."""
    if norm.budget is not None:
        norm.budget.spend(NODE_WORK * times * sum(len(E.postorder(a)) for a in arms))


def _arms_agree_where_zero(norm: Normalizer, d: NormalForm, x: Expr, y: Expr) -> bool:
    """x = y wherever d = 0, proved by boundary.py (a bounded or failing normalization proves nothing)."""
    same = _same(norm)
    _spend_on_arms(norm, 2, x, y)
    try:
        return agree_where_zero(d, x, y, Normalizer(norm.shared, norm.limit, norm.trace, False, norm.budget), same,
                                norm.totals, poly_to_expr)
    except (ExpansionLimit, Unsupported):
        return False


@rewrite("select-boundary", "select-boundary", "zero-pivot")
def _select_boundary(norm: Normalizer, state: tuple) -> tuple | None:
    """d < 0 ? x : y is -d < 0 ? y : x where x = y wherever d = 0 (boundary.py); the form kept is the one
    whose d leads with a positive coefficient, so `x > 0 ? x : f` and `x >= 0 ? x : f` meet when f(0) = 0."""
    cond, x, y, nx, ny = state
    d = norm.differences.get(cond) if norm.boundary and cond.op is E.LT and cond.args[1] is E.ZERO else None
    if d is None or d.den is not None or not d.num or leads_positive(d):
        return None
    if not _arms_agree_where_zero(norm, d, x, y):
        return None
    neg = nf_neg(d)
    flipped = E.lt(to_expr(neg), E.ZERO)
    if flipped.op in E.COMPARISONS:
        norm.differences[flipped] = neg
    return flipped, y, x, ny, nx


@rewrite("select-ne-boundary", "select-ne-boundary", "zero-pivot")
def _select_ne_boundary(norm: Normalizer, state: tuple) -> Expr | None:
    """d != 0 ? x : y is x where x = y wherever d = 0 (boundary.py)."""
    cond, x, y, _nx, _ny = state
    d = norm.differences.get(cond) if norm.boundary and cond.op is E.NE else None
    if d is None or not _arms_agree_where_zero(norm, d, x, y):
        return None
    return x


def _difference(cond: Expr) -> Expr | None:
    """d of a normalized comparison `d op 0` (eq and ne sort their arguments, so `0 == d` too), else None."""
    if cond.op in E.COMPARISONS:
        if cond.args[1] is E.ZERO:
            return cond.args[0]
        if cond.args[0] is E.ZERO and (cond.op is E.EQ or cond.op is E.NE):
            return cond.args[1]
    return None


@rewrite("select-extremum", "select-min-lt", "select-min-le", "select-max-lt", "select-max-le", "max-comm",
         "max-comm-min", "max-self", "min-self", "max-consts", "min-consts")
def _select_extremum(norm: Normalizer, state: tuple) -> Expr | None:
    """x < y ? x : y is min(x, y), y < x ? x : y is max(x, y) (<= likewise)."""
    cond, x, y, nx, ny = state
    if not (cond.op is E.LT or cond.op is E.LE) or cond.args[1] is not E.ZERO:
        return None
    d = cond.args[0]
    if d is to_expr(nf_sub(nx, ny)):
        return minmax(E.MIN, (x, y))
    if d is to_expr(nf_sub(ny, nx)):
        return minmax(E.MAX, (x, y))
    return None


@rewrite("select-equal", "select-eq", "select-eq-rev", "select-ne", "select-ne-rev")
def _select_equal(norm: Normalizer, state: tuple) -> Expr | None:
    """x == y ? x : y is y; x != y ? x : y is x."""
    cond, x, y, nx, ny = state
    if not (cond.op is E.EQ or cond.op is E.NE):
        return None
    d = _difference(cond)
    if d is not None and (d is to_expr(nf_sub(nx, ny)) or d is to_expr(nf_sub(ny, nx))):
        return y if cond.op is E.EQ else x
    return None


@rewrite("select-through", "select-max-through", "select-min-through", "select-max-through-le",
         "select-min-through-le", "select-through-exp")
def _select_through(norm: Normalizer, state: tuple) -> Expr | None:
    """Rules select-max-through, select-min-through (`extrema.through_extremum`), for total arms only
    (no division, root, log or call anywhere), so F(max) is defined wherever the select is."""
    cond, x, y, _nx, _ny = state
    pair = _ordered(norm, cond)
    if pair is None or not all(E.is_total(e, norm.totals) for e in (x, y, *pair)):
        return None
    _spend_on_arms(norm, 4, x, y)
    return through_extremum(pair, x, y, norm._fresh(), _same(norm))


def _ordered(norm: Normalizer, cond: Expr) -> tuple[Expr, Expr] | None:
    """(u, w) for a normalized `d < 0` / `d <= 0` that says u < w (`extrema.ordered_pair`), else None."""
    if not (cond.op is E.LT or cond.op is E.LE) or cond.args[1] is not E.ZERO:
        return None
    return ordered_pair(norm.differences.get(cond))


def _same(norm: Normalizer):
    """How two normal forms are proved equal in norm's mode (modulo its shared sums, where it keeps them)."""
    return equal if norm.shared is None else norm.shared.equal


@rewrite("select-rescale", "select-rescale-exp", "max-comm")
def _select_rescale(norm: Normalizer, state: tuple) -> Expr | None:
    """u < w ? X : Y is G·2^(−d·max(u, w)) when X·2^(d·w) and Y·2^(d·u) have one normal form G (rule
    select-rescale-exp), for total arms: an online softmax's merge of two (max, sum) pairs, `bigger.s +
    smaller.s·exp(smaller.m − bigger.m)` with the pair chosen by `a.m > b.m` (lift.py fuses the per-field
    selects into this one). d is read off X's exponentials: the coefficient of w in one of them, negated."""
    cond, x, y, nx, ny = state
    pair = _ordered(norm, cond)
    if pair is None:
        return None
    u, w = pair
    scales = _exponent_scales(nx, w)
    if not scales or not all(E.is_total(e, norm.totals) for e in (x, y, *pair)):
        return None
    same = _same(norm)
    _spend_on_arms(norm, 2, x, y)
    fresh = norm._fresh()
    nu, nw = fresh(u), fresh(w)
    for d in scales:
        gx = nf_mul(nx, _pow2_nf(p_mul(d, nw.num)))
        gy = nf_mul(ny, _pow2_nf(p_mul(d, nu.num)))
        if same(gx, gy):
            top = minmax(E.MAX, pair)
            return E.mul(to_expr(gx), E.exp2(E.neg(E.mul(poly_to_expr(d), top))))
    return None


def _exponent_scales(nf: NormalForm, w: Expr) -> list[Poly]:
    """The polynomials d with 2^(… − d·w …) in a term of nf's numerator (w a leaf or an atom), at most 4."""
    if nf.den is not None:
        return []
    found: dict[frozenset, Poly] = {}
    for _factors, e in nf.num:
        if not e:
            continue
        d: Poly = {}
        for (factors, e2), c in EXP_POLYS[e].items():
            if e2 == 0 and (w.id, 1) in factors:
                rest = tuple(f for f in factors if f != (w.id, 1))
                d[(rest, 0)] = d.get((rest, 0), 0) - c
        d = {m: c for m, c in d.items() if c}
        if d:
            found.setdefault(frozenset(d.items()), d)
        if len(found) >= 4:
            break
    return list(found.values())


def _pow2_nf(p: Poly) -> NormalForm:
    """2^p as a normal form (its integer constant part in the coefficient)."""
    e, k = _intern_exponent(p)
    return NormalForm({((), e): _pow2(1, k)})


@rewrite("compare", "cmp-lt", "cmp-le", "cmp-eq", "cmp-ne", "cmp-pos-factor", "ne-pos-factor", "exp2-pos",
          "pos-sum")
def _compare(norm: Normalizer, node: Expr) -> Expr:
    """a op b is (a − b) op 0, the difference normalized (and kept for the select rewrites); a difference
    that is a sum of exponentials c·2^p of one sign (over another) is never 0 and has that sign, so the
    comparison is that of the sign with 0 (a constant: true or false)."""
    a, b = (norm.memo[c] for c in node.args)
    if norm.budget is not None:
        norm.budget.spend(2 * _add_cost(a, b))
    nf = nf_sub(a, b)
    sign = _exponential_sign(nf)
    result = E.rebuild(node, (to_expr(nf) if sign is None else E.const(sign), E.ZERO))
    if result.op in E.COMPARISONS:   # (not a constant folded to true/false)
        norm.differences[result] = nf
    return result


def _exponential_sign(nf: NormalForm) -> int | None:
    """+1 or -1 for a normal form whose numerator and denominator are each a sum of exponentials c·2^p with
    coefficients of one sign (no leaf or atom factor; 2^p > 0, so such a sum is nonzero with its
    coefficients' sign: a softmax's sum of exponentials), else None."""
    sign = 1
    for poly in [nf.num] if nf.den is None else [nf.num, nf.den]:
        if not poly or any(factors for factors, _ in poly):
            return None
        positive = [c > 0 for c in poly.values()]
        if any(positive) and not all(positive):
            return None
        sign = sign if positive[0] else -sign
    return sign


@rewrite("not-compare", "not-lt", "not-le", "not-eq", "not-ne")
def _not_compare(norm: Normalizer, cmp: Expr) -> Expr:
    """Over the reals (no NaN) not(d < 0) is -d <= 0, not(d <= 0) is -d < 0, and == and != swap, so
    `!(a <= 0)` (nvcc's branch around `if (a > 0)`) and `0 < a` are one condition."""
    return norm._negated(cmp)


@rewrite("logic", "not-not", "and-self", "or-self", "and-true", "and-false", "or-true", "or-false")
def _logic(norm: Normalizer, node: Expr) -> Expr:
    """and, or, not over normalized conditions, through expr.py's folding constructors."""
    return E.rebuild(node, tuple(norm.bools[c] for c in node.args))



SELECT_ORIENT = ("select-not", "select-polarity", "select-nested", "select-boundary")   # in order, each at most once
SELECT_RESOLVE = ("select-extremum", "select-equal", "select-through", "select-rescale",
                  "select-ne-boundary")   # the first that applies
# A node's step by its operator (booleans are `_bool`'s): every operator has one.
STEPS: dict[E.Op, Rewrite] = {op: REWRITES[name] for op, name in (
    (E.ADD, "sum"), (E.MUL, "product"), (E.DIV, "quotient"), (E.EXP2, "exponential"),
    (E.VAR, "leaf"), (E.SYM, "leaf"), (E.CONST, "constant"), *((op, "atom") for op in E.ATOMS))}
_STEP_FUNCTIONS = {op: entry.apply for op, entry in STEPS.items()}


_DEFAULT = Normalizer()


def normalize(root: Expr, normalizer: Normalizer | None = None) -> NormalForm:
    """The normal form of root (memoized in a process-wide normalizer unless one is given)."""
    return (normalizer or _DEFAULT)(root)


def equal_exprs(a: Expr, b: Expr, normalizer: Normalizer | None = None) -> bool:
    """True when the normal forms agree: a proof that a = b wherever both are defined."""
    if a is b:
        return True
    n = normalizer or _DEFAULT
    return equal(n(a), n(b))
