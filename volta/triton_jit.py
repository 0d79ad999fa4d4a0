"""Triton's JIT without a GPU: a `@triton.jit` function compiled as a launch of it specialises it.

`kernel[grid](*args, **kwargs)` compiles for the arguments it is given (`triton.runtime.jit.JITFunction.run`):
Triton's own `specialize_impl` types each argument — a tensor (anything with `data_ptr()` and `dtype`) is a
pointer to its dtype, an int i32 or i64, a float fp32 — and specialises it: a pointer or int divisible by 16
gets the `tt.divisibility` hint, the int 1 and `None` (an unused optional pointer) become constexprs; floats and
bools are not specialised. `JITFunction._pack_args` turns that into the signature, constexprs and attributes of
the `ASTSource`. `compile_call` runs exactly that code — the binder `create_function_from_signature` makes, on
a CUDA backend for sm_80 — so the PTX checked is the PTX a GPU runs for those arguments. `compile` takes an
explicit signature instead (no divisibility hints), for callers that name the types themselves.

libdevice: Triton links libdevice's bodies into the kernel and LLVM inlines them (tanhf: ex2, rcp,
`and.b32`/`or.b32` on the sign bit, a polynomial below 0.6) and merges their parts with the code around them
(a shared |x|, exp's scaling folded into the next fma), so no line of that PTX says where a call was. A kernel
whose TTGIR calls libdevice (`tt.extern_elementwise` of a `__nv_` symbol) is compiled a second time with an
empty library in libdevice's place and the ptxas stage skipped: every call stays a `call.uni __nv_tanhf` of an
external function, which `volta check` reads as the real function it names (`LIBDEVICE`: tanhf -> tanh,
expf -> exp, erff -> erf, ...) through the launch's `functions`. The same holds for the math ops NVIDIA's
lowering calls libdevice for (`math.erf`, `math.log`, `math.log2`, `math.sin`, `math.cos` in the TTGIR: `tl.math.erf`,
`tl.log`, ...), whose inlined bodies branch on the value; a call with no meaning stays an uninterpreted call. That PTX (`real_ptx`) is the same source
through the same passes with the calls left out of line; the first (`ptx`, libdevice inlined) is the one
bit-exact runs use.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from volta.api import Buffer, Launch, UsageError
from volta.config import WARP_SIZE

__all__ = ["TritonKernel", "Call", "LIBDEVICE", "compile", "compile_call", "require_triton"]

ARCH = 80
# libdevice function -> the real function `volta check` reads it as (volta/exec/handlers/dispatch.py: _meaning)
LIBDEVICE = {"tanh": "tanh", "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt",
             "rsqrt": "rsqrt", "erf": "erf", "sin": "sin", "cos": "cos"}
_EXTERN = re.compile(r'symbol = "(__nv_[A-Za-z0-9_]+)"')
# math ops (`tl.math.erf`, `tl.log`, `tl.sin`, ...) that NVIDIA's lowering turns into a libdevice call whose body
# branches on the value: without the calls left as calls, such a kernel branches on tensor data
_LOWERED_TO_LIBDEVICE = re.compile(r"= math\.(erf|log|log2|sin|cos) ")
_CALLED = re.compile(r"call(?:\.uni)?\s*\(\s*\w+\s*\),\s*(__nv_\w+)\s*,")


def require_triton():
    """The `triton` module (3.x), or a usage error saying how to install it."""
    try:
        os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, without its warning
        import triton
        from triton.backends.compiler import GPUTarget  # noqa: F401
        from triton.compiler import ASTSource  # noqa: F401
    except ImportError as err:
        raise UsageError(f"volta.triton needs Triton 3.x (`pip install 'volta[triton]'` or `pip install triton`): "
                         f"{err}") from None
    return triton


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
    divisible: tuple = ()  # parameters specialised as divisible by 16 (`tt.divisibility`)
    real_ptx: str | None = field(default=None, repr=False)  # libdevice calls left as calls (module docstring)
    functions: dict = field(default_factory=dict)  # libdevice symbol -> real meaning, for real_ptx

    @property
    def block(self) -> int:
        return WARP_SIZE * self.num_warps

    def path(self, reals: bool = False) -> Path:
        """The PTX as a file (reports name file:line): `~/.cache/volta/triton/NAME.HASH.ptx`; with `reals`, the
        PTX whose libdevice calls are calls (the same file when the kernel calls none)."""
        from volta.cuda import cache_root

        text = self.real_ptx if reals and self.real_ptx is not None else self.ptx
        base = cache_root() / "triton"
        tag = ".reals" if text is not self.ptx else ""
        path = base / (f"{self.name}.w{self.num_warps}.s{self.num_stages}{tag}."
                       f"{hashlib.sha256(text.encode()).hexdigest()[:12]}.ptx")
        if not path.is_file():
            base.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(text)
            os.replace(tmp, path)
        return path

    def save(self, path) -> None:
        Path(path).write_text(self.ptx)

    def launch(self, grid, args: Sequence, buffers: Sequence[Buffer] = (), symbols: Mapping[str, str] | None = None,
               functions: Mapping[str, str] | None = None, reals: bool = False) -> Launch:
        """The `volta.Launch` of `kernel[grid](*args)`: grid a tuple/int or a function of the meta-parameters.
        With `reals`, the launch of `real_ptx` (libdevice calls read as the functions they name)."""
        args = list(args)
        if len(args) != len(self.params):
            raise UsageError(f"Triton kernel `{self.name}` takes {len(self.params)} non-constexpr argument(s) "
                             f"({', '.join(self.params)}), got {len(args)}")
        dims = grid_dims(grid, self, dict(zip(self.params, args)))
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
        meanings = dict(functions or {})
        if reals:
            meanings.update(self.functions)
        return Launch(grid=dims, block=self.block, args=args + hidden, buffers=list(buffers), kernel=self.name,
                      symbols=dict(symbols or {}), shared_dynamic=self.shared, functions=meanings)


def grid_dims(grid, kernel: TritonKernel, meta: dict) -> tuple:
    """The grid of a launch: a tuple, an int, or Triton's grid function of the meta-parameters (`meta`: the
    arguments by name, to which the constexprs, num_warps and num_stages are added)."""
    if callable(grid):
        meta = dict(meta)
        for k, v in kernel.constexprs.items():
            meta.setdefault(k, v)
        meta.setdefault("num_warps", kernel.num_warps)
        meta.setdefault("num_stages", kernel.num_stages)
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
    if not 1 <= len(dims) <= 3 or min(dims) < 0:
        raise UsageError(f"Triton grid {dims}: one to three dimensions, none negative")
    return dims


def _hidden_count(ptx: str, name: str, visible: int) -> int:
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        raise UsageError(f"Triton's PTX has no `.entry {name}`")
    return max(0, m.group(1).count(".param") - visible)


def _require_jit(fn):
    from triton.runtime.jit import JITFunction

    if not isinstance(fn, JITFunction):
        raise UsageError(f"{fn!r} is not a @triton.jit function")


def _check_options(num_warps, num_stages) -> None:
    if isinstance(num_warps, bool) or not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1) \
            or num_warps > 32:
        raise UsageError(f"num_warps {num_warps!r}: a power of two from 1 to 32")
    if isinstance(num_stages, bool) or not isinstance(num_stages, int) or num_stages < 1:
        raise UsageError(f"num_stages {num_stages!r}: a positive int")


def _target(arch: int):
    from triton.backends.compiler import GPUTarget

    return GPUTarget("cuda", int(arch), WARP_SIZE)


_CACHE: dict = {}


def _build(fn, signature: dict, constexprs: dict, attrs: dict | None, options: dict, arch: int,
           describe: str) -> TritonKernel:
    """triton.compile of one specialisation (and of its libdevice-as-calls twin when it calls libdevice)."""
    triton = require_triton()
    from triton.compiler import ASTSource

    key = (fn.cache_key, repr(sorted(signature.items())), repr(sorted((repr(k), repr(v)) for k, v in
                                                                       constexprs.items())),
           repr(attrs), repr(sorted(options.items())), arch)
    if key in _CACHE:
        return _CACHE[key]
    try:
        compiled = triton.compile(ASTSource(fn, signature, constexprs, attrs), target=_target(arch), options=options)
    except Exception as err:
        msg = " ".join(str(err).split())
        raise UsageError(f"Triton could not compile `{fn.__name__}` for {describe}: {type(err).__name__}: "
                         f"{msg[:1500]}") from None
    md = compiled.metadata
    ptx = compiled.asm["ptx"]
    names = [p.name for p in fn.params]
    visible = [n for n in names if signature.get(n) != "constexpr"]
    by_name = {names[k[0]] if isinstance(k, tuple) else k: v for k, v in constexprs.items()}
    divisible = tuple(names[k[0]] for k, hints in (attrs or {}).items() if ["tt.divisibility", 16] in hints)
    kernel = TritonKernel(md.name, ptx, visible, by_name, dict(signature), int(md.num_warps),
                          int(md.num_stages), int(md.shared or 0), _hidden_count(ptx, md.name, len(visible)),
                          (int(getattr(md, "global_scratch_size", 0) or 0),
                           int(getattr(md, "profile_scratch_size", 0) or 0)), md, divisible)
    ttgir = compiled.asm.get("ttgir", "")
    if _EXTERN.search(ttgir) or _LOWERED_TO_LIBDEVICE.search(ttgir):
        kernel.real_ptx = _libdevice_as_calls(triton, ASTSource(fn, signature, constexprs, attrs), arch, options)
        symbols = set(_EXTERN.findall(ttgir)) | set(_CALLED.findall(kernel.real_ptx))
        kernel.functions = {s: meaning for s in sorted(symbols) if (meaning := libdevice_meaning(s))}
    _CACHE[key] = kernel
    return kernel


def libdevice_meaning(symbol: str) -> str | None:
    """The real function a libdevice symbol computes (`__nv_tanhf` -> tanh, `__nv_fast_expf` -> exp), or None."""
    name = symbol.removeprefix("__nv_").removeprefix("fast_")
    for candidate in (name, name[:-1] if name.endswith("f") else None):
        if candidate in LIBDEVICE:
            return LIBDEVICE[candidate]
    return None


_NO_LIBRARY = "; Volta: an empty library in libdevice's place, so libdevice calls stay calls\n"


def _libdevice_as_calls(triton, src, arch: int, options: dict) -> str:
    """The PTX of `src` compiled with no libdevice bodies to link (module docstring)."""
    from volta.cuda import cache_root

    empty = cache_root() / "triton" / "no-libdevice.ll"
    if not empty.is_file():
        empty.parent.mkdir(parents=True, exist_ok=True)
        empty.write_text(_NO_LIBRARY)
    with _ptx_only(triton):
        compiled = triton.compile(src, target=_target(arch),
                                  options={**options, "extern_libs": (("libdevice", str(empty)),)})
    return compiled.asm["ptx"]


@contextlib.contextmanager
def _ptx_only(triton):
    """Triton's stages hook, for one compile: no ptxas stage (the external calls would not link); the hook's
    key keeps these results apart from ordinary ones in Triton's cache."""
    knobs = triton.knobs.runtime

    def hook(*args):
        if not args:
            return "volta-libdevice-as-calls", "1"
        stages = args[1]
        stages["cubin"] = lambda src, metadata: b""

    saved = knobs.add_stages_inspection_hook
    knobs.add_stages_inspection_hook = hook
    try:
        yield
    finally:
        knobs.add_stages_inspection_hook = saved


