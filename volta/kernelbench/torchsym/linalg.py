"""Products: matmul (torch's 1-D and batch-broadcast rules), mm, bmm, mv, dot, outer, addmm, baddbmm,
einsum, linear and bilinear.

Each output element is the sum over k of products, built by numpy's matmul over the kit's elements
(object arrays: `Expr.__mul__`/`__add__`), so it is the chain a kernel's inner loop builds. linear is
x·Wᵀ + b, torch's addmm with the bias added to the finished sum.
"""
from __future__ import annotations

import math
import re

import numpy as np

from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.torchsym.core import elementwise, new, operand, result_type
from volta.kernelbench.torchsym.switches import reduced_operands


def _arrays(a, b):
    dtype = result_type(a, b)
    kit = a.session.kit
    return dtype, kit, operand(a, dtype, kit), operand(b, dtype, kit)


def matmul(input, other, *, out=None):
    if input.ndim == 0 or other.ndim == 0:
        raise TorchError("both arguments to matmul need to be at least 1D")
    input, other = reduced_operands("torch.matmul", "matmul", input, other)
    dtype, kit, a, b = _arrays(input, other)
    dropped = (a.ndim == 1, b.ndim == 1)     # a vector is a one-row (or one-column) matrix, dropped after
    a = a[None, :] if dropped[0] else a
    b = b[:, None] if dropped[1] else b
    if a.shape[-1] != b.shape[-2]:
        raise TorchError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[-2]}x{a.shape[-1]} and "
                         f"{b.shape[-2]}x{b.shape[-1]})")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise TorchError(f"matmul: batch dimensions {list(a.shape[:-2])} and {list(b.shape[:-2])} are not "
                         "broadcastable") from None
    values = kit.matmul(a, b)
    values = values.reshape(values.shape[:-2] + tuple(n for n, drop in zip(values.shape[-2:], dropped) if not drop))
    result = new(values, dtype, input.session)
    if out is not None:
        out.copy_(result)
        return out
    return result


def mm(input, mat2, *, out=None):
    if input.ndim != 2 or mat2.ndim != 2:
        raise TorchError(f"mm: expected 2-D tensors, got {input.ndim}-D and {mat2.ndim}-D")
    return matmul(input, mat2, out=out)


def bmm(input, mat2, *, out=None):
    if input.ndim != 3 or mat2.ndim != 3:
        raise TorchError(f"bmm: expected 3-D tensors, got {input.ndim}-D and {mat2.ndim}-D")
    if input.shape[0] != mat2.shape[0]:
        raise TorchError(f"bmm: batch sizes {input.shape[0]} and {mat2.shape[0]} differ")
    return matmul(input, mat2, out=out)


def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise TorchError("mv: expected a matrix and a vector")
    return matmul(input, vec)


def dot(input, other):
    if input.ndim != 1 or other.ndim != 1:
        raise TorchError("1D tensors expected, but got other shapes")
    return matmul(input, other)


inner = dot


