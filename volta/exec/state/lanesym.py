"""Lane-structured symbolic register values (`Machine(lane_structured=True)`).

A `LaneSym` is the symbolic value of a register (or of stored memory elements) in a sorted set of
machine lanes, every one of them a polynomial over input elements with rational coefficients: a
`LanePoly` whose lane k is machine lane `lanes[k]`. Add/sub/mul/fma on such values are numpy
operations over the lanes (DESIGN.md "Speed"); anything else converts them to per-lane
hash-consed expressions (`exprs`) and continues on the general path, which stays the reference.
"""
from __future__ import annotations

import numpy as np

from volta.symbolic.lanepoly import CoefficientOverflow, LanePoly

MAX_TERMS = 1 << 16   # per-lane term budget of one value: beyond it, fall back to expressions
MAX_BOUND = 1 << 60   # bound on sum |coef| per lane: like terms merged in int64 can never overflow
# A product of two sums is expanded only up to this many terms over all lanes: s·s·s of a 32-term dot product is
# 32,768 terms a lane, and a GELU's tanh of it made 64 lanes of them into 12 M expression nodes (300 s); the
# per-lane path keeps the product as a product (the normal form expands it only if a comparison needs it).
MAX_PRODUCT_TERMS = 1 << 18


def expands(a: LanePoly, b: LanePoly) -> bool:
    """Would a·b multiply out two sums into more than MAX_PRODUCT_TERMS terms over all lanes?"""
    ta, tb = a.term_count(), b.term_count()
    return ta > 1 and tb > 1 and ta * tb * a.lanes > MAX_PRODUCT_TERMS


class LaneSym:
    __slots__ = ("lanes", "poly", "_exprs")

    def __init__(self, lanes: np.ndarray, poly: LanePoly, ordered: bool = False):
        """`ordered`: the caller vouches that `lanes` is strictly increasing (the machine's `all_lanes`, an
        arange; a selection from a LaneSym's own lanes), which spares the check on every instruction."""
        lanes = np.asarray(lanes, np.int64)
        assert poly.lanes == lanes.size, "lane count and polynomial width differ"
        if not ordered and lanes.size > 1 and not (lanes[1:] > lanes[:-1]).all():
            order = np.argsort(lanes, kind="stable")
            lanes, poly = lanes[order], poly.take(order)
            if lanes.size > 1 and not bool(np.all(lanes[1:] > lanes[:-1])):
                raise ValueError("a lane appears twice")
        self.lanes, self.poly, self._exprs = lanes, poly, None

    def exprs(self) -> np.ndarray:
        """Per-lane expressions (object array aligned with `lanes`), built once."""
        if self._exprs is None:
            out = np.empty(self.lanes.size, dtype=object)
            out[:] = self.poly.to_exprs()
            self._exprs = out
        return self._exprs

    def positions(self, lanes: np.ndarray):
        """(found mask over `lanes`, positions into self.lanes of the found ones)."""
        pos = np.searchsorted(self.lanes, lanes)
        pos_c = np.minimum(pos, max(self.lanes.size - 1, 0))
        found = (pos < self.lanes.size) & (self.lanes[pos_c] == lanes) if self.lanes.size else \
            np.zeros(lanes.size, bool)
        return found, pos_c[found]

    def restrict(self, lanes: np.ndarray):
        """This value on the given lanes that it covers: (found mask over lanes, LaneSym) or (mask, None)."""
        if lanes is self.lanes or (lanes.size == self.lanes.size and np.array_equal(lanes, self.lanes)):
            return np.ones(lanes.size, bool), self
        found, pos = self.positions(lanes)
        if not found.any():
            return found, None
        return found, LaneSym(lanes[found], self.poly.take(pos))

    def without(self, lanes: np.ndarray):
        """This value on its lanes not in `lanes` (None if none remain)."""
        if lanes is self.lanes or (lanes.size == self.lanes.size and np.array_equal(lanes, self.lanes)):
            return None
        if lanes.size >= self.lanes.size and lanes.size and lanes[0] <= self.lanes[0] and \
                lanes[-1] >= self.lanes[-1] and lanes.size == lanes[-1] - lanes[0] + 1 and \
                bool(np.all(np.diff(lanes) == 1)):
            return None   # a contiguous run of lanes that spans all of ours
        if lanes.size > 1 and not (lanes[1:] > lanes[:-1]).all():
            keep = ~np.isin(self.lanes, lanes, assume_unique=True)
        else:   # increasing (as the machine's lane sets are): a binary search per lane, not np.isin's sort
            keep = ~_members(self.lanes, lanes)
        if keep.all():
            return self
        if not keep.any():
            return None
        return LaneSym(self.lanes[keep], self.poly.take(np.flatnonzero(keep)), ordered=True)


