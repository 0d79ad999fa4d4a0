"""Constants and special functions read as the real numbers and functions they stand for, on both sides.

Over the reals a kernel's `0.7978845608f` is a rational, while the reference's `F.gelu(approximate="tanh")`
scales by sqrt(2/pi) exactly (`kernelbench/reals.py`); `expf(x)` is 2^(x·c) with c log2(e) rounded to float32
(0f3FB8AA3B, plus the correction 0f32A57060 inside `expf`), while the reference's exp is 2^(x·L) with L =
log2(e); libdevice's `erff` and `tanhf` are piecewise approximations, the reference's erf and tanh the real
functions. Left as they are, every correct GELU, softmax or sigmoid kernel would differ from its reference by
the rounding of one constant. So, in the outputs of both sides before they are compared:

- a constant equal to the float32 or float64 rounding of one of `IRRATIONALS` (log2(e), ln 2, pi, 1/pi,
  sqrt(2), sqrt(1/2), sqrt(2/pi), 2/sqrt(pi), 1/sqrt(2 pi)) is read as that number;
- inside the exponent of a 2^(...), `expf`'s correction constant is read as 0 (with the rounded log2(e) read
  as L it completes `expf(x)` = e^x);
- a call of `__volta_erf` / `__volta_tanh` (what the stand-in headers make of `erff`/`erf`/`tanhf`/`tanh` in
  device code: `host/include/volta/core.h`) is read as erf / tanh.

A truncated constant (`0.7978845f`, `0.0447f`) is no rounding of any of them and stays what it is: the
difference it makes is real, and reported. Reports say which readings were applied (`Readings.note`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from mpmath import mp

from volta.kernelbench.reals import LOG2E, PI
from volta.symbolic import expr as E

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
    return table


CONSTANTS = _table()
FUNCTIONS = {"__volta_erf": ("erf", lambda a: E.call("erf", a)), "__volta_tanh": ("tanh", E.tanh)}


@dataclass
class Readings:
    """Applies the readings (memoized by node) and remembers which ones changed something."""

    read: set = field(default_factory=set)
    _memo: dict = field(default_factory=dict)

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
        if node.op is E.EXP2:
            args = (self._without_expf_correction(args[0]),)
        if node.op is E.MUL:
            folded = self._constant_factors(node, args)
            if folded is not None:
                return folded
        if node.op is E.CALL:
            for prefix, (name, make) in FUNCTIONS.items():
                if prefix in node.data and len(args) == 1:
                    self.read.add(f"{name} (libdevice's {name}f, read as the real function)")
                    return make(args[0])
        return E.rebuild(node, args) if args != node.args else node

    def _constant_factors(self, node, args):
        """A product whose constant factors (in nested products: a float constant is often split as
        m · 2^-k) multiply to a rounded irrational: that irrational times the other factors."""
        factors, stack = [], list(args)
        while stack:
            a = stack.pop()
            if a.op is E.MUL:
                stack.extend(a.args)
            else:
                factors.append(a)
        constants = [f for f in factors if f.op is E.CONST]
        if len(constants) < 2:
            return None
        product = Fraction(1)
        for c in constants:
            product *= c.data
        hit = CONSTANTS.get(product)
        if hit is None:
            return None
        self.read.add(f"{hit[0]} (a float rounding of it)")
        out = hit[1]
        for f in factors:
            if f.op is not E.CONST:
                out = E.mul(out, f)
        return out

    def _without_expf_correction(self, exponent):
        """The exponent with expf's low-order log2(e) constant as 0 (read after the rounded log2(e) is L)."""
        cache: dict = {}
        for node in E.postorder(exponent, cache):
            if node.op is E.CONST and node.data == LOG2E_F32_LOW:
                cache[node] = E.ZERO
            elif node.args:
                args = tuple(cache[c] for c in node.args)
                cache[node] = E.rebuild(node, args) if args != node.args else node
            else:
                cache[node] = node
        return cache[exponent]
