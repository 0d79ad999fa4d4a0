import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU in place: the input itself is the output."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.relu_()


batch_size = 8
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
