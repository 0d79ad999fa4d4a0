import torch
import torch.nn as nn


class Model(nn.Module):
    """Logarithms and a power: log1p(x) + log(x + 1.5) + x**3 - log2(x + 2) * expm1(x)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log1p(x) + torch.log(x + 1.5) + torch.pow(x, 3) - torch.log2(x + 2) * torch.expm1(x)


batch_size = 4
dim = 64


def get_inputs():
    return [torch.rand(batch_size, dim) + 0.5]   # derived from rand: a witness shows the input, not the leaf


def get_init_inputs():
    return []
