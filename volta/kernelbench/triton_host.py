"""Triton kernels launched from a KernelBench candidate's `forward`, executed as the Host executes CUDA launches.

A Triton candidate defines `@triton.jit` kernels and calls them from `ModelNew.forward` as `kernel[grid](...)`
(often through a small launcher function of its own, several kernels per call, torch ops between them). While
the stand-in torch is installed for a candidate run, `engine.Host.launching` sends `JITFunction.run` — what
`kernel[grid](...)` calls — to `capture` here instead of a GPU driver:

1. the kernel is compiled as a GPU launch of those arguments compiles it (`volta.triton_jit.compile_call`:
   Triton's own binder and specialisation, the PTX the GPU runs, libdevice calls read as the real functions);
2. the grid is Triton's (a tuple, or the grid function of the bound arguments and constexprs);
3. each tensor argument is a pointer into its storage, which the Host's device memory names as it names the
   storages CUDA launches reach (`x` for an input, `tensor#k` for an allocation; `name+BYTES` for a view);
4. the launch is one more event of the Host (`TritonLaunch`, a `trace.Launch` on the current stream), so the
   coverage observer, stream ordering, findings, the report's launch list and the exact re-execution of a
   counterexample treat it as they treat a CUDA launch; `execute` runs it on Volta's machine over the
   storages (volta/kernelbench/triton_storage.py) and its stores are read back, so the torch code after it and
   the next launch compute on its results.

Precision: each launched kernel's PTX is read for narrow arithmetic like a CUDA extension's (`TritonBuild`
answers what precision.kernel_events reads: the PTX and the Python line of each `.loc`), so `tl.dot` on
float32 tensors — TF32 unless `input_precision="ieee"` — is a PRECISION place at the kernel's line.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from volta.errors import Unsupported, UsageError
from volta.kernelbench import kernels, triton_storage
from volta.kernelbench.host import trace
from volta.kernelbench.triton_launch import argument_entries, call_site
from volta.triton_jit import TritonKernel, compile_call, grid_dims, require_triton

IMPORTS_TRITON = re.compile(r"^\s*(import\s+triton\b|from\s+triton\b)", re.M)
MODULE = "triton"   # the `extension` a Triton launch is listed under


@dataclass(frozen=True)
class TritonLaunch(trace.Launch):
    """A captured `kernel[grid](...)`: the Host's launch event, with the compiled kernel and its `--args`."""

    compiled: TritonKernel | None = None
    entries: tuple = ()          # one `--args` entry per PTX parameter (buffer name, name+BYTES, number)
    storages: tuple = ()         # (buffer name, storage) the tensor arguments reach
    where: tuple = ()            # (file, line) of the `kernel[grid](...)` call
    source: str = ""             # the file the `@triton.jit` function is written in


@dataclass(frozen=True)
class KernelOrigin:
    """`.loc` lines of a Triton kernel's PTX name the Python file that defines it."""

    path: str

    def origin(self, generated: str, line: int):
        return (self.path, line) if generated == os.path.basename(self.path) else None


@dataclass(frozen=True)
class TritonBuild:
    """What precision.kernel_events reads of a built extension, for one Triton kernel."""

    ptx: str
    ext: KernelOrigin


def prepare(source: str) -> None:
    """Import Triton for a candidate that imports it, before its code runs, so that `Host.launching` takes its
    launches from the candidate's first line on (a launch Triton made itself would probe for a GPU driver, which
    the confined worker refuses); UNSUPPORTED where Triton is not installed."""
    if not IMPORTS_TRITON.search(source):
        return
    try:
        require_triton()
    except UsageError as err:
        raise Unsupported(f"the candidate imports triton: {err.message}") from None


def capture(memory, fn, args: tuple, kwargs: dict, grid) -> TritonLaunch | None:
    """The launch event of `fn[grid](*args, **kwargs)` (None for an empty grid, which runs nothing); the
    storages its tensors reach are registered in the Host's `memory`."""
    where = call_site()
    call = compile_call(fn, args, kwargs)
    dims = grid_dims(grid, call.kernel, call.bound)
    if 0 in dims:
        return None

    def name_of(storage, param):
        memory.address(storage)
        return memory.name(storage)

    entries, _, storages = argument_entries(call, name_of)
    kernel = call.kernel
    return TritonLaunch(f"{MODULE}:{fn.__name__}", kernel.name, (tuple(dims) + (1, 1))[:3], (kernel.block, 1, 1),
                        kernel.shared, 0, (), compiled=kernel, entries=tuple(entries),
                        storages=tuple(storages.items()), where=where, source=_defined_in(fn) or where[0])


def build_of(ev: TritonLaunch) -> TritonBuild:
    return TritonBuild(str(ev.compiled.path()), KernelOrigin(ev.source))


def execute(ev: TritonLaunch) -> kernels.LaunchResult:
    """Run the launch on Volta's machine over its storages; its stores are read back unless a blocking finding
    (a race, out of bounds, an uninitialized read, ...) makes its outputs no function of its inputs."""
    kernel = ev.compiled
    reals = kernel.real_ptx is not None
    storages = dict(ev.storages)
    done = triton_storage.run(kernel, kernel.path(reals), ev.grid, list(ev.entries), storages,
                              bits_ptx=kernel.path() if reals else None)
    return kernels.LaunchResult(kernel.name, str(kernel.path(reals)), ev.grid, ev.block, done.findings,
                                done.thread_instructions, done.seconds, storages)


def _defined_in(fn) -> str | None:
    """The file a `@triton.jit` function is written in."""
    code = getattr(getattr(fn, "fn", None), "__code__", None)
    return code.co_filename if code is not None else None


__all__ = ["MODULE", "KernelOrigin", "TritonBuild", "TritonLaunch", "build_of", "capture", "execute", "prepare"]
