"""The Python API: `volta.check`, `volta.races`, `volta.run`, `volta.mma`, with `volta.Launch`/`volta.Buffer`.

Each function means exactly what the command of the same name means: it turns its typed arguments into the
same `LaunchSpec` with the constructors the CLI's option parsers end in (`volta.launch.spec`: `buffer`, `dim3`,
`assemble`), calls the same driver (`volta.session.check.decide`, `volta.session.races.analyze`,
`volta.session.replay.replay`, `volta.numerics.mma_vec.mma_batch`) and returns its result type, which formats
with the same `volta.report` modules. So a verdict here is the verdict the CLI prints, with the same exit code.

    import volta
    x, y = volta.Buffer("x", "f32", 1024, "in"), volta.Buffer("y", "f32", 1024, "out")
    launch = volta.Launch(grid=4, block=256, args=[x, y, 1024])
    r = volta.check("ref.ptx", "opt.cu", launch)          # PTX paths, .cu paths (nvcc) or PTX text
    r.verdict, r.exit_code, r.counterexample, r.timings
    print(r.report())                                       # the text `volta check` prints ("json", "sarif", "junit")
    volta.check("examples/eq_gemm_naive_tiled/manifest.toml")   # or a manifest

    # a multi-kernel pipeline (the CLI's repeatable --ref-launch/--opt-launch): launches in order, on shared buffers
    tmp = volta.Buffer("tmp", "f32", 8, "temp")                 # an intermediate: not compared, not an input
    opt = volta.Pipeline([("k.ptx", volta.Launch(8, 256, [x, tmp, 1024], kernel="partial_sums")),
                          ("k.ptx", volta.Launch(1, 32, [tmp, y, 8], kernel="reduce"))])
    volta.check([("ref.ptx", volta.Launch(1, 32, [x, y, 1024]))], opt)   # a list of (kernel, Launch) works too

Bad input raises `volta.UsageError` (a `VoltaError`, the CLI's exit 2) with the CLI's one-paragraph
message; a kernel outside the decided class is a verdict (`unsupported`, exit code 3), not an exception.
Nothing is written to disk unless asked (`save_counterexample=`, `out=`), except PTX text given
inline and nvcc's output, which are cached under `~/.cache/volta/`.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import numbers
import re
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, Union

from volta.errors import Unsupported, UsageError, VoltaError

if TYPE_CHECKING:   # loaded on first use (__getattr__ below), as the drivers are
    from volta.session.check import CheckResult
    from volta.session.races import RacesResult
    from volta.session.replay import RunResult

__all__ = ["Buffer", "Launch", "Pipeline", "Struct", "CheckResult", "RacesResult", "RunResult", "MmaResult",
           "check", "races", "run", "mma", "VoltaError", "UsageError", "Unsupported"]

Source = Union[str, "os.PathLike[str]"]  # a .ptx or .cu path, a manifest.toml path, or PTX text
Dim = Union[int, Sequence[int], str]  # 8, (16, 16), "16x16"
Arg = Union["Buffer", "Struct", str, int, float]  # a Buffer (or its name), a struct, a symbol name, or a number


# ---- errors in a Python caller's words ----------------------------------------------------------

# the CLI's words in a shared message -> what a Python caller writes instead
_PYTHON_WORDS = [('volta run --inputs FILE.npz --inputs random; in Python, fill="random"', 'fill="random"'),
                 ("--save-counterexample", "save_counterexample="), ("--buffer NAME=DTYPE[N]:ROLE", "volta.Buffer"),
                 ("--buffer", "volta.Buffer"), ("--args", "Launch(args=…)"), ("--kernel", "Launch(kernel=…)"),
                 ("--inputs", "inputs="), ("--seed", "seed="), ("--fp", "fp="), ("--trials", "trials="),
                 ("--arch", "arch="), ("--nvcc-flag", "nvcc_flags="), ("--out", "out="), ("--grid", "Launch(grid=…)"),
                 ("--block", "Launch(block=…)"), ("--symbol", "Launch(symbols=…)"), ("--ptxas", "ptxas="),
                 ("--global", "globals"), ("--ctas", "ctas="), ("--out-init", "out_init="), ("out-init", "out_init")]


def _python_words(fn):
    """Re-raise a UsageError from the shared library with the options named as this API spells them."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UsageError as err:
            message = err.message
            for cli, python in _PYTHON_WORDS:
                message = re.sub(re.escape(cli) + r"(?![\w-])", python, message)
            if message == err.message:
                raise
            raise UsageError(message, err.span) from None
    return wrapper


# ---- describing a launch --------------------------------------------------------------------------

