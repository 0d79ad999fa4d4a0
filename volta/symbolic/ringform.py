"""A fast sufficient test of equality: both expressions as polynomials over the same atoms.

`RingForms.of(e)` expands an expression in the commutative ring Q[atoms]: + and × (and constants) are
expanded into a dict from monomials to rational coefficients; every other node (a leaf, max, exp2, tanh, a
division, a comparison, ...) is an atom identified by its operator, data and the ring forms of its
arguments (sorted for commutative operators). Two expressions with equal forms are equal as real functions:
the expansion is exact polynomial arithmetic, and an atom is a function of its arguments' values. Unequal
forms say nothing (the full normalizer, random search and Z3 decide those: `equiv.check._compare`).

Why it exists: a symbolic reference and a kernel build the same GEMM or reduction with sums in different
orders and shapes, thousands of elements each with tens of terms; the general normalizer (ratios, 2^x,
case splits) costs milliseconds per element there, this a tenth of that. Forms are interned (atoms and
argument polynomials to small ints) and memoized by node for the life of a `RingForms`, so sub-DAGs shared
between elements are expanded once. A form larger than `max_terms` is refused (None), never truncated.

A product of two or more sums is not expanded when one of them has more than ABSTRACT_TERMS terms: such a
sum stays one atom identified by its whole form (up to a constant factor), so a GELU's x + 0.044715·x³ over a 64-term dot
product x costs 65 terms, not 45,000. This keeps the test sufficient (equal subterms, the same atom) and makes
it a little less complete (an identity that needs the expansion is left to the full decision).
"""
from __future__ import annotations

from fractions import Fraction

from volta.symbolic import expr as E

MAX_TERMS = 4096
ABSTRACT_TERMS = 16   # a factor this large in a product of non-constants is kept whole, as one atom


class RingForms:
    def __init__(self, max_terms: int = MAX_TERMS):
        self.max_terms = max_terms
        self._memo: dict = {}      # node -> form (dict monomial -> coefficient) or None (too large)
        self._atoms: dict = {}     # atom key -> small int
        self._polys: dict = {}     # frozen form -> small int (argument identities)
        self.atom_nodes: dict = {}  # atom id -> the first node seen with that identity

    def equal(self, a, b) -> bool:
        """True only when both have a form and the forms are equal (then a = b for every input)."""
        fa = self.of(a)
        if fa is None:
            return False
        fb = self.of(b)
        return fb is not None and fa == fb

    def of(self, e):
        """e's form: {monomial (sorted tuple of atom ids, with repeats): int or Fraction}, or None when too
        large. Nested sums are flattened (a left-folded sum of n terms costs n, not n²/2), and so are
        nested products; the walk is iterative (no recursion limit on deep expressions)."""
        if not isinstance(e, E.Expr):
            return None
        memo = self._memo
        if e in memo:
            return memo[e]
        operands: dict = {}
        order, stack = [], [(e, False)]
        while stack:
            node, ready = stack.pop()
            if ready:
                order.append(node)
                continue
            if node in memo or node in operands:
                continue
            ops = self._operands(node)
            operands[node] = ops
            stack.append((node, True))
            stack.extend((c, False) for c in ops if c not in memo and c not in operands)
        for node in order:
            memo[node] = self._node(node, operands[node])
        return memo[e]

    def _operands(self, node) -> list:
        """What a node's form is computed from: the summands of a nest of sums, the factors of a nest of
        products (stopping at nodes whose forms are known), else its arguments."""
        op = node.op
        if op is not E.ADD and op is not E.MUL:
            return list(node.args)
        out, stack, memo = [], list(node.args), self._memo
        while stack:
            n = stack.pop()
            if n.op is op and n not in memo:
                stack.extend(n.args)
            else:
                out.append(n)
        return out

    def _node(self, node, operands):
        memo = self._memo
        op = node.op
        if op is E.CONST:
            value = node.data
            if value.denominator == 1:
                value = int(value)
            return {(): value} if value != 0 else {}
        if op is E.ADD:
            out: dict = {}
            for c in operands:
                part = memo[c]
                if part is None:
                    return None
                for m, k in part.items():
                    v = out.get(m, 0) + k
                    if v:
                        out[m] = v
                    else:
                        out.pop(m, None)
                if len(out) > self.max_terms:
                    return None
            return out
        if op is E.MUL:
            parts = [memo[c] for c in operands]
            if any(p is None for p in parts):
                return None
            sums = [len(p) > 1 for p in parts]   # factors of more than one term
            if sum(sums) >= 2 and any(s and len(p) > ABSTRACT_TERMS for s, p in zip(sums, parts)):
                # (sum of 64 products)^3 would expand to ~45,000 terms: a large sum that multiplies another
                # sum stays one atom, identified by its whole form (x·x·x is a³ on both sides)
                parts = [self._whole(p, c) if s and len(p) > ABSTRACT_TERMS else p
                         for s, p, c in zip(sums, parts, operands)]
            out = {(): 1}
            for part in parts:
                if len(out) * len(part) > self.max_terms * 4:
                    return None
                out = _times(out, part)
                if len(out) > self.max_terms:
                    return None
            return out
        args = []
        for c in operands:
            part = memo[c]
            if part is None:
                return None
            args.append(self._poly_id(part))
        if op in E.COMMUTATIVE:
            args.sort()
        key = (int(op), node.data if op is not E.VAR and op is not E.SYM else node.id, tuple(args))
        atom = self._atoms.get(key)
        if atom is None:
            atom = self._atoms[key] = len(self._atoms)
            self.atom_nodes[atom] = node
        return {(atom,): 1}

    def expression(self, form: dict):
        """An expression whose form is `form` (a sum of coefficient × atoms, atoms as first seen)."""
        out = E.ZERO
        for monomial in sorted(form, key=lambda m: (len(m), m)):
            term = E.const(form[monomial])
            for atom in monomial:
                term = E.mul(term, self.atom_nodes[atom])
            out = E.add(out, term)
        return out

    def _whole(self, form: dict, node) -> dict:
        """A large polynomial as its leading coefficient times one atom identified by the polynomial divided by
        that coefficient (the same polynomial, or a multiple of it, is the same atom: 3·x·x is 3·a²)."""
        lead = form[min(form)]
        unit = {m: k / lead for m, k in form.items()}
        key = ("whole", self._poly_id(unit))
        atom = self._atoms.get(key)
        if atom is None:
            atom = self._atoms[key] = len(self._atoms)
            self.atom_nodes[atom] = E.mul(E.const(1 / Fraction(lead)), node)
        return {(atom,): lead}

    def _poly_id(self, form) -> int:
        key = frozenset(form.items())
        ident = self._polys.get(key)
        if ident is None:
            ident = self._polys[key] = len(self._polys)
        return ident


def _times(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ka in a.items():
        for mb, kb in b.items():
            m = tuple(sorted(ma + mb)) if ma and mb else ma or mb
            v = out.get(m, 0) + ka * kb
            if v:
                out[m] = v
            else:
                out.pop(m, None)
    return out
