"""The parent's side of the worker: start it, load extensions, call their functions, collect the traces.

Candidate host code is untrusted and native: it may crash (a host read through a fake device pointer faults,
as a read of device memory on the host would), loop or print. It runs in the worker process
(`volta/kernelbench/host/worker.py`); this module talks to it over two private pipes and turns every way a call
can end into a value: `Reply` for a return or a raised exception, `HostCrashed` (an `Unsupported`) when the
worker dies, with its signal and the end of what it printed.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

import volta
from volta.errors import Unsupported


class HostCrashed(Unsupported):
    """The candidate's host code killed the worker process (or ran past the time limit)."""


@dataclass
class Reply:
    status: int              # 0 returned, 1 raised, 2 outside the model
    result: dict
    trace: list = field(default_factory=list)


STATUS_RETURNED, STATUS_RAISED, STATUS_UNMODELLED = 0, 1, 2
CALL_SECONDS = 60.0   # host code does no GPU work: a call this long is a loop, not a computation


class Worker:
    """One worker process with the stand-in runtime loaded; extensions are loaded into it by name."""

    def __init__(self, runtime: str):
        req_r, self._req = os.pipe()
        self._rep, rep_w = os.pipe()
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH")}
        env["PYTHONPATH"] = os.pathsep.join(p for p in [_package_root(), env.get("PYTHONPATH")] if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "volta.kernelbench.host.worker", runtime, str(req_r), str(rep_w)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            pass_fds=(req_r, rep_w), env=env)
        os.close(req_r)
        os.close(rep_w)
        self._buffer = b""
        self._printed = b""
        self.loaded: dict = {}   # module name -> functions it binds

    # ---- requests ----
    def load(self, module: str, library: str) -> dict:
        reply = self._ask({"op": "load", "module": module, "path": library}, f"loading extension `{module}`")
        self.loaded[module] = [name for mod, name in reply["functions"] if mod == module]
        return reply

    def set_params(self, module: str, kernel: str, sizes) -> None:
        self._ask({"op": "params", "module": module, "kernel": kernel, "sizes": list(sizes)},
                  f"registering `{kernel}`")

    def call(self, module: str, fn: str, args: list) -> Reply:
        reply = self._ask({"op": "call", "module": module, "fn": fn, "args": args}, f"calling `{module}.{fn}`")
        return Reply(reply["status"], reply["result"], reply["trace"])

    def printed(self) -> str:
        """What the candidate's host code printed so far (its stdout and stderr)."""
        self._drain_output(0)
        return self._printed.decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for fd in (self._req, self._rep):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    # ---- the pipe ----
    def _ask(self, request: dict, doing: str) -> dict:
        try:
            os.write(self._req, (json.dumps(request) + "\n").encode())
        except BrokenPipeError:
            raise self._crashed(doing) from None
        deadline = time.monotonic() + CALL_SECONDS
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.proc.kill()
                raise HostCrashed(f"the candidate's host code did not return within {CALL_SECONDS:.0f} s while "
                                  f"{doing} (host code computes no tensor data here: a loop that never ends)")
            ready, _, _ = select.select([self._rep, self.proc.stdout], [], [], left)
            if self.proc.stdout in ready:
                self._drain_output(0)
            if self._rep in ready:
                chunk = os.read(self._rep, 1 << 20)
                if not chunk:
                    raise self._crashed(doing)
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"volta worker: {reply['error']}")
        return reply

    def _drain_output(self, timeout: float) -> None:
        out = self.proc.stdout
        while out is not None and select.select([out], [], [], timeout)[0]:
            chunk = os.read(out.fileno(), 1 << 16)
            if not chunk:
                break
            self._printed = (self._printed + chunk)[-65536:]

    def _crashed(self, doing: str) -> HostCrashed:
        code = self.proc.wait()
        self._drain_output(0)
        if code < 0:
            try:
                how = f"signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"signal {-code}"
        else:
            how = f"exit status {code}"
        hint = (" (a fault: host code that dereferences a tensor's data pointer reads device memory on the host, "
                "which Volta does not model)" if code == -signal.SIGSEGV else "")
        tail = self._printed.decode(errors="replace").strip().splitlines()[-8:]
        printed = ("; it printed:\n" + "\n".join(tail)) if tail else ""
        return HostCrashed(f"the candidate's host code ended the process ({how}) while {doing}{hint}{printed}")


def _package_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(volta.__file__)))