@dataclass(frozen=True)
class Buffer:
    """A global buffer: `Buffer("x", "f32", 1024, "in")`. dtype is a Volta name (f32, bf16, s32, …) or a
    numpy dtype; role is in, out or inout. `volta.check` needs the role (it decides what is compared);
    `races`/`run` take a missing role as inout, as the CLI does. `range=(lo, hi)` declares every element of an
    integer input to lie in [lo, hi] (token ids: `Buffer("ids", "s32", 32, "in", range=(0, 50256))`)."""

    name: str
    dtype: Any = "f32"
    count: int = 1
    role: str | None = None
    range: tuple | None = None

    def __post_init__(self):
        """Validated when built, in Python words: a bad Buffer fails here, not at the call that uses it."""
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise UsageError(f"Buffer name must be an identifier string, not {self.name!r}")
        if isinstance(self.count, bool) or not isinstance(self.count, numbers.Integral) or self.count < 1:
            raise UsageError(f"Buffer {self.name!r}: count must be a positive int, not {self.count!r}")
        if self.role is not None and self.role not in ("in", "out", "inout", "temp"):
            raise UsageError(f"Buffer {self.name!r}: role must be 'in', 'out', 'inout' or 'temp' (or None), "
                             f"not {self.role!r}")
        self.declared()

    def declared(self):
        """The launch spec's buffer (`volta.launch.spec.Buffer`), checked as `--buffer` is; no role is inout."""
        from volta.launch.spec import buffer

        return buffer(self.name, _dtype_name(self.dtype), int(self.count), self.role or "inout", self._range(),
                      where=repr(self))

    def _range(self) -> tuple | None:
        if self.range is None:
            return None
        try:
            lo, hi = (int(v) for v in self.range)
        except (TypeError, ValueError):
            raise UsageError(f"Buffer {self.name!r}: range must be a pair of integers (lo, hi), not "
                             f"{self.range!r}") from None
        return lo, hi

    def option(self) -> str:
        """The `--buffer` text of this buffer, for the command line that re-creates a check (its replay)."""
        text = f"{self.name}={_dtype_name(self.dtype)}[{int(self.count)}]"
        text += f":{self.role}" if self.role is not None else ""
        value_range = self._range()
        return text + (f":range={value_range[0]}..{value_range[1]}" if value_range is not None else "")


@dataclass
class Launch:
    """One launch: `Launch(grid=(4, 4), block=(16, 16), args=[A, B, C, 64], kernel="gemm")`.

    `args` mirrors `kernel<<<grid, block>>>(...)`: one entry per parameter, a `Buffer` (declared by
    being passed), the name of a buffer in `buffers` or of a symbol in `symbols`, or a number.
    `symbols` maps float scalars kept symbolic to their type (`{"alpha": "f32"}`); `functions` gives
    external functions their exact meaning (`{"expf_impl": "exp"}`, the CLI's --define-fn)."""

    grid: Dim
    block: Dim
    args: Sequence[Arg] = ()
    buffers: Sequence[Buffer] = ()
    kernel: str | None = None
    symbols: Mapping[str, str] = field(default_factory=dict)
    shared_dynamic: int = 0
    functions: Mapping[str, str] = field(default_factory=dict)

    def all_buffers(self) -> list[Buffer]:
        """`buffers` plus every Buffer passed in `args`, once each (a name declared twice differently is an error)."""
        seen: dict[str, Buffer] = {}
        passed = [b for a in self.args for b in (a.buffers() if isinstance(a, Struct) else [a])]
        for b in list(self.buffers) + [a for a in passed if isinstance(a, Buffer)]:
            if b.name in seen and seen[b.name] != b:
                raise UsageError(f"buffer `{b.name}` is declared twice, differently: {seen[b.name]} and {b}")
            seen[b.name] = b
        return list(seen.values())

    def options(self) -> dict:
        """The CLI's option strings of this launch (grid, block, args, kernel), checked as they would be (for
        callers that print a command line; the API itself runs `kernel_launch`)."""
        return {"grid": str(_dim3(self.grid, "grid")), "block": str(_dim3(self.block, "block")),
                "args": ",".join(str(_kernel_arg(a)) for a in self.args), "kernel": self.kernel}

    def kernel_launch(self, path: Path):
        """The launch spec's `KernelLaunch` of this launch running the kernel at `path`."""
        from volta.launch.kernel import KernelLaunch

        return KernelLaunch(path, self.kernel, _dim3(self.grid, "grid"), _dim3(self.block, "block"),
                            tuple(_kernel_arg(a) for a in self.args), int(self.shared_dynamic))


@dataclass(frozen=True)
class Pipeline:
    """Launches that run in order on the same buffers — a multi-kernel pipeline, the CLI's repeatable
    `--ref-launch`/`--opt-launch "FILE[:KERNEL] grid=G block=B args=A,B shared=BYTES"`:

        Pipeline([("k.ptx", Launch(8, 256, [x, tmp, 1024], kernel="partial_sums")),
                  ("k.ptx", Launch(1, 32, [tmp, out, 8], kernel="reduce"))])

    Each item is (kernel source, Launch): a .ptx or .cu path or PTX text, and its launch (`Launch.kernel` names
    the .entry, `shared_dynamic` its dynamic shared memory); or a host step between launches, as the CLI's
    `--opt-step`: "memset BUF BYTE" (cudaMemset) or "copy SRC DST" (a device-to-device copy). Buffers are shared
    by every launch (and, in `volta.check`, by both sides); an intermediate is a Buffer of role "temp": not
    compared, not an input, never-written when the first launch starts. A launch boundary orders everything
    before it before everything after it; races are looked for within each launch."""

    launches: Sequence[tuple[Source, Launch] | str]

    def __post_init__(self):
        items = tuple(self.launches) if isinstance(self.launches, (list, tuple)) else None
        if not items:
            raise UsageError("a Pipeline needs a non-empty list of (kernel, Launch) pairs, in launch order")
        for k, item in enumerate(items, 1):
            if isinstance(item, str) and item.split()[:1] in (["memset"], ["copy"]):
                continue
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Launch)):
                raise UsageError(f"Pipeline launch {k}: expected a (kernel, volta.Launch) pair or a host step "
                                 f"(\"memset BUF BYTE\", \"copy SRC DST\"), got {item!r:.80}")
        if all(isinstance(item, str) for item in items):
            raise UsageError("a Pipeline of host steps only: it needs a (kernel, volta.Launch) pair")
        object.__setattr__(self, "launches", items)

    def kernel_launches(self) -> list:
        """The (kernel, Launch) pairs, without the host steps."""
        return [item for item in self.launches if not isinstance(item, str)]


