"""Shared sums kept whole: normal forms that do not expand what two kernels share.

A two-pass variance Σ(x_i − mean)² with mean = Σx/C expands to C²/2 monomials (C = 1024: half a million,
minutes), and so does a one-pass E[x²] − E[x]², which squares the same sum. Nothing needs that expansion:
in a `Normalizer(shared=SharedTerms())` a sum of at least WIDE terms that the expression uses more than
once (a mean subtracted from every element, a sum squared) becomes one atom t, a factor of monomials like a
leaf, and products stay as small as the expression around the sum.

The atom is the sum's own canonical expression (`poly_to_expr` of its normal form scaled to first
coefficient 1), so outside the normalizer (to_expr, evaluation, Z3) t *is* the sum and nothing downstream
knows about atoms; two sums equal up to normalization are one atom, whatever order each kernel added in.

Forms with atoms are not canonical: Σ(x_i − t/C)² keeps −(2t/C²)·Σx_i where E[x²] − (t/C)² has −t²/C².
`equal` decides equality modulo the definitions t = L: the difference D of the two forms is reduced by
eliminating one *pivot* per atom, a leaf (or earlier atom) p that the definition holds in one monomial c·p
and nowhere else, replaced by (t − (L − c·p))/c; an atom without a pivot (a sum of products) is replaced
by its sum. Each replacement has the value of what it replaces, so a D that reduces to the zero polynomial
is zero (rule shared-pivot; sound for any definition). Atoms are registered in order and each definition
is reduced by the atoms before it, so the substitutions are triangular: the reduction is the isomorphism
k[x, t]/(t − L) ≅ k[x without pivots, t], and within its budget the test is also complete (opaque atoms
such as max or sqrt are taken as free, as in every normal form). Only monomials that hold a pivot change,
so the cost follows the difference, not the expansion.

Atoms over such forms (sqrt(var + eps)) are unified the same way (`representative`): an atom whose
arguments equal an earlier same-operator atom's modulo the definitions is that atom (congruence). A
fingerprint — each argument's value modulo the prime 2^61 − 1 at a pseudo-random point, every shared atom
valued by its definition — finds the candidates: equal arguments always share it, so it only selects; the
exact reduction decides.
"""
from __future__ import annotations

import hashlib
from fractions import Fraction

from volta.symbolic import expr as E
from volta.symbolic.expr import Expr
from volta.symbolic.normal import (EXP_POLYS, UNIT, NormalForm, Poly, cross_difference, equal, p_add, p_mul,
                                   p_scale, poly_to_expr)

WIDE = 16                 # terms: a sum at least this long, used more than once, becomes an atom
PRIME = (1 << 61) - 1     # fingerprints are values modulo this prime
REDUCE_BUDGET = 400_000   # monomial products one reduction may make before it gives up (not decided)


class _NoPrint(Exception):
    """A coefficient or divisor that is not invertible modulo PRIME: no fingerprint (nothing is unified)."""


