"""`tensor_real.product` (D = C + A·B over the reals, skipping terms with a constant-0 factor) builds the same
expression nodes as `product_reference`, which adds every term: tiles with zero rows and columns (padding),
zero constants among data (a causal mask's weights), other constants, and C of sums, constants and zeros."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.exec.handlers.tensor_real import product, product_reference
from volta.symbolic import expr as E

_ATOMS = [E.ZERO, E.const(0.0), E.const(1), E.const(-2.5), E.const(3)]


def _tile(draw, shape, prefix):
    n = int(np.prod(shape))
    kinds = draw(st.lists(st.integers(0, len(_ATOMS) + 3), min_size=n, max_size=n))
    out = np.empty(n, dtype=object)
    out[:] = [_ATOMS[k] if k < len(_ATOMS) else E.var(prefix, i) if k == len(_ATOMS) else
              E.add(E.var(prefix, i), E.var(prefix, i + 1000)) if k == len(_ATOMS) + 1 else
              E.mul(E.const(0.5), E.var(prefix, i)) for i, k in enumerate(kinds)]
    return out.reshape(shape)


@st.composite
def _tiles(draw):
    W, M, N, K = (draw(st.integers(1, n)) for n in (2, 4, 4, 5))
    A, B, C = _tile(draw, (W, M, K), "A"), _tile(draw, (W, K, N), "B"), _tile(draw, (W, M, N), "C")
    rows = draw(st.lists(st.integers(0, M - 1), max_size=M))   # whole rows of A zero (a padded tile)
    A[:, rows, :] = E.ZERO
    return A, B, C


@settings(max_examples=200, deadline=None)
@given(_tiles())
def test_product_builds_the_nodes_of_the_reference(tiles):
    A, B, C = tiles
    got, want = product(A, B, C), product_reference(A, B, C)
    assert got.shape == want.shape
    assert all(g is w for g, w in zip(got.reshape(-1), want.reshape(-1)))


def test_every_constant_zero_is_the_one_zero_node_product_skips():
    assert E.const(0.0) is E.ZERO and E.const(0) is E.ZERO and E.mul(E.const(0), E.var("A", 1)) is E.ZERO
    A = np.array([[[E.ZERO, E.var("A", 0)]]], dtype=object)        # 1 x 1 x 2
    B = np.array([[[E.var("B", 0)], [E.ZERO]]], dtype=object)      # 1 x 2 x 1
    C = np.array([[[E.const(0)]]], dtype=object)
    assert product(A, B, C)[0, 0, 0] is E.ZERO                      # both terms have a zero factor