def _as_pipeline(side) -> Pipeline | None:
    """A Pipeline, or a list/tuple of (kernel, Launch) pairs (and host steps), as a Pipeline; None for a single
    kernel source."""
    if isinstance(side, Pipeline):
        return side
    if isinstance(side, tuple) and len(side) == 2 and isinstance(side[1], Launch):
        return Pipeline([side])   # one (kernel, Launch) pair: this side's own launch
    if (isinstance(side, (list, tuple)) and side and any(isinstance(x, tuple) for x in side)
            and all(isinstance(x, tuple) and len(x) == 2 or isinstance(x, str) for x in side)):
        return Pipeline(list(side))   # (kernel, Launch) pairs, and host steps between them
    return None


def _merged_buffers(launches, extra=()) -> list[Buffer]:
    """Every Buffer of the launches and `extra`, once each (a name declared twice differently is an error)."""
    seen: dict[str, Buffer] = {}
    for b in [b for launch in launches for b in launch.all_buffers()] + list(extra):
        if not isinstance(b, Buffer):
            raise UsageError(f"buffers: expected volta.Buffer objects, got {b!r:.80}")
        if b.name in seen and seen[b.name] != b:
            raise UsageError(f"buffer `{b.name}` is declared twice, differently: {seen[b.name]} and {b}")
        seen[b.name] = b
    return list(seen.values())


def _kernel_launches(pipeline: Pipeline, buffers: dict) -> tuple:
    """The KernelLaunch of each step (a host step as `--opt-step` makes it, on the declared `buffers`)."""
    from volta.launch.hoststeps import parse_step

    return tuple(parse_step(item, buffers, "Pipeline host step") if isinstance(item, str) else
                 item[1].kernel_launch(kernel_path(item[0])) for item in pipeline.launches)


def _declared(buffers: Sequence[Buffer]) -> list:
    """The launch spec's buffers of a check, each with its role (`volta.check` decides what is compared by it)."""
    for b in buffers:
        if b.role is None:
            raise UsageError(f"{b!r} needs a role for volta.check: role='in', 'out', 'inout' or 'temp'")
    return [b.declared() for b in buffers]


def _launch_text(x) -> str:
    """A KernelLaunch as the CLI's `--ref-launch` text (for the command line that re-creates a check)."""
    text = f"{x.ptx}{':' + x.kernel if x.kernel else ''} grid={x.grid} block={x.block}"
    text += f" args={','.join(map(str, x.args))}" if x.args else ""
    return text + (f" shared={x.shared_dynamic}" if x.shared_dynamic else "")


def _launch_argv(x, prefix: str) -> list:
    """A KernelLaunch as the CLI's launch options (`--grid=…`, or `--opt-grid=…` with prefix "opt-"), for the
    command line that re-creates a check."""
    argv = [f"--{prefix}kernel={x.kernel}"] if x.kernel else []
    argv += [f"--{prefix}grid={x.grid}", f"--{prefix}block={x.block}"]
    return argv + ([f"--{prefix}args={','.join(map(str, x.args))}"] if x.args else [])


def _pipelines_spec(sides: dict, extra: Sequence[Buffer]):
    """(LaunchSpec, argv) for pipelines: role -> Pipeline, as `volta check --ref-launch … --opt-launch …` makes it:
    buffers and symbols declared once for every launch. argv re-creates a check."""
    from volta.launch.spec import assemble

    steps = [launch for p in sides.values() for _, launch in p.kernel_launches()]
    buffers = _merged_buffers(steps, extra)
    symbols = {n: t for launch in steps for n, t in launch.symbols.items()}
    functions = {n: m for launch in steps for n, m in launch.functions.items()}
    declared = _declared(buffers)
    named = {b.name: b for b in declared}
    spec = assemble({role: _kernel_launches(p, named) for role, p in sides.items()}, declared, symbols,
                    symbols_apart=True)
    spec.functions = functions
    argv = []
    for role in sides:
        for x in spec.sequences.get(role, (spec.launches[role],)):
            argv += [f"--{role}-step", x.host] if x.host else [f"--{role}-launch", _launch_text(x)]
    argv += [f"--buffer={b.option()}" for b in buffers] + [f"--symbol={n}={t}" for n, t in symbols.items()]
    argv += [f"--define-fn={n}={m}" for n, m in functions.items()]
    return spec, argv


def _dtype_name(dtype) -> str:
    if isinstance(dtype, str):
        return dtype
    import numpy as np

    from volta.session.replay import dtype_name

    try:
        name = dtype_name(np.empty(0, dtype=dtype))
    except TypeError:
        name = None
    if name is None:
        raise UsageError(f"dtype {dtype!r} has no PTX type: use a Volta name (f32, f16, bf16, s32, …) or a numpy "
                         f"float/int dtype")
    return name


