"""Volta's process replays the values of every forward call (1, 2 and 3) from the candidate's call trace: the outputs
it decides on are computed here, not sent by the worker (issue 36, docs/sandbox.md "The values, replayed").

The candidate's Python runs in its worker, in the interpreter it shares with Volta's stand-in torch: there it can
write a tensor's elements directly (`y.storage.values[:] = ...`, no call a GPU would run) or swap an op in the
method table every tensor shares, and the outputs the worker sends are then whatever it likes. The worker's
call trace (`calltrace.Recorder`) records each TOP-LEVEL call the candidate's code makes into the stand-in
during each forward call (a deferred thread's target's calls at its join), over handles: its function, its
arguments (tensors as handles, plain values), and what it returned (tensors as handles with their geometry,
the plain values the candidate observed: shapes, `.item()`, `bool(t)`, comparisons). Here, for one run's
evidence (`replay`):

1. the inputs are this process's own (the problem loaded here, `fresh_inputs`), on a fresh stand-in session
   with this process's method table; a storage the trace first meets as an argument (a parameter, a tensor
   the constructor made) is made from the elements it held when forward began (`found`: the constructor is
   the worker's word, bounded: no element of it may mention an input's leaf — a constructor runs before any
   input exists);
2. each call is resolved to this process's own function by its file, qualified name, first line and the
   strings its closure was made for (`calltrace.key_of`), and called on this process's tensors; its result
   must be what the worker observed (the same tensor handle and geometry, a view of the same storage, the same
   plain values), else REJECTED naming the call and the candidate's line;
3. a call into an extension is the recorded host-code trace executed on this process's machine
   (`replay.Machine`), after every storage of this replay that the extensions' memory holds has been checked
   against the worker's memory (the kernels read this process's values), and no other storage was changed by
   the Python side; the storages it wrote are read back from the machine;
4. forward's outputs, and its inputs after it, are this process's replay: the worker's must be the same
   elements (identical, or the same polynomial), else REJECTED; a thread started and not joined at the return
   is REJECTED (it runs on past forward);
5. calls 2 and 3 continue the same replay: each on this process's own inputs for the call (in the previous
   call's input storage where the trace says the harness reused it), the parameter leaves renamed before call
   3 in the storages taken from `found` (`calls.change_parameters`); each call's outputs, and every output
   after the last call, checked as in 4.

What is not replayed: a call that takes or returns tensors and whose function this process does not resolve to
one function of its stand-in, or whose arguments include a value the trace cannot carry (a module, a callable, a
stand-in object neither the run's own nor made by a replayed call: a constructor, `_constructed`, or a
result). The replay is then not made (`Unreplayable`), and a passing claim is
UNKNOWN naming the call (`verify._replayed`) — except where every such call is a Triton launch from Python or a
CUDA graph (`KEPT`): that run's values stay the worker's word, and the report's note names the call. Never
replayed: the plain values an extension call returns, the precision re-run. Calls that take and give no tensor
and change none are skipped by name (`SKIPPED`, `CLOCKS`: an extension's function looked up, an import, a size
global read, a clock read). Which calls were made is the worker's word (`calltrace.py`).
"""
from __future__ import annotations

import functools
import math
import sys
import types

import numpy as np

from volta.errors import VoltaError
from volta.kernelbench import calls as S
from volta.kernelbench import dtypes as D
from volta.kernelbench.hacks import same_value
from volta.kernelbench.isolation import guard
from volta.kernelbench.isolation.calltrace import PLAIN, THREAD_NAMES, filled, key_of
from volta.kernelbench.isolation.replay import Machine, Mismatch, Replayed
from volta.kernelbench.problem import collector_paused
from volta.kernelbench.tensor import SymTensor, from_array, tensor_on_storage
from volta.kernelbench.torchsym import installed, new_run
from volta.kernelbench.torchsym.methods import Device
from volta.kernelbench.torchsym.namespace import build
from volta.symbolic import expr as E
from volta.symbolic.ringform import RingForms
from volta.symbolic.search import inputs_of

EXTENSION_CALL = "kernelbench/engine:ExtensionModule.__getattr__.<locals>.call@"
SKIPPED = {"kernelbench/engine:ExtensionModule.__getattr__", "kernelbench/paths:candidate_builtins.<locals>.importer",
           "kernelbench/isolation/guard:install.<locals>.guarded_import",
           "kernelbench/sizes:SizePolicy.hooks.<locals>.sizes_hook"}
UNOBSERVED = {"kernelbench/tensor:SymTensor.data_ptr"}    # a fake address: each process's allocator its own
# the candidate's `time` (`paths.time_module`): its clocks (no argument) and `sleep` (a number) read or wait on the
# run's synthetic clock, and touch no tensor; what a clock reads is a plain value of the candidate's Python, as
# every plain argument of a later call is (the later calls are replayed with it)
CLOCKS = {"kernelbench/paths:time_module.<locals>.<lambda>.<locals>.<lambda>",
          "kernelbench/paths:time_module.<locals>.<lambda>"}


