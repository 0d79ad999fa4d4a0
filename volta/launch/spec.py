"""Launch specifications: `--grid 8x1 --block 128 --args x,y,1024 --buffer x=f32[1024]:in`, or a manifest.

`--args` mirrors `kernel<<<grid, block>>>(x, y, 1024)`: one entry per kernel parameter, naming a
declared buffer, a declared symbol, or giving a scalar literal; `x+256` is a pointer 256 bytes into buffer x
(`x.data_ptr() + 64` for floats, as host code passes a view of a tensor). Everything is checked against the
kernel's parameters here, so a mistake is a one-line usage error rather than a wrong answer.
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from volta import cuda
from volta.errors import UsageError
from volta.ir.structparams import SliceParam, StructParam
from volta.launch import globalvars
from volta.launch import structargs
from volta.launch.args import Name, Number, Struct, entries, entry
from volta.launch.cudastruct import struct_fields
from volta.launch.hoststeps import parse_step
from volta.launch.kernel import Dim3, KernelLaunch
from volta.launch.structargs import fit_scalar

DTYPES = {
    "f32": (np.float32, 4), "f64": (np.float64, 8), "f16": (np.float16, 2), "bf16": (np.uint16, 2),
    "s8": (np.int8, 1), "u8": (np.uint8, 1), "s16": (np.int16, 2), "u16": (np.uint16, 2),
    "s32": (np.int32, 4), "u32": (np.uint32, 4), "s64": (np.int64, 8), "u64": (np.uint64, 8),
    "e4m3": (np.uint8, 1), "e5m2": (np.uint8, 1), "tf32": (np.uint32, 4),
}
# how numpy, torch and C spell a dtype the buffer syntax names as PTX does: said in the error, never guessed
OTHER_SPELLINGS = {
    **{f"i{b}": f"s{b}" for b in (8, 16, 32, 64)}, **{f"int{b}": f"s{b}" for b in (8, 16, 32, 64)},
    **{f"uint{b}": f"u{b}" for b in (8, 16, 32, 64)}, **{f"float{b}": f"f{b}" for b in (16, 32, 64)},
    "half": "f16", "float": "f32", "double": "f64", "int": "s32", "bfloat16": "bf16",
}
ROLES = ("in", "out", "inout", "temp")  # temp: an intermediate of a launch sequence (not compared, not an input)
# an integer input given concrete values for one run (volta/equiv/fixed_inputs.py): its elements are known
# numbers, like the sizes, so addresses and branches may depend on them; never a user's role
FIXED = "fixed"


@dataclass(frozen=True)
class Buffer:
    name: str
    dtype: str
    count: int
    role: str = "inout"
    range: tuple | None = None  # integer inputs: the declared (lo, hi) of every element (`:range=0..50257`)
    undefined_start: bool = False  # an out buffer under --out-init undefined: starts never-written, like a temp
    contents: str | None = None  # an integer input with known values: "iota" (element i holds i; index arrays)

    def known_values(self):
        """The values of a buffer declared with known contents (`:iota`), else None."""
        return None if self.contents is None else np.arange(self.count).astype(DTYPES[self.dtype][0])

    @property
    def itemsize(self) -> int:
        return DTYPES[self.dtype][1]

    @property
    def nbytes(self) -> int:
        return self.count * self.itemsize


@dataclass
class LaunchSpec:
    launches: dict  # role ('kernel', 'ref', 'opt') -> KernelLaunch
    buffers: dict  # name -> Buffer
    symbols: dict = field(default_factory=dict)  # name -> float type (symbolic scalars)
    expect: dict = field(default_factory=dict)
    source: str | None = None  # manifest path
    functions: dict = field(default_factory=dict)  # external function name -> real meaning (--define-fn)
    allow_exit_before_barrier: bool = False  # exited threads count as arrived at later barriers (sm_70+ hardware)
    exact_constants: bool = False  # --exact-constants: RN(log2 e) is the rational it is, not log2 e (check)
    # role -> (KernelLaunch, …): a multi-kernel pipeline ([[ref.launch]] in a manifest), run in order on the same
    # buffers; launches[role] is then its first launch (what single-launch code paths see)
    sequences: dict = field(default_factory=dict)
    # buffer -> array: integer inputs fixed to these values for this run (volta/equiv/fixed_inputs.py)
    fixed: dict = field(default_factory=dict)


def single_launches(spec: LaunchSpec, what: str) -> None:
    """A usage error for the commands that do not run launch sequences yet (the bit modes)."""
    if spec.sequences:
        role = next(iter(spec.sequences))
        raise UsageError(f"{what} does not run launch sequences yet, and [{role}] is one "
                         f"({len(spec.sequences[role])} launches); volta check over the reals, volta races and "
                         f"volta run do")


def sequence(spec: LaunchSpec, role: str) -> tuple:
    """The launches of `role` in order: its [[role.launch]] pipeline, or its one launch.

    Code that re-points `launches[role]` at another PTX file (the mutation harnesses write a mutant of the opt
    kernel and replace `launches["opt"].ptx`) means that file for the whole side: every launch of the sequence
    that ran the first launch's file runs the new one. Any other difference between `launches[role]` and the
    sequence's first launch is ambiguous, and refused."""
    seq = spec.sequences.get(role)
    if not seq:
        return (spec.launches[role],)
    first = spec.launches[role]
    if first == seq[0]:
        return tuple(seq)
    if dataclasses.replace(first, ptx=seq[0].ptx) == seq[0]:
        return tuple(dataclasses.replace(x, ptx=first.ptx) if x.ptx == seq[0].ptx else x for x in seq)
    raise UsageError(f"[{role}] is a launch sequence, and its first launch was replaced by a different one "
                     f"({first.kernel or first.ptx}); change the launches of spec.sequences[{role!r}] instead")


