import torch
import torch.nn as nn


class Model(nn.Module):
    """Batched matrix product: (batch, m, k) x (batch, k, n)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


batch_size = 3
m = 5
k = 4
n = 6


def get_inputs():
    return [torch.randn(batch_size, m, k), torch.randn(batch_size, k, n)]


def get_init_inputs():
    return []
