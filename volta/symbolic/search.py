"""Looking for inputs on which two expressions differ, in exact arithmetic.

Small integers first, then simple fractions (a user can read them and replay them), then a
Z3 model of the residue. Only exact rational evaluation confirms a difference; a point where
evaluation is inexact (2^(1/3)) or undefined (x/0) is skipped, never guessed.
"""
from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Iterable, Iterator, Sequence

from volta.config import NO_INTEGERS, IntegerInputs
from volta.symbolic import expr as E
from volta.symbolic.constants import is_named
from volta.symbolic.domain import ANY, Domain
from volta.symbolic.enclose import enclose
from volta.symbolic.evaluate import EvalError, Inexact, evaluate
from volta.symbolic.expr import Expr
from volta.symbolic.verdict import Refuted

SMALL = [Fraction(v) for v in (0, 1, -1, 2, -2, 3)]


def inputs_of(*roots: Expr) -> list[Expr]:
    """The VAR and SYM leaves of the roots, in a stable order: the inputs (a named constant such as log2 e is a
    SYM but not an input: it has its own value, volta/symbolic/constants.py)."""
    seen: dict[Expr, None] = {}
    for r in roots:
        for leaf in E.leaves(r):
            if not is_named(leaf):
                seen.setdefault(leaf, None)
    return sorted(seen, key=lambda n: (n.op, str(n.data)))


def confirm(a: Expr, b: Expr, model: dict[Expr, Fraction], domain: Domain = ANY,
            integers: IntegerInputs = NO_INTEGERS) -> Refuted:
    """Refuted(model rounded to the inputs' formats), confirmed iff exact evaluation of a and b there gives
    different values (and every element of an integer buffer is an integer there). A solver's model is rounded
    to nearest, then down and up (`Domain.variants`): the first rounding on which they differ is kept."""
    env = {leaf: model.get(leaf, Fraction(0)) for leaf in inputs_of(a, b)}
    refuted = Refuted(env, confirmed=False)
    for snapped in domain.variants(env):
        if not admissible(snapped, integers):
            continue
        try:
            va, vb = values_at(a, b, snapped)
        except EvalError:
            continue
        if va != vb:
            return Refuted(snapped, confirmed=True, values=(va, vb))
        refuted = Refuted(snapped, confirmed=False)
    return refuted


def values_at(a: Expr, b: Expr, env) -> tuple:
    """a's and b's exact values on env; where one is irrational (sqrt, exp), certified enclosures of both,
    whose `!=` means *certainly* different. Raises EvalError when neither decides."""
    try:
        return evaluate(a, env), evaluate(b, env)
    except Inexact:
        return enclose(a, env), enclose(b, env)


def admissible(env, integers: IntegerInputs) -> bool:
    """Is every element of an integer buffer an integer of its dtype in env (a valid input of the kernels)?"""
    return all(v.denominator == 1 and _fits(leaf, v, integers)
               for leaf, v in env.items() if E.is_integer_leaf(leaf, integers))


def _fits(leaf, v, integers: IntegerInputs) -> bool:
    rng = E.integer_range(leaf, integers)
    return rng is None or rng[0] <= v <= rng[1]


