"""The call trace (volta/kernelbench/isolation/calltrace.py): recorded from the candidate's frames in the worker,
replayed in Volta's process, which finds call 1's stream races itself; a malformed or lying trace is refused."""
import pytest

from volta.kernelbench.evidence import Instance
from volta.kernelbench.isolation import calltrace
from volta.kernelbench.streams import MAIN, Ordering, cuda_functions

H = ["h", 0]


def _race(*calls):
    return calltrace.races(_entries([["forward"], *calls]), [])


def _entries(trace: list) -> list:
    """The recorder's entries from short ones: a call's keyword arguments and observed result (the value
    replay's, `isolation/values.py`) and an extension entry's storage addresses left empty."""
    return [e + [[], None] if e[:1] == ["call"] and len(e) == 5 else e + [[]] if e[:1] == ["host"] and len(e) == 4
            else e for e in trace]


def test_work_on_a_side_stream_not_joined_is_a_race():
    found = _race(["call", "cuda.Stream", [None, 0], ["h", 0], 3], ["call", "cuda.stream", [H], ["h", 1], 4],
                  ["call", "StreamContext.__enter__", [["h", 1]], H, 4], ["call", "op:pointwise:relu", [], None, 5],
                  ["call", "StreamContext.__exit__", [["h", 1], None, None, None], None, 4])
    assert found == ["`relu` at line 5 on stream 2"]


@pytest.mark.parametrize("join", [
    [["call", "cuda.current_stream", [None], ["h", 2], 7], ["call", "Stream.wait_stream", [["h", 2], H], None, 7]],
    [["call", "Stream.synchronize", [H], None, 7]],
    [["call", "cuda.synchronize", [None], None, 7]],
])
def test_work_joined_before_return_is_no_race(join):
    assert _race(["call", "cuda.Stream", [None, 0], H, 3], ["call", "cuda.stream", [H], ["h", 1], 4],
                 ["call", "StreamContext.__enter__", [["h", 1]], H, 4], ["call", "op:pointwise:relu", [], None, 5],
                 ["call", "StreamContext.__exit__", [["h", 1], None, None, None], None, 4], *join) == []


def test_work_on_the_caller_s_stream_is_no_race():
    assert _race(["call", "op:pointwise:relu", [], None, 5]) == []


@pytest.mark.parametrize("trace, why", [
    ([["call", "op:x", [], None, 1]], "does not show call 1's forward"),
    ([["forward"], ["call", "cuda.stream", [["h", 0]], ["h", 0], 4]], "no stream or event an earlier call made"),
    ([["forward"], ["call", "cuda.Stream", [None, 0], ["h", 3], 3]], "returned handle 3; here it returns another"),
    ([["forward"], ["call", "cuda.Stream", [None, 0], None, 3]], "returned no stream or event"),
    ([["forward"], ["call", "Stream.wait_stream", [["?"], ["?"]], None, 3]], "no such call"),
    ([["forward"], ["call", "cuda.stream", [["?"]], ["h", 0], 3],
      ["call", "StreamContext.__enter__", [["h", 0]], None, 3]], "its arguments are not the call's"),
    ([["forward"], ["host", 0, 1, 3]], "names extension calls 1-1 out of order or not made"),
    ([["forward"], ["call", "cuda.Stream"]], "is malformed"),
    ([["forward"], ["call", "op:x:y", [], ["h", 0], 3]], "a call outside the stream surface returned a stream"),
])
def test_a_malformed_or_lying_trace_is_refused_naming_the_entry(trace, why):
    with pytest.raises(calltrace.BadTrace) as err:
        calltrace.races(_entries(trace), [])
    assert why in err.value.reason


def test_the_recorder_sees_the_candidate_s_calls_and_their_streams(tmp_path):
    """A function compiled as the candidate's file calls the stand-in's stream functions: each call is an entry,
    the streams are handles, and the replay of the recorded trace finds the race the calls make."""
    _recorded(tmp_path, "    with cuda['stream'](s):\n")


def test_a_call_through_the_standard_library_is_the_candidate_s_call(tmp_path):
    """`ExitStack.enter_context(torch.cuda.stream(s))`: contextlib makes the enter and exit calls, the candidate
    asked for them."""
    _recorded(tmp_path, "    with contextlib.ExitStack() as stack:\n        stack.enter_context(cuda['stream'](s))\n")


def _recorded(tmp_path, enter: str) -> None:
    ordering = Ordering()
    cuda = cuda_functions(ordering)
    path = str(tmp_path / "candidate.py")
    source = "import contextlib\ndef forward(cuda, work):\n    s = cuda['Stream']()\n" + enter + "        work()\n"
    namespace: dict = {}
    exec(compile(source, path, "exec"), namespace)
    recorder = calltrace.Recorder(Instance(False, ""))
    recorder.forward()
    with recorder.tracing():
        namespace["forward"](cuda, ordering.sync_device.__self__.begin)    # a Volta call as the work
    names = [e[1].split("@")[0] for e in recorder.entries if e[0] == "call"]
    assert names == ["cuda.Stream", "cuda.stream", "StreamContext.__enter__", "op:kernelbench/streams:Ordering.begin",
                     "StreamContext.__exit__", "op:kernelbench/isolation/calltrace:_Tracing.__exit__"]   # (no Volta code)
    assert ordering.current == MAIN
    work_line = source.count("\n")
    assert calltrace.races(recorder.entries, []) == [f"`Ordering.begin` at line {work_line} on stream 2"]