def compile(fn, *, args: Sequence | None = None, signature: Mapping[str, str] | None = None,
            constexprs: Mapping[str, Any] | None = None, num_warps: int = 4, num_stages: int = 3,
            arch: int = ARCH, buffers: Sequence[Buffer] = (), symbols: Mapping[str, str] | None = None) -> TritonKernel:
    """Compile `fn` (a `@triton.jit` function) for sm_`arch` without a GPU. The signature comes from `args`
    (volta.triton's docstring), overridden by `signature`; every constexpr parameter needs a value in
    `constexprs` (or a default in the function). No divisibility hints: `compile_call` gives those."""
    require_triton()
    _require_jit(fn)
    _check_options(num_warps, num_stages)
    constexprs = dict(constexprs or {})
    params = list(fn.params)
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
    return _build(fn, full_sig, constexprs, None, {"num_warps": num_warps, "num_stages": num_stages}, arch,
                  f"{full_sig} with constexprs {constexprs}, num_warps={num_warps}, num_stages={num_stages}")


# Volta dtype name -> Triton pointer element type
_TRITON_TYPES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "s8": "i8", "s16": "i16",
                 "s32": "i32", "s64": "i64", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
                 "b8": "u8", "b16": "u16", "b32": "u32", "b64": "u64", "pred": "i1"}