def parse_dim3(text: str, what: str) -> Dim3:
    """`8`, `8x4` or `8x4x2` (commas too) as a Dim3, checked by `dim3`."""
    m = re.fullmatch(r"\s*(\d+)(?:\s*[x,]\s*(\d+))?(?:\s*[x,]\s*(\d+))?\s*", str(text))
    if not m:
        raise UsageError(f"bad {what} `{text}`: expected X, XxY or XxYxZ with positive integers (e.g. 8x4)")
    return dim3([int(g) for g in m.groups() if g], what, text)


def dim3(dims, what: str, text: str | None = None) -> Dim3:
    """A grid (`what` = "grid") or block of one to three dimensions, within CUDA's launch limits (compute
    capability 5.0 and later); `text` is how the caller wrote it, for the message."""
    text = "x".join(map(str, dims)) if text is None else text
    dims = list(dims) + [1] * (3 - len(dims))
    if min(dims) < 1:
        raise UsageError(f"bad {what} `{text}`: every dimension must be at least 1")
    if what == "block" and dims[0] * dims[1] * dims[2] > 1024:
        raise UsageError(f"block `{text}` has {dims[0] * dims[1] * dims[2]} threads; CUDA allows at most 1024")
    bounds = ((1024, 1024, 64) if what == "block" else ((1 << 31) - 1, 65535, 65535))
    for axis, n, most in zip("xyz", dims, bounds):
        if n > most:
            raise UsageError(f"{what} `{text}`: {what} {axis} is {n}, but CUDA allows at most {most:,} "
                             f"({what} dimensions x, y, z ≤ {', '.join(f'{b:,}' for b in bounds)})")
    return Dim3(*dims)


def parse_buffer(text: str) -> Buffer:
    """`name=dtype[count]` with an optional `:role` (in, out, inout, temp) and, for an integer input, an optional
    `:range=LO..HI`: every element lies in [LO, HI] (token ids `ids=s32[32]:in:range=0..50257`), or `:iota`:
    element i holds i (an index array `particles=u32[1024]:in:iota`; known numbers, like the sizes)."""
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*([a-z0-9]+)\s*\[\s*(\d+)\s*\]\s*(?::\s*(\w+))?\s*"
                     r"(?::\s*range\s*=\s*(.*?)|:\s*(iota))?\s*", text)
    if not m:
        raise UsageError(f"bad --buffer `{text}`: expected NAME=DTYPE[COUNT] or NAME=DTYPE[COUNT]:ROLE, e.g. x=f32[1024]:in "
                         f"(an integer input may add :range=LO..HI or :iota)")
    value_range = None
    if m[5] is not None:
        r = re.fullmatch(r"\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*", m[5])
        if not r:
            raise UsageError(f"bad --buffer `{text}`: expected :range=LO..HI with integers LO <= HI, e.g. "
                             f"range=0..50257")
        value_range = (int(r[1]), int(r[2]))
    return buffer(m[1], m[2], int(m[3]), m[4] or "inout", value_range, m[6], where=f"bad --buffer `{text}`")


