import torch
import torch.nn as nn


class Inner(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return torch.relu(x * self.factor)


class ModelNew(nn.Module):
    """make_graphed_callables, its output returned as it is: torch's graphed callable returns the static
    output, which the next call overwrites."""

    def __init__(self, factor):
        super().__init__()
        self.inner = torch.cuda.make_graphed_callables(Inner(factor), (torch.zeros(4, 8),))

    def forward(self, x):
        return self.inner(x)
