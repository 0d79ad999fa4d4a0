import torch
import torch.nn as nn


class Model(nn.Module):
    """Batch normalization of a (batch, features) input: batch statistics in training mode."""

    def __init__(self, features):
        super().__init__()
        self.bn = nn.BatchNorm1d(features)

    def forward(self, x):
        return self.bn(x)


batch_size = 3
features = 2


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
