"""Reference for bugs.shift_left_inplace: x shifted left by one, the last element 0."""
import torch

n = 128


def get_inputs():
    return [torch.randn(n)]


def shift_left_inplace(x):
    return torch.cat((x[1:], torch.zeros(1)))
