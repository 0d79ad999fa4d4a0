import torch
import torch.nn as nn


class Model(nn.Module):
    """HardSwish then ReLU6: two clamps between constants (torch's clamp is max first, then min)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nn.functional.relu6(torch.nn.functional.hardswish(x))


batch_size = 4
dim = 16


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
