import torch
import torch.nn as nn


class Model(nn.Module):
    """x scaled, then clamped to [clamp_min, clamp_max] (module globals passed through get_init_inputs)."""

    def __init__(self, scale, clamp_min, clamp_max):
        super().__init__()
        self.scale, self.clamp_min, self.clamp_max = scale, clamp_min, clamp_max

    def forward(self, x):
        return torch.clamp(x * self.scale, self.clamp_min, self.clamp_max)


batch_size = 4
features = 40
scale = 2.0
clamp_min = -0.5
clamp_max = 0.75


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [scale, clamp_min, clamp_max]
