"""torch.nn layers of the stand-in: each holds its parameters and calls the functional op in `forward`.

Parameters (and BatchNorm's running statistics) are random sources (`Run.source`): whatever torch would
initialize them to, a checked model must be right for every value, and `problem.py` names their leaves
by qualified name (`conv.weight`). Dropout with p > 0 in training mode is UNSUPPORTED (it is random);
with p = 0 or in eval mode it is the identity.
"""
from __future__ import annotations

from volta.kernelbench import dtypes as D
from volta.kernelbench.failures import TorchError, unsupported
import volta.kernelbench.torchsym.conv as C
import volta.kernelbench.torchsym.linalg as L
import volta.kernelbench.torchsym.loss as X
import volta.kernelbench.torchsym.norm as N
import volta.kernelbench.torchsym.pointwise as P
import volta.kernelbench.torchsym.pool as Q
import volta.kernelbench.torchsym.reduction as R
from volta.kernelbench.torchsym.creation import Factories
from volta.kernelbench.torchsym.module import Module, Parameter
from volta.kernelbench.torchsym.shape import one_hot


def _dtype(dtype):
    return dtype if dtype is not None else D.DEFAULT_FLOAT


class _Layer(Module):
    def _param(self, *shape, dtype=None) -> Parameter:
        return Parameter(self._run.source(shape, _dtype(dtype), "param", what=f"nn.{type(self).__name__}"))

    def _buffer(self, *shape, dtype=None):
        return self._run.source(shape, _dtype(dtype), "buffer", what=f"nn.{type(self).__name__}")


class Identity(_Layer):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(_Layer):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = self._param(out_features, in_features, dtype=dtype)
        self.bias = self._param(out_features, dtype=dtype) if bias else None

    def forward(self, input):
        return L.linear(input, self.weight, self.bias)


class Bilinear(_Layer):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = self._param(out_features, in1_features, in2_features, dtype=dtype)
        self.bias = self._param(out_features, dtype=dtype) if bias else None

    def forward(self, input1, input2):
        return L.bilinear(input1, input2, self.weight, self.bias)


class _ConvNd(_Layer):
    nd = 0
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        if padding_mode != "zeros":
            raise unsupported(f"nn.{type(self).__name__}(padding_mode={padding_mode!r})")
        if in_channels % groups or out_channels % groups:
            raise TorchError("in_channels and out_channels must be divisible by groups")
        nd = self.nd
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = C.ntuple(kernel_size, nd, "kernel_size")
        self.stride = C.ntuple(stride, nd, "stride")
        self.padding = padding if isinstance(padding, str) else C.ntuple(padding, nd, "padding")
        self.dilation = C.ntuple(dilation, nd, "dilation")
        self.output_padding = C.ntuple(output_padding, nd, "output_padding")
        if self.transposed:
            self.weight = self._param(in_channels, out_channels // groups, *self.kernel_size, dtype=dtype)
        else:
            self.weight = self._param(out_channels, in_channels // groups, *self.kernel_size, dtype=dtype)
        self.bias = self._param(out_channels, dtype=dtype) if bias else None

    def forward(self, input, output_size=None):
        if self.transposed:
            if output_size is not None:
                raise unsupported(f"nn.{type(self).__name__}.forward(output_size=...)")
            return C.conv_transpose(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                    self.groups, self.dilation, nd=self.nd)
        return C.conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups,
                      nd=self.nd)


def _conv_class(name, nd, transposed):
    if transposed:
        def init(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
            _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                             padding_mode, device, dtype, output_padding)
    else:
        def init(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
            _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                             padding_mode, device, dtype)
    return type(name, (_ConvNd,), {"nd": nd, "transposed": transposed, "__init__": init})


class _BatchNorm(_Layer):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = self._param(num_features, dtype=dtype) if affine else None
        self.bias = self._param(num_features, dtype=dtype) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", self._buffer(num_features, dtype=dtype))
            self.register_buffer("running_var", self._buffer(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", Factories(self._run).zeros((), dtype=D.int64))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def forward(self, input):
        if self.training and self.momentum is None:
            raise unsupported(f"nn.{type(self).__name__}(momentum=None)", "the cumulative moving average is "
                              "not modelled")
        batch_statistics = self.training or self.running_mean is None
        if self.training and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
        return N.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, batch_statistics,
                            self.momentum or 0.0, self.eps)


class _InstanceNorm(_BatchNorm):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        use_input = self.training or not self.track_running_stats
        return N.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias, use_input,
                               self.momentum or 0.0, self.eps)


class LayerNorm(_Layer):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.weight = self._param(*shape, dtype=dtype) if elementwise_affine else None
        self.bias = self._param(*shape, dtype=dtype) if elementwise_affine and bias else None

    def forward(self, input):
        return N.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class GroupNorm(_Layer):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise TorchError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.weight = self._param(num_channels, dtype=dtype) if affine else None
        self.bias = self._param(num_channels, dtype=dtype) if affine else None

    def forward(self, input):
        return N.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class RMSNorm(_Layer):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.weight = self._param(*shape, dtype=dtype) if elementwise_affine else None

    def forward(self, input):
        return N.rms_norm(input, self.normalized_shape, self.weight, self.eps)


class _Dropout(_Layer):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise TorchError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return dropout(input, self.p, self.training)


def dropout(input, p=0.5, training=True, inplace=False):
    if training and p > 0:
        raise unsupported(f"dropout with p={p} in training mode", "it is random (`volta kernelbench --eval` checks "
                          "eval mode, where dropout is the identity)")
    return input


class _Activation(_Layer):
    """A module form of a functional activation: its constructor arguments are the op's parameters."""
    op = None
    params: tuple = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        kwargs.pop("inplace", None)
        values = dict(zip(self.params, args))
        values.update({k: v for k, v in kwargs.items() if k in self.params})
        self.options = values

    def forward(self, input):
        return type(self).op(input, **self.options)


def _activation(name, op, *params):
    return type(name, (_Activation,), {"op": staticmethod(op), "params": params})


class _DimOp(_Layer):
    op = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self).op(input, self.dim)


