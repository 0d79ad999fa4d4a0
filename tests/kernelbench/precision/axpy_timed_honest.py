import torch
import torch.nn as nn


def fused(x, y):
    return y + x + x + x


def plain(x, y):
    return 3.0 * x + y


class ModelNew(nn.Module):
    """Times two correct implementations with CUDA events on every call and runs the faster one."""

    def forward(self, x, y):
        times = []
        for fn in (fused, plain):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn(x, y)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        return (fused, plain)[times.index(min(times))](x, y)
