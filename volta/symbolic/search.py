"""Looking for inputs on which two expressions differ, in exact arithmetic.

Small integers first, then simple fractions (a user can read them and replay them), then a
Z3 model of the residue. Only exact rational evaluation confirms a difference; a point where
evaluation is inexact (2^(1/3)) or undefined (x/0) is skipped, never guessed.
"""
from __future__ import annotations

import random
from fractions import Fraction
from typing import Iterable, Sequence

from volta.symbolic import expr as E
from volta.symbolic.evaluate import EvalError, evaluate
from volta.symbolic.expr import Expr
from volta.symbolic.verdict import Proved, Refuted, Unknown

SMALL = [Fraction(v) for v in (0, 1, -1, 2, -2, 3)]


def inputs_of(*roots: Expr) -> list[Expr]:
    """The VAR and SYM leaves of the roots, in a stable order."""
    seen: dict[Expr, None] = {}
    for r in roots:
        for leaf in E.leaves(r):
            seen.setdefault(leaf, None)
    return sorted(seen, key=lambda n: (n.op, str(n.data)))


def confirm(a: Expr, b: Expr, model: dict[Expr, Fraction]) -> Refuted:
    """Refuted(model), confirmed iff exact evaluation of a and b on model gives different values."""
    env = {leaf: model.get(leaf, Fraction(0)) for leaf in inputs_of(a, b)}
    try:
        va, vb = evaluate(a, env), evaluate(b, env)
    except EvalError:
        return Refuted(env, confirmed=False)
    return Refuted(env, confirmed=va != vb, values=(va, vb) if va != vb else ())


def _candidates(n: int, rng: random.Random, tries: int) -> Iterable[list[Fraction]]:
    yield [Fraction(0)] * n
    yield [Fraction(1)] * n
    for _ in range(tries // 2):
        yield [rng.choice(SMALL) for _ in range(n)]
    for _ in range(tries - tries // 2):
        yield [Fraction(rng.randint(-7, 7), rng.randint(1, 4)) for _ in range(n)]


def random_search(a: Expr, b: Expr, variables: Sequence[Expr] | None = None, tries: int = 200,
                  seed: int = 0) -> Refuted | None:
    """A confirmed Refuted from small random inputs, or None."""
    variables = list(variables) if variables is not None else inputs_of(a, b)
    rng = random.Random(seed)
    for values in _candidates(len(variables), rng, tries):
        env = dict(zip(variables, values))
        try:
            va, vb = evaluate(a, env), evaluate(b, env)
        except EvalError:
            continue
        if va != vb:
            return Refuted(env, confirmed=True, values=(va, vb))
    return None


def find_distinguishing_input(a: Expr, b: Expr, variables: Sequence[Expr] | None = None,
                              timeout_ms: int = 5_000, tries: int = 200) -> Refuted | Proved | Unknown:
    """Inputs where a and b differ exactly: random small values, then a Z3 model.

    Returns Refuted(confirmed=True) when found; Proved when Z3 shows there is none;
    Refuted(confirmed=False) for a Z3 model that exact evaluation could not confirm; else Unknown.
    """
    found = random_search(a, b, variables, tries)
    if found is not None:
        return found
    from volta.symbolic.z3bridge import solver_model
    model = solver_model(a, b, timeout_ms)
    if isinstance(model, (Proved, Unknown)):
        return model
    return confirm(a, b, model)
