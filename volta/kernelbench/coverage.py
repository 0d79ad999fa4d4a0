"""Who wrote what during a candidate's `forward`: the input and parameter elements it changed (and which
launch, host op or Python line changed them), and, for each output element, whether a custom kernel took
part in computing it or torch ops alone made it (the coverage table, `--require-kernel`).

`Observer` sees both sides of a run. Host events (`engine.Host` calls `before`/`after` around each event of an
extension call): the storages the event changed are diffed element by element (identity of the interned
expressions), so a launch's writes are known exactly, and the expressions a launch computed are marked as
kernel-made (those a torch op called from C++ computed, as host-op-made). Python: a line tracer on the
candidate file's own code objects diffs the watched storages (inputs and parameters) at each line, and
records the line where each tensor first appears among a frame's locals (the op that made it).

An output element *involves a custom kernel* when its expression reaches a node some launch computed;
reading an input leaf or a constant is no computation, so a kernel that only copies does not count.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

import numpy as np

from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.host import trace
from volta.kernelbench.streams import Ordering, caller_line
from volta.kernelbench.tensor import SymTensor
from volta.report.common import demangle
from volta.symbolic import expr as E

NOT_COMPUTED = (E.Op.CONST, E.Op.VAR, E.Op.BOOL, E.Op.SYM)
WRITES = (trace.Launch, trace.Copy, trace.Memset, trace.Upload, trace.Op, trace.Alloc)
STREAM_WORK = {trace.Launch: None, trace.Copy: "cudaMemcpyAsync", trace.Memset: "cudaMemsetAsync",
               trace.Upload: "cudaMemcpyAsync (from the host)"}

KERNEL, HOST_OP, TORCH, INPUT = "kernel", "torch op in host code", "torch op", "input or constant"
UNWRITTEN_ORIGIN = "never written"
KERNEL_AND_HOST_OP = "kernel, with a torch op in host code"   # e.g. at::matmul in C++, a kernel epilogue
WITH_KERNEL = (KERNEL, KERNEL_AND_HOST_OP)


def short_kernel(mangled: str) -> str:
    text = demangle(mangled) or mangled
    text = text.split("(")[0]
    return text[5:] if text.startswith("void ") else text


@dataclass
class Watched:
    """An input or parameter storage: its values before forward and who changed each element since."""

    name: str
    storage: object
    before: np.ndarray
    seen: np.ndarray                     # the values as last diffed
    writer: dict = field(default_factory=dict)    # element -> (label, file, line) of its first change


def _ids(values: np.ndarray) -> np.ndarray:
    return np.fromiter(map(id, values), np.int64, values.shape[0])


def _changed(old: np.ndarray, new: np.ndarray) -> list:
    """Elements whose value object differs (values are interned: a new object is a new value)."""
    if old.shape != new.shape:
        return list(range(new.shape[0]))
    return np.flatnonzero(_ids(old) != _ids(new)).tolist()


def host_event(ordering: Ordering, ev, label: str, file, line) -> None:
    """What one event of the host code's trace does to the streams' order: a stream or event call, or work
    enqueued on its stream (a launch, copy or memset). Shared by the worker's observer and Volta's process's
    replay of the call trace (isolation/calltrace.py)."""
    if isinstance(ev, trace.Sync):
        ordering.cpp_sync(ev.kind, ev.detail)
    elif type(ev) in STREAM_WORK and not (isinstance(ev, trace.Launch) and ev.refused):
        ordering.enqueue(ordering.cpp_stream(ev.stream), label or STREAM_WORK[type(ev)] or "a launch", file, line)


class Observer:
    def __init__(self, candidate: str, ordering: Ordering, watched: list):
        self.candidate = os.path.abspath(candidate)
        self.ordering = ordering
        self.watched = [Watched(n, s, s.values.copy(), s.values.copy()) for n, s in watched]
        self.kernel_made: set = set()
        self.host_op_made: set = set()
        self.made_at: dict = {}          # id(storage) -> line of the candidate where it first appeared
        self._snapshot: dict = {}
        self._codes: set = set()
        self._lines: dict = {}           # frame -> line last seen
        self._tracer = None
        self.recorder = None             # isolation.calltrace.Recorder: the candidate's calls, for Volta's process

    # ---- host events ----
    def before(self, host, ev) -> None:
        if isinstance(ev, WRITES):
            self._tracer, _ = sys.gettrace(), sys.settrace(None)
            self._snapshot = {id(s): (s, s.values.copy()) for s in host.memory.by_base.values()}

    def after(self, host, ev) -> None:
        file, line = caller_line()
        if isinstance(ev, trace.Sync):
            host_event(self.ordering, ev, "", file, line)
            return
        if not isinstance(ev, WRITES):
            return
        if isinstance(ev, trace.Launch):
            if ev.refused:
                sys.settrace(self._tracer)
                return
            label = f"launch {len(host.launches)}: {short_kernel(ev.kernel)}"
        elif isinstance(ev, trace.Op):
            label = f"torch op `{ev.op}` in host code"
        else:
            label = STREAM_WORK.get(type(ev)) or "an allocation in host code"
        host_event(self.ordering, ev, label, file, line)
        made = self.kernel_made if isinstance(ev, trace.Launch) else self.host_op_made \
            if isinstance(ev, trace.Op) else None
        watched = {id(w.storage): w for w in self.watched}
        for storage in host.memory.by_base.values():
            old = self._snapshot.get(id(storage))
            changed = _changed(old[1], storage.values) if old is not None else range(storage.size)
            if not changed:
                continue
            if made is not None:
                made.update(v for v in (storage.values[i] for i in changed)
                            if type(v) is E.Expr and v.op not in NOT_COMPUTED)
            w = watched.get(id(storage))
            if w is not None:
                self._note(w, changed, label, file, line)
        self._snapshot = {}
        sys.settrace(self._tracer)

    def _note(self, w: Watched, changed, label, file, line) -> None:
        for i in changed:
            w.writer.setdefault(i, (label, file, line))
        w.seen = w.storage.values.copy()

    # ---- Python lines ----
    def trace(self, namespace: dict):
        """A context manager tracing the candidate's own code (functions and methods in its namespace)."""
        self._codes = _codes_in(namespace, self.candidate)
        return _Tracing(self)

    def _global(self, frame, event, arg):
        if frame.f_code in self._codes:
            self._lines[frame] = frame.f_lineno
            return self._local
        return self.recorder.entered(frame) if self.recorder is not None else None

    def _local(self, frame, event, arg):
        if event in ("line", "return"):
            previous = self._lines.get(frame, frame.f_lineno)
            done = frame.f_lineno if event == "return" else previous
            self._python_writes(done)
            for v in list(frame.f_locals.values()) + ([arg] if event == "return" else []):
                self._made(v, done)
            self._lines[frame] = frame.f_lineno
        return self._local

    def _python_writes(self, line) -> None:
        for w in self.watched:
            changed = _changed(w.seen, w.storage.values)
            if changed:
                self._note(w, changed, f"torch op at line {line}", self.candidate, line)

    def _made(self, v, line) -> None:
        items = v if isinstance(v, (tuple, list)) else (v,)
        for t in items:
            if isinstance(t, SymTensor):
                self.made_at.setdefault(id(t.storage), line)

    # ---- results ----
    def written(self) -> list:
        """(Watched, changed elements) per watched storage whose values differ from before forward."""
        self._python_writes(None)
        return [(w, changed) for w in self.watched if (changed := _changed(w.before, w.storage.values))]

    def classify(self, values) -> list:
        """Per output element: KERNEL, KERNEL_AND_HOST_OP, HOST_OP, TORCH, INPUT or UNWRITTEN_ORIGIN."""
        memo: dict = {}
        out = []
        for v in values:
            if v is UNWRITTEN:
                out.append(UNWRITTEN_ORIGIN)
                continue
            if type(v) is not E.Expr or v.op in NOT_COMPUTED:
                out.append(INPUT)
                continue
            for node in E.postorder(v, memo):     # (a kernel computed part of it, a host torch op did)
                kernel = node in self.kernel_made or any(memo[c][0] for c in node.args)
                memo[node] = (kernel, node in self.host_op_made or any(memo[c][1] for c in node.args))
            kernel, host_op = memo[v]
            out.append(KERNEL_AND_HOST_OP if kernel and host_op else KERNEL if kernel else
                       HOST_OP if host_op else TORCH)
        return out


