"""Selects that share a condition, fused into one: `p ? a : b` + `p ? c : d` is `p ? a + c : b + d`.

A kernel that selects a whole record on one comparison — the online softmax's `(m, d)` pair in
`bigger = a.m > b.m ? a : b; smaller = a.m > b.m ? b : a; d = bigger.d + smaller.d·exp(smaller.m − bigger.m)`
(cub and cooperative-groups reductions with a struct operator) — compiles to one `selp` per field, so the
value it computes is an expression over several selects on the same condition. None of them alone is a
function at max/min of the compared values (extrema.py), but the expression is: under the condition it is
one arm's value, otherwise the other's. `lift_selects` rebuilds the expression with every operator whose
input-dependent arguments are all selects on one condition taken inside that condition (rule select-lift),
so the normalizer sees one select whose arms it can resolve (`normal._select_rescale`).

Sound for every total operator: both sides evaluate the same arm under the same condition, and a value that
depends on no input (a constant, a named symbol such as log2 e, a scalar kept symbolic) is the same in both
arms. Partial operators (division, roots, logarithms, calls) are not lifted: `p ? a : b` divided by
`p ? c : d` needs only the chosen divisor nonzero, the fused arms would each need their own. Nothing is
duplicated but those input-free values, so the result is no larger than the input (each fused node replaces
the selects it consumes). Booleans are left as they are (conditions are not lifted).
"""
from __future__ import annotations

from volta.errors import Unsupported
from volta.symbolic import expr as E
from volta.symbolic.expr import Expr
from volta.symbolic.normal import Budget, ExpansionLimit, Normalizer, equal

LIFT_BUDGET = 4_000_000   # units of normal.Budget for the lifted pair's normal forms (as a first attempt's)


def lifted_equal(a: Expr, b: Expr, norm: Normalizer | None = None) -> bool:
    """a = b by normal forms once selects on one condition are fused (a record chosen whole by one comparison,
    as an online softmax's (max, sum) merge); within LIFT_BUDGET, and False where nothing fuses. The lifted
    nodes are kept in `norm.lifted` across the elements of a check, so an element whose DAG has nothing to fuse
    costs a walk of its new nodes only."""
    norm = norm or Normalizer()
    la, lb = lift_selects(a, norm.lifted), lift_selects(b, norm.lifted)
    if la is a and lb is b:
        return False
    bounded = norm.bounded(Budget(LIFT_BUDGET))
    try:
        return equal(bounded(la), bounded(lb), bounded.budget)
    except (ExpansionLimit, Unsupported):
        return False


def lift_selects(root: Expr, memo: dict | None = None) -> Expr:
    """root with selects on one condition fused upward through the operators that combine them (rule
    select-lift); `memo` (node -> lifted node) may be shared across the roots of one comparison."""
    memo = {} if memo is None else memo
    fixed = memo.setdefault(_FIXED, set())
    for n in E.postorder(root, memo):
        if not n.args:
            memo[n] = n
            if n.op is not E.VAR:
                fixed.add(n)
            continue
        args = tuple(memo[c] for c in n.args)
        if all(a in fixed for a in args) and n.op is not E.SELECT:
            memo[n] = E.rebuild(n, args)
            fixed.add(memo[n])
            continue
        liftable = n.op not in E.BOOLEAN and n.op is not E.SELECT and n.op not in E.PARTIAL
        memo[n] = _fused(n, args, fixed) if liftable else E.rebuild(n, args)
    return memo[root]


_FIXED = object()   # the memo's entry holding the nodes that depend on no input (constants, symbols): duplicable


def _fused(node: Expr, args: tuple, fixed: set) -> Expr:
    """`node`'s operator over args, taken inside the one condition its input-dependent arguments select on
    (the others, constants and named symbols such as log2 e, go into both arms)."""
    cond = None
    for a in args:
        if a in fixed:
            continue
        if a.op is not E.SELECT or (cond is not None and a.args[0] is not cond):
            return E.rebuild(node, args)
        cond = a.args[0]
    if cond is None:
        return E.rebuild(node, args)
    then = tuple(a if a in fixed else a.args[1] for a in args)
    other = tuple(a if a in fixed else a.args[2] for a in args)
    return E.select(cond, E.rebuild(node, then), E.rebuild(node, other))
