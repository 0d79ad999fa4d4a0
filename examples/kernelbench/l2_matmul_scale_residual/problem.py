import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear layer, scaled, plus the linear output as a residual, then clamped."""

    def __init__(self, in_features, out_features, scaling_factor):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.matmul(x)
        original_x = x.clone().detach()
        x = x * self.scaling_factor
        x = x + original_x
        return torch.clamp(x, -1.0, 1.0)


batch_size = 128
in_features = 64
out_features = 128
scaling_factor = 0.5


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]
