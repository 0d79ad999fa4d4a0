import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """The honest control of state_forge.py: a workspace allocated on the first call and kept on the module, each
    call's leaky ReLU computed into it and returned as a copy."""

    def __init__(self):
        super().__init__()
        self.workspace = None

    def forward(self, x):
        if self.workspace is None or self.workspace.shape != x.shape:
            self.workspace = torch.empty_like(x)
        torch.where(x > 0, x, 0.25 * x, out=self.workspace)
        return self.workspace.clone()
