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

The signature Triton compiles for is inferred from `args` (a `volta.Buffer` is a pointer to its dtype, an int
an `i32` — `i64` when it does not fit —, a float an `fp32`, a symbol name its declared type); give
`signature={"n": "i64", …}` to override entries. Nothing here needs a GPU or CUDA.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from volta.api import Buffer, Launch, UsageError, _dtype_name, check as _check, races as _races, run as _run

__all__ = ["TritonKernel", "compile", "launch", "check", "races", "run"]

# Volta dtype name -> Triton pointer element type
_TRITON_TYPES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "s8": "i8", "s16": "i16",
                 "s32": "i32", "s64": "i64", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
                 "b8": "u8", "b16": "u16", "b32": "u32", "b64": "u64", "pred": "i1"}


def _require_triton():
    try:
        os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, without its warning
        import triton  # noqa: F401
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except ImportError as err:
        raise UsageError(f"volta.triton needs Triton 3.x (`pip install 'volta[triton]'` or `pip install triton`): "
                         f"{err}") from None
    return triton, ASTSource, GPUTarget


@dataclass
class TritonKernel:
    """One compiled configuration: its PTX, entry name, parameters and what a launch of it needs."""

    name: str
    ptx: str
    params: list  # the non-constexpr parameter names, in order (what `args` fills)
    constexprs: dict
    signature: dict
    num_warps: int
    num_stages: int
    shared: int  # dynamic shared memory bytes (`.extern .shared` size)
    hidden: int  # trailing parameters Triton adds (global scratch, profile scratch)
    scratch: tuple = (0, 0)  # bytes per program of each hidden scratch (0: null pointer)
    metadata: Any = field(default=None, repr=False)

    @property
    def block(self) -> int:
        return 32 * self.num_warps

    def path(self):
        """The PTX as a file (reports name file:line): `~/.cache/volta/triton/NAME.HASH.ptx`, or `save(path)`."""
        import hashlib

        from volta.cuda import cache_root

        base = cache_root() / "triton"
        path = base / f"{self.name}.w{self.num_warps}.s{self.num_stages}.{hashlib.sha256(self.ptx.encode()).hexdigest()[:12]}.ptx"
        if not path.is_file():
            base.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(self.ptx)
            os.replace(tmp, path)
        return path

    def save(self, path) -> None:
        from pathlib import Path

        Path(path).write_text(self.ptx)

    def launch(self, grid, args: Sequence, buffers: Sequence[Buffer] = (), symbols: Mapping[str, str] | None = None,
               functions: Mapping[str, str] | None = None) -> Launch:
        """The `volta.Launch` of `kernel[grid](*args)`: grid a tuple/int or a function of the meta-parameters."""
        args = list(args)
        if len(args) != len(self.params):
            raise UsageError(f"Triton kernel `{self.name}` takes {len(self.params)} non-constexpr argument(s) "
                             f"({', '.join(self.params)}), got {len(args)}")
        dims = _grid(grid, self, args)
        programs = 1
        for d in dims:
            programs *= d
        hidden = []
        for i, per_program in enumerate(self.scratch[:self.hidden]):
            if per_program:
                hidden.append(Buffer(f"__triton_scratch{i}", "u8", per_program * programs, "inout"))
            else:
                hidden.append(0)  # a null pointer: Triton reserved no scratch, the kernel never dereferences it
        hidden += [0] * (self.hidden - len(hidden))
        return Launch(grid=dims, block=self.block, args=args + hidden, buffers=list(buffers), kernel=self.name,
                      symbols=dict(symbols or {}), shared_dynamic=self.shared, functions=dict(functions or {}))


def _grid(grid, kernel: TritonKernel, args: list) -> tuple:
    if callable(grid):
        meta = dict(zip(kernel.params, args))
        meta.update(kernel.constexprs)
        meta.update(num_warps=kernel.num_warps, num_stages=kernel.num_stages)
        try:
            grid = grid(meta)
        except Exception as err:  # the user's function: say where it failed, in one paragraph
            raise UsageError(f"the grid function for Triton kernel `{kernel.name}` raised "
                             f"{type(err).__name__}: {err} (it gets a dict of the arguments, constexprs, "
                             f"num_warps and num_stages)") from None
    if isinstance(grid, int) and not isinstance(grid, bool):
        grid = (grid,)
    try:
        dims = tuple(int(d) for d in grid)
    except (TypeError, ValueError):
        raise UsageError(f"Triton grid {grid!r}: expected an int, a tuple of up to three ints, or a function of "
                         f"the meta-parameters returning one") from None
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise UsageError(f"Triton grid {dims}: one to three dimensions, each at least 1")
    return dims


def _arg_type(a, buffers: dict, symbols: Mapping[str, str], pname: str) -> str:
    if isinstance(a, Buffer):
        return "*" + _TRITON_TYPES.get(_dtype_name(a.dtype), "u8")
    if isinstance(a, bool):
        raise UsageError(f"Triton argument `{pname}`: pass an int (0 or 1), not a bool")
    if isinstance(a, int):
        return "i32" if -(1 << 31) <= a < (1 << 31) else "i64"
    if isinstance(a, float):
        return "fp32"
    if isinstance(a, str):
        if a in buffers:
            return "*" + _TRITON_TYPES.get(_dtype_name(buffers[a].dtype), "u8")
        if a in symbols:
            return _TRITON_TYPES.get(symbols[a], symbols[a])
        raise UsageError(f"Triton argument `{pname}` = {a!r} names no buffer or symbol: pass a volta.Buffer, a "
                         f"number, or list the buffer in buffers=")
    raise UsageError(f"Triton argument `{pname}` = {a!r}: expected a volta.Buffer, a buffer or symbol name, or a number")


