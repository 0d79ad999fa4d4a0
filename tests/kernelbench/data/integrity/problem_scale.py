import torch
import torch.nn as nn


class Model(nn.Module):
    """A learned scale per element (the problem the parameter attack pretends to solve)."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(width))

    def forward(self, x):
        return x * self.scale


width = 256


def get_inputs():
    return [torch.randn(width)]


def get_init_inputs():
    return []
