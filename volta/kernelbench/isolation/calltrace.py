"""The candidate's calls into the stand-in, recorded in its worker and replayed in Volta's process: streams first.

The worker's stream tracker (`streams.Ordering`, fed by the stand-in's allocator and the host-code observer) lives in
the interpreter the candidate's Python shares, so a candidate that runs its work on a side stream can reach it
(`type(x).__mul__.__globals__`, then `sys.modules`) and empty it: its values are right, and the worker reports no
STREAM RACE. This module takes the stream verdict away from that tracker:

- **In the worker** (`Recorder`), a trace function sees every call the candidate's own frames make into Volta's
  code (directly, or through the standard library's or a package's: the nearest frame that is neither is the
  caller; any code that is not Volta's nor the library's is the candidate's), from the moment its file runs
  (module-level streams, the constructor) to the end of the last forward call (calls 2 and 3 after
  `["forward", k, inputs]`, for the value replay only). Each is one entry `["call", name, args, result, line]`:
  `name` is the stream surface's name
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
code in its interpreter) can leave a call out of the trace or put one in; call 1's values are replayed from the
same trace (`values.py`), so what it leaves out is left out of the outputs Volta's process decides on too. The
trace function cannot be removed from the candidate's frames: `sys.settrace` and `sys.setprofile` from them are
refused (`guard.py`).
"""
from __future__ import annotations

import contextlib
import math
import os
import sys
import threading

import numpy as np

from volta.kernelbench import coverage, streams
from volta.kernelbench.dtypes import DType
from volta.kernelbench.host import trace as host_trace
from volta.kernelbench.isolation import guard
from volta.kernelbench.tensor import SymTensor
from volta.kernelbench.torchsym.methods import Device

PLAIN = (type(None), bool, int, float, str)
VOLTA, LIBRARY, CANDIDATE, TRANSPARENT, THREAD = 0, 1, 2, 3, 4
# the stand-in's nn modules and autograd functions: their frames dispatch to the candidate's code and to ops
TRANSPARENT_FILES = {os.path.join("kernelbench", "torchsym", f) for f in ("module.py", "layers.py", "autograd.py")}

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
# the deferred host threads' surface (`streams.deferred_threads`): recorded by these names, never a call of its own
THREADS = {f"deferred_threads.<locals>.deferred_{m}": f"thread.{n}" for m, n in (
    ("start", "start"), ("join", "join"), ("alive", "is_alive"))}
THREAD_NAMES = set(THREADS.values())
NO_EFFECT = {"Stream.query", "Stream.__eq__", "Stream.__hash__", "Stream.__repr__", "Event.query",
             "Event.elapsed_time"}
HANDLED = (streams.Stream, streams.Event, streams.StreamContext)


# ---------------------------------------------------------------- the worker

