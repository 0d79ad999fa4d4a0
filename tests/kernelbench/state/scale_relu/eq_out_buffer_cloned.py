import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Honest: the same kept buffer, but the caller gets a copy."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor
        self.out = torch.empty(4, 8)

    def forward(self, x):
        torch.mul(x, self.factor, out=self.out)
        return self.out.relu_().clone()
