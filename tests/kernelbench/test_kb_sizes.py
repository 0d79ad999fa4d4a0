"""Size scaling (volta/kernelbench/sizes.py): the scaled value keeps the power-of-two factor up to 2^cap,
roots and derived globals are told apart, literals in get_inputs are sizes, the policy records choices."""
from __future__ import annotations

import builtins
import types

from hypothesis import given
from hypothesis import strategies as st

from volta.kernelbench.problem import load_problem
from volta.kernelbench.sizes import SizePolicy, halve, instrument, scale, scale_int
from volta.symbolic import expr as E


def _v2(n: int) -> int:
    return (n & -n).bit_length() - 1


@given(st.integers(1, 1 << 40), st.integers(1, 8))
def test_scale_keeps_small_values_and_the_power_of_two_factor_up_to_the_cap(v, cap):
    s = scale_int(v, cap)
    if v <= 1 << cap:
        assert s == v
    else:
        assert 1 <= s <= 1 << cap
        assert _v2(s) == min(_v2(v), cap)
        assert s + (1 << (_v2(s) + 1)) > 1 << cap           # the largest value <= 2^cap with that factor


def test_scale_examples():
    assert [scale_int(v, 6) for v in (4096, 224, 8205, 1000, 393216, 65535, 64, 3)] == [64, 32, 63, 56, 64, 63, 64, 3]
    assert scale((32768,), 6) == (64,) and scale([3, 4096], 5) == [3, 32] and scale(True, 6) is True
    assert scale(2.5, 6) == 2.5 and halve((64, 3, 6), 2) == (16, 3, 3) and halve(4, 5) == 2


SOURCE = '''
import torch
N = 2048 * 2
batch, width = 16, 300
shape = (N, 7)
ratio = 0.5
flag = True
def get_inputs():
    return [torch.rand(batch, 3, 224, width)]
def get_init_inputs():
    return [N, 12]
'''


def test_instrument_tells_roots_from_derived_and_finds_input_literals():
    code = instrument(SOURCE, "p.py")
    info = code.sizes
    assert info["N"].root and not info["N"].in_inputs
    assert info["batch"].root and info["batch"].in_inputs and info["width"].in_inputs
    assert not info["shape"].root
    assert "get_inputs@9:34" in info and "get_init_inputs@11:16" not in info     # 12 is under the threshold


def _import_without_torch(name, *args, **kwargs):
    """SOURCE's `import torch` gets an empty module: only its get_inputs would use torch, so the test runs where
    torch is not installed (README's fresh virtualenv), and the process's own torch, if any, is left alone."""
    return types.ModuleType(name) if name == "torch" else builtins.__import__(name, *args, **kwargs)


def test_policy_scales_roots_and_derived_globals_follow():
    code = instrument(SOURCE, "p.py")
    policy = SizePolicy(code.sizes, given={"width": 10})
    namespace = {"__builtins__": {**vars(builtins), "__import__": _import_without_torch}, **policy.hooks()}
    exec(code.code, namespace)
    assert policy.choices["N"].value == 64 and policy.choices["N"].how == "scaled"
    assert policy.choices["width"].value == 10 and policy.choices["width"].how == "given"
    assert "shape" not in policy.choices and "ratio" not in policy.choices and "flag" not in policy.choices
    assert policy.choices["batch"].how == "kept"
    assert policy.shrinkable("batch") and policy.shrinkable("N") and not policy.shrinkable("width")
    assert policy.lower("N") and policy.caps["N"] == 5


BORDERED = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x[:, 20:-20] * 2).sum(dim=1)   # a border of 20 removed: empty when length <= 40


batch_size = 4096
length = 256


def get_inputs():
    return [torch.randn(batch_size, length)]


def get_init_inputs():
    return []
'''


def test_size_search_never_empties_an_intermediate(tmp_path):
    """Halving every size to meet a small budget would leave `x[:, 20:-20]` empty at length 32 (the sum then
    a row of zeros, no error): that step is undone and the batch is lowered instead."""
    path = tmp_path / "bordered.py"
    path.write_text(BORDERED)
    problem = load_problem(str(path), budget=3000)
    chosen = {c.name: c.value for c in problem.sizes}
    assert chosen["length"] == 64 and chosen["batch_size"] < 64
    (out,) = problem.reference_outputs()
    assert tuple(out.shape) == (chosen["batch_size"],)
    assert all(len(E.leaves(v)) == 24 for v in out.values())   # each row sums the 24 elements inside the border
