"""The method table every SymTensor reaches through its session: `x.sum(1)`, `x + y`, `x.relu_()`.

Methods are the torch functions with the tensor first; operators map to them (`__rsub__` is `sub` with
the operands swapped); each in-place method (`add_`, `clamp_`, `relu_`...) computes the out-of-place
result and writes it through the tensor's storage, so every view of it sees the change, as in torch.
"""
from __future__ import annotations

from volta.kernelbench import dtypes as D
from volta.kernelbench.failures import TorchError, unsupported
from volta.symbolic import expr as E
import volta.kernelbench.torchsym.linalg as linalg
import volta.kernelbench.torchsym.pointwise as pointwise
import volta.kernelbench.torchsym.reduction as reduction
import volta.kernelbench.torchsym.shape as shape
from volta.kernelbench.torchsym.creation import TENSOR_METHODS as NEW_METHODS


class Device:
    """torch.device: only its name matters; every tensor lives on "cuda:0"."""

    def __init__(self, kind="cuda", index=None):
        if isinstance(kind, Device):
            kind, index = kind.type, kind.index
        kind = str(kind)
        if ":" in kind:
            kind, index = kind.split(":")[0], int(kind.split(":")[1])
        self.type, self.index = kind, index

    def __repr__(self) -> str:
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


CUDA = Device("cuda", 0)


def item(t):
    """The Python number a one-element tensor holds: refused when it depends on the inputs."""
    if t.numel() != 1:
        raise TorchError(f"a Tensor with {t.numel()} elements cannot be converted to Scalar")
    element = t.values()[0]
    value = t.session.kit.constant_value(element)
    if value is None and type(element) is E.Expr and element.op is E.VAR:
        raise unsupported("Tensor.item() / a tensor used as a Python value",
                          f"it is element {element.data[1]} of `{element.data[0]}`, an input or parameter Volta "
                          "keeps free (parameters: any value a trained model may hold), so its Python value is not "
                          "known; pass the tensor to the kernel instead")
    if value is None:
        raise unsupported("Tensor.item() / a tensor used as a Python value",
                          "the value depends on the input data, so the Python code after it would branch on it")
    if t.dtype is D.bool_:
        return bool(value)
    return int(value) if t.dtype.category == D.INT else float(value)


def tolist(t):
    if t.ndim == 0:
        return item(t)
    return [tolist(s) for s in t.unbind(0)]


def truth(t) -> bool:
    if t.numel() != 1:
        raise TorchError(f"Boolean value of Tensor with {t.numel()} elements is ambiguous")
    return bool(item(t))


def _swap(fn):
    return lambda self, other: fn(other, self)


def _inplace(fn):
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))
    method.__name__ = getattr(fn, "__name__", "inplace") + "_"
    return method


def _random_fill(kind):
    def method(self, *args, **kwargs):
        run = self.session.run
        if run is None:
            raise unsupported(f"Tensor.{kind}_", "random numbers outside a problem's setup")
        return self.copy_(run.source(tuple(self.shape), self.dtype, kind, what=f"Tensor.{kind}_"))
    return method


def _where_method(self, condition, other):
    return pointwise.where(condition, self, other)


def _numpy(self, *args, **kwargs):
    raise unsupported("Tensor.numpy()", "the values are symbolic")


