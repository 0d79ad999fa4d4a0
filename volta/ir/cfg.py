"""Control-flow graph of a lowered program (networkx) and immediate post-dominators.

The executor schedules the lanes at the smallest program counter first; for the reducible,
fall-through-ordered CFGs that compilers emit this reconverges divergent lanes exactly at the
immediate post-dominator of the branch, which `ipdom` records so tests can check that claim.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

EXIT = -1


@dataclass
class Cfg:
    graph: nx.DiGraph  # nodes: basic-block leader op index, plus EXIT
    leaders: list
    ipdom: dict  # leader -> immediate post-dominator leader (EXIT for none)


def successors(prog, i: int) -> list[int]:
    op = prog.ops[i]
    n = len(prog.ops)
    if op.op in ("ret", "exit", "trap"):
        return [EXIT] if op.guard is None else [EXIT, i + 1 if i + 1 < n else EXIT]
    if op.op == "bra":
        target = op.operands[0][1]
        if op.guard is None:
            return [target]
        return [target, i + 1 if i + 1 < n else EXIT]
    if op.op == "brx":
        return [EXIT]  # indirect branch: the executor rejects it as unsupported
    return [i + 1 if i + 1 < n else EXIT]


def build_cfg(prog) -> Cfg:
    n = len(prog.ops)
    leaders = {0} if n else set()
    for i in range(n):
        succ = successors(prog, i)
        if prog.ops[i].op in ("bra", "ret", "exit", "trap", "brx"):
            leaders.update(s for s in succ if s != EXIT)
            if i + 1 < n:
                leaders.add(i + 1)
    leaders = sorted(leaders)
    block_of = {}
    current = None
    for i in range(n):
        if i in leaders:
            current = i
        block_of[i] = current
    g = nx.DiGraph()
    g.add_node(EXIT)
    for lead_pos, lead in enumerate(leaders):
        end = leaders[lead_pos + 1] - 1 if lead_pos + 1 < len(leaders) else n - 1
        g.add_node(lead)
        for s in successors(prog, end):
            g.add_edge(lead, block_of[s] if s != EXIT else EXIT)
    ipdom = {}
    if n:
        reachable_exit = g.reverse(copy=True)
        doms = nx.immediate_dominators(reachable_exit, EXIT)
        ipdom = {k: v for k, v in doms.items() if k != EXIT}
    return Cfg(g, leaders, ipdom)
