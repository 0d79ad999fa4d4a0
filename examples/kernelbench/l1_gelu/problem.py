import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """GELU activation (the exact, erf-based form)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x)


batch_size = 64
dim = 8192


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