def buffer(name: str, dtype: str, count: int, role: str = "inout", value_range: tuple | None = None,
           contents: str | None = None, *, where: str) -> Buffer:
    """A global buffer, checked: a known dtype and role, at least one element, a `value_range` (lo, hi) only on an
    integer input and within its dtype, `contents` "iota" only on an integer input that holds its indices.
    `where` opens every message: how the caller wrote the buffer (`bad --buffer `x=f33[4]``, a volta.Buffer)."""
    if dtype not in DTYPES:
        hint = f"; `{OTHER_SPELLINGS[dtype]}` is PTX's name for it" if dtype in OTHER_SPELLINGS else ""
        raise UsageError(f"{where}: unknown dtype `{dtype}`{hint} (known: {', '.join(DTYPES)})")
    if role not in ROLES:
        raise UsageError(f"{where}: role must be one of {', '.join(ROLES)}"
                         + (f" (:iota follows the role: {name}={dtype}[{count}]:in:iota)" if role == "iota" else ""))
    if count == 0:
        raise UsageError(f"{where}: a buffer needs at least one element")
    if contents and (dtype[0] not in "su" or role != "in" or count - 1 > np.iinfo(DTYPES[dtype][0]).max):
        raise UsageError(f"{where}: :iota gives an integer input (role in) the values 0 … {count - 1}, "
                         f"so it needs an integer dtype that holds {count - 1} and the role in")
    if value_range is not None:
        _check_range(where, value_range, dtype, role)
    return Buffer(name, dtype, count, role, value_range, contents=contents)


def _check_range(where: str, value_range: tuple, dtype: str, role: str) -> None:
    if dtype[0] not in "su":
        raise UsageError(f"{where}: a range applies to integer buffers (s8 … u64), not {dtype}")
    if role not in ("in", "inout"):
        raise UsageError(f"{where}: a range describes the values a kernel reads, so it applies to an "
                         f"input (role in or inout), not {role}")
    lo, hi = value_range
    bits = 8 * DTYPES[dtype][1]
    tlo, thi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype[0] == "s" else (0, (1 << bits) - 1)
    if not tlo <= lo <= hi <= thi:
        raise UsageError(f"{where}: range {lo}..{hi} must have LO <= HI and lie in {dtype}'s range "
                         f"[{tlo}, {thi}]")


def from_options(ptx, kernel, grid, block, args, buffers, named_args=(), shared_dynamic=0, symbols=()) -> LaunchSpec:
    """One kernel's launch from `volta races`' option strings."""
    if grid is None or block is None:
        raise UsageError("--grid and --block are required (or give a manifest.toml)")
    launch = KernelLaunch(Path(ptx), kernel, parse_dim3(grid, "grid"), parse_dim3(block, "block"),
                          entries(args) if args is not None else (), shared_dynamic, named=parse_named(named_args))
    return assemble({"kernel": launch}, [parse_buffer(b) for b in buffers], dict(_parse_symbol(s) for s in symbols))


def parse_named(items) -> tuple:
    """`--arg PARAM=VALUE` options: ((param, Arg), ...), the last value of a parameter given twice."""
    named = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"bad --arg `{item}`: expected PARAM=VALUE")
        named[name.strip()] = entry(value, f"--arg {name.strip()}")
    return tuple(named.items())