def _members(values: np.ndarray, increasing: np.ndarray) -> np.ndarray:
    """Which of `values` are in the strictly increasing array `increasing` (np.isin, by binary search)."""
    if increasing.size == 0:
        return np.zeros(values.size, bool)
    pos = np.searchsorted(increasing, values)
    return (pos < increasing.size) & (increasing[np.minimum(pos, increasing.size - 1)] == values)


def merge(parts: list[LaneSym]) -> LaneSym:
    """One value from parts on disjoint lane sets (zero-padded, then compacted)."""
    parts = [p for p in parts if p is not None]
    if len(parts) == 1:
        return parts[0]
    lanes = np.concatenate([p.lanes for p in parts])
    order = np.argsort(lanes, kind="stable")
    lanes = lanes[order]
    if lanes.size > 1 and not bool(np.all(lanes[1:] > lanes[:-1])):
        raise ValueError("merged lane sets overlap")
    poly = _joined(parts, order)
    if poly is None:
        poly = _scattered(parts, order)
    if poly.term_count() > MAX_TERMS or poly.bound >= MAX_BOUND:
        raise CoefficientOverflow("too many terms or too large coefficients")
    return LaneSym(lanes, poly, ordered=True)   # checked strictly increasing above


def _scattered(parts: list[LaneSym], order: np.ndarray) -> LanePoly:
    """The parts' polynomials each placed at its lanes of the merged order (zero elsewhere), added, and
    compacted: every lane keeps its own part's terms, in their order, zero-coefficient ones squeezed out."""
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    total, at, poly = order.size, 0, None
    for p in parts:
        placed = p.poly.scatter(inverse[at:at + p.lanes.size], total)
        at += p.lanes.size
        poly = placed if poly is None else poly + placed
    return poly.compact()


def _joined(parts: list[LaneSym], order: np.ndarray) -> LanePoly | None:
    """`_scattered`'s polynomial without the scatter, the sum and the sort that compacts it, when every part has
    the same shapes in the same order, as many terms of each shape, no zero coefficient and one denominator
    (the loads of one tile into a register, lane group by lane group): each lane's terms are then exactly its
    part's, so the merged family is the parts' index and coefficient arrays side by side, in lane order. The
    bound is the sum of the parts' bounds, as the addition there makes it. None: `_scattered` decides."""
    first = parts[0].poly
    shapes = list(first.groups)
    if any(p.poly.den != first.den or list(p.poly.groups) != shapes for p in parts[1:]):
        return None
    groups = {}
    for shape in shapes:
        blocks = [p.poly._block(shape) for p in parts]
        t = blocks[0][0].shape[0]
        if any(i.shape[0] != t or not c.all() for i, c in blocks):
            return None
        if t == 0:
            continue   # (compact drops a shape no lane has a term of)
        idx = np.concatenate([np.broadcast_to(i, (t, i.shape[1], p.lanes.size)) for (i, _), p in zip(blocks, parts)],
                             axis=2)
        coef = np.concatenate([np.broadcast_to(c, (t, p.lanes.size)) for (_, c), p in zip(blocks, parts)], axis=1)
        groups[shape] = [(idx[:, :, order], coef[:, order])]
    return LanePoly(order.size, groups, first.den, sum(p.poly.bound for p in parts))


def leaves(buffer: str, lanes: np.ndarray, index: np.ndarray) -> LaneSym:
    return LaneSym(lanes, LanePoly.leaf(buffer, index))