def _dim3(d: Dim, what: str):
    """A grid or block given as an int, a tuple of up to three ints, or 'XxYxZ', checked as `--grid` is."""
    from volta.launch.spec import dim3, parse_dim3

    if isinstance(d, str):
        return parse_dim3(d, what)
    if isinstance(d, bool):
        raise UsageError(f"bad {what} {d!r}: expected an int, a tuple of up to three ints, or 'XxYxZ'")
    if isinstance(d, int):
        return dim3([d], what)
    try:
        dims = [int(v) for v in d]
    except (TypeError, ValueError):
        raise UsageError(f"bad {what} {d!r}: expected an int, a tuple of up to three ints, or 'XxYxZ'") from None
    if not 1 <= len(dims) <= 3:
        raise UsageError(f"bad {what} {d!r}: a {what} has one to three dimensions")
    return dim3(dims, what)


class Struct:
    """A struct passed by value (`.param .align 8 .b8 p[24]`): `Struct(x, y, 1024)` lays the fields out in order
    as C does; `Struct({0: x, 8: y, 16: (1024, "u32")})` places them by byte offset. A field is a Buffer (or a
    buffer name, or "null"): an 8-byte pointer; a symbol name; or a number, 4 bytes (int or float) unless typed as
    `(value, "TYPE")` with TYPE one of u8 … s64, f16, bf16, f32, f64 (the CLI's `{x,y,1024:u32}`)."""

    def __init__(self, *fields):
        if len(fields) == 1 and isinstance(fields[0], Mapping):
            self.fields = tuple(sorted(fields[0].items(), key=lambda kv: kv[0]))
            self.by_offset = True
        else:
            self.fields, self.by_offset = tuple(fields), False
        if not self.fields:
            raise UsageError("volta.Struct() needs at least one field")

    def __repr__(self) -> str:
        return f"Struct({self.text()})"

    def _values(self):
        return [f[1] if self.by_offset else f for f in self.fields]

    def buffers(self) -> list:
        return [v[0] if isinstance(v, tuple) else v for v in self._values()
                if isinstance(v[0] if isinstance(v, tuple) else v, Buffer)]

    def text(self) -> str:
        """The `--args` entry `{x,8:y,1024:u32}` of this struct."""
        return str(self.typed())

    def typed(self):
        """The launch spec's struct argument (`volta.launch.args.Struct`), its fields checked as the CLI's are."""
        from volta.launch import args as kernel_args  # start-up

        fields = []
        for f in self.fields:
            offset, v = (f if self.by_offset else (None, f))
            if isinstance(offset, bool) or (offset is not None and not isinstance(offset, int)):
                raise UsageError(f"volta.Struct field offset {offset!r}: a byte offset is an int")
            if offset is not None and offset < 0:
                raise UsageError(f"volta.Struct field offset {offset!r}: a byte offset is at least 0")
            value, ftype = v if isinstance(v, tuple) and len(v) == 2 else (v, None)
            if isinstance(value, (Struct, tuple, list)):
                raise UsageError(f"volta.Struct field {v!r}: nested structs are given by offset in the outer struct")
            if ftype is not None and ftype not in kernel_args.WIDTHS:
                raise UsageError(f"volta.Struct field {v!r}: unknown type {ftype!r} (known: "
                                 f"{', '.join(kernel_args.WIDTHS)})")
            arg = _kernel_arg(value)
            if isinstance(arg, kernel_args.Struct):
                raise UsageError(f"volta.Struct field {v!r}: nested structs are given by offset in the outer struct")
            fields.append(kernel_args.Field.of(arg, ftype, offset))
        return kernel_args.Struct.of(fields)


def _kernel_arg(a: Arg):
    """One kernel argument as the launch spec's typed argument (volta/launch/args.py: a `Name` of a buffer or
    symbol, a `Number`, a `Struct`), which binding reads against the kernel's parameters."""
    from volta.launch import args as kernel_args  # start-up

    if isinstance(a, Struct):
        return a.typed()
    if isinstance(a, Buffer):
        return kernel_args.Name(a.name)
    if isinstance(a, str) and "," in a:
        raise UsageError(f"kernel argument {a!r}: one entry per parameter (use a list, not a comma string)")
    if isinstance(a, (bool, int, float, str)):
        return kernel_args.of(a.strip() if isinstance(a, str) else a, "kernel argument")
    raise UsageError(f"kernel argument {a!r}: expected a Buffer, a buffer or symbol name, or a number")


# ---- kernel sources -------------------------------------------------------------------------------

def _is_ptx_text(src: Source) -> bool:
    return isinstance(src, str) and ("\n" in src or ".entry" in src or ".version" in src)


def kernel_path(src: Source) -> Path:
    """A path for a kernel given as a path or as PTX text (stored once under ~/.cache/volta/ptx/ by content hash,
    since every run reads its PTX from a file and reports name file:line:col; $VOLTA_CACHE_DIR/ptx when set)."""
    if not isinstance(src, (str, os.PathLike)):
        raise UsageError(f"a kernel is a .ptx or .cu path, a manifest.toml path or PTX text, not {src!r:.80} "
                         f"(a side with its own launch: a (kernel, volta.Launch) pair, or opt_launch=)")
    if _is_ptx_text(src):
        text = str(src)
        from volta.cuda import cache_root

        base = cache_root() / "ptx"
        path = base / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.ptx"
        if not path.is_file():
            base.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(text)
            os.replace(tmp, path)
        return path
    path = Path(src)
    if not path.exists():
        raise UsageError(f"no such file: {path} (give a .ptx or .cu path, a manifest.toml, or PTX text)")
    return path


def _is_manifest(src) -> bool:
    return isinstance(src, (str, os.PathLike)) and not _is_ptx_text(src) and Path(src).suffix == ".toml"


