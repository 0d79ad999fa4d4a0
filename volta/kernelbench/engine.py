"""The candidate side of a run: `load_inline`/`load` build the extension, and each call into it runs the host
code in the worker and executes the trace it returns, in order, on the run's storages.

`Host` is what the stand-in's `torch.utils.cpp_extension` calls (`run.host`). `load_inline` returns an
`ExtensionModule` whose attributes are the bound functions; calling one converts its arguments (tensors
become metadata over fake device addresses), runs the host code (`host.session.Worker`), and executes the
events: allocations become storages, memsets/copies/uploads change elements (`memory`), launches run on
Volta's machine (`kernels`), torch ops called from C++ run on the stand-in (`cpp_ops`). The returned value
comes back as tensors over those storages.

What host code raises (a failed TORCH_CHECK, a wrong argument type), and a build torch would reject too
(`host/rejects.py`: torch's "Error building extension" RuntimeError), is raised into the candidate's Python as
the exception torch would raise, so its own `try`/`except` runs as it would on a GPU. What Volta does not
model (a host read of device data, a crash, a build against the stand-in that fails where torch's might
not) stops the whole run with `Stop`, which derives from BaseException so that no `except Exception` in
candidate code can swallow it.
"""
from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field

import numpy as np

from volta.equiv.check import blocking
from volta.errors import Span, Unsupported, VoltaError
from volta.kernelbench import cpp_ops, kernels, triton_host
from volta.kernelbench import memory as M
from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.host import build, cublas, extract, rejects, trace
from volta.kernelbench.host.session import STATUS_RAISED, STATUS_RETURNED, Worker
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.triton_launch import call_site, jit_runs_to
from volta.symbolic import expr as E

PYTHON_ERRORS = {"TypeError": TypeError, "IndexError": IndexError, "ValueError": ValueError,
                 "AttributeError": AttributeError}


def candidate_error(err: Exception) -> Exception:
    """An exception torch would raise in the candidate's process (host code's TORCH_CHECK, a bad argument),
    marked so that a Volta bug is never reported as the candidate's error."""
    err.volta_candidate = True
    return err


class Stop(BaseException):
    """Ends the candidate's run with what stopped it: a VoltaError (UNSUPPORTED) or launch findings."""

    def __init__(self, error: VoltaError | None = None, findings: list | None = None):
        super().__init__(error.message if error else "findings")
        self.error = error
        self.findings = findings or []


