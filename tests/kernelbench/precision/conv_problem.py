import torch
import torch.nn as nn


class Model(nn.Module):
    """A 3x3 convolution followed by ReLU."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


batch_size = 1
in_channels = 2
out_channels = 2
size = 4


def get_inputs():
    return [torch.randn(batch_size, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels]
