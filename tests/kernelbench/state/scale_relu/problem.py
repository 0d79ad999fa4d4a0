import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales its input by a constant and applies ReLU."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return torch.relu(x * self.factor)


batch_size = 4
features = 8
factor = 2.0


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [factor]
