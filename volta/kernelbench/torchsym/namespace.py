"""The stand-in module objects (`torch`, `torch.nn`, `torch.nn.functional`, `torch.nn.init`, `torch.cuda`,
`torch.utils.cpp_extension`, ...) for one Run, and their installation in `sys.modules`.

`installed(run)` puts them in `sys.modules` for the duration of a `with` block and takes every `torch*`
entry out meanwhile (a real torch imported by the process stays invisible to the problem file), then
restores what was there. A name the stand-in does not define is a `Missing` placeholder: touching it is
fine (annotations, `torch.backends...` flags), calling it is UNSUPPORTED naming it with the caller's line.
An import of an unknown `torch.*` submodule gives a module of such placeholders.

`torch.utils.cpp_extension.load_inline` and `load` call the Run's hook, else
`volta.kernelbench.host.load_inline`/`load` (the candidate side) looked up when called; without either they
are UNSUPPORTED. While installed, the Run's host (the candidate side) may also take Triton's
`kernel[grid](...)` (`Host.launching`).
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import sys
import types

from volta.kernelbench import streams
from volta.kernelbench import dtypes as D
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.paths import cuda_functions
from volta.kernelbench.tensor import Size, SymTensor
import volta.kernelbench.torchsym.autograd as autograd
import volta.kernelbench.torchsym.conv as conv
import volta.kernelbench.torchsym.graphs as graphs
import volta.kernelbench.torchsym.layers as layers
import volta.kernelbench.torchsym.linalg as linalg
import volta.kernelbench.torchsym.loss as loss
import volta.kernelbench.torchsym.methods as methods
import volta.kernelbench.torchsym.norm as norm
import volta.kernelbench.torchsym.pointwise as pointwise
import volta.kernelbench.torchsym.pool as pool
import volta.kernelbench.torchsym.reduction as reduction
import volta.kernelbench.torchsym.shape as shape
from volta.kernelbench.torchsym.core import result_type
from volta.kernelbench.torchsym.creation import Factories, Run, tensor_class
from volta.kernelbench.torchsym.module import CONTAINERS, Module, Parameter
from volta.kernelbench.torchsym.switches import switch_functions


class Missing:
    """A name outside the stand-in: calling it (or anything reached from it) is UNSUPPORTED."""

    def __init__(self, path: str):
        object.__setattr__(self, "_path", path)

    def __call__(self, *args, **kwargs):
        raise unsupported(self._path)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return Missing(f"{self._path}.{name}")

    def __bool__(self) -> bool:
        raise unsupported(self._path, "its value is not modelled")

    def __enter__(self):
        raise unsupported(self._path)

    def __exit__(self, *exc):
        return False

    def __repr__(self) -> str:
        return f"<not modelled: {self._path}>"

    def __mro_entries__(self, bases):
        """`class X(torch.something.NotModelled)`: the class is made; making an instance is UNSUPPORTED."""
        return (_unmodelled_base(self._path),)


def _unmodelled_base(path: str) -> type:
    def __init__(self, *args, **kwargs):
        raise unsupported(path)
    return type(path.rsplit(".", 1)[-1], (), {"__init__": __init__, "__doc__": f"stand-in base for {path}"})


class StandIn(types.ModuleType):
    """A stand-in module: unknown attributes are Missing placeholders."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return Missing(f"{self.__name__}.{name}")


def _module(name: str, table: dict) -> StandIn:
    module = StandIn(name)
    module.__dict__.update(table)
    module.__path__ = []
    return module


class _NoGrad:
    """torch.no_grad / enable_grad / inference_mode: context managers and decorators that change nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn


def _identity_decorator(fn=None, *args, **kwargs):
    """torch.compile / torch.jit.script: eager meaning (with or without arguments)."""
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


class _Info:
    def __init__(self, dtype):
        bits = {"f16": (-14, 10, 65504.0), "bf16": (-126, 7, 3.3895313892515355e38),
                "f32": (-126, 23, 3.4028234663852886e38), "f64": (-1022, 52, 1.7976931348623157e308)}
        if dtype.is_floating_point:
            lo_exp, mantissa, biggest = bits[dtype.volta]
            self.eps, self.max, self.tiny = 2.0 ** -mantissa, biggest, 2.0 ** lo_exp
            self.min, self.smallest_normal, self.bits = -biggest, self.tiny, dtype.itemsize * 8
        else:
            width = dtype.itemsize * 8
            signed = dtype.is_signed
            self.bits = width
            self.max = (1 << (width - 1)) - 1 if signed else (1 << width) - 1
            self.min = -(1 << (width - 1)) if signed else 0
        self.dtype = dtype.torch_name


def _hook(run: Run, name: str):
    """torch.utils.cpp_extension.<name>: the candidate side's function, called with the Run first."""
    def call(*args, **kwargs):
        host = run.host
        if host is None:
            try:
                host = importlib.import_module("volta.kernelbench.host")
            except ModuleNotFoundError:
                host = None
        function = getattr(host, name, None)
        if function is None:
            raise unsupported(f"torch.utils.cpp_extension.{name}", "compiling a CUDA extension needs the "
                              "candidate side (volta.kernelbench.host), which is not available")
        return function(run, *args, **kwargs)
    call.__name__ = name
    return call


