"""Reads the parameter's Python value with .item(): right for every value the parameter holds on a GPU, but
Volta keeps the parameter free, so the value is not known to it (UNSUPPORTED, never a false NOT EQUIVALENT)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, constant):
        super().__init__()
        self.constant = nn.Parameter(torch.tensor(constant))

    def forward(self, x):
        c = self.constant.item()
        return torch.clamp(x, max=c) - c
