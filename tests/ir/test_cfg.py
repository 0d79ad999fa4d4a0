"""Immediate post-dominators (volta.ir.cfg) against their definition, on random graphs and lowered kernels."""
from pathlib import Path

from hypothesis import given, settings, strategies as st

from volta.ir.cfg import EXIT, immediate_post_dominators, strongly_connected_components
from volta.ir.program import lower
from volta.ptx.parser import parse_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _reaches_exit(graph, start, avoid) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == EXIT:
            return True
        if node == avoid or node in seen:
            continue
        seen.add(node)
        todo.extend(graph[node])
    return False


def _by_definition(graph) -> dict:
    """d post-dominates n when every path from n to EXIT passes d; the immediate one is the strict
    post-dominator that all the others post-dominate."""
    strict = {n: {EXIT} | {d for d in graph if d != n and not _reaches_exit(graph, n, d)}
              for n in graph if _reaches_exit(graph, n, None)}
    return {n: next(d for d in ds if d == EXIT and ds == {EXIT} or d != EXIT and ds - {d} <= strict[d])
            for n, ds in strict.items()}


@st.composite
def graphs(draw):
    size = draw(st.integers(1, 9))
    targets = st.sampled_from([*range(size), EXIT])
    return {node: tuple(dict.fromkeys(draw(st.lists(targets, min_size=1, max_size=3)))) for node in range(size)}


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_immediate_post_dominators_match_the_definition(graph):
    assert immediate_post_dominators(graph) == _by_definition(graph)


def test_a_diamond_joins_at_its_merge_and_a_loop_that_never_exits_has_none():
    diamond = {0: (1, 2), 1: (3,), 2: (3,), 3: (EXIT,)}
    assert immediate_post_dominators(diamond) == {0: 3, 1: 3, 2: 3, 3: EXIT}
    spin = {0: (1, EXIT), 1: (1,)}
    assert immediate_post_dominators(spin) == {0: EXIT}


def test_kernels_with_branches_and_loops_reconverge_where_the_definition_says():
    for path in ("eq_reduce_seq_tree/opt.sm80.ptx", "bug_barrier_early_return/kernel.sm80.ptx",
                 "eq_gemm_naive_tiled/opt.sm80.ptx"):
        module = parse_file(EXAMPLES / path)
        for entry in module.entries:
            cfg = lower(module, entry.name).cfg
            assert len(cfg.graph) > 1 and cfg.ipdom == _by_definition(cfg.graph), path


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.integers(0, 12), st.lists(st.integers(0, 12), max_size=4).map(tuple), max_size=13))
def test_strongly_connected_components_by_the_definition(graph):
    """Two nodes share a component exactly when each reaches the other; every node is in exactly one."""

    def reach(a):
        seen, todo = {a}, [a]
        while todo:
            for b in graph.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen

    components = strongly_connected_components(graph)
    nodes = set(graph) | {b for succ in graph.values() for b in succ}
    assert sorted(n for c in components for n in c) == sorted(nodes)
    where = {n: c for c in components for n in c}
    reaches = {n: reach(n) for n in nodes}
    for a in nodes:
        for b in nodes:
            assert (where[a] is where[b]) == (b in reaches[a] and a in reaches[b])
