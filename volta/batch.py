"""`volta batch jobs.jsonl`: many checks in parallel, each isolated, one JSON result per line.

A job is one JSON object per line of the jobs file (blank lines and lines starting with `#` are skipped):

    {"id": "add-1", "manifest": "examples/eq_gemm_naive_tiled/manifest.toml"}                 # check (a pair) or races
    {"id": "r7", "command": "races", "manifest": "examples/bug_reduce_tree_nosync/manifest.toml"}
    {"id": "c3", "ref": "ref.ptx", "opt": "cand3.ptx", "grid": "4", "block": "128",
     "args": ["x", "y", "out", 500], "buffers": {"x": "f32[500]:in", "y": "f32[500]:in", "out": "f32[500]:out"},
     "opt_grid": "2", "opt_block": "256", "opt_args": […], "opt_kernel": "add_kernel", "opt_shared_dynamic": 0,
     "fp": "real", "timeout_ms": 10000}
    {"id": "k1", "command": "races", "kernel": "k.ptx", "grid": "8", "block": "128", "args": […], "buffers": {…}}
    {"id": "relu-7", "problem": "19_ReLU.py", "candidate": "cands/relu_7.py", "sizes": {"batch_size": 2}, "ragged": false}

`command` is check (default when `ref`/`opt` or a pair manifest is given), races (default for `kernel` or a
one-kernel manifest), run, or kernelbench (default for `problem` + `candidate`: `volta kernelbench`, with `sizes`,
`ragged` and `tolerance` [atol, rtol]). Kernel paths are PTX or .cu files, or PTX text; relative paths are relative to the
jobs file. `id` defaults to `line-N`. Options for the call: fp, prove, trials, seed, timeout_ms (check); inputs,
seed, fp (run); arch, nvcc_flags.

Each job runs in its own forked process with an address-space limit (`resource.setrlimit(RLIMIT_AS)`: `memory_mb`
more than the warm process maps when it forks)
and a wall-clock limit (`timeout_s`). The job's command gets that limit as its own deadline, less a grace
(`_grace`) to report in: at the deadline it stops and reports UNKNOWN with the work done until then, as
`--timeout` does (a KernelBench job's worker is killed past it too). A job still running at `timeout_s` is killed
and its verdict is `timeout` — nothing is claimed. The same isolation runs inside each Ray task with `--ray`,
so the two back ends give the same results. A result line:

    {"schema": "volta.batch/1", "id", "command", "status": "ok"|"error"|"timeout"|"memory"|"crashed",
     "verdict", "exit_code", "seconds", "error", "report": the command's JSON report (null unless status ok)}
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from volta.errors import UsageError

SCHEMA = "volta.batch/1"
COMMANDS = ("check", "races", "run", "kernelbench")
KNOWN_KEYS = {"id", "command", "manifest", "ref", "opt", "kernel", "grid", "block", "args", "buffers", "symbols",
              "shared_dynamic", "kernel_name", "functions", "role",
              "opt_grid", "opt_block", "opt_args", "opt_kernel", "opt_shared_dynamic", "ref_kernel",
              "fp", "prove", "trials", "seed", "timeout_ms", "inputs", "arch", "nvcc_flags",
              "problem", "candidate", "sizes", "ragged", "require_kernel", "eval_mode", "tolerance"}


@dataclass
class Job:
    id: str
    line: int
    data: dict
    base: str  # directory relative paths resolve against
    command: str | None = None  # check | races | run (None: a manifest, decided by its tables)


def load_jobs(path: str) -> list[Job]:
    """Parse and validate the jobs file (a usage error names the line)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as err:
        raise UsageError(f"cannot read jobs file {path}: {err.strerror or err}") from None
    jobs, seen = [], {}
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            data = json.loads(s)
        except json.JSONDecodeError as err:
            raise UsageError(f"{path}:{n}: not a JSON object ({err.msg} at column {err.colno}); each line of a jobs "
                             f"file is one job, e.g. {{\"id\": \"a\", \"manifest\": \"pair/manifest.toml\"}}") from None
        if not isinstance(data, dict):
            raise UsageError(f"{path}:{n}: a job is a JSON object, not {type(data).__name__}")
        unknown = sorted(set(data) - KNOWN_KEYS)
        if unknown:
            raise UsageError(f"{path}:{n}: unknown job key(s) {', '.join(unknown)} (known: {', '.join(sorted(KNOWN_KEYS))})")
        jid = str(data.get("id", f"line-{n}"))
        if jid in seen:
            raise UsageError(f"{path}:{n}: job id `{jid}` already used on line {seen[jid]}; ids must be unique "
                             f"(--resume skips by id)")
        seen[jid] = n
        cmd = _command(data, f"{path}:{n}")
        jobs.append(Job(jid, n, data, str(p.resolve().parent), cmd))
    return jobs


