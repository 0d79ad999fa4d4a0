"""Reference for norms.layer_norm_train_step: the layer norm and its gradients, written out in torch."""
import torch

rows, cols = 4, 64


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(cols), torch.randn(cols), torch.randn(rows, cols), 1e-5]


def layer_norm_train_step(x, w, b, dy, eps):
    mean = x.mean(-1, keepdim=True)
    rstd = 1.0 / torch.sqrt(((x - mean) ** 2).mean(-1, keepdim=True) + eps)
    xhat = (x - mean) * rstd
    y = xhat * w + b
    wdy = w * dy
    dx = (wdy - (xhat * (xhat * wdy).mean(-1, keepdim=True) + wdy.mean(-1, keepdim=True))) * rstd
    return y, dx, (dy * xhat).sum(0), dy.sum(0)