class Recorder:
    """Records the candidate's calls into Volta's code (see the module docstring) into `entries`. `tracing()`
    for the file and the constructor; during forward the coverage observer's trace function calls `entered`.

    From `forward()` on, the entries also carry what the value replay needs (`isolation/values.py`): tensors as
    handles `["t", n]` (the inputs are 0..k-1; a tensor first seen gets its geometry and its storage's handle,
    and a storage first seen as an argument gets the elements it held when forward began, in `record.found`),
    the observed result of each call (its tensors as handles, its plain values), its keyword arguments, and
    only the TOP-LEVEL calls: a call made while an earlier recorded call has not returned (the candidate's
    lambda that a patched method runs, say) is part of that call, not a call of its own. Frames of the
    stand-in's modules and autograd functions (`TRANSPARENT`) are looked through as library frames are: what
    a module's forward calls is the candidate's call.

    A host thread started in forward is deferred to its `join` (`streams.deferred_threads`), where its target
    runs: `thread.start`, `thread.join` and `thread.is_alive` are recorded over a thread handle `["thread", n]`,
    and the join is no call of its own: the target's calls into the stand-in are recorded as top-level calls
    after it, in the order the worker made them (the join's frame is looked through as a module's is)."""

    def __init__(self, record, host=None, session=None):
        self.record = record                   # evidence.Instance: its host_calls grow with each extension call
        self.host, self.session = host, session
        self.entries: list = []
        self._handles: dict = {}               # id(object) -> handle
        self._held: list = []                  # the objects handled (their ids stay theirs)
        self._codes: dict = {}                 # code -> VOLTA, LIBRARY or CANDIDATE
        self._attributed = len(record.host_calls)     # extension calls already in an entry (or made before)
        self.inputs: list = []                 # forward's inputs (set by the check before forward)
        self._values = False                   # in forward: the value replay's entries
        self._open = 0                         # recorded calls that have not returned (in forward)
        self._tensors: dict = {}               # id(tensor) -> handle
        self._storages: dict = {}              # id(storage) -> storage handle
        self._kept: list = []                  # the tensors and storages handled
        self._start: dict = {}                 # id(storage) -> (storage, its elements when forward began)
        self._threads: dict = {}               # id(thread) -> thread handle
        self._objects: dict = {}               # id(stand-in object) -> object handle
        self._call = 0                         # the later call being recorded (0: call 1)
        self._quiet = False                    # a later call: the trace function is this recorder's alone

    def forward(self) -> None:
        self.entries.append(["forward"])
        if self.session is None:
            return
        self._start = {id(s): (s, s.values.copy()) for s in list(self.session.live)}
        self.record.found = []
        if self.host is not None:              # what the Python side did since the last extension call
            self.record.forward_memory = self.host._state()["memory"]
        for t in self.inputs:             # handles 0.. (Volta's process makes its own inputs)
            self._value(t, False)
        self._values = True

    def later(self, call: int, inputs: list) -> None:
        """Call `call` (2, 3) of forward begins on `inputs` (`calls.later_calls`): `["forward", call, inputs]`,
        the inputs as handles (a storage of an earlier call's input that the harness reuses keeps its handle);
        a storage first met from here on is `found` with its elements as this call began."""
        if self.session is None:
            return
        self._start = {id(s): (s, s.values.copy()) for s in list(self.session.live)}
        self.entries.append(["forward", call, [self._value(t, False) for t in inputs]])
        self._call = call
        self._values = True

    def returned(self, outputs) -> None:
        """Forward returned `outputs` (this call's value replay ends here)."""
        if self._values:
            self.entries.append(["return", [self._value(o, True) for o in outputs], self._call])
        self._values = False

    def calling(self, call: int, inputs: list, path: str):
        """The context of a later call's forward: recorded as call 1's is (its threads deferred to their join,
        the trace function on); `returned` and `settle` after it."""
        self.later(call, inputs)
        stack = contextlib.ExitStack()
        stack.enter_context(streams.deferred_threads(path))
        stack.enter_context(self.tracing())
        stack.callback(setattr, self, "_quiet", False)
        self._quiet = True
        return stack

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
            if kind == THREAD and back is frame.f_back:
                return None                      # the deferred threads' own helpers (a target runs in `Thread.run`)
            if kind != LIBRARY and not (kind in (TRANSPARENT, THREAD) and self._values):
                break
            back = back.f_back
        if back is None or kind != CANDIDATE:
            return None
        code = frame.f_code
        if not code.co_filename.startswith(guard.VOLTA_DIR):
            return None
        kind = self._codes.get(code)
        if kind is None:
            kind = self._kind(code)
        if self._values and (self._open or kind == TRANSPARENT):
            return None                          # part of a recorded call, or a module's own dispatch
        module = os.path.splitext(os.path.basename(code.co_filename))[0]
        threaded = kind == THREAD and self._values
        name = (THREADS[code.co_qualname] if threaded else
                SURFACE.get((module, code.co_qualname)) or f"op:{key_of(code, frame)}")
        positional = code.co_varnames[:code.co_argcount]
        values = [frame.f_locals.get(v) for v in positional]
        rest = code.co_argcount + code.co_kwonlyargcount
        if code.co_flags & 0x04:                     # *args
            values += list(frame.f_locals.get(code.co_varnames[rest], ()))
        keywords = {v: frame.f_locals.get(v) for v in code.co_varnames[code.co_argcount:rest]}
        if code.co_flags & 0x08:                     # **kwargs
            keywords.update(frame.f_locals.get(code.co_varnames[rest + bool(code.co_flags & 0x04)], {}))
        encoded = self._value if self._values else (lambda v, arg: self._encoded(v))
        entry = ["call", name, [encoded(v, True) for v in values], None, back.f_lineno,
                 [[k, encoded(v, True)] for k, v in keywords.items()], None]
        self.entries.append(entry)
        frame.f_trace_lines = False
        values_mode = self._values and not threaded       # a join's target: its calls are top-level calls
        if values_mode:
            self._open += 1
            if self._quiet:
                # Nothing inside a recorded call is recorded: until it returns, each new frame meets a builtin
                # that answers None (`getattr(frame, "call", None)`: no local trace) instead of `entered`, which
                # a later call's heavy stand-in ops (a Python call per element expression) would pay for at every
                # frame. This frame's own trace function still gets its return.
                sys.settrace(getattr)

        raised = []

        def local(frame, event, arg):
            if event == "exception":
                raised.append(True)
            if event == "return":
                entry[3] = self._encoded(arg) if isinstance(arg, HANDLED) else None
                if values_mode:
                    self._open -= 1
                    if self._quiet and not self._open:
                        sys.settrace(self.entered)
                if values_mode or threaded:
                    # (None after an exception: raised, or caught inside and returned None)
                    entry[6] = ["raised"] if raised and arg is None else self._value(arg, False)
                made = len(self.record.host_calls)
                if made > self._attributed:          # the extension calls made inside it, when it returns
                    self.entries.append(["host", self._attributed, made, entry[4], self._bases()])
                    self._attributed = made
            return local
        return local

    def settle(self) -> None:
        """The extension calls made since the last entry, as one (forward returned, or stopped, here)."""
        made = len(self.record.host_calls)
        if made > self._attributed:
            self.entries.append(["host", self._attributed, made, 0, self._bases()])
            self._attributed = made

    def _kind(self, code) -> int:
        """VOLTA, TRANSPARENT (the stand-in's modules and autograd functions: looked through in forward), THREAD
        (the deferred threads' start, join and is_alive: recorded, and looked through to the join's target),
        LIBRARY (the standard library, installed packages: looked through to their caller, so that
        `ExitStack.enter_context(torch.cuda.stream(s))` is the candidate's call), or CANDIDATE: any other code
        (its file's, and code it compiled under another name), as the audit hook tells the candidate
        (`guard.culprit`)."""
        name = code.co_filename
        inside = name[len(guard.VOLTA_DIR):]
        kind = self._codes[code] = (
            (TRANSPARENT if inside in TRANSPARENT_FILES else
             THREAD if inside == os.path.join("kernelbench", "streams.py") and code.co_qualname in THREADS else VOLTA)
            if name.startswith(guard.VOLTA_DIR) else
            LIBRARY if name.startswith(guard.LIBRARY_DIRS) or name.startswith("<frozen ") else CANDIDATE)
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

    def _value(self, v, argument: bool, depth: int = 0):
        """`v` for the value replay: a tensor as its handle (new: with its geometry and storage handle), plain
        values as themselves or tagged (`VALUE_TAGS`), anything else `["?"]` (a stream or event: `["h", n]`)."""
        if isinstance(v, SymTensor):
            n = self._tensors.get(id(v))
            if n is not None:
                return ["t", n]
            n = self._tensors[id(v)] = len(self._tensors)
            self._kept.append(v)
            storage = v.storage
            m = self._storages.get(id(storage))
            found = -1
            if m is None:
                m = self._storages[id(storage)] = len(self._storages)
                self._kept.append(storage)
                start = self._start.get(id(storage))
                if argument and start is not None:        # there when forward began: its elements then
                    found = len(self.record.found)
                    self.record.found.append(list(start[1]))
            return ["t", n, list(v.shape), list(v.stride()), v.offset, v.dtype.volta, m, found]
        if type(v) in PLAIN:
            return v if type(v) is not float or math.isfinite(v) else ["float", repr(v)]
        if isinstance(v, (np.bool_, np.integer, np.floating)):
            return self._value(v.item(), argument, depth)
        if isinstance(v, HANDLED):
            return self._encoded(v)
        if isinstance(v, threading.Thread):
            if id(v) not in self._threads:
                self._threads[id(v)] = len(self._threads)
                self._kept.append(v)
            return ["thread", self._threads[id(v)]]
        if depth < 3 and isinstance(v, (tuple, list)):
            return ["tuple" if isinstance(v, tuple) else "list", [self._value(x, argument, depth + 1) for x in v]]
        if isinstance(v, DType):
            return ["dtype", v.volta]
        if isinstance(v, slice):
            return ["slice", [self._value(x, argument, depth + 1) for x in (v.start, v.stop, v.step)]]
        if v is Ellipsis:
            return ["..."]
        if isinstance(v, Device):
            return ["device", v.type, v.index]
        if _stand_in(type(v)):             # a stand-in object: the run's (its `Factories`), or one the candidate made
            n = self._objects.get(id(v))
            if n is None:
                n = self._objects[id(v)] = len(self._objects)
                self._kept.append(v)
            return ["obj", type(v).__qualname__, n]
        return ["?"]

    def _bases(self) -> list:
        """[storage handle, the worker's device address] of every handled storage in the extensions' memory."""
        if self.host is None or not self._values:
            return []
        at = self.host.memory._base
        return [[m, at[i]] for i, m in self._storages.items() if i in at]


