"""Selects whose arms agree where the condition's difference is zero: there the condition does not matter.

torch's ELU is `x > 0 ? x : α(e^x − 1)`; a kernel writing `x >= 0 ? x : α(e^x − 1)` takes the other arm
only at x = 0, where both arms are 0. In general, for a normalized condition `d < 0` or `d != 0`:

- select-boundary: when a = b wherever d = 0, `d < 0 ? a : b` is `-d < 0 ? b : a` (each takes a where
  d < 0 and b where d > 0; at d = 0 they take a and b, which agree). The normalizer keeps the one of the
  two whose d leads with a positive coefficient (`leads_positive`), so `x > 0` and `x >= 0` meet.
- select-ne-boundary: when a = b wherever d = 0, `d != 0 ? a : b` is a.

"a = b wherever d = 0" is proved, never sampled (`agree_where_zero`): d = c·v + r with c a nonzero constant
and v a leaf or an atom, so at every point where d = 0, v has the value −r/c; a and b with v replaced by −r/c
(a replacement by an equal value at each such point) must have equal normal forms. Only for total arms and a
total d (no division, root, log or call): the rewritten select may take the other arm at d = 0, which must
then be defined wherever the original select is; and only for arms with no select, max or min inside (what
activations' boundaries are), so that proving the premise never case-splits again.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from volta.symbolic import expr as E
from volta.symbolic.expr import Expr

MAX_ARM_NODES = 2_000   # arms larger than this are left as they are (a normalization each; nothing claimed)
# arms holding a select or an extremum are left as they are: their normal forms case-split again, and a chain
# of nested selects (an argmax tree: 64 levels) proved each level's premise over the levels below it, minutes
BRANCHING = frozenset({E.SELECT, E.MAX, E.MIN})


def leads_positive(d) -> bool:
    """Whether the polynomial normal form d has a positive coefficient on its first monomial (in the
    monomials' sorted order, the order normal forms print in): of d and −d exactly one does."""
    return d.num[min(d.num)] > 0


def pivot(d, poly_to_expr: Callable) -> tuple[Expr, Expr] | None:
    """(v, s) with v a leaf or atom node and s an expression equal to v wherever the polynomial d is zero:
    d = c·v + r with v of power 1, no exponential, in no other term of d (in the first such term of the
    sorted order), and s = −r/c, built by `poly_to_expr`. None if no term qualifies or d has a denominator."""
    if d.den is not None:
        return None
    for mono in sorted(d.num):
        factors, e = mono
        if e or len(factors) != 1 or factors[0][1] != 1:
            continue
        leaf, c = factors[0][0], d.num[mono]
        rest = {m: k for m, k in d.num.items() if m != mono}
        if any(leaf == f for fs, _e in rest for f, _p in fs):
            continue
        return E.NODES[leaf], poly_to_expr({m: -Fraction(k) / c for m, k in rest.items()})
    return None


def agree_where_zero(d, a: Expr, b: Expr, normalize: Callable, same: Callable, totals: dict,
                     poly_to_expr: Callable) -> bool:
    """Proved: a = b at every point where the normal form d is zero (see the module docstring). `normalize`
    gives normal forms (a fresh normalizer), `same` proves two equal, `totals` memoizes E.is_total."""
    found = pivot(d, poly_to_expr)
    if found is None:
        return False
    v, s = found
    if not all(E.is_total(t, totals) for t in (a, b, v, s)):
        return False
    nodes = E.postorder(a) + E.postorder(b)
    if len(nodes) > MAX_ARM_NODES or any(n.op in BRANCHING for n in nodes):
        return False
    return same(normalize(E.substitute(a, {v: s})), normalize(E.substitute(b, {v: s})))
