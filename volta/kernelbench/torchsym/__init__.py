"""A stand-in for the `torch` API that KernelBench references use, computing on symbolic tensors.

    run = new_run()                    # a symbolic run (new_run(symbolic=False): the float dry run)
    with installed(run) as torch:      # `import torch` inside the block gets the stand-in
        x = torch.rand(4, 8)
        y = torch.nn.functional.gelu(x @ x.T)

Ops mean what torch's ops mean, over the reals; each op lives in one module by family (pointwise,
reduction, linalg, conv, pool, norm, loss, shape, creation), nn modules in `module`/`layers`, the method
table of tensors in `methods`, and the module objects and their installation in `namespace`.
"""
from __future__ import annotations

from volta.kernelbench.elements import FloatKit, Meter, SymbolicKit
from volta.kernelbench.tensor import Session
from volta.kernelbench.torchsym.creation import Run, Source
from volta.kernelbench.torchsym.methods import METHODS
from volta.kernelbench.torchsym.namespace import installed


def new_run(symbolic: bool = True, limit: int | None = None, seed: int = 0) -> Run:
    """A fresh Run: its own session (kit, method table, addresses) and no sources yet. `limit` bounds the
    element operations (elements.Meter); `seed` seeds the float dry run's random values."""
    meter = Meter(limit)
    kit = SymbolicKit(meter) if symbolic else FloatKit(meter, seed)
    session = Session(kit, METHODS)
    run = Run(session)
    session.run = run
    return run


__all__ = ["Run", "Source", "installed", "new_run"]