class PReLU(_Layer):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.weight = self._param(num_parameters, dtype=dtype)

    def forward(self, input):
        return P.prelu(input, self.weight)


class Flatten(_Layer):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)


class Unflatten(_Layer):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)


class _Pool(_Layer):
    op = None
    params: tuple = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        values = dict(zip(self.params, args))
        values.update(kwargs)
        unknown = set(values) - set(self.params)
        if unknown:
            raise TorchError(f"{type(self).__name__}() got unexpected arguments {sorted(unknown)}")
        self.options = values
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def forward(self, input):
        return type(self).op(input, **self.options)


_MAX_POOL = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
_AVG_POOL = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")


def _max_pool(nd):
    def op(input, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        return Q.max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd=nd)
    return op


def _avg_pool(nd):
    def op(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
           divisor_override=None):
        return Q.avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                          nd=nd)
    return op


def _adaptive(nd, kind):
    def op(input, output_size, return_indices=False):
        return Q.adaptive_pool(input, output_size, nd=nd, kind=kind, return_indices=return_indices)
    return op


class _Loss(_Layer):
    op = None
    params: tuple = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        values = dict(zip(self.params, args))
        values.update(kwargs)
        self.options = {k: v for k, v in values.items() if k in self.params}

    def forward(self, *inputs):
        return type(self).op(*inputs, **self.options)


_REDUCTION = ("size_average", "reduce", "reduction")


def _loss(name, op, *params):
    return type(name, (_Loss,), {"op": staticmethod(op), "params": params})


class Embedding(_Layer):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, *args, device=None, dtype=None, **kwargs):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.weight = self._param(num_embeddings, embedding_dim, dtype=dtype)

    def forward(self, input):
        """weight[input] as one_hot(input)·weight: a sum of selects, no data-dependent address."""
        return L.matmul(one_hot(input, self.num_embeddings).to(self.weight.dtype), self.weight)


