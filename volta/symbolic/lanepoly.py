"""Lane-structured polynomials: one polynomial shape for all lanes, leaf indices as arrays.

A GEMM accumulator is, in every lane, sum_k A[i(lane), k]·B[k, j(lane)]: the same shape with
different indices. `LanePoly` stores such a family as numpy arrays — per shape (the sorted
tuple of buffer names a term multiplies), an index array [terms, factors, lanes] and integer
coefficients [terms, 1 or lanes], over one shared denominator — so adding and multiplying are
array operations, and normalizing is a sort per lane (DESIGN.md "Speed"). Only polynomials
over input elements and symbolic scalar parameters (`--symbol alpha=f32`) with rational
coefficients live here; anything else falls back to per-lane expressions (`to_exprs`).

A scalar parameter is a factor of the shape without an index column (`SYMBOL` + its name: it has
one value), so multiplying a sum by `alpha` renames its shapes and shares its index arrays: the
GEMM epilogue `alpha·acc + beta·C` keeps `alpha·Σ` factored instead of copying 4096 terms a lane.
"""
from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from volta.symbolic import expr as E

_LIMIT = 1 << 62   # int64 headroom check for coefficient arithmetic
SYMBOL = "@"       # shape factor "@alpha": the scalar parameter alpha (no PTX or buffer name starts with @)


def is_symbol(factor: str) -> bool:
    return factor.startswith(SYMBOL)


def columns(shape: tuple) -> tuple:
    """The factors of a shape that have an index column (buffers), in column order."""
    return tuple(f for f in shape if not is_symbol(f))


class CoefficientOverflow(ArithmeticError):
    """A coefficient left int64: the caller falls back to per-lane expressions."""


def _check(x: np.ndarray, factor: int = 1) -> None:
    if x.size and int(np.abs(x).max()) * abs(factor) >= _LIMIT:
        raise CoefficientOverflow("lane polynomial coefficient exceeds int64")