def _arg_type(a, buffers: dict, symbols: Mapping[str, str], pname: str) -> str:
    from volta.api import _dtype_name

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


@dataclass
class Call:
    """One `kernel[grid](*args, **kwargs)` specialised as Triton's launch does: the compiled kernel, the bound
    arguments by parameter name (what a grid function gets), and the specialisation in Triton's words."""

    kernel: TritonKernel
    bound: dict
    specialization: list  # (parameter, Triton type, hint or constexpr value) per parameter


def compile_call(fn, args: Sequence, kwargs: Mapping[str, Any], arch: int = ARCH) -> Call:
    """Compile `fn` as `fn[grid](*args, **kwargs)` would on a GPU of sm_`arch` (module docstring): Triton's
    binder and `_pack_args` decide the signature, the constexprs (None and 1 included) and the divisibility
    attributes; `kwargs` holds constexprs by name and launch options (num_warps, num_stages, ...)."""
    require_triton()
    _require_jit(fn)
    from triton import knobs
    from triton.compiler.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    backend = make_backend(_target(arch))
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    kwargs = dict(kwargs)
    kwargs["debug"] = kwargs.get("debug", fn.debug) or knobs.runtime.debug   # as JITFunction.run sets them
    kwargs["instrumentation_mode"] = knobs.compilation.instrumentation_mode
    kwargs["fpsan_homomorphic_casts"] = knobs.compilation.fpsan_homomorphic_casts
    try:
        bound, specialization, options = binder(*args, **kwargs)
        options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound, specialization, options)
    except (TypeError, KeyError, ValueError) as err:
        raise UsageError(f"the launch of Triton kernel `{fn.__name__}` does not bind its parameters "
                         f"({', '.join(p.name for p in fn.params)}): {err}") from None
    _check_options(options.num_warps, options.num_stages)
    names = [p.name for p in fn.params]
    described = [(n, s[0], s[1]) for n, s in zip(names, specialization)]
    kernel = _build(fn, signature, constexprs, attrs, dict(options.__dict__), arch,
                    f"the launch's arguments ({', '.join(f'{n}: {t}' for n, t, _ in described)})")
    return Call(kernel, dict(bound), described)
