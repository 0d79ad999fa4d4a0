"""Deciding max/min identities by case splits on the order of their arguments, before any solver.

`max(a,b) + min(a,b) = a + b` has no normal-form proof: max and min are opaque atoms. But every
real point satisfies some total order t_π1 ≤ t_π2 ≤ … ≤ t_πn of the finitely many arguments t_i of
the innermost max/min atoms (rule `order-total`), and under that order each atom equals one of its
arguments: max(S) is the element of S last in π, min(S) the first (rules `max-case`, `min-case`;
with ties the chosen argument has the same value). So if, for every permutation π, substituting
the atoms by their arguments gives equal normal forms, the two expressions are equal at every
point where they are defined. Permutations are skipped only when they contradict a constant
difference between two arguments (t_i − t_j = c ≠ 0 fixes their order), which no point satisfies.
Skipping nothing else keeps the split exhaustive; a permutation that fails just means "not proved
here" (Z3 gets the obligation next), never a verdict.
"""
from __future__ import annotations

from volta.errors import Unsupported
from volta.symbolic import expr as E
from volta.symbolic.expr import Expr
from volta.symbolic.extrema import minmax_args
from volta.symbolic.normal import (Normalizer, equal, nf_sub, normalize, p_constant_value,
                                   to_expr)
from volta.symbolic.verdict import Proved

MAX_TERMS = 6          # arguments ordered at once (at most 6! = 720 orders)
MAX_CASES = 2_000      # total substituted comparisons per obligation
_MINMAX = (E.MAX, E.MIN)


def _innermost_atoms(roots: list[Expr]) -> list[Expr]:
    """Top nodes of max/min chains whose arguments contain no max/min."""
    nodes: dict[Expr, None] = {}
    chain_children: set[Expr] = set()
    for r in roots:
        for n in E.postorder(r):
            if n.op in _MINMAX:
                nodes[n] = None
                for c in n.args:
                    if c.op is n.op:
                        chain_children.add(c)
    out = []
    for n in nodes:
        if n in chain_children:
            continue
        args = minmax_args(n.op, n)
        if not any(x.op in _MINMAX for a in args for x in E.postorder(a)):
            out.append(n)
    return out


class _Budget:
    def __init__(self, n: int) -> None:
        self.left = n


def _orders(known: list, new: list):
    """Every total order of known + new that keeps the relative order of `known` (ascending lists)."""
    if not new:
        yield list(known)
        return
    for rest in _orders(known, new[1:]):
        for pos in range(len(rest) + 1):
            yield rest[:pos] + [new[0]] + rest[pos:]


def _forced(terms: list, norm: Normalizer) -> list:
    """Pairs (smaller, larger) whose difference is a nonzero constant: every point orders them so."""
    out = []
    nfs = [normalize(t, norm) for t in terms]
    for i in range(len(terms)):
        for j in range(i + 1, len(terms)):
            if nfs[i].den is not None or nfs[j].den is not None:
                continue
            c = p_constant_value(nf_sub(nfs[i], nfs[j]).num)
            if c is not None and c != 0:
                out.append((terms[i], terms[j]) if c < 0 else (terms[j], terms[i]))
    return out


def _decide(a: Expr, b: Expr, norm: Normalizer, budget: _Budget, depth: int, known: list) -> bool:
    """a = b at every point whose arguments are ordered as `known` (ascending) says."""
    if equal(normalize(a, norm), normalize(b, norm)):
        return True
    if depth <= 0:
        return False
    ea, eb = to_expr(normalize(a, norm)), to_expr(normalize(b, norm))
    atoms = _innermost_atoms([ea, eb])
    if not atoms:
        return False
    new: dict[Expr, None] = {}
    for atom in atoms:
        for t in minmax_args(atom.op, atom):
            if t not in known:
                new[t] = None
    if len(known) + len(new) > MAX_TERMS:
        return False
    forced = _forced(list(known) + list(new), norm)
    for order in _orders(known, list(new)):
        rank = {t: r for r, t in enumerate(order)}
        if any(rank[lo] > rank[hi] for lo, hi in forced):
            continue
        budget.left -= 1
        if budget.left < 0:
            return False
        sub = {}
        for atom in atoms:
            args = minmax_args(atom.op, atom)
            sub[atom] = max(args, key=rank.get) if atom.op is E.MAX else min(args, key=rank.get)
        if not _decide(E.substitute(ea, sub), E.substitute(eb, sub), norm, budget, depth - 1, order):
            return False
    return True


def decide_by_cases(a: Expr, b: Expr, norm: Normalizer | None = None, depth: int = 3) -> Proved | None:
    """Proved('case-split') when a = b in every order of the max/min arguments; None: not decided here."""
    norm = norm or Normalizer()
    try:
        if _decide(a, b, norm, _Budget(MAX_CASES), depth, []):
            return Proved("case-split")
    except Unsupported:   # e.g. a division by a constant zero met after a substitution: not decided here
        return None
    return None
