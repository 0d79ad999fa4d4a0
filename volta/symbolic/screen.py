"""A float screen before any normal form: both outputs in float64 at random inputs of several scales, and the
points where they part most confirmed exactly (issue 28 §2).

A tanh-GELU against an erf-GELU over a 32-term dot product differs almost everywhere, by up to 1e-3 relative,
but only where the dot product is of order 1: at small integers it is tens, and both GELUs are 1 - 1e-40 or so of
it (no certified enclosure tells them apart); and normalizing libdevice's erff polynomial of a 32-term sum can
take minutes. So before any normal form is built, every output element pair is evaluated in float64 (numpy,
all points at once) at 34 input points: every input 1, every input -1, then 8 draws of small halves (-3 .. 3)
for each input at scales 1, 1/4, 1/16 and 1/64 (dyadic, so every value is an f32/f16/bf16; integer inputs stay
small integers). Points where the relative difference exceeds `THRESHOLD` (float64's own error on these
expressions is far below it) are candidates: first the earliest point (the simplest inputs) that parts by
10% or by half the largest difference seen, then the others by decreasing difference. Exact evaluation (rationals,
or certified enclosures where a value is irrational, `search.values_at`) must confirm each; a float difference
alone is never a verdict. The first confirmed candidate is the witness.

Values of the input leaves depend only on the leaf (a hash of its buffer and index) and the point, so one
`Screen` serves every element of a check and memoizes each shared node's values (bounded: `MEMO_MAX`).
"""
from __future__ import annotations

import math
import zlib
from fractions import Fraction

import numpy as np

from volta.symbolic import expr as E
from volta.symbolic.constants import BaseValue, is_named
from volta.config import NO_INTEGERS, IntegerInputs
from volta.symbolic.domain import ANY, Domain, round_to
from volta.symbolic.evaluate import EvalError
from volta.symbolic.search import admissible, inputs_of, values_at
from volta.symbolic.verdict import Refuted

SCALES = (1.0, 1 / 4, 1 / 16, 1 / 64)
DRAWS = 8                 # per scale; with the all-1 and all-(-1) points, 34 points in all
SPECIAL = (1, -1)
THRESHOLD = 1e-10         # relative float64 difference worth an exact look
CONFIRM = 3               # exact confirmations tried per element, largest difference first
CLEAR = 0.1               # a relative difference that needs no larger one: the simplest such point is the witness
MEMO_MAX = 200_000        # nodes whose values are kept across elements


