import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """No custom kernel at all: the work stays in torch (a candidate that only rewrites the call)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp(x, min=0.0)
