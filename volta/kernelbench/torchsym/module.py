"""torch.nn.Module and Parameter for the stand-in: attribute registration, the module tree, training mode.

A module registers parameters, buffers and submodules as torch does (`__setattr__`, `register_buffer`,
`register_parameter`, `add_module`) so `named_parameters()`/`named_buffers()` give the qualified names
(`conv.weight`, `bn.running_mean`) that `problem.py` turns into leaf names. Modules start in training
mode, as KernelBench builds and calls them. `.to(dtype)`, `.half()` and friends change the dtype of
floating parameters and buffers; device moves are the identity.

Layer classes take their tensors from `self._run` (a class attribute): the stand-in binds every layer class
to the Run it serves by subclassing (`bind`), so no module-level state says which run is current.
"""
from __future__ import annotations

from collections import OrderedDict

from volta.kernelbench import dtypes as D
from volta.kernelbench.dtypes import DType
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.tensor import SymTensor


class Parameter(SymTensor):
    """A tensor registered as a module parameter; shares the storage of the tensor it wraps."""

    def __init__(self, data=None, requires_grad: bool = True):
        if data is None:
            raise unsupported("nn.Parameter() without data")
        if not isinstance(data, SymTensor):
            raise TorchError(f"nn.Parameter expects a tensor, got {type(data).__name__}")
        super().__init__(data.storage, data.offset, data.shape, data._strides, data.session)
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class HookHandle:
    """What register_forward_hook returns: `remove()` takes the hook out."""

    def __init__(self, table: dict, key: int):
        self._table, self.key = table, key

    def remove(self) -> None:
        self._table.pop(self.key, None)


class Module:
    """torch.nn.Module: the registry of parameters, buffers and submodules, and __call__ -> forward."""

    _run = None              # the Run this class is bound to (set on the per-run subclasses)

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value) -> None:
        if "_parameters" not in self.__dict__:
            if isinstance(value, (Parameter, Module)):
                raise TorchError("cannot assign module or parameter before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Parameter):
            self._forget(name)
            self._parameters[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TorchError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                 "(torch.nn.Parameter or None expected)")
            self._parameters[name] = None
        elif isinstance(value, Module):
            self._forget(name)
            self._modules[name] = value
        elif name in self._modules:
            if value is not None:
                raise TorchError(f"cannot assign '{type(value).__name__}' as child module '{name}'")
            self._modules[name] = None
        elif name in self._buffers:
            if value is not None and not isinstance(value, SymTensor):
                raise TorchError(f"cannot assign '{type(value).__name__}' as buffer '{name}'")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)

    def __getattr__(self, name: str):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def __call__(self, *args, **kwargs):
        """forward (as bound now: an instance attribute rebound at run time wins) between the forward pre-hooks
        and forward hooks registered on this module, as torch runs them."""
        hooks = self.__dict__.get("_volta_hooks", {})
        for hook in list(hooks.get("pre", {}).values()):
            changed = hook(self, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        result = self.forward(*args, **kwargs)
        for hook in list(hooks.get("post", {}).values()):
            changed = hook(self, args, result)
            if changed is not None:
                result = changed
        return result

    def _add_hook(self, kind: str, hook) -> "HookHandle":
        hooks = self.__dict__.setdefault("_volta_hooks", {"pre": {}, "post": {}})
        handle = HookHandle(hooks[kind], len(hooks[kind]) and max(hooks[kind]) + 1)
        hooks[kind][handle.key] = hook
        return handle

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        if prepend or with_kwargs:
            raise unsupported("Module.register_forward_pre_hook(prepend=/with_kwargs=)")
        return self._add_hook("pre", hook)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        if prepend or with_kwargs:
            raise unsupported("Module.register_forward_hook(prepend=/with_kwargs=)")
        return self._add_hook("post", hook)

    def forward(self, *args, **kwargs):
        raise TorchError(f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    # ------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        if tensor is not None and not isinstance(tensor, SymTensor):
            raise TorchError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}'")
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor

    def register_parameter(self, name: str, param) -> None:
        if param is not None and not isinstance(param, Parameter):
            raise TorchError(f"cannot assign '{type(param).__name__}' object to parameter '{name}'")
        self.__dict__.pop(name, None)
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        self.__dict__.pop(name, None)
        self._modules[name] = module

    register_module = add_module

    # ------------------------------------------------------------ the tree
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self):
        return (m for _, m in self.named_modules())

    def named_children(self):
        return ((n, m) for n, m in self._modules.items() if m is not None)

    def children(self):
        return (m for _, m in self.named_children())

    def _named(self, table: str, prefix: str, recurse: bool, remove_duplicate: bool = True):
        seen = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        return self._named("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True):
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        return self._named("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        return (b for _, b in self.named_buffers(recurse=recurse))

    def state_dict(self, *args, **kwargs):
        return OrderedDict(list(self.named_parameters()) + list(self.named_buffers()))

    # ------------------------------------------------------------ modes and conversions
    def train(self, mode: bool = True):
        for module in self.modules():
            object.__setattr__(module, "training", bool(mode))
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        return None

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _cast(self, dtype: DType):
        for module in self.modules():
            for table in (module._parameters, module._buffers):
                for name, t in table.items():
                    if t is not None and t.dtype.is_floating_point and t.dtype is not dtype:
                        cast = t.to(dtype)
                        table[name] = Parameter(cast, t.requires_grad) if isinstance(t, Parameter) else cast
        return self

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, DType):
                dtype = a
        return self._cast(dtype) if dtype is not None else self

    def cuda(self, device=None):
        return self

    def cpu(self):
        return self

    def half(self):
        return self._cast(D.float16)

    def float(self):
        return self._cast(D.float32)

    def double(self):
        return self._cast(D.float64)

    def bfloat16(self):
        return self._cast(D.bfloat16)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.extra_repr()})"

    def __dir__(self):
        return list(super().__dir__()) + list(self._parameters) + list(self._buffers) + list(self._modules)


class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, index):
        modules = list(self._modules.values())
        if isinstance(index, slice):
            return type(self)(*modules[index])
        return modules[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        for module in modules or ():
            self.append(module)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def __getitem__(self, index):
        modules = list(self._modules.values())
        return type(self)(modules[index]) if isinstance(index, slice) else modules[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        for name, module in dict(modules or {}).items():
            self.add_module(name, module)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        for value in values or ():
            self.append(value)

    def append(self, value):
        self.register_parameter(str(len(self._parameters)), value if isinstance(value, Parameter)
                                else Parameter(value))
        return self

    def __getitem__(self, index):
        return list(self._parameters.values())[index]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())


class ParameterDict(Module):
    def __init__(self, values=None):
        super().__init__()
        for name, value in dict(values or {}).items():
            self[name] = value

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        self.register_parameter(key, value if isinstance(value, Parameter) else Parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()


CONTAINERS = {"Module": Module, "Sequential": Sequential, "ModuleList": ModuleList, "ModuleDict": ModuleDict,
              "ParameterList": ParameterList, "ParameterDict": ParameterDict}
