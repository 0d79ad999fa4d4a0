"""Shared memory a wgmma reads through the async proxy after a generic-proxy write that no `fence.proxy.async`
of the writing thread follows (PTX ISA §9.7.15.4, "Async Proxy": wgmma.mma_async operations are performed in
the async proxy, and accessing the same memory location across proxies needs a cross-proxy fence,
`fence.proxy.async` between the generic proxy and the async proxy).

A watcher (volta/exec/handlers/wgmma.py registers it with the in-flight register check) numbers, in execution order,
each thread's last execution of every instruction that writes memory through the generic proxy (`st`, `atom`, `red`,
`stmatrix`, `wmma.store`, `cp.async` without `.bulk`) and its last `fence.proxy.async` (every state space or
`.shared::*`; a `.global` one does not order shared memory). At a wgmma's issue the race shadow names the last
writer (thread, instruction) of each operand byte; it is unfenced when that thread ran that instruction after its
last proxy fence. This is per (thread, instruction), not per byte: a later execution of the same instruction by
the same thread, to other bytes and not yet fenced when the wgmma issues, counts as unfenced too. The barrier
that orders the fenced write before the issue is the race shadow's concern. TMA copies (`cp.async.bulk`) write
through the async proxy and need no fence.
"""
from __future__ import annotations

import numpy as np

GENERIC_WRITES = frozenset({"st", "atom", "red", "stmatrix"})


def is_generic_write(op) -> bool:
    if op.op == "cp":
        return op.d.inst.opcode.startswith("cp.async") and not op.d.has(".bulk")
    if op.op == "wmma":
        return op.d.has(".store")
    return op.op in GENERIC_WRITES


def is_proxy_fence(op) -> bool:
    name = op.d.inst.opcode
    return name.startswith("fence.proxy.async") and ".global" not in name


class ProxyFences:
    """Each thread's last proxy fence and last execution of each generic write, on one clock of executions."""

    def __init__(self, m):
        self.clock = 0
        self.fence = np.full(m.L, -1, np.int64)
        self.written = {}   # pc -> (L,) clock of each thread's last execution of it
        self.writes = frozenset(o.index for o in m.prog.ops if is_generic_write(o))
        self.fences = frozenset(o.index for o in m.prog.ops if is_proxy_fence(o))

    def __call__(self, op, lanes):
        if op.index in self.writes:
            self.clock += 1
            self.written.setdefault(op.index, np.full(self.fence.size, -1, np.int64))[lanes] = self.clock
        elif op.index in self.fences:
            self.clock += 1
            self.fence[lanes] = self.clock

    def unfenced(self, tid, pc) -> np.ndarray:
        """Which writers (thread, instruction index), as arrays of one shape, ran since their thread's last fence."""
        out = np.zeros(tid.shape, bool)
        for p in np.unique(pc[(pc >= 0) & (tid >= 0)]):
            last = self.written.get(int(p))
            if last is None:
                continue
            sel = (pc == p) & (tid >= 0)
            out[sel] = last[tid[sel]] > self.fence[tid[sel]]
        return out
