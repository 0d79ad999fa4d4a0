"""Pooling, 1-D to 3-D: max (dilation, ceil_mode, return_indices), average (ceil_mode, count_include_pad,
divisor_override), adaptive average and adaptive max, with torch's output sizes and divisors.

Windows are enumerated by kernel offset: for each offset the input positions o·stride - padding +
k·dilation form one strided gather, and a concrete mask says which of them lie inside the input. A
window's max is the max over its inside taps only (padding never takes part, as in torch); an average
sums the inside taps and divides by torch's divisor: the window clipped to the padded input
(count_include_pad), or the inside count, or divisor_override.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.failures import TorchError
from volta.kernelbench.torchsym.conv import ntuple
from volta.kernelbench.torchsym.core import new, operand
from volta.kernelbench.torchsym.reduction import MinMax


def pool_output_size(size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """torch's pooling_output_shape."""
    span = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _geometry(input, nd, kernel_size, stride, padding, dilation, ceil_mode, name):
    if input.ndim not in (nd + 1, nd + 2):
        raise TorchError(f"{name}: expected a {nd + 1}D or {nd + 2}D input, got {list(input.shape)}")
    kernel = ntuple(kernel_size, nd, "kernel_size")
    stride = ntuple(stride if stride not in (None, [], ()) else kernel, nd, "stride")
    pads = ntuple(padding, nd, "padding")
    dilation = ntuple(dilation, nd, "dilation")
    if any(p * 2 > d * (k - 1) + 1 for p, k, d in zip(pads, kernel, dilation)):
        raise TorchError(f"{name}: pad should be at most half of effective kernel size")
    spatial = input.shape[-nd:]
    out = tuple(pool_output_size(s, k, p, st, d, ceil_mode)
                for s, k, p, st, d in zip(spatial, kernel, pads, stride, dilation))
    if any(o <= 0 for o in out):
        raise TorchError(f"{name}: Output size is too small (input {list(spatial)}, output {list(out)})")
    return kernel, stride, pads, dilation, spatial, out


def _taps(spatial, kernel, stride, pads, dilation, out):
    """For each kernel offset: per dimension, the clipped input index of every output position and a mask
    of the positions whose tap lies inside the input."""
    for offsets in itertools.product(*(range(k) for k in kernel)):
        index, inside = [], []
        for s, st, p, d, k, o in zip(spatial, stride, pads, dilation, offsets, out):
            pos = np.arange(o) * st - p + k * d
            inside.append((pos >= 0) & (pos < s))
            index.append(np.clip(pos, 0, s - 1))
        yield offsets, index, inside


def _gather(values: np.ndarray, index: list, inside: list, nd: int):
    grids = np.ix_(*index)
    taken = values[(Ellipsis,) + grids]
    mask = inside[0]
    for m in inside[1:]:
        mask = np.multiply.outer(mask, m)
    return taken, mask.astype(bool)


def _pool(input, nd, kernel, stride, pads, dilation, spatial, out, combine, want_index=False):
    """Fold the inside taps of every window with `combine` (the first inside tap starts each window)."""
    kit = input.session.kit
    values = operand(input, input.dtype, kit)
    batch_shape = values.shape[:-nd]
    acc = kit.full(batch_shape + out, kit.scalar(0, input.dtype))
    index_acc = kit.full(batch_shape + out, kit.scalar(0, D.int64)) if want_index else None
    seen = np.zeros(out, dtype=bool)
    for offsets, index, inside in _taps(spatial, kernel, stride, pads, dilation, out):
        taken, mask = _gather(values, index, inside, nd)
        if not mask.any():
            continue
        first = mask & ~seen
        later = mask & seen
        if first.any():
            acc[..., first] = taken[..., first]
            if want_index:
                acc_index = _flat_index(index, spatial, kit)
                index_acc[..., first] = np.broadcast_to(acc_index, batch_shape + out)[..., first]
        if later.any():
            if want_index:
                wins = kit.gt(taken[..., later], acc[..., later])
                tap_index = np.broadcast_to(_flat_index(index, spatial, kit), batch_shape + out)[..., later]
                index_acc[..., later] = kit.where(wins, tap_index, index_acc[..., later])
            acc[..., later] = combine(kit, acc[..., later], taken[..., later])
        seen |= mask
    return acc, index_acc


def _flat_index(index, spatial, kit):
    """The flattened input position (torch's max-pool index) of every output's tap, as elements."""
    flat = np.zeros([len(i) for i in index], dtype=np.int64)
    for d, i in enumerate(index):
        shape = [1] * len(index)
        shape[d] = len(i)
        flat = flat + i.reshape(shape) * math.prod(spatial[d + 1:])
    return kit.from_numbers(flat)