AMBIGUOUS = object()  # a key two different functions of this process's stand-in have: never replayed by it
MADE = object()      # an extension call's result: made from the machine's memory, not returned by a function here


# Calls that stay the worker's word (the run is not replayed, with a note): a Triton launch from Python (its kernel
# is compiled from the candidate's Python function, which only its worker holds) and a CUDA graph (its capture
# names placeholders by the graph object's address in the worker). Any other call not replayed makes a passing
# claim UNKNOWN (`verify._replayed`).
KEPT = ("kernelbench/triton_launch:", "kernelbench/torchsym/graphs:")
KEPT_OBJECTS = ("make_cuda_graph_class.",)


class Unreplayable(Exception):
    """The run's forward makes a call this process does not replay: the message names it and its line; `kept`:
    a call whose values stay the worker's word (KEPT), not a reason to refuse the pass."""

    def __init__(self, reason: str, kept: bool = False):
        super().__init__(reason)
        self.kept = kept


def replay(instance: dict, arch: str, built: dict, problem, frozen: bool = False) -> tuple[Replayed,
                                                                                      Unreplayable | None]:
    """Every extension call of the run replayed on this process's machine, and each forward call replayed from
    its call trace (the module docstring); (what was replayed, None) or, where forward's values could not be
    replayed, (what was, why not). Mismatch where the worker's record differs from the replay. `frozen`: the
    worker's report states that the constructor's copies of the parameters follow them on call 3."""
    machine = Machine(instance, arch, built)
    entries = instance["call_trace"]
    start = entries.index(["forward"]) if ["forward"] in entries else None
    reason = None
    if start is None:
        raise Mismatch("the call trace does not show call 1's forward")
    else:
        forward = _Forward(instance, machine, problem, frozen)
        try:
            _plan(entries[start + 1:], forward.functions, forward.objects)
        except Unreplayable as why:
            reason = why
        if reason is None:
            forward.run(entries, start)
    _rest(machine)
    return machine.done, reason


def _rest(machine: Machine) -> None:
    while machine.next < len(machine.instance["host_calls"]):
        machine.overlay()
        machine.run()


def _plan(entries: list, index: dict, objects: dict) -> None:
    """Unreplayable unless every call of forward is one this process replays (see the module docstring): the
    first call that makes a pass UNKNOWN, else the first that stays the worker's word (`kept`)."""
    call, kept, made = 1, None, set()
    for entry in entries:
        if type(entry) is list and len(entry) == 3 and entry[0] == "forward" and type(entry[1]) is int:
            call = entry[1]
        if not (type(entry) is list and entry and entry[0] == "call" and len(entry) == 7):
            continue                                  # malformed entries are the replay's to reject
        try:
            _replayable(entry, call, index, objects, made)
        except Unreplayable as why:
            if not why.kept:
                raise
            kept = kept or why
    if kept is not None:
        raise kept


def _replayable(entry: list, call: int, index: dict, objects: dict, made: set) -> None:
    """Unreplayable unless `entry` is a call this process replays. `made`: the object handles a replayed call made
    before (a constructor's `self`, a result), grown here."""
    name, args, line, keywords = entry[1], entry[2], entry[4], entry[5]
    if not (type(name) is str and name.startswith("op:")):
        return                                        # streams and events: `calltrace.races`
    key = name[3:]
    if _skipped(key, args, keywords) or key.startswith(EXTENSION_CALL):
        return
    shown = f"call {call}: `{_shown(key)}`"
    constructed = _constructed(index.get(key), args)
    if constructed is not None:
        made.add(constructed)
    own = {n for n, o in objects.items() if o is not AMBIGUOUS}
    unknown = {n for n, h in _objects_in([args, keywords]) if h not in made and n not in own}
    made |= {h for _, h in _objects_in(entry[6])}
    if unknown:
        raise Unreplayable(f"{shown} at line {line} takes a stand-in object ({sorted(unknown)[0]}) that is "
                           f"neither the run's own nor made by a call replayed before", key.startswith(KEPT) or all(
                               n.startswith(KEPT_OBJECTS) for n in unknown))
    if key not in index:
        raise Unreplayable(f"{shown} at line {line} is no function this process finds in its stand-in",
                           key.startswith(KEPT))
    if index[key] is AMBIGUOUS:
        raise Unreplayable(f"{shown} at line {line} names more than one function of this process's stand-in")
    if _opaque_in([args, keywords]):
        raise Unreplayable(f"{shown} at line {line} takes a value the call trace does not carry (a module, "
                           f"a callable)")


def _shown(key: str) -> str:
    qualname = key.split(":", 1)[-1].split("@", 1)[0]
    cells = key.split("[", 1)[1].rstrip("]") if "[" in key else ""
    named = qualname.replace(".<locals>", "")
    return f"{named}[{cells}]" if cells and len(cells) <= 60 else named