@dataclass
class Host:
    """Everything the candidate's extensions did in one run (one per forward pass kind: symbolic, exact)."""

    candidate: str | None
    session: object                      # the stand-in Session the tensors live in
    exact: bool = False
    arch: str = "sm_80"
    memory: M.DeviceMemory = field(default_factory=M.DeviceMemory)
    built: dict = field(default_factory=dict)        # module name -> build.Built
    launches: list = field(default_factory=list)     # kernels.LaunchResult, in order
    refused: list = field(default_factory=list)      # launches CUDA would refuse: (kernel, why)
    ops: list = field(default_factory=list)          # torch ops host code called
    syncs: list = field(default_factory=list)        # stream/event/device events
    queries: list = field(default_factory=list)      # device properties or timings host code read
    builds: list = field(default_factory=list)       # rejects.BuildOutcome per load_inline/load call
    gemms: list = field(default_factory=list)        # cublas.GemmRecord per cuBLAS GEMM executed
    symbols: dict = field(default_factory=dict)      # module -> symbol -> [(offset, bytes)] host code wrote
    worker: Worker | None = None
    observer: object = None              # coverage.Observer: who wrote what, on which stream
    record: object = None                # evidence.Instance: each extension and call kept for Volta's process
    recorded: dict = field(default_factory=dict)     # base -> (dtype, elements) as last sent to `record`

    # ---- torch.utils.cpp_extension ----
    def load_inline(self, run, *args, **kwargs):
        return self._load(lambda: extract.from_load_inline(args, kwargs, self.candidate))

    def load(self, run, *args, **kwargs):
        return self._load(lambda: extract.from_load(args, kwargs, self.candidate))

    def _load(self, make):
        try:
            ext = make()
        except (extract.CandidateTypeError, ValueError) as err:   # the call itself: torch's TypeError/ValueError
            outcome = rejects.BuildOutcome(getattr(err, "name", None) or "?", False,
                                           extract.caller_site(self.candidate), str(err),
                                           exception="ValueError" if isinstance(err, ValueError) else "TypeError")
            self.builds.append(outcome)
            raise candidate_error(outcome.error()) from None
        try:
            built = build.build(ext, self.arch)
        except build.BuildFailed as err:
            if err.rejection is None:
                raise Stop(err) from None
            outcome = rejects.BuildOutcome(ext.name, False, ext.where, err.rejection.reason, err.compiler,
                                           exception=err.rejection.exception)
            self.builds.append(outcome)
            raise candidate_error(outcome.error()) from None
        except VoltaError as err:
            raise Stop(err) from None
        self.builds.append(rejects.BuildOutcome(ext.name, True, ext.where))
        try:
            if self.worker is None:
                self.worker = Worker(str(build.runtime_library()))
            self.worker.load(ext.name, str(built.library))
            for kernel, sizes in built.kernels.items():
                self.worker.set_params(ext.name, kernel, sizes)
        except VoltaError as err:
            raise Stop(err) from None
        self.built[ext.name] = built
        if self.record is not None:
            self.record.extension(ext)
        return ExtensionModule(self, ext.name, list(self.worker.loaded[ext.name]))

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    # ---- Triton ----
    def launching(self):
        """While the stand-in is installed: `kernel[grid](...)` of an imported Triton is a launch of this host."""
        if "triton.runtime.jit" not in sys.modules:
            return contextlib.nullcontext()
        return jit_runs_to(self.triton_launch, Stop)

    def triton_launch(self, fn, args: tuple, kwargs: dict, grid) -> None:
        try:
            ev = triton_host.capture(self.memory, fn, args, kwargs, grid)
        except VoltaError as err:
            file, line = call_site()
            raise Stop(Unsupported(f"Triton kernel `{fn.__name__}`: {err.message}", err.span or Span(file, line, 1))
                       ) from None
        if ev is not None:
            self.built[ev.module] = triton_host.build_of(ev)
            self._execute(ev)

    # ---- calls ----
    def call(self, module: str, fn: str, args: tuple, kwargs: dict):
        if kwargs:
            raise candidate_error(TypeError(f"{fn}(): incompatible function arguments: keyword arguments "
                                            f"({', '.join(kwargs)}) were given, and the binding declares no "
                                            f"argument names"))
        wire_args = [self._arg(a) for a in args]
        rounding = bool(getattr(self.session.precision, "rounding", False))   # the precision re-run's own memory
        before = self._state() if self.record is not None and not rounding else None
        try:
            reply = self.worker.call(module, fn, wire_args)
            events = trace.parse(reply.trace)
        except VoltaError as err:
            raise Stop(err) from None
        self.execute(events)
        if before is not None:
            self.record.host_call(module, fn, reply.trace, before, self._state())
        if reply.status == STATUS_RAISED:
            kind = PYTHON_ERRORS.get(reply.result.get("type"), RuntimeError)
            raise candidate_error(kind(reply.result.get("message", "")))
        if reply.status != STATUS_RETURNED:
            raise Stop(Unsupported(f"the host code of `{module}.{fn}` did what Volta does not model: "
                                   f"{reply.result.get('message')}"))
        try:
            return self._value(reply.result)
        except VoltaError as err:
            raise Stop(err) from None

    def _arg(self, a) -> dict:
        if a is None:
            return {"t": "none"}
        if isinstance(a, SymTensor):
            storage = a.storage
            return {"t": "tensor", "base": self.memory.address(storage), "bytes": storage.size * M.itemsize(storage),
                    "offset": a.offset, "sizes": list(a.shape), "strides": list(a.stride()),
                    "dtype": M.VOLTA_TO_TORCH[storage.dtype]}
        if isinstance(a, (bool, np.bool_)):
            return {"t": "bool", "v": bool(a)}
        if isinstance(a, (int, np.integer)):
            return {"t": "int", "v": int(a)}
        if isinstance(a, (float, np.floating)):
            return {"t": "float", "v": float(a)}
        if isinstance(a, str):
            return {"t": "str", "v": a}
        if isinstance(a, (list, tuple)):
            items = list(a)
            if items and all(isinstance(x, SymTensor) for x in items):
                return {"t": "tensors", "v": [self._arg(x) for x in items]}
            if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
                return {"t": "ints", "v": [int(x) for x in items]}
            if all(isinstance(x, (int, float, np.number)) for x in items):
                return {"t": "floats", "v": [float(x) for x in items]}
        raise candidate_error(TypeError(f"incompatible function arguments: Volta passes tensors, numbers, strings and lists of "
                        f"them to an extension, not {type(a).__name__}"))

    def _value(self, v: dict):
        kind = v.get("t") if isinstance(v, dict) else None
        if kind == "tensor":
            return cpp_ops.view(trace.tensor_ref(v), self.memory, self.session)
        if kind in ("tuple", "list"):
            items = [self._value(x) for x in v.get("items", [])]
            return tuple(items) if kind == "tuple" else items
        if kind in ("int", "float", "bool"):
            return v["v"]
        if kind == "none":
            return None
        raise trace.BadTrace(f"the worker returned {v!r}")

    def _state(self) -> dict:
        """The storages changed since the last record and the symbols host code wrote, as plain data
        (`isolation/replay.py`)."""
        return {"memory": self.memory.changed(self.recorded),
                "symbols": {m: {name: [(offset, data.hex()) for offset, data in writes]
                                for name, writes in symbols.items()} for m, symbols in self.symbols.items()}}

    # ---- events ----
    def execute(self, events: list) -> None:
        """Apply host code's events in order (a call's, or a replay's of a recorded call)."""
        for ev in events:
            self._execute(ev)

    def _execute(self, ev) -> None:
        if self.observer is not None:
            self.observer.before(self, ev)
        self._apply(ev)
        if self.observer is not None:
            self.observer.after(self, ev)

    def _apply(self, ev) -> None:
        if isinstance(ev, trace.Alloc):
            dtype = M.TORCH_TO_VOLTA[ev.tensor.dtype]
            count = ev.tensor.bytes // M.ITEMSIZE[dtype]
            values = np.empty(count, object)
            values[:] = [UNWRITTEN if ev.init == "empty" else E.const(ev.value)] * count
            label = {"empty": "torch::empty"}.get(ev.init, f"torch::full({ev.value:g})")
            self.memory.add(ev.tensor.base, self._storage(values, dtype), f"{label}#{len(self.memory.by_base)}")
        elif isinstance(ev, trace.Malloc):
            dtype = "f32" if ev.bytes % 4 == 0 else "u8"
            values = np.empty(ev.bytes // M.ITEMSIZE[dtype], object)
            values[:] = [UNWRITTEN] * values.shape[0]
            self.memory.add(ev.base, self._storage(values, dtype), f"cudaMalloc#{len(self.memory.by_base)}")
        elif isinstance(ev, trace.Free):
            self.memory.freed.add(ev.base)
        elif isinstance(ev, trace.Memset):
            M.memset(self.memory, ev.dst, ev.value, ev.bytes)
        elif isinstance(ev, trace.Copy):
            M.copy(self.memory, ev.dst, ev.src, ev.bytes)
        elif isinstance(ev, trace.Upload):
            M.upload(self.memory, ev.dst, ev.data)
        elif isinstance(ev, trace.SymbolWrite):
            if ev.data is None:
                raise Stop(Unsupported(f"host code copies device memory into the symbol `{ev.symbol}` "
                                       f"(cudaMemcpyToSymbol from the device), which is not modelled yet"))
            self.symbols.setdefault(ev.module, {}).setdefault(ev.symbol, []).append((ev.offset, ev.data))
        elif isinstance(ev, trace.Launch):
            self._launch(ev)
        elif isinstance(ev, trace.Op):
            self.ops.append(ev.op)
            try:
                cpp_ops.execute(ev, self.memory, self.session, self._storage)
            except VoltaError as err:
                raise Stop(err) from None
        elif isinstance(ev, trace.Gemm):
            try:
                self.gemms.append(cublas.execute(ev, self.memory, self.session))
            except VoltaError as err:
                raise Stop(err) from None
        elif isinstance(ev, trace.Sync):
            self.syncs.append(ev)
        elif isinstance(ev, trace.DeviceQuery):
            self.queries.append(ev.what)

    def _launch(self, ev) -> None:
        if isinstance(ev, triton_host.TritonLaunch):
            try:
                result = triton_host.execute(ev)
            except VoltaError as err:
                raise Stop(err) from None
            result.extension = ev.module
            self.launches.append(result)
            if any(map(blocking, result.findings)):   # benign kinds (a replicated store) do not stop it
                raise Stop(findings=result.findings)
            return
        if ev.refused:
            self.refused.append((ev.kernel, ev.refused))
            return
        built = self.built.get(ev.module)
        if built is None or built.ptx is None:
            raise Stop(Unsupported(f"a launch of `{ev.kernel}` from extension `{ev.module}`, whose device code "
                                   f"this run did not build"))
        try:
            result = kernels.run(ev, built, self.memory, UNWRITTEN, self.exact, self.symbols.get(ev.module, {}))
        except VoltaError as err:
            raise Stop(err) from None
        result.extension = ev.module
        self.launches.append(result)
        if result.findings:
            raise Stop(findings=result.findings)

    def _storage(self, values: np.ndarray, dtype: str):
        return self.session.allocate(values, dtype)


class ExtensionModule:
    """What `load_inline` returns: the bound functions as attributes, like the module torch imports."""

    def __init__(self, host: Host, name: str, functions: list):
        self._host, self._name, self._functions = host, name, functions

    def __getattr__(self, fn: str):
        if fn.startswith("__") or fn not in self._functions:
            raise AttributeError(f"module '{self._name}' has no attribute '{fn}'")
        host, module = self._host, self._name

        def call(*args, **kwargs):
            return host.call(module, fn, args, kwargs)
        call.__name__ = fn
        return call

    def __dir__(self):
        return list(self._functions)

    def __repr__(self) -> str:
        return f"<module '{self._name}' (a CUDA extension built by Volta)>"
