"""Rotary position embedding applied in place to q and k, as production libraries write it.

One program per (batch, position) row of q and k, laid out (batch * seq, heads * head_dim); the cos and sin
tables are (seq, head_dim / 2). A program loads a (heads, head_dim / 2) tile of each half, rotates it and
stores it back where it came from. With 2 kv heads of 64 the k tile has 64 elements and 4 warps hold each one
twice: replicas load what another replica stores (Triton predicates the store to one of them).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rope_fwd(q_ptr, q_row_stride, k_ptr, k_row_stride, cos, cos_row_stride, sin, sin_row_stride, sl,
              n_qh: tl.constexpr, n_kh: tl.constexpr, hd: tl.constexpr, pad_n_qh: tl.constexpr,
              pad_n_kh: tl.constexpr, pad_hd: tl.constexpr):
    pid = tl.program_id(0)
    q_ptr = q_ptr + pid * q_row_stride
    k_ptr = k_ptr + pid * k_row_stride
    cos_row = pid % sl
    cos = cos + cos_row * cos_row_stride
    sin = sin + cos_row * sin_row_stride
    half = tl.arange(0, pad_hd // 2)
    half_mask = half < hd // 2
    cos_vals = tl.load(cos + half, mask=half_mask, other=0)
    sin_vals = tl.load(sin + half, mask=half_mask, other=0)

    q_offs = tl.arange(0, pad_n_qh)[:, None] * hd + half[None, :]
    k_offs = tl.arange(0, pad_n_kh)[:, None] * hd + half[None, :]
    q_mask = (tl.arange(0, pad_n_qh)[:, None] < n_qh) & half_mask[None, :]
    k_mask = (tl.arange(0, pad_n_kh)[:, None] < n_kh) & half_mask[None, :]
    q1 = tl.load(q_ptr + q_offs, mask=q_mask, other=0)
    k1 = tl.load(k_ptr + k_offs, mask=k_mask, other=0)
    q2 = tl.load(q_ptr + q_offs + hd // 2, mask=q_mask, other=0)
    k2 = tl.load(k_ptr + k_offs + hd // 2, mask=k_mask, other=0)
    tl.store(q_ptr + q_offs, q1 * cos_vals - q2 * sin_vals, mask=q_mask)
    tl.store(q_ptr + q_offs + hd // 2, q2 * cos_vals + q1 * sin_vals, mask=q_mask)
    tl.store(k_ptr + k_offs, k1 * cos_vals - k2 * sin_vals, mask=k_mask)
    tl.store(k_ptr + k_offs + hd // 2, k2 * cos_vals + k1 * sin_vals, mask=k_mask)


def rope_fwd(q, k, cos, sin):
    """q, k: (batch, heads, seq, head_dim), rotated in place (through a transposed copy, as launchers do)."""
    q = q.transpose(1, 2).contiguous()
    k = k.transpose(1, 2).contiguous()
    batch, seq, n_qh, hd = q.shape
    n_kh = k.shape[2]
    pad_hd = triton.next_power_of_2(hd)
    pad_n_qh = triton.next_power_of_2(n_qh)
    pad_n_kh = triton.next_power_of_2(n_kh)
    n_row = batch * seq
    _rope_fwd[(n_row,)](q, q.stride(1), k, k.stride(1), cos, cos.stride(-2), sin, sin.stride(-2), seq,
                        n_qh, n_kh, hd, pad_n_qh, pad_n_kh, pad_hd, num_warps=4)
    return q.transpose(1, 2), k.transpose(1, 2)