def _skipped(key: str, args=None, keywords=None) -> bool:
    """A call that takes and gives no tensor and changes none: an extension's function looked up, an import, the
    candidate's size globals read, a clock of its `time` read with plain arguments only (not replayed)."""
    name = key.split("@", 1)[0]
    return name in SKIPPED or (name in CLOCKS and type(args) is list and type(keywords) is list
                               and all(type(a) in PLAIN for a in args)
                               and all(type(p) is list and len(p) == 2 and type(p[1]) in PLAIN for p in keywords))


def _objects_in(v) -> set:
    """The (class name, handle) of every stand-in object in an encoded value."""
    if type(v) is list:
        if len(v) == 3 and v[0] == "obj" and type(v[1]) is str and type(v[2]) is int:
            return {(v[1], v[2])}
        return set().union(*(_objects_in(x) for x in v)) if v else set()
    return set()


def _constructed(fn, args) -> int | None:
    """The object handle a constructor call makes: `fn` a stand-in class's `__init__` this process resolves to its
    class (`_owner`) and `args[0]` (its `self`) an object of that class."""
    if not isinstance(fn, types.FunctionType) or fn.__name__ != "__init__" or _owner(fn) is None:
        return None
    first = args[0] if type(args) is list and args else None
    if type(first) is list and len(first) == 3 and first[0] == "obj" and first[1] == _owner(fn).__qualname__ \
            and type(first[2]) is int:
        return first[2]
    return None


def _owner(fn) -> type | None:
    """The stand-in class whose `__init__` is `fn`, found from its module by its qualified name (a class made
    inside a function, such as a run's `CUDAGraph`, is not found)."""
    path = fn.__qualname__.split(".")[:-1]
    owner = sys.modules.get(fn.__module__)
    if not path or "<locals>" in path or owner is None:
        return None
    for part in path:
        owner = getattr(owner, part, None)
    return owner if isinstance(owner, type) and owner.__dict__.get("__init__") is fn else None


def _opaque_in(v) -> bool:
    if type(v) is list:
        return v == ["?"] or any(_opaque_in(x) for x in v)
    return False


# ---------------------------------------------------------------- the functions of this process's stand-in

_MODULES: dict = {}


def _functions(run) -> tuple[dict, dict]:
    """(key (`calltrace.key_of`) -> this process's function, type name -> the one object of that stand-in class
    the torch built for `run` holds, or AMBIGUOUS): every function of Volta's kernelbench modules and their
    classes, and of the stand-in torch built for `run` (its closures and objects are that run's)."""
    if not _MODULES:
        _MODULES.update(_walk([m for n, m in list(sys.modules.items()) if n.startswith("volta.kernelbench")], {}))
    objects: dict = {}
    return {**_MODULES, **_walk(list(build(run).values()) + [run.session.methods], objects)}, objects


def _walk(roots: list, objects: dict) -> dict:
    found: dict = {}
    seen: set = set()
    stack = list(roots)
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        if isinstance(o, types.FunctionType):
            code = o.__code__
            if code.co_filename.startswith(guard.VOLTA_DIR):
                cells = [c.cell_contents if filled(c) else None for c in (o.__closure__ or ())]
                key = key_of(code, cells)
                other = found.setdefault(key, o)
                if other is not o and other is not AMBIGUOUS and not _same_closure(other, o):
                    found[key] = AMBIGUOUS
        elif isinstance(o, (staticmethod, classmethod, types.MethodType)):
            stack.append(o.__func__)
            owner = getattr(o, "__self__", None)
            if owner is not None and not isinstance(owner, type) and _volta(type(owner)):
                stack.append(owner)
        elif isinstance(o, property):
            stack += [f for f in (o.fget, o.fset) if f is not None]
        elif isinstance(o, functools.partial):
            stack.append(o.func)
        elif isinstance(o, dict):
            if len(o) < 4096:
                stack += list(o.values())
        elif isinstance(o, type):
            if _volta(o):
                stack += list(vars(o).values())
        elif isinstance(o, types.ModuleType):
            stack += list(vars(o).values())
        elif _volta(type(o)) and isinstance(getattr(o, "__dict__", None), dict):
            name = type(o).__qualname__
            objects[name] = o if objects.get(name, o) is o else AMBIGUOUS
            stack += list(vars(o).values())
    return found


def _same_closure(f, g) -> bool:
    """Two functions of one code over the same cell contents (the same objects, or equal plain values): one
    function for the replay, whichever is taken."""
    cells = list(zip(f.__closure__ or (), g.__closure__ or ()))
    return all(filled(a) and filled(b) and (a.cell_contents is b.cell_contents or (
        type(a.cell_contents) in PLAIN and a.cell_contents == b.cell_contents)) for a, b in cells)


def _volta(cls) -> bool:
    module = cls.__dict__.get("__module__")
    return type(module) is str and module.startswith("volta.")


