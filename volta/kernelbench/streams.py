"""Streams, events and host threads of one candidate `forward`: is all its work ordered before it returns?

The caller reads the outputs on its current stream (stream `MAIN`, the legacy default stream, as KernelBench's
harness runs). Work enqueued elsewhere — a launch, copy or memset on a stream the host code made or took
from the pool, a torch op run under `with torch.cuda.stream(s)` — must be ordered before `forward` returns:
by the host waiting for it (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize,
`torch.cuda.synchronize`, `Stream.synchronize`, `Event.synchronize`) or by the caller's stream waiting for
it (an event recorded after it and waited on by MAIN, `wait_stream`). `Ordering` keeps, per stream, the set
of work items ordered before anything enqueued there next (`covers`), per event what its record captured,
and what the host has waited for; what is in neither MAIN's set nor the host's at return is a stream race.

A stream created with default flags (cudaStreamCreate) is *blocking*: the legacy default stream waits for it
before its next work, so the caller's reads are ordered after it; streams from the pool, `torch.cuda.Stream()`
and cudaStreamNonBlocking ones are not. `record_stream` only tells the caching allocator about a tensor's
use; it orders nothing and is modelled as doing nothing.

Host threads (`threading.Thread` started in forward) are deferred: `start` records the thread and `join` runs
its target then, so a thread joined before return did its work in order, and one still pending at return never
runs (its writes are missing) and is a finding. A thread a library starts for the candidate (a
`concurrent.futures` pool, whose workers wait on queues) and a process started from forward are UNSUPPORTED.
"""
from __future__ import annotations

import contextlib
import multiprocessing.process as mp_process
import os
import sys
import threading
from dataclasses import dataclass, field

from volta.errors import Unsupported

MAIN = ("main", 0)
VOLTA_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def caller_line() -> tuple:
    """(file, line) of the innermost frame outside Volta's own code: the candidate's line that did it."""
    frame = sys._getframe(1)
    while frame is not None:
        name = os.path.abspath(frame.f_code.co_filename)
        if not name.startswith(VOLTA_DIR + os.sep) and "contextlib" not in name:
            return name, frame.f_lineno
        frame = frame.f_back
    return None, None


@dataclass
class Work:
    label: str              # "launch 2: scale_kernel", "torch op", "cudaMemcpyAsync"
    stream: tuple
    file: str | None
    line: int | None


@dataclass
class Ordering:
    """Happens-before of one forward's work with respect to the caller's stream and the host."""

    work: list = field(default_factory=list)
    covers: dict = field(default_factory=dict)       # stream -> work indices ordered before its next work
    events: dict = field(default_factory=dict)       # event -> work indices its last record captured
    host: set = field(default_factory=set)           # work indices the host waited for
    blocking: set = field(default_factory=set)       # streams the legacy default stream waits for
    current: tuple = MAIN                            # the Python side's current stream
    next_id: int = 1

    def begin(self) -> None:
        """A new forward: no work yet (streams and events made earlier keep their identity)."""
        self.work, self.covers, self.events, self.host, self.current = [], {}, {}, set(), MAIN

    def new_stream(self, blocking: bool = False) -> tuple:
        self.next_id += 1
        stream = ("python", self.next_id)
        if blocking:
            self.blocking.add(stream)
        return stream

    def enqueue(self, stream: tuple, label: str, file=None, line=None) -> None:
        self.covers.setdefault(stream, set()).add(len(self.work))
        self.work.append(Work(label, stream, file, line))

    def record(self, event, stream: tuple) -> None:
        self.events[event] = set(self.covers.get(stream, ()))

    def wait_event(self, stream: tuple, event) -> None:
        self.covers.setdefault(stream, set()).update(self.events.get(event, ()))

    def wait_stream(self, stream: tuple, other: tuple) -> None:
        self.covers.setdefault(stream, set()).update(self.covers.get(other, ()))

    def sync_stream(self, stream: tuple) -> None:
        self.host.update(self.covers.get(stream, ()))

    def sync_event(self, event) -> None:
        self.host.update(self.events.get(event, ()))

    def sync_device(self) -> None:
        self.host.update(range(len(self.work)))

    def unordered(self) -> list:
        """Work not ordered before the caller's next read of the outputs."""
        main = set(self.covers.get(MAIN, ()))
        for s in self.blocking:
            main |= self.covers.get(s, set())
        return [w for i, w in enumerate(self.work) if w.stream != MAIN and i not in main and i not in self.host]

    # ---- the host code's trace (engine.Host events) ----
    def cpp_stream(self, sid: int) -> tuple:
        """A stream id of the stand-in runtime: 0 is the current stream at the call (the Python side's)."""
        return self.current if sid == 0 else ("cpp", sid)

    def cpp_sync(self, kind: str, detail: dict) -> None:
        stream = self.cpp_stream(detail.get("stream", 0)) if "stream" in detail else None
        event = ("cpp", detail.get("event"))
        if kind == "stream_create" and not (int(detail.get("flags", 0)) & 1):
            self.blocking.add(stream)
        elif kind == "stream_sync":
            self.sync_stream(stream)
        elif kind == "stream_wait":
            self.wait_event(stream, event)
        elif kind == "event_record":
            self.record(event, stream)
        elif kind == "event_sync":
            self.sync_event(event)
        elif kind == "device_sync":
            self.sync_device()


