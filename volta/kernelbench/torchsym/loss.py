"""Losses and distances as torch.nn.functional computes them, with `reduction` 'mean', 'sum' or 'none'.

Class-index targets (cross_entropy, nll_loss) may depend on the inputs: the picked log-probability is
the sum over classes c of `target == c ? logp_c : 0`, so no address depends on data. A target must be a
class in [0, C) (torch raises otherwise); ignore_index is not modelled and is refused when a target is
a constant equal to it. kl_div uses torch's xlogy (0·log 0 = 0); binary cross entropy clamps its logs at
-100 as torch does.
"""
from __future__ import annotations

from volta.kernelbench.failures import TorchError, unsupported
import volta.kernelbench.torchsym.pointwise as P
import volta.kernelbench.torchsym.reduction as R
from volta.kernelbench.torchsym.shape import one_hot


def _mode(reduction: str, size_average=None, reduce=None) -> str:
    """The reduction in effect, with torch's legacy size_average/reduce arguments."""
    if size_average is not None or reduce is not None:
        return "none" if reduce is False else ("mean" if size_average in (None, True) else "sum")
    return reduction


def _reduce(loss, reduction: str, size_average=None, reduce=None):
    reduction = _mode(reduction, size_average, reduce)
    if reduction == "mean":
        return R.mean(loss)
    if reduction == "sum":
        return R.sum(loss)
    if reduction == "none":
        return loss
    raise TorchError(f"{reduction} is not a valid value for reduction")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    diff = input - target
    return _reduce(diff * diff, reduction, size_average, reduce)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _reduce((input - target).abs(), reduction, size_average, reduce)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    size = (input - target).abs()    # torch's kernels square |d|, not d: the same reals, the form kernels copy
    loss = P.where(size < beta, 0.5 * size * size / beta, size - 0.5 * beta)
    return _reduce(loss, reduction, size_average, reduce)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    size = (input - target).abs()
    loss = P.where(size < delta, 0.5 * size * size, delta * (size - 0.5 * delta))
    return _reduce(loss, reduction)


def _picked(values, target, classes: int, dim: int = 1):
    """values[i, target[i], ...] as the sum over classes of `target == c ? values : 0` (no data-dependent
    address)."""
    hot = one_hot(target, classes).movedim(-1, dim)                # (N, C, ...) of 0/1
    return R.sum(values * hot, dim)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    if input.ndim < 1 or target.dtype.is_floating_point:
        raise TorchError("nll_loss expects class-index targets of an integer type")
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    _check_ignore(target, ignore_index)
    batched = input if input.ndim > 1 else input.unsqueeze(0)
    target = target if input.ndim > 1 else target.unsqueeze(0)
    picked = _picked(batched, target, classes)
    if weight is None:
        return _reduce(-picked, reduction, size_average, reduce)
    w = _picked(weight.reshape((1, classes) + (1,) * (batched.ndim - 2)).expand(batched.shape), target, classes)
    loss = -picked * w
    if _mode(reduction, size_average, reduce) == "mean":
        return R.sum(loss) / R.sum(w)
    return _reduce(loss, reduction, size_average, reduce)


def _check_ignore(target, ignore_index):
    kit = target.session.kit
    if kit.symbolic and any(kit.constant_value(v) == ignore_index for v in target.values()):
        raise unsupported("a class target equal to ignore_index", "ignored targets are not modelled")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    dim = 1 if input.ndim > 1 else 0
    logp = R.log_softmax(input, dim)
    classes = input.shape[dim]
    if target.dtype.is_floating_point:                      # class probabilities
        if weight is not None:
            logp = logp * weight.reshape((classes,) + (1,) * (input.ndim - dim - 1))
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / classes
        loss = -R.sum(logp * target, dim)
        if reduction == "mean":
            return R.sum(loss) / (loss.numel() if loss.ndim else 1)
        return _reduce(loss, reduction, size_average, reduce)
    nll = nll_loss(logp, target, weight, size_average, ignore_index, reduce, reduction)
    if not label_smoothing:
        return nll
    if weight is not None:
        raise unsupported("cross_entropy with both weight and label_smoothing")
    smooth = _reduce(-R.sum(logp, dim) / classes, reduction, size_average, reduce)
    return nll * (1 - label_smoothing) + smooth * label_smoothing


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if log_target:
        loss = target.exp() * (target - input)
    else:
        xlogy = P.where(target == 0, 0.0, target * P.where(target == 0, 1.0, target).log())
        loss = xlogy - target * input
    if reduction == "batchmean":
        return R.sum(loss) / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction, size_average, reduce)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    log_x = input.log().clamp_min(-100)
    log_1mx = (1 - input).log().clamp_min(-100)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, size_average, reduce)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    if pos_weight is not None:
        raise unsupported("binary_cross_entropy_with_logits(pos_weight=...)")
    max_val = (-input).clamp_min(0)
    loss = (1 - target) * input + max_val + ((-max_val).exp() + (-input - max_val).exp()).log()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, size_average, reduce)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    margin_part = P.where(target != 1, (margin - input).clamp_min(0), 0.0)
    self_part = P.where(target != -1, input, 0.0)
    return _reduce(margin_part + self_part, reduction, size_average, reduce)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction, size_average, reduce)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _reduce((1 + (-target * input).exp()).log(), reduction, size_average, reduce)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    n1 = R.vector_norm(x1, 2, dim, keepdim=True).clamp_min(eps)
    n2 = R.vector_norm(x2, 2, dim, keepdim=True).clamp_min(eps)
    return R.sum((x1 / n1) * (x2 / n2), dim)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    eps = 1e-12
    prod = R.sum(input1 * input2, 1)
    mag1 = R.sum(input1 * input1, 1) + eps
    mag2 = R.sum(input2 * input2, 1) + eps
    cos = prod / (mag1 * mag2).sqrt()
    loss = P.where(target == 1, 1 - cos, 0.0) + P.where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(loss, reduction, size_average, reduce)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return R.vector_norm(x1 - x2 + eps, p, -1, keepdim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = P.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp_min(0), reduction, size_average, reduce)


FUNCTIONAL = {
    "mse_loss": mse_loss, "l1_loss": l1_loss, "smooth_l1_loss": smooth_l1_loss, "huber_loss": huber_loss,
    "nll_loss": nll_loss, "cross_entropy": cross_entropy, "kl_div": kl_div,
    "binary_cross_entropy": binary_cross_entropy,
    "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits,
    "hinge_embedding_loss": hinge_embedding_loss, "margin_ranking_loss": margin_ranking_loss,
    "soft_margin_loss": soft_margin_loss, "cosine_similarity": cosine_similarity,
    "cosine_embedding_loss": cosine_embedding_loss, "pairwise_distance": pairwise_distance,
    "triplet_margin_loss": triplet_margin_loss,
}