# ---------------------------------------------------------------- the replay of forward

class _Forward:
    def __init__(self, instance: dict, machine: Machine, problem, frozen: bool = False):
        self.instance, self.machine, self.problem, self.frozen = instance, machine, problem, frozen
        self.run_ = new_run()
        self.session = self.run_.session
        self.functions, self.objects = _functions(self.run_)
        self.tensors: list = []            # handle -> this process's tensor
        self.storages: list = []           # storage handle -> this process's storage
        self.known: set = set()            # id of each storage in `storages`
        self.base_of: dict = {}            # storage handle -> the worker's device address
        self.handle_of: dict = {}          # device address -> storage handle
        self.forms = RingForms()
        self.threads: dict = {}            # thread handle -> (the line that started it, whether joined)
        self.handles: dict = {}            # object handle -> this replay's stand-in object
        self.found_storages: list = []     # the storages made from the worker's `found` elements
        self.returned: dict = {}           # call -> its outputs in this replay
        self.input_storages: list = []     # the storages of the current call's inputs
        self.inputs = [from_array(t.values().reshape(tuple(t.shape)), t.dtype, self.session)
                       if isinstance(t, SymTensor) else t for t in problem.fresh_inputs()]
        self.banned = {n + S.suffix(c) for n in S._input_leaves(problem) for c in range(1, S.CALLS + 1)}

    def run(self, entries: list, start: int) -> None:
        machine, instance = self.machine, self.instance
        before = [e for e in entries[:start] if type(e) is list and e and e[0] == "host"]
        constructed = before[-1][2] if before and type(before[-1][2]) is int else 0
        while machine.next < constructed:         # the constructor's extension calls, as recorded
            machine.overlay()
            machine.run()
        if instance["forward_memory"] is not None:
            machine.overlay(instance["forward_memory"])
        for t in self.inputs:
            if isinstance(t, SymTensor):
                self._new(t, "an input")
        self.input_storages = [t.storage for t in self.inputs if isinstance(t, SymTensor)]
        with installed(self.run_), collector_paused():
            k = self._forward(entries, start + 1, 1)
            for call in range(2, S.CALLS + 1):
                if call not in instance["calls"]:
                    break                          # the worker made no such call (its report says why)
                marker = entries[k] if k < len(entries) else None
                if not (type(marker) is list and len(marker) == 3 and marker[:2] == ["forward", call]
                        and type(marker[2]) is list):
                    raise Mismatch(f"call {call}: the worker sent its outputs, and the call trace does not show its "
                                   f"forward where call {call - 1}'s ends (call trace entry {k})")
                if call == S.PARAMETERS_CHANGE:
                    self._parameters_change(call)
                self._later_inputs(call, marker[2])
                k = self._forward(entries, k + 1, call)
            self._after_calls()

    def _forward(self, entries: list, k: int, call: int) -> int:
        """Call `call`'s forward replayed from entry `k` to its return, its outputs checked against the ones the
        worker sent; the entry after its return."""
        returned = None
        while k < len(entries):
            entry = entries[k]
            k += 1
            where = f"call trace entry {k - 1}"
            if type(entry) is list and len(entry) == 3 and entry[0] == "return":
                returned = entry
                break
            if not (type(entry) is list and len(entry) == 7 and entry[0] == "call" and type(entry[1]) is str
                    and type(entry[2]) is list and type(entry[4]) is int and type(entry[5]) is list):
                raise Mismatch(f"{where} of call {call}'s forward is malformed"
                               if not (type(entry) is list and entry and entry[0] == "host") else
                               f"{where}: extension calls made inside another call of the candidate's "
                               f"(no top-level call of its makes them)")
            _, name, args, _, line, keywords, out = entry
            if name in THREAD_NAMES:
                self._thread(name, args, out, line, f"{where} (`{name}` at line {line})")
                continue
            if not name.startswith("op:"):
                continue
            key = name[3:]
            where = f"call {call}: `{_shown(key)}` at line {line}"
            if _skipped(key, args, keywords):
                continue
            if key.startswith(EXTENSION_CALL):
                if k >= len(entries) or not (type(entries[k]) is list and len(entries[k]) == 5
                                             and entries[k][0] == "host"):
                    raise Mismatch(f"{where}: an extension call with no recorded host-code trace after it")
                self._extension(entries[k], args, keywords, out, where)
                k += 1
                continue
            self._call(self.functions[key], args, keywords, out, where, key.split("@", 1)[0] in UNOBSERVED)
        if returned is None or returned[2] != (0 if call == 1 else call):
            raise Mismatch(f"call {call}: the call trace does not show forward's return")
        running = [line for line, joined in self.threads.values() if not joined]
        if running:
            raise Mismatch(f"call {call}: the thread started at line {running[0]} is still running when forward "
                           f"returns (Volta's process reads the call trace: no join), so its writes race the "
                           f"caller's reads")
        self._outputs(returned[1], call)
        return k

    def _parameters_change(self, call: int) -> None:
        """The harness's new parameters (`calls.change_parameters`, as a new state dict writes them): fresh
        parameter leaves in each storage this replay took from the worker as held before forward (`found`) that
        holds a parameter's leaves in order (the parameter itself), and in the others that mention one (the
        constructor's copies: transposed, folded) only where the worker's report states the assumption that they
        follow (`frozen`, as the worker's `later_calls` makes them follow): without it they keep the old values,
        as on a GPU. A storage first met later is found with the worker's elements as that call began."""
        leaves = set(self.problem.parameters) | {n for n in self.instance["parameters"] if type(n) is str}
        S.change_parameters([s for s in self.found_storages if self.frozen or _a_parameter(s.values, leaves)],
                            leaves, call)

    def _later_inputs(self, call: int, encoded: list) -> None:
        """Call `call`'s inputs: this process's own (`calls.reference_inputs`: every input leaf renamed for the
        call), each in a new storage. Where the trace says the harness reused the previous call's input storage
        (the worker's `calls.candidate_inputs`: the allocator handing a freed address out again), the storage
        handle names the new storage from here on, and the tensors made before keep the old one: reuse is right
        only where nothing still refers to the old tensor, and the worker judges that only by what the module
        holds (a candidate that keeps call 1's input in a global reads call 2's values there in the worker, and
        stale ones on a GPU, where the tensor is alive and its memory not reused): so a replay without reuse is
        always one a GPU can run, and a candidate that reads an old input gets call 1's values here."""
        fresh = S.reference_inputs(self.problem, call)
        if len(encoded) != len(fresh):
            raise Mismatch(f"call {call}: the call trace's inputs are not the problem's")
        previous, self.input_storages = self.input_storages, []
        where = f"call {call}: an input"
        for j, (e, t) in enumerate(zip(encoded, fresh)):
            if not isinstance(t, SymTensor):
                if not _equal(t, e):
                    raise Mismatch(f"{where} is {e!r} in the call trace; the problem's is {t!r}")
                continue
            values = t.values().copy()
            if not (type(e) is list and len(e) == 8 and e[0] == "t" and e[1] == len(self.tensors)
                    and e[2] == list(t.shape) and e[3] == list(t.stride()) and e[4] == 0 and e[5] == t.dtype.volta
                    and type(e[6]) is int and e[7] == -1):
                raise Mismatch(f"{where} is not the problem's input {j} in the call trace")
            m = e[6]
            if m < len(self.storages):
                storage = self.storages[m]
                if not (any(storage is s for s in previous) and storage.size == len(values)
                        and storage.dtype == t.storage.dtype):
                    raise Mismatch(f"{where}: the call trace puts it in a storage that held no input of call "
                                   f"{call - 1}")
                storage = self.storages[m] = self.session.allocate(values, t.storage.dtype)
                self.known.add(id(storage))
            elif m == len(self.storages):
                storage = self.session.allocate(values, t.storage.dtype)
                self._storage(storage)
            else:
                raise Mismatch(f"{where}: its storage is malformed")
            self.input_storages.append(storage)
            self.tensors.append(tensor_on_storage(storage, tuple(t.shape), self.session, t.stride(), 0))

    def _thread(self, name: str, args: list, out, line: int, where: str) -> None:
        """A deferred host thread's start, join or is_alive (`streams.deferred_threads`): the target's calls,
        made at the join, follow as top-level calls; here only which threads run is followed."""
        if not (args and type(args[0]) is list and len(args[0]) == 2 and args[0][0] == "thread"
                and type(args[0][1]) is int):
            raise Mismatch(f"{where}: its thread is malformed")
        n = args[0][1]
        if name == "thread.start":
            if n in self.threads:
                raise Mismatch(f"{where}: the thread is started twice")
            self.threads[n] = (line, False)
        elif name == "thread.join" and n in self.threads:
            self.threads[n] = (self.threads[n][0], True)
        elif name == "thread.is_alive" and n in self.threads and out != (not self.threads[n][1]):
            raise Mismatch(f"{where}: the candidate observed {out!r}; Volta's replay of the call trace gives "
                           f"{not self.threads[n][1]}")

    # ---- one call ----
    def _call(self, fn, args: list, keywords: list, out, where: str, unobserved: bool) -> None:
        made = _constructed(fn, args)
        if made is not None and made not in self.handles:      # a constructor: its `self` made here
            cls = _owner(fn)
            self.handles[made] = cls.__new__(cls)
        positional = [self._argument(a, where) for a in args]
        named = {}
        for pair in keywords:
            if not (type(pair) is list and len(pair) == 2 and type(pair[0]) is str):
                raise Mismatch(f"{where}: its keyword arguments are malformed")
            named[pair[0]] = self._argument(pair[1], where)
        try:
            value = fn(*positional, **named)
        except (Exception, VoltaError) as err:       # the worker's returned: the same call here must too
            if out == ["raised"]:
                return                               # it raised there too (and the candidate caught it)
            raise Mismatch(f"{where}: Volta's replay of the call raises {type(err).__name__} "
                           f"({getattr(err, 'message', None) or err}), where the worker's returned") from None
        if not unobserved and not (out == ["raised"] and value is None):
            self._result(out, value, where)

    def _extension(self, host: list, args: list, keywords: list, out, where: str) -> None:
        _, first, stop, _, bases = host
        machine = self.machine
        if not (type(first) is int and type(stop) is int and first == machine.next and first < stop
                <= len(self.instance["host_calls"]) and type(bases) is list):
            raise Mismatch(f"{where}: its extension calls are not the next recorded ones")
        for a in args + [p[1] for p in keywords if type(p) is list and len(p) == 2]:
            self._argument(a, where)                     # storages first met here are made before the call
        for pair in bases:
            if not (type(pair) is list and len(pair) == 2 and all(type(x) is int for x in pair)):
                raise Mismatch(f"{where}: its storages' addresses are malformed")
            m, base = pair
            if self.base_of.setdefault(m, base) != base or self.handle_of.setdefault(base, m) != m:
                raise Mismatch(f"{where}: the trace gives storage {m} two addresses, or two storages one")
        while machine.next < stop:
            n = machine.next + 1
            for base, _, _, _ in machine.overlay():
                if base not in self.handle_of:
                    raise Mismatch(f"{where}: before extension call {n}, the worker's memory at {base:#x} was "
                                   f"changed by no call of the candidate's that Volta's process replays")
            self._check_memory(f"{where}: before extension call {n}")
            machine.run()
            for m, base in self.base_of.items():          # what the kernels wrote, read back
                mine, theirs = self._mine(m), machine.memory.by_base.get(base)
                if mine is not None and theirs is not None:
                    mine.values[:] = theirs.values
        self._result(out, MADE, where)

    def _check_memory(self, where: str) -> None:
        memory = self.machine.memory
        for m, base in self.base_of.items():
            mine, theirs = self._mine(m), memory.by_base.get(base)
            if mine is None or theirs is None:
                continue
            if mine.size != theirs.size or mine.dtype != theirs.dtype:
                raise Mismatch(f"{where}: `{memory.name(theirs)}` has another type or size in the worker's memory "
                               f"than in Volta's replay")
            # (named only for the message: naming a storage is remembered by the memory, and changes its launches')
            self._same(theirs.values, mine.values, lambda: f"{where}: `{memory.name(theirs)}`", "the worker's memory")

    def _mine(self, m: int):
        return self.storages[m] if m < len(self.storages) else None

    # ---- values ----
    def _argument(self, a, where: str):
        if type(a) in PLAIN:
            return a
        if type(a) is not list or not a or type(a[0]) is not str:
            raise Mismatch(f"{where}: an argument is malformed")
        tag = a[0]
        if tag == "t":
            return self._tensor(a, where, None)
        if tag in ("tuple", "list") and len(a) == 2 and type(a[1]) is list:
            items = [self._argument(x, where) for x in a[1]]
            return tuple(items) if tag == "tuple" else items
        return self._plain(a, where)

    def _plain(self, a, where: str):
        tag = a[0]
        if tag == "float" and len(a) == 2 and type(a[1]) is str and a[1] in ("inf", "-inf", "nan"):
            return float(a[1])
        if tag == "dtype" and len(a) == 2 and a[1] in D.BY_VOLTA:
            return D.BY_VOLTA[a[1]]
        if tag == "slice" and len(a) == 2 and type(a[1]) is list and len(a[1]) == 3:
            return slice(*(self._argument(x, where) for x in a[1]))
        if a == ["..."]:
            return Ellipsis
        if tag == "device" and len(a) == 3 and type(a[1]) is str and (a[2] is None or type(a[2]) is int):
            return Device(a[1], a[2])
        if tag == "obj" and len(a) == 3 and type(a[2]) is int and a[2] in self.handles:
            return self.handles[a[2]]
        if tag == "obj" and len(a) == 3 and type(a[2]) is int and self.objects.get(a[1], AMBIGUOUS) is not AMBIGUOUS:
            self.handles[a[2]] = self.objects[a[1]]           # the run's own (its `Factories`)
            return self.objects[a[1]]
        if tag == "h" and len(a) == 2 and type(a[1]) is int:
            return _Handle()
        raise Mismatch(f"{where}: an argument is no value Volta's process rebuilds")

    def _tensor(self, a: list, where: str, value):
        """The tensor of handle `a` (`value`: the replay's result, checked against it — False where the replay
        gave None —; None: an argument or an extension's result, made here)."""
        if len(a) == 2 and type(a[1]) is int:
            n = a[1]
            if not 0 <= n < len(self.tensors):
                raise Mismatch(f"{where}: tensor handle {n} names no tensor an earlier call gave")
            if value is not None and value is not self.tensors[n]:
                raise Mismatch(f"{where}: the worker's call returned tensor {n}; Volta's replay returns another")
            return self.tensors[n]
        if not (len(a) == 8 and a[1] == len(self.tensors) and _ints(a[2]) and _ints(a[3]) and type(a[4]) is int
                and a[5] in D.BY_VOLTA and type(a[6]) is int and 0 <= a[6] <= len(self.storages)
                and type(a[7]) is int):
            raise Mismatch(f"{where}: a tensor of the trace is malformed")
        _, n, shape, strides, offset, dtype, m, found = a
        if value is not None:
            if value is False or not isinstance(value, SymTensor):
                raise Mismatch(f"{where}: the worker's call returned a tensor; Volta's replay returns "
                               f"{type(value).__name__}")
            geometry = (list(value.shape), list(value.stride()), value.offset, value.dtype.volta)
            if geometry != (shape, strides, offset, dtype):
                raise Mismatch(f"{where}: the worker's call returned a tensor of shape {shape}, strides {strides}, "
                               f"offset {offset} and type {dtype}; Volta's replay returns "
                               f"{geometry[0]}, {geometry[1]}, {geometry[2]}, {geometry[3]}")
            if m < len(self.storages):
                if value.storage is not self.storages[m]:
                    raise Mismatch(f"{where}: the worker's result is a view of storage {m}; Volta's replay's is not")
            elif id(value.storage) in self.known or found != -1:
                raise Mismatch(f"{where}: the worker's result has a new storage; Volta's replay's is not new")
            else:
                self._storage(value.storage)
            return self._new(value, None)
        if m < len(self.storages):
            storage = self.storages[m]
        elif found >= 0:
            storage = self._found(found, dtype, where)
        elif m in self.base_of and self.base_of[m] in self.machine.memory.by_base:   # an extension's result
            theirs = self.machine.memory.by_base[self.base_of[m]]
            storage = self.session.allocate(theirs.values.copy(), theirs.dtype)
            self._storage(storage)
        else:
            raise Mismatch(f"{where}: a tensor that no call Volta's process replays made (the candidate's Python "
                           f"made it in forward by another way)")
        try:
            t = tensor_on_storage(storage, shape, self.session, strides, offset)
        except ValueError as err:
            raise Mismatch(f"{where}: a tensor of the trace does not fit its storage ({err})") from None
        if t.dtype.volta != dtype:
            raise Mismatch(f"{where}: a tensor of the trace has another type than its storage")
        return self._new(t, None)

    def _found(self, found: int, dtype: str, where: str):
        elements = self.instance["found"]
        if found >= len(elements):
            raise Mismatch(f"{where}: a storage found in forward whose elements the worker did not send")
        values = np.empty(len(elements[found]), object)
        values[:] = elements[found]
        for v in values:
            if type(v) is E.Expr and any(leaf.op is E.VAR and leaf.data[0] in self.banned for leaf in inputs_of(v)):
                raise Mismatch(f"{where}: a tensor held before forward began mentions an input "
                               f"({leaf_shown(v, self.banned)}); no constructor computes from an input")
        storage = self.session.allocate(values, dtype)
        self._storage(storage)
        self.found_storages.append(storage)
        return storage

    def _storage(self, storage) -> None:
        self.storages.append(storage)
        self.known.add(id(storage))

    def _new(self, t: SymTensor, what) -> SymTensor:
        if what is not None:               # an input: its storage is handled with it
            self._storage(t.storage)
        self.tensors.append(t)
        return t

    def _result(self, out, value, where: str) -> None:
        """The call's result here (`value`; MADE for an extension's, made from the machine: its plain values are
        the worker's word) against what the worker observed (`out`)."""
        if type(out) in PLAIN:
            if value is not MADE and not _equal(value, out):
                raise Mismatch(f"{where}: the candidate observed {out!r}; Volta's replay of the call gives "
                               f"{_brief(value)}")
            return
        if type(out) is not list or not out or type(out[0]) is not str:
            raise Mismatch(f"{where}: its result is malformed")
        tag = out[0]
        if tag == "t":
            self._tensor(out, where, None if value is MADE else value if value is not None else False)
        elif tag in ("tuple", "list") and len(out) == 2 and type(out[1]) is list:
            if value is MADE:
                for x in out[1]:
                    self._result(x, MADE, where)
                return
            if not isinstance(value, (tuple, list)) or len(value) != len(out[1]):
                raise Mismatch(f"{where}: the worker's call returned {len(out[1])} values; Volta's replay gives "
                               f"{_brief(value)}")
            for x, v in zip(out[1], value):
                self._result(x, v, where)
        elif tag == "obj" and len(out) == 3 and type(out[1]) is str and type(out[2]) is int:
            if value is MADE:
                return
            known = self.handles.setdefault(out[2], value)
            if known is not value or type(value).__qualname__ != out[1]:
                raise Mismatch(f"{where}: the worker's call returned stand-in object {out[2]} ({out[1]}); Volta's "
                               f"replay returns {_brief(value)}")
        elif out == ["?"] or tag == "h":
            return                          # a value the trace does not carry: a bound method, a module
        elif value is not MADE:
            expected = self._plain(out, where)
            if not (_equal(value, expected) or (isinstance(value, Device) and str(value) == str(expected))):
                raise Mismatch(f"{where}: the candidate observed {expected!r}; Volta's replay of the call gives "
                               f"{_brief(value)}")

    def _outputs(self, encoded, call: int) -> None:
        """Call `call`'s outputs (and, after call 1, its inputs): this process's replay; the worker's must agree."""
        sent = self.instance["calls"].get(call)
        if type(encoded) is not list or sent is None or len(encoded) != len(sent):
            raise Mismatch(f"call {call}: the call trace's outputs are not the outputs the worker sent")
        mine_all = self.returned[call] = []
        for k, (e, o) in enumerate(zip(encoded, sent)):
            mine = self._argument(e, f"call {call}: output {k}")
            mine_all.append(mine)
            if not isinstance(mine, SymTensor):
                if o is not None:
                    raise Mismatch(f"call {call}: output {k} is a tensor in the worker's outputs and not in Volta's "
                                   f"replay of the candidate's calls")
                continue
            if o is None or tuple(o[0]) != tuple(mine.shape) or o[1] != mine.dtype.volta:
                raise Mismatch(f"call {call}: output {k} has another shape or type in the worker's outputs than in "
                               f"Volta's replay of the candidate's calls")
            self._same(o[2], mine.values(), f"call {call}: output {k}", "the outputs the worker sent")
        if call != 1:
            return
        for (name, t) in zip(self.problem.input_names, self.inputs):
            theirs = self.instance["inputs"].get(name)
            if isinstance(t, SymTensor) and theirs is not None:
                self._same(theirs, t.values(), f"call 1: input `{name}` after forward", "the worker's reading")

    def _after_calls(self) -> None:
        """Each call's outputs read again once the last call returned (OUTPUT ALIASED is judged on these): the
        worker's reading must be this replay's."""
        for call, mine in self.returned.items():
            for k, (t, o) in enumerate(zip(mine, self.instance["calls"][call])):
                if isinstance(t, SymTensor) and o is not None and o[3] is not None:
                    self._same(o[3], t.values(), f"call {call}: output {k} after the last call",
                               "the worker's reading")

    def _same(self, theirs, mine, what, whose: str) -> None:
        """`what`: the elements' name, or a function giving it."""
        if len(theirs) != len(mine):
            raise Mismatch(f"{_said(what)} has {len(theirs)} elements in {whose} and {len(mine)} in Volta's replay")
        for i, (a, b) in enumerate(zip(theirs, mine)):
            if a is not b and not same_value(self.forms, a, b):
                raise Mismatch(f"{_said(what)} element {i} is {_brief(a)} in {whose}, where Volta's replay of the "
                               f"candidate's calls computes {_brief(b)}")


