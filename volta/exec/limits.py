"""Bounds on one command: wall-clock time and memory (and, when asked, steps), and the progress line of
long runs.

The command line sets them once per command (`with limits.using(...)`); the machine and the
equivalence checker consult `limits.current()`. A run is bounded by time and memory, not by how many
steps it takes: a one-thread reference kernel may rightly run for millions of steps.

- `--max-memory`: before a launch allocates anything, `check_memory` estimates what it will need
  (threads × per-thread state, buffers, shared and local copies, shadow memory for races) and refuses
  with the estimate and the limit when it cannot fit; while it runs, `step_check` compares the resident
  memory with the limit. Default: half of this machine's physical memory.
- `--timeout`: a deadline for the whole command. The machine checks it between steps; everything
  else (normalization, random search, Python code deep in the symbolic package) is interrupted by a
  SIGALRM timer on the main thread that raises `Timeout` there. The commands turn a `Timeout` into
  UNKNOWN naming what was running, with the work done until then (`Timeout.count`).
- `--max-steps` (opt-in; no cap by default): the machine stops with UNSUPPORTED, naming the limit,
  after that many steps.

The machine reads the clock by time, not by a step count (`step_check`, `StepClock`): a step of 65,536
lanes can take 30 ms and a one-thread step a microsecond, so the number of steps between two reads
adapts to keep them about `CHECK_SECONDS` apart. The deadline, the memory guard and the progress line
are then as prompt for a slow kernel as for a fast one, and cost nothing measurable on either.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import signal
import threading
import time

from pathlib import Path

from volta.errors import Unsupported, UsageError, VoltaError
from volta.ir.program import lower
from volta.launch.spec import LaunchSpec, bind_args, sequence
from volta.ptx.parser import parse_file

PROGRESS_SECONDS = 5.0  # a progress line at most this often
CHECK_SECONDS = 0.1  # a running machine reads the clock about this often
MAX_CHECK_EVERY = 4096  # and at least every this many steps
NO_STEP_LIMIT = 1 << 62  # `Limits.step_limit` without --max-steps


class Timeout(VoltaError):
    """The --timeout deadline passed; whoever catches it reports UNKNOWN (nothing is claimed).

    `steps` and `thread_instructions` are the work the machines had done when it ran out: a machine adds
    its own as the exception leaves its `run` (`count`), a launch sequence those of its finished launches."""

    exit_code = 3
    kind = "unknown"

    def __init__(self, message: str, span=None):
        super().__init__(message, span)
        self.steps = 0
        self.thread_instructions = 0

    def count(self, machine) -> None:
        self.steps += machine.steps
        self.thread_instructions += machine.thread_instructions

    def __str__(self) -> str:  # when it reaches the command line unhandled (bit modes, --replay)
        return f"{super().__str__()}; nothing is claimed (a longer --timeout may decide)"


def resident_memory() -> int | None:
    """This process's resident set in bytes (Linux /proc; None elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@dataclasses.dataclass
class Limits:
    max_memory: int | None = None  # bytes; None: the default fraction of physical memory
    max_steps: int | None = None  # --max-steps; None: no cap (time and memory bound a run)
    timeout: float | None = None  # seconds for the whole command
    deadline: float | None = None  # time.monotonic() value
    progress: object = None  # callable(line) for long runs, or None (-q)
    start: float = dataclasses.field(default_factory=time.monotonic)
    # resident memory when the command began: --max-memory bounds what the command adds, so a check made from a
    # long-lived process (a notebook, a test worker, a batch job) is not refused for what that process held before
    resident_at_start: int = dataclasses.field(default_factory=lambda: resident_memory() or 0)

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def left(self) -> float | None:
        """Seconds left before the deadline (negative past it); None without --timeout."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def check_deadline(self, what: str) -> None:
        if self.expired():
            raise Timeout(f"--timeout {self.timeout:g} s ran out while {what}")

    @property
    def step_limit(self) -> int:
        """--max-steps, or a number no run reaches (the machines compare with it every step)."""
        return self.max_steps if self.max_steps is not None else NO_STEP_LIMIT

    @property
    def memory_limit(self) -> int:
        return self.max_memory if self.max_memory is not None else default_max_memory()


_CURRENT = Limits()


def current() -> Limits:
    return _CURRENT


def physical_memory() -> int:
    """Bytes of physical memory (os.sysconf, else /proc/meminfo); 16 GiB when neither says."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 16 << 30


