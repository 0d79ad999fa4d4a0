import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales the input, adds a second tensor, then applies GELU (erf form)."""

    def __init__(self, scale):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x, y):
        return torch.nn.functional.gelu(x * self.scale + y)


batch_size = 128
features = 1000
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, features), torch.randn(batch_size, features)]


def get_init_inputs():
    return [scale]
