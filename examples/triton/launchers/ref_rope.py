"""Reference for rope.rope_fwd: rotate_half(x) * sin + x * cos with the half-size tables repeated."""
import torch

batch, q_heads, kv_heads, seq, head_dim = 1, 4, 2, 2, 64


def get_inputs():
    return [torch.randn(batch, q_heads, seq, head_dim), torch.randn(batch, kv_heads, seq, head_dim),
            torch.randn(seq, head_dim // 2), torch.randn(seq, head_dim // 2)]


def _rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope_fwd(q, k, cos, sin):
    c = torch.cat((cos, cos), dim=-1)
    s = torch.cat((sin, sin), dim=-1)
    return q * c + _rotate_half(q) * s, k * c + _rotate_half(k) * s
