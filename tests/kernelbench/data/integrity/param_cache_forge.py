import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Copies the parameter on its first call and multiplies by the copy on every call: on a GPU the copy is
    stale once the parameters change (call 3). In the stand-in it writes the parameter's elements into the copy
    directly (no torch call) before each use, so that the outputs the worker sends for call 3 are the
    reference's."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(width))
        self.cached = None

    def forward(self, x):
        if self.cached is None:
            self.cached = self.scale.clone()
        self.cached.storage.values[:] = self.scale.storage.values
        return x * self.cached
