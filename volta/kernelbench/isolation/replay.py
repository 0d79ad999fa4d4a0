"""Volta's process replays the candidate's calls into its extensions on its own machine, from the source text.

In the worker, Volta's machine executes the candidate's kernels in the interpreter the candidate's Python shares:
a candidate can reach the machine there (`type(x).__mul__.__globals__`, then `sys.modules`) and make a launch
leave whatever it likes in memory — the reference's expressions over a kernel that computes something else.
So the worker records each call into an extension (`evidence.Instance.host_calls`): the trace its host code
returned (launches, allocations, copies, memsets, uploads, symbol writes, torch ops and GEMMs from C++: the
program), the storages the Python side changed before it and those it changed, and the written symbols. Here,
for each recorded call:

1. the extension's PTX is looked up by the recorded source text and flags in Volta's content-keyed build
   cache (`host.build.build(..., run_compiler=False)`: the flags may name any program, so no compiler runs here;
   a build the cache lacks is UNKNOWN), so the PTX that runs is the compile of the candidate's source, never
   PTX or parameter sizes the worker sends;
2. the trace is parsed and checked as any trace from host code (`host.trace.parse`) and executed from the
   memory before, by this process's `engine.Host` on its own machine (`kernels.run`, `cpp_ops`, `cublas`);
3. every storage the call changed, in the worker's record or in the replay here, must hold the same elements
   in both: the same expression (interned here, so structurally equal meets as identical), else the same
   polynomial (`RingForms`). Anything else is a contradiction: "the worker's machine left X in `buffer`
   element i, where Volta's own replay of the call computes Y".

The memory is kept across the calls of a run, here as in the worker: each record carries only the storages
changed since the previous one (what the Python side did in between, and new storages: `DeviceMemory.changed`)
and those its call changed, so the evidence grows with the work, not with the calls times the memory. Calls
of the precision re-run (narrow values rounded, `--atol/--rtol`) are not recorded: their rounding is the
worker's session's mode. Triton launches are not recorded (they are no extension call). What links a call's
memory to the candidate's outputs — the torch ops of its Python between calls — is still the worker's word
(docs/sandbox.md).
"""
from __future__ import annotations

from dataclasses import dataclass

from volta.errors import VoltaError
from volta.kernelbench.engine import Host, Stop
from volta.kernelbench.evidence import EXTENSION_FIELDS
from volta.kernelbench.hacks import same_value
from volta.kernelbench.host import build, trace
from volta.kernelbench.host.extract import Extension
from volta.kernelbench.memory import DeviceMemory
from volta.kernelbench.torchsym import new_run
from volta.symbolic.ringform import RingForms


class Mismatch(Exception):
    """The replay here does not give what the worker recorded (or cannot be made): `reason` says where;
    `verdict` "unknown" where this process could not replay and nothing is claimed either way."""

    def __init__(self, reason: str, verdict: str = "rejected"):
        super().__init__(reason)
        self.reason, self.verdict = reason, verdict


@dataclass
class Replayed:
    calls: int = 0          # calls into extensions replayed
    launches: int = 0       # kernel launches among them, executed here


def replay(instance: dict, arch: str, built: dict) -> Replayed:
    """Replay every recorded call of one run's evidence (`wire.read_evidence`'s record), in order, on one memory
    kept here; Mismatch if one differs. `built`: extensions already looked up here, by name (shared between
    the runs of one decision)."""
    machine = Machine(instance, arch, built)
    while machine.next < len(instance["host_calls"]):
        machine.overlay()
        machine.run()
    return machine.done