# ---- torch.cuda's streams and events on the stand-in ----
class Stream:
    def __init__(self, ordering: Ordering, key: tuple | None = None, device=None, priority: int = 0, **_):
        self._ordering = ordering
        self.key = key if key is not None else ordering.new_stream()
        self.device, self.priority = "cuda:0", priority

    def synchronize(self) -> None:
        self._ordering.sync_stream(self.key)

    def wait_stream(self, other: "Stream") -> None:
        self._ordering.wait_stream(self.key, other.key)

    def wait_event(self, event: "Event") -> None:
        self._ordering.wait_event(self.key, event.key)

    def record_event(self, event: "Event | None" = None) -> "Event":
        event = event if event is not None else Event(self._ordering)
        event.record(self)
        return event

    def query(self) -> bool:
        return True

    def __enter__(self):
        self._prev = self._ordering.current
        self._ordering.current = self.key
        return self

    def __exit__(self, *exc):
        self._ordering.current = self._prev
        return False

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream {self.key[1]} (Volta's model)>"


class Event:
    def __init__(self, ordering: Ordering, enable_timing: bool = False, blocking: bool = False, **_):
        self._ordering = ordering
        ordering.next_id += 1
        self.key = ("python-event", ordering.next_id)

    def record(self, stream: Stream | None = None) -> None:
        self._ordering.record(self.key, stream.key if stream is not None else self._ordering.current)

    def wait(self, stream: Stream | None = None) -> None:
        self._ordering.wait_event(stream.key if stream is not None else self._ordering.current, self.key)

    def synchronize(self) -> None:
        self._ordering.sync_event(self.key)

    def query(self) -> bool:
        return True

    def elapsed_time(self, other) -> float:
        return 0.0


class StreamContext:
    """`torch.cuda.stream(s)`: `s` is the current stream inside the `with` (None: no change), as torch's own
    StreamContext (a class, so that each enter and exit is a call the call trace sees: isolation/calltrace.py)."""

    def __init__(self, ordering: Ordering, stream: "Stream | None"):
        self._ordering, self.stream = ordering, stream

    def __enter__(self):
        self._prev = self._ordering.current
        if self.stream is not None:
            self._ordering.current = self.stream.key
        return self.stream

    def __exit__(self, *exc):
        self._ordering.current = self._prev
        return False


def cuda_functions(ordering: Ordering) -> dict:
    """The stream and event part of the stand-in `torch.cuda` for one run. Named functions, each one surface
    call the call trace records and Volta's process replays by its name (isolation/calltrace.py)."""

    def new_stream(device=None, priority: int = 0, **_):
        return Stream(ordering, None, device, priority)

    def new_event(enable_timing: bool = False, blocking: bool = False, **_):
        return Event(ordering, enable_timing, blocking)

    def stream(s):
        return StreamContext(ordering, s)

    def current_stream(device=None):
        return Stream(ordering, ordering.current)

    def default_stream(device=None):
        return Stream(ordering, MAIN)

    def set_stream(s):
        ordering.current = s.key

    def synchronize(device=None):
        ordering.sync_device()

    return {"Stream": new_stream, "Event": new_event, "stream": stream, "current_stream": current_stream,
            "default_stream": default_stream, "set_stream": set_stream, "synchronize": synchronize}


# ---- host threads ----
@dataclass
class PendingThread:
    thread: object
    file: str | None
    line: int | None
    ran: bool = False

    @property
    def label(self) -> str:
        target = getattr(self.thread, "_target", None)
        name = getattr(target, "__qualname__", None) or type(self.thread).__name__
        return f"threading.Thread running `{name}`"


@contextlib.contextmanager
def deferred_threads(candidate: str):
    """While the candidate's forward runs: threads its file starts are deferred to their `join` (see the module
    docstring); processes it starts are refused. Yields the list of PendingThread; threads started elsewhere
    (Volta's own) start as usual."""
    target = os.path.abspath(candidate)
    pending: list = []
    start, join, is_alive = threading.Thread.start, threading.Thread.join, threading.Thread.is_alive
    mp_start = mp_process.BaseProcess.start

    def from_candidate() -> tuple | None:
        frame = sys._getframe(2)
        return (frame.f_code.co_filename, frame.f_lineno) if os.path.abspath(frame.f_code.co_filename) == target \
            else None

    def candidate_on_stack() -> int | None:
        frame = sys._getframe(2)
        while frame is not None:
            if os.path.abspath(frame.f_code.co_filename) == target:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def deferred_start(self):
        where = from_candidate()
        if where is None:
            line = candidate_on_stack()
            if line is not None:     # a pool's worker (concurrent.futures): waits on queues, cannot be deferred
                raise Unsupported(f"the candidate's forward starts a thread through "
                                  f"{sys._getframe(1).f_code.co_filename} at line {line} (a thread pool); threads "
                                  f"not started directly by the candidate are not modelled")
            return start(self)
        pending.append(PendingThread(self, os.path.abspath(where[0]), where[1]))
        return None

    def deferred_join(self, timeout=None):
        for p in pending:
            if p.thread is self and not p.ran:
                p.ran = True
                self.run()
                return None
        if any(p.thread is self for p in pending):
            return None
        return join(self, timeout)

    def deferred_alive(self):
        for p in pending:
            if p.thread is self:
                return not p.ran
        return is_alive(self)

    def refused_start(self):
        where = from_candidate()
        if where is None:
            return mp_start(self)
        raise Unsupported(f"the candidate starts a process ({type(self).__name__}) from forward at line "
                          f"{where[1]}; work done in another process is not modelled")

    threading.Thread.start, threading.Thread.join, threading.Thread.is_alive = (deferred_start, deferred_join,
                                                                                deferred_alive)
    mp_process.BaseProcess.start = refused_start
    try:
        yield pending
    finally:
        threading.Thread.start, threading.Thread.join, threading.Thread.is_alive = start, join, is_alive
        mp_process.BaseProcess.start = mp_start
