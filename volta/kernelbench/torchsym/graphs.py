"""CUDA graphs for the stand-in: `torch.cuda.CUDAGraph`, `torch.cuda.graph(g)`, `make_graphed_callables`.

A CUDA graph records kernels with the addresses they were captured with; `replay()` reruns them on whatever
those addresses hold at replay, and capture itself runs nothing. So a candidate that captures once and
replays on later calls is right only if it copies each new input into the captured (static) input first,
and its result is the static output, which the next replay overwrites.

Capture here: every storage alive when capture begins gets placeholder leaves (`graph#g:s`, one per storage)
in place of its elements; the code in the `with` block runs on them (torch ops and launches alike); at the
end, every storage the block wrote — alive before or made during it — keeps its elements as expressions over
the placeholders (the recorded work), the storages alive before get their own elements back (capture ran
nothing), and the ones made during capture are unwritten until a replay. `replay()` substitutes, for every
placeholder, what its storage holds now, and writes the recorded storages, all reads before any write.
"""
from __future__ import annotations

import numpy as np

from volta.kernelbench.elements import UNWRITTEN, replace_leaves
from volta.kernelbench.failures import TorchError, unsupported
from volta.kernelbench.torchsym.module import Module
from volta.symbolic import expr as E


class _Recording:
    """What one capture recorded: the storages it wrote and their elements over the placeholders."""

    def __init__(self, gid: str, sources: list, written: list):
        self.gid = gid
        self.sources = sources              # storages alive at capture, index = placeholder number
        self.written = written              # (storage, elements over placeholders)


def placeholder_name(gid: str, index: int) -> str:
    return f"graph#{gid}:{index}"


def make_cuda_graph_class(run):
    """torch.cuda.CUDAGraph bound to a Run (its session's storages are what capture sees)."""

    class CUDAGraph:
        def __init__(self, keep_graph: bool = False):
            self._recording: _Recording | None = None
            self._capture = None

        def capture_begin(self, pool=None, capture_error_mode: str = "global"):
            if self._capture is not None:
                raise TorchError("CUDA graph capture already in progress")
            session = run.session
            if not session.kit.symbolic:
                raise unsupported("torch.cuda.CUDAGraph", "graphs are modelled in symbolic runs only")
            gid = f"{id(self):x}"
            sources = list(session.live)
            saved = []
            for j, storage in enumerate(sources):
                saved.append(storage.values.copy())
                name = placeholder_name(gid, j)
                storage.values[:] = [E.var(name, i) for i in range(storage.size)]
            self._capture = (gid, sources, saved, {id(s) for s in sources})

        def capture_end(self):
            if self._capture is None:
                raise TorchError("capture_end() called without capture_begin()")
            gid, sources, saved, before = self._capture
            self._capture = None
            written = []
            for j, (storage, old) in enumerate(zip(sources, saved)):
                name = placeholder_name(gid, j)
                now = storage.values
                if any(not (type(v) is E.Expr and v.op is E.VAR and v.data == (name, i)) for i, v in enumerate(now)):
                    written.append((storage, now.copy()))
                storage.values[:] = old
            for storage in list(run.session.live):
                if id(storage) not in before:
                    written.append((storage, storage.values.copy()))
                    storage.values[:] = [UNWRITTEN] * storage.size
            self._recording = _Recording(gid, sources, written)

        def replay(self):
            recording = self._recording
            if recording is None:
                raise TorchError("CUDAGraph::replay called on a graph that was not captured")
            prefix = f"graph#{recording.gid}:"
            memo: dict = {}
            results = [(storage, _substitute(elements, prefix, recording.sources, memo))
                       for storage, elements in recording.written]
            for storage, values in results:
                storage.values[:] = values

        def reset(self):
            self._recording = None

        def pool(self):
            return ("graph-pool", id(self))

        def enable_debug_mode(self):
            return None

        def debug_dump(self, path):
            return None

    return CUDAGraph


def _substitute(elements: np.ndarray, prefix: str, sources: list, memo: dict) -> np.ndarray:
    """The recorded elements with each placeholder replaced by its storage's element now; an element that
    reads an element nothing wrote is unwritten itself (on a GPU: whatever that memory held)."""
    def now(node):
        if node.op is E.VAR and isinstance(node.data[0], str) and node.data[0].startswith(prefix):
            value = sources[int(node.data[0][len(prefix):])].values[node.data[1]]
            return value if type(value) is E.Expr else UNWRITTEN
        return None
    return replace_leaves(elements, now, memo)


class _GraphContext:
    """torch.cuda.graph(g): capture on enter, end capture on exit."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global"):
        self.cuda_graph = cuda_graph

    def __enter__(self):
        self.cuda_graph.capture_begin()
        return self

    def __exit__(self, kind, error, tb):
        self.cuda_graph.capture_end()
        return False


def make_graphed_callables_for(graph_class):
    """torch.cuda.make_graphed_callables: each callable captured once on its sample arguments (static
    inputs); a call copies its arguments into them, replays, and returns the static outputs themselves (as
    torch does: the next call overwrites them)."""

    def make_graphed_callables(callables, sample_args, num_warmup_iters: int = 3,
                               allow_unused_input: bool = False, pool=None):
        single = not isinstance(callables, tuple)
        fns = (callables,) if single else callables
        samples = (sample_args,) if single else sample_args
        graphed = [_graphed(graph_class, fn, tuple(args)) for fn, args in zip(fns, samples)]
        return graphed[0] if single else tuple(graphed)

    return make_graphed_callables


def _graphed(graph_class, fn, sample_args: tuple):
    static_inputs = tuple(a.clone() if hasattr(a, "clone") else a for a in sample_args)
    g = graph_class()
    with _GraphContext(g):
        static_outputs = fn(*static_inputs)

    def call(*args):
        if len(args) != len(static_inputs):
            raise TorchError(f"a graphed callable captured with {len(static_inputs)} argument(s) got {len(args)}")
        for static, new in zip(static_inputs, args):
            if hasattr(static, "copy_"):
                static.copy_(new)
        g.replay()
        return static_outputs
    if isinstance(fn, Module):      # torch returns the module, its forward replaced
        object.__setattr__(fn, "forward", call)
        return fn
    call.__name__ = getattr(fn, "__name__", "graphed")
    return call


def functions(run) -> dict:
    """The torch.cuda names this module defines, bound to a Run."""
    graph_class = make_cuda_graph_class(run)
    return {"CUDAGraph": graph_class, "graph": _GraphContext,
            "make_graphed_callables": make_graphed_callables_for(graph_class),
            "graph_pool_handle": lambda: ("graph-pool", 0), "is_current_stream_capturing": lambda: False}