def assemble(launches: dict, buffers, symbols: dict, *, symbols_apart: bool = False) -> LaunchSpec:
    """The typed request of a command: role -> KernelLaunch, or -> (KernelLaunch, …) for a launch sequence, on
    `buffers` (Buffer values) and `symbols` (name -> float type). The CLI's option parsers and the Python API both
    build their spec here. `symbols_apart`: a symbol may not have a buffer's name (volta check)."""
    bufs = {}
    for buf in buffers:
        if buf.name in bufs:
            raise UsageError(f"buffer `{buf.name}` is declared twice")
        bufs[buf.name] = buf
    for name, t in symbols.items():
        symbol_type(t, f"bad --symbol `{name}={t}`")
        if symbols_apart and name in bufs:
            raise UsageError(f"--symbol `{name}` has the name of a buffer; pick another name")
    spec = LaunchSpec({}, bufs, dict(symbols))
    for role, launch in launches.items():
        if isinstance(launch, tuple):
            spec.launches[role] = launch[0]
            if len(launch) > 1:
                spec.sequences[role] = launch
        else:
            spec.launches[role] = launch
    return spec


SYMBOL_TYPES = ("f32", "f64", "f16", "bf16")


def symbol_type(t: str, where: str) -> str:
    """The float type of a scalar kept symbolic, checked (`where` opens the message)."""
    if t not in SYMBOL_TYPES:
        raise UsageError(f"{where}: expected NAME=f32 (or f64, f16, bf16)")
    return t


def _parse_symbol(text: str):
    name, eq, t = text.partition("=")
    if not eq:
        raise UsageError(f"bad --symbol `{text}`: expected NAME=f32 (or f64, f16, bf16)")
    return name.strip(), symbol_type(t.strip(), f"bad --symbol `{text}`")


def load_manifest(path: str | Path) -> LaunchSpec:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"no such manifest: {path}") from None
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{path}: malformed TOML: {err}") from None
    _check_manifest_keys(path, data)
    bufs = {}
    for name, text in data.get("buffers", {}).items():
        try:
            bufs[name] = parse_buffer(f"{name}={text}")
        except UsageError as err:   # said in the manifest's words: its file and key, not --buffer
            reason = err.message.partition("`: ")[2] or err.message
            reason = reason.replace("NAME=DTYPE[COUNT] or NAME=DTYPE[COUNT]:ROLE, e.g. x=", "DTYPE[COUNT]:ROLE, e.g. ")
            raise UsageError(f"{path}: [buffers] {name} = {text!r}: {reason}") from None
    launches, sequences = {}, {}
    for role in ("kernel", "ref", "opt"):
        table = data.get(role)
        if table is None:
            continue
        if "launch" in table:
            seq = []
            for k, item in enumerate(table["launch"]):
                where = f"[[{role}.launch]] number {k + 1}"
                seq.append(_manifest_step(path, item, bufs, where) if "step" in item else
                           _manifest_launch(path, item, where))
            if all(x.host is not None for x in seq):
                raise UsageError(f"{path}: [[{role}.launch]] has host steps only: a sequence needs a kernel launch")
            sequences[role] = tuple(seq)
            launches[role] = seq[0]
            continue
        launches[role] = _manifest_launch(path, table, f"[{role}]")
    if not launches:
        raise UsageError(f"{path}: a manifest needs a [kernel] table or [ref] and [opt] tables")
    syms = {k: v for k, v in data.get("symbols", {}).items()}
    exact = data.get("exact_constants", False)
    if not isinstance(exact, bool):
        raise UsageError(f"{path}: exact_constants = {exact!r}: expected true or false")
    return LaunchSpec(launches, bufs, syms, data.get("expect", {}), str(path), sequences=sequences,
                      exact_constants=exact)


def _manifest_launch(path: Path, table: dict, where: str) -> KernelLaunch:
    try:
        return KernelLaunch(
            path.parent / table["ptx"], table.get("name"), parse_dim3(table["grid"], "grid"),
            parse_dim3(table["block"], "block"),
            tuple(_manifest_arg(a, f"{path}: {where} args") for a in table.get("args", ())),
            int(table.get("shared_dynamic", 0)), path.parent / table["cuda"] if "cuda" in table else None,
            globals=_manifest_globals(path, table.get("globals", {}), where),
        )
    except KeyError as err:
        raise UsageError(f"{path}: {where} lacks the key {err}") from None


