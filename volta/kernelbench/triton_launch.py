"""A Triton launcher run on the torch stand-in: every `kernel[grid](...)` it makes, captured and executed.

Production Triton code calls its kernels from a Python launcher: it allocates outputs (`torch.empty_like`),
reads strides and shapes, picks BLOCK_SIZE and num_warps from the sizes, launches one or more kernels and
finishes in torch (`_dw.sum(0)`). `run_launcher` runs that function with the stand-in installed as `torch`
(volta/kernelbench/torchsym: tensors are storages of element expressions with torch's view semantics) and
`JITFunction.run` — what `kernel[grid](*args, **kwargs)` calls, also through `@triton.heuristics` — replaced
for the duration by `Capture.launch`, which

1. compiles the kernel as a GPU launch of those arguments would (`volta.triton_jit.compile_call`: Triton's own
   specialisation, so `None` for an unused optional pointer, constexprs, divisibility by 16 and value-1 ints
   are what Triton makes of them, and the PTX is the PTX the GPU runs);
2. computes the grid (a tuple, or Triton's grid function of the bound arguments);
3. names the storages the arguments reach (an input keeps its name; an allocation takes the name of the first
   kernel parameter that receives it, `Y`, `Y#2`, ...) and passes each tensor as a pointer into its storage
   (`name+BYTES` for a view at an offset);
4. executes the launch on Volta's machine over those storages (volta/kernelbench/triton_storage.py), so the
   torch code after it — and the next launch — computes on the kernel's results.

Over the reals a kernel that calls libdevice runs as its `real_ptx` (libdevice calls read as the functions they
name; the bits of real-equal stores are still compared on the GPU's PTX). `torch.cuda.get_device_properties`
answers for a device of `sms` multiprocessors (launchers size persistent grids by it). The launch records keep
what a report needs: the call's line in the launcher, the specialisation, the grid and every finding.
"""
from __future__ import annotations

import contextlib
import os
import sys
import traceback
import types
from dataclasses import dataclass, field

from volta.errors import Span, Unsupported, UsageError, VoltaError
from volta.kernelbench.failures import TorchError
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym import Run, installed
from volta.kernelbench import triton_storage
from volta.triton_jit import Call, TritonKernel, compile_call, grid_dims, require_triton

DEFAULT_SMS = 4  # multiprocessors of the stand-in device: persistent grids stay small


@dataclass
class Launched:
    """One captured launch: the compiled kernel, where the launcher made it, and what it did."""

    kernel: TritonKernel
    where: tuple  # (file, line) of the `kernel[grid](...)` call
    grid: tuple
    specialization: list  # (parameter, Triton type, hint or constexpr value), as Triton specialised it
    args: list  # (parameter, argument as the launch passes it: buffer name, name+BYTES, number)
    executed: triton_storage.Executed

    @property
    def call_text(self) -> str:
        shown = ", ".join(f"{p}={a}" for p, a in self.args)
        constants = ", ".join(f"{p}={v!r}" for p, t, v in self.specialization if t == "constexpr")
        return f"{self.kernel.name}[{self.grid}]({shown}{'; ' + constants if constants else ''}, " \
               f"num_warps={self.kernel.num_warps})"


@dataclass
class StorageNames:
    """Buffer names of the storages a run's launches reach: inputs by their names, allocations by the kernel
    parameter that first receives them."""

    by_id: dict = field(default_factory=dict)  # id(storage) -> name
    held: list = field(default_factory=list)   # the storages, so that their ids stay theirs

    def add(self, storage, name: str) -> str:
        taken = set(self.by_id.values())
        unique, k = name, 2
        while unique in taken:
            unique, k = f"{name}#{k}", k + 1
        self.by_id[id(storage)] = unique
        self.held.append(storage)
        return unique

    def of(self, storage, param: str) -> str:
        name = self.by_id.get(id(storage))
        return name if name is not None else self.add(storage, param)