def key_of(code, cells) -> str:
    """The called function's name, as both processes compute it: its file under Volta's folder, its qualified
    name and first line, with what its closure was made over (`_method`'s `__mul__`, `_unary`'s `tanh` lambda:
    many of the stand-in's functions are closures of one code). `cells`: the frame (its locals hold the cells)
    or the cells' values."""
    if not isinstance(cells, list):
        cells = [cells.f_locals.get(c) for c in code.co_freevars]
    where = os.path.splitext(code.co_filename[len(guard.VOLTA_DIR):])[0]
    made = [_cell(v) for v in cells]
    return f"{where}:{code.co_qualname}@{code.co_firstlineno}" + (f"[{', '.join(made)}]" if made else "")


def _stand_in(cls) -> bool:
    module = cls.__dict__.get("__module__")
    return type(module) is str and module.startswith("volta.")


def _cell(v, depth: int = 0) -> str:
    if type(v) is str:
        return v
    if type(v) in PLAIN:
        return repr(v)
    if isinstance(v, DType):
        return v.volta
    code = getattr(v, "__code__", None)
    if code is not None:                       # a function: its code, and what its own closure was made over
        inner = [_cell(c.cell_contents, depth + 1) if depth < 4 and filled(c) else "?"
                 for c in (getattr(v, "__closure__", None) or ())]
        return f"{code.co_qualname}@{code.co_firstlineno}" + (f"[{', '.join(inner)}]" if inner else "")
    if callable(v) and type(getattr(v, "__name__", None)) is str:     # a builtin, a numpy ufunc, a class
        return f"{type(v).__name__}:{getattr(v, '__qualname__', v.__name__)}"
    return type(v).__name__


def filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


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
        if forward and type(entry) is list and len(entry) == 3 and entry[0] == "forward":
            break                     # a later call of forward: its values are replayed (values.py), not its streams
        if type(entry) is list and len(entry) == 3 and entry[0] == "return":
            continue                  # forward's outputs: the value replay's (values.py)
        if type(entry) is list and len(entry) == 5 and entry[0] == "host" and all(type(x) is int for x in entry[1:4]):
            _, first, stop, line, _ = entry
            if not last_host <= first < stop <= len(host_calls):
                raise BadTrace(f"{where} names extension calls {first + 1}-{stop} out of order or not made")
            for n in range(first, stop):
                _host_work(ordering, host_calls[n], n, line, where)
            last_host = stop
            continue
        if not (type(entry) is list and len(entry) == 7 and entry[0] == "call" and type(entry[1]) is str
                and type(entry[2]) is list and type(entry[4]) is int):
            raise BadTrace(f"{where} is malformed")
        _, name, args, result, line, _, _ = entry
        where = f"{where} (`{name}` at line {line})"
        if name in THREAD_NAMES:
            continue                  # a join's target: its calls follow it as top-level calls
        if name.startswith("op:"):
            if result is not None:
                raise BadTrace(f"{where}: a call outside the stream surface returned a stream or event, which "
                               f"Volta's process does not replay")
            if forward and ordering.current != streams.MAIN:
                ordering.enqueue(ordering.current, f"`{name.split(':', 2)[-1].split('@', 1)[0]}`", None, line)
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
    if type(a) is list and a and a[0] == "h":
        if len(a) == 2 and type(a[1]) is int and 0 <= a[1] < len(objects):
            return objects[a[1]]
        raise BadTrace(f"{where}: an argument is no value and no stream or event an earlier call made")
    return _Opaque()          # a tensor, a tuple, a value the trace does not carry: none is a stream or event


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
