"""Lane-structured polynomials: one polynomial shape for all lanes, leaf indices as arrays.

A GEMM accumulator is, in every lane, sum_k A[i(lane), k]·B[k, j(lane)]: the same shape with
different indices. `LanePoly` stores such a family as numpy arrays — per shape (the sorted
tuple of buffer names a term multiplies), an index array [terms, factors, lanes] and integer
coefficients [terms, 1 or lanes], over one shared denominator — so adding and multiplying are
array operations, and normalizing is a sort per lane (DESIGN.md "Speed"). Only polynomials
over input elements with rational coefficients live here; anything else falls back to per-lane
expressions (`to_exprs`).
"""
from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from volta.symbolic import expr as E

_LIMIT = 1 << 62   # int64 headroom check for coefficient arithmetic


class CoefficientOverflow(ArithmeticError):
    """A coefficient left int64: the caller falls back to per-lane expressions."""


def _check(x: np.ndarray, factor: int = 1) -> None:
    if x.size and int(np.abs(x).max()) * abs(factor) >= _LIMIT:
        raise CoefficientOverflow("lane polynomial coefficient exceeds int64")


class LanePoly:
    """(1/den) · sum over shapes and terms of coef[t, lane] · prod_s shape[s][idx[t, s, lane]]."""

    __slots__ = ("lanes", "groups", "den")

    def __init__(self, lanes: int, groups: dict[tuple, list[tuple[np.ndarray, np.ndarray]]],
                 den: int = 1):
        self.lanes, self.groups, self.den = lanes, groups, den

    # ------------------------------------------------------------ construction
    @staticmethod
    def leaf(buffer: str, index: np.ndarray) -> LanePoly:
        """Element index[lane] of input `buffer`, in every lane."""
        index = np.asarray(index, dtype=np.int64)
        return LanePoly(len(index), {(buffer,): [(index.reshape(1, 1, -1), np.ones((1, 1), np.int64))]})

    @staticmethod
    def constant(value, lanes: int) -> LanePoly:
        v = Fraction(value)
        if v == 0:
            return LanePoly(lanes, {})
        coef = np.full((1, 1), v.numerator, np.int64)
        return LanePoly(lanes, {(): [(np.zeros((1, 0, 1), np.int64), coef)]}, v.denominator)

    def _rescaled(self, den: int) -> dict:
        factor = den // self.den
        if factor == 1:
            return self.groups
        out = {}
        for shape, blocks in self.groups.items():
            for _, c in blocks:
                _check(c, factor)
            out[shape] = [(i, c * factor) for i, c in blocks]
        return out

    def __add__(self, other: LanePoly) -> LanePoly:
        assert self.lanes == other.lanes, "lane counts differ"
        den = lcm(self.den, other.den)
        a, b = self._rescaled(den), other._rescaled(den)
        groups = {shape: list(blocks) for shape, blocks in a.items()}
        for shape, blocks in b.items():
            groups.setdefault(shape, []).extend(blocks)
        return LanePoly(self.lanes, groups, den)

    def scale(self, value) -> LanePoly:
        v = Fraction(value)
        if v == 0:
            return LanePoly(self.lanes, {})
        groups = {}
        for shape, blocks in self.groups.items():
            for _, c in blocks:
                _check(c, v.numerator)
            groups[shape] = [(i, c * v.numerator) for i, c in blocks]
        return LanePoly(self.lanes, groups, self.den * v.denominator)

    def __neg__(self) -> LanePoly:
        return self.scale(-1)

    def __sub__(self, other: LanePoly) -> LanePoly:
        return self + (-other)

    def __mul__(self, other) -> LanePoly:
        if not isinstance(other, LanePoly):
            return self.scale(other)
        assert self.lanes == other.lanes, "lane counts differ"
        groups: dict[tuple, list] = {}
        for s1 in self.groups:
            i1, c1 = self._block(s1)
            for s2 in other.groups:
                i2, c2 = other._block(s2)
                _check(c1, int(np.abs(c2).max()) if c2.size else 0)
                t1, t2 = i1.shape[0], i2.shape[0]
                width = max(i1.shape[2], i2.shape[2])
                i1 = np.broadcast_to(i1, (t1, i1.shape[1], width))
                i2 = np.broadcast_to(i2, (t2, i2.shape[1], width))
                idx = np.concatenate([np.repeat(i1, t2, axis=0), np.tile(i2, (t1, 1, 1))], axis=1)
                coef = (c1[:, None, :] * c2[None, :, :]).reshape(t1 * t2, -1)
                names = s1 + s2
                perm = sorted(range(len(names)), key=lambda k: names[k])
                shape = tuple(names[k] for k in perm)
                groups.setdefault(shape, []).append((idx[:, perm, :], coef))
        return LanePoly(self.lanes, groups, self.den * other.den)

    __rmul__ = __mul__

    def _block(self, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
        """All terms of one shape as one index array [T, d, L or 1] and coefficients [T, L or 1]."""
        blocks = self.groups[shape]
        if len(blocks) == 1:
            return blocks[0]
        width = max(i.shape[2] for i, _ in blocks)
        cw = max(c.shape[1] for _, c in blocks)
        idx = np.concatenate([np.broadcast_to(i, (i.shape[0], i.shape[1], width)) for i, _ in blocks])
        coef = np.concatenate([np.broadcast_to(c, (c.shape[0], cw)) for _, c in blocks])
        self.groups[shape] = [(idx, coef)]   # same value, consolidated: later calls are free
        return idx, coef

    # ------------------------------------------------------------ normal form and comparison
    def canonical(self) -> dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """shape -> (lane, idx [N, d], coef) sorted by (lane, idx), like terms merged, zeros dropped."""
        out = {}
        for shape in list(self.groups):
            lane, idx, coef = _canonical_group(shape, *self._block(shape), self.lanes)
            if len(coef):
                out[shape] = (lane, idx, coef)
        return out

    def equals(self, other: LanePoly) -> bool:
        """Same polynomial in every lane (a proof of equality over the reals)."""
        return bool(self.differing_lanes(other).size == 0)

    def differing_lanes(self, other: LanePoly) -> np.ndarray:
        """Sorted lane numbers whose polynomials differ."""
        a, b = self.canonical(), other.canonical()
        bad = np.zeros(self.lanes, bool)
        for shape in set(a) | set(b):
            if shape not in a or shape not in b:
                bad[(a.get(shape) or b[shape])[0]] = True
                continue
            (la, ia, ca), (lb, ib, cb) = a[shape], b[shape]
            ca, cb = _common(ca, other.den), _common(cb, self.den)
            bad |= _lane_mismatch(la, ia, ca, lb, ib, cb, self.lanes)
        return np.flatnonzero(bad)

    # ------------------------------------------------------------ fallbacks and checks
    def to_exprs(self, lanes: list[int] | None = None) -> list[E.Expr]:
        """Per-lane hash-consed expressions (the general path)."""
        lanes = range(self.lanes) if lanes is None else lanes
        out = []
        for lane in lanes:
            acc = E.ZERO
            for shape in self.groups:
                idx, coef = self._block(shape)
                li = lane if idx.shape[2] > 1 else 0
                lc = lane if coef.shape[1] > 1 else 0
                for t in range(idx.shape[0]):
                    term = E.const(int(coef[t, lc]))
                    for s, name in enumerate(shape):
                        term = E.mul(term, E.var(name, int(idx[t, s, li])))
                    acc = E.add(acc, term)
            out.append(E.mul(acc, Fraction(1, self.den)))
        return out

    def evaluate_float(self, inputs: dict[str, np.ndarray]) -> np.ndarray:
        """float64 value in every lane, given each buffer's values."""
        total = np.zeros(self.lanes)
        for shape in self.groups:
            idx, coef = self._block(shape)
            term = np.broadcast_to(coef.astype(np.float64), (idx.shape[0], self.lanes)).copy()
            for s, name in enumerate(shape):
                term = term * np.asarray(inputs[name], np.float64)[idx[:, s, :]]
            total += term.sum(axis=0)
        return total / self.den


def _common(coef: np.ndarray, factor: int) -> np.ndarray:
    _check(coef, factor)
    return coef * factor


def _canonical_group(shape: tuple, idx: np.ndarray, coef: np.ndarray, lanes: int):
    t, d = idx.shape[0], idx.shape[1]
    idx = np.broadcast_to(idx, (t, d, lanes))
    coef = np.broadcast_to(coef, (t, lanes))
    start = 0
    for end in range(1, d + 1):     # factors of one buffer commute: sort indices within the run
        if end == d or shape[end] != shape[start]:
            if end - start > 1:
                idx = np.array(idx)     # a private copy: blocks are shared between polynomials
                idx[:, start:end, :] = np.sort(idx[:, start:end, :], axis=1)
            start = end
    rows = np.ascontiguousarray(idx.transpose(2, 0, 1))            # [L, T, d]
    bits = max(int(rows.max()).bit_length(), 1) if rows.size else 1
    if d * bits <= 62:
        key = np.zeros((lanes, t), np.int64)
        for s in range(d):
            key = (key << bits) | rows[:, :, s]
        order = np.argsort(key, axis=1, kind="stable")
        rows = np.take_along_axis(rows, order[:, :, None], axis=1).reshape(lanes * t, d)
        c = np.take_along_axis(np.ascontiguousarray(coef.T), order, axis=1).reshape(-1)
    else:
        flat = rows.reshape(lanes * t, d)
        lane_of = np.repeat(np.arange(lanes), t)
        order = np.lexsort([flat[:, s] for s in reversed(range(d))] + [lane_of])
        rows, c = flat[order], np.ascontiguousarray(coef.T).reshape(-1)[order]
    lane = np.repeat(np.arange(lanes), t)
    if len(lane) == 0:
        return lane, rows, c
    same = (lane[1:] == lane[:-1]) & np.all(rows[1:] == rows[:-1], axis=1)
    starts = np.flatnonzero(np.concatenate([[True], ~same]))
    if len(starts) != len(lane):
        c = np.add.reduceat(c, starts)
        lane, rows = lane[starts], rows[starts]
    keep = c != 0
    return lane[keep], rows[keep], c[keep]


def _lane_mismatch(la, ia, ca, lb, ib, cb, lanes: int) -> np.ndarray:
    bad = np.bincount(la, minlength=lanes) != np.bincount(lb, minlength=lanes)
    if not bad.any():
        rows_differ = (la != lb) | np.any(ia != ib, axis=1) | (ca != cb)
        bad[la[rows_differ]] = True
        bad[lb[rows_differ]] = True
    else:   # term counts differ somewhere: compare the other lanes one by one
        for lane in np.flatnonzero(~bad):
            sa, sb = la == lane, lb == lane
            if not (np.array_equal(ia[sa], ib[sb]) and np.array_equal(ca[sa], cb[sb])):
                bad[lane] = True
    return bad
