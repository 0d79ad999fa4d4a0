import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """The honest control: the same function, written another way."""

    def forward(self, x):
        return torch.where(x > 0, x, x * 0.25)