@dataclass
class Capture:
    """The launches of one launcher run, executed as they are made."""

    run: Run
    names: StorageNames
    sms: int = DEFAULT_SMS
    launches: list = field(default_factory=list)

    def launch(self, fn, args: tuple, kwargs: dict, grid) -> None:
        where = call_site()
        try:
            call = compile_call(fn, args, kwargs)
        except UsageError as err:
            raise UsageError(err.message, Span(where[0], where[1], 1)) from None
        dims = grid_dims(grid, call.kernel, call.bound)
        if 0 in dims:
            return   # an empty grid runs nothing
        entries, described, storages = argument_entries(call, self.names.of)
        kernel = call.kernel
        reals = kernel.real_ptx is not None
        executed = triton_storage.run(kernel, kernel.path(reals), dims, entries, storages,
                                      bits_ptx=kernel.path() if reals else None)
        self.launches.append(Launched(kernel, where, dims, call.specialization, described, executed))


def argument_entries(call: Call, name_of):
    """The launch's `--args` entries (visible parameters, then Triton's hidden scratch pointers), the same
    with their parameter names for reports, and the storages reached by buffer name; `name_of(storage,
    parameter)` names a storage."""
    kernel = call.kernel
    entries, described, storages = [], [], {}
    for param in kernel.params:
        value = call.bound[param]
        if isinstance(value, SymTensor):
            storage = value.storage
            name = name_of(storage, param)
            offset = value.data_ptr() - storage.address
            storages[name] = storage
            entry = name if offset == 0 else f"{name}+{offset}"
        elif isinstance(value, bool):
            entry = str(int(value))
        elif isinstance(value, (int, float)):
            entry = repr(value)
        else:
            raise UsageError(f"argument `{param}` of Triton kernel `{kernel.name}` is {type(value).__name__} "
                             f"{value!r}: a launch passes tensors, ints, floats or None")
        entries.append(entry)
        described.append((param, entry))
    for i in range(kernel.hidden):
        per_program = kernel.scratch[i] if i < len(kernel.scratch) else 0
        if per_program:
            raise Unsupported(f"Triton kernel `{kernel.name}` asks for {per_program} bytes of global scratch "
                              f"per program; launches with scratch memory are not modelled here")
        entries.append("0")   # a null pointer: Triton reserved no scratch, the kernel never dereferences it
    return entries, described, storages


def call_site() -> tuple:
    """(file, line) of the user code that made the launch: the innermost frame outside triton and volta."""
    triton_dir = os.path.dirname(require_triton().__file__)
    volta_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not (path.startswith(triton_dir) or path.startswith(volta_dir)):
            return path, frame.f_lineno
        frame = frame.f_back
    return "<launcher>", 1


@contextlib.contextmanager
def jit_runs_to(launch, raising=lambda err: err):
    """`kernel[grid](...)` (JITFunction.run, also under `@triton.heuristics` and a one-config `@triton.autotune`)
    calls `launch(fn, args, kwargs, grid)` instead for the duration; nothing reaches a GPU driver. What no GPU-less
    run can do (compile without launching, time autotune configs) is UNSUPPORTED, raised as `raising(error)`."""
    require_triton()
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    saved = JITFunction.run, Autotuner._bench

    def run(self, *args, grid, warmup, **kwargs):
        if warmup:
            raise raising(Unsupported(f"`{self.__name__}.warmup(...)` compiles without launching; only launches "
                                      f"are modelled"))
        return launch(self, args, kwargs, grid)

    def bench(self, *args, config, **kwargs):
        raise raising(Unsupported(f"`@triton.autotune` of `{self.base_fn.__name__}` times {len(self.configs)} "
                                  f"configs on a GPU and keeps the fastest, so which one runs depends on the "
                                  f"machine; give it one config (or a `prune_configs_by` that keeps one) to check it"))

    JITFunction.run, Autotuner._bench = run, bench
    try:
        yield
    finally:
        JITFunction.run, Autotuner._bench = saved


@contextlib.contextmanager
def intercepted(capture: Capture):
    """`kernel[grid](...)` goes to `capture.launch` for the duration; the device answers for `capture.sms`
    multiprocessors."""
    with jit_runs_to(capture.launch):
        cuda = sys.modules.get("torch.cuda")
        if cuda is not None:
            cuda.get_device_properties = lambda *a, **k: _Device(capture.sms)
        yield capture


