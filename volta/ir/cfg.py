"""Control-flow graph of a lowered program and its immediate post-dominators.

The executor schedules the lanes at the smallest program counter first; for the reducible,
fall-through-ordered CFGs that compilers emit this reconverges divergent lanes exactly at the
immediate post-dominator of the branch, which `ipdom` records so tests can check that claim.
The graph is a plain successor dict and the post-dominators come from Cooper, Harvey and Kennedy's
iterative algorithm ("A Simple, Fast Dominance Algorithm", 2001) run on the reversed graph: a few
lines, where importing a graph library cost a fifth of a small check's start-up.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from volta.ir.nodes import RegRef
from volta.ptx import ast

EXIT = -1


@dataclass
class Cfg:
    graph: dict  # basic-block leader op index -> tuple of successor leaders (EXIT for the kernel's end)
    leaders: list
    ipdom: dict  # leader -> immediate post-dominator leader (EXIT for none)
    live: dict | None = None  # leader -> registers live at entry (live_in, computed on first use)
    regions: dict = field(default_factory=dict)  # (branch pc, allowed) -> Region or the reason there is none
    polling: frozenset | None = None  # loads a spin-wait loop repeats (volta/ir/spin.py, computed on first use)


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
    graph = {}
    for lead_pos, lead in enumerate(leaders):
        end = leaders[lead_pos + 1] - 1 if lead_pos + 1 < len(leaders) else n - 1
        graph[lead] = tuple(dict.fromkeys(block_of[s] if s != EXIT else EXIT for s in successors(prog, end)))
    ipdom = immediate_post_dominators(graph) if n else {}
    return Cfg(graph, leaders, ipdom)


def strongly_connected_components(graph: dict) -> list[frozenset]:
    """The strongly connected components of a successor dict (Tarjan's algorithm, iterative so a long kernel
    cannot exhaust Python's recursion limit); successors that are not keys (EXIT) are nodes of their own."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, succ = work[-1]
            for nxt in succ:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, ()))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    found.append(frozenset(component))
    return found


