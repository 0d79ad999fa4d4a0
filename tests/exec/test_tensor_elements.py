"""register_elements takes the halves of plain f16x2 pairs as they are (`_plain_pairs`) instead of checking and
decoding element by element: on registers of pairs, of pairs holding moved bits (b16), of concrete lanes and of
mixes (elements that are calls too: exp of a softmax weight), both must give the same elements (the same
nodes), and refuse the same registers."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.errors import Unsupported
from volta.exec.handlers import tensor_real
from volta.symbolic import expr as E

_OP = SimpleNamespace(d=SimpleNamespace(inst=SimpleNamespace(opcode="wmma.mma")), span=None)


def _element(k, i):
    return [E.var("A", i), E.add(E.var("A", i), E.var("B", i)), E.call("b16", E.const(0x3C00)), E.const(0.5),
            E.var("B", i + 7), E.call("exp", E.var("A", i))][k]


def _machine(sym, bits):
    return SimpleNamespace(read=lambda r, flat: (bits, None), sym_of=lambda r, flat: sym, integers=False,
                           prog=SimpleNamespace(ops=[]), buffer_regions={}, carried_regions={})


@st.composite
def _register(draw):
    n = draw(st.integers(1, 40))
    names = st.sampled_from(["f16x2", "b16x2", "bf16x2"])
    one = draw(names) if draw(st.booleans()) else None   # a register of one kind of pair, or a mix
    kinds = draw(st.lists(st.tuples(st.integers(-1, 5), st.integers(0, 5), st.just(one) if one else names),
                          min_size=n, max_size=n))
    sym = np.empty(n, dtype=object)
    sym[:] = [None if a < 0 else E.call(name, _element(a, i), _element(b, i + 1)) for i, (a, b, name) in
              enumerate(kinds)]
    return sym, np.arange(n, dtype=np.uint64) * np.uint64(0x00010001)


def _elements(m, flat):
    try:
        return [[list(x) for x in r] for r in tensor_real.register_elements(m, _OP, ["r"], flat, "f16", 2)]
    except Unsupported as e:
        return str(e)


@settings(max_examples=300, deadline=None)
@given(_register())
def test_plain_pairs_are_the_checked_elements(register):
    sym, bits = register
    flat = np.arange(sym.size)
    m = _machine(sym, bits)
    fast = _elements(m, flat)
    with pytest.MonkeyPatch.context() as p:
        p.setattr(tensor_real, "_plain_pairs", lambda vals, name: False)
        slow = _elements(m, flat)
    if isinstance(fast, str):
        assert fast == slow
        return
    assert isinstance(slow, list)
    for rf, rs in zip(fast, slow):
        for ef, es in zip(rf, rs):
            assert all(a is b for a, b in zip(ef, es))


def _tile_slot_by_slot(values, table, shape, dtype):
    rows, cols = table
    W = values[0].shape[0]
    tile = np.zeros((W,) + shape, dtype) if dtype is not object else np.full((W,) + shape, None, dtype=object)
    for s, v in enumerate(values):
        tile[np.arange(W)[:, None], rows[None, :, s], cols[None, :, s]] = v
    return tile


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3), st.sampled_from([(16, 16, 8), (16, 16, 16), (16, 16, 4), (32, 8, 8), (8, 32, 8)]),
       st.booleans(), st.integers(0, 1000))
def test_tile_from_slots_writes_what_slot_after_slot_writes(W, shape_slots, objects, seed):
    """tensor.tile_from_slots places every slot at once: a repeated element (A/B fragments of m16n16k16 hold
    each twice, and a program may change one copy) must keep the later slot's value, as the slot loop does;
    elements no slot names stay empty."""
    from volta.exec.handlers import tensor as T
    rows, cols, slots = shape_slots
    table = T.wmma_layout(rows, cols, slots)
    rng = np.random.default_rng(seed)
    values = [rng.integers(0, 1 << 16, (W, 32)).astype(np.uint64) for _ in range(slots)]
    if objects:
        values = [np.array([[E.var("A", int(x)) for x in row] for row in v], dtype=object) for v in values]
    dtype = object if objects else np.uint64
    got = T.tile_from_slots(values, table, (rows, cols), dtype)
    want = _tile_slot_by_slot(values, table, (rows, cols), dtype)
    assert got.shape == want.shape and all(a is b or a == b for a, b in zip(got.reshape(-1), want.reshape(-1)))