def _manifest_globals(path: Path, table, where: str) -> tuple:
    """`globals = { MAX_KEY = 32 }`: module .global variables set for the launch (volta/launch/globalvars.py)."""
    if not isinstance(table, dict):
        raise UsageError(f"{path}: {where} globals must be a table such as {{ MAX_KEY = 32 }}")
    return tuple(globalvars.parse(f"{k}={v}", f"{path}: {where} globals entry") for k, v in table.items())


def _manifest_step(path: Path, table: dict, buffers: dict, where: str) -> KernelLaunch:
    """A `[[role.launch]]` table holding `step = "memset out 0"` (or `"copy tmp out"`) and nothing else."""
    others = sorted(k for k in table if k != "step")
    if others:
        raise UsageError(f"{path}: {where} is a host step (`step = ...`) and has the key `{others[0]}`: a host step "
                         f"table holds `step` alone")
    try:
        return parse_step(table["step"], buffers, f"{where} step")
    except UsageError as err:
        raise UsageError(f"{path}: {err.message}") from None


def _manifest_arg(a, where: str):
    """An `args` item: a string or number, or an array `["x", "y", 1024]` for a struct argument `{x,y,1024}`."""
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return Number(a, str(a))

    def text(item) -> str:
        return "{" + ",".join(map(text, item)) + "}" if isinstance(item, list) else str(item)

    return entry(text(a), where)


# The manifest schema (examples/README.md): every key a manifest may have. Anything else is a typo
# that would otherwise be silently ignored (`shared_dynamc`, a `[buffer]` table).
MANIFEST_TABLES = {"kernel", "ref", "opt", "buffers", "symbols", "expect"}
# nvcc_flags: examples/regenerate.sh; exact_constants: volta check --exact-constants
MANIFEST_TOP = MANIFEST_TABLES | {"description", "arch", "nvcc_flags", "exact_constants"}
LAUNCH_KEYS = {"ptx", "cuda", "name", "grid", "block", "args", "shared_dynamic", "globals"}
STEP_KEYS = {"step"}   # a [[role.launch]] table that is a host step (volta/launch/hoststeps.py)
EXPECT_KEYS = {"races", "check", "defect_line", "arch", "bits", "lockstep", "inputs"}
EXPECT_VALUES = {
    "races": {"clean", "race", "deadlock", "out-of-bounds", "uninitialized-read", "unsupported", "clean-for-inputs",
              "benign-race", "nondeterministic-write", "misaligned", "division-by-zero", "ordering-race",
              "benign-read-race", "nondeterministic-bits"},
    "check": {"equivalent", "not-equivalent", "findings", "unsupported", "unknown", "equivalent-for-inputs"},
}


def _did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _check_manifest_keys(path: Path, data: dict) -> None:
    def unknown(where: str, key: str, choices) -> UsageError:
        return UsageError(f"{path}: unknown {where} `{key}`{_did_you_mean(key, choices)}; "
                          f"known: {', '.join(sorted(choices))}")

    for key, value in data.items():
        if key not in MANIFEST_TOP:
            raise unknown("table" if isinstance(value, dict) else "key", key, MANIFEST_TOP)
        if key in MANIFEST_TABLES and not isinstance(value, dict):
            raise UsageError(f"{path}: `{key}` must be a table ([{key}]), not a value")
    for role in ("kernel", "ref", "opt"):
        table = data.get(role, {})
        if "launch" in table:
            items = table["launch"]
            if not isinstance(items, list) or not items or not all(isinstance(t, dict) for t in items):
                raise UsageError(f"{path}: `{role}.launch` must be an array of tables ([[{role}.launch]]), "
                                 f"one per kernel launch, in order")
            others = sorted(k for k in table if k != "launch")
            if others:
                raise UsageError(f"{path}: [{role}] has [[{role}.launch]] tables and the key `{others[0]}`: give "
                                 f"every launch's keys inside its own [[{role}.launch]] table")
            for k, item in enumerate(items):
                for key in item:
                    if key not in LAUNCH_KEYS | STEP_KEYS:
                        raise unknown(f"key in [[{role}.launch]] number {k + 1}", key, LAUNCH_KEYS | STEP_KEYS)
            continue
        for key in table:
            if key not in LAUNCH_KEYS:
                raise unknown(f"key in [{role}]", key, LAUNCH_KEYS | {"launch"})
    expect = data.get("expect", {})
    for key, value in expect.items():
        if key not in EXPECT_KEYS:
            raise unknown("key in [expect]", key, EXPECT_KEYS)
        allowed = EXPECT_VALUES.get(key)
        if allowed is not None and value not in allowed:
            raise UsageError(f"{path}: [expect] {key} = {value!r} is not a verdict{_did_you_mean(str(value), allowed)}; "
                             f"known: {', '.join(sorted(allowed))}")


