"""CUDA graphs on the stand-in (volta/kernelbench/torchsym/graphs.py): capture runs nothing and records the
work over the storages alive then; replay reruns it on what those storages hold at replay."""
import pytest

from volta.errors import Unsupported
from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.torchsym import installed, new_run
from volta.symbolic import expr as E


def test_replay_reads_the_static_input_at_replay():
    run = new_run()
    with installed(run) as torch:
        static_x = torch.rand(3)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_y = static_x * 2 + 1
        assert all(v is UNWRITTEN for v in static_y.storage.values)       # capture ran nothing
        assert static_x.storage.values[0] is E.var("rand#0", 0)           # and changed nothing
        g.replay()
        assert static_y.storage.values[1] is (static_x * 2 + 1).storage.values[1]
        new = torch.rand(3)
        static_x.copy_(new)
        g.replay()
        assert static_y.storage.values[2] is (new * 2 + 1).storage.values[2]


def test_replay_writes_captured_writes_into_existing_storage():
    run = new_run()
    with installed(run) as torch:
        a, out = torch.rand(2), torch.zeros(2)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out.copy_(a.exp())
        assert out.storage.values[0] is E.const(0)
        g.replay()
        assert out.storage.values[0] is a.exp().storage.values[0]


def test_replay_of_an_unwritten_read_is_unwritten():
    run = new_run()
    with installed(run) as torch:
        x = torch.empty(2)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = x + 1
        g.replay()
        assert all(v is UNWRITTEN for v in y.storage.values)


def test_graphed_callable_returns_the_static_output():
    run = new_run()
    with installed(run) as torch:
        f = torch.cuda.make_graphed_callables(lambda t: t * 3, (torch.zeros(2),))
        first = f(torch.rand(2))
        second = f(torch.rand(2))
        assert first is second


def test_replay_without_capture_is_torchs_error():
    run = new_run()
    with installed(run) as torch:
        with pytest.raises(Exception, match="not captured"):
            torch.cuda.CUDAGraph().replay()


def test_float_runs_refuse_graphs():
    run = new_run(symbolic=False)
    with installed(run) as torch:
        with pytest.raises(Unsupported):
            torch.cuda.CUDAGraph().capture_begin()
