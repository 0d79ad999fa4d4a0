"""Reference for blocks.absmax_scale_rows: rows over their largest magnitude."""
import torch

rows, cols = 5, 32


def get_inputs():
    return [torch.randn(rows, cols)]


def absmax_scale_rows(x):
    amax = x.abs().amax(-1)
    return x / amax[:, None], amax
