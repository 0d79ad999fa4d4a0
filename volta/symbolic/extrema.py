"""Max and min in normal forms: canonical n-ary chains, and selects that are a function at a max or a min.

`minmax` is the one canonical form of a max/min atom (flattened, constants folded, sorted by node id; a clamp
between constants lo <= hi always min(max(x, lo), hi), whichever order the kernel wrote: rule clamp-order).
`through_extremum` is rules select-max-through and select-min-through: for any function F,
`u < w ? F(w) : F(u)` is F(max(u, w)) and `u < w ? F(u) : F(w)` is F(min(u, w)) (with <= too: where
u = w every form agrees). The branchy online softmax `if (v > m) { d *= exp(m - v); m = v; }` is
`m < v ? d·2^(m−v) : d`, which is d·2^(m − max(m, v)) with F(s) = d·2^(m − s), so its running sum
telescopes like the fmaxf form's. F is found by substitution: an arm with u or w as the parameter, and
the other arm must have the normal form of F at the other argument.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from volta.symbolic import expr as E
from volta.symbolic.expr import Expr, Op


def minmax_args(op: Op, node: Expr) -> list[Expr]:
    """The arguments of a (nested) max or min chain, flattened."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.op is op:
            stack.extend(n.args)
        else:
            out.append(n)
    return out


def _negated(x: Expr) -> Expr | None:
    """y for x = −1·y, −c for a constant c; None for anything else."""
    if x.op is E.CONST:
        return E.const(-x.data)
    if x.op is E.MUL and len(x.args) == 2:
        for k, y in (x.args, x.args[::-1]):
            if k is E.MINUS_ONE:
                return y
    return None


def minmax(op: Op, args) -> Expr:
    """Canonical n-ary max/min over canonical arguments: flattened, constants folded to one,
    duplicates dropped, sorted by node id, built as a left chain; min(−a, −b) as −max(a, b) and max(−a, −b) as
    −min(a, b) (rules min-neg, max-neg: `x − max(m1, m2)` and `x + min(−m1, −m2)` are one value, and only
    the first has the max a reference's running maximum has)."""
    negated = [_negated(a) for a in args]
    if all(n is not None for n in negated) and any(a.op is not E.CONST for a in args):
        return E.neg(minmax(E.MIN if op is E.MAX else E.MAX, negated))
    if len(args) == 2:   # a running max: a canonical chain and one new argument after its last
        chain, x = args if args[0].op is op else args[::-1]
        if (chain.op is op and x.op is not op and x.op is not E.CONST and x.id > chain.args[1].id
                and chain.args[1].op is not E.CONST):
            return E._make(op, (chain, x))
    flat: dict[Expr, None] = {}
    best = None
    for a in args:
        for x in minmax_args(op, a):
            if x.op is E.CONST:
                if best is None or (x.data > best.data if op is E.MAX else x.data < best.data):
                    best = x
            else:
                flat[x] = None
    items = sorted(flat, key=lambda n: n.id)
    if op is E.MAX and best is not None and len(items) == 1:
        clamp = _clamp(items[0], best)
        if clamp is not None:
            return clamp
    if best is not None:
        items.insert(0, best)
    acc = items[0]
    for x in items[1:]:
        acc = E._make(op, (acc, x))
    return acc


def _clamp(inner: Expr, lo: Expr) -> Expr | None:
    """max(min(y, hi), lo) as min(max(y, lo), hi) when lo <= hi (rule clamp-order; y the min chain's other
    arguments), else None: for y <= lo both are lo, between them y, above hi both are hi."""
    if inner.op is not E.MIN:
        return None
    args = minmax_args(E.MIN, inner)
    consts = [x for x in args if x.op is E.CONST]
    if len(consts) != 1 or not lo.data <= consts[0].data:
        return None
    rest = [x for x in args if x.op is not E.CONST]
    y = rest[0] if len(rest) == 1 else minmax(E.MIN, rest)
    return minmax(E.MIN, (minmax(E.MAX, (y, lo)), consts[0]))


def ordered_pair(d) -> tuple[Expr, Expr] | None:
    """(u, w) when `d < 0` says u < w, for the normal form d (or None) of a comparison's difference:
    d = c·(u − w) with c > 0, u and w each a leaf, an atom or a constant (not both constants); else None."""
    if d is None or d.den is not None:
        return None
    terms = list(d.num.items())
    if len(terms) != 2:
        return None
    sides = []
    for (factors, e), c in terms:
        if e or len(factors) > 1 or factors and factors[0][1] != 1:
            return None
        sides.append((E.NODES[factors[0][0]] if factors else None, c))
    (a, ca), (b, cb) = sorted(sides, key=lambda s: s[0] is None)   # a constant second
    if b is None:                              # ca·a + cb < 0: a < -cb/ca, or -cb/ca < a when ca < 0
        bound = E.const(-Fraction(cb) / ca)
        return (a, bound) if ca > 0 else (bound, a)
    if ca != -cb:
        return None
    return (a, b) if ca > 0 else (b, a)


def through_extremum(pair: tuple[Expr, Expr], x: Expr, y: Expr, normalize: Callable, same: Callable) -> Expr | None:
    """`u < w ? x : y` (pair = (u, w)) as F(max(u, w)) or F(min(u, w)) when x and y are one function F at
    the two sides, else None. `normalize` gives normal forms, `same(a, b)` proves two of them equal.
    The caller makes sure x and y are total, so F(max) is defined wherever the select is."""
    u, w = pair
    top, bottom = minmax(E.MAX, pair), minmax(E.MIN, pair)
    for arm, other, param, at, extremum in ((x, y, w, u, top), (y, x, u, w, top),
                                            (x, y, u, w, bottom), (y, x, w, u, bottom)):
        # F(s) = arm[param := s]: arm is F(param); the other arm must be F(at); the select is F(extremum)
        if param.op is not E.CONST and same(normalize(E.substitute(arm, {param: at})), normalize(other)):
            return E.substitute(arm, {param: extremum})
    return None
