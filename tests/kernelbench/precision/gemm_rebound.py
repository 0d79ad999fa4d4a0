import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """forward is rebound at construction to a method that drops the tanh (wrong)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.forward = self.fast_forward

    def forward(self, x):
        return torch.tanh(self.linear(x)) * 2.0

    def fast_forward(self, x):
        return self.linear(x) * 2.0
