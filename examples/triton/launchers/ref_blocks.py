"""References for blocks.py: 6 rows of 32 columns (the last program's second row is past the end)."""
import torch

rows, cols = 5, 32


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(cols), 1e-6]


def rms_norm_rows(x, w, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w
