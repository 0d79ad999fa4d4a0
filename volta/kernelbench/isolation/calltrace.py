"""The candidate's calls into the stand-in, recorded in its worker and replayed in Volta's process: streams first.

The worker's stream tracker (`streams.Ordering`, fed by the stand-in's allocator and the host-code observer) lives in
the interpreter the candidate's Python shares, so a candidate that runs its work on a side stream can reach it
(`type(x).__mul__.__globals__`, then `sys.modules`) and empty it: its values are right, and the worker reports no
STREAM RACE. This module takes the stream verdict away from that tracker:

- **In the worker** (`Recorder`), a trace function sees every call the candidate's own frames make into Volta's
  code (directly, or through the standard library's or a package's: the nearest frame that is neither is the
  caller; any code that is not Volta's nor the library's is the candidate's), from the moment its file runs
  (module-level streams, the constructor) to the end of call 1's forward. Each is one entry `["call", name, args, result, line]`: `name` is the stream surface's name
  (`cuda.Stream`, `cuda.stream`, `Stream.wait_stream`, `Event.record`, `StreamContext.__enter__`, ...) or
  `op:<module>:<function>` for anything else (a torch function, a tensor method or operator, a layer, an
  extension call); `args` the call's positional parameters, streams, events and stream contexts as handles
  `["h", n]` (numbered in the order the trace first returns them), plain scalars as themselves, anything else
  `["?"]`; `result` a handle or None; `line` the candidate's line. When a call that made calls into extensions
  returns, `["host", first, stop, line]` follows: those calls (`evidence.Instance.host_calls[first:stop]`), in
  the order they were made. `["forward"]` marks where call 1's forward begins.
- **In Volta's process** (`races`), the trace is checked (every field, every handle made before it is used, each
  handle a result gives back the object the replay gives back) and replayed on an `Ordering` of this process with
  the stand-in's own stream classes: each surface call made on them by name, each other call in forward made on
  a side stream counted as work there, and each extension call's host-code trace (`host.trace.parse`; its
  launches, copies, memsets, stream and event calls) fed in as the worker's observer feeds it. What is not
  ordered before forward returns is a STREAM RACE found here.

A malformed trace, or one whose replay gives back another object than it says, is REJECTED naming the entry.
Counting every non-surface call made on a side stream as work over-approximates the worker's tracker (which
counts only ops that write a new storage): it can find a race the worker did not, never miss one the trace shows.

What stays the worker's word: which calls were made. A candidate that patches the recorder itself (it is Volta's
code in its interpreter) can leave a stream call out of the trace; its values are not the trace's to decide yet
(the torch ops' values are still computed in the worker: docs/sandbox.md, "Residual risk"). The trace function
cannot be removed from the candidate's frames: `sys.settrace` and `sys.setprofile` from them are refused
(`guard.py`).
"""
from __future__ import annotations

import os
import sys

from volta.kernelbench import coverage, streams
from volta.kernelbench.host import trace as host_trace
from volta.kernelbench.isolation import guard

PLAIN = (type(None), bool, int, float, str)
VOLTA, LIBRARY, CANDIDATE = 0, 1, 2

# (module file, function qualname) -> the surface name Volta's process replays it by
SURFACE = {
    **{("streams", f"cuda_functions.<locals>.{f}"): f"cuda.{n}" for f, n in (
        ("new_stream", "Stream"), ("new_event", "Event"), ("stream", "stream"), ("current_stream", "current_stream"),
        ("default_stream", "default_stream"), ("set_stream", "set_stream"), ("synchronize", "synchronize"))},
    ("paths", "cuda_functions.<locals>.event"): "cuda.Event",
    **{("streams", f"Stream.{m}"): f"Stream.{m}" for m in (
        "synchronize", "wait_stream", "wait_event", "record_event", "query", "__enter__", "__exit__", "__eq__",
        "__hash__", "__repr__")},
    **{(mod, f"{cls}.{m}"): f"Event.{m}" for mod, cls in (("streams", "Event"), ("paths", "CudaEvent"))
       for m in ("record", "wait", "synchronize", "query", "elapsed_time")},
    **{("streams", f"StreamContext.{m}"): f"StreamContext.{m}" for m in ("__enter__", "__exit__")},
}
NO_EFFECT = {"Stream.query", "Stream.__eq__", "Stream.__hash__", "Stream.__repr__", "Event.query",
             "Event.elapsed_time"}
