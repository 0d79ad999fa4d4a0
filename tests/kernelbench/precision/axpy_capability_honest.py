import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """A path per architecture, both in float32 (honest)."""

    def forward(self, x, y):
        props = torch.cuda.get_device_properties(0)
        if props.major >= 9:
            return y + x + x + x
        return 3.0 * x + y
