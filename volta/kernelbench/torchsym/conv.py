"""Convolutions, 1-D to 3-D, and their transposes, with stride, padding (ints, tuples, 'same', 'valid'),
dilation and groups, as torch.nn.functional computes them.

conv: every output element is the sum over (input channel of its group, kernel offsets) of input·weight,
zero padding included as zeros, which the expression constructors drop (0·w = 0, 0 + t = t), so an
element's expression holds exactly the taps inside the input. The patches are a strided window view of
the padded input, one matmul per group.

conv_transpose: each input element scatters input·weight to output position i·stride - padding +
k·dilation; for each kernel offset the channel contraction is one matmul and is added into the strided
output slice it reaches. Output size (S - 1)·stride - 2·padding + dilation·(K - 1) + output_padding + 1.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.torchsym.core import new, operand, result_type
from volta.kernelbench.torchsym.switches import reduced_operands


def ntuple(value, n: int, what: str) -> tuple:
    """An int or a sequence as an n-tuple of ints (torch's _ntuple)."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return tuple(int(value[0]) for _ in range(n))
        if len(value) != n:
            raise TorchError(f"expected {what} to be a single integer value or a list of {n} values")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _batched(input, nd: int, name: str):
    if input.ndim == nd + 2:
        return input, True
    if input.ndim == nd + 1:
        return input.unsqueeze(0), False
    raise TorchError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                     f"size: {list(input.shape)}")


def _padding(padding, nd: int, kernel: tuple, stride: tuple, dilation: tuple) -> list[tuple[int, int]]:
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * nd
        if padding == "same":
            if any(s != 1 for s in stride):
                raise TorchError("padding='same' is not supported for strided convolutions")
            sides = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                sides.append((total // 2, total - total // 2))
            return sides
        raise TorchError(f"Invalid padding string '{padding}'")
    return [(p, p) for p in ntuple(padding, nd, "padding")]


def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, nd: int):
    name = f"conv{nd}d"
    input, weight = reduced_operands(f"torch.nn.functional.{name}", "conv", input, weight)
    x, batched = _batched(input, nd, name)
    if weight.ndim != nd + 2:
        raise TorchError(f"{name}: expected a {nd + 2}-D weight, got {list(weight.shape)}")
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    oc, cg = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    if c != cg * groups or oc % groups:
        raise TorchError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                         f"{list(x.shape)} to have {cg * groups} channels, but got {c} channels instead")
    stride = ntuple(stride, nd, "stride")
    dilation = ntuple(dilation, nd, "dilation")
    pads = _padding(padding, nd, kernel, stride, dilation)
    out_spatial = tuple((s + lo + hi - d * (k - 1) - 1) // st + 1
                        for s, (lo, hi), d, k, st in zip(spatial, pads, dilation, kernel, stride))
    if any(o <= 0 for o in out_spatial):
        raise TorchError(f"Calculated output size {list(out_spatial)} is too small for input {list(spatial)} "
                         f"and kernel {list(kernel)}")
    dtype = result_type(x, weight)
    session = x.session
    kit = session.kit
    kit.meter.charge(n * c * math.prod(out_spatial) * math.prod(kernel))
    padded = kit.full((n, c) + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads)), kit.scalar(0, dtype))
    padded[(slice(None), slice(None)) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(spatial, pads))] = \
        operand(x, dtype, kit)
    spans = tuple(d * (k - 1) + 1 for d, k in zip(dilation, kernel))
    windows = np.lib.stride_tricks.sliding_window_view(padded, spans, axis=tuple(range(2, 2 + nd)))
    windows = windows[(slice(None), slice(None)) + tuple(slice(None, None, st) for st in stride)
                      + tuple(slice(None, None, d) for d in dilation)]
    windows = windows[(slice(None), slice(None)) + tuple(slice(0, o) for o in out_spatial)]
    w = operand(weight, dtype, kit)
    ocg = oc // groups
    taps = cg * math.prod(kernel)
    outs = []
    for g in range(groups):
        patch = windows[:, g * cg:(g + 1) * cg]                      # (N, Cg, *O, *K)
        order = (0,) + tuple(range(2, 2 + nd)) + (1,) + tuple(range(2 + nd, 2 + 2 * nd))
        patch = patch.transpose(order).reshape(n * math.prod(out_spatial), taps)
        filt = w[g * ocg:(g + 1) * ocg].reshape(ocg, taps)
        outs.append(kit.matmul(patch, filt.T).reshape((n,) + out_spatial + (ocg,)))
    values = np.concatenate(outs, axis=-1) if len(outs) > 1 else outs[0]
    values = np.moveaxis(values, -1, 1)
    result = new(values, dtype, session)
    if bias is not None:
        result = result + bias.reshape((oc,) + (1,) * nd)
    return result if batched else result.squeeze(0)