def _manifest(src: Source, launch, what: str):
    from volta.launch.spec import load_manifest

    if launch is not None:
        raise UsageError(f"{src} is a manifest: it gives the launch, so drop the Launch argument to volta.{what}")
    return load_manifest(kernel_path(src))


# ---- results --------------------------------------------------------------------------------------

# `volta.check`, `volta.races` and `volta.run` return their command's own result, the one the CLI renders:
# `volta.session.check.CheckResult`, `volta.session.races.RacesResult`, `volta.session.replay.RunResult`
# (loaded on first use, as the drivers are). Each has verdict, exit_code, findings, timings, raw, ok and
# report(fmt), as MmaResult has.
def __getattr__(name: str):
    """The three command results, loaded on first use (PEP 562) so `import volta.api` stays cheap."""
    if name == "CheckResult":
        from volta.session.check import CheckResult  # start-up
        return CheckResult
    if name == "RacesResult":
        from volta.session.races import RacesResult  # start-up
        return RacesResult
    if name == "RunResult":
        from volta.session.replay import RunResult  # start-up
        return RunResult
    raise AttributeError(f"module 'volta.api' has no attribute {name!r}")


@dataclass
class Result:
    """What `volta.mma` returns: the verdict and exit code the CLI would give, the findings, timings in
    seconds, and `report(fmt)` for the text (or JSON) the CLI would print. `raw` is the library's own result."""

    verdict: str
    exit_code: int
    findings: list = field(default_factory=list)  # volta.exec.findings.Finding
    timings: dict = field(default_factory=dict)
    raw: Any = None

    @property
    def ok(self) -> bool:
        """True for exit code 0: equivalent, clean, bit-identical (or, sampled, no bit difference found)."""
        return self.exit_code == 0

    def report(self, fmt: str = "text") -> str:  # pragma: no cover - every subclass defines it
        raise NotImplementedError


@dataclass
class MmaResult(Result):
    """`volta.mma`: the accumulator word(s) a tensor core of `arch` produces, bit for bit, and the row used."""

    word: int | None = None  # one dot product
    words: Any = None  # numpy int64 array, one per row, for a batch
    value: float | None = None
    acc: str = "f32"
    row: dict | None = None  # volta.numerics.mma_select.MmaRow.to_json(setting): which row, why, from what

    def report(self, fmt: str = "text") -> str:
        from volta.numerics.formats import FORMATS

        _check_fmt(fmt, ("text", "json"))
        width = FORMATS[self.acc].width // 4
        if fmt == "json":
            words = [self.word] if self.words is None else [int(w) for w in self.words]
            return json.dumps({"words": [f"{w:0{width}x}" for w in words], "value": self.value, "row": self.row})
        if self.words is not None:
            return "\n".join(f"{int(w):0{width}x}" for w in self.words)
        return f"{self.word:0{width}x} {_value_text(self.value)}"


def _value_text(v) -> str:
    import math

    return "nan" if v is not None and math.isnan(v) else repr(v)


def _check_fmt(fmt: str, allowed: tuple) -> None:
    if fmt not in allowed:
        raise UsageError(f"unknown report format `{fmt}`: choose {', '.join(allowed)}")


# ---- the four calls -------------------------------------------------------------------------------

Side = Union[Source, Pipeline, Sequence[tuple]]  # one kernel, or a pipeline (a list of (kernel, Launch) pairs)


