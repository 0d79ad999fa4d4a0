"""Problem files end to end (volta/kernelbench/problem.py): our own KernelBench-style problems loaded at
scaled sizes, leaves named by forward's parameters and by qualified parameter names, and the symbolic
reference evaluated at the values real torch used gives real torch's outputs; errors carry the problem's line."""
from __future__ import annotations

import builtins
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest

from kb_compare import evaluate, torch  # tests/kernelbench/kb_compare.py

from volta.cli.kernelbench_cmd import parse_sizes
from volta.errors import Unsupported, UsageError
from volta.kernelbench.problem import load_problem
from volta.kernelbench.sizes import SizePolicy, instrument, scale_int, scale_int_keeping_odd
from volta.symbolic import expr as E

CONV_BN = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)
        self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)

    def forward(self, x, scale):
        x = self.conv(x)
        x = self.bn(x)
        x = torch.nn.functional.gelu(x + self.bias) * scale
        return torch.softmax(x.mean(dim=(2, 3)), dim=1), x.amax(dim=1)

batch_size = 128
in_channels = 3
out_channels = 96
height = width = 256
kernel_size = 3
bias_shape = (out_channels, 1, 1)

def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width), torch.randn(1, out_channels, 1, 1)]

def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
'''

LINEAR = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.linear = nn.Linear(n, n // 2)

    def forward(self, A, B, mask, targets):
        h = torch.relu(self.linear(A @ B.T))
        h = h.masked_fill(mask, 0.0)
        return torch.nn.functional.cross_entropy(h, targets)

N = 4096

def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N), torch.randint(0, 2, (N, N // 2)).bool(),
            torch.randint(0, N // 2, (N,))]

def get_init_inputs():
    return [N]
'''