def _command(data: dict, where: str) -> str:
    cmd = data.get("command")
    if cmd is not None and cmd not in COMMANDS:
        raise UsageError(f"{where}: command `{cmd}`: choose {', '.join(COMMANDS)}")
    has_pair = "ref" in data or "opt" in data
    has_problem = "problem" in data or "candidate" in data
    if sum(("manifest" in data, has_pair, "kernel" in data, has_problem)) != 1:
        raise UsageError(f"{where}: give exactly one of `manifest`, `ref` + `opt`, `kernel`, or `problem` + "
                         f"`candidate`")
    if has_problem or cmd == "kernelbench":
        if not ("problem" in data and "candidate" in data) or cmd not in (None, "kernelbench"):
            raise UsageError(f"{where}: a kernelbench job gives `problem` and `candidate` (PyTorch files)")
        if not isinstance(data.get("sizes", {}), dict):
            raise UsageError(f"{where}: `sizes` is an object of size globals, e.g. {{\"batch_size\": 2}}")
        return "kernelbench"
    if has_pair and not ("ref" in data and "opt" in data):
        raise UsageError(f"{where}: a pair job needs both `ref` and `opt`")
    if cmd is None:
        cmd = "check" if has_pair else "races" if "kernel" in data else None
    if has_pair and cmd != "check":
        raise UsageError(f"{where}: `ref` + `opt` is a check job (use `kernel` for races/run)")
    if "kernel" in data and cmd == "check":
        raise UsageError(f"{where}: a check job needs `ref` and `opt` (or a pair manifest)")
    if "manifest" not in data:
        for key in ("grid", "block"):
            if key not in data:
                raise UsageError(f"{where}: no `{key}` (a job without a manifest gives grid, block, args, buffers)")
    return cmd


# ---- running one job (in the isolated child) ---------------------------------------------------------------

def _resolve(base: str, value):
    if isinstance(value, str) and "\n" not in value and ".entry" not in value:
        p = Path(value).expanduser()
        return str(p if p.is_absolute() else Path(base) / p)
    return value


def _buffers(spec) -> list:
    import volta

    if spec is None:
        return []
    items = spec.items() if isinstance(spec, dict) else ((None, s) for s in spec)
    out = []
    import re

    for name, text in items:
        full = f"{name}={text}" if name is not None else str(text)
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*([a-z0-9]+)\s*\[\s*(\d+)\s*\]\s*(?::\s*(\w+))?\s*", full)
        if not m:
            raise UsageError(f"bad buffer `{full}`: expected NAME=DTYPE[COUNT] or NAME=DTYPE[COUNT]:ROLE")
        out.append(volta.Buffer(m[1], m[2], int(m[3]), m[4]))
    return out


def _args(v):
    if v is None:
        return []
    if isinstance(v, str):
        return [a.strip() for a in v.split(",") if a.strip()]
    if not isinstance(v, list):
        raise UsageError(f"args {v!r}: a list (or a comma-separated string)")
    return v


def _launch(d: dict, grid, block, args, kernel, shared_dynamic):
    import volta

    bufs = _buffers(d.get("buffers"))
    by_name = {b.name: b for b in bufs}
    args = [by_name.get(a, a) if isinstance(a, str) else a for a in _args(args)]
    return volta.Launch(grid=grid, block=block, args=args, buffers=bufs, kernel=kernel,
                        symbols=d.get("symbols") or {}, shared_dynamic=int(shared_dynamic or 0),
                        functions=d.get("functions") or {})