def bind_args(launch: KernelLaunch, params: list, buffers: dict, symbols: dict) -> list:
    """Match `--args` to the kernel's parameters: [('buffer', Buffer) | ('buffer_at', (Buffer, byte offset)) |
    ('scalar', int|float) | ('symbol', name)].

    A struct parameter takes one `{…}` entry, bound onto the slices that follow it in `params`
    (volta/ir/structparams.py): the result has one binding per entry of `params`, slices included."""
    slices = {}
    for p in params:
        if isinstance(p, SliceParam):
            slices.setdefault(p.struct, []).append(p)
    everything, params = params, [p for p in params if not isinstance(p, SliceParam)]
    args = list(launch.args)
    named = dict(launch.named)
    names = [p[0] for p in params]
    for key in named:
        if key not in names:
            raise UsageError(f"--arg {key}=…: the kernel has no parameter `{key}` (parameters: {', '.join(names)})")
    if not args and named:
        args = [named.get(n) for n in names]
    elif named:
        args = args + [None] * (len(names) - len(args))
        for i, n in enumerate(names):
            if n in named:
                args[i] = named[n]
    if len(args) != len(params):
        raise UsageError(
            f"kernel `{launch.kernel or ''}` takes {len(params)} parameters ({', '.join(names)}) "
            f"but --args gives {len(args)}"
        )
    bound = {}
    for param, value in zip(params, args):
        pname, ptype, _ = param
        if value is None:
            raise UsageError(f"no value for parameter `{pname}`: give it in --args or with --arg {pname}=V")
        if isinstance(param, StructParam):
            declared = struct_fields(launch.cuda, launch.kernel, params.index(param)) if launch.kernel else None
            for p, b in zip([param] + slices.get(pname, []),
                            structargs.bind_struct(param, slices.get(pname, []), value, buffers, symbols, declared)):
                bound[p[0]] = b
            continue
        bound[pname] = _bind_plain(pname, ptype, value, buffers, symbols)
    return [bound[p[0]] for p in everything]


def _bind_plain(pname: str, ptype: str, value, buffers: dict, symbols: dict) -> tuple:
    """One plain (non-struct) parameter's binding."""
    if isinstance(value, Struct):
        raise UsageError(f"--args entry `{value}` is a struct, but parameter `{pname}` has the plain type {ptype}")
    if isinstance(value, Name) and value.name in buffers:
        if ptype not in (".u64", ".b64", ".s64"):
            raise UsageError(f"parameter `{pname}` has type {ptype} but --args passes buffer `{value.name}` to it")
        if not value.offset:
            return ("buffer", buffers[value.name])
        return ("buffer_at", (buffers[value.name], value.offset))
    if isinstance(value, Name) and not value.offset and value.name in symbols:
        return ("symbol", value.name)
    if not isinstance(value, Number):
        hint = ""
        if isinstance(value, Name) and not value.offset and ptype in (".f32", ".f64", ".f16", ".bf16"):
            hint = f"; to keep this {ptype[1:]} scalar symbolic, declare it: --symbol {value.name}={ptype[1:]}"
        elif isinstance(value, Name) and not value.offset and ptype in (".u64", ".b64", ".s64"):
            hint = f"; if it is a pointer, declare the buffer: --buffer {value.name}=DTYPE[N]:ROLE"
        raise UsageError(f"--args entry `{value}` for parameter `{pname}` is neither a declared buffer, "
                         f"a --symbol, nor a number{hint}")
    number = value.value
    if ptype in (".u64", ".b64") and isinstance(number, int) and number != 0 and "ptr" in pname.lower():
        raise UsageError(f"parameter `{pname}` looks like a pointer: pass a --buffer name")
    return ("scalar", fit_scalar(pname, ptype, value.text, number))


