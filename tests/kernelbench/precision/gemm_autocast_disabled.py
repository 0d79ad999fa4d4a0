import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """An autocast region turned off: float32 throughout (honest)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        with torch.autocast("cuda", enabled=False):
            y = self.linear(x)
        return torch.tanh(y) * 2.0
