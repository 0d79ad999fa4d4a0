"""Tensor subclasses a candidate defines: followed or refused, never trusted silently.

A `torch.Tensor` subclass with `__torch_function__` or `__torch_dispatch__` changes what every torch call on
its instances means; the stand-in does not route calls through those hooks, so checking such a candidate
as if it were plain torch could call a rewritten op equivalent. A candidate that defines one is UNSUPPORTED
naming the class and its line. A subclass without them is only a tensor with extra Python attributes, and
runs as a tensor.
"""
from __future__ import annotations

import inspect

from volta.errors import Span, Unsupported
from volta.kernelbench.tensor import SymTensor

OVERRIDES = ("__torch_function__", "__torch_dispatch__")


def refuse_overriding_subclasses(namespace: dict, path: str) -> None:
    """Raise Unsupported for the first class of the candidate's namespace that subclasses the tensor and
    overrides how torch calls dispatch on it."""
    for name, obj in namespace.items():
        if not (isinstance(obj, type) and issubclass(obj, SymTensor) and obj is not SymTensor):
            continue
        hooks = [h for h in OVERRIDES if any(h in vars(k) for k in obj.__mro__ if k is not SymTensor and
                                             issubclass(k, SymTensor))]
        if hooks:
            try:
                line = inspect.getsourcelines(obj)[1]
            except (OSError, TypeError):
                line = 1
            raise Unsupported(f"the candidate's tensor subclass `{name}` defines {' and '.join(hooks)}, which "
                              f"reroutes every torch call on its tensors; Volta does not follow that dispatch, "
                              f"so nothing is claimed", Span(path, line, 1))
