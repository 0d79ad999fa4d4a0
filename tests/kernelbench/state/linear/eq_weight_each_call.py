import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Honest: the weight read on every call."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.addmm(self.linear.bias, x, self.linear.weight.t())
