import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer (its weight and bias are parameters that training changes)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)


batch_size = 2
in_features = 4
out_features = 3


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