HANDLED = (streams.Stream, streams.Event, streams.StreamContext)


# ---------------------------------------------------------------- the worker

class Recorder:
    """Records the candidate's calls into Volta's code (see the module docstring) into `entries`. `tracing()`
    for the file and the constructor; during forward the coverage observer's trace function calls `entered`."""

    def __init__(self, record):
        self.record = record                   # evidence.Instance: its host_calls grow with each extension call
        self.entries: list = []
        self._handles: dict = {}               # id(object) -> handle
        self._held: list = []                  # the objects handled (their ids stay theirs)
        self._codes: dict = {}                 # code -> VOLTA, LIBRARY or CANDIDATE
        self._attributed = len(record.host_calls)     # extension calls already in an entry (or made before)

    def forward(self) -> None:
        self.entries.append(["forward"])

    def tracing(self):
        return _Tracing(self.entered)

    def entered(self, frame, event=None, arg=None):
        """The local trace function for `frame` when it is a call the candidate made into Volta's code (also the
        global trace function itself: every new frame comes here, so the common case returns at once)."""
        back = frame.f_back
        while back is not None:
            kind = self._codes.get(back.f_code)
            if kind is None:
                kind = self._kind(back.f_code)
            if kind != LIBRARY:
                break
            back = back.f_back
        if back is None or kind != CANDIDATE:
            return None
        code = frame.f_code
        if not code.co_filename.startswith(guard.VOLTA_DIR):
            return None
        module = os.path.splitext(os.path.basename(code.co_filename))[0]
        name = SURFACE.get((module, code.co_qualname)) or f"op:{module}:{_function(code, frame)}"
        positional = code.co_varnames[:code.co_argcount]
        values = [frame.f_locals.get(v) for v in positional]
        if code.co_flags & 0x04:                     # *args
            values += list(frame.f_locals.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount], ()))
        entry = ["call", name, [self._encoded(v) for v in values], None, back.f_lineno]
        self.entries.append(entry)
        frame.f_trace_lines = False

        def local(frame, event, arg):
            if event == "return":
                entry[3] = self._encoded(arg) if isinstance(arg, HANDLED) else None
                made = len(self.record.host_calls)
                if made > self._attributed:          # the extension calls made inside it, when it returns
                    self.entries.append(["host", self._attributed, made, entry[4]])
                    self._attributed = made
            return local
        return local

    def settle(self) -> None:
        """The extension calls made since the last entry, as one (forward returned, or stopped, here)."""
        made = len(self.record.host_calls)
        if made > self._attributed:
            self.entries.append(["host", self._attributed, made, 0])
            self._attributed = made

    def _kind(self, code) -> int:
        """VOLTA, LIBRARY (the standard library, installed packages: looked through to their caller, so that
        `ExitStack.enter_context(torch.cuda.stream(s))` is the candidate's call), or CANDIDATE: any other code
        (its file's, and code it compiled under another name), as the audit hook tells the candidate
        (`guard.culprit`)."""
        name = code.co_filename
        kind = self._codes[code] = (VOLTA if name.startswith(guard.VOLTA_DIR) else
                                    LIBRARY if name.startswith(guard.LIBRARY_DIRS) or name.startswith("<frozen ")
                                    else CANDIDATE)
        return kind

    def _encoded(self, v):
        if isinstance(v, HANDLED):
            n = self._handles.get(id(v))
            if n is None:
                n = self._handles[id(v)] = len(self._held)
                self._held.append(v)
            return ["h", n]
        if type(v) in PLAIN:
            return v
        return ["?"]


def _function(code, frame) -> str:
    """The called function's name: its qualified name, with the names a closure was made for (`_method`'s
    `__mul__`, say: every operator of the stand-in's tensor is one closure)."""
    cells = [v for c in code.co_freevars if type(v := frame.f_locals.get(c)) is str]
    return code.co_qualname + (f"[{', '.join(cells)}]" if cells else "")


class _Tracing:
    def __init__(self, entered):
        self.entered = entered

    def __enter__(self):
        self.saved = sys.gettrace()
        sys.settrace(self.entered)
        return self

    def __exit__(self, *exc):
        sys.settrace(self.saved)
        return False


# ---------------------------------------------------------------- Volta's process

