"""KernelBench front door: a PyTorch reference `Model` run symbolically, against a CUDA candidate.

`tensor` holds the symbolic tensors (storage, views, element expressions), `torchsym` the stand-in for
the `torch` API a reference uses, `problem` loads a KernelBench problem file (sizes scaled down) and runs
its reference, `check` compares a candidate with it, `api` is the Python call.

The package itself is that call: `volta.kernelbench(problem, candidate, sizes=...)` (see `api.kernelbench`).
A function named `volta.kernelbench` could not live beside this package (importing a submodule rebinds the
package's name on `volta`), so the module is made callable. Importing this package imports nothing else.
"""
import sys
import types
from importlib import import_module as _import_module


class _CallableModule(types.ModuleType):
    def __call__(self, problem, candidate, sizes=None, **options):
        """`volta.kernelbench.api.kernelbench(problem, candidate, sizes, **options)`."""
        api = _import_module("volta.kernelbench.api")   # start-up: loaded on first call, `import volta` stays cheap
        return api.kernelbench(problem, candidate, sizes, **options)


sys.modules[__name__].__class__ = _CallableModule
