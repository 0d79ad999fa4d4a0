"""streams.Ordering: which work is ordered before the caller's next read, and deferred host threads."""
import concurrent.futures
import threading

import pytest

from volta.errors import Unsupported
from volta.kernelbench.streams import MAIN, Ordering, deferred_threads

SIDE = ("cpp", 16)


def labels(ordering):
    return [w.label for w in ordering.unordered()]


def test_side_work_needs_a_join():
    o = Ordering()
    o.enqueue(MAIN, "main work")
    o.enqueue(SIDE, "side work")
    assert labels(o) == ["side work"]
    o.sync_stream(SIDE)
    assert labels(o) == []


def test_an_event_covers_only_work_before_its_record():
    o = Ordering()
    o.enqueue(SIDE, "before")
    o.record("e", SIDE)
    o.enqueue(SIDE, "after")
    o.wait_event(MAIN, "e")
    assert labels(o) == ["after"]
    o.sync_event("e")
    assert labels(o) == ["after"]
    o.wait_stream(MAIN, SIDE)
    assert labels(o) == []


def test_joins_compose_through_streams():
    o = Ordering()
    other = ("python", 9)
    o.enqueue(SIDE, "k")
    o.wait_stream(other, SIDE)       # other waits for SIDE; MAIN waits for other: MAIN is after k
    o.wait_stream(MAIN, other)
    assert labels(o) == []


def test_device_sync_and_blocking_streams():
    o = Ordering()
    o.enqueue(SIDE, "k")
    o.sync_device()
    o.enqueue(SIDE, "k2")
    assert labels(o) == ["k2"]
    o.cpp_sync("stream_create", {"stream": 17, "flags": 0})    # blocking: the legacy stream waits for it
    o.enqueue(("cpp", 17), "blocking")
    o.cpp_sync("stream_create", {"stream": 18, "flags": 1})    # cudaStreamNonBlocking
    o.enqueue(("cpp", 18), "non-blocking")
    assert labels(o) == ["k2", "non-blocking"]


def test_stream_zero_is_the_current_stream_at_the_call():
    o = Ordering()
    o.current = ("python", 3)
    assert o.cpp_stream(0) == ("python", 3) and o.cpp_stream(5) == ("cpp", 5)


def test_threads_from_the_candidate_are_deferred_to_join():
    ran = []
    source = "def go(ran):\n    t = threading.Thread(target=lambda: ran.append(1))\n    t.start()\n    return t\n"
    code = compile(source, "/tmp/cand_threads.py", "exec")
    namespace = {"threading": threading}
    exec(code, namespace)
    with deferred_threads("/tmp/cand_threads.py") as pending:
        t = namespace["go"](ran)
        assert ran == [] and t.is_alive()
        t.join()
        assert ran == [1] and not t.is_alive()
        namespace["go"](ran)
    assert [p.ran for p in pending] == [True, False] and ran == [1]
    volta_thread = threading.Thread(target=lambda: None)     # Volta's own threads start as usual
    volta_thread.start()
    volta_thread.join()


def test_a_thread_pool_from_the_candidate_is_unsupported():
    source = "def go():\n    with cf.ThreadPoolExecutor(1) as pool:\n        return pool.submit(int).result()\n"
    namespace = {"cf": concurrent.futures}
    exec(compile(source, "/tmp/cand_pool.py", "exec"), namespace)
    with deferred_threads("/tmp/cand_pool.py"):
        with pytest.raises(Unsupported, match="thread pool"):
            namespace["go"]()