def _init_functions(run: Run) -> dict:
    def constant_(tensor, val):
        return tensor.fill_(val)

    def random_(kind):
        def fill(tensor, *args, **kwargs):
            return tensor.copy_(run.source(tuple(tensor.shape), tensor.dtype, kind, what=f"nn.init.{kind}"))
        return fill
    def _calculate_fan_in_and_fan_out(tensor):
        """torch's own (a shape computation, which candidates copy from nn.Linear.reset_parameters)."""
        if tensor.ndim < 2:
            raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
        receptive = 1
        for s in tuple(tensor.shape)[2:]:
            receptive *= s
        return tensor.shape[1] * receptive, tensor.shape[0] * receptive

    table = {"constant_": constant_, "zeros_": lambda t: t.zero_(), "ones_": lambda t: t.fill_(1),
             "calculate_gain": lambda *a, **k: 1.0, "_calculate_fan_in_and_fan_out": _calculate_fan_in_and_fan_out}
    for name in ("uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
                 "trunc_normal_", "orthogonal_"):
        table[name] = random_(name)
    return table


def _bind_layers(run: Run) -> dict:
    """Every nn class as a subclass bound to this Run (its parameters come from `run`)."""
    bound = {}
    for name, cls in {**CONTAINERS, **layers.LAYERS}.items():
        bound[name] = type(name, (cls,), {"_run": run, "__module__": "torch.nn"})
    return bound


def _torch_functional_aliases() -> dict:
    """torch.* spellings of nn ops, with torch's own argument orders where they differ from F's."""
    def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
        return norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)

    def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                      cudnn_enabled=True):
        return norm.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)

    def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
        return norm.layer_norm(input, normalized_shape, weight, bias, eps)

    def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
        return norm.group_norm(input, num_groups, weight, bias, eps)

    def dropout(input, p, train):
        return layers.dropout(input, p, train)
    return {"batch_norm": batch_norm, "instance_norm": instance_norm, "layer_norm": layer_norm,
            "group_norm": group_norm, "dropout": dropout, "cosine_similarity": loss.cosine_similarity,
            "pairwise_distance": loss.pairwise_distance, "softmax": reduction.softmax,
            "log_softmax": reduction.log_softmax, **conv.FUNCTIONS,
            **{k: v for k, v in pool.FUNCTIONS.items() if not k.startswith("adaptive_max")}}


def _functional(run: Run) -> dict:
    table = {**pointwise.ACTIVATIONS, **conv.FUNCTIONS, **pool.FUNCTIONS, **norm.FUNCTIONAL, **loss.FUNCTIONAL,
             "linear": linalg.linear, "bilinear": linalg.bilinear, "softmax": reduction.softmax,
             "log_softmax": reduction.log_softmax,
             "softmin": lambda input, dim=None, **k: reduction.softmax(-input, dim), "one_hot": shape.one_hot,
             "pad": shape.pad, "scaled_dot_product_attention": linalg.scaled_dot_product_attention,
             "dropout": layers.dropout, "dropout1d": layers.dropout, "dropout2d": layers.dropout,
             "dropout3d": layers.dropout, "alpha_dropout": layers.dropout,
             "embedding": lambda input, weight, *a, **k: linalg.matmul(shape.one_hot(input, weight.shape[0])
                                                                       .to(weight.dtype), weight)}
    for name in ("relu", "leaky_relu", "hardtanh", "elu", "selu", "celu", "threshold", "rrelu"):
        if name in table:
            table[name + "_"] = (lambda fn: lambda input, *a, **k: input.copy_(fn(input, *a, **k)))(table[name])
    return table


