"""Branches a candidate chooses by timing or by the machine: each answer the machine could give is checked.

A candidate may time its alternatives (`time.perf_counter`, `time.time`, CUDA events with `elapsed_time`)
and keep the fastest, or read the device (`torch.cuda.get_device_capability`, `get_device_properties`) and
pick a path per architecture. On some machine each alternative is the one that runs, so a verdict about
"the" candidate must cover each. Volta answers those questions itself, from an `Answers`:

- the clock is synthetic: every interval between two consecutive readings (of any clock, CUDA events
  included) lasts SLOW seconds, except the interval `fastest`, which lasts FAST; so "interval k is the
  fastest" is one answer per interval, and "all equal" (None) another. Intervals are counted per phase
  (the file and constructor: "init"; each forward call: "forward", every call alike), so a forward that
  times its alternatives on every call sees the same answer each time (the confirmation re-runs included);
- the device has compute capability `capability`, one per class in CAPABILITIES.

`explore` runs the whole check once per answer, starting with the default (all intervals equal, sm_80),
enumerating the answers the readings of each run make distinct (intervals x capabilities), up to MAX_PATHS
runs. The report is the worst path's (a finding before nothing claimed before equivalent), with a line per
path checked and the answers left unchecked when the limit cuts the enumeration. A candidate that reads
nothing runs once, as before.
"""
from __future__ import annotations

import builtins
import os
import sys
import time as real_time
import types
from dataclasses import dataclass, field

import volta.kernelbench.streams as streams
from volta.kernelbench.failures import TorchError

FAST, SLOW = 0.001, 0.002          # seconds per clock interval
CAPABILITIES = ((7, 0), (8, 0), (9, 0))   # pre-Ampere, Ampere, Hopper classes; (8, 0) is the default
DEFAULT_CAPABILITY = (8, 0)
MAX_PATHS = 8
CLOCKS = ("perf_counter", "time", "monotonic", "process_time", "thread_time")


@dataclass(frozen=True)
class Answers:
    """How the machine answers one run: which clock interval is fast (None: all equal), which device."""

    fastest: tuple | None = None        # (phase, interval index)
    capability: tuple = DEFAULT_CAPABILITY

    def describe(self, timing: bool = True, device: bool = True) -> str:
        parts = []
        if timing:
            parts.append("every timed interval equal" if self.fastest is None
                         else f"{self.fastest[0]} interval {self.fastest[1] + 1} fastest")
        if device:
            parts.append(f"sm_{self.capability[0]}{self.capability[1]}")
        return ", ".join(parts)


@dataclass
class Oracle:
    """The machine's answers for one run, and what the candidate asked (kind, file, line) in order."""

    answers: Answers
    candidate: str | None = None               # absolute path: the lines reported are the candidate's
    phase: str = "init"
    reads: dict = field(default_factory=dict)  # phase -> the most readings one pass of it made
    clock_reads: list = field(default_factory=list)
    device_reads: list = field(default_factory=list)
    _count: int = 0
    _base: float = 0.0

    def restart(self, phase: str) -> None:
        """A new pass of `phase` (a forward call): interval indices count from its start again."""
        self.phase, self._count = phase, 0
        self._base += 1000.0      # the clock never runs backwards between passes

    def now(self, what: str) -> float:
        k = self._count
        self._count += 1
        self.reads[self.phase] = max(self.reads.get(self.phase, 0), self._count)
        self.clock_reads.append((what,) + self._where())
        return self._base + sum(FAST if (self.phase, i) == self.answers.fastest else SLOW for i in range(k))

    def device(self, what: str):
        self.device_reads.append((what,) + self._where())
        return self.answers.capability

    def _where(self) -> tuple:
        frame = sys._getframe(2)
        while frame is not None:
            if self.candidate and os.path.abspath(frame.f_code.co_filename) == self.candidate:
                return frame.f_code.co_filename, frame.f_lineno
            frame = frame.f_back
        return None, None

    def asked(self) -> list:
        """One line per distinct place the candidate asked: `perf_counter at cand.py:12`."""
        seen = dict.fromkeys(f"{what} at {os.path.relpath(file)}:{line}" if file else what
                             for what, file, line in self.clock_reads + self.device_reads)
        return list(seen)


# ---------------------------------------------------------------- the stand-in objects

def time_module(oracle: Oracle) -> types.ModuleType:
    """`time` as the candidate sees it: the clocks read the oracle, everything else is the real module's."""
    module = types.ModuleType("time")
    module.__dict__.update({k: v for k, v in vars(real_time).items() if not k.startswith("__")})
    for name in CLOCKS:
        module.__dict__[name] = (lambda n: lambda: oracle.now(f"time.{n}"))(name)
        module.__dict__[name + "_ns"] = (lambda n: lambda: int(oracle.now(f"time.{n}_ns") * 1e9))(name)
    module.sleep = lambda seconds: None
    return module


