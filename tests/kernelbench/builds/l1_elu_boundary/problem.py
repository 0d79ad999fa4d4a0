import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """ELU: x above 0, alpha * (exp(x) - 1) at and below 0 (torch's condition is x > 0)."""

    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.elu(x, alpha=self.alpha)


batch_size = 4
dim = 48


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [0.75]