OPERATORS = {
    "__add__": pointwise.add, "__radd__": _swap(pointwise.add), "__sub__": pointwise.sub,
    "__rsub__": _swap(pointwise.sub), "__mul__": pointwise.mul, "__rmul__": _swap(pointwise.mul),
    "__truediv__": pointwise.div, "__rtruediv__": _swap(pointwise.div),
    "__floordiv__": pointwise.floor_divide, "__rfloordiv__": _swap(pointwise.floor_divide),
    "__mod__": pointwise.remainder, "__rmod__": _swap(pointwise.remainder), "__pow__": pointwise.pow,
    "__rpow__": _swap(pointwise.pow), "__matmul__": linalg.matmul, "__rmatmul__": _swap(linalg.matmul),
    "__neg__": pointwise.neg, "__pos__": pointwise.positive, "__abs__": pointwise.absolute,
    "__invert__": pointwise.bitwise_not, "__and__": pointwise.bitwise_and, "__rand__": _swap(pointwise.bitwise_and),
    "__or__": pointwise.bitwise_or, "__ror__": _swap(pointwise.bitwise_or), "__xor__": pointwise.bitwise_xor,
    "__rxor__": _swap(pointwise.bitwise_xor), "__lt__": pointwise.lt, "__le__": pointwise.le,
    "__gt__": pointwise.gt, "__ge__": pointwise.ge, "__eq__": pointwise.eq, "__ne__": pointwise.ne,
    "__bool__": truth, "item": item, "tolist": tolist,
}
for _name, _fn in (("add", pointwise.add), ("sub", pointwise.sub), ("mul", pointwise.mul),
                   ("truediv", pointwise.div), ("floordiv", pointwise.floor_divide), ("mod", pointwise.remainder),
                   ("pow", pointwise.pow), ("and", pointwise.bitwise_and), ("or", pointwise.bitwise_or),
                   ("xor", pointwise.bitwise_xor), ("matmul", linalg.matmul)):
    OPERATORS[f"__i{_name}__"] = _inplace(_fn)

# methods that are the torch function of the same name with the tensor first
_FUNCTION_METHODS = {**pointwise.FUNCTIONS, **reduction.FUNCTIONS, **linalg.FUNCTIONS, **shape.FUNCTIONS}
for _name in ("where", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "einsum"):
    _FUNCTION_METHODS.pop(_name, None)

METHODS = {
    **_FUNCTION_METHODS, **pointwise.ACTIVATIONS, **shape.CONVERSIONS, **shape.METHODS_ONLY, **NEW_METHODS,
    **OPERATORS,
    "where": _where_method, "softmax": reduction.softmax, "log_softmax": reduction.log_softmax,
    "numpy": _numpy, "is_floating_point": lambda self: self.dtype.is_floating_point,
    "is_complex": lambda self: False, "get_device": lambda self: 0,
    "sigmoid": pointwise.sigmoid, "tanh": pointwise.tanh, "relu": pointwise.relu, "device": CUDA,
    "uniform_": _random_fill("rand"), "normal_": _random_fill("randn"),
    "abs": pointwise.absolute,
}
_INPLACE = ("add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "neg", "abs",
            "sign", "clamp", "clip", "clamp_min", "clamp_max", "exp", "exp2", "expm1", "log", "log2", "log10",
            "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf", "floor", "ceil",
            "trunc", "round", "frac", "square", "relu", "leaky_relu", "hardtanh", "elu", "selu", "celu", "gelu",
            "silu", "mish", "hardsigmoid", "hardswish", "masked_fill", "lt", "le", "gt", "ge", "eq", "ne",
            "logical_and", "logical_or", "logical_not", "logical_xor", "addmm", "baddbmm", "cumsum", "cumprod",
            "tril", "triu", "maximum", "minimum", "threshold", "softplus")
for _name in _INPLACE:
    METHODS[f"{_name}_"] = _inplace(METHODS[_name])

# the torch.* functions that are tensor methods (torch.transpose(x, 0, 1), torch.flatten(x, 1), ...)
VIEW_FUNCTIONS = {name: (lambda name: lambda input, *a, **k: getattr(input, name)(*a, **k))(name) for name in (
    "reshape", "transpose", "swapaxes", "swapdims", "permute", "flatten", "unflatten", "unsqueeze", "squeeze",
    "narrow", "select", "unbind", "chunk", "split", "t", "clone", "detach", "numel", "diagonal", "as_strided",
    "expand_copy", "view_copy")}
VIEW_FUNCTIONS["numel"] = lambda input: input.numel()