@_python_words
def check(ref: Side, opt: Side | None = None, launch: Launch | None = None, *,
          opt_launch: Launch | None = None, buffers: Sequence[Buffer] = (), fp: str = "real",
          timeout_ms: int = 10_000, trials: int = 4,
          seed: int = 0, prove: bool = False, arch: str | None = None, nvcc_flags: Sequence[str] = (),
          save_counterexample: str | os.PathLike | None = None, emit_smt: str | os.PathLike | None = None,
          progress: Callable[[str], None] | None = None, ulp: float | None = None, rtol: float | None = None,
          atol: float | None = None, signed_zero: str = "differ", ptxas: str | None = None,
          exact_constants: bool = False, globals: Mapping[str, int | float] = {}, ctas: str | None = None,
          out_init: str = "zeros") -> CheckResult:
    """Prove `ref` and `opt` equivalent over the reals (`fp="real"`), or compare their bits (`fp="ieee"`,
    `"ampere"`, `"hopper"`, …) — `volta check`. Give two kernels and a `Launch` (`opt_launch` when the
    optimized kernel launches differently; buffers and symbols are shared), or one manifest.toml path, or
    two pipelines (`Pipeline`s or lists of (kernel, Launch) pairs; a single launch is a one-item list) with no
    `launch` — the CLI's `--ref-launch`/`--opt-launch`. `buffers` declares buffers besides those passed in
    the launches' args (e.g. a `temp` intermediate named by a string); every buffer needs a role here.
    `ptxas` (e.g. "12.6"; default the nvcc found, else 13.0): the toolkit Hopper fp8 mma.sync depends on.
    `exact_constants=True` reads every float literal as the rational it is (the CLI's --exact-constants); by
    default RN(log2 e), RN(pi), ... are read as those constants over the reals. `globals`, `ctas` and
    `out_init` are the CLI's --global, --ctas (fp="real" only) and --out-init: see `races`."""
    from volta.cuda import nvcc_release
    from volta.exec.limits import preflight
    from volta.launch.spec import assemble, compile_sources
    from volta.numerics.mma_select import make_setting

    if ptxas is not None and fp in ("real", "ieee"):
        raise UsageError(f"ptxas chooses a tensor-core row: give an architecture fp ('hopper', …), not {fp!r}")
    tensor = make_setting("mma", ptxas, nvcc_release())

    pipes = {"ref": _as_pipeline(ref), "opt": _as_pipeline(opt)}
    if any(pipes.values()):
        if not all(pipes.values()):
            single = "ref" if pipes["ref"] is None else "opt"
            raise UsageError(f"volta.check: {'opt' if single == 'ref' else 'ref'} is a pipeline, so give {single} as "
                             f"one too (a Pipeline, or a list of (kernel, Launch) pairs: one pair for a single launch), "
                             f"as --ref-launch/--opt-launch take both sides")
        if launch is not None or opt_launch is not None:
            raise UsageError("volta.check with pipelines: every launch comes with its kernel in the pipeline, so "
                             "drop the launch/opt_launch arguments")
        spec, command = _pipelines_spec(pipes, buffers)
    elif opt is None:
        if not _is_manifest(ref):
            raise UsageError("volta.check takes two kernels and a Launch, or one manifest.toml path")
        spec = _manifest(ref, launch, "check")
        if buffers:
            raise UsageError(f"{ref} is a manifest: its [buffers] table declares the buffers, so drop buffers=")
        missing = [r for r in ("ref", "opt") if r not in spec.launches]
        if missing:
            raise UsageError(f"{ref} has no [{'] and ['.join(missing)}] table: volta.check compares the [ref] and "
                             f"[opt] kernels of a pair manifest (use volta.races for one kernel)")
        command = [str(ref)]
    else:
        if _is_manifest(ref) or _is_manifest(opt):
            raise UsageError("volta.check takes two kernels and a Launch, or one manifest.toml alone (it holds both)")
        if launch is None:
            raise UsageError("volta.check(ref, opt, launch): describe the launch with volta.Launch(grid, block, args)")
        buffers = _merged_buffers([launch] + ([opt_launch] if opt_launch else []), buffers)
        ref_path, opt_path = kernel_path(ref), kernel_path(opt)
        symbols = {**launch.symbols, **(opt_launch.symbols if opt_launch else {})}
        first, second = launch.kernel_launch(ref_path), (opt_launch or launch).kernel_launch(opt_path)
        if opt_launch is not None:   # the opt launch's own grid and block; kernel and args where it gives them
            second = dataclasses.replace(second, kernel=second.kernel or first.kernel, args=second.args or first.args)
        spec = assemble({"ref": first, "opt": second}, _declared(buffers), symbols, symbols_apart=True)
        spec.functions = dict(launch.functions)
        command = [str(ref_path), str(opt_path)] + _launch_argv(first, "")
        command += _launch_argv(second, "opt-") if opt_launch is not None else []
        command += [f"--buffer={b.option()}" for b in buffers] + [f"--symbol={n}={t}" for n, t in symbols.items()]
        command += [f"--define-fn={n}={m}" for n, m in spec.functions.items()]
    compile_sources(spec, arch, tuple(nvcc_flags))
    if ctas is not None and fp != "real":
        raise UsageError("ctas applies to the check over the reals (fp='real'); the bit comparison runs every CTA")
    _launch_modes(spec, ("ref", "opt"), globals, ctas, out_init)
    command += [f"--global={n}={v}" for n, v in globals.items()] + (["--ctas", ctas] if ctas is not None else [])
    command += ["--out-init", out_init] if out_init != "zeros" else []
    command += (["--arch", arch] if arch else []) + [f"--nvcc-flag={f}" for f in nvcc_flags]
    spec.exact_constants = spec.exact_constants or exact_constants
    command += ["--exact-constants"] if exact_constants else []
    preflight(spec, ("ref", "opt"), symbolic=fp == "real")  # every launch's file, kernel and args, before any runs

    from volta.equiv.bits import Tolerance
    from volta.session.check import CheckOptions, decide  # start-up
    import volta.report  # noqa: F401  # start-up: registers how result.report(fmt) renders

    tolerance = Tolerance(ulp, rtol, atol, signed_zero)  # the sampled bit comparison's --ulp/--rtol/--atol/--signed-zero
    if tolerance.active and (fp == "real" or prove):
        raise UsageError("ulp, rtol, atol and signed_zero relax the sampled bit comparison: give fp='ieee' (or an "
                         "architecture) without prove=True")
    options = CheckOptions(fp=fp, prove=prove, trials=None if fp == "real" else trials, seed=seed,
                           tolerance=tolerance, tensor=tensor, timeout_ms=timeout_ms,
                           emit_smt=str(emit_smt) if emit_smt else None,
                           save_counterexample=None if save_counterexample is None else str(save_counterexample))
    return decide(spec, options, progress, command)