@dataclass(frozen=True)
class _Device:
    """What launchers read of `torch.cuda.get_device_properties(...)`."""

    multi_processor_count: int
    name: str = "Volta symbolic device (sm_80)"
    major: int = 8
    minor: int = 0
    warp_size: int = 32
    max_shared_memory_per_block_optin: int = 166912
    total_memory: int = 80 << 30


def load_function(spec: str, run: Run, what: str):
    """`path.py:function` loaded with the stand-in installed (the caller keeps it installed while calling it)."""
    path, colon, name = spec.rpartition(":")
    if not colon or not path or not name.isidentifier():
        raise UsageError(f"{what} `{spec}`: expected FILE.py:FUNCTION")
    module = load_module(path, run, what)
    fn = module.__dict__.get(name)
    if not callable(fn):
        raise UsageError(f"{path} defines no function `{name}` ({what})")
    return fn


def load_module(path: str, run: Run, what: str, code=None, extra: dict | None = None) -> types.ModuleType:
    """Execute a Python file as a module (its directory importable, as `python FILE` would have it), with the
    stand-in installed by the caller. `code`: the file compiled another way (sizes instrumented)."""
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except OSError as err:
        raise UsageError(f"cannot read {what} {path}: {err.strerror}") from None
    name = "__volta_" + os.path.splitext(os.path.basename(path))[0]
    module = types.ModuleType(name)
    module.__file__ = os.path.abspath(path)
    module.__dict__.update(extra or {})
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    sys.modules[name] = module   # @triton.jit looks its function's module up
    try:
        with reporting(path, what):
            try:
                compiled = code if code is not None else compile(source, path, "exec")
            except SyntaxError as err:
                raise UsageError(f"{what} does not parse: {err.msg}", Span(path, err.lineno or 1,
                                                                            err.offset or 1)) from None
            exec(compiled, module.__dict__)
    finally:
        sys.path.remove(folder)
    return module


class reporting:
    """What user code raises, as Volta errors naming its file and line: a TorchError (the code would fail in
    torch too) is a usage error; any other exception of the user's code is UNSUPPORTED (a stand-in gap or a
    bug of the code, said as it is)."""

    def __init__(self, path: str, what: str):
        self.path, self.what = os.path.abspath(path), what

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if error is None or isinstance(error, VoltaError) or not isinstance(error, Exception):
            return False
        span = getattr(error, "span", None) or self._span(tb)
        if isinstance(error, TorchError):
            raise UsageError(f"{self.what} raised an error torch would raise: {error.message}", span) from error
        raise Unsupported(f"running {self.what} failed with {type(error).__name__}: {error}", span) from error

    def _span(self, tb) -> Span | None:
        frames = [f for f in traceback.extract_tb(tb) if os.path.abspath(f.filename) == self.path]
        if not frames:
            frames = [f for f in traceback.extract_tb(tb) if not f.filename.startswith(os.path.dirname(
                os.path.dirname(os.path.abspath(__file__))))]
        if not frames:
            return None
        last = frames[-1]
        return Span(last.filename, last.lineno or 1, (last.colno or 0) + 1)


@dataclass
class LauncherRun:
    """A launcher's return value and its launches."""

    result: object
    launches: list


def run_launcher(fn, path: str, args: list, run: Run, names: StorageNames, sms: int = DEFAULT_SMS) -> LauncherRun:
    """Call the launcher `fn` (defined in `path`) on `args` with launches captured; the stand-in of `run` must be
    installed by the caller (`with installed(run)`)."""
    capture = Capture(run, names, sms)
    with intercepted(capture), reporting(path, "the launcher"):
        result = fn(*args)
    return LauncherRun(result, capture.launches)


__all__ = ["Capture", "Launched", "LauncherRun", "StorageNames", "argument_entries", "call_site", "installed", "intercepted",
           "jit_runs_to", "load_function", "load_module", "reporting", "run_launcher"]
