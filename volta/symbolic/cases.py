"""Deciding max/min identities by case splits on the order of their arguments, before any solver.

`max(a,b) + min(a,b) = a + b` has no normal-form proof: max, min and abs are opaque atoms (|a| is
max(a, -a), rule `abs-max`). But every real point satisfies some total order t_π1 ≤ t_π2 ≤ … ≤ t_πn
of the finitely many arguments t_i of the innermost max/min/abs atoms (rule `order-total`), and
under that order each atom equals one of its
arguments: max(S) is the element of S last in π, min(S) the first (rules `max-case`, `min-case`;
with ties the chosen argument has the same value). So if, for every permutation π, substituting
the atoms by their arguments gives equal normal forms, the two expressions are equal at every
point where they are defined. Permutations are skipped when they contradict a constant
difference between two arguments (t_i − t_j = c ≠ 0 fixes their order), which no point satisfies,
and when their strict form t_π1 < … < t_πn has no interior (rule `order-chamber`): read each
argument's normal form as an affine function of its monomials y (each a free real; a ratio its own
variable), the strict order as linear inequalities in y, empty by Fourier-Motzkin. Why that keeps
the split exhaustive: if no two arguments have the same form, each difference is a nonzero affine
function, its zero set a hyperplane, so the open chambers (the strictly feasible orders) are dense in
y-space; the point's y lies in the closure of one, and there that order holds weakly, which is all
the substitution needs (ties pick an argument of the same value). A nested split refines a chamber
of the level above the same way (the new differences cut it into sub-chambers dense in it). Without
the rule `|x| + max(-x, 0)` against `max(x, 0) − min(x, 0)` fails on -x ≤ x ≤ 0, true only at x = 0.
Two arguments with the same form turn the rule off at that level. A permutation that fails just means
"not proved here" (Z3 gets the obligation next), never a verdict.
"""
from __future__ import annotations

from volta.errors import Unsupported
from volta.symbolic import expr as E
from volta.symbolic.expr import Expr
from volta.symbolic.extrema import minmax_args
from volta.symbolic.normal import (UNIT, Normalizer, equal, nf_sub, normalize, p_constant_value,
                                   to_expr)
from volta.symbolic.verdict import Proved

MAX_TERMS = 6          # arguments ordered at once (at most 6! = 720 orders)
MAX_CASES = 2_000      # total substituted comparisons per obligation
_MINMAX = (E.MAX, E.MIN, E.ABS)   # |a| is max(a, -a) (rule abs-max)


def _split_args(atom: Expr) -> tuple:
    """The arguments the atom is one of, under every order of them."""
    return (atom.args[0], E.neg(atom.args[0])) if atom.op is E.ABS else minmax_args(atom.op, atom)


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
        args = _split_args(n)
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


ELIMINATION_ROWS = 256   # Fourier-Motzkin rows past which an order is simply checked


def _affine_forms(terms: list, norm: Normalizer) -> dict | None:
    """Each term as an affine form over its monomials (monomial -> coefficient, UNIT the constant; a term with a
    denominator is one variable of its own): the relaxation in which every monomial is a free real. None when
    two terms have the same form, whose difference vanishes everywhere (then no order is skipped)."""
    forms, seen = {}, set()
    for t in terms:
        nf = normalize(t, norm)
        form = dict(nf.num) if nf.den is None else {("term", t.id): 1}
        key = frozenset(form.items())
        if key in seen:
            return None
        seen.add(key)
        forms[t] = form
    return forms


def _strictly_empty(rows: list) -> bool:
    """No point makes every row (an affine form) > 0: Fourier-Motzkin elimination, exact over the rationals,
    each variable eliminated by adding positive multiples of a row where it is positive and one where it is
    negative (strict stays strict); the system is empty iff a constant row <= 0 is left. False also when the
    rows grow past ELIMINATION_ROWS (nothing skipped)."""
    while True:
        var = next((m for r in rows for m in r if m != UNIT), None)
        if var is None:
            return any(r.get(UNIT, 0) <= 0 for r in rows)
        up = [r for r in rows if r.get(var, 0) > 0]
        down = [r for r in rows if r.get(var, 0) < 0]
        rows = [r for r in rows if var not in r]
        for u in up:
            for d in down:
                cu, cd = u[var], -d[var]
                row = {m: v for m in u.keys() | d.keys() if (v := u.get(m, 0) * cd + d.get(m, 0) * cu)}
                rows.append(row)
        if len(rows) > ELIMINATION_ROWS:
            return False


def _no_interior(order: list, forms: dict) -> bool:
    """The strict order t1 < t2 < ... holds at no point of the relaxation (rule order-chamber)."""
    rows = []
    for lo, hi in zip(order, order[1:]):
        row = dict(forms[hi])
        for m, c in forms[lo].items():
            v = row.get(m, 0) - c
            if v:
                row[m] = v
            else:
                row.pop(m, None)
        rows.append(row)
    return _strictly_empty(rows)


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
        for t in _split_args(atom):
            if t not in known:
                new[t] = None
    if len(known) + len(new) > MAX_TERMS:
        return False
    forced = _forced(list(known) + list(new), norm)
    forms = _affine_forms(list(known) + list(new), norm)
    for order in _orders(known, list(new)):
        rank = {t: r for r, t in enumerate(order)}
        if any(rank[lo] > rank[hi] for lo, hi in forced):
            continue
        if forms is not None and _no_interior(order, forms):
            continue
        budget.left -= 1
        if budget.left < 0:
            return False
        sub = {}
        for atom in atoms:
            args = _split_args(atom)
            sub[atom] = min(args, key=rank.get) if atom.op is E.MIN else max(args, key=rank.get)
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
