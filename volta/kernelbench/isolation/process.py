"""The candidate's worker process: started early, confined, watched, and killed with everything it started.

`Worker(job, limits)` forks and runs `job(channel)` in the child (in this design, the whole check of a candidate:
docs/sandbox.md). The child, before the job:

- leaves the parent's session (`setsid`: a process group the parent kills whole) and, where the kernel
  allows it (`unshare(2)` through ctypes, as root or in a user namespace), enters a new network namespace
  (no interface but a loopback that is down: no network) and a new PID namespace whose first process runs
  the job, so that everything the candidate starts dies with it, even a process that left the group;
- sets resource limits: CPU seconds (RLIMIT_CPU), address space (RLIMIT_AS: what it has at the fork plus
  `limits.memory`), file size (RLIMIT_FSIZE), no core files, and processes (RLIMIT_NPROC, which binds only
  a user other than root: root is counted by the PID namespace and the process-group kill instead);
- runs in a private temporary folder, with a scrubbed environment (PATH, locale, CUDA_HOME, Volta's cache
  folder; HOME and TMPDIR are the folder), stdin closed, stdout and stderr into a pipe the parent reads
  (shown as the candidate's output, never parsed), no new privileges, killed if the parent dies;
- installs the audit hook of `guard.py` when the job asks (`Channel.install_guard`).

The child answers with JSON frames (plain data, never pickle: nothing the parent reads can run code), and
byte frames the parent decodes in their own checked format (`wire`'s expression tables). The parent may send
the child JSON frames too (`Worker.send`, `Channel.receive`): plain data the candidate's run needs from Volta's
process (the reference's formats, the comparisons Volta's process made).

The parent enforces a wall-clock deadline (kill of the whole group past it) and turns every way the worker
can end without a well-formed answer into an `Ended` with a verdict: REJECTED for a refusal, an exit, a crash or a
malformed message, UNSUPPORTED for a timeout or a memory kill. `isolation` lists, in words, what
this OS did not allow (said in the report).
"""
from __future__ import annotations

import ctypes
import os
import json
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
from dataclasses import dataclass

from volta.cuda import cache_root
from volta.kernelbench.isolation import guard

CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWUSER = 0x40000000, 0x20000000, 0x10000000
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "CUDA_HOME", "CUDA_PATH")
OUTPUT_KEPT = 1 << 16            # bytes of the candidate's output the report shows at most
HEADER = struct.Struct("<Q")
MAX_FRAME = 64 << 20            # the largest answer the parent reads (bytes)
ENDING_GRACE = 0.5               # seconds a worker whose job is done has to end by itself before it is killed
EXIT_SETUP = 87                  # the child could not confine itself (the parent reports why from its message)


@dataclass(frozen=True)
class Limits:
    seconds: float               # wall clock (the parent kills past it) and CPU seconds of the worker
    memory: int                  # bytes of address space the worker may add to what it had at the fork
    file_bytes: int = 1 << 30    # the largest file it may write
    processes: int = 256         # processes (threads) beyond those its user runs already (non-root only)


class Ended(Exception):
    """The worker gave no well-formed answer: `verdict` is "rejected" or "unsupported", `reason` says why."""

    def __init__(self, verdict: str, reason: str):
        super().__init__(reason)
        self.verdict, self.reason = verdict, reason


# ---------------------------------------------------------------- the child

class Channel:
    """The child's end: `send` a (kind, payload) message as JSON, `receive` the parent's, and `install_guard`
    for the rest of the process's life."""

    def __init__(self, replies: int, requests: int, folder: str):
        self.replies, self.requests, self.folder = replies, requests, folder

    def install_guard(self) -> None:
        guard.install(self.folder, lambda text: self.send("refused", text))

    def send(self, kind: str, payload) -> None:
        _write_frame(self.replies, json.dumps([kind, payload]).encode())

    def send_bytes(self, data: bytes) -> None:
        """A frame the parent reads with `Worker.receive_bytes` (its own format, e.g. `wire`'s)."""
        _write_frame(self.replies, data)

    def receive(self):
        """The parent's next (kind, payload) message (`Worker.send`); the job ends when the parent closed."""
        header = _read_exactly(self.requests, HEADER.size)
        message = json.loads(_read_exactly(self.requests, HEADER.unpack(header)[0]))
        return message[0], message[1]