def immediate_post_dominators(graph: dict) -> dict:
    """node -> its immediate post-dominator (EXIT when only the exit follows it on every path), for the
    nodes of `graph` (node -> successors) from which EXIT is reachable; the others have none.

    Dominators of the reversed graph from EXIT: visit the nodes in reverse postorder of that graph and
    set each one's dominator to the nearest common dominator of its already-placed successors, until
    nothing changes (Cooper, Harvey and Kennedy)."""
    predecessors = {}
    for node, succ in graph.items():
        for s in succ:
            predecessors.setdefault(s, []).append(node)
    postorder, seen, stack = [], {EXIT}, [(EXIT, iter(predecessors.get(EXIT, ())))]
    while stack:
        node, pending = stack[-1]
        for nxt in pending:
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(predecessors.get(nxt, ()))))
                break
        else:
            stack.pop()
            postorder.append(node)
    rank = {node: k for k, node in enumerate(postorder)}  # EXIT ranks highest
    idom = {EXIT: EXIT}

    def common(a, b):
        while a != b:
            while rank[a] < rank[b]:
                a = idom[a]
            while rank[b] < rank[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for node in reversed(postorder[:-1]):
            placed = [s for s in graph[node] if s in idom]
            nearest = placed[0]
            for s in placed[1:]:
                nearest = common(s, nearest)
            if idom.get(node) != nearest:
                idom[node], changed = nearest, True
    del idom[EXIT]
    return idom


# ---- registers an instruction reads and writes (for liveness) ------------------------------

def _reg_indices(operand) -> set:
    """Register indices named by an operand (a register, `!p`, a vector, a pair, an address base)."""
    if isinstance(operand, RegRef):
        return {operand.index}
    if isinstance(operand, ast.NotReg):
        return _reg_indices(operand.reg)
    if isinstance(operand, ast.Vector):
        return set().union(*(_reg_indices(e) for e in operand.elems)) if operand.elems else set()
    if isinstance(operand, ast.Pair):
        return _reg_indices(operand.first) | _reg_indices(operand.second)
    if isinstance(operand, ast.Address):
        return _reg_indices(operand.base)
    return set()


def _is_destination(op, k: int, operand) -> bool:
    """Is operand k of op written? Operand 0 is when it names registers, except for stores, reductions,
    branches, calls and barriers (counted as read: an extra live register only costs a merge, a
    register wrongly taken as overwritten could skip one). An address operand is always read."""
    return (k == 0 and not isinstance(operand, ast.Address)
            and op.op not in ("st", "red", "bra", "brx", "call", "bar", "barrier", "membar", "fence",
                              "prefetch", "prefetchu", "cp", "exit", "ret", "trap", "nop"))


def uses(op) -> tuple[frozenset, frozenset]:
    """(registers read, registers written) by one instruction. A store's address operand is read;
    a guarded instruction reads its guard and does not always write, so its writes kill nothing."""
    reads, writes = set(), set()
    for k, o in enumerate(op.operands):
        if isinstance(o, tuple):  # a branch target (label, pc)
            continue
        if _is_destination(op, k, o):
            writes |= _reg_indices(o)
        else:
            reads |= _reg_indices(o)
    if op.guard is not None:
        reads.add(op.guard[0])
    return frozenset(reads), frozenset(writes)


def live_in(prog) -> dict:
    """Registers live at the entry of each basic block (leader -> frozenset): read on some path before
    being written. Backward dataflow to a fixed point; EXIT has nothing live. Cached on the Cfg."""
    cfg = prog.cfg
    if cfg.live is not None:
        return cfg.live
    n = len(prog.ops)
    ends = {lead: (cfg.leaders[k + 1] - 1 if k + 1 < len(cfg.leaders) else n - 1)
            for k, lead in enumerate(cfg.leaders)}
    gen, kill = {}, {}
    for lead, end in ends.items():
        g, k = set(), set()
        for i in range(lead, end + 1):
            op = prog.ops[i]
            r, w = uses(op)
            g |= r - k
            if op.guard is None:
                k |= w
        gen[lead], kill[lead] = frozenset(g), frozenset(k)
    live = {lead: gen[lead] for lead in ends}
    changed = True
    while changed:
        changed = False
        for lead in reversed(cfg.leaders):
            out = set()
            for s in cfg.graph[lead]:
                if s != EXIT:
                    out |= live[s]
            new = gen[lead] | (out - kill[lead])
            if new != live[lead]:
                live[lead], changed = frozenset(new), True
    cfg.live = live
    return live


# ---- regions that if-conversion executes as one step -----------------------------------------

# Instructions an if-converted region may contain besides pure register arithmetic: memory accesses
# whose effect can be made conditional, comparisons, moves and the control flow being converted.
REGION_OPS = frozenset({"ld", "ldu", "st", "setp", "set", "mov", "cvta", "bra", "exit", "ret", "nop"})


@dataclass(frozen=True)
class Region:
    """The code between a conditional branch (or guarded exit) and its immediate post-dominator.

    Every block of it lies in pc order between the branch and the join and every edge inside runs
    forward, so executing the blocks in pc order visits each after all of its predecessors."""

    branch: int           # pc of the branch / guarded exit
    join: int             # pc where both sides meet (len(ops) when that is the kernel's exit)
    blocks: tuple         # ((leader, last pc), ...) in pc order
    writes: frozenset     # registers written inside
    graph: dict           # leader -> successor leaders inside the region (join and EXIT included)


def region(prog, pc: int, allowed) -> Region | str:
    """The if-conversion region of the conditional branch at pc, or why there is none (a string).
    `allowed(op)` says whether an instruction may be executed under a data-dependent condition."""
    cache = prog.cfg.regions
    key = (pc, allowed)
    if key in cache:
        return cache[key]
    cache[key] = out = _region(prog, pc, allowed)
    return out


def _region(prog, pc, allowed):
    cfg = prog.cfg
    n = len(prog.ops)
    leaders = cfg.leaders
    lead = max(x for x in leaders if x <= pc)
    post = cfg.ipdom.get(lead, EXIT)
    join = n if post == EXIT else post
    if join <= pc:
        return ("its sides meet again before the branch: a loop whose trip count depends on tensor data "
                "(only a bounded number of iterations can be if-converted, and this one is not bounded)")
    for s in successors(prog, pc):
        if s != EXIT and not pc < s <= join:
            return ("it jumps back: a loop whose trip count depends on tensor data (only forward branches "
                    "whose sides meet again are if-converted)")
    inside = [x for x in leaders if pc < x < join]
    ends = {x: (leaders[k + 1] - 1 if k + 1 < len(leaders) else n - 1) for k, x in enumerate(leaders)}
    graph, writes = {}, set()
    for x in inside:
        last = ends[x]
        for i in range(x, last + 1):
            op = prog.ops[i]
            if not allowed(op):
                return (f"`{op.d.inst.opcode}` (line {op.span.line}) lies inside it; barriers, warp collectives, "
                        f"calls and asynchronous copies are not executed under a data-dependent condition")
            writes |= uses(op)[1]
        succ = []
        for s in successors(prog, last):
            if s == EXIT:
                succ.append(EXIT)
            elif s <= last:
                return (f"it contains a loop (the branch at line {prog.ops[last].span.line} jumps back): loops "
                        f"under a data-dependent condition are not if-converted")
            elif s > join:
                return f"a branch inside it (line {prog.ops[last].span.line}) leaves it past the join"
            else:
                succ.append(s)
        graph[x] = tuple(succ)
    blocks = tuple((x, ends[x]) for x in inside)
    return Region(pc, join, blocks, frozenset(writes), graph)


def stores_on_every_path(reg: Region, entry: tuple, storing: frozenset) -> bool:
    """Does every path from the region's entry successors to its join pass a block in `storing`?"""
    seen, todo = set(), [s for s in entry if s not in storing]
    while todo:
        x = todo.pop()
        if x == reg.join or x == EXIT:
            return False
        if x in seen:
            continue
        seen.add(x)
        todo.extend(s for s in reg.graph.get(x, ()) if s not in storing)
    return True