LAYERS = {
    "Identity": Identity, "Linear": Linear, "Bilinear": Bilinear,
    "Conv1d": _conv_class("Conv1d", 1, False), "Conv2d": _conv_class("Conv2d", 2, False),
    "Conv3d": _conv_class("Conv3d", 3, False), "ConvTranspose1d": _conv_class("ConvTranspose1d", 1, True),
    "ConvTranspose2d": _conv_class("ConvTranspose2d", 2, True),
    "ConvTranspose3d": _conv_class("ConvTranspose3d", 3, True),
    "BatchNorm1d": type("BatchNorm1d", (_BatchNorm,), {}), "BatchNorm2d": type("BatchNorm2d", (_BatchNorm,), {}),
    "BatchNorm3d": type("BatchNorm3d", (_BatchNorm,), {}),
    "InstanceNorm1d": type("InstanceNorm1d", (_InstanceNorm,), {}),
    "InstanceNorm2d": type("InstanceNorm2d", (_InstanceNorm,), {}),
    "InstanceNorm3d": type("InstanceNorm3d", (_InstanceNorm,), {}),
    "LayerNorm": LayerNorm, "GroupNorm": GroupNorm, "RMSNorm": RMSNorm,
    "Dropout": type("Dropout", (_Dropout,), {}), "Dropout1d": type("Dropout1d", (_Dropout,), {}),
    "Dropout2d": type("Dropout2d", (_Dropout,), {}), "Dropout3d": type("Dropout3d", (_Dropout,), {}),
    "AlphaDropout": type("AlphaDropout", (_Dropout,), {}),
    "ReLU": _activation("ReLU", P.relu), "ReLU6": _activation("ReLU6", P.relu6),
    "LeakyReLU": _activation("LeakyReLU", P.leaky_relu, "negative_slope"),
    "ELU": _activation("ELU", P.elu, "alpha"), "SELU": _activation("SELU", P.selu),
    "CELU": _activation("CELU", P.celu, "alpha"), "GELU": _activation("GELU", P.gelu, "approximate"),
    "SiLU": _activation("SiLU", P.silu), "Mish": _activation("Mish", P.mish),
    "Sigmoid": _activation("Sigmoid", P.sigmoid), "Tanh": _activation("Tanh", P.tanh),
    "Softplus": _activation("Softplus", P.softplus, "beta", "threshold"),
    "Softsign": _activation("Softsign", P.softsign), "Hardsigmoid": _activation("Hardsigmoid", P.hardsigmoid),
    "Hardswish": _activation("Hardswish", P.hardswish),
    "Hardtanh": _activation("Hardtanh", P.hardtanh, "min_val", "max_val"),
    "LogSigmoid": _activation("LogSigmoid", P.logsigmoid),
    "Hardshrink": _activation("Hardshrink", P.hardshrink, "lambd"),
    "Softshrink": _activation("Softshrink", P.softshrink, "lambd"),
    "Tanhshrink": _activation("Tanhshrink", P.tanhshrink),
    "Threshold": _activation("Threshold", P.threshold, "threshold", "value"),
    "PReLU": PReLU,
    "Softmax": type("Softmax", (_DimOp,), {"op": staticmethod(R.softmax)}),
    "LogSoftmax": type("LogSoftmax", (_DimOp,), {"op": staticmethod(R.log_softmax)}),
    "Softmin": type("Softmin", (_DimOp,), {"op": staticmethod(lambda x, dim: R.softmax(-x, dim))}),
    "Flatten": Flatten, "Unflatten": Unflatten, "Embedding": Embedding,
    "CosineSimilarity": _loss("CosineSimilarity", X.cosine_similarity, "dim", "eps"),
    "PairwiseDistance": _loss("PairwiseDistance", X.pairwise_distance, "p", "eps", "keepdim"),
    "MSELoss": _loss("MSELoss", X.mse_loss, *_REDUCTION), "L1Loss": _loss("L1Loss", X.l1_loss, *_REDUCTION),
    "SmoothL1Loss": _loss("SmoothL1Loss", X.smooth_l1_loss, *_REDUCTION, "beta"),
    "HuberLoss": _loss("HuberLoss", X.huber_loss, "reduction", "delta"),
    "CrossEntropyLoss": _loss("CrossEntropyLoss", X.cross_entropy, "weight", "size_average", "ignore_index",
                              "reduce", "reduction", "label_smoothing"),
    "NLLLoss": _loss("NLLLoss", X.nll_loss, "weight", "size_average", "ignore_index", "reduce", "reduction"),
    "KLDivLoss": _loss("KLDivLoss", X.kl_div, *_REDUCTION, "log_target"),
    "BCELoss": _loss("BCELoss", X.binary_cross_entropy, "weight", *_REDUCTION),
    "BCEWithLogitsLoss": _loss("BCEWithLogitsLoss", X.binary_cross_entropy_with_logits, "weight", *_REDUCTION,
                               "pos_weight"),
    "HingeEmbeddingLoss": _loss("HingeEmbeddingLoss", X.hinge_embedding_loss, "margin", *_REDUCTION),
    "MarginRankingLoss": _loss("MarginRankingLoss", X.margin_ranking_loss, "margin", *_REDUCTION),
    "SoftMarginLoss": _loss("SoftMarginLoss", X.soft_margin_loss, *_REDUCTION),
    "CosineEmbeddingLoss": _loss("CosineEmbeddingLoss", X.cosine_embedding_loss, "margin", *_REDUCTION),
    "TripletMarginLoss": _loss("TripletMarginLoss", X.triplet_margin_loss, "margin", "p", "eps", "swap",
                               *_REDUCTION),
}
for _nd in (1, 2, 3):
    LAYERS[f"MaxPool{_nd}d"] = type(f"MaxPool{_nd}d", (_Pool,), {"op": staticmethod(_max_pool(_nd)),
                                                                 "params": _MAX_POOL})
    LAYERS[f"AvgPool{_nd}d"] = type(f"AvgPool{_nd}d", (_Pool,), {"op": staticmethod(_avg_pool(_nd)),
                                                                 "params": _AVG_POOL[:5 if _nd == 1 else 6]})
    LAYERS[f"AdaptiveAvgPool{_nd}d"] = type(f"AdaptiveAvgPool{_nd}d", (_Pool,), {
        "op": staticmethod(_adaptive(_nd, "avg")), "params": ("output_size",)})
    LAYERS[f"AdaptiveMaxPool{_nd}d"] = type(f"AdaptiveMaxPool{_nd}d", (_Pool,), {
        "op": staticmethod(_adaptive(_nd, "max")), "params": ("output_size", "return_indices")})