class LanePoly:
    """(1/den) · sum over shapes and terms of coef[t, lane] · prod_s shape[s][idx[t, s, lane]]."""

    __slots__ = ("lanes", "groups", "den", "bound", "_terms", "_leaf")

    def __init__(self, lanes: int, groups: dict[tuple, list[tuple[np.ndarray, np.ndarray]]],
                 den: int = 1, bound: int | None = None, terms: int | None = None):
        self.lanes, self.groups, self.den = lanes, groups, den
        self._terms = terms   # cached term_count() (blocks are never mutated, only consolidated)
        self._leaf = False    # cached leaf_parts() (False: not computed yet)
        if bound is None:   # an upper bound on sum |coef| over the terms of any one lane (a Python int)
            bound = sum(int(np.abs(c).max()) * c.shape[0] for blocks in groups.values() for _, c in blocks
                        if c.size)
        self.bound = bound

    # ------------------------------------------------------------ construction
    @staticmethod
    def leaf(buffer: str, index: np.ndarray) -> LanePoly:
        """Element index[lane] of input `buffer`, in every lane."""
        index = np.asarray(index, dtype=np.int64)
        return LanePoly(len(index), {(buffer,): [(index.reshape(1, 1, -1), np.ones((1, 1), np.int64))]})

    @staticmethod
    def symbol(name: str, lanes: int) -> LanePoly:
        """The scalar parameter `name` (`E.sym(name)`), the same in every lane."""
        return LanePoly(lanes, {(SYMBOL + name,): [(np.zeros((1, 0, 1), np.int64), np.ones((1, 1), np.int64))]})

    @staticmethod
    def constant(value, lanes: int) -> LanePoly:
        """One rational constant in every lane; CoefficientOverflow if its numerator or denominator leaves
        int64 (a float such as 1e30 or 3e-39 is an integer or a denominator of 100 to 150 bits)."""
        v = Fraction(value)
        if v == 0:
            return LanePoly(lanes, {})
        if abs(v.numerator) >= _LIMIT or v.denominator >= _LIMIT:
            raise CoefficientOverflow("a constant exceeds int64")
        coef = np.full((1, 1), v.numerator, np.int64)
        return LanePoly(lanes, {(): [(np.zeros((1, 0, 1), np.int64), coef)]}, v.denominator)

    @staticmethod
    def lane_constants(values) -> LanePoly:
        """A (possibly different) rational constant in every lane; CoefficientOverflow if the common
        denominator or a numerator leaves int64."""
        fr = [Fraction(v) for v in values]
        lanes = len(fr)
        if all(v == 0 for v in fr):
            return LanePoly(lanes, {})
        den = 1
        for v in set(fr):
            den = lcm(den, v.denominator)
            if den >= _LIMIT:
                raise CoefficientOverflow("lane constant denominators exceed int64")
        nums = [v.numerator * (den // v.denominator) for v in fr]
        if any(abs(x) >= _LIMIT for x in nums):
            raise CoefficientOverflow("lane constant exceeds int64")
        coef = np.array(nums, np.int64).reshape(1, lanes)
        return LanePoly(lanes, {(): [(np.zeros((1, 0, 1), np.int64), coef)]}, den)

    def take(self, positions: np.ndarray) -> LanePoly:
        """The polynomials of the given lanes (positions into this family), as a new family."""
        positions = np.asarray(positions, np.int64)
        if positions.size == self.lanes and (positions == np.arange(self.lanes)).all():
            return self   # every lane in order: the same family (values are never mutated)
        groups = {shape: [(i[:, :, positions] if i.shape[2] > 1 else i, c[:, positions] if c.shape[1] > 1 else c)
                          for i, c in blocks] for shape, blocks in self.groups.items()}   # blocks kept apart
        return LanePoly(len(positions), groups, self.den, self.bound, self._terms)

    def scatter(self, positions: np.ndarray, total: int) -> LanePoly:
        """This family placed at `positions` of a `total`-lane family, zero in the other lanes."""
        positions = np.asarray(positions, np.int64)
        groups = {}
        for shape in self.groups:
            i, c = self._block(shape)
            idx = np.zeros((i.shape[0], i.shape[1], total), np.int64)
            idx[:, :, positions] = i
            coef = np.zeros((c.shape[0], total), np.int64)
            coef[:, positions] = c
            groups[shape] = [(idx, coef)]
        return LanePoly(total, groups, self.den, self.bound, self._terms)

    def compact(self) -> LanePoly:
        """The same polynomials with zero-coefficient terms squeezed out (terms per shape = the most
        nonzero terms any lane has)."""
        groups = {}
        for shape in self.groups:
            i, c = self._block(shape)
            t, d = i.shape[0], i.shape[1]
            c = np.broadcast_to(c, (t, self.lanes))
            nz = c != 0
            keep = int(nz.sum(axis=0).max()) if t else 0
            if keep == 0:
                continue
            if keep == t:
                groups[shape] = [(i, np.ascontiguousarray(c) if c.shape[1] > 1 else c)]
                continue
            order = np.argsort(~nz, axis=0, kind="stable")[:keep]
            coef = np.take_along_axis(c, order, axis=0)
            idx = np.take_along_axis(np.broadcast_to(i, (t, d, self.lanes)), order[:, None, :], axis=0)
            groups[shape] = [(idx, coef)]
        return LanePoly(self.lanes, groups, self.den, self.bound)

    def term_count(self) -> int:
        if self._terms is None:
            self._terms = sum(sum(i.shape[0] for i, _ in blocks) for blocks in self.groups.values())
        return self._terms

    def leaf_parts(self):
        """(buffer, index per lane) when every lane is exactly one input element, else None (computed once: a
        stored tile's polynomial is asked at every load that reads it)."""
        if self._leaf is False:
            self._leaf = self._leaf_parts()
        return self._leaf

    def _leaf_parts(self):
        if self.den != 1 or len(self.groups) != 1:
            return None
        (shape,) = self.groups
        if len(shape) != 1 or is_symbol(shape[0]):
            return None
        i, c = self._block(shape)
        if i.shape[0] != 1 or not bool(np.all(c == 1)):
            return None
        return shape[0], np.broadcast_to(i[0, 0], (self.lanes,))

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
            run = groups.setdefault(shape, [])
            run.extend(blocks)
            if len(run) >= CHUNK:
                _join_small(run)
        return LanePoly(self.lanes, groups, den,
                        self.bound * (den // self.den) + other.bound * (den // other.den),
                        self.term_count() + other.term_count())

    def scale(self, value) -> LanePoly:
        v = Fraction(value)
        if v == 0:
            return LanePoly(self.lanes, {})
        groups = {}
        for shape, blocks in self.groups.items():
            for _, c in blocks:
                _check(c, v.numerator)
            groups[shape] = [(i, c * v.numerator) for i, c in blocks]
        return LanePoly(self.lanes, groups, self.den * v.denominator, self.bound * abs(v.numerator), self._terms)

    def __neg__(self) -> LanePoly:
        return self.scale(-1)

    def __sub__(self, other: LanePoly) -> LanePoly:
        return self + (-other)

    def __mul__(self, other) -> LanePoly:
        if not isinstance(other, LanePoly):
            return self.scale(other)
        assert self.lanes == other.lanes, "lane counts differ"
        factored = _times_scalars(self, other)
        if factored is None:
            factored = _times_scalars(other, self)
        if factored is not None:
            return factored
        if len(self.groups) == 1 and len(other.groups) == 1:
            product = _term_product(self, other)
            if product is not None:
                return product
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
                if min(t1, t2) == 1:   # no repeat/tile copies needed: broadcasting pairs every term
                    t = max(t1, t2)
                    idx = np.concatenate([np.broadcast_to(i1, (t,) + i1.shape[1:]),
                                          np.broadcast_to(i2, (t,) + i2.shape[1:])], axis=1)
                else:
                    idx = np.concatenate([np.repeat(i1, t2, axis=0), np.tile(i2, (t1, 1, 1))], axis=1)
                coef = (c1[:, None, :] * c2[None, :, :]).reshape(t1 * t2, -1)
                shape = tuple(sorted(s1 + s2))
                cols = columns(s1) + columns(s2)
                perm = sorted(range(len(cols)), key=lambda k: cols[k])
                if perm != list(range(len(cols))):
                    idx = idx[:, perm, :]
                groups.setdefault(shape, []).append((idx, coef))
        return LanePoly(self.lanes, groups, self.den * other.den, self.bound * other.bound,
                        self.term_count() * other.term_count())

    __rmul__ = __mul__

    def _block(self, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
        """All terms of one shape as one index array [T, d, L or 1] and coefficients [T, L or 1]."""
        blocks = self.groups[shape]
        if len(blocks) == 1:
            return blocks[0]
        self.groups[shape] = [_concat(blocks)]   # same value, consolidated: later calls are free
        return self.groups[shape][0]

    # ------------------------------------------------------------ normal form and comparison
    def _bits(self) -> int:
        top = max((int(self._block(sh)[0].max()) for sh in self.groups if columns(sh)), default=0)
        return max(top.bit_length(), 1)

    def canonical(self, bits: int | None = None) -> dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """shape -> (lane, key, coef), flat, sorted by (lane, key), like terms merged, zeros dropped.

        `key` encodes a term's sorted leaf indices: an int64 mixed-radix number with `bits` per
        factor when that fits, else the index row's bytes; compare keys only at equal `bits`.
        """
        bits = bits or self._bits()
        out = {}
        for shape in list(self.groups):
            lane, key, coef = _canonical_group(shape, *self._block(shape), self.lanes, bits)
            if len(coef):
                out[shape] = (lane, key, coef)
        return out

    def equals(self, other: LanePoly) -> bool:
        """Same polynomial in every lane (a proof of equality over the reals)."""
        return bool(self.differing_lanes(other).size == 0)

    def differing_lanes(self, other: LanePoly) -> np.ndarray:
        """Sorted lane numbers whose polynomials differ.

        Lanes whose terms are the same in the same order (two kernels summing k in one order, the usual
        case) are equal without sorting: one elementwise pass instead of a sort per lane (most of the
        decide phase of a K = 4096 GEMM pair). Only the other lanes are put in canonical form."""
        same = self._aligned(other)
        if same is None or not same.any():
            return self._sorted_differing(other)
        if same.all():
            return np.flatnonzero(~same)
        rest = np.flatnonzero(~same)
        return rest[self.take(rest)._sorted_differing(other.take(rest))]

    def _aligned(self, other: LanePoly) -> np.ndarray | None:
        """Lanes where both families have identical term arrays (same shapes, term order, indices and
        coefficients over one denominator), or None when the arrays cannot be lined up at all."""
        if self.den != other.den or self.groups.keys() != other.groups.keys():
            return None
        same = np.ones(self.lanes, bool)
        for shape in self.groups:
            b1, b2 = self.groups[shape], other.groups[shape]
            if [i.shape[:2] for i, _ in b1] != [i.shape[:2] for i, _ in b2]:
                b1, b2 = [self._block(shape)], [other._block(shape)]   # one array each, then line up
                if b1[0][0].shape[:2] != b2[0][0].shape[:2]:
                    return None
            for (i1, c1), (i2, c2) in zip(b1, b2):
                if i1.shape[0] and not (i1 is i2 and c1 is c2):
                    same &= (i1 == i2).all(axis=(0, 1)) & (c1 == c2).all(axis=0)
        return same

    def _sorted_differing(self, other: LanePoly) -> np.ndarray:
        bits = max(self._bits(), other._bits())
        a, b = self.canonical(bits), other.canonical(bits)
        bad = np.zeros(self.lanes, bool)
        for shape in set(a) | set(b):
            if shape not in a or shape not in b:
                bad[(a.get(shape) or b[shape])[0]] = True
                continue
            (la, ka, ca), (lb, kb, cb) = a[shape], b[shape]
            ca, cb = _common(ca, other.den), _common(cb, self.den)
            bad |= _lane_mismatch(la, ka, ca, lb, kb, cb, self.lanes)
        return np.flatnonzero(bad)

    # ------------------------------------------------------------ fallbacks and checks
    def to_exprs(self, lanes: list[int] | None = None) -> list[E.Expr]:
        """Per-lane hash-consed expressions (the general path)."""
        lanes = range(self.lanes) if lanes is None else lanes
        leaf = self.leaf_parts()
        if leaf is not None:   # one input element a lane (a tile read back from shared memory): its leaf node
            name, index = leaf
            return [E.var(name, int(index[lane])) for lane in lanes]
        out = []
        for lane in lanes:
            acc = E.ZERO
            for shape in self.groups:
                idx, coef = self._block(shape)
                li = lane if idx.shape[2] > 1 else 0
                lc = lane if coef.shape[1] > 1 else 0
                scalars = [E.sym(f[len(SYMBOL):]) for f in shape if is_symbol(f)]
                for t in range(idx.shape[0]):
                    term = E.const(int(coef[t, lc]))
                    for s, name in enumerate(columns(shape)):
                        term = E.mul(term, E.var(name, int(idx[t, s, li])))
                    for x in scalars:
                        term = E.mul(term, x)
                    acc = E.add(acc, term)
            out.append(E.mul(acc, Fraction(1, self.den)))
        return out

    def evaluate_float(self, inputs: dict[str, np.ndarray]) -> np.ndarray:
        """float64 value in every lane, given each buffer's values (and each scalar parameter's, by name)."""
        total = np.zeros(self.lanes)
        for shape in self.groups:
            idx, coef = self._block(shape)
            term = np.broadcast_to(coef.astype(np.float64), (idx.shape[0], self.lanes)).copy()
            for f in shape:
                if is_symbol(f):
                    term = term * float(inputs[f[len(SYMBOL):]])
            for s, name in enumerate(columns(shape)):
                term = term * np.asarray(inputs[name], np.float64)[idx[:, s, :]]
            total += term.sum(axis=0)
        return total / self.den


def _times_scalars(a: LanePoly, b: LanePoly) -> LanePoly | None:
    """a·b when b is one term c·(scalar parameters) alike in every lane: a's index arrays shared, its
    shapes renamed, coefficients times c (alpha·Σ stays one product, not a copy of Σ); None otherwise."""
    if len(b.groups) != 1:
        return None
    (scalars, blocks), = b.groups.items()
    if columns(scalars) or len(blocks) != 1 or blocks[0][1].shape != (1, 1):
        return None
    c = int(blocks[0][1][0, 0])
    groups = {}
    for shape, run in a.groups.items():
        for _, coef in run:
            _check(coef, c)
        # the buffers' columns keep their order: inserting column-less factors moves no column
        groups[tuple(sorted(shape + scalars))] = list(run) if c == 1 else [(i, coef * c) for i, coef in run]
    return LanePoly(a.lanes, groups, a.den * b.den, a.bound * abs(c), a.term_count())


def _term_product(a: LanePoly, b: LanePoly) -> LanePoly | None:
    """a·b when each is one term with one coefficient for all lanes (an element times an element: every
    step of a dot product), built without the general path's broadcasting; None otherwise."""
    (s1, blocks1), = a.groups.items()
    (s2, blocks2), = b.groups.items()
    if len(blocks1) != 1 or len(blocks2) != 1:
        return None
    (i1, c1), (i2, c2) = blocks1[0], blocks2[0]
    if s1 + s2 != tuple(sorted(s1 + s2)):   # B[k]·A[i] is A[i]·B[k]: factors in shape order
        (s1, i1, c1), (s2, i2, c2) = (s2, i2, c2), (s1, i1, c1)
    if i1.shape[0] != 1 or i2.shape[0] != 1 or c1.shape != (1, 1) or c2.shape != (1, 1) or \
            i1.shape[2] != i2.shape[2] or s1 + s2 != tuple(sorted(s1 + s2)):
        return None
    coef = int(c1[0, 0]) * int(c2[0, 0])
    if abs(coef) >= _LIMIT:
        raise CoefficientOverflow("lane polynomial coefficient exceeds int64")
    idx = np.concatenate((i1, i2), axis=1)
    return LanePoly(a.lanes, {s1 + s2: [(idx, np.full((1, 1), coef, np.int64))]}, a.den * b.den, abs(coef), 1)


CHUNK = 64   # an accumulator's one-term blocks are joined 64 at a time (a K-term sum keeps ~K/64 arrays)


def _join_small(run: list) -> None:
    """Join the blocks of fewer than CHUNK terms at either end of `run` once there are CHUNK of them
    (`acc + a·b` grows at the end, `a·b + acc`, as fma computes it, at the front)."""
    if run[-CHUNK][0].shape[0] < CHUNK:   # (cheap test first: a scan only when CHUNK may be there)
        n = _small_blocks(reversed(run))
        if n >= CHUNK:
            run[-n:] = [_concat(run[-n:])]
    if len(run) >= CHUNK and run[CHUNK - 1][0].shape[0] < CHUNK:
        n = _small_blocks(run)
        if n >= CHUNK:
            run[:n] = [_concat(run[:n])]


def _small_blocks(blocks) -> int:
    """How many blocks of fewer than CHUNK terms come first."""
    n = 0
    for i, _ in blocks:
        if i.shape[0] >= CHUNK:
            break
        n += 1
    return n


def _concat(blocks: list) -> tuple[np.ndarray, np.ndarray]:
    """Blocks of one shape as one index array [T, d, L or 1] and coefficients [T, L or 1]."""
    width = max(i.shape[2] for i, _ in blocks)
    cw = max(c.shape[1] for _, c in blocks)
    idx = np.concatenate([np.broadcast_to(i, (i.shape[0], i.shape[1], width)) for i, _ in blocks])
    coef = np.concatenate([np.broadcast_to(c, (c.shape[0], cw)) for _, c in blocks])
    return idx, coef


def _common(coef: np.ndarray, factor: int) -> np.ndarray:
    _check(coef, factor)
    return coef * factor


def _canonical_group(shape: tuple, idx: np.ndarray, coef: np.ndarray, lanes: int, bits: int):
    t, d = idx.shape[0], idx.shape[1]
    idx = np.broadcast_to(idx, (t, d, lanes))
    cols = columns(shape)
    start = 0
    for end in range(1, d + 1):     # factors of one buffer commute: sort indices within the run
        if end == d or cols[end] != cols[start]:
            if end - start > 1:
                idx = np.array(idx)     # a private copy: blocks are shared between polynomials
                idx[:, start:end, :] = np.sort(idx[:, start:end, :], axis=1)
            start = end
    uniform = coef.shape[1] == 1 and bool(np.all(coef == coef[0, 0]))
    if d * bits <= 62:
        key = np.zeros((t, lanes), np.int64)
        for s in range(d):
            key <<= bits
            key |= idx[:, s, :]
        order = np.argsort(key, axis=0)
        key = np.take_along_axis(key, order, axis=0).T.ravel()
        if uniform:
            c = np.full(t * lanes, coef[0, 0], np.int64)
        else:
            c = np.take_along_axis(np.broadcast_to(coef, (t, lanes)), order, axis=0).T.ravel()
    else:   # wide keys: sort rows (lane, i0, i1, ...) and compare them as raw bytes
        rows = np.ascontiguousarray(idx.transpose(2, 0, 1)).reshape(lanes * t, d)
        lane_of = np.repeat(np.arange(lanes), t)
        order = np.lexsort([rows[:, s] for s in reversed(range(d))] + [lane_of])
        key = np.ascontiguousarray(rows[order]).view(f"V{8 * d}").ravel()
        c = np.ascontiguousarray(np.broadcast_to(coef, (t, lanes)).T).ravel()[order]
    lane = np.repeat(np.arange(lanes), t)
    if len(lane) == 0:
        return lane, key, c
    same = (lane[1:] == lane[:-1]) & (key[1:] == key[:-1])
    if same.any():
        starts = np.flatnonzero(np.concatenate([[True], ~same]))
        c = np.add.reduceat(c, starts)
        lane, key = lane[starts], key[starts]
    keep = c != 0
    if not keep.all():
        lane, key, c = lane[keep], key[keep], c[keep]
    return lane, key, c


def _lane_mismatch(la, ia, ca, lb, ib, cb, lanes: int) -> np.ndarray:
    bad = np.bincount(la, minlength=lanes) != np.bincount(lb, minlength=lanes)
    if not bad.any():
        rows_differ = (la != lb) | (ia != ib) | (ca != cb)
        bad[la[rows_differ]] = True
        bad[lb[rows_differ]] = True
    else:   # term counts differ somewhere: compare the other lanes one by one
        for lane in np.flatnonzero(~bad):
            sa, sb = la == lane, lb == lane
            if not (np.array_equal(ia[sa], ib[sb]) and np.array_equal(ca[sa], cb[sb])):
                bad[lane] = True
    return bad
