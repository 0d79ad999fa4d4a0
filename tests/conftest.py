"""Suite-wide test plumbing: the `isolated` marker, which runs a test's body in a forked child.

Volta interns every symbolic node for the life of the process (volta/symbolic/expr.py), exact concrete
runs included, so a process that checks every example pair keeps every pair's DAG: one pytest process
grew to 4.6 GB over the suite. A test marked `isolated` runs its body in a child forked after its fixtures
are set up; what the body interns goes when the child exits, and the worker stays near its start size.
Fixtures stay in the parent (module-scoped ones are built once), and the child's outcome comes back: a
pass, a skip or xfail as itself, anything else as a failure carrying the child's traceback. What the body
changes in module-level state (a counter, a cache) stays in the child. Where there is no fork (Windows),
the body runs in the process as usual.

Memory: after each test, when the worker's peak resident size (or that of a child it waited for: an isolated
body, nvcc) passed PEAK_RSS_WARN_MB during the test, the test gets a warning that names the peak (the suite
is meant to stay under 2 GB on CI's machine; a layer-norm element once took a worker to 20 GB). A warning,
not a failure: the peak is the process's, and where other tests left it decides how much one more adds.
$VOLTA_TEST_PEAK_RSS_MB sets another threshold.

Order: the tests marked `slow` (the sweeps, tens of seconds each) run first. pytest-xdist's worksteal hands each
worker a contiguous share of the list and lets an idle worker take half of another's remaining share, so with
the long tests at the front they are spread over the workers from the start; at the end of the list they were
the tail one worker ran alone while the other sat idle.

Bytecode: where PYTHONDONTWRITEBYTECODE is set, every pytest process compiled every test module (and pytest
rewrote its asserts) and every Volta module from source again: half of the ~13 CPU s each xdist worker spent
collecting. The suite writes the compiled files to `__pycache__/` beside the sources, which .gitignore leaves out
and where the KernelBench worker (whose environment drops that variable) already writes Volta's, for this
process, its workers and the commands it starts; Python checks each file against its source before using it.
(Python's PYTHONPYCACHEPREFIX, a tree elsewhere, was the other way: it ignores the site-packages' own bytecode,
so a first run compiled torch's and numpy's modules again.)

Hypothesis runs under one profile with no deadline and no "too slow" health check: tests never assert on wall
time (benchmarks/ measure speed), and a loaded 2-core machine drew one 12-element list in 1.3 s.
"""
from __future__ import annotations

import gc
import os
import pickle
import sys
import traceback

try:
    import resource
except ImportError:   # Windows: no peak-memory warning
    resource = None

if sys.dont_write_bytecode:   # before pytest imports and rewrites a test module
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("volta", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("volta")

# pytest's own outcomes, raised again in the parent as themselves (xfail first: it is a kind of fail)
OUTCOMES = ((pytest.xfail.Exception, pytest.xfail), (pytest.skip.Exception, pytest.skip),
            (pytest.fail.Exception, lambda message: pytest.fail(message, pytrace=False)))


@pytest.hookimpl(trylast=True)   # after pytest's own reordering by fixture (which would undo this)
def pytest_collection_modifyitems(items):
    """The `slow` tests first, each group in its collected order (a stable sort)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _child(pyfuncitem, write_fd: int) -> None:
    """Run the body and send back (index into OUTCOMES or None, message or traceback text); never returns."""
    status = 0
    try:
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        try:
            pyfuncitem.obj(**args)
            payload = (None, "")
        except BaseException as exc:  # noqa: BLE001 -- every outcome goes back to the parent
            kind = next((k for k, (cls, _) in enumerate(OUTCOMES) if isinstance(exc, cls)), None)
            payload = (kind, exc.msg) if kind is not None else (None, "".join(traceback.format_exception(exc)))
        with os.fdopen(write_fd, "wb") as pipe:
            pickle.dump(payload, pipe)
    except BaseException:  # noqa: BLE001
        status = 1
    finally:
        os._exit(status)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if pyfuncitem.get_closest_marker("isolated") is None or not hasattr(os, "fork"):
        return None
    read_fd, write_fd = os.pipe()
    gc.freeze()   # the child's collections skip the parent's objects (and do not copy their pages)
    try:
        pid = os.fork()
    finally:
        gc.unfreeze()
    if pid == 0:
        os.close(read_fd)
        _child(pyfuncitem, write_fd)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        pytest.fail(f"the forked child running this test died ({_describe(status)}) before reporting", pytrace=False)
    kind, text = pickle.loads(data)
    if kind is not None:
        OUTCOMES[kind][1](text)
    if text:
        pytest.fail(f"in the forked child:\n{text}", pytrace=False)
    return True


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


PEAK_RSS_WARN_MB = float(os.environ.get("VOLTA_TEST_PEAK_RSS_MB", 1536))


def _peak_rss_mb() -> float:
    """The largest resident size this process or any child it waited for has had (Linux: KiB)."""
    return max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if resource is None:
        yield
        return
    before = _peak_rss_mb()
    yield
    after = _peak_rss_mb()
    if after > PEAK_RSS_WARN_MB and after > before:
        item.warn(pytest.PytestWarning(f"peak resident memory reached {after:.0f} MB during this test (from "
                                       f"{before:.0f} MB), past {PEAK_RSS_WARN_MB:.0f} MB"))