def execute(job: Job) -> dict:
    """Run one job in this process; returns (verdict, exit_code, report dict). Errors propagate."""
    import volta

    d, base = job.data, job.base
    cmd = _command(d, f"job {job.id}")
    opts = {k: d[k] for k in ("arch",) if k in d}
    if "nvcc_flags" in d:
        opts["nvcc_flags"] = tuple(d["nvcc_flags"])
    if cmd == "kernelbench":
        r = volta.kernelbench(_resolve(base, d["problem"]), _resolve(base, d["candidate"]), d.get("sizes") or {},
                              ragged=bool(d.get("ragged", False)),
                              **{k: d[k] for k in ("timeout_ms", "arch", "require_kernel", "eval_mode", "tolerance")
                                 if k in d})
        return _summary(cmd, r)
    if "manifest" in d:
        man = _resolve(base, d["manifest"])
        if cmd is None:
            from volta.launch.spec import load_manifest

            cmd = "check" if {"ref", "opt"} <= set(load_manifest(Path(man)).launches) else "races"
        target, launch = man, None
    elif cmd == "check":
        ref_launch = _launch(d, d["grid"], d["block"], d.get("args"), d.get("kernel_name", d.get("ref_kernel")),
                             d.get("shared_dynamic"))
        opt_launch = None
        if any(k.startswith("opt_") for k in d):
            opt_launch = _launch(d, d.get("opt_grid", d["grid"]), d.get("opt_block", d["block"]),
                                 d.get("opt_args", d.get("args")), d.get("opt_kernel", d.get("kernel_name")),
                                 d.get("opt_shared_dynamic", d.get("shared_dynamic")))
        r = volta.check(_resolve(base, d["ref"]), _resolve(base, d["opt"]), ref_launch, opt_launch=opt_launch,
                        **_check_opts(d), **opts)
        return _summary(cmd, r)
    else:
        target = _resolve(base, d["kernel"])
        launch = _launch(d, d["grid"], d["block"], d.get("args"), d.get("kernel_name"), d.get("shared_dynamic"))
    if cmd == "check":
        r = volta.check(target, **_check_opts(d), **opts)
    elif cmd == "races":
        r = volta.races(target, launch, **({"role": d["role"]} if "role" in d else {}), **opts)
    else:
        run_opts = {k: d[k] for k in ("inputs", "seed", "fp") if k in d}
        if "role" in d:
            run_opts["role"] = d["role"]
        r = volta.run(target, launch, **run_opts, **opts)
    return _summary(cmd, r)


def _check_opts(d: dict) -> dict:
    return {k: d[k] for k in ("fp", "prove", "trials", "seed", "timeout_ms") if k in d}


def _summary(cmd: str, r) -> dict:
    try:
        report = json.loads(r.report("json"))
    except Exception:  # a report that has no JSON form still has its verdict
        report = None
    if cmd == "run" and isinstance(report, dict):
        report.pop("buffers", None)  # summaries of every buffer: kept out of the result line
    return {"command": cmd, "verdict": r.verdict, "exit_code": r.exit_code, "report": report}


def _grace(timeout_s: float) -> float:
    """Seconds between a job's own deadline and its kill: the report of the work done, and a KernelBench job's
    worker killed past the deadline (`confined.MARGIN_SECONDS`), fit in them; a quarter of a short limit."""
    return min(15.0, timeout_s / 4)


