"""Reference for norms.rms_norm_train_step: the RMS norm and its gradients, written out in torch."""
import torch

rows, cols = 4, 64


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(cols), torch.randn(rows, cols), 1e-6]


def rms_norm_train_step(x, w, dy, eps):
    rstd = 1.0 / torch.sqrt((x * x).mean(-1, keepdim=True) + eps)
    m = dy * w
    dx = rstd * m - rstd ** 3 / x.shape[-1] * (m * x).sum(-1, keepdim=True) * x
    return x * rstd * w, dx, (dy * x * rstd).sum(0)
