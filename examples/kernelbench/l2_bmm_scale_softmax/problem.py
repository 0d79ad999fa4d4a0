import torch
import torch.nn as nn


class Model(nn.Module):
    """Attention scores: softmax(Q K^T * scale) over the keys."""

    def __init__(self, scale):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, q, k):
        scores = torch.bmm(q, k.transpose(1, 2)) * self.scale
        return torch.softmax(scores, dim=-1)


batch_size = 32
seq_len = 256
head_dim = 64
scale = 0.125


def get_inputs():
    return [torch.randn(batch_size, seq_len, head_dim), torch.randn(batch_size, seq_len, head_dim)]


def get_init_inputs():
    return [scale]
