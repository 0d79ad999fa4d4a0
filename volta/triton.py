"""Triton kernels in: `volta.triton.check`, `volta.triton.races`, `volta.triton.run` (`pip install 'volta[triton]'`).

Triton 3.x compiles a `@triton.jit` function to PTX without a GPU. This module does that for the given
constexprs, num_warps and num_stages (target sm_80 by default), and builds the `volta.Launch` a Triton
call `kernel[grid](*args, **constexprs)` makes: grid from the user's tuple or grid function of the
meta-parameters, block = 32 * num_warps, the dynamic shared memory Triton asked for (`metadata.shared`),
and Triton's hidden trailing pointer parameters (global scratch, profile scratch) — null pointers when
Triton reserved no scratch (size 0: the kernel never dereferences them), else scratch buffers of the size
it asked for per program.

    import volta, volta.triton
    x, y, out = volta.Buffer("x", "f32", 1000, "in"), volta.Buffer("y", "f32", 1000, "in"), volta.Buffer("out", "f32", 1000, "out")
    ref = volta.Launch(grid=8, block=128, args=[x, y, out, 1000])                     # the CUDA reference's launch
    r = volta.triton.check("vector_add.cu", add_kernel, ref,                           # reference first, Triton second
                           grid=lambda meta: (triton.cdiv(1000, meta["BLOCK"]),),
                           args=[x, y, out, 1000], constexprs={"BLOCK": 256}, num_warps=4)
    r.verdict, print(r.report())
    volta.triton.races(softmax_kernel, grid=(4,), args=[out, x, 128], constexprs={"BLOCK": 128})
    r = volta.triton.launcher("norms.py:rms_norm_fwd", ref="ref_rms_norm.py:rms_norm_fwd", sizes={"cols": 64})

`launcher` takes the Python launcher itself (volta/kernelbench/triton_check.py): no launch is copied by hand.

The signature Triton compiles for is inferred from `args` (a `volta.Buffer` is a pointer to its dtype, an int
an `i32` — `i64` when it does not fit —, a float an `fp32`, a symbol name its declared type); give
`signature={"n": "i64", …}` to override entries. Nothing here needs a GPU or CUDA.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from volta.api import Buffer, Launch, UsageError, check as _check, races as _races, run as _run
from volta.kernelbench.triton_check import TritonResult, check as _check_launcher
from volta.triton_jit import Call, TritonKernel, compile, compile_call, require_triton

__all__ = ["TritonKernel", "Call", "TritonResult", "compile", "compile_call", "launch", "check", "races", "run",
           "launcher"]


def launcher(launcher: str, ref: str | None = None, sizes: dict | None = None, *, timeout_ms: int = 10_000,
             sms: int = 4) -> TritonResult:
    """`volta triton LAUNCHER.py:fn --ref REF.py:fn --size N=V`: the launcher function run as its host code runs
    it (every `kernel[grid](...)` compiled as Triton launches it, torch between launches on the stand-in),
    against the plain-torch reference on the inputs of the reference file's `get_inputs()`; without `ref`,
    races, bounds and uninitialized reads only. `result.verdict`, `result.exit_code`; the report is
    `volta.report.render(result)` (text) or `render(result, "json")`."""
    return _check_launcher(launcher, ref, sizes, timeout_ms=timeout_ms, sms=sms)


def launch(fn, grid, args: Sequence, *, constexprs=None, num_warps: int = 4, num_stages: int = 3, arch: int = 80,
           signature=None, buffers: Sequence[Buffer] = (), symbols=None, functions=None):
    """(TritonKernel, volta.Launch) for `fn[grid](*args, **constexprs)`."""
    k = compile(fn, args=args, signature=signature, constexprs=constexprs, num_warps=num_warps,
                num_stages=num_stages, arch=arch, buffers=buffers, symbols=symbols)
    return k, k.launch(grid, args, buffers=buffers, symbols=symbols, functions=functions)


def check(ref, fn, launch: Launch, *, grid=None, args: Sequence | None = None, constexprs=None, num_warps: int = 4,
          num_stages: int = 3, arch: int = 80, signature=None, **options):
    """`volta.check(ref, <fn compiled>, launch, opt_launch=<its launch>)`: the reference (a .ptx/.cu path or PTX
    text) with its `launch`, against the Triton kernel launched as `fn[grid](*args, **constexprs)` (`grid`
    defaults to the reference's grid, `args` to the reference's arguments). Other options go to `volta.check`
    (fp=, prove=, timeout_ms=, …). Returns a `volta.api.CheckResult`."""
    if not isinstance(launch, Launch):
        raise UsageError("volta.triton.check(ref, fn, launch): launch is the reference's volta.Launch")
    targs = list(launch.args) if args is None else list(args)
    reals = options.get("fp", "real") == "real"   # over the reals: libdevice calls as the functions they name
    k, opt = _launch_for(fn, launch.grid if grid is None else grid, targs, launch, constexprs, num_warps,
                         num_stages, arch, signature, reals)
    return _check(ref, k.path(reals), launch, opt_launch=opt, **options)


def races(fn, *, grid, args: Sequence, constexprs=None, num_warps: int = 4, num_stages: int = 3, arch: int = 80,
          signature=None, buffers: Sequence[Buffer] = (), symbols=None, **options):
    """`volta.races` on the Triton kernel launched as `fn[grid](*args, **constexprs)`."""
    k, lau = launch(fn, grid, args, constexprs=constexprs, num_warps=num_warps, num_stages=num_stages, arch=arch,
                    signature=signature, buffers=buffers, symbols=symbols)
    return _races(k.path(), lau, **options)


def run(fn, *, grid, args: Sequence, constexprs=None, num_warps: int = 4, num_stages: int = 3, arch: int = 80,
        signature=None, buffers: Sequence[Buffer] = (), **options):
    """`volta.run` (CPU replay, bit for bit) of `fn[grid](*args, **constexprs)`; `inputs=` as for volta.run."""
    k, lau = launch(fn, grid, args, constexprs=constexprs, num_warps=num_warps, num_stages=num_stages, arch=arch,
                    signature=signature, buffers=buffers)
    return _run(k.path(), lau, **options)


def _launch_for(fn, grid, args, ref_launch: Launch, constexprs, num_warps, num_stages, arch, signature, reals):
    bufs = ref_launch.all_buffers()
    k = compile(fn, args=args, signature=signature, constexprs=constexprs, num_warps=num_warps,
                num_stages=num_stages, arch=arch, buffers=bufs, symbols=ref_launch.symbols)
    lau = k.launch(grid, args, buffers=bufs, symbols=ref_launch.symbols, functions=ref_launch.functions, reals=reals)
    return k, replace(lau, buffers=[b for b in lau.buffers if b.name not in {x.name for x in bufs}])
