import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales, then dropout (random in training mode, the identity in eval mode)."""

    def __init__(self, p):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return self.dropout(x * 2.0)


batch_size = 2
features = 4
p = 0.5


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [p]
