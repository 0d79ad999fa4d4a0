"""The 16-bit format refusal of volta/exec/handlers/tensor_real.py is remembered per machine for the keys that
passed (format, leaf buffers, computed): a key that passed must pass again, and every other key must still be
decided from scratch. A key too coarse (forgetting the buffers, or `computed`) would let a bf16 element read
as f16 through: these tests fail then."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from volta.errors import Unsupported
from volta.exec.handlers import tensor_real as TR
from volta.symbolic import expr as E


class _Machine:   # what the decision reads: buffers, the kernel's instructions, regions carried in
    def __init__(self, **dtypes):
        self.buffer_regions = {n: SimpleNamespace(name=n, dtype=t) for n, t in dtypes.items()}
        self.prog = SimpleNamespace(ops=[])
        self.carried_regions = {}


OP = SimpleNamespace(d=SimpleNamespace(inst=SimpleNamespace(opcode="mma.sync")), span=None)


def test_a_passed_key_does_not_pass_another_buffer_or_a_computed_value():
    m = _Machine(A="f16", B="bf16")
    TR._refuse_format(m, OP, "f16", {"A"}, False)
    TR._refuse_format(m, OP, "f16", {"A"}, False)   # remembered: passes again
    with pytest.raises(Unsupported, match="bf16 buffer `B`"):
        TR._refuse_format(m, OP, "f16", {"B"}, False)
    with pytest.raises(Unsupported, match="bf16 buffer `B`"):
        TR._refuse_format(m, OP, "f16", {"A", "B"}, False)
    with pytest.raises(Unsupported, match="this launch has bf16 buffers"):
        TR._refuse_format(m, OP, "f16", {"A"}, True)


def test_without_buffers_of_the_other_format_computed_values_pass_and_formats_stay_apart():
    m = _Machine(A="f16")
    TR._refuse_format(m, OP, "f16", set(), True)
    with pytest.raises(Unsupported, match="f16 buffer `A` as bf16"):
        TR._refuse_format(m, OP, "bf16", {"A"}, False)


def test_a_fragment_is_refused_when_one_lane_moved_an_element_of_the_other_format():
    """register_elements decides all lanes' moved elements at once: one lane of bf16 among f16 lanes refuses."""
    m = _Machine(A="f16", B="bf16")
    f16 = [E.call("b16x2", E.var("A", 2 * k), E.var("A", 2 * k + 1)) for k in range(31)]
    odd = E.call("b16x2", E.var("B", 0), E.var("A", 99))
    moved = [x for e in f16 + [odd] for x in e.args]
    TR.refuse_unknown_format(m, OP, moved[:-2], "f16")   # the f16 lanes alone pass
    with pytest.raises(Unsupported, match="bf16 buffer `B`"):
        TR.refuse_unknown_format(m, OP, moved, "f16")
