import torch
import torch.nn as nn


class Model(nn.Module):
    """Mish: x·tanh(log1p(e^x)), no threshold (torch's mish)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nn.functional.mish(x)


batch_size = 4
dim = 16


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
