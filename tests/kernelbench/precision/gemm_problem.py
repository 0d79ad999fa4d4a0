import torch
import torch.nn as nn


class Model(nn.Module):
    """A batch of rows times a weight matrix, then a scaled tanh."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.tanh(self.linear(x)) * 2.0


batch_size = 4
in_features = 8
out_features = 4


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
