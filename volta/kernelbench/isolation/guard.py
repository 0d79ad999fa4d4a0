"""Defence in depth inside the worker: an audit hook that refuses what no honest candidate does.

The worker's process limits and namespaces (`process.py`) bound what the candidate can do to the machine; this
bounds what its Python can do to the worker's Volta code, which shares its interpreter. `sys.addaudithook`
sees every `open`, process creation, `gc` scan, `ctypes` load and signal a Python frame asks for; the hook
decides by the innermost frame that is neither the standard library nor an installed package: Volta's own
code (building an extension with nvcc, starting the host-code worker) goes on, anything else — the
candidate's file, or code it compiled — is refused:

- processes: `subprocess`, `os.system`/`exec*`/`spawn*`/`posix_spawn`, `os.fork`, `pty.spawn`;
- signals to other processes (`os.kill`, `os.killpg`);
- the network (`socket` connect, bind, send, name lookup);
- scans of the heap: `gc.get_objects`, `gc.get_referrers`, `gc.get_referents`;
- native code: `ctypes` loading a library or reading an address;
- files: `/proc/*/mem` (another process's or its own memory) in any mode, and any write, rename, removal or
  permission change outside the worker's private folder;
- Volta itself: importing `volta` or changing the attributes of one of its classes (the stand-in torch's
  `Tensor` is one), adding another audit hook, and `sys.settrace`/`sys.setprofile` (the call trace of
  `calltrace.py` records the candidate's calls through the trace function).

A refusal writes what was tried to the parent (`report`) and ends the worker at once, so no `except` in the
candidate can swallow it; the parent reports REJECTED. Assigning a class attribute raises no audit event, so
`snapshot`/`changed` compare Volta's modules, their functions and classes' attributes, and `builtins` before
and after the candidate ran. This is not a boundary: the candidate can reach Volta's
objects through any object's `__globals__` and forge values no hook sees (docs/sandbox.md, "Residual risk").
"""
from __future__ import annotations

import builtins
import dis
import os
import sys
import sysconfig

import volta
from volta.kernelbench.problem import collector_paused

VOLTA_DIR = os.path.dirname(os.path.abspath(volta.__file__)) + os.sep
LIBRARY_DIRS = tuple(sorted({os.path.abspath(p) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
                             if (p := sysconfig.get_paths().get(key))}))
PROCESS_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork",
                  "os.forkpty", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill"}
HEAP_EVENTS = {"gc.get_objects", "gc.get_referrers", "gc.get_referents"}
NATIVE_EVENTS = {"ctypes.dlopen", "ctypes.dlsym", "ctypes.addressof", "ctypes.cdata", "ctypes.string_at",
                 "ctypes.wstring_at", "ctypes.call_function"}
