"""`torch.autograd` for forward passes: `Function.apply` runs the subclass's `forward(ctx, *args)` eagerly.

Production launchers (and some KernelBench candidates) wrap their kernels in `torch.autograd.Function` subclasses
and call `MyFn.apply(x, ...)`. Without autograd the meaning of `apply` is exactly `forward(ctx, ...)`: the
context only records what backward would need, so saving tensors or marking outputs changes no value. Backward
is never run here (the checker compares forward outputs); a call to it through this stand-in is UNSUPPORTED.
"""
from __future__ import annotations

from volta.kernelbench.failures import unsupported


class FunctionCtx:
    """The `ctx` a forward receives: stores what it is given and changes no value."""

    def __init__(self, inputs: tuple):
        self.saved_tensors: tuple = ()
        self.needs_input_grad = tuple(False for _ in inputs)
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        self.saved_tensors = tensors

    def save_for_forward(self, *tensors) -> None:
        pass

    def mark_dirty(self, *tensors) -> None:
        pass

    def mark_non_differentiable(self, *tensors) -> None:
        pass

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class Function:
    """Base of user autograd functions: `apply` is the subclass's static `forward` with a fresh context."""

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx(args)
        if "setup_context" in cls.__dict__ and not _takes_ctx(cls.forward):
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
            return output
        return cls.forward(ctx, *args, **kwargs)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise unsupported("torch.autograd.Function.forward", "the subclass defines no forward")

    @staticmethod
    def backward(ctx, *grads):
        raise unsupported("torch.autograd.Function.backward", "backward passes are not checked")


def _takes_ctx(forward) -> bool:
    """A forward written for the `setup_context` style has no ctx parameter."""
    code = getattr(forward, "__code__", None)
    return bool(code and code.co_argcount and code.co_varnames[0] == "ctx")


def once_differentiable(fn):
    """`torch.autograd.function.once_differentiable`: a backward decorator, no meaning for forward."""
    return fn


FUNCTIONS = {"Function": Function, "FunctionCtx": FunctionCtx, "once_differentiable": once_differentiable}


def amp_decorators(run) -> dict:
    """`torch.amp.custom_fwd` / `custom_bwd` (also under `torch.cuda.amp`), with or without arguments.

    Outside an autocast region both change nothing. `custom_fwd(cast_inputs=...)` inside one casts the inputs and
    turns autocast off for the forward: not modelled, so UNSUPPORTED rather than computed in the wrong precision.
    """
    def custom_fwd(fn=None, *, device_type=None, cast_inputs=None):
        if fn is None:
            return lambda f: custom_fwd(f, device_type=device_type, cast_inputs=cast_inputs)
        if cast_inputs is None:
            return fn

        def forward(*args, **kwargs):
            precision = getattr(run.session, "precision", None)
            if precision is not None and precision.autocast_dtype() is not None:
                raise unsupported("torch.amp.custom_fwd", "cast_inputs inside an autocast region is not modelled")
            return fn(*args, **kwargs)
        return forward

    def custom_bwd(fn=None, *, device_type=None):
        return (lambda f: f) if fn is None else fn

    return {"custom_fwd": custom_fwd, "custom_bwd": custom_bwd}
