import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Honest: a workspace cached per shape, recomputed into on every call; the result returned is a copy."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor
        self.workspace = {}

    def forward(self, x):
        key = tuple(x.shape)
        if key not in self.workspace:
            self.workspace[key] = torch.empty_like(x)
        buf = self.workspace[key]
        torch.mul(x, self.factor, out=buf)
        return torch.relu(buf)