def _read_exactly(fd: int, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            raise SystemExit(0)        # the parent went away or closed the channel: nothing more to do
        data += chunk
    return bytes(data)


def _write_frame(fd: int, data: bytes) -> None:
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _namespaces(libc) -> tuple[bool, list]:
    """Enter new network and PID namespaces where allowed; (whether a PID namespace was entered, what was not
    isolated, in words)."""
    if libc is None or not hasattr(libc, "unshare"):
        return False, ["no network or PID namespace (no unshare(2) on this OS): the candidate's code may use "
                       "the network, and a process it starts that leaves its group may outlive the check"]
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWNET | CLONE_NEWPID | (0 if uid == 0 else CLONE_NEWUSER)
    if libc.unshare(flags) == 0:
        if uid != 0:
            _map_ids(uid, gid)
        return True, []
    err = os.strerror(ctypes.get_errno())
    return False, [f"no network or PID namespace (unshare(2) refused: {err}): the candidate's code may use the "
                   f"network, and a process it starts that leaves its group may outlive the check"]


def _map_ids(uid: int, gid: int) -> None:
    """In a new user namespace, be the same user and group as outside (best effort: unmapped, files are
    still checked as the outside user)."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        try:
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
        except OSError:
            pass


def _confine(limits: Limits, folder: str, output: int, libc, root: bool) -> list:
    """Limits, folder, environment and stdio of the worker; what this OS refused, in words."""
    if libc is not None and hasattr(libc, "prctl"):
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    cache = str(cache_root())
    kept = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
    os.environ.clear()
    os.environ.update(kept, HOME=folder, TMPDIR=folder, VOLTA_CACHE_DIR=cache)
    tempfile.tempdir = folder
    os.chdir(folder)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(null)
    os.close(output)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    sys.dont_write_bytecode = True
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)       # a write past the file limit fails instead of killing
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    cpu = int(limits.seconds) + 2
    wanted = [("RLIMIT_CPU", cpu, cpu + 5), ("RLIMIT_AS", _address_space() + limits.memory, None),
              ("RLIMIT_FSIZE", limits.file_bytes, None), ("RLIMIT_CORE", 0, None)]
    if not root:
        wanted.append(("RLIMIT_NPROC", _processes_of_user() + limits.processes, None))
    return [note for name, soft, hard in wanted if (note := _set_limit(name, soft, hard)) is not None]


def _set_limit(name: str, soft: int, hard: int | None) -> str | None:
    """Lower one resource limit (never above the hard limit the process has); a note when the OS refuses."""
    hard = soft if hard is None else hard
    try:
        which = getattr(resource, name)
        _, current = resource.getrlimit(which)
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        resource.setrlimit(which, (soft, hard))
    except (AttributeError, ValueError, OSError) as err:
        return f"{name} is not set on this OS ({err or 'no such limit'}): the worker is not bounded by it"
    return None


def _address_space() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 4 << 30


def _processes_of_user() -> int:
    """Threads of this user (what RLIMIT_NPROC counts on Linux); 0 without /proc."""
    uid, n = os.getuid(), 0
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return 0
    for entry in entries:
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                n += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            pass
    return n


def _relay(pid: int) -> None:
    """The namespace's parent: end as its only child ended (the same status or signal)."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status))


def _child(job, limits: Limits, folder: str, replies: int, requests: int, output: int, spare: list) -> None:
    status = EXIT_SETUP
    try:
        for fd in spare:
            os.close(fd)
        os.setsid()
        root = os.geteuid() == 0          # before a user namespace changes how we look
        libc = _libc()
        if libc is not None:
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)     # this one too dies with Volta
        in_namespace, missing = _namespaces(libc)
        if in_namespace:
            pid = os.fork()               # the first process of the new PID namespace runs the job
            if pid:
                for fd in (replies, requests, output):
                    os.close(fd)
                _relay(pid)
        missing += _confine(limits, folder, output, libc, root)
        channel = Channel(replies, requests, folder)
        channel.send("ready", missing)
        job(channel)
        status = 0
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:
        status = EXIT_SETUP
    finally:
        os._exit(status)


# ---------------------------------------------------------------- the parent

def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