def default_max_memory() -> int:
    return physical_memory() // 2


def parse_memory(text: str) -> int:
    """`--max-memory 8G`, `512M`, `2.5GiB`, `1000000` (bytes)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*", str(text), re.IGNORECASE)
    if not m:
        raise UsageError(f"bad --max-memory `{text}`: expected a size such as 8G, 512M or 1000000 (bytes)")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m[2].lower()]
    value = int(float(m[1]) * scale)
    if value <= 0:
        raise UsageError(f"bad --max-memory `{text}`: it must be positive")
    return value


def human(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def _on_alarm(signum, frame):
    lim = _CURRENT
    if lim.deadline is None or time.monotonic() < lim.deadline - 0.01:
        return
    if _uninterruptible(frame):
        signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS, 0.5)   # soon, once it has left that code
        return
    raise Timeout(f"--timeout {lim.timeout:g} s ran out")


RETRY_SECONDS = 0.005


# mpmath's interval comparisons convert their operand under a bare `except:` that answers NotImplemented: a
# Timeout raised in there came out as `TypeError: '<=' not supported between 'ivmpf' and 'int'`, an internal error
# in place of the out-of-time verdict (seen on a cosine-similarity candidate under load)
_SWALLOWING = (f"{os.sep}mpmath{os.sep}",)


def _uninterruptible(frame) -> bool:
    """Whether the interrupted code must not see the Timeout, so the alarm comes again RETRY_SECONDS later: an
    import (an exception there leaves the module half made, and its next import fails in
    ways that have nothing to do with the timeout), or a library that turns exceptions into other answers
    (`_SWALLOWING`; their calls are short, and the next tick lands in Volta's code)."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib") or any(part in name for part in _SWALLOWING):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def using(max_memory=None, max_steps=None, timeout=None, progress=None, deadline=None):
    """Set the limits for one command (restored afterwards, so in-process callers and tests nest).

    `deadline` (a time.monotonic() value) is the command's deadline made earlier, for a stage of it (a worker
    process, a decision after it): the stage gets what is left of `timeout`, not `timeout` afresh, so that
    the stages together stay within it. The clock is the system's monotonic one, shared by forked workers."""
    global _CURRENT
    previous = _CURRENT
    lim = Limits(max_memory=max_memory, max_steps=max_steps, timeout=timeout, progress=progress)
    if deadline is not None:
        lim.deadline = deadline
        if timeout is None:   # the messages name the time the command was given
            lim.timeout = max(deadline - lim.start, 0.0)
    elif timeout is not None:
        lim.deadline = lim.start + timeout
    armed = lim.deadline is not None and threading.current_thread() is threading.main_thread()
    old_handler = None
    if armed:
        old_handler = signal.signal(signal.SIGALRM, _on_alarm)
        # repeats every 0.5 s past the deadline, in case a broad `except` somewhere swallowed one
        signal.setitimer(signal.ITIMER_REAL, max(lim.deadline - time.monotonic(), 0.001), 0.5)
    _CURRENT = lim
    try:
        yield lim
    finally:
        _CURRENT = previous
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)


def disarm() -> None:
    """Stop the SIGALRM timer once the deciding is over (printing the verdict must not be interrupted);
    the deadline stays for cooperative checks."""
    if _CURRENT.deadline is not None and threading.current_thread() is threading.main_thread():
        signal.setitimer(signal.ITIMER_REAL, 0)


def remaining_ms(default: int) -> int:
    """`default`, or less when the --timeout deadline is nearer (at least 1 ms)."""
    if _CURRENT.deadline is None:
        return default
    return max(1, min(default, int((_CURRENT.deadline - time.monotonic()) * 1000)))


# ---- memory estimate --------------------------------------------------------------------------

