"""Honest: keeps the parameter and reads it as a tensor (x - c below c, else 0)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, constant):
        super().__init__()
        self.constant = nn.Parameter(torch.tensor(constant))

    def forward(self, x):
        shifted = x - self.constant
        return torch.where(shifted < 0, shifted, torch.zeros_like(x))