class Worker:
    """The parent's handle on one worker: `ready`, `receive` (decoded, or `Ended`), `printed`, `close`."""

    def __init__(self, job, limits: Limits):
        self.limits = limits
        self.folder = tempfile.mkdtemp(prefix="volta-candidate-")
        self._rep, rep_w = os.pipe()
        self._out, out_w = os.pipe()
        req_r, self._req = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            _child(job, limits, self.folder, rep_w, req_r, out_w, [self._rep, self._out, self._req])
        for fd in (rep_w, out_w, req_r):
            os.close(fd)
        self._printed = b""
        self._buffer = bytearray()
        self._closed = False
        self._status: int | None = None
        self.deadline = time.monotonic() + limits.seconds

    def ready(self) -> list:
        """Wait for the worker to confine itself; what this OS did not isolate, in words."""
        kind, missing = self.receive("starting")
        if kind != "ready" or not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
            raise Ended("rejected", "the worker did not start as Volta starts it")
        return missing

    def receive(self, doing: str, seconds: float | None = None):
        """The worker's next message, decoded as (kind, payload); Ended when there is none."""
        frame = self.receive_bytes(doing, MAX_FRAME, seconds)
        try:
            message = json.loads(frame)
        except ValueError as err:
            self._kill()
            raise Ended("rejected", f"the worker's answer while {doing} is malformed: {err}") from None
        if not (type(message) is list and len(message) == 2 and type(message[0]) is str):
            self._kill()
            raise Ended("rejected", f"the worker's answer while {doing} is no (kind, payload) message")
        if message[0] == "refused":
            self._kill()
            raise Ended("rejected", str(message[1]))
        return message

    def receive_bytes(self, doing: str, limit: int, seconds: float | None = None) -> bytes:
        """The worker's next frame as it is (at most `limit` bytes); Ended when there is none."""
        deadline = self.deadline if seconds is None else min(self.deadline, time.monotonic() + seconds)
        buffer = self._buffer
        while True:
            if len(buffer) >= HEADER.size:
                size = HEADER.unpack(buffer[:HEADER.size])[0]
                if size > limit:
                    self._kill()
                    raise Ended("rejected", f"the worker sent a message of {size:,} bytes while {doing}")
                if len(buffer) >= HEADER.size + size:
                    break
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill()
                raise Ended("unsupported", f"the candidate ran past the time limit ({self.limits.seconds:g} s; "
                                           f"--timeout sets it) while {doing}: a loop that does not end, or work "
                                           f"too large at these sizes")
            ready, _, _ = select.select([self._rep, self._out], [], [], left)
            if self._out in ready:
                self._drain()
            if self._rep in ready:
                chunk = os.read(self._rep, 1 << 20)
                if not chunk:
                    self._buffer = buffer
                    raise self._ended(doing)
                buffer += chunk
        end = HEADER.size + HEADER.unpack(buffer[:HEADER.size])[0]
        frame, self._buffer = bytes(buffer[HEADER.size:end]), buffer[end:]
        return frame

    def send(self, kind: str, payload) -> None:
        """A (kind, payload) message to the worker (`Channel.receive`): plain JSON data, never the reference's
        expressions. A worker that no longer reads (it ended, or stopped reading) is Ended."""
        data = json.dumps([kind, payload]).encode()
        try:
            _write_frame(self._req, data)
        except OSError:
            raise self._ended("receiving Volta's answer") from None

    def printed(self) -> str:
        """What the candidate printed (stdout and stderr, the last 64 KiB), as text; never parsed."""
        self._drain()
        return self._printed.decode(errors="replace")

    def close(self) -> None:
        """End the worker (it ends by itself once its channel from here is closed and its job is done: a
        moment's grace, so that its CPU time is counted where it is reaped; then killed) and what it started,
        keep what it printed, free its pipes and folder (once)."""
        if self._closed:
            return
        self._closed = True
        os.close(self._req)
        self._req = -1
        deadline = time.monotonic() + ENDING_GRACE
        while self._status is None and time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._status = status
                _kill_group(self.pid)          # what it left in its group
                break
            time.sleep(0.005)
        self._kill()
        self._drain()
        for fd in (self._rep, self._out):
            os.close(fd)
        self._rep = self._out = -1
        shutil.rmtree(self.folder, ignore_errors=True)

    # ---- ending ----
    def _drain(self) -> None:
        if self._out < 0:
            return
        budget = 16 * OUTPUT_KEPT          # a process that escaped the kill and prints forever cannot hold us
        try:
            while budget > 0 and select.select([self._out], [], [], 0)[0]:
                chunk = os.read(self._out, 1 << 16)
                if not chunk:
                    break
                budget -= len(chunk)
                self._printed = (self._printed + chunk)[-OUTPUT_KEPT:]
        except (OSError, ValueError):
            pass

    def _kill(self) -> None:
        if self._status is None:
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass
            self._wait()

    def _wait(self) -> int:
        if self._status is None:
            _, self._status = os.waitpid(self.pid, 0)
            _kill_group(self.pid)      # what it left in its group
        return self._status

    def _ended(self, doing: str) -> Ended:
        status = self._wait()
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            if sig == signal.SIGXCPU:
                return Ended("unsupported", f"the candidate used more than {self.limits.seconds:g} s of CPU time "
                                            f"while {doing}")
            if sig == signal.SIGKILL:     # a namespace's first process ignores SIGXCPU: the hard limit kills
                return Ended("unsupported", f"the worker was killed (SIGKILL) while {doing}: past its CPU-time "
                                            f"limit ({self.limits.seconds:g} s), or by the system's out-of-memory "
                                            f"killer")
            return Ended("rejected", f"the worker ended on a signal ({name}) while {doing}, without returning a "
                                     f"result")
        code = os.WEXITSTATUS(status)
        if code == guard.REFUSED:
            return Ended("rejected", f"the candidate tried what the worker refuses while {doing} (its report was "
                                     f"lost: it closed or replaced the worker's pipe)")
        if code == EXIT_SETUP and doing == "starting":
            return Ended("unsupported", "the candidate's worker could not confine itself on this OS")
        return Ended("rejected", f"the candidate ended the worker process (exit status {code}: sys.exit, os._exit "
                                 f"or a signal handler) while {doing}, without returning a result")