PER_THREAD = 200  # bytes of machine state per thread: pc, status, ids, barrier counts, scratch lanes
SHADOW_PER_GRANULE = 14 * 8  # race shadow of a touched granule: 32-bit ids, two clocks, flags, scratch
SHADOW_PAGE_TABLE = 4 / 64  # a global buffer's shadow is paged (shadow.py): up front only its page table


def estimate(prog, launch, buffers: dict, symbolic: bool, check_races: bool) -> tuple[int, list]:
    """(bytes, [(what, bytes)]) a Machine for this launch will need at least, before it allocates."""
    ctas = len(launch.ctas) if getattr(launch, "ctas", None) else launch.grid.count
    threads = ctas * launch.block.count
    per_byte = 3 + (22 if symbolic else 0)  # data, written/flags; sym pointer, kwritten, lane refs
    reg_bytes = 9 + (8 if symbolic else 0)
    parts = [(f"{threads:,} threads × ({PER_THREAD} bytes of state + {len(prog.regs)} registers × "
              f"{reg_bytes} bytes)", threads * (PER_THREAD + len(prog.regs) * reg_bytes))]
    buf = 0
    for b in buffers.values():
        # an input buffer is never stored to: no expression or written-byte arrays (only its leaves)
        own = 3 if b.role == "in" else per_byte
        n = b.nbytes * own + (int(b.nbytes // max(1, min(4, b.itemsize)) * SHADOW_PAGE_TABLE) if check_races else 0)
        if symbolic:
            n += b.count * 64  # one input-element expression per element
        buf += n
    if buf:
        parts.append((f"{len(buffers)} buffer(s) of {human(sum(b.nbytes for b in buffers.values()))}", buf))
    shared = local = 0
    for var in prog.variables.values():
        if var.space == ".shared":
            size = launch.shared_dynamic if var.dynamic else var.size
            shared += size * ctas * (per_byte + (SHADOW_PER_GRANULE // 4 if check_races else 0))
        elif var.space == ".local":
            local += var.size * threads * per_byte
    if shared:
        parts.append((f"shared memory × {ctas:,} CTAs", shared))
    if local:
        parts.append((f"local memory × {threads:,} threads", local))
    return sum(n for _, n in parts), parts


def check_memory(prog, launch, buffers: dict, symbolic: bool = False, check_races: bool = True) -> None:
    """Refuse a launch whose estimated memory exceeds --max-memory (a usage error naming both)."""
    need, parts = estimate(prog, launch, buffers, symbolic, check_races)
    lim = _CURRENT
    limit = lim.memory_limit
    if need <= limit:
        return
    where = ("--max-memory" if lim.max_memory is not None
             else f"the default --max-memory, half of this machine's {human(physical_memory())}")
    detail = "; ".join(f"{what}: {human(n)}" for what, n in parts)
    raise UsageError(f"launch of `{prog.name}` (grid {launch.grid}, block {launch.block}) needs about "
                     f"{human(need)} ({detail}), more than the limit of {human(limit)} ({where}): launch fewer "
                     f"threads or smaller buffers, or raise --max-memory")


def check_buffers(buffers: dict, what: str = "the buffers") -> None:
    """Refuse buffers that alone exceed --max-memory, before any input array is drawn for them."""
    total = sum(b.nbytes for b in buffers.values())
    need = total * 4  # the array itself, its copy in the machine, flags, inputs drawn as float64
    limit = _CURRENT.memory_limit
    if need > limit:
        biggest = max(buffers.values(), key=lambda b: b.nbytes)
        where = ("--max-memory" if _CURRENT.max_memory is not None
                 else f"the default --max-memory, half of this machine's {human(physical_memory())}")
        raise UsageError(f"{what} need about {human(need)} ({human(total)} of data, the largest "
                         f"`{biggest.name}` = {biggest.dtype}[{biggest.count:,}]), more than the limit of "
                         f"{human(limit)} ({where}): use smaller buffers or raise --max-memory")


# ---- steps and progress -------------------------------------------------------------------------

@dataclasses.dataclass
class StepClock:
    """When a running machine next reads the clock (`due`, a value of its step count), and what it saw then.

    The steps between two reads adapt to their cost: after each read, `every` becomes the number of steps
    that took about CHECK_SECONDS (at most twice the last `every`, at most MAX_CHECK_EVERY, at least 1), so
    a launch whose steps take 30 ms reads the clock every few steps and a one-thread loop every few
    thousand. The first read comes after the first step."""

    due: int = 1
    every: int = 1
    at: float = dataclasses.field(default_factory=time.monotonic)
    steps_at: int = 0
    progress_at: float | None = None
    memory_at: float = float("-inf")  # when resident memory was last read (a /proc read: ~0.1 ms, at most every
    #                                   CHECK_SECONDS; the clock itself is a time.monotonic, ~0.1 us)
    reads: int = 0  # how many times step_check ran (benchmarks report it)

    def advance(self, steps: int, now: float) -> None:
        ran, took = steps - self.steps_at, now - self.at
        if ran > 0:
            fit = int(ran * CHECK_SECONDS / took) if took > 0 else MAX_CHECK_EVERY
            self.every = max(1, min(MAX_CHECK_EVERY, 2 * self.every, fit))
        self.at, self.steps_at, self.due = now, steps, steps + self.every
        self.reads += 1


def step_check(machine) -> None:
    """Called by the machine when its step count reaches `machine.clock.due`: the --timeout deadline,
    resident memory against --max-memory (memory grows with what a launch touches, so the estimate before
    the run cannot bound it) and the progress line; then the next read is scheduled (StepClock)."""
    lim = _CURRENT
    clock = machine.clock
    now = time.monotonic()
    clock.advance(machine.steps, now)
    if lim.deadline is not None and now >= lim.deadline:
        raise Timeout(f"--timeout {lim.timeout:g} s ran out while executing `{machine.prog.name}` "
                      f"({machine.steps:,} steps)")
    rss = None
    if now - clock.memory_at >= CHECK_SECONDS:
        clock.memory_at = now
        rss = resident_memory()
    if rss is not None and rss - lim.resident_at_start > lim.memory_limit:
        where = ("--max-memory" if lim.max_memory is not None
                 else f"the default --max-memory, half of this machine's {human(physical_memory())}")
        raise UsageError(f"executing `{machine.prog.name}` grew resident memory by "
                         f"{human(rss - lim.resident_at_start)} after {machine.steps:,} steps, more than the limit of {human(lim.memory_limit)} ({where}); "
                         f"nothing is claimed: check fewer CTAs (--ctas), smaller buffers, or raise --max-memory")
    if lim.progress is not None:
        if clock.progress_at is None:
            clock.progress_at = now
        if now - clock.progress_at >= PROGRESS_SECONDS:
            clock.progress_at = now
            cap = f" (--max-steps {lim.max_steps:,})" if lim.max_steps is not None else ""
            lim.progress(f"{machine.prog.name}: {machine.steps:,} steps, {machine.thread_instructions:,} "
                         f"thread-instructions, {now - lim.start:.0f} s{cap}")


def too_many_steps(max_steps: int, span) -> Unsupported:
    """The error of a kernel that ran past --max-steps (both executors raise it)."""
    return Unsupported(f"the kernel did not finish within --max-steps {max_steps:,} steps (an unbounded loop, or a "
                       f"long kernel: raise or drop --max-steps; --timeout bounds a run by time)", span)


def preflight(spec: LaunchSpec, roles=None, symbolic: bool = False) -> None:
    """Parse, lower and bind every launch of `spec` (and estimate its memory) before any of them runs,
    so a parse error in the second kernel, a wrong --args or a launch too large surfaces at once,
    not after the first kernel has executed. Parsed modules are cached: executing re-parses nothing."""
    for role in roles or list(spec.launches):
        for launch in sequence(spec, role):
            if not Path(launch.ptx).exists():
                raise UsageError(f"no such PTX file: {launch.ptx}")
            prog = lower(parse_file(launch.ptx), launch.kernel)
            bind_args(dataclasses.replace(launch, kernel=prog.name), prog.params, spec.buffers, spec.symbols)
            check_memory(prog, launch, spec.buffers, symbolic=symbolic, check_races=True)