def pair_from_options(ref_ptx, opt_ptx, buffers, *, grid=None, block=None, args=None, kernel=None,
                      ref=None, opt=None, shared_dynamic=0, symbols=()) -> LaunchSpec:
    """The two launches of `volta check REF.ptx OPT.ptx`: shared options, each overridable per role.

    `ref`/`opt` are dicts with optional keys `kernel`, `grid`, `block`, `args` overriding the shared
    values for that kernel (`--ref-grid` over `--grid`, …). Buffers and symbols are shared.
    """
    base = {"kernel": kernel, "grid": grid, "block": block, "args": args}
    launches = {}
    for role, ptx, over in (("ref", ref_ptx, ref or {}), ("opt", opt_ptx, opt or {})):
        opts = {k: over.get(k) if over.get(k) is not None else v for k, v in base.items()}
        for key in ("grid", "block"):
            if opts[key] is None:
                raise UsageError(f"no {key} for the {role} kernel: give --{key} (shared) or --{role}-{key}, "
                                 f"or a manifest.toml")
        launches[role] = KernelLaunch(Path(ptx), opts["kernel"], parse_dim3(opts["grid"], "grid"),
                                      parse_dim3(opts["block"], "block"),
                                      entries(opts["args"]) if opts["args"] is not None else (),
                                      shared_dynamic)
    return assemble(launches, *_check_declarations(buffers, symbols), symbols_apart=True)


def _check_declarations(buffers, symbols) -> tuple:
    """`volta check`'s --buffer options (each with a role) and --symbol options: ([Buffer], {name: type})."""
    bufs = []
    for b in buffers:
        buf = parse_buffer(b)
        if ":" not in b:
            raise UsageError(f"--buffer `{b}` needs a role for volta check: append :in, :out, :inout or :temp "
                             f"(e.g. {buf.name}={buf.dtype}[{buf.count}]:in)")
        bufs.append(buf)
    return bufs, dict(_parse_symbol(s) for s in symbols)


LAUNCH_SPEC_KEYS = ("grid", "block", "args", "shared")


def parse_launch(text: str, option: str) -> KernelLaunch:
    """One `--opt-launch "k1.ptx:partial_sums grid=8 block=256 args=x,tmp,1024 shared=0"`: FILE[:KERNEL] then
    KEY=VALUE words (grid and block required; args and shared, the dynamic shared bytes, optional)."""
    words = str(text).split()
    example = 'e.g. "k1.ptx:partial_sums grid=8 block=256 args=x,tmp,1024"'
    if not words:
        raise UsageError(f"empty {option}: expected FILE[:KERNEL] grid=G block=B [args=A,B,...] [shared=BYTES], "
                         f"{example}")
    head = words[0]
    path, kernel = head, None
    if ":" in head and not head.endswith((".ptx", ".cu")):
        path, _, kernel = head.rpartition(":")
    keys = {}
    for w in words[1:]:
        key, eq, value = w.partition("=")
        if not eq or key not in LAUNCH_SPEC_KEYS:
            raise UsageError(f"bad {option} `{text}`: `{w}` is not KEY=VALUE with KEY one of "
                             f"{', '.join(LAUNCH_SPEC_KEYS)}{_did_you_mean(key, LAUNCH_SPEC_KEYS)}; {example}")
        if key in keys:
            raise UsageError(f"bad {option} `{text}`: `{key}=` is given twice")
        keys[key] = value
    for key in ("grid", "block"):
        if key not in keys:
            raise UsageError(f"bad {option} `{text}`: no {key}= ({example})")
    try:
        shared = int(keys.get("shared", "0"), 0)
    except ValueError:
        raise UsageError(f"bad {option} `{text}`: shared= takes a number of bytes") from None
    return KernelLaunch(Path(path), kernel or None, parse_dim3(keys["grid"], "grid"), parse_dim3(keys["block"], "block"),
                        entries(keys.get("args", "")), shared)