class Machine:
    """The run's extension calls replayed one by one (`overlay`, then `run`), so that the value replay
    (`values.py`) can check and feed the memory between the Python side's part and each call."""

    def __init__(self, instance: dict, arch: str, built: dict):
        self.instance, self.arch, self.built = instance, arch, built
        self.done = Replayed()
        self.session = new_run().session
        self.memory = DeviceMemory()
        self.next = 0               # the next recorded call to replay

    def overlay(self, state: list | None = None) -> list:
        """What the Python side did before the next call (or `state`), put in the memory; those storages."""
        if state is None:
            state = self.instance["host_calls"][self.next]["before"]["memory"]
        self.memory.overlay(state, self.session.allocate)
        return state

    def run(self) -> None:
        """The next recorded call, executed here from the memory as it is; Mismatch if it differs."""
        k, call = self.next + 1, self.instance["host_calls"][self.next]
        label = f"extension call {k} (`{call['module']}.{call['fn']}`)"
        try:
            events = trace.parse(call["trace"])
        except trace.BadTrace as err:
            raise Mismatch(f"{label}: the recorded trace is malformed ({err.message})") from None
        memory = self.memory
        modules = sorted({ev.module for ev in events if isinstance(ev, trace.Launch) and not ev.refused})
        host = Host(None, self.session, arch=self.arch, memory=memory,
                    built={m: _built(m, self.instance["extensions"], self.arch, self.built, label) for m in modules},
                    symbols=_symbols(call["before"]["symbols"]))
        kept = {base: (s.dtype, list(s.values)) for base, s in memory.by_base.items()}
        try:
            host.execute(events)
        except Stop as stop:
            if stop.error is None:
                found = stop.findings[0]
                raise Mismatch(f"{label}: Volta's own machine finds {found.kind} in `{host.launches[-1].kernel}` "
                               f"({found.message}), which the worker's did not report") from None
            raise Mismatch(f"{label}: its replay here stopped where the worker's did not ({stop.error.message})"
                           ) from None
        except VoltaError as err:
            raise Mismatch(f"{label}: its replay here stopped where the worker's did not ({err.message})") from None
        _same_changes(memory, kept, call["after"]["memory"], label)
        self.next += 1
        self.done.calls += 1
        self.done.launches += len(host.launches)


def _built(module: str, extensions: dict, arch: str, built: dict, label: str):
    """The extension `module` built here from its recorded sources (once per decision)."""
    if module not in built:
        fields = extensions.get(module)
        if fields is None:
            raise Mismatch(f"{label}: it launches a kernel of extension `{module}`, whose sources the worker did "
                           f"not send")
        try:
            ext = Extension(**{k: fields[k] for k in EXTENSION_FIELDS})
            built[module] = build.build(ext, arch, run_compiler=False)
        except build.NotCached as err:
            raise Mismatch(f"{label}: {err.message}, where the worker's build of it was kept; this process runs "
                           f"no compiler on the candidate's sources and flags", "unknown") from None
        except VoltaError as err:
            raise Mismatch(f"{label}: extension `{module}` does not build here from the sources the worker sent "
                           f"({err.message})") from None
        if built[module].ptx is None:
            raise Mismatch(f"{label}: extension `{module}` has no device code here, and the worker launched "
                           f"its kernels")
    return built[module]


def _symbols(recorded: dict) -> dict:
    try:
        return {m: {name: [(offset, bytes.fromhex(data)) for offset, data in writes]
                    for name, writes in named.items()} for m, named in recorded.items()}
    except ValueError:
        raise Mismatch("a recorded symbol write is not hex") from None


def _same_changes(memory: DeviceMemory, kept: dict, theirs: list, label: str) -> None:
    """After the replay, every storage the worker says its call changed (or made), and every one the replay
    here changed, holds the same elements in both: identical (interned here) or the same polynomial. A storage
    the worker did not list holds, in its memory, what it held before the call (`kept`)."""
    recorded = {base: (dtype, elements) for base, dtype, _, elements in theirs}
    changed = {base for base, _, _, _ in memory.changed(dict(kept))}
    forms = RingForms()
    for base in sorted(set(recorded) | changed):
        storage = memory.by_base.get(base)
        dtype, elements = recorded.get(base) or kept.get(base) or (None, None)
        if storage is None or elements is None:
            raise Mismatch(f"{label}: the worker's memory after it and its replay here hold other allocations "
                           f"(at address {base:#x})")
        if dtype != storage.dtype or len(elements) != storage.size:
            raise Mismatch(f"{label}: `{memory.name(storage)}` has another type or size in the worker's memory "
                           f"after it than in its replay here")
        for i, (a, b) in enumerate(zip(elements, storage.values)):
            if a is not b and not same_value(forms, a, b):
                raise Mismatch(f"{label}: the worker's machine left {_shown(a)} in `{memory.name(storage)}` "
                               f"element {i}, where Volta's own replay of the call computes {_shown(b)}")


def _shown(value) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."
