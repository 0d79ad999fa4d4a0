import torch
import torch.nn as nn


class Model(nn.Module):
    """A pointwise (1x1) convolution, bias, ReLU."""

    def __init__(self, in_channels, out_channels):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


batch_size = 8
in_channels = 32
out_channels = 64
height, width = 32, 32


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