@_python_words
def races(kernel: Side, launch: Launch | None = None, *, buffers: Sequence[Buffer] = (), role: str | None = None,
          arch: str | None = None, nvcc_flags: Sequence[str] = (), progress: Callable[[str], None] | None = None,
          inputs: str | None = None, trials: int | None = None, structured_only: bool = False,
          lockstep_warps: bool = False, allow_benign_races: bool = False, allow_ordering_races: bool = False,
          schedules: int = 8, schedule_seed: int = 0, show_printf: bool = False,
          globals: Mapping[str, int | float] = {}, ctas: str | None = None, out_init: str = "zeros") -> RacesResult:
    """Find races, deadlocks, out-of-bounds accesses and uninitialized reads in one launch — `volta races`.
    Give a kernel (path or PTX text) and a `Launch`, or a manifest.toml path (every launch in it, or `role`), or
    a pipeline (a `Pipeline` or a list of (kernel, Launch) pairs, as a manifest's [[kernel.launch]]: each launch
    with the memory the earlier ones left). `buffers` declares buffers besides those passed in the args.
    `inputs`/`trials`/`structured_only`/`lockstep_warps`/`allow_benign_races`/`allow_ordering_races`/`schedules`/
    `schedule_seed`/`show_printf` are the CLI's options of those names (a data-dependent kernel runs on concrete
    inputs: verdict clean-for-inputs, exit 3, when nothing shows). `globals` sets module-scope .global scalars
    before the launch (`{"MAX_KEY": 32}`, the CLI's --global); `ctas` runs only some CTAs ("corners",
    "random:N[:SEED]", "0,5,17" or "0x0,3x1": --ctas); `out_init="undefined"` starts out buffers never-written
    (--out-init)."""
    from volta.exec.limits import preflight
    from volta.launch.spec import assemble, compile_sources
    from volta.session.races import RacesOptions, RacesResult, analyze, roles

    pipeline = _as_pipeline(kernel)
    if pipeline is not None:
        if launch is not None:
            raise UsageError("volta.races with a pipeline: every launch comes with its kernel in the pipeline, so "
                             "drop the launch argument")
        if role not in (None, "kernel"):
            raise UsageError("role applies to manifests; a pipeline is one kernel sequence")
        spec, _ = _pipelines_spec({"kernel": pipeline}, buffers)
        spec.source = str(spec.launches["kernel"].ptx)
        chosen = ["kernel"]
    elif _is_manifest(kernel):
        spec = _manifest(kernel, launch, "races")
        chosen = roles(spec)
        if role is not None:
            if role not in spec.launches:
                raise UsageError(f"{kernel} has no [{role}] launch (it has: {', '.join(chosen)})")
            chosen = [role]
    else:
        if launch is None:
            raise UsageError("volta.races(kernel, launch): describe the launch with volta.Launch(grid, block, args)")
        if role not in (None, "kernel"):
            raise UsageError("role applies to manifests; a kernel file gives one kernel")
        path = kernel_path(kernel)
        spec = assemble({"kernel": launch.kernel_launch(path)},
                        [b.declared() for b in _merged_buffers([launch], buffers)], dict(launch.symbols))
        spec.source = str(path)
        chosen = ["kernel"]
    compile_sources(spec, arch, tuple(nvcc_flags))
    _launch_modes(spec, chosen, globals, ctas, out_init)
    if pipeline is not None:
        preflight(spec, chosen)  # every launch's file, kernel and args, before the first one runs
    if structured_only and (inputs is not None or trials is not None):
        raise UsageError("structured_only never runs on concrete inputs: drop inputs/trials")
    options = RacesOptions(inputs, trials, not structured_only, lockstep_warps, allow_benign_races,
                           allow_ordering_races, schedules, schedule_seed, show_printf)
    import volta.report  # noqa: F401  # start-up: registers how result.report(fmt) renders

    return RacesResult([analyze(spec, r, progress, options) for r in chosen], spec.source)


@_python_words
def run(kernel: Source, launch: Launch | None = None, *, inputs: Mapping[str, Any] | str | None = None,
        fill: str | None = None, seed: int | None = None, fp: str = "ieee", role: str | None = None,
        check_races: bool = True, out: str | os.PathLike | None = None, arch: str | None = None,
        nvcc_flags: Sequence[str] = (), ptxas: str | None = None, globals: Mapping[str, int | float] = {},
        ctas: str | None = None, out_init: str = "zeros") -> RunResult:
    """Replay one launch on the CPU, bit for bit, on concrete inputs — `volta run`. `inputs` is a dict of
    arrays, an .npz path, "zeros", "random" or "random:SEED"; by default random from `seed` (0), as the CLI.
    Given arrays must name buffers of the launch and give every buffer the kernel reads, else UsageError;
    `fill="random"` (or "zeros", "random:SEED") generates the ones not given.
    `result.inputs_used` says which were used; `out` writes every buffer to an .npz. `ptxas` (e.g. "12.6";
    default the nvcc found, else 13.0) is the toolkit Hopper fp8 mma.sync depends on; the report's
    `tensor_cores` names each tensor-core row used. `globals`, `ctas` and `out_init`: see `races`."""
    from volta.cuda import nvcc_release
    from volta.session import replay
    from volta.launch.ctas import run_note
    from volta.launch.spec import assemble, compile_sources
    from volta.numerics.mma_select import make_setting

    tensor = make_setting("mma", ptxas, nvcc_release())

    if _is_manifest(kernel):
        if launch is not None:
            raise UsageError(f"{kernel} is a manifest: it gives the launch, so drop the Launch argument to volta.run")
        spec, role = replay.spec_from_manifest(kernel_path(kernel), role)
    else:
        if launch is None:
            raise UsageError("volta.run(kernel, launch): describe the launch with volta.Launch(grid, block, args)")
        spec = assemble({"kernel": launch.kernel_launch(kernel_path(kernel))},
                        [b.declared() for b in launch.all_buffers()], {})
        role = "kernel"
    compile_sources(spec, arch, tuple(nvcc_flags))
    picked = _launch_modes(spec, [role], globals, ctas, out_init).get(role)
    if isinstance(inputs, Mapping):
        inputs = {name: _array(name, value, spec.buffers.get(name)) for name, value in inputs.items()}
    elif inputs is not None and not isinstance(inputs, (str, os.PathLike)):
        raise UsageError(f"inputs is a dict of arrays by buffer name, an .npz path, \"zeros\", \"random\" or "
                         f"\"random:SEED\", not {type(inputs).__name__}")
    import volta.report  # noqa: F401  # start-up: registers how result.report(fmt) renders

    given = inputs if inputs is None or isinstance(inputs, Mapping) else str(inputs)
    result = replay.replay(spec, role, given, seed, fill=fill, fp=fp, check_races=check_races, tensor=tensor,
                           out=None if out is None else str(out))
    if picked and result.error is None:
        result.notes.append(run_note(picked, spec.launches[role].grid))
    return result