def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *,
                   nd: int):
    name = f"conv_transpose{nd}d"
    input, weight = reduced_operands(f"torch.nn.functional.{name}", "conv", input, weight)
    x, batched = _batched(input, nd, name)
    if weight.ndim != nd + 2:
        raise TorchError(f"{name}: expected a {nd + 2}-D weight, got {list(weight.shape)}")
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    cin, ocg = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    if c != cin or c % groups:
        raise TorchError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input {list(x.shape)} "
                         f"to have {cin} channels, but got {c} channels instead")
    if isinstance(padding, str):
        raise unsupported(f"{name}(padding={padding!r})")
    stride = ntuple(stride, nd, "stride")
    dilation = ntuple(dilation, nd, "dilation")
    pads = ntuple(padding, nd, "padding")
    extra = ntuple(output_padding, nd, "output_padding")
    if any(e >= s and e >= d for e, s, d in zip(extra, stride, dilation)):
        raise TorchError("output padding must be smaller than either stride or dilation")
    out_spatial = tuple((s - 1) * st - 2 * p + d * (k - 1) + e + 1
                        for s, st, p, d, k, e in zip(spatial, stride, pads, dilation, kernel, extra))
    if any(o <= 0 for o in out_spatial):
        raise TorchError(f"{name}: the output size {list(out_spatial)} is not positive")
    dtype = result_type(x, weight)
    session = x.session
    kit = session.kit
    oc = ocg * groups
    cg = c // groups
    out = kit.full((n, oc) + out_spatial, kit.scalar(0, dtype))
    xa = operand(x, dtype, kit)
    w = operand(weight, dtype, kit)
    for offsets in itertools.product(*(range(k) for k in kernel)):
        reach = [_reach(s, st, k * d - p, o) for s, st, k, d, p, o in
                 zip(spatial, stride, offsets, dilation, pads, out_spatial)]
        if any(r is None for r in reach):
            continue
        source = xa[(slice(None), slice(None)) + tuple(slice(lo, hi) for lo, hi, _ in reach)]
        target = (slice(None),) + tuple(slice(o0, o0 + (hi - lo - 1) * st + 1, st)
                                        for (lo, hi, o0), st in zip(reach, stride))
        for g in range(groups):
            part = np.moveaxis(source[:, g * cg:(g + 1) * cg], 1, -1)           # (N, *S', Cg)
            filt = w[(slice(g * cg, (g + 1) * cg), slice(None)) + offsets]      # (Cg, OCg)
            flat = kit.matmul(part.reshape(-1, cg), filt)
            contribution = np.moveaxis(flat.reshape(part.shape[:-1] + (ocg,)), -1, 1)
            at = (target[0], slice(g * ocg, (g + 1) * ocg)) + target[1:]
            out[at] = kit.add(out[at], contribution)
    result = new(out, dtype, session)
    if bias is not None:
        result = result + bias.reshape((oc,) + (1,) * nd)
    return result if batched else result.squeeze(0)


def _reach(size: int, stride: int, shift: int, out_size: int):
    """Input range [lo, hi) whose outputs i·stride + shift land inside [0, out_size), and the first output."""
    lo = max(0, -(shift // stride))                        # the first i with i·stride + shift >= 0
    hi = min(size, (out_size - 1 - shift) // stride + 1)   # one past the last i with i·stride + shift < out_size
    if hi <= lo:
        return None
    return lo, hi, lo * stride + shift


def _conv(nd):
    def op(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        return conv(input, weight, bias, stride, padding, dilation, groups, nd=nd)
    op.__name__ = f"conv{nd}d"
    return op


def _conv_transpose(nd):
    def op(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        return conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd=nd)
    op.__name__ = f"conv_transpose{nd}d"
    return op


FUNCTIONS = {f"conv{nd}d": _conv(nd) for nd in (1, 2, 3)} | \
    {f"conv_transpose{nd}d": _conv_transpose(nd) for nd in (1, 2, 3)}
