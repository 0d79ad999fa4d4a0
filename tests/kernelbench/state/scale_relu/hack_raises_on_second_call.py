import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Right on its first call, raises on the next: never EQUIVALENT."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls > 1:
            raise RuntimeError("only one call was planned for")
        return torch.relu(x * self.factor)
