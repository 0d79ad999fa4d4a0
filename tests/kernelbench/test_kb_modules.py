"""nn modules of the torch stand-in against torch with the same parameter values: layers, norms in
training mode (running statistics updated like torch's), activations, pools, containers; registration and
qualified names; dropout."""
from __future__ import annotations

import pytest

from kb_compare import Arg, compare_module  # tests/kernelbench/kb_compare.py

from volta.errors import Unsupported
from volta.kernelbench.torchsym import installed, new_run

MODULES = [
    ("linear", lambda nn: nn.Linear(4, 3), (2, 4)),
    ("linear_nobias", lambda nn: nn.Linear(4, 3, bias=False), (2, 5, 4)),
    ("bilinear", lambda nn: _Pair(nn.Bilinear(3, 3, 2)), (2, 3)),
    ("conv1d", lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding=1, groups=2), (2, 2, 7)),
    ("conv2d", lambda nn: nn.Conv2d(2, 3, (2, 3), padding=(1, 0), dilation=(1, 2)), (1, 2, 5, 6)),
    ("conv3d", lambda nn: nn.Conv3d(1, 2, 2, stride=(1, 2, 1)), (1, 1, 3, 4, 3)),
    ("conv_transpose1d", lambda nn: nn.ConvTranspose1d(2, 2, 3, stride=2, output_padding=1, dilation=1), (1, 2, 4)),
    ("conv_transpose2d", lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, groups=2), (1, 4, 3, 3)),
    ("conv_transpose3d", lambda nn: nn.ConvTranspose3d(2, 2, (2, 1, 2), stride=(2, 1, 1), padding=(0, 0, 1),
                                                       output_padding=(1, 0, 0), bias=False), (1, 2, 2, 3, 3)),
    ("batchnorm1d", lambda nn: nn.BatchNorm1d(3), (4, 3)),
    ("batchnorm2d", lambda nn: nn.BatchNorm2d(3, momentum=0.3, eps=1e-3), (2, 3, 2, 2)),
    ("batchnorm3d_noaffine", lambda nn: nn.BatchNorm3d(2, affine=False), (2, 2, 2, 1, 2)),
    ("instancenorm2d", lambda nn: nn.InstanceNorm2d(3), (2, 3, 3, 2)),
    ("instancenorm1d_affine", lambda nn: nn.InstanceNorm1d(3, affine=True), (2, 3, 4)),
    ("layernorm", lambda nn: nn.LayerNorm((3, 4)), (2, 3, 4)),
    ("groupnorm", lambda nn: nn.GroupNorm(2, 4), (2, 4, 3)),
    ("rmsnorm", lambda nn: nn.RMSNorm(4), (3, 4)),
    ("sequential", lambda nn: nn.Sequential(nn.Linear(4, 5), nn.GELU(), nn.Dropout(0.0), nn.Linear(5, 2),
                                            nn.Softmax(dim=1)), (3, 4)),
    ("activations", lambda nn: nn.Sequential(nn.LeakyReLU(0.2), nn.ELU(), nn.SELU(), nn.Hardtanh(-1, 0.5), nn.Mish(),
                                             nn.Hardswish(), nn.SiLU(), nn.Softplus(beta=2), nn.Tanh(), nn.Sigmoid(),
                                             nn.GELU(approximate="tanh"), nn.ReLU(inplace=True), nn.PReLU()), (2, 6)),
    ("pools2d", lambda nn: nn.Sequential(nn.MaxPool2d(2, ceil_mode=True), nn.AvgPool2d(2, 1, padding=1),
                                         nn.AdaptiveAvgPool2d((2, 1))), (1, 2, 5, 5)),
    ("pools3d", lambda nn: nn.Sequential(nn.MaxPool3d(2, stride=1), nn.AvgPool3d((1, 2, 2), ceil_mode=True,
                                                                                count_include_pad=False)),
     (1, 2, 3, 4, 4)),
    ("pools1d", lambda nn: nn.Sequential(nn.MaxPool1d(3, 2, 1), nn.AvgPool1d(2), nn.AdaptiveMaxPool1d(2)), (2, 2, 9)),
    ("flatten", lambda nn: nn.Sequential(nn.Flatten(), nn.Unflatten(1, (2, 6)), nn.LogSoftmax(-1)), (2, 3, 4)),
    ("modulelist", lambda nn: _Stack(nn), (2, 3)),
]


class _Pair:
    """nn.Bilinear applied to (x, x) as a one-input module (built with whichever nn it is given)."""

    def __new__(cls, layer):
        outer = type(layer).__mro__[-2]            # the Module class of the same namespace

        class Pair(outer):
            def __init__(self):
                super().__init__()
                self.layer = layer

            def forward(self, x):
                return self.layer(x, x * 2)
        return Pair()


def _Stack(nn):
    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
            self.scale = nn.Parameter(nn.Linear(3, 1).weight.detach().clone())
            self.register_buffer("offset", self.scale.detach()[0] * 0 + 0.25)   # a constant buffer

        def forward(self, x):
            for layer in self.layers:
                x = layer(x).relu()
            return x * self.scale + self.offset
    return Stack()


@pytest.mark.parametrize("name,make,shape", MODULES, ids=[m[0] for m in MODULES])
def test_module_matches_torch(name, make, shape):
    compare_module(make, Arg(shape))


def test_batchnorm_in_eval_mode_uses_running_statistics():
    compare_module(lambda nn: nn.BatchNorm2d(3), Arg((2, 3, 2, 2)), train=False)


def test_parameters_and_buffers_have_torchs_qualified_names():
    with installed(new_run()) as t:
        nn = t.nn
        model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
        names = [n for n, _ in model.named_parameters()] + [n for n, _ in model.named_buffers()]
    import torch
    real = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.ReLU())
    expected = [n for n, _ in real.named_parameters()] + [n for n, _ in real.named_buffers()]
    assert names == expected


def test_dropout_in_training_is_unsupported_and_the_identity_otherwise():
    with installed(new_run()) as t:
        x = t.rand(2, 3)
        drop = t.nn.Dropout(0.25)
        with pytest.raises(Unsupported, match="p=0.25 in training mode"):
            drop(x)
        assert drop.eval()(x) is x
        assert t.nn.functional.dropout(x, 0.5, training=False) is x


def test_a_parameter_made_in_forward_is_unsupported():
    run = new_run()
    with installed(run) as t:
        x = t.rand(2, 3)
        run.random_allowed = False
        with pytest.raises(Unsupported, match="random numbers in forward"):
            t.nn.Linear(3, 3)(x)


def test_fan_in_and_fan_out_are_torchs():
    """`nn.init._calculate_fan_in_and_fan_out`, which candidates copy from nn.Linear.reset_parameters to bound
    their own init: torch's numbers, and torch's error below two dimensions."""
    import torch
    with installed(new_run()) as t:
        for shape in [(3, 4), (6, 2, 3, 5), (2, 7, 3)]:
            mine = t.nn.init._calculate_fan_in_and_fan_out(t.empty(*shape))
            assert mine == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
        with pytest.raises(ValueError, match="fewer than 2 dimensions"):
            t.nn.init._calculate_fan_in_and_fan_out(t.empty(3))
