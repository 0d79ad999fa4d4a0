import torch
import torch.nn as nn


class Model(nn.Module):
    """Instance normalization without affine parameters."""

    def __init__(self, num_features: int):
        super().__init__()
        self.norm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


batch_size = 2
features = 3
dim1 = 4
dim2 = 4


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
