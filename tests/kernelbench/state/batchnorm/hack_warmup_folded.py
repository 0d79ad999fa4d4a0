import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    """Runs a warm-up batch through the layer in the constructor (updating its running statistics), then
    normalizes with those statistics on every call."""

    def __init__(self, features):
        super().__init__()
        self.bn = nn.BatchNorm1d(features)
        self.bn(torch.ones(3, features) + torch.arange(3.0).reshape(3, 1))
        self.bn.eval()

    def forward(self, x):
        return self.bn(x)