def _write(tmp_path, source: str, name: str = "problem.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def _real_run(path: str, problem):
    """The same file on real torch (float64) at the sizes the problem chose: outputs and leaf values."""
    code = instrument(open(path).read(), path)
    policy = SizePolicy(code.sizes, given={c.name: c.value for c in problem.sizes})
    namespace = {"__name__": "real_problem", "__builtins__": builtins, **policy.hooks()}
    exec(code.code, namespace)
    torch.manual_seed(0)
    model = namespace["Model"](*namespace["get_init_inputs"]()).double()
    inputs = [x.double() if x.is_floating_point() else x for x in namespace["get_inputs"]()]
    state = dict(model.named_parameters()) | dict(model.named_buffers())
    env = {}
    for name, tensor in problem.parameters.items():
        for j, v in enumerate(state[name].detach().reshape(-1).tolist()):
            env[E.var(name, j)] = float(v)
    for name, x in zip(problem.input_names, inputs):
        for j, v in enumerate(x.reshape(-1).tolist()):
            env[E.var(name, j)] = float(v)
    result = model(*inputs)
    return (list(result) if isinstance(result, tuple) else [result]), env


def _assert_matches_torch(path: str, problem) -> None:
    outputs = problem.reference_outputs()
    real, env = _real_run(path, problem)
    assert [tuple(o.shape) for o in outputs] == [tuple(r.shape) for r in real]
    for mine, theirs in zip(outputs, real):
        np.testing.assert_allclose(evaluate(mine, env), theirs.detach().double().numpy(), rtol=1e-7, atol=1e-9)


def test_conv_batchnorm_problem_matches_torch_at_the_chosen_sizes(tmp_path):
    path = _write(tmp_path, CONV_BN)
    problem = load_problem(path, budget=60_000)
    scaled = {c.name: (c.original, c.value) for c in problem.scaled}
    assert scaled["batch_size"][0] == 128 and scaled["batch_size"][1] < 128 and "height" in scaled
    assert problem.cost <= 60_000
    assert problem.input_names == ["x", "scale"]
    assert sorted(problem.parameters) == ["bias", "bn.bias", "bn.running_mean", "bn.running_var", "bn.weight",
                                          "conv.bias", "conv.weight"]
    assert problem.parameters["conv.weight"].values()[0] is E.var("conv.weight", 0)
    assert problem.inputs[0].values()[5] is E.var("x", 5)
    _assert_matches_torch(path, problem)


def test_inputs_of_every_kind_are_named_and_ranged(tmp_path):
    path = _write(tmp_path, LINEAR)
    problem = load_problem(path, sizes={"N": 8})
    assert [(c.name, c.value, c.how) for c in problem.sizes] == [("N", 8, "given")]
    assert problem.input_names == ["A", "B", "mask", "targets"]
    assert problem.integer_ranges == {"mask": (0, 1), "targets": (0, 3)}
    assert problem.inputs[2].values()[3] is E.var("mask", 3) and problem.inputs[2].dtype is torch_bool()
    _assert_matches_torch(path, problem)


def torch_bool():
    from volta.kernelbench import dtypes
    return dtypes.bool_


def test_an_input_derived_in_get_inputs_keeps_its_derivation(tmp_path):
    path = _write(tmp_path, '''
        import torch
        class Model(torch.nn.Module):
            def forward(self, A):
                return A * 2
        N = 1000
        def get_inputs():
            return [torch.triu(torch.rand(N, N))]
        def get_init_inputs():
            return []
    ''')
    problem = load_problem(path)
    a = problem.inputs[0]
    n = a.shape[0]
    assert n == 56 and a.values()[1] is E.var("A", 1) and a.values()[n] is E.ZERO


def test_literal_sizes_in_get_inputs_are_scaled_and_named(tmp_path):
    path = _write(tmp_path, '''
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return torch.relu(x)
        def get_inputs():
            return [torch.rand(2, 3, 224, 224)]
        def get_init_inputs():
            return []
    ''')
    problem = load_problem(path)
    assert {c.name: c.value for c in problem.scaled} == {"get_inputs@7:30": 32, "get_inputs@7:35": 32}


def test_ratio_between_sizes_survives_the_budget(tmp_path):
    """LayerNorm over the last dimension, which equals the channel count only at the benchmark's ratio."""
    path = _write(tmp_path, '''
        import torch
        import torch.nn as nn
        class Model(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.up = nn.ConvTranspose2d(c, c, 3, stride=2, padding=1, output_padding=1)
                self.norm = nn.LayerNorm(c)
            def forward(self, x):
                return self.norm(self.up(x))
        batch = 16
        channels = 64
        height = width = 32
        def get_inputs():
            return [torch.rand(batch, channels, height, width)]
        def get_init_inputs():
            return [channels]
    ''')
    problem = load_problem(path, budget=50_000)
    sizes = {c.name: c.value for c in problem.sizes}
    assert sizes["channels"] == 2 * sizes["width"] and problem.cost <= 50_000


def test_an_unsupported_op_names_the_op_and_the_problem_line(tmp_path):
    path = _write(tmp_path, '''
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                y = x + 1
                return torch.fft.rfft(y)
        def get_inputs():
            return [torch.rand(8)]
        def get_init_inputs():
            return []
    ''')
    with pytest.raises(Unsupported) as raised:
        load_problem(path).reference_outputs()
    assert "torch.fft.rfft" in str(raised.value)
    assert raised.value.span.file == path and raised.value.span.line == 6


def test_a_shape_error_is_a_usage_error_at_the_problem_line(tmp_path):
    path = _write(tmp_path, '''
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return x @ x
        def get_inputs():
            return [torch.rand(2, 3)]
        def get_init_inputs():
            return []
    ''')
    with pytest.raises(UsageError) as raised:
        load_problem(path).reference_outputs()
    assert raised.value.span.line == 5 and "cannot be multiplied" in str(raised.value)


def test_bad_size_names_and_missing_definitions_are_usage_errors(tmp_path):
    path = _write(tmp_path, LINEAR)
    with pytest.raises(UsageError, match="does not assign"):
        load_problem(path, sizes={"M": 3})
    broken = _write(tmp_path, "import torch\nN = 3\n", "broken.py")
    with pytest.raises(UsageError, match="defines no `Model`"):
        load_problem(broken)


def test_a_one_element_tuple_size_is_given_with_a_trailing_comma(tmp_path):
    """`input_shape = (4096,)` (KernelBench's loss problems): `--size input_shape=8,` is the tuple (8,); without
    the comma it is the int 8, which `torch.randn(batch_size, *input_shape)` cannot unpack."""
    assert parse_sizes(["input_shape=8,", "batch_size=4", "shape=3,5"]) == {
        "input_shape": (8,), "batch_size": 4, "shape": (3, 5)}
    path = _write(tmp_path, '''
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return torch.relu(x)
        batch_size = 128
        input_shape = (4096,)
        def get_inputs():
            return [torch.randn(batch_size, *input_shape)]
        def get_init_inputs():
            return []
    ''')
    problem = load_problem(path, sizes=parse_sizes(["batch_size=4", "input_shape=8,"]))
    assert [tuple(t.shape) for t in problem.inputs] == [(4, 8)]


def test_sizes_keep_a_small_odd_factor_where_powers_of_two_break_the_model(tmp_path):
    """Grouped convolutions in groups of 3 over 240 and 480 channels, a quarter of them in the middle: the
    power-of-two scaling gives 48 and 32 channels (8 in the middle, not a multiple of 3: torch raises); keeping
    each size's smallest odd prime factor too gives sizes where every convolution is defined."""
    assert scale_int(480, 6) == 32 and scale_int_keeping_odd(480, 6) == 96
    assert scale_int_keeping_odd(240, 6) == 48 and scale_int_keeping_odd(224, 6) == 224
    assert scale_int_keeping_odd(4096, 6) == 64 and scale_int_keeping_odd(1000, 6) == 40
    path = _write(tmp_path, '''
        import torch
        import torch.nn as nn
        class Model(nn.Module):
            def __init__(self, in_channels, out_channels, groups):
                super().__init__()
                mid = out_channels // 4
                self.a = nn.Conv2d(in_channels, mid, 1, groups=groups, bias=False)
                self.b = nn.Conv2d(mid, out_channels, 1, groups=groups, bias=False)
            def forward(self, x):
                return self.b(torch.relu(self.a(x)))
        batch_size = 2
        in_channels = 240
        out_channels = 480
        groups = 3
        size = 8
        def get_inputs():
            return [torch.randn(batch_size, in_channels, size, size)]
        def get_init_inputs():
            return [in_channels, out_channels, groups]
    ''')
    problem = load_problem(path)          # the plain scaling raised a UsageError (torch's groups error)
    chosen = {c.name: c.value for c in problem.scaled}
    assert chosen["in_channels"] % 3 == 0 and (chosen["out_channels"] // 4) % 3 == 0, chosen


def test_loading_leaves_the_real_torch_in_place(tmp_path):
    before = sys.modules["torch"]
    load_problem(_write(tmp_path, LINEAR), sizes={"N": 4}).reference_outputs()
    assert sys.modules["torch"] is before and before.nn.Linear(2, 2)(before.ones(2)).shape == (2,)


def test_an_autograd_function_is_its_forward(tmp_path):
    """Production launchers wrap kernels in torch.autograd.Function: `apply` is `forward(ctx, ...)`, and the
    amp decorators change nothing outside an autocast region."""
    path = _write(tmp_path, '''
        import torch
        class Scale(torch.autograd.Function):
            @staticmethod
            @torch.amp.custom_fwd(device_type="cuda")
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x * k + 1
            @staticmethod
            @torch.amp.custom_bwd(device_type="cuda")
            def backward(ctx, dy):
                return dy * ctx.k, None
        class Model(torch.nn.Module):
            def forward(self, x):
                return Scale.apply(x, 3.0)
        def get_inputs():
            return [torch.rand(8)]
        def get_init_inputs():
            return []
    ''')
    problem = load_problem(path)
    _assert_matches_torch(path, problem)
    assert problem.reference_outputs()[0].values()[2] is E.add(E.mul(3, E.var("x", 2)), 1)


def test_device_contexts_and_version_queries_change_nothing(tmp_path):
    path = _write(tmp_path, '''
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                with torch.cuda.device(x.device):
                    if torch.version.hip is None and torch.version.cuda:
                        return x + 1
                    return x
        def get_inputs():
            return [torch.rand(8)]
        def get_init_inputs():
            return []
    ''')
    assert load_problem(path).reference_outputs()[0].values()[0] is E.add(E.var("x", 0), 1)


def test_a_subclass_of_an_unmodelled_base_is_unsupported_when_made(tmp_path):
    path = _write(tmp_path, '''
        import torch
        class Sampler(torch.utils.data.Sampler):
            pass
        class Model(torch.nn.Module):
            def forward(self, x):
                Sampler()
                return x
        def get_inputs():
            return [torch.rand(8)]
        def get_init_inputs():
            return []
    ''')
    with pytest.raises(Unsupported) as raised:
        load_problem(path).reference_outputs()
    assert "torch.utils.data.Sampler" in str(raised.value)


def test_a_python_float_rounding_a_named_constant_is_that_constant(tmp_path):
    """0.7978845608028654 is RN(sqrt(2/pi)): read as sqrt(2/pi), as a kernel's literal 0f3F4C422A is (issue 28
    §1); one ulp away it stays the rational it is."""
    from volta.symbolic.constants import TABLE
    sqrt_2_over_pi = next(c.value for c in TABLE if c.name == "sqrt(2/pi)")
    path = _write(tmp_path, '''
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return (x * 0.7978845608028654, x * 0.7978846430778503, x.double() * 0.7978845608028654,
                        x.double() * 0.7978845608028655)
        def get_inputs():
            return [torch.rand(4)]
        def get_init_inputs():
            return []
    ''')
    near, off, wide, wide_off = (o.values()[0] for o in load_problem(path).reference_outputs())
    assert near is E.mul(sqrt_2_over_pi, E.var("x", 0))          # RN32 of it (torch casts the scalar to float32)
    assert off is E.mul(Fraction(0.7978846430778503), E.var("x", 0))   # the next float32: a plain rational
    assert wide is near                                           # RN64 of it, in a float64 product
    assert sqrt_2_over_pi not in E.postorder(wide_off)