def _said(what) -> str:
    return what() if callable(what) else what


class _Handle:
    """A stream or event as an argument of a replayed call (`record_stream(s)`): it orders work and changes no
    value; a call that needs more of it raises here, and is REJECTED as a call that does not replay."""


def _a_parameter(values, leaves: set) -> bool:
    """Whether elements are one parameter's leaves in order (`w[0], w[1], ...`): the parameter's own storage (a
    copy of it made by the constructor reads the same; where one is kept outside the module, it follows here,
    and on a GPU it does not: docs/sandbox.md)."""
    first = values[0] if len(values) else None
    if not (type(first) is E.Expr and first.op is E.VAR and first.data[0] in leaves):
        return False
    name = first.data[0]
    return all(type(v) is E.Expr and v.op is E.VAR and v.data == (name, i) for i, v in enumerate(values))


def _ints(v) -> bool:
    return type(v) is list and all(type(x) is int for x in v)


def _equal(value, expected) -> bool:
    """A plain value the replay gives against the one the candidate observed (numbers by value)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is expected:
        return True
    if type(value) not in (bool, int, float, str, slice, type(None)):
        return False
    if isinstance(value, float) and isinstance(expected, float) and math.isnan(value) and math.isnan(expected):
        return True
    return type(expected) in (bool, int, float, str, slice, type(None)) and value == expected


def leaf_shown(v, banned: set) -> str:
    leaf = next(x for x in inputs_of(v) if x.op is E.VAR and x.data[0] in banned)
    return f"{leaf.data[0]}[{leaf.data[1]}]"


def _brief(value) -> str:
    text = str(value) if not isinstance(value, SymTensor) else f"a tensor of shape {list(value.shape)}"
    return text if len(text) <= 80 else text[:77] + "..."