def sequences_from_options(ref_items, opt_items, buffers, symbols=()) -> LaunchSpec:
    """`volta check --ref-launch SPEC … --opt-launch SPEC … [--opt-step "memset out 0" …]`: each side one launch or
    a sequence, in order. An item is ("launch", text) or ("step", text) (a host step, volta/launch/hoststeps.py)."""
    for role, items in (("ref", ref_items), ("opt", opt_items)):
        if not any(kind == "launch" for kind, _ in items):
            raise UsageError(f"give both sides as launches: --{role}-launch is missing (one per kernel launch, in "
                             f"order; --{role}-step adds host steps between them)")
    bufs, syms = _check_declarations(buffers, symbols)
    named = {b.name: b for b in bufs}
    sides = {role: tuple(parse_step(t, named, f"--{role}-step") if kind == "step" else
                         parse_launch(t, f"--{role}-launch") for kind, t in items)
             for role, items in (("ref", ref_items), ("opt", opt_items))}
    return assemble(sides, bufs, syms, symbols_apart=True)


FUNCTION_MEANINGS = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "erf", "sin", "cos")


def parse_define_fn(text: str) -> tuple:
    """`NAME=MEANING` for `--define-fn`, MEANING one of FUNCTION_MEANINGS."""
    name, eq, meaning = text.partition("=")
    if not eq or not name.strip() or meaning.strip() not in FUNCTION_MEANINGS:
        raise UsageError(f"bad --define-fn `{text}`: expected NAME=MEANING with MEANING one of "
                         f"{', '.join(FUNCTION_MEANINGS)}")
    return name.strip(), meaning.strip()


OUT_INIT = ("zeros", "undefined")


def with_out_init(spec: LaunchSpec, out_init: str) -> LaunchSpec:
    """`--out-init zeros` (the default: out buffers start at zero, as after a cudaMemset) or `undefined` (they start
    never-written, so a kernel reading one before writing it is an UNINITIALIZED READ, as for a temp buffer)."""
    import dataclasses

    if out_init not in OUT_INIT:
        raise UsageError(f"unknown out-init `{out_init}`: choose zeros or undefined")
    if out_init == "undefined":
        spec.buffers = {n: dataclasses.replace(b, undefined_start=True) if b.role == "out" else b
                        for n, b in spec.buffers.items()}
    return spec


def compile_sources(spec: LaunchSpec, arch: str | None = None, nvcc_flags=()) -> LaunchSpec:
    """Every launch whose file is CUDA source (`.cu`) gets the PTX nvcc makes of it (`volta.cuda`, cached).

    The one place `.cu` inputs become PTX, for the command line, manifests and the Python API alike.
    `arch`/`nvcc_flags` without any `.cu` launch are a usage error: they would silently do nothing.
    """
    sources = [r for r, launch in spec.launches.items()
               if r not in spec.sequences and cuda.is_cuda_source(launch.ptx)]
    pipelines = [r for r, seq in spec.sequences.items() if any(cuda.is_cuda_source(x.ptx) for x in seq)]
    for role in pipelines:
        spec.sequences[role] = tuple(
            dataclasses.replace(x, ptx=cuda.compile_to_ptx(x.ptx, arch or cuda.DEFAULT_ARCH, tuple(nvcc_flags)),
                                cuda=x.ptx)
            if cuda.is_cuda_source(x.ptx) else x for x in spec.sequences[role])
        spec.launches[role] = spec.sequences[role][0]
    if not sources and pipelines:
        return spec
    if not sources:
        if arch is not None or nvcc_flags:
            raise UsageError("--arch and --nvcc-flag apply to .cu inputs, and no input is a .cu file: drop them")
        return spec
    for role in sources:
        launch = spec.launches[role]
        ptx = cuda.compile_to_ptx(launch.ptx, arch or cuda.DEFAULT_ARCH, tuple(nvcc_flags))
        spec.launches[role] = dataclasses.replace(launch, ptx=ptx, cuda=launch.ptx)
    return spec
