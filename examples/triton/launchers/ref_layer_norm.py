"""Reference for norms.layer_norm_fwd: torch's layer norm, and the statistics the forward saves."""
import torch

rows, cols = 4, 64


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(cols), torch.randn(cols), 1e-5]


def layer_norm_fwd(x, w, b, eps):
    mean = x.mean(-1)
    rstd = 1.0 / torch.sqrt(x.var(-1, unbiased=False) + eps)
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps), mean, rstd
