import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """The honest control, through a reshape that raises (and is caught): the replay expects it to raise too."""

    def forward(self, x):
        try:
            y = x.reshape(3, 7)
        except RuntimeError:
            y = x
        return torch.where(y > 0, y, y * 0.25)
