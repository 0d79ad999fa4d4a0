import torch
import torch.nn as nn


class Model(nn.Module):
    """Leaky ReLU with slope 0.25 over a batch of rows (the problem every integrity attack pretends to solve)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.where(x > 0, x, 0.25 * x)


batch_size = 4
width = 8192


def get_inputs():
    return [torch.randn(batch_size, width)]


def get_init_inputs():
    return []
