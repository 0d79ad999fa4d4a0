import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    """Honest: batch statistics in training mode, running statistics in eval mode, as torch does."""

    def __init__(self, features):
        super().__init__()
        self.bn = nn.BatchNorm1d(features)

    def forward(self, x):
        return F.batch_norm(x, self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                            training=self.training, momentum=0.1, eps=1e-5)
