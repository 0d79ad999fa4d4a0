"""Reference for activations.geglu_bwd: the derivative of tanh-GELU, d/da tanh(u) = (1 - tanh(u)^2) u'."""
import torch

rows, cols = 4, 64
C = 0.7978845608028654


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols), torch.randn(rows, cols)]


def geglu_bwd(dc, a, b):
    t = torch.tanh(C * (a + 0.044715 * a ** 3))
    gelu = 0.5 * a * (1 + t)
    dgelu = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * C * (1 + 3 * 0.044715 * a * a)
    return dc * b * dgelu, dc * gelu