class _Tracing:
    def __init__(self, observer: Observer):
        self.observer = observer

    def __enter__(self):
        self.saved = sys.gettrace()
        sys.settrace(self.observer._global)
        return self.observer

    def __exit__(self, *exc):
        sys.settrace(self.saved)
        return False


def _codes_in(namespace: dict, path: str) -> set:
    """Every code object defined in the candidate file reachable from its namespace (functions, methods,
    nested functions and lambdas)."""
    stack, codes = [], set()
    for v in namespace.values():
        if isinstance(v, type):
            stack.extend(getattr(m, "__code__", None) for m in vars(v).values())
        stack.append(getattr(v, "__code__", None))
    while stack:
        code = stack.pop()
        if code is None or code in codes or os.path.abspath(code.co_filename) != path:
            continue
        codes.add(code)
        stack.extend(c for c in code.co_consts if hasattr(c, "co_filename"))
    return codes


@dataclass(frozen=True)
class Row:
    """A run of consecutive output elements with the same origin."""

    output: int
    start: int
    stop: int               # exclusive
    origin: str             # one of classify's
    line: int | None        # the candidate's line that made the output tensor, where known


def table(observer: Observer, outs: list) -> list:
    """The coverage table: for each output, its element ranges by origin."""
    rows = []
    for k, t in enumerate(outs):
        origins = observer.classify(t.values())
        line = observer.made_at.get(id(t.storage))
        start = 0
        for i in range(1, len(origins) + 1):
            if i == len(origins) or origins[i] != origins[start]:
                rows.append(Row(k, start, i, origins[start], line))
                start = i
    return rows