def candidate_builtins(oracle: Oracle | None):
    """The builtins of the candidate's namespace: `import time` (and `from time import ...`) get the oracle's
    clock; every other import is Python's own."""
    if oracle is None:
        return builtins
    stand_in = time_module(oracle)
    real_import = builtins.__import__

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "time" and level == 0:
            return stand_in
        return real_import(name, globals, locals, fromlist, level)
    table = dict(vars(builtins))
    table["__import__"] = importer
    return table


class CudaEvent(streams.Event):
    """torch.cuda.Event: its place in the streams' order (streams.Event), and `record` reads the oracle's clock
    when timing is on; `elapsed_time` in milliseconds."""

    def __init__(self, ordering, oracle: Oracle | None, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False):
        super().__init__(ordering, enable_timing, blocking)
        self._oracle, self._timing, self._at = oracle, bool(enable_timing), None

    def record(self, stream=None):
        super().record(stream)
        self._at = self._oracle.now("torch.cuda.Event.record") if self._timing and self._oracle else 0.0

    def elapsed_time(self, end: "CudaEvent") -> float:
        if not (self._timing and end._timing):
            raise TorchError("Both events must be created with argument 'enable_timing=True'.")
        if self._at is None or end._at is None:
            raise TorchError("Both events must be recorded before calculating elapsed time.")
        return (end._at - self._at) * 1000.0


class DeviceProperties:
    """torch.cuda.get_device_properties(d): the fields candidates branch on, for the oracle's capability."""

    def __init__(self, capability: tuple):
        self.major, self.minor = capability
        self.name = {7: "Volta symbolic device (sm_70 class)", 8: "Volta symbolic device (sm_80 class)",
                     9: "Volta symbolic device (sm_90 class)"}[self.major]
        self.multi_processor_count = {7: 80, 8: 108, 9: 132}[self.major]
        self.total_memory = 80 * (1 << 30)
        self.warp_size = 32
        self.max_threads_per_multi_processor = 2048 if self.major >= 8 else 1024


def cuda_functions(run) -> dict:
    """torch.cuda's entries that ask the machine, answered by the run's oracle (sm_80 without one)."""
    def oracle():
        return getattr(run, "paths", None)

    def capability(device=None):
        o = oracle()
        return o.device("torch.cuda.get_device_capability") if o else DEFAULT_CAPABILITY

    def properties(device=None):
        o = oracle()
        return DeviceProperties(o.device("torch.cuda.get_device_properties") if o else DEFAULT_CAPABILITY)

    def event(*args, **kwargs):
        return CudaEvent(run.streams, oracle(), *args, **kwargs)
    return {"get_device_capability": capability, "get_device_properties": properties, "Event": event}


# ---------------------------------------------------------------- the exploration

@dataclass
class Path:
    answers: str          # Answers.describe() of the parts the candidate asked about
    verdict: str
    exit_code: int


def explore(check_once, candidate: str):
    """Run `check_once(oracle)` once per answer the candidate's readings make distinct (see the module
    docstring); the worst path's report, with `paths` (each Path checked), `unchecked` and `asked` set."""
    first = Oracle(Answers(), os.path.abspath(candidate))
    report = check_once(first)
    if not first.clock_reads and not first.device_reads:
        return report
    todo, seen, runs = _answers_of(first), {Answers()}, [(Answers(), report, first)]
    while todo and len(runs) < MAX_PATHS:
        answers = todo.pop(0)
        if answers in seen:
            continue
        seen.add(answers)
        oracle = Oracle(answers, os.path.abspath(candidate))
        runs.append((answers, check_once(oracle), oracle))
        todo += [a for a in _answers_of(oracle) if a not in seen and a not in todo]
    worst = max(runs, key=lambda r: _rank(r[1].exit_code))[1]
    timing = any(o.clock_reads for _, _, o in runs)
    device = any(o.device_reads for _, _, o in runs)
    worst.paths = [Path(a.describe(timing, device), r.verdict, r.exit_code) for a, r, _ in runs]
    worst.unchecked = [a.describe(timing, device) for a in todo if a not in seen]
    worst.asked = list(dict.fromkeys(x for _, _, o in runs for x in o.asked()))
    return worst


def _answers_of(oracle: Oracle) -> list:
    """The answers the readings of one run distinguish: each interval fastest (and none), each device class."""
    timings = [None] + [(phase, i) for phase, n in oracle.reads.items() for i in range(n - 1)]
    if len(timings) == 1:
        timings = [oracle.answers.fastest]
    devices = CAPABILITIES if oracle.device_reads else (oracle.answers.capability,)
    return [Answers(t, d) for d in devices for t in timings]


def _rank(exit_code: int) -> int:
    """Which path's report stands for the candidate: a finding (1), then nothing claimed (3), then 0."""
    return {1: 3, 3: 2, 2: 1, 0: 0}.get(exit_code, 2)

