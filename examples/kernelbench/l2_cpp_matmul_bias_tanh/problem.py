import torch
import torch.nn as nn


class Model(nn.Module):
    """x @ W, plus a bias, then tanh."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        return torch.tanh(torch.matmul(x, self.weight) + self.bias)


batch_size = 96
in_features = 256
out_features = 256


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