class Screen:
    """Float64 values of expressions at the screen's points, memoized across the elements of one check."""

    def __init__(self, domain: Domain = ANY, integers: IntegerInputs = NO_INTEGERS) -> None:
        self.domain = domain
        self.integers = integers   # integer inputs take integer values in their ranges (volta/config.py)
        self.memo: dict = {}
        self.leaves: dict = {}   # input leaf -> its values (kept when `memo` is cleared: a draw costs ~25 us a leaf)
        self.points = len(SPECIAL) + len(SCALES) * DRAWS

    def search(self, a: E.Expr, b: E.Expr) -> Refuted | None:
        """A confirmed Refuted at the simplest point where a and b part clearly in float64 (else where they part
        most), or None."""
        if len(self.memo) > MEMO_MAX:
            self.memo.clear()
        with np.errstate(all="ignore"):
            va, vb = self._values(a), self._values(b)
            big = np.maximum(np.abs(va), np.abs(vb))
            rel = np.where(big > 0, np.abs(va - vb) / np.where(big > 0, big, 1), 0.0)
        rel = np.where(np.isfinite(va) & np.isfinite(vb), rel, 0.0)
        order = [int(k) for k in np.argsort(-rel, kind="stable")[:CONFIRM] if rel[k] > THRESHOLD]
        if not order:
            return None
        clear = min(rel[order[0]] / 2, CLEAR)
        simplest = int(np.argmax(rel >= clear))   # the first point parting clearly: every input 1, often
        order = [simplest] + [k for k in order if k != simplest]
        leaves = inputs_of(a, b)
        for k in order:
            env = {leaf: Fraction(float(self._point_values(leaf)[k])) for leaf in leaves}
            if not admissible(env, self.integers):
                continue
            try:
                x, y = values_at(a, b, env)
            except EvalError:
                continue
            if x != y:
                return Refuted(env, confirmed=True, values=(x, y))
        return None

    # ---- float64 values of a DAG at every point ------------------------------------------------------------
    def _values(self, root: E.Expr) -> np.ndarray:
        memo = self.memo
        for node in E.postorder(root, memo):
            memo[node] = self._node(node, [memo[c] for c in node.args])
        return np.broadcast_to(np.asarray(memo[root], dtype=float), (self.points,))

    def _node(self, node: E.Expr, args: list):
        op = node.op
        if op is E.CONST:
            return _float(node.data)
        if op is E.BOOL:
            return bool(node.data)
        if op is E.VAR or op is E.SYM:
            return float(BaseValue(node.data)) if is_named(node) else self._point_values(node)
        f = _NUMPY.get(op)
        if f is None:   # an uninterpreted call: no value, so no point is worth an exact look
            return np.full(self.points, np.nan)
        return f(node, *args)

    def _point_values(self, leaf: E.Expr) -> np.ndarray:
        hit = self.leaves.get(leaf)
        if hit is None:
            hit = self.leaves[leaf] = self._leaf(leaf)
        return hit

    def _leaf(self, leaf: E.Expr) -> np.ndarray:
        """The input's value at every point: small halves times each scale (integers for integer inputs)."""
        key = repr(leaf.data).encode()
        rng = np.random.default_rng(zlib.crc32(key))
        base = rng.integers(-6, 7, DRAWS)
        if E.is_integer_leaf(leaf, self.integers):
            lo, hi = E.integer_range(leaf, self.integers) or (-3, 3)
            return np.clip(np.concatenate([SPECIAL, np.tile(base // 2, len(SCALES))]), lo, hi).astype(float)
        values = np.concatenate([SPECIAL, *(base / 2 * s for s in SCALES)]).astype(float)
        fmt = self.domain.format_of(leaf)
        if fmt is not None and fmt.man < 3:   # halves up to 3 scaled by 4^-k need 3 bits: only e5m2 rounds them
            values = np.array([float(round_to(Fraction(v), fmt)) for v in values])
        return values


def _float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.copysign(math.inf, q)


def _rint(x, mode):
    return {".rni": np.rint, ".rzi": np.trunc, ".rmi": np.floor, ".rpi": np.ceil}[mode](x)


# the uninterpreted calls with a real-function reading (enclose.INTERVAL_FUNCTIONS): their float64 values,
# so an erf GELU against a tanh-approximate one parts here, not only in exact evaluations that cost a second each
_CALLS = {"erf": np.vectorize(math.erf, otypes=[float])}


def _call(n, *args):
    f = _CALLS.get(n.data)
    return np.nan if f is None or len(args) != 1 else f(args[0])   # no value: no point is worth an exact look


def _log2(x):
    return np.where(x > 0, np.log2(np.where(x > 0, x, 1.0)), np.nan)


_NUMPY = {
    E.ADD: lambda n, a, b: np.add(a, b),
    E.MUL: lambda n, a, b: np.multiply(a, b),
    E.DIV: lambda n, a, b: np.where(np.asarray(b) != 0, np.divide(a, b), np.nan),
    E.EXP2: lambda n, a: np.exp2(a),
    E.MAX: lambda n, a, b: np.maximum(a, b),
    E.MIN: lambda n, a, b: np.minimum(a, b),
    E.ABS: lambda n, a: np.abs(a),
    E.SELECT: lambda n, c, a, b: np.where(c, a, b),
    E.SQRT: lambda n, a: np.where(np.asarray(a) >= 0, np.sqrt(np.abs(a)), np.nan),
    E.RSQRT: lambda n, a: np.where(np.asarray(a) > 0, 1 / np.sqrt(np.abs(a)), np.nan),
    E.RCP_APPROX: lambda n, a: np.where(np.asarray(a) != 0, np.divide(1.0, a), np.nan),
    E.TANH: lambda n, a: np.tanh(a),
    E.SIN: lambda n, a: np.sin(a),
    E.COS: lambda n, a: np.cos(a),
    E.LG2: lambda n, a: _log2(a),
    E.CALL: _call,
    E.FLOOR_LOG2: lambda n, a: np.floor(_log2(a)),
    E.RINT: lambda n, a: _rint(a, n.data),
    E.LT: lambda n, a, b: np.less(a, b),
    E.LE: lambda n, a, b: np.less_equal(a, b),
    E.EQ: lambda n, a, b: np.equal(a, b),
    E.NE: lambda n, a, b: np.not_equal(a, b),
    E.AND: lambda n, a, b: np.logical_and(a, b),
    E.OR: lambda n, a, b: np.logical_or(a, b),
    E.NOT: lambda n, a: np.logical_not(a),
}
