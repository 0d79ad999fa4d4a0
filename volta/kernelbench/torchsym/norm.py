"""Normalizations as torch.nn.functional computes them: batch (training: batch statistics, running
statistics updated in place; eval: running statistics), layer, group, instance, RMS, and `normalize`.

Every one is (x - mean)·rsqrt(var + eps)·weight + bias with the biased (population) variance of the
normalized elements, the two-pass sum((x - mean)²)/N; eps is the float32 torch computes with. Batch norm
in training mode updates running_mean ← (1 - m)·running_mean + m·mean and running_var ← (1 - m)·running_var
+ m·var·N/(N - 1) through the buffers' storage, as torch does.
"""
from __future__ import annotations

import math

from volta.kernelbench import dtypes as D
from volta.kernelbench.failures import TorchError, unsupported
import volta.kernelbench.torchsym.reduction as R


def _standardize(x, dims, eps):
    mean = R.mean(x, dims, keepdim=True)
    var = R.var(x, dims, keepdim=True, correction=0)
    return (x - mean) * (var + eps).rsqrt(), mean, var


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    if input.ndim < 2:
        raise TorchError(f"batch_norm: expected at least a 2-D input, got {list(input.shape)}")
    channels = input.shape[1]
    dims = (0,) + tuple(range(2, input.ndim))
    shape = (1, channels) + (1,) * (input.ndim - 2)
    count = math.prod(input.shape[d] for d in dims)
    if training:
        if count <= 1:
            raise TorchError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        y, mean, var = _standardize(input, dims, eps)
        if running_mean is not None or running_var is not None:
            if momentum is None:
                raise unsupported("batch_norm(momentum=None)", "the cumulative moving average is not modelled")
            if running_mean is not None:
                running_mean.copy_(running_mean * (1 - momentum) + mean.reshape(channels) * momentum)
            if running_var is not None:
                unbiased = var.reshape(channels) * (count / (count - 1))
                running_var.copy_(running_var * (1 - momentum) + unbiased * momentum)
    else:
        if running_mean is None or running_var is None:
            raise TorchError("batch_norm in eval mode needs running_mean and running_var")
        y = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    return _affine(y, weight, bias, shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(normalized_shape)
    if tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise TorchError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                         f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    dims = tuple(range(input.ndim - k, input.ndim))
    y, _, _ = _standardize(input, dims, eps)
    return _affine(y, weight, bias, normalized_shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    n, channels = input.shape[0], input.shape[1]
    if channels % num_groups:
        raise TorchError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                         f"of shape {list(input.shape)} and num_groups={num_groups}")
    grouped = input.reshape(n, num_groups, -1)
    y, _, _ = _standardize(grouped, (2,), eps)
    return _affine(y.reshape(input.shape), weight, bias, (1, channels) + (1,) * (input.ndim - 2))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if input.ndim < 3:
        raise TorchError(f"instance_norm: expected at least a 3-D input, got {list(input.shape)}")
    channels = input.shape[1]
    shape = (1, channels) + (1,) * (input.ndim - 2)
    dims = tuple(range(2, input.ndim))
    if use_input_stats:
        y, mean, var = _standardize(input, dims, eps)
        if running_mean is not None:
            running_mean.copy_(running_mean * (1 - momentum) + R.mean(mean.reshape(input.shape[0], channels), 0)
                               * momentum)
        if running_var is not None:
            count = math.prod(input.shape[d] for d in dims)
            unbiased = R.mean(var.reshape(input.shape[0], channels), 0) * (count / (count - 1))
            running_var.copy_(running_var * (1 - momentum) + unbiased * momentum)
    else:
        y = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    return _affine(y, weight, bias, shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    if eps is None:
        eps = 2.0 ** -23 if input.dtype is not D.float64 else 2.0 ** -52     # torch.finfo(dtype).eps
    y = input * (R.mean(input * input, dims, keepdim=True) + eps).rsqrt()
    return y if weight is None else y * weight


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = R.vector_norm(input, p, dim, keepdim=True).clamp_min(eps)
    result = input / denom
    return result if out is None else out.copy_(result)


FUNCTIONAL = {
    "batch_norm": batch_norm, "layer_norm": layer_norm, "group_norm": group_norm, "instance_norm": instance_norm,
    "rms_norm": rms_norm, "normalize": normalize,
}
