"""Constants and special functions read as the real numbers and functions they stand for, on both sides.

Over the reals a kernel's `0.7978845608f` is a rational, while the reference's `F.gelu(approximate="tanh")`
scales by sqrt(2/pi) exactly (`kernelbench/reals.py`); `expf(x)` is 2^(x·c) with c log2(e) rounded to float32
(0f3FB8AA3B, plus the correction 0f32A57060 inside `expf`), while the reference's exp is 2^(x·L) with L =
log2(e); libdevice's `erff` and `tanhf` are piecewise approximations, the reference's erf and tanh the real
functions. Left as they are, every correct GELU, softmax or sigmoid kernel would differ from its reference by
the rounding of one constant. So, in the outputs of both sides before they are compared:

- a constant equal to the float32 or float64 rounding of one of `IRRATIONALS` (log2(e), ln 2, pi, 1/pi,
  sqrt(2), sqrt(1/2), sqrt(2/pi), 2/sqrt(pi), 1/sqrt(2 pi)) is read as that number;
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

from mpmath import mp

from volta.kernelbench.reals import LOG2E, PI
from volta.symbolic import expr as E
from volta.symbolic.ringform import RingForms

LOG2E_F32_LOW = Fraction(338819, 17592186044416)  # 0f32A57060: expf's correction to log2(e) rounded


def _irrationals() -> dict:
    """name -> (exact expression, its value as an mpmath number)."""
    with mp.workprec(200):
        return {
            "log2(e)": (LOG2E, 1 / mp.log(2)),
            "ln(2)": (E.div(1, LOG2E), mp.log(2)),
            "pi": (PI, mp.pi),
            "1/pi": (E.div(1, PI), 1 / mp.pi),
            "sqrt(2)": (E.sqrt(2), mp.sqrt(2)),
            "sqrt(1/2)": (E.sqrt(Fraction(1, 2)), mp.sqrt(mp.mpf(1) / 2)),
            "sqrt(2/pi)": (E.sqrt(E.div(2, PI)), mp.sqrt(2 / mp.pi)),
            "2/sqrt(pi)": (E.div(2, E.sqrt(PI)), 2 / mp.sqrt(mp.pi)),
            "1/sqrt(2 pi)": (E.rsqrt(E.mul(2, PI)), 1 / mp.sqrt(2 * mp.pi)),
        }


def _roundings(value) -> set:
    """The float32 and float64 values a compiler or torch may hold for `value`: each correctly rounded, and
    float32 rounded from the float64 (a Python math constant converted to float32)."""
    out = set()
    with mp.workprec(53):
        f64 = +value
        out.add(_fraction(f64))
    with mp.workprec(24):
        out.add(_fraction(+value))
        out.add(_fraction(+f64))
    return out


def _fraction(x) -> Fraction:
    man, exp = x.man_exp
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def _table() -> dict:
    table = {}
    for name, (expr, value) in _irrationals().items():
        for rounded in _roundings(value):
            table[rounded] = (name, expr)
    table[_fraction_sum()] = ("log2(e)", LOG2E)   # expf's hi + lo split of log2(e)
    return table


def _fraction_sum() -> Fraction:
    with mp.workprec(24):
        return _fraction(+(1 / mp.log(2))) + LOG2E_F32_LOW


CONSTANTS = _table()
FUNCTIONS = {"__volta_erf": ("erf", lambda a: E.call("erf", a)), "__volta_tanh": ("tanh", E.tanh)}
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
            for prefix, (name, make) in FUNCTIONS.items():
                if prefix in node.data and len(args) == 1:
                    self.read.add(f"{name} (libdevice's {name}f, read as the real function)")
                    return make(args[0])
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