def _child(job: Job, memory_mb: int | None, timeout_s: float | None, conn) -> None:
    """The isolated process: limits, run, send the result, exit (never returns to the caller's code)."""
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and kills us
        import gc

        gc.freeze()  # the inherited heap is never collected here: no copy-on-write of every page by the collector
        if memory_mb:
            import resource

            # the job may add memory_mb of address space to what the warm process already maps (a Ray worker
            # maps gigabytes it never touches, so an absolute limit would starve it before the job starts)
            limit = _vm_bytes() + int(memory_mb) * 1024 * 1024
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        start = time.perf_counter()
        deadline = None if not timeout_s else time.monotonic() + timeout_s - _grace(timeout_s)
        from volta.exec import limits

        try:
            with limits.using(timeout=timeout_s, deadline=deadline):
                out = {"status": "ok", **execute(job), "error": None}
        except limits.Timeout as err:  # out of time outside what the command reports itself (reading a kernel …)
            out = {"status": "timeout", "verdict": "timeout", "exit_code": 3, "report": None,
                   "error": f"ran out of its {timeout_s:g} s (--timeout) before a report: {' '.join(str(err).split())}"}
        except MemoryError:
            out = {"status": "memory", "verdict": "memory", "exit_code": 3, "report": None,
                   "error": f"the job ran out of memory (limit {memory_mb} MB: --memory-mb)"}
        except UsageError as err:
            out = {"status": "error", "verdict": "error", "exit_code": 2, "report": None,
                   "error": " ".join(str(err).split())}
        except Exception as err:  # a bug or unexpected failure: reported, not raised
            from volta.errors import VoltaError

            code = err.exit_code if isinstance(err, VoltaError) else 3
            out = {"status": "error", "verdict": "error", "exit_code": code, "report": None,
                   "error": f"{type(err).__name__}: {' '.join(str(err).split())}"}
        out["seconds"] = round(time.perf_counter() - start, 4)
        conn.send(out)
    except BaseException:
        status = 1
    finally:
        try:
            conn.close()
        finally:
            os._exit(status)


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _start(job: Job, memory_mb: int | None, timeout_s: float | None):
    """Fork the child for `job` (from the calling thread, which should be the only one running Python)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(job, memory_mb, timeout_s, send), daemon=True)
    proc.start()
    send.close()
    return proc, recv, time.perf_counter()


def _finish(job: Job, proc, recv, start: float, out: dict | None, timed_out: bool, timeout_s, memory_mb) -> dict:
    """The result line of a child that sent `out` (None: it timed out or died), after reaping it."""
    elapsed = time.perf_counter() - start
    if out is None:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        if timed_out:
            out = {"status": "timeout", "verdict": "timeout", "exit_code": 3, "report": None,
                   "error": f"killed after {timeout_s:g} s (--timeout); nothing is claimed"}
        else:
            code = proc.exitcode
            why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            hint = " (likely out of memory: --memory-mb)" if memory_mb else ""
            out = {"status": "crashed", "verdict": "crashed", "exit_code": 3, "report": None,
                   "error": f"the job's process died: {why}{hint}"}
        out["seconds"] = round(elapsed, 4)
    proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join(1)
    recv.close()
    return {"schema": SCHEMA, "id": job.id, "command": out.pop("command", None) or job.command, **out}


def _receive(recv):
    try:
        return recv.recv()
    except (EOFError, OSError):
        return None


def run_isolated(job: Job, timeout_s: float | None, memory_mb: int | None) -> dict:
    """Run `job` in a forked child with the limits; kill it at the timeout (what each Ray task does)."""
    proc, recv, start = _start(job, memory_mb, timeout_s)
    out, timed_out = None, False
    try:
        if recv.poll(timeout_s):
            out = _receive(recv)
        else:
            timed_out = True
    finally:
        result = _finish(job, proc, recv, start, out, timed_out, timeout_s, memory_mb)
    return result


def _preload() -> None:
    """Import what every job needs once, in the parent, so forked children start warm."""
    import numpy.random  # noqa: F401

    import volta.api  # noqa: F401
    import volta.equiv.check  # noqa: F401
    import volta.session.races  # noqa: F401
    import volta.session.replay  # noqa: F401


# ---- the pool and Ray -------------------------------------------------------------------------------------

def run_pool(jobs: list[Job], workers: int, timeout_s, memory_mb, on_result: Callable[[dict], None]) -> None:
    """Run jobs `workers` at a time, each in a child forked from this (single) thread; wait on their pipes with
    the nearest deadline, kill a child at its timeout, and call on_result as each job ends."""
    from multiprocessing.connection import wait

    _preload()
    queue = list(reversed(jobs))
    running: dict = {}  # pipe -> (job, proc, start)
    try:
        while queue or running:
            while queue and len(running) < max(1, workers):
                job = queue.pop()
                proc, recv, start = _start(job, memory_mb, timeout_s)
                running[recv] = (job, proc, start)
            now = time.perf_counter()
            wait_s = None
            if timeout_s is not None:
                wait_s = max(0.0, min(start + timeout_s for _, _, start in running.values()) - now)
            ready = wait(list(running), timeout=wait_s)
            for recv in ready:
                job, proc, start = running.pop(recv)
                on_result(_finish(job, proc, recv, start, _receive(recv), False, timeout_s, memory_mb))
            if timeout_s is not None:
                now = time.perf_counter()
                for recv, (job, proc, start) in list(running.items()):
                    if now - start >= timeout_s:
                        del running[recv]
                        on_result(_finish(job, proc, recv, start, None, True, timeout_s, memory_mb))
    finally:
        for recv, (job, proc, start) in running.items():  # interrupted (^C): leave no child behind
            if proc.is_alive():
                proc.kill()
            proc.join(1)


def run_ray(jobs: list[Job], address: str | None, timeout_s, memory_mb, on_result: Callable[[dict], None],
            num_cpus: int | None = None) -> None:
    """The same jobs as Ray tasks (one CPU each); each task runs `run_isolated`, so limits and results match the
    local pool. `address` None or "local" starts a local Ray instance; otherwise ray.init(address=...)."""
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs Ray: `pip install 'volta[ray]'` (or `pip install ray`)") from None
    started = False
    if not ray.is_initialized():
        import logging

        kwargs = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True,
                  "logging_level": logging.ERROR}
        if address in (None, "", "local"):
            if num_cpus:
                kwargs["num_cpus"] = num_cpus
        else:
            kwargs["address"] = address
        try:
            ray.init(**kwargs)
        except Exception as err:
            raise UsageError(f"could not start or join Ray at {address or 'a local instance'}: "
                             f"{' '.join(str(err).split())}") from None
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
        refs = {task.remote(job, timeout_s, memory_mb): job for job in jobs}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                job = refs[ref]
                try:
                    result = ray.get(ref)
                except Exception as err:  # the worker died or the task failed outside the isolated child
                    result = {"schema": SCHEMA, "id": job.id, "command": job.data.get("command"),
                              "status": "crashed", "verdict": "crashed", "exit_code": 3, "report": None,
                              "error": f"Ray task failed: {type(err).__name__}: {' '.join(str(err).split())[:500]}",
                              "seconds": None}
                on_result(result)
    finally:
        if started:
            ray.shutdown()


def _ray_task(job: Job, timeout_s, memory_mb) -> dict:
    _preload()
    return run_isolated(job, timeout_s, memory_mb)


# ---- output, resume, summary ------------------------------------------------------------------------------

def done_ids(out_path: str) -> set:
    """Job ids already in an output file (a truncated last line, from an interruption, is ignored)."""
    ids = set()
    try:
        with open(out_path) as fh:
            for line in fh:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and "id" in obj:
                    ids.add(str(obj["id"]))
    except FileNotFoundError:
        pass
    return ids


@dataclass
class Summary:
    results: list = field(default_factory=list)
    skipped: int = 0
    seconds: float = 0.0

    def add(self, r: dict) -> None:
        self.results.append(r)

    @property
    def exit_code(self) -> int:
        """0 every job 0; else 2 if a job was bad input; else 1 if any job found something; else 3."""
        codes = {r.get("exit_code", 3) for r in self.results}
        if codes <= {0}:
            return 0
        for c in (2, 1, 3):
            if c in codes:
                return c
        return 3

    def progress_line(self, total: int, elapsed: float) -> str:
        """After each finished job: `12/200 jobs done (1 not ok, 3 with findings), last cand-17: not-equivalent in
        3.2 s, ETA 2 min 40 s` (the ETA from the mean time per job so far, with the jobs running in parallel)."""
        done = len(self.results)
        not_ok = sum(1 for r in self.results if r.get("status") != "ok")
        found = sum(1 for r in self.results if r.get("status") == "ok" and r.get("exit_code") == 1)
        last = self.results[-1]
        left = total - done
        eta = f", ETA {_duration(elapsed / done * left)}" if left else ""
        return (f"{done}/{total} jobs done ({not_ok} not ok, {found} with findings), last {last.get('id')}: "
                f"{last.get('verdict')} in {last.get('seconds') or 0:.1f} s{eta}")

    def table(self) -> str:
        by: dict = {}
        for r in self.results:
            key = (r.get("command") or "?", r.get("verdict") or "?")
            n, secs = by.get(key, (0, 0.0))
            by[key] = (n + 1, secs + (r.get("seconds") or 0.0))
        lines = [f"{'command':<8} {'verdict':<22} {'jobs':>6} {'seconds':>9}"]
        for (cmd, verdict), (n, secs) in sorted(by.items()):
            lines.append(f"{cmd:<8} {verdict:<22} {n:>6} {secs:>9.2f}")
        n = len(self.results)
        rate = 60 * n / self.seconds if self.seconds > 0 else 0.0
        lines.append(f"{n} job(s) in {self.seconds:.1f} s ({rate:.0f} jobs/min)"
                     + (f"; {self.skipped} skipped (already in the output: --resume)" if self.skipped else ""))
        bad = [r for r in self.results if r.get("status") != "ok"]
        for r in bad[:10]:
            lines.append(f"  {r['id']}: {r.get('status')}: {r.get('error')}")
        if len(bad) > 10:
            lines.append(f"  … and {len(bad) - 10} more not ok")
        return "\n".join(lines)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def run_batch(jobs_path: str, *, workers: int = 1, out: str | None = None, resume: bool = False,
              timeout_s: float | None = 300.0, memory_mb: int | None = 4096, ray_address: str | None = None,
              use_ray: bool = False, stream=None, ray_cpus: int | None = None, progress=None) -> Summary:
    """Run every job of `jobs_path`, writing one JSON line per result to `out` (appending with `resume`) or
    `stream`; returns the Summary. `progress`, when given, is called with a line after each finished job."""
    jobs = load_jobs(jobs_path)
    if resume and not out:
        raise UsageError("--resume needs --out FILE: it skips the jobs whose ids that file already holds")
    if workers < 1:
        raise UsageError(f"--workers {workers}: at least 1")
    summary = Summary()
    if resume:
        done = done_ids(out)
        summary.skipped = sum(1 for j in jobs if j.id in done)
        jobs = [j for j in jobs if j.id not in done]
    fh = None
    if out:
        try:
            fh = open(out, "a" if resume else "w")
        except OSError as err:
            raise UsageError(f"cannot write {out}: {err.strerror or err}") from None
        _terminate_last_line(out, fh) if resume else None
    sink = fh or stream or sys.stdout

    def on_result(r: dict) -> None:
        sink.write(json.dumps(r, default=str) + "\n")
        sink.flush()
        summary.add(r)
        if progress is not None:
            progress(summary.progress_line(len(jobs), time.perf_counter() - start))

    start = time.perf_counter()
    try:
        if use_ray:
            run_ray(jobs, ray_address, timeout_s, memory_mb, on_result, num_cpus=ray_cpus)
        else:
            run_pool(jobs, workers, timeout_s, memory_mb, on_result)
    finally:
        summary.seconds = time.perf_counter() - start
        if fh is not None:
            fh.close()
    return summary


def _terminate_last_line(path: str, fh) -> None:
    """After an interruption the file may end mid-line: end it, so the next result starts a line of its own."""
    try:
        with open(path, "rb") as r:
            r.seek(0, os.SEEK_END)
            if r.tell() == 0:
                return
            r.seek(-1, os.SEEK_END)
            if r.read(1) != b"\n":
                fh.write("\n")
    except OSError:
        pass


def iter_results(path: str) -> Iterable[dict]:
    with open(path) as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)
