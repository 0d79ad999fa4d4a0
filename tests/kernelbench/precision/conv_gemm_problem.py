import torch
import torch.nn as nn


class Model(nn.Module):
    """A 1x1 convolution, then a linear layer over the flattened result."""

    def __init__(self, channels, features):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)
        self.linear = nn.Linear(channels * 4, features)

    def forward(self, x):
        return self.linear(self.conv(x).flatten(1))


batch_size = 2
channels = 2
features = 3


def get_inputs():
    return [torch.randn(batch_size, channels, 2, 2)]


def get_init_inputs():
    return [channels, features]
