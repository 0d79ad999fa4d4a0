"""Answers of the decision procedure, as values (no solver types leak out of z3bridge)."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from volta.symbolic.expr import Expr


@dataclass(frozen=True)
class Proved:
    """a = b for every input where both are defined. `how`: 'normal-form' or 'z3'."""

    how: str = "normal-form"


@dataclass(frozen=True)
class Refuted:
    """Inputs on which the two expressions differ.

    `confirmed` is True when exact rational evaluation of both expressions on `model` gave two
    different values (`values`); otherwise the model is a solver's candidate (e.g. it needed an
    irrational 2^x) and the caller must confirm it by concrete replay before reporting it.
    """

    model: dict[Expr, Fraction]
    confirmed: bool
    values: tuple = field(default=())


@dataclass(frozen=True)
class Unknown:
    """Nothing is claimed: solver timeout, incompleteness, or an unconfirmable model."""

    reason: str


Verdict = Proved | Refuted | Unknown