def _hash(*parts) -> int:
    """A deterministic pseudo-random residue for a leaf or an opaque operator application."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % PRIME


def _residue(c) -> int:
    c = Fraction(c)
    if c.denominator % PRIME == 0:
        raise _NoPrint
    return c.numerator * pow(c.denominator, -1, PRIME) % PRIME


def _linear_term(leaf: int) -> tuple:
    return (((leaf, 1),), 0)


class SharedTerms:
    """The shared-sum atoms of one check: their definitions, the pivots that eliminate them, and the opaque
    atoms built over forms that contain them (for unification). Passed to `Normalizer(shared=...)`."""

    def __init__(self, wide: int = WIDE) -> None:
        self.wide = wide                          # terms: a sum this long, used twice or more, becomes an atom
        self.definitions: dict[int, Poly] = {}   # atom node id -> its sum's normal form (first coefficient 1)
        self.pivots: list[tuple[int, Poly]] = []   # (pivot leaf or atom id, its value (t − rest)/c), in order
        self.expanded: dict[int, Poly] = {}       # atom id without a pivot -> its reduced sum
        self._by_poly: dict[frozenset, Expr] = {}
        self._atoms: dict[tuple, list] = {}      # (op, data, argument fingerprints) -> [(atom, argument forms)]
        self._prints: dict[int, int] = {}        # node id -> fingerprint of its value
        self._totals: dict[Expr, bool] = {}       # node -> no partial operation in it (E.is_total)

    # ------------------------------------------------------------ atoms for shared sums

    def abstract(self, nf: NormalForm) -> tuple[NormalForm, Expr | None]:
        """(c·t, t) for a sum of at least `wide` terms (t its atom, made on first sight), else (nf, None)."""
        if nf.den is not None or len(nf._num) < self.wide:
            return nf, None
        num = nf.num   # (a pending scale, even a constant one, is multiplied in)
        lead = num[min(num)]
        body = num if lead == 1 else p_scale(num, Fraction(1) / lead)
        key = frozenset(body.items())
        atom = self._by_poly.get(key)
        if atom is None:
            atom = E.pin(poly_to_expr(body))   # (normal forms name it by id)
            self._by_poly[key] = atom
            if atom.id not in self.definitions:
                self._register(atom, dict(body))
        return NormalForm({_linear_term(atom.id): lead}), atom

    def _register(self, atom: Expr, body: Poly) -> None:
        """Record t = body. When the body, reduced by the atoms before it, holds a leaf or an earlier atom
        linearly and nowhere else (a free generator), that one becomes t's pivot; otherwise t is replaced
        by its reduced body wherever a difference holds it (expanded, as without atoms)."""
        self.definitions[atom.id] = body
        reduced = self.reduce(body)
        if reduced is None:
            return   # (t stays a free generator: comparisons that need its definition are not decided)
        counts: dict[int, int] = {}
        for factors, _e in reduced:
            for leaf, _k in factors:
                counts[leaf] = counts.get(leaf, 0) + 1
        for leaf in sorted(counts):
            c = reduced.get(_linear_term(leaf))
            if c is not None and counts[leaf] == 1 and (E.NODES[leaf].op in (E.VAR, E.SYM) or
                                                         leaf in self.definitions):
                rest = {m: v for m, v in reduced.items() if m != _linear_term(leaf)}
                inv = Fraction(1) / c
                self.pivots.append((leaf, p_add({_linear_term(atom.id): inv}, p_scale(rest, -inv))))
                return
        self.expanded[atom.id] = reduced

    # ------------------------------------------------------------ equality modulo the definitions

    def reduce(self, p: Poly, budget: int = REDUCE_BUDGET) -> Poly | None:
        """p with every atom without a pivot replaced by its reduced sum, then every pivot by its value in
        atoms and other leaves, in the order they were made (the same value wherever each atom is its
        sum); None when that would take more than `budget` monomial products."""
        left = [budget]
        for leaf in {f for factors, _e in p for f, _k in factors if f in self.expanded}:
            p = _substitute(p, leaf, self.expanded[leaf], left)
            if p is None:
                return None
        present = {f for factors, _e in p for f, _k in factors}
        for leaf, replacement in self.pivots:
            if leaf in present:
                p = _substitute(p, leaf, replacement, left)
                if p is None:
                    return None
                present = {f for factors, _e in p for f, _k in factors}
        return p

    def equal(self, a: NormalForm, b: NormalForm) -> bool:
        """a = b wherever both are defined, proved by equal normal forms or by a difference that reduces to
        zero modulo the atoms' definitions (rule shared-pivot); False: not proved here."""
        if equal(a, b):
            return True
        if not self.pivots and not self.expanded:
            return False
        try:
            if self.fingerprint(a) != self.fingerprint(b):
                return False   # (equal values always have equal fingerprints)
        except _NoPrint:
            pass
        sizes = len(a.num) * len(b.den or UNIT_POLY) + len(b.num) * len(a.den or UNIT_POLY)
        if sizes > REDUCE_BUDGET:
            return False
        difference, _, _ = cross_difference(a, b)
        reduced = self.reduce(difference)
        return reduced is not None and not reduced

    # ------------------------------------------------------------ atoms over forms with shared sums

    def find(self, op, data, args: tuple[NormalForm, ...]) -> Expr | None:
        """The atom recorded for `op` (and `data`) whose arguments equal `args` modulo the definitions
        (rule congruence: then it is the same value), or None. Only polynomial arguments without partial
        operations take part: those are defined everywhere, so the atom found is defined where this one is."""
        if not all(self._total(a) for a in args):
            return None
        try:
            key = (op, data, tuple(self.fingerprint(a) for a in args))
        except _NoPrint:
            return None
        for other, other_args in self._atoms.get(key, ()):
            if all(self.equal(x, y) for x, y in zip(args, other_args)):
                return other
        return None

    def representative(self, atom: Expr, args: tuple[NormalForm, ...]) -> Expr:
        """`find` for the atom's operator and arguments; when there is none, `atom` itself, recorded."""
        found = self.find(atom.op, atom.data, args)
        if found is not None or not all(self._total(a) for a in args):
            return found or atom
        try:
            key = (atom.op, atom.data, tuple(self.fingerprint(a) for a in args))
        except _NoPrint:
            return atom
        kept = tuple(NormalForm(dict(a.num), None if a.den is None else dict(a.den)) for a in args)
        self._atoms.setdefault(key, []).append((atom, kept))
        return atom

    def _total(self, nf: NormalForm) -> bool:
        """A polynomial whose factors and exponents hold no partial operation: defined everywhere."""
        if nf.den is not None:
            return False
        polys = [nf.num]
        while polys:
            for (factors, e), _c in polys.pop().items():
                if not all(E.is_total(E.NODES[leaf], self._totals) for leaf, _k in factors):
                    return False
                if e:
                    polys.append(EXP_POLYS[e])
        return True

    # ------------------------------------------------------------ fingerprints

    def fingerprint(self, nf: NormalForm) -> int:
        """nf's value modulo PRIME at the pseudo-random point (raises _NoPrint where it has none)."""
        value = self._print_poly(nf.num)
        if nf.den is None:
            return value
        den = self._print_poly(nf.den)
        if den == 0:
            raise _NoPrint
        return value * pow(den, -1, PRIME) % PRIME

    def _print_poly(self, p: Poly) -> int:
        total = 0
        for (factors, e), c in p.items():
            v = _residue(c)
            for leaf, k in factors:
                v = v * pow(self._print_node(E.NODES[leaf]), k, PRIME) % PRIME
            if e:
                v = v * _hash("exp2", self._print_poly(EXP_POLYS[e])) % PRIME
            total += v
        return total % PRIME

    def _print_node(self, root: Expr) -> int:
        """The fingerprint of an expression, structurally: + and · as in the field, a shared atom as its
        definition, exp2 and every other operator as a hash of its arguments' fingerprints."""
        memo = self._prints
        hit = memo.get(root.id)
        if hit is not None:
            return hit
        for node in E.postorder(root, _IdView(memo)):
            op = node.op
            if node.id in self.definitions:
                v = self._print_poly(self.definitions[node.id])
            elif op is E.CONST:
                v = _residue(node.data)
            elif op is E.ADD:
                v = (memo[node.args[0].id] + memo[node.args[1].id]) % PRIME
            elif op is E.MUL:
                v = memo[node.args[0].id] * memo[node.args[1].id] % PRIME
            elif op is E.EXP2:
                v = _hash("exp2", memo[node.args[0].id])
            elif op is E.DIV and memo[node.args[1].id]:
                v = memo[node.args[0].id] * pow(memo[node.args[1].id], -1, PRIME) % PRIME
            else:
                args = [memo[c.id] for c in node.args]
                if op in E.COMMUTATIVE:
                    args.sort()
                v = _hash(int(op), node.data, tuple(args))
            memo[node.id] = v
        return memo[root.id]


UNIT_POLY = {UNIT: 1}


def _substitute(p: Poly, leaf: int, value: Poly, budget: list) -> Poly | None:
    """p with the factor `leaf` replaced by the polynomial `value`; budget[0] counts down the monomial
    products made (None once it is spent)."""
    out: Poly = {}
    holding = []
    for m, c in p.items():
        k = next((k for f, k in m[0] if f == leaf), 0)
        if k:
            holding.append((m, c, k))
        else:
            out[m] = c
    powers = {1: value}
    for (factors, e), c, k in holding:
        while k not in powers:
            top = max(powers)
            budget[0] -= len(powers[top]) * len(value)
            if budget[0] < 0:
                return None
            powers[top + 1] = p_mul(powers[top], value)
        budget[0] -= len(powers[k])
        if budget[0] < 0:
            return None
        p_add(out, p_mul({(tuple(f for f in factors if f[0] != leaf), e): c}, powers[k]), into=True)
    return out


class _IdView:
    """`node in view` for a dict keyed by node id (E.postorder's `done`)."""

    __slots__ = ("ids",)

    def __init__(self, ids: dict) -> None:
        self.ids = ids

    def __contains__(self, node: Expr) -> bool:
        return node.id in self.ids