NETWORK_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo"}
PATH_EVENTS = {"os.remove", "os.rmdir", "os.rename", "os.truncate", "os.chmod", "os.chown", "os.link",
               "os.symlink", "os.mkdir", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
WATCHED = (PROCESS_EVENTS | HEAP_EVENTS | NATIVE_EVENTS | NETWORK_EVENTS | PATH_EVENTS
           | {"open", "import", "object.__setattr__", "object.__delattr__", "sys.addaudithook", "sys.settrace",
              "sys.setprofile"})


def culprit(frame) -> str | None:
    """The file of the innermost frame that is neither the library nor Volta's, when no Volta frame comes
    before it; None when Volta's own code is the one acting."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(VOLTA_DIR):
            return None
        if not (name.startswith(LIBRARY_DIRS) or name.startswith("<frozen ")):
            return name
        frame = frame.f_back
    return None


def _outsider(namespace) -> str | None:
    """The file of the module whose `import` statement this is, when it is neither Volta's nor the library's
    (an import forwarded by Volta's own `__import__` wrapper, paths.candidate_builtins, still names it)."""
    name = namespace.get("__file__") if isinstance(namespace, dict) else None
    if not isinstance(name, str) or name.startswith(VOLTA_DIR) or name.startswith(LIBRARY_DIRS):
        return None
    return name


def _is_volta(module) -> bool:
    return isinstance(module, str) and (module == "volta" or module.startswith("volta."))


def _inside(path, folder: str) -> bool:
    if isinstance(path, int):
        return True            # an open file descriptor: it was opened (and checked) before
    try:
        full = os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return False
    return full == folder or full.startswith(folder + os.sep)


def _proc_mem(path) -> bool:
    try:
        parts = os.path.abspath(os.fsdecode(path)).split(os.sep)
    except (TypeError, ValueError):
        return False
    return len(parts) >= 4 and parts[1] == "proc" and parts[-1] in ("mem", "pagemap", "kcore")


def refusal(event: str, args: tuple, folder: str) -> str | None:
    """What is refused about an event the candidate's code raised, in words; None when it is allowed."""
    if event in PROCESS_EVENTS:
        return f"start or signal a process ({event}{_shown(args)})"
    if event in HEAP_EVENTS:
        return f"scan the interpreter's heap ({event})"
    if event in NATIVE_EVENTS:
        return f"load or address native code ({event}{_shown(args)})"
    if event in NETWORK_EVENTS:
        return f"use the network ({event}{_shown(args[1:])})"
    if event == "open":
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        if not isinstance(path, int) and _proc_mem(path):
            return f"open {os.fsdecode(path)} (a process's memory)"
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & WRITE_FLAGS)
        if writes and not _inside(path, folder):
            return f"write {os.fsdecode(path)} (outside its private folder)"
        return None
    if event in PATH_EVENTS:
        paths = [a for a in args[:2] if isinstance(a, (str, bytes, os.PathLike))]
        outside = [os.fsdecode(p) for p in paths if not _inside(p, folder)]
        return f"change {', '.join(outside)} ({event}, outside its private folder)" if outside else None
    if event == "import":
        return f"import {args[0]} (Volta's own code)" if args and _is_volta(args[0]) else None
    if event in ("object.__setattr__", "object.__delattr__"):
        target = args[0] if args else None
        if isinstance(target, type) and _is_volta(getattr(target, "__module__", None)):
            return f"change {target.__name__}.{args[1]} (a class of Volta's or of its stand-in torch)"
        return None
    if event == "sys.addaudithook":
        return "add an audit hook"
    if event in ("sys.settrace", "sys.setprofile") and _calling(sys._getframe()):
        return f"replace the interpreter's trace function ({event}: Volta's call trace records through it)"
    return None


CALLS = {dis.opmap[name] for name in ("CALL", "CALL_FUNCTION_EX") if name in dis.opmap}


def _calling(frame) -> bool:
    """Whether the innermost frame outside the hook is calling (`sys.settrace(...)` from the candidate's code),
    not the interpreter turning tracing off because a trace function raised (a timeout's signal, say), which
    audits the same event from whatever frame was being traced."""
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return frame is not None and frame.f_code.co_code[frame.f_lasti] in CALLS


def _shown(args) -> str:
    text = ", ".join(repr(a)[:80] for a in args[:2])
    return f": {text}" if text else ""


def install(folder: str, report) -> None:
    """Refuse the events above from the candidate's frames in this process, for the rest of its life:
    `report(text)` is called with what was tried, then the process ends with status `REFUSED`."""
    folder = os.path.realpath(folder)

    def hook(event, args):
        if event not in WATCHED:
            return
        why = refusal(event, args, folder)
        if why is None:
            return
        where = culprit(sys._getframe(1))
        if where is None:
            return
        report(f"the candidate ({where}) tried to {why}")
        os._exit(REFUSED)

    original_import = builtins.__import__

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and _is_volta(name):
            where = culprit(sys._getframe(1)) or _outsider(globals)
            if where is not None:
                report(f"the candidate ({where}) tried to import {name} (Volta's own code)")
                os._exit(REFUSED)
        return original_import(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded_import
    sys.addaudithook(hook)


REFUSED = 86          # the worker's exit status after a refusal


def snapshot() -> dict:
    """Volta's modules in `sys.modules` and the functions and classes they, their classes and `builtins` hold
    now (what an assignment such as `torch.Tensor.__mul__ = ...` or `volta.kernelbench.compare.compare = ...`
    would change; type attribute assignment raises no audit event, so `changed` compares after the candidate
    ran)."""
    with collector_paused():          # its allocations would otherwise start a full collection (~0.2 s)
        return _snapshot()


def _snapshot() -> dict:
    held = {}
    spaces = [("builtins", vars(builtins))]
    for name, module in list(sys.modules.items()):
        if _is_volta(name) and module is not None:
            held[("sys.modules", name)] = (sys.modules, module)
            spaces.append((name, vars(module)))
            spaces += [(f"{name}.{k}", vars(v)) for k, v in list(vars(module).items())
                       if isinstance(v, type) and getattr(v, "__module__", None) == name]
    for where, space in spaces:
        for key, value in list(space.items()):
            if callable(value):
                held[(where, key)] = (space, value)
    return held


def changed(before: dict) -> str | None:
    """What of `snapshot()`'s was replaced or removed since, in words; None when nothing was."""
    for (where, key), (space, value) in before.items():
        if space.get(key, None) is not value:
            return f"replace {where}.{key} (Volta's own code, or its stand-in torch's)"
    return None