def _candidates(variables: Sequence[Expr], rng: random.Random, tries: int,
                integers: IntegerInputs) -> Iterable[list[Fraction]]:
    n = len(variables)
    integral = [E.is_integer_leaf(v, integers) for v in variables]
    yield [Fraction(0)] * n
    yield [Fraction(1)] * n
    yield [Fraction(-1)] * n   # every input negative: a max seeded with 0 instead of -inf (or INT_MIN) shows
    ends = [E.integer_range(v, integers) if whole else None for v, whole in zip(variables, integral)]
    if any(ends):   # integer inputs at the ends of their dtype: where a sum wraps or a comparison saturates
        for pick in (1, 0):
            yield [Fraction(e[pick]) if e else Fraction(1) for e in ends]
        for _ in range(tries // 4):
            yield [Fraction(rng.choice((e[0], e[0] + 1, e[1] - 1, e[1], 0, 1, -1 if e[0] < 0 else 2)))
                   if e else rng.choice(SMALL) for e in ends]
    for _ in range(tries // 2):
        yield [rng.choice(SMALL) for _ in range(n)]
    for _ in range(tries - tries // 2):
        yield [Fraction(rng.randint(-7, 7), 1 if whole else rng.randint(1, 4)) for whole in integral]


def exp2_scales(*roots: Expr) -> list[Fraction]:
    """1/c for each constant c multiplying inside a 2^(…) argument (`__expf` is 2^(x·log2e)).

    Inputs that are integer multiples of 1/c make those exponents integers, so both kernels'
    outputs evaluate exactly and a difference can be confirmed rather than guessed.
    """
    scales: list[Fraction] = []
    linear: dict = {}
    done: set = set()
    for root in roots:   # first: the coefficients of the inputs in each exponent, read as a linear form
        for node in E.postorder(root):
            if node.op != E.EXP2 or node.args[0] in done:
                continue
            done.add(node.args[0])
            form = _linear_form(node.args[0], linear)
            for leaf, c in (form or {}).items():
                if leaf is not None and leaf.op in (E.VAR, E.SYM) and c not in (0, 1, -1):
                    scale = 1 / abs(Fraction(c))
                    if scale not in scales:
                        scales.append(scale)
            if len(scales) >= 4:
                return scales
    if scales:
        return scales
    for root in roots:
        for node in E.postorder(root):
            if node.op != E.EXP2:
                continue
            for inner in E.postorder(node.args[0]):
                if inner.op == E.MUL:
                    for arg in inner.args:
                        if arg.op == E.CONST and arg.data not in (0, 1, -1):
                            scale = 1 / abs(arg.data)
                            if scale not in scales:
                                scales.append(scale)
    return scales[:4]


def _linear_form(root: Expr, memo: dict, limit: int = 64):
    """root as {leaf or atom: coefficient, None: constant} when it is linear in its leaves and atoms
    (through + and multiplication by constants), else None. Cheap: no normalization, memoized."""
    for n in E.postorder(root, memo):
        op = n.op
        if op is E.CONST:
            form = {None: n.data}
        elif op is E.ADD:
            fa, fb = memo[n.args[0]], memo[n.args[1]]
            if fa is None or fb is None:
                form = None
            else:
                form = dict(fa)
                for k, v in fb.items():
                    form[k] = form.get(k, 0) + v
                if len(form) > limit:
                    form = None
        elif op is E.MUL:
            fa, fb = memo[n.args[0]], memo[n.args[1]]
            ca = fa.get(None) if fa is not None and len(fa) == 1 else None
            cb = fb.get(None) if fb is not None and len(fb) == 1 else None
            if ca is not None and fb is not None:
                form = {k: v * ca for k, v in fb.items()}
            elif cb is not None and fa is not None:
                form = {k: v * cb for k, v in fa.items()}
            else:
                form = {n: 1}
        elif op in E.BOOLEAN:
            form = None
        else:
            form = {n: 1}   # a leaf, or an atom taken as one
        memo[n] = form
    return memo[root]


def random_search(a: Expr, b: Expr, variables: Sequence[Expr] | None = None, tries: int = 200,
                  seed: int = 0, domain: Domain = ANY, integers: IntegerInputs = NO_INTEGERS) -> Refuted | None:
    """A confirmed Refuted from small random inputs (also scaled to make exponents exact), each rounded to its
    input's format (`domain`), or None.

    Scaled inputs alternate with plain ones, scaled first: scaling by 64 (a mean's 1/64 inside an exp) sends
    every GELU argument far out, where an erf GELU and a tanh-approximate one agree to more digits than their
    enclosures resolve, so 60 scaled tries told apart what a plain small input does at once."""
    variables = list(variables) if variables is not None else inputs_of(a, b)
    rng = random.Random(seed)
    scales = exp2_scales(a, b)
    candidates = _candidates(variables, rng, tries, integers)
    if scales:
        scaled = ([v * scales[i % len(scales)] if vi.op == E.VAR and not E.is_integer_leaf(vi, integers) else v
                   for v, vi in zip(vals, variables)]
                  for i, vals in enumerate(_candidates(variables, rng, tries, integers)))
        candidates = itertools.islice(_alternate(scaled, candidates), tries)
    for values in candidates:
        env = domain.snap(dict(zip(variables, values)))
        if not admissible(env, integers):   # -1 for an unsigned element: not an input the kernels can be given
            continue
        try:
            va, vb = values_at(a, b, env)
        except EvalError:
            continue
        if va != vb:
            return Refuted(env, confirmed=True, values=(va, vb))
    return None


def _alternate(first: Iterable, second: Iterable) -> Iterator:
    """One of `first`, one of `second`, and so on; the rest of the longer one once the other ends."""
    for pair in itertools.zip_longest(first, second, fillvalue=_NONE):
        yield from (x for x in pair if x is not _NONE)


_NONE = object()
