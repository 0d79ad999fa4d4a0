"""Reference for norms.layer_norm_fwd without a bias: get_inputs passes None, as a model without one does."""
import torch

rows, cols = 4, 64


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(cols), None, 1e-5]


def layer_norm_fwd(x, w, b, eps):
    mean = x.mean(-1)
    rstd = 1.0 / torch.sqrt(x.var(-1, unbiased=False) + eps)
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps), mean, rstd
