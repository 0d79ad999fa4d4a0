"""Constants and special functions read as the real numbers and functions they stand for, on both sides.

Over the reals a kernel's `0.7978845608f` is a rational, while the reference's `F.gelu(approximate="tanh")`
scales by sqrt(2/pi) exactly (`kernelbench/reals.py`); `expf(x)` is 2^(x·c) with c log2(e) rounded to float32
(0f3FB8AA3B, plus the correction 0f32A57060 inside `expf`), while the reference's exp is 2^(x·L) with L =
log2(e); libdevice's `erff` and `tanhf` are piecewise approximations, the reference's erf and tanh the real
functions. Left as they are, every correct GELU, softmax or sigmoid kernel would differ from its reference by
the rounding of one constant. So, in the outputs of both sides before they are compared:

- a constant equal to the float32 or float64 rounding of one of the named constants of
  volta/symbolic/constants.py (log2 e, ln 2, pi, 1/pi, sqrt 2, 1/sqrt 2, sqrt(2/pi), 2/sqrt pi, 1/sqrt(2 pi),
  e, ln 10, ...: the one table `volta check` reads PTX literals by, each word proved) is read as that number;
- the argument of 2^(...), tanh, erf, sqrt or rsqrt whose every coefficient is a plain multiple (a power-of-two
  denominator) of one such rounding c, as the machine leaves `x * c` distributed over a sum, is read as the exact
  constant times the rest (`expf`'s split log2(e), hi + lo, is one of the roundings);
- a call of `__volta_erf` / `__volta_tanh` (what the stand-in headers make of `erff`/`erf`/`tanhf`/`tanh` in
  device code: `host/include/volta/core.h`) is read as erf / tanh;
- `rcp.approx(y)` (`1.0f / y` and `__frcp_rn`-style reciprocals under `--use_fast_math`) is read as 1/y, the
  value exact evaluation already gives it (`symbolic/evaluate.py`).

A truncated constant (`0.7978845f`, `0.0447f`) is no rounding of any of them and stays what it is: the
difference it makes is real, and reported. Reports say which readings were applied (`Readings.note`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd

import numpy as np

from volta.kernelbench import reals
from volta.symbolic import expr as E
from volta.symbolic.constants import TABLE
from volta.symbolic.ringform import RingForms


def _f32(word: int) -> Fraction:
    return Fraction(float(np.frombuffer(word.to_bytes(4, "little"), np.float32)[0]))


def _f64(word: int) -> Fraction:
    return Fraction(float(np.frombuffer(word.to_bytes(8, "little"), np.float64)[0]))


def _table() -> dict:
    """rational value -> (name, exact expression) for the float values a compiler or torch may hold for a named
    constant of volta/symbolic/constants.py's TABLE (its words proved by proofs/named_constants.py): RN32 and
    RN64, RN32 of RN64 (a Python math constant converted to float32), and RN32's hi + lo split (`expf`'s
    log2 e: 0f3FB8AA3B + 0f32A57060)."""
    table = {}
    for row in TABLE:
        hi32, hi64 = _f32(row.f32), _f64(row.f64)
        for rounded in (hi32, hi64, Fraction(float(np.float32(float(hi64)))), hi32 + _f32(row.f32_lo)):
            table.setdefault(rounded, (row.name, row.value))
    return table


CONSTANTS = _table()
# what the stand-in headers make of libdevice's functions in device code (host/include/volta/core.h), read as
# the real functions the reference's torch ops build (kernelbench/reals.py, torchsym/pointwise.py)
FUNCTIONS = {
    "__volta_erf": ("erf", 1, lambda a: E.call("erf", a)),
    "__volta_tanh": ("tanh", 1, E.tanh),
    "__volta_log_e": ("log", 1, reals.log),
    "__volta_log_1p": ("log1p", 1, lambda a: reals.log(E.add(a, E.ONE))),
    "__volta_log_2": ("log2", 1, E.lg2),
    "__volta_log_10": ("log10", 1, lambda a: E.div(E.lg2(a), E.lg2(E.const(10)))),
    "__volta_expm1": ("expm1", 1, lambda a: E.sub(reals.exp(a), E.ONE)),
    # a constant exponent as torch.pow reads it (x**3 is x·x·x, defined for negative x too), else e^(b·ln a)
    "__volta_pow": ("pow", 2, lambda a, b: reals.power(a, b.data) if b.op is E.CONST
                    else reals.exp(E.mul(b, reals.log(a)))),
}
UNARY = (E.EXP2, E.TANH, E.CALL, E.SQRT, E.RSQRT)   # atoms whose argument may carry a distributed constant


MANTISSAS = tuple({abs(c.numerator) >> ((abs(c.numerator) & -abs(c.numerator)).bit_length() - 1)
                   for c in CONSTANTS})   # their odd parts


def _shares_mantissa(q: Fraction) -> bool:
    """Whether q's numerator has a factor in common with a rounded irrational's odd mantissa: a coefficient
    that is a plain multiple of the constant needs one (the mantissas are odd numbers of ~24 or ~53 bits)."""
    n = abs(q.numerator)
    return n > 1 and any(gcd(n, m) > 1 for m in MANTISSAS)


def _plain(q: Fraction) -> bool:
    """A ratio a float computation produces from ordinary constants: a power-of-two denominator."""
    d = q.denominator
    return d & (d - 1) == 0 and abs(q.numerator) < (1 << 64)


@dataclass
class Readings:
    """Applies the readings (memoized by node) and remembers which ones changed something."""

    read: set = field(default_factory=set)
    _memo: dict = field(default_factory=dict)
    _forms: RingForms = field(default_factory=RingForms)

    def note(self) -> str | None:
        if not self.read:
            return None
        return "read as what they stand for, on both sides: " + "; ".join(sorted(self.read))

    def apply(self, e):
        if not isinstance(e, E.Expr):
            return e
        memo = self._memo
        if e in memo:
            return memo[e]
        for node in E.postorder(e, memo):
            memo[node] = self._node(node)
        return memo[e]

    def _node(self, node):
        if node.op is E.CONST:
            hit = CONSTANTS.get(node.data)
            if hit is None:
                return node
            self.read.add(f"{hit[0]} (a float rounding of it)")
            return hit[1]
        if not node.args:
            return node
        args = tuple(self._memo[c] for c in node.args)
        if node.op is E.RCP_APPROX:
            self.read.add("rcp.approx (fast-math 1/x, read as the reciprocal)")
            return E.div(1, args[0])
        if node.op in UNARY and len(args) == 1:
            # the argument as the kernel wrote it first: expf's split log2(e), x*hi + x*lo, is one rounding
            # only while hi is still a constant (reading hi alone as log2(e) would leave x*lo behind)
            raw = self._scaled(node.args[0])
            args = (self.apply(raw),) if raw is not node.args[0] else (self._scaled(args[0]),)
        if node.op is E.CALL:
            for prefix, (name, arity, make) in FUNCTIONS.items():
                if prefix in node.data and len(args) == arity:
                    self.read.add(f"{name} (libdevice's {name}f, read as the real function)")
                    return make(*args)
        return E.rebuild(node, args) if args != node.args else node

    def _scaled(self, arg):
        """An atom's argument whose every coefficient is a plain multiple of one rounded constant c (the
        machine distributes `x * c` over a sum: c·x1 + c·x2 + ...) as c's exact value times the rest."""
        if not any(n.op is E.CONST and _shares_mantissa(n.data) for n in E.postorder(arg)):
            return arg   # no constant of the argument carries a rounded irrational's mantissa: nothing to read
        form = self._forms.of(arg)
        if not form:
            return arg
        coefficients = [Fraction(k) for k in form.values()]
        for rounded, (name, exact) in CONSTANTS.items():
            if all(_plain(k / rounded) for k in coefficients):
                self.read.add(f"{name} (a float rounding of it)")
                rest = self._forms.expression({m: Fraction(k) / rounded for m, k in form.items()})
                return E.mul(exact, rest)
        return arg
