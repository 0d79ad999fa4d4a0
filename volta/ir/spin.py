"""Polling loads: reads a loop repeats until their value lets the thread go on (spin-waits on a flag).

`while (*flag == 0) {}` compiles to a loop whose exit test depends on a load of the flag. Such a read sees
whatever another thread last stored there, by design: the loop retries until the value it waits for arrives,
so the value it happens to read does not decide what the thread computes. The ordering-race check
(volta/exec/races/shadow.py) therefore does not report a polling read against the write it waits for; whether that
write's *other* effects are ordered before what follows the loop is decided by the memory model (a fence or
release/acquire pattern, volta/exec/races/memmodel.py), not here.

A load is polling when it lies on a cycle of the CFG (a loop, found as a strongly connected component of the
block graph) and a conditional branch of that loop that can leave it has a predicate computed, through
registers, from the load's destination within the loop.
"""
from __future__ import annotations

from volta.ir import cfg as CFG

LOADS = ("ld", "ldu")


def polling_loads(prog) -> frozenset:
    """Indices of the `ld` instructions of `prog` that are polling reads (cached on the program's CFG)."""
    cfg = prog.cfg
    if cfg.polling is not None:
        return cfg.polling
    found = set()
    blocks = _blocks(prog, cfg)
    for component in CFG.strongly_connected_components(cfg.graph):
        if len(component) == 1:
            (lead,) = component
            if lead not in cfg.graph.get(lead, ()):
                continue
        members = [i for lead in sorted(component) if lead != CFG.EXIT for i in blocks[lead]]
        loads = [i for i in members if prog.ops[i].op in LOADS]
        if not loads:
            continue
        exits = [i for i in members if prog.ops[i].op == "bra" and prog.ops[i].guard is not None
                 and any(s == CFG.EXIT or _block_of(blocks, s) not in component for s in CFG.successors(prog, i))]
        if not exits:
            continue
        for i in loads:
            if _steers(prog, members, i, exits):
                found.add(i)
    cfg.polling = frozenset(found)
    return cfg.polling


def _steers(prog, members: list, load: int, exits: list) -> bool:
    """Does the value loaded at `load` reach the predicate of one of the `exits` through the loop's registers?"""
    tainted = set(CFG.uses(prog.ops[load])[1])
    changed = True
    while changed:
        changed = False
        for i in members:
            reads, writes = CFG.uses(prog.ops[i])
            if reads & tainted and not writes <= tainted:
                tainted |= writes
                changed = True
    return any(prog.ops[b].guard[0] in tainted for b in exits)


def _blocks(prog, cfg) -> dict:
    """leader -> the instruction indices of its basic block."""
    leaders = cfg.leaders
    n = len(prog.ops)
    return {lead: range(lead, leaders[k + 1] if k + 1 < len(leaders) else n) for k, lead in enumerate(leaders)}


def _block_of(blocks: dict, i: int) -> int:
    for lead, r in blocks.items():
        if i in r:
            return lead
    return CFG.EXIT