class BadTrace(Exception):
    """The call trace is malformed or does not replay: `reason` names the entry."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def races(entries, host_calls: list) -> list:
    """The stream races of call 1 found by replaying `entries` here (see the module docstring): a description of
    each piece of work not ordered before forward returns. BadTrace when the trace is malformed or lies."""
    if type(entries) is not list:
        raise BadTrace("the call trace is not a list")
    ordering = streams.Ordering()
    functions = streams.cuda_functions(ordering)
    objects: list = []
    forward, last_host = False, 0
    for k, entry in enumerate(entries):
        where = f"call trace entry {k}"
        if entry == ["forward"] and not forward:
            ordering.begin()
            forward = True
            continue
        if type(entry) is list and len(entry) == 4 and entry[0] == "host" and all(type(x) is int for x in entry[1:]):
            _, first, stop, line = entry
            if not last_host <= first < stop <= len(host_calls):
                raise BadTrace(f"{where} names extension calls {first + 1}-{stop} out of order or not made")
            for n in range(first, stop):
                _host_work(ordering, host_calls[n], n, line, where)
            last_host = stop
            continue
        if not (type(entry) is list and len(entry) == 5 and entry[0] == "call" and type(entry[1]) is str
                and type(entry[2]) is list and type(entry[4]) is int):
            raise BadTrace(f"{where} is malformed")
        _, name, args, result, line = entry
        where = f"{where} (`{name}` at line {line})"
        if name.startswith("op:"):
            if result is not None:
                raise BadTrace(f"{where}: a call outside the stream surface returned a stream or event, which "
                               f"Volta's process does not replay")
            if forward and ordering.current != streams.MAIN:
                ordering.enqueue(ordering.current, f"`{name.split(':', 2)[-1]}`", None, line)
        elif name not in NO_EFFECT:
            made = _surface(name, [_resolved(a, objects, where) for a in args], functions, where)
            _result(result, made, objects, where)
    if not forward:
        raise BadTrace("the call trace does not show call 1's forward")
    return [f"{w.label} at line {w.line} on stream {w.stream[1]}" for w in ordering.unordered()]


def _surface(name: str, args: list, functions: dict, where: str):
    space, _, method = name.partition(".")
    try:
        if space == "cuda" and method in functions:
            return functions[method](*args)
        cls = {"Stream": streams.Stream, "Event": streams.Event, "StreamContext": streams.StreamContext}.get(space)
        if cls is None or not args or not isinstance(args[0], cls):
            raise BadTrace(f"{where}: no such call of the stand-in's streams")
        return getattr(cls, method)(*args)
    except (TypeError, AttributeError):
        raise BadTrace(f"{where}: its arguments are not the call's") from None


class _Opaque:
    """A value the trace does not carry (a `torch.device`, say): fine where the stand-in ignores it; where a
    stream or event is due, the replay fails on it (BadTrace)."""


def _resolved(a, objects: list, where: str):
    if type(a) in PLAIN:
        return a
    if a == ["?"]:
        return _Opaque()
    if type(a) is list and len(a) == 2 and a[0] == "h" and type(a[1]) is int and 0 <= a[1] < len(objects):
        return objects[a[1]]
    raise BadTrace(f"{where}: an argument is no value and no stream or event an earlier call made")


def _result(result, made, objects: list, where: str) -> None:
    if result is None:
        if isinstance(made, HANDLED):
            raise BadTrace(f"{where}: the trace says it returned no stream or event; here it returns one")
        return
    if not (type(result) is list and len(result) == 2 and result[0] == "h" and type(result[1]) is int):
        raise BadTrace(f"{where}: its result is malformed")
    n = result[1]
    if n == len(objects) and isinstance(made, HANDLED):
        objects.append(made)
    elif not (n < len(objects) and objects[n] is made):
        raise BadTrace(f"{where}: the trace says it returned handle {n}; here it returns another object")


def _host_work(ordering: streams.Ordering, call: dict, n: int, line: int, where: str) -> None:
    """An extension call's host-code trace, fed to the ordering as the worker's observer feeds it."""
    try:
        events = host_trace.parse(call["trace"])
    except host_trace.BadTrace as err:
        raise BadTrace(f"{where}: extension call {n + 1}'s trace is malformed ({err.message})") from None
    for ev in events:
        coverage.host_event(ordering, ev, f"extension call {n + 1} (`{call['module']}.{call['fn']}`)", None, line)