def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False, *,
             nd: int):
    name = f"max_pool{nd}d"
    geometry = _geometry(input, nd, kernel_size, stride, padding, dilation, ceil_mode, name)
    values, indices = _pool(input, nd, *geometry, lambda k, a, b: k.maximum(a, b), want_index=return_indices)
    result = new(values, input.dtype, input.session)
    if return_indices:
        return MinMax(result, new(indices, D.int64, input.session))
    return result


def avg_pool(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None, *, nd: int):
    name = f"avg_pool{nd}d"
    kernel, stride, pads, dilation, spatial, out = _geometry(input, nd, kernel_size, stride, padding, 1,
                                                             ceil_mode, name)
    total, _ = _pool(input, nd, kernel, stride, pads, dilation, spatial, out, lambda k, a, b: k.add(a, b))
    kit = input.session.kit
    if divisor_override:
        divisor = np.full(out, int(divisor_override))
    else:
        sides = []
        for s, k, st, p, o in zip(spatial, kernel, stride, pads, out):
            start = np.arange(o) * st - p
            end = np.minimum(start + k, s + p)
            padded_size = end - start
            inside_size = np.minimum(end, s) - np.maximum(start, 0)
            sides.append(padded_size if count_include_pad else inside_size)
        divisor = sides[0]
        for side in sides[1:]:
            divisor = np.multiply.outer(divisor, side)
    dtype = input.dtype
    return new(kit.div(total, kit.from_numbers(divisor)), dtype, input.session)


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def adaptive_pool(input, output_size, *, nd: int, kind: str, return_indices=False):
    name = f"adaptive_{kind}_pool{nd}d"
    if input.ndim not in (nd + 1, nd + 2):
        raise TorchError(f"{name}: expected a {nd + 1}D or {nd + 2}D input, got {list(input.shape)}")
    spatial = input.shape[-nd:]
    sizes = ntuple(output_size, nd, "output_size") if not isinstance(output_size, (list, tuple)) or \
        None not in output_size else tuple(s if o is None else int(o) for s, o in zip(spatial, output_size))
    kit = input.session.kit
    values = operand(input, input.dtype, kit)
    batch_shape = values.shape[:-nd]
    result = np.empty(batch_shape + tuple(sizes), dtype=values.dtype)
    indices = np.empty(batch_shape + tuple(sizes), dtype=values.dtype) if return_indices else None
    bounds = [_adaptive_bounds(s, o) for s, o in zip(spatial, sizes)]
    for position in itertools.product(*(range(o) for o in sizes)):
        box = tuple(slice(*bounds[d][i]) for d, i in enumerate(position))
        window = values[(Ellipsis,) + box].reshape(batch_shape + (-1,))
        if kind == "avg":
            cell = kit.div(kit.reduce("add", window, window.ndim - 1), kit.scalar(window.shape[-1], D.float32))
        else:
            cell = kit.reduce("max", window, window.ndim - 1)
            if return_indices:
                indices[(Ellipsis,) + position] = _box_argmax(kit, window, box, spatial)
        result[(Ellipsis,) + position] = cell
    out = new(result, input.dtype, input.session)
    if return_indices:
        return MinMax(out, new(indices, D.int64, input.session))
    return out


def _box_argmax(kit, window, box, spatial):
    positions = np.array(list(itertools.product(*(range(s.start, s.stop) for s in box))))
    flat = sum(positions[:, d] * math.prod(spatial[d + 1:]) for d in range(len(box)))
    best, index = window[..., 0], kit.full(window.shape[:-1], kit.scalar(int(flat[0]), D.int64))
    for i in range(1, window.shape[-1]):
        wins = kit.gt(window[..., i], best)
        index = kit.where(wins, kit.scalar(int(flat[i]), D.int64), index)
        best = kit.where(wins, window[..., i], best)
    return index


def _max_pool(nd):
    def op(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd=nd)
    op.__name__ = f"max_pool{nd}d"
    return op


def _avg_pool(nd):
    def op(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
           divisor_override=None):
        return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd=nd)
    op.__name__ = f"avg_pool{nd}d"
    return op


def _adaptive(nd, kind):
    def op(input, output_size, return_indices=False):
        return adaptive_pool(input, output_size, nd=nd, kind=kind, return_indices=return_indices)
    op.__name__ = f"adaptive_{kind}_pool{nd}d"
    return op


FUNCTIONS = {f"max_pool{nd}d": _max_pool(nd) for nd in (1, 2, 3)} \
    | {f"avg_pool{nd}d": _avg_pool(nd) for nd in (1, 2, 3)} \
    | {f"adaptive_avg_pool{nd}d": _adaptive(nd, "avg") for nd in (1, 2, 3)} \
    | {f"adaptive_max_pool{nd}d": _adaptive(nd, "max") for nd in (1, 2, 3)}
