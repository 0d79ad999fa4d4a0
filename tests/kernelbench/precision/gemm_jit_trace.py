import torch
import torch.nn as nn


@torch.jit.script
def scaled_tanh(y):
    return torch.tanh(y) * 2.0


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = torch.jit.freeze(torch.jit.trace(nn.Linear(in_features, out_features),
                                                       torch.randn(1, in_features)))

    def forward(self, x):
        return scaled_tanh(self.linear(x))