def build(run: Run) -> dict[str, types.ModuleType]:
    """The stand-in modules for one Run, keyed by their import names."""
    factories = Factories(run)
    nn_classes = _bind_layers(run)
    functional = _module("torch.nn.functional", _functional(run))
    init = _module("torch.nn.init", _init_functions(run))
    nn = _module("torch.nn", {**nn_classes, "Parameter": Parameter, "functional": functional, "init": init})
    nn.Module = nn_classes["Module"]
    cpp_extension = _module("torch.utils.cpp_extension", {"load_inline": _hook(run, "load_inline"),
                                                          "load": _hook(run, "load")})
    utils = _module("torch.utils", {"cpp_extension": cpp_extension})
    switches = switch_functions(run)
    amp_decorators = autograd.amp_decorators(run)
    amp = _module("torch.amp", {"autocast": switches["autocast"], **amp_decorators})
    cuda_amp = _module("torch.cuda.amp", {"autocast": switches["cuda_autocast"], **amp_decorators})
    cuda = _module("torch.cuda", {"amp": cuda_amp,
        "is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0,
        "set_device": lambda *a, **k: None, "device": _NoGrad, "device_of": _NoGrad,
        "get_device_name": lambda *a, **k: "Volta symbolic device", "manual_seed": lambda *a: None,
        "manual_seed_all": lambda *a: None, "empty_cache": lambda: None, "is_initialized": lambda: True,
        **streams.cuda_functions(run.streams), **graphs.functions(run), **cuda_functions(run)})
    backends = _module("torch.backends", {"cudnn": switches["cudnn"],
                                          "cuda": types.SimpleNamespace(matmul=switches["matmul"])})
    function = _module("torch.autograd.function", autograd.FUNCTIONS)
    autograd_module = _module("torch.autograd", {**autograd.FUNCTIONS, "function": function,
                                                 "grad_mode": _module("torch.autograd.grad_mode", {"no_grad": _NoGrad})})
    version = _module("torch.version", {"__version__": "2.5.0+volta.symbolic", "cuda": "12.4", "hip": None,
                                        "git_version": "volta"})
    jit = _module("torch.jit", {"script": _identity_decorator, "trace": lambda fn, *a, **k: fn,
                                "trace_module": lambda mod, *a, **k: mod, "freeze": lambda mod, *a, **k: mod,
                                "optimize_for_inference": lambda mod, *a, **k: mod,
                                "ignore": _identity_decorator, "unused": _identity_decorator})
    table = {
        **D.TORCH_NAMES, **pointwise.FUNCTIONS, **reduction.FUNCTIONS, **linalg.FUNCTIONS, **shape.FUNCTIONS,
        **methods.VIEW_FUNCTIONS, **_torch_functional_aliases(), **factories.functions(),
        "sigmoid": pointwise.sigmoid, "tanh": pointwise.tanh, "relu": pointwise.relu,
        "relu_": lambda t: t.relu_(), "sigmoid_": lambda t: t.sigmoid_(), "tanh_": lambda t: t.tanh_(),
        "dtype": D.DType, "Tensor": tensor_class(factories), "Size": Size, "device": methods.Device,
        "is_tensor": lambda x: isinstance(x, SymTensor), "is_floating_point": lambda x: x.dtype.is_floating_point,
        "result_type": lambda a, b: _result_type(a, b), "promote_types": D.promote,
        "get_default_dtype": lambda: D.DEFAULT_FLOAT, "can_cast": lambda a, b: True,
        "finfo": _Info, "iinfo": _Info, "no_grad": _NoGrad, "enable_grad": _NoGrad, "inference_mode": _NoGrad,
        "set_grad_enabled": _NoGrad, "is_grad_enabled": lambda: False, "manual_seed": lambda *a: None,
        "seed": lambda: 0, "compile": _identity_decorator, "nn": nn, "amp": amp,
        "autocast": switches["autocast"], "set_float32_matmul_precision": switches["set_float32_matmul_precision"],
        "get_float32_matmul_precision": switches["get_float32_matmul_precision"], "cuda": cuda, "utils": utils,
        "backends": backends, "jit": jit, "autograd": autograd_module, "version": version, "__version__": "2.5.0+volta.symbolic", "inf": float("inf"),
        "nan": float("nan"), "pi": 3.141592653589793, "e": 2.718281828459045, "Generator": Missing("torch.Generator"),
    }
    torch = _module("torch", table)
    return {"torch": torch, "torch.nn": nn, "torch.nn.functional": functional, "torch.nn.init": init,
            "torch.utils": utils, "torch.utils.cpp_extension": cpp_extension, "torch.cuda": cuda,
            "torch.backends": backends, "torch.jit": jit, "torch.amp": amp, "torch.cuda.amp": cuda_amp,
            "torch.autograd": autograd_module, "torch.autograd.function": function, "torch.version": version}


def _result_type(a, b):
    if not (isinstance(a, SymTensor) or isinstance(b, SymTensor)):
        raise TorchError("result_type needs a tensor")
    return result_type(a, b)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of unknown torch.* submodules while the stand-in is installed: modules of placeholders."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        module = StandIn(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        return None


@contextlib.contextmanager
def installed(run: Run):
    """Install the Run's stand-in as `torch` in sys.modules for the block; restore everything after.
    Real torch must not run inside the block: an import it makes there would get the stand-in."""
    stashed = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    for name in stashed:
        del sys.modules[name]
    finder = _Finder()
    sys.modules.update(build(run))
    sys.meta_path.insert(0, finder)
    launching = getattr(getattr(run, "host", None), "launching", None)   # the candidate side's Triton launches
    try:
        with launching() if launching is not None else contextlib.nullcontext():
            yield sys.modules["torch"]
    finally:
        sys.meta_path.remove(finder)
        for name in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update(stashed)


__all__ = ["Module", "Missing", "StandIn", "build", "installed"]