def _launch_modes(spec, roles, global_vars: Mapping, ctas: str | None, out_init: str) -> dict:
    """The CLI's --global, --ctas and --out-init on a spec whose sources are compiled, through the functions those
    options call, in their order: role -> the CTAs selected (none: the whole grid)."""
    from volta.launch import ctas as cta_selection, globalvars  # start-up
    from volta.launch.spec import with_out_init

    if not isinstance(global_vars, Mapping):
        raise UsageError(f"globals is a dict of variable name -> number, not {type(global_vars).__name__}")
    if ctas is not None and not isinstance(ctas, str):
        raise UsageError(f"ctas is a string ({cta_selection.GRAMMAR}), not {type(ctas).__name__}")
    globalvars.with_globals(spec, [globalvars.given(n, v, "globals") for n, v in global_vars.items()])
    globalvars.check_declared(spec)
    picked = cta_selection.select(spec, ctas, roles)
    with_out_init(spec, out_init)
    return picked


def _array(name: str, value, buffer=None):
    """An input given as a numpy array, or as a list of numbers (in the declared buffer's dtype, else float32 or
    int32, like a C array)."""
    import numpy as np

    from volta.launch.spec import DTYPES

    if isinstance(value, np.ndarray):
        return value
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "biuf" or arr.ndim == 0:
        raise UsageError(f"inputs[{name!r}]: expected a numpy array or a list of numbers, not "
                         f"{type(value).__name__}")
    if buffer is not None and buffer.dtype in ("bf16", "tf32", "e4m3", "e5m2"):
        raise UsageError(f"inputs[{name!r}]: a {buffer.dtype} buffer takes a numpy array of raw words or an ml_dtypes "
                         f"array, not a list")
    if buffer is not None and buffer.dtype in DTYPES:
        return arr.astype(DTYPES[buffer.dtype][0])
    return arr.astype(np.float32 if arr.dtype.kind == "f" else np.int32)


def mma(arch: str, in_fmt: str, a, b, c=0, acc: str = "f32", *, inst: str = "mma",
        ptxas: str | None = None) -> MmaResult:
    """d = c + Σ a[k]·b[k] as a tensor core of `arch` computes it, bit for bit — `volta mma`. Words are ints
    (or hex strings) in the input/accumulator formats; 2-D `a`/`b` (rows × K) with 1-D `c` evaluate a batch.
    `inst` ("mma" or "wgmma") and `ptxas` (e.g. "12.6"; default the nvcc found, else 13.0) choose the row where
    the code depends on them (Hopper fp8); the result's `row` names the row used."""
    import numpy as np

    from volta.cuda import nvcc_release
    from volta.numerics.formats import FORMATS, decode
    from volta.numerics.mma_select import make_setting, select_row
    from volta.numerics.mma_vec import mma_batch

    for name in (in_fmt, acc):
        if name not in FORMATS:
            raise UsageError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    setting = make_setting(inst, ptxas, nvcc_release())
    row = select_row(arch, in_fmt, acc, setting)  # validates the pair and the setting, as `volta mma` does
    A, B = _words(a, "a", FORMATS[in_fmt].width), _words(b, "b", FORMATS[in_fmt].width)
    single = A.ndim == 1
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    C = np.atleast_1d(_words(c, "c", FORMATS[acc].width))
    if A.shape != B.shape or C.shape != (A.shape[0],):
        raise UsageError(f"a is {A.shape}, b {B.shape}, c {C.shape}: a and b need the same shape, c one word per row")
    start = time.perf_counter()
    d = np.asarray(mma_batch(A, B, C, arch, in_fmt, acc, params=row.params), dtype=np.int64)
    timings = {"total": time.perf_counter() - start}
    info = row.to_json(setting)
    if single:
        word = int(d[0])
        v = decode(word, acc)
        return MmaResult("ok", 0, [], timings, d, word=word, value=float(v), acc=acc, row=info)
    return MmaResult("ok", 0, [], timings, d, words=d, acc=acc, row=info)


def _words(x, what: str, width: int):
    import numpy as np

    def one(w):
        if isinstance(w, str):
            try:
                w = int(w, 16)
            except ValueError:
                raise UsageError(f"{what}: {w!r} is not a hex word") from None
        w = int(w)
        if w < 0 or w >> width:
            raise UsageError(f"{what}: {w:#x} does not fit in {width} bits")
        return w

    arr = np.asarray(x, dtype=object)
    return np.vectorize(one, otypes=[np.int64])(arr) if arr.size else arr.astype(np.int64)