def outer(input, vec2):
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    product = mm(mat1, mat2)
    return _scaled(input, beta) + _scaled(product, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return _scaled(input, beta) + _scaled(bmm(batch1, batch2), alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    return _scaled(input, beta) + _scaled(mv(mat, vec), alpha)


def _scaled(t, factor):
    return t if factor == 1 else t * factor


def linear(input, weight, bias=None):
    out = matmul(input, weight.t()) if weight.ndim == 2 else matmul(input, weight)
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    """y_k = x1ᵀ W_k x2 + b_k."""
    out = einsum("...i,kij,...j->...k", input1, weight, input2)
    return out if bias is None else out + bias


_EINSUM_TERM = re.compile(r"^(\.\.\.)?[a-zA-Z]*(\.\.\.)?[a-zA-Z]*$")


def einsum(equation, *operands):
    """torch.einsum: numpy's einsum over the kit's elements (implicit output in alphabetical order)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise unsupported("torch.einsum with sublist operands")
    equation = equation.replace(" ", "")
    inputs = equation.split("->")[0].split(",")
    if len(inputs) != len(operands) or not all(_EINSUM_TERM.match(t) for t in inputs):
        raise TorchError(f"einsum(): the equation {equation!r} does not match {len(operands)} operands")
    operands = reduced_operands("torch.einsum", "matmul", *operands)
    dtype = result_type(*operands)
    kit = operands[0].session.kit
    arrays = [operand(t, dtype, kit) for t in operands]
    sizes, ellipses = {}, []
    for term, array in zip(inputs, arrays):
        letters = term.replace("...", "")
        explicit = array.ndim - (array.ndim - len(letters) if "..." in term else 0)
        if explicit != len(letters) or ("..." not in term and array.ndim != len(letters)):
            raise TorchError(f"einsum(): the term {term!r} does not match an operand of {array.ndim} dimensions")
        lead = term.index("...") if "..." in term else len(term)
        ellipses.append(array.shape[lead:array.ndim - (len(letters) - lead)])
        named = list(array.shape[:lead]) + list(array.shape[array.ndim - (len(letters) - lead):])
        for letter, n in zip(letters, named):
            if sizes.setdefault(letter, n) != n and n != 1 and sizes[letter] != 1:
                raise TorchError(f"einsum(): operands do not broadcast in dimension {letter!r}")
            sizes[letter] = max(sizes[letter], n)
    try:
        batch = np.broadcast_shapes(*ellipses)
    except ValueError:
        raise TorchError("einsum(): the operands' ellipsis dimensions do not broadcast") from None
    kit.meter.charge(math.prod(sizes.values()) * math.prod(batch))
    values = np.einsum(equation, *arrays) if kit.symbolic else np.einsum(equation, *arrays, optimize=True)
    return new(np.asarray(values, dtype=object if kit.symbolic else np.float64), dtype, operands[0].session)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q·Kᵀ·scale + mask)·V with scale 1/sqrt(E) by default; masked positions take no part in the
    softmax (torch's -inf), so the weights are exp(s - max)/sum over the allowed positions only."""
    if dropout_p > 0:
        raise unsupported(f"scaled_dot_product_attention(dropout_p={dropout_p})", "dropout is random")
    if enable_gqa:
        raise unsupported("scaled_dot_product_attention(enable_gqa=True)")
    kit = query.session.kit
    scores = matmul(query, key.transpose(-2, -1))
    if scale is None:
        e = query.shape[-1]
        scores = elementwise(lambda k, a: k.mul(a, k.rsqrt(k.scalar(e, query.dtype))), scores)
    else:
        scores = scores * scale
    allowed = None
    if is_causal:
        rows, cols = query.shape[-2], key.shape[-2]
        allowed = np.tril(np.ones((rows, cols), dtype=bool))
    if attn_mask is not None:
        if attn_mask.dtype.category == 0:
            from_mask = np.array([bool(kit.constant_value(v)) for v in attn_mask.values()]).reshape(attn_mask.shape) \
                if all(kit.constant_value(v) is not None for v in attn_mask.values()) else None
            if from_mask is None:
                raise unsupported("scaled_dot_product_attention with a data-dependent boolean mask")
            allowed = from_mask if allowed is None else allowed & from_mask
        else:
            scores = scores + attn_mask
    if allowed is None:
        weights = scores.softmax(-1)
    else:
        if not np.broadcast_to(allowed, scores.shape).any(-1).all():
            raise unsupported("scaled_dot_product_attention with a fully masked row", "its softmax is NaN")
        zero = scores.session.kit.scalar(0, scores.dtype)
        top = new(_masked_max(scores.array(), allowed, kit), scores.dtype, scores.session)
        shifted = (scores - top).exp()
        kept = shifted.array().copy()
        kept[..., ~np.broadcast_to(allowed, kept.shape[-2:])] = zero
        shifted = new(kept, scores.dtype, scores.session)
        weights = shifted / shifted.sum(-1, keepdim=True)
    return matmul(weights, value)


def _masked_max(scores: np.ndarray, allowed: np.ndarray, kit) -> np.ndarray:
    """The max over each row's allowed positions (keepdim)."""
    allowed = np.broadcast_to(allowed, scores.shape[-2:])
    rows = []
    for r in range(scores.shape[-2]):
        cols = np.flatnonzero(allowed[r])
        row = scores[..., r, cols]
        rows.append(kit.reduce("max", row, row.ndim - 1))
    return np.stack(rows, -1)[..., None]


def tensordot(a, b, dims=2):
    if isinstance(dims, int):
        axes = (list(range(a.ndim - dims, a.ndim)), list(range(dims)))
    else:
        axes = (list(dims[0]), list(dims[1]))
    dtype = result_type(a, b)
    kit = a.session.kit
    x, y = operand(a, dtype, kit), operand(b, dtype, kit)
    kit.meter.charge(int(np.prod(x.shape)) * int(np.prod([b.shape[i] for i in range(b.ndim) if i not in axes[1]])))
    return new(np.tensordot(x, y, axes), dtype, a.session)


FUNCTIONS = {
    "matmul": matmul, "mm": mm, "bmm": bmm, "mv": mv, "dot": dot, "inner": inner, "outer": outer, "ger": outer,
    "addmm": addmm, "baddbmm": baddbmm, "addmv": addmv, "einsum": einsum, "tensordot": tensordot,
    "bilinear": bilinear,
}