def _hidden_count(ptx: str, name: str, visible: int) -> int:
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        raise UsageError(f"Triton's PTX has no `.entry {name}`")
    return max(0, m.group(1).count(".param") - visible)


_CACHE: dict = {}


def compile(fn, *, args: Sequence | None = None, signature: Mapping[str, str] | None = None,
            constexprs: Mapping[str, Any] | None = None, num_warps: int = 4, num_stages: int = 3,
            arch: int = 80, buffers: Sequence[Buffer] = (), symbols: Mapping[str, str] | None = None) -> TritonKernel:
    """Compile `fn` (a `@triton.jit` function) for sm_`arch` without a GPU. The signature comes from `args`
    (see the module docstring), overridden by `signature`; every constexpr parameter needs a value in
    `constexprs` (or a default in the function)."""
    triton, ASTSource, GPUTarget = _require_triton()
    from triton.runtime.jit import JITFunction

    if not isinstance(fn, JITFunction):
        raise UsageError(f"{fn!r} is not a @triton.jit function")
    if isinstance(num_warps, bool) or not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1) \
            or num_warps > 32:
        raise UsageError(f"num_warps {num_warps!r}: a power of two from 1 to 32")
    if isinstance(num_stages, bool) or not isinstance(num_stages, int) or num_stages < 1:
        raise UsageError(f"num_stages {num_stages!r}: a positive int")
    constexprs = dict(constexprs or {})
    params = [p for p in fn.params]
    names = [p.name for p in params]
    unknown = sorted(set(constexprs) - {p.name for p in params if p.is_constexpr})
    if unknown:
        raise UsageError(f"constexprs {', '.join(unknown)} are not constexpr parameters of `{fn.__name__}` "
                         f"(its parameters: {', '.join(names)})")
    for p in params:
        if p.is_constexpr and p.name not in constexprs:
            if getattr(p, "has_default", False):
                constexprs[p.name] = p.default
            else:
                raise UsageError(f"constexpr `{p.name}` of `{fn.__name__}` needs a value: constexprs={{'{p.name}': …}}")
    visible = [p.name for p in params if not p.is_constexpr]
    sig = {}
    bufs = {b.name: b for b in buffers}
    bufs.update({a.name: a for a in (args or ()) if isinstance(a, Buffer)})
    if args is not None:
        if len(args) != len(visible):
            raise UsageError(f"Triton kernel `{fn.__name__}` takes {len(visible)} non-constexpr argument(s) "
                             f"({', '.join(visible)}), got {len(args)}")
        for pname, a in zip(visible, args):
            sig[pname] = _arg_type(a, bufs, symbols or {}, pname)
    for k, v in (signature or {}).items():
        if k not in visible:
            raise UsageError(f"signature entry `{k}` is not a non-constexpr parameter of `{fn.__name__}` "
                             f"({', '.join(visible)})")
        sig[k] = v
    missing = [n for n in visible if n not in sig]
    if missing:
        raise UsageError(f"no type for parameter(s) {', '.join(missing)} of `{fn.__name__}`: give args= or "
                         f"signature={{'{missing[0]}': '*fp32'}}")
    full_sig = {n: (sig[n] if n in sig else "constexpr") for n in names}
    key = (fn.cache_key if hasattr(fn, "cache_key") else id(fn), tuple(full_sig.items()),
           tuple(sorted((k, repr(v)) for k, v in constexprs.items())), num_warps, num_stages, arch)
    if key in _CACHE:
        return _CACHE[key]
    try:
        compiled = triton.compile(ASTSource(fn, signature=full_sig, constexprs=constexprs),
                                  target=GPUTarget("cuda", int(arch), 32),
                                  options={"num_warps": num_warps, "num_stages": num_stages})
    except Exception as err:
        msg = " ".join(str(err).split())
        raise UsageError(f"Triton could not compile `{fn.__name__}` for {full_sig} with constexprs {constexprs}, "
                         f"num_warps={num_warps}, num_stages={num_stages}: {type(err).__name__}: "
                         f"{msg[:1500]}") from None
    md = compiled.metadata
    ptx = compiled.asm["ptx"]
    hidden = _hidden_count(ptx, md.name, len(visible))
    scratch = (int(getattr(md, "global_scratch_size", 0) or 0), int(getattr(md, "profile_scratch_size", 0) or 0))
    kernel = TritonKernel(md.name, ptx, visible, constexprs, full_sig, num_warps, num_stages, int(md.shared or 0),
                          hidden, scratch, md)
    _CACHE[key] = kernel
    return kernel


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
    k, opt = _launch_for(fn, launch.grid if grid is None else grid, targs, launch, constexprs, num_warps,
                         num_stages, arch, signature)
    return _check(ref, k.path(), launch, opt_launch=opt, **options)


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


def _launch_for(fn, grid, args, ref_launch: Launch, constexprs, num_warps, num_stages, arch, signature):
    bufs = ref_launch.all_buffers()
    k, lau = launch(fn, grid, args, constexprs=constexprs, num_warps=num_warps, num_stages=num_stages, arch=arch,
                    signature=signature, buffers=bufs, symbols=ref_launch.symbols, functions=ref_launch.functions)
    return k, replace(lau, buffers=[b for b in lau.buffers if b.name not in {x.name for x in bufs}])
