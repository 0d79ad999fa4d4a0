"""A parameter made from a constant (not drawn at random): min(x, c) - c with c an nn.Parameter."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, constant):
        super().__init__()
        self.constant = nn.Parameter(torch.tensor(constant))

    def forward(self, x):
        return torch.min(x, self.constant) - self.constant


batch = 4
features = 8
constant = 0.5


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [constant]
