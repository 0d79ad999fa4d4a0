import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix-scalar multiplication C = A * s."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        return A * s


M = 16384
N = 4096


def get_inputs():
    A = torch.randn(M, N)
    s = 3.14
    return [A, s]


def get_init_inputs():
    return []
