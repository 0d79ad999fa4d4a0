import torch
import torch.nn as nn


class Model(nn.Module):
    """A per-channel bias held as (C, 1, 1), added to an NCHW input."""

    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(channels, 1, 1))

    def forward(self, x):
        return torch.relu(x + self.bias)


batch_size = 2
channels = 3
size = 4


def get_inputs():
    return [torch.randn(batch_size, channels, size, size)]


def get_init_inputs():
    return [channels]
