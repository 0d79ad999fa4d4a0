"""Volta: a formal checker for GPU kernels written in PTX.

The Python API (`volta.api`, loaded on first use so that `import volta` stays cheap):

    volta.check(ref, opt, launch)  # equivalence over the reals (or fp="hopper": the bits), as `volta check`
    volta.races(kernel, launch)    # races, deadlocks, out-of-bounds, uninitialized reads, as `volta races`
    volta.run(kernel, launch)      # CPU replay on concrete inputs, as `volta run`
    volta.mma(arch, in_fmt, a, b)  # one tensor-core dot product, bit for bit, as `volta mma`
    volta.kernelbench(problem, candidate, sizes={...})  # a KernelBench candidate against its PyTorch reference
    volta.Launch(grid, block, args=[...]), volta.Buffer(name, dtype, count, role)
    volta.Pipeline([(kernel, Launch), ...])  # launches in order on shared buffers, for check and races

Kernels are .ptx or .cu paths (nvcc), PTX text, or a manifest.toml. Each call returns a result with
`verdict`, `exit_code`, `findings`, `timings` and `report(fmt)`; bad input raises `volta.UsageError`.
"""

from importlib import import_module as _import_module

__version__ = "0.1.0"

_API = ("Buffer", "Launch", "Pipeline", "Struct", "CheckResult", "RacesResult", "RunResult", "MmaResult", "check", "races", "run", "mma",
        "VoltaError", "UsageError", "Unsupported")
__all__ = ["__version__", "kernelbench", *_API]


def __getattr__(name: str):
    """Load `volta.api` on first use of a public name: `volta parse` and `import volta` never import z3.
    `volta.kernelbench` is the package volta/kernelbench, itself callable (its __init__ says why).

    Every import of a submodule runs this package first, so it imports nothing of volta at module level: the
    face is loaded by name here, the one import from the root up the layers (tests/test_imports.py names it)."""
    if name == "kernelbench":
        return _import_module("volta.kernelbench")  # start-up: the face, loaded on first use
    if name in _API:
        value = getattr(_import_module("volta.api"), name)  # start-up: the face, loaded on first use
        globals()[name] = value
        return value
    raise AttributeError(f"module 'volta' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
