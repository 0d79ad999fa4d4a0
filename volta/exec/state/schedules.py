"""Schedules of contended atomics: who wins a CAS or an exchange, who draws which ticket.

The machine runs lanes at the lowest program counter together, and an `atom` instruction updates memory one
lane after another (each sees the previous ones' updates). In lane order a spin lock is always won first by
the lowest thread, and a race that needs another thread to win first is never seen. A `Schedule` decides that
order where it matters:

* a *decision* is met when, at one address in one instruction, two or more of the lanes still to go would
  change memory if they went next (a free lock that every lane's CAS would take, an `atomicAdd` ticket every
  lane would move, an exchange of different values). Lanes whose update would change nothing (a CAS that
  fails, an exchange of the value already there) go in lane order: their order changes nothing. Only atomics
  whose result some instruction reads count (`atom`, not `red`; an `atomicAdd` whose result is dropped sums
  the same in any order, up to rounding, which is not a race);
* `explore` runs the kernel once per schedule: every sequence of decisions, depth first, when the first run's
  decisions multiply to at most the budget (small launches), else `budget` schedules of a PCT-style random
  strategy (Burckhardt et al., ASPLOS 2010: random thread priorities, the highest-priority contender wins,
  and at a few random decision points the winner drops to the lowest priority), seeded, so a finding
  reproduces.

The schedule only reorders what the PTX leaves unordered (the lanes of one atomic instruction); every lock,
fence and barrier still means what the memory model says (volta/exec/races/memmodel.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from volta.config import SCHEDULE_BUDGET as DEFAULT_BUDGET
from volta.exec.state.access import row_index
from volta.ir import cfg as CFG
from volta.ir.program import cuda_frames

PRIORITY_CHANGES = 2  # PCT depth - 1: decision points where the winner's priority drops


@dataclass
class Schedule:
    """One schedule: a prefix of forced choices (depth-first search) or random priorities (PCT).

    `choices` records every decision of the run as (options, chosen); `where` the first decisions' instructions,
    for the report."""

    prefix: tuple = ()
    rng: np.random.Generator | None = None  # PCT: draws the priorities (per lane, higher wins) at the first decision
    drops: frozenset = frozenset()  # PCT: decision indices after which the winner drops to the lowest priority
    choices: list = field(default_factory=list)
    where: list = field(default_factory=list)  # (op, ThreadId of the winner) of each decision
    priorities: np.ndarray | None = None
    _deciding: dict = field(default_factory=dict)

    def choose(self, m, op, lanes: np.ndarray) -> int:
        """Which of the contending `lanes` goes next (an index into them)."""
        k = len(self.choices)
        if k < len(self.prefix):
            pick = self.prefix[k]
        elif self.rng is not None:
            if self.priorities is None:
                self.priorities = self.rng.permutation(m.L).astype(np.int64)
            pick = int(np.argmax(self.priorities[lanes]))
            if k in self.drops:
                self.priorities[lanes[pick]] = self.priorities.min() - 1
        else:
            pick = 0
        self.choices.append((lanes.size, pick))
        self.where.append((op, m.thread_id(int(lanes[pick]))))
        return pick

    def deciding(self, prog, op) -> bool:
        """Does some instruction read this atomic's result (its order can steer the kernel)?"""
        if op.index not in self._deciding:
            dst = CFG.uses(op)[1]
            self._deciding[op.index] = bool(dst) and any(dst & CFG.uses(o)[0] for o in prog.ops)
        return self._deciding[op.index]


def serial_order(m, op, region, lz, offs, changes):
    """Positions of `lz` in the order their atomic updates apply (a generator: each position is chosen after the
    previous ones have updated memory). `changes(j)` says whether lane j's update would change memory now."""
    schedule = m.runtime.schedule
    if schedule is None or op.op != "atom" or lz.size < 2 or not schedule.deciding(m.prog, op):
        yield from range(lz.size)
        return
    where = row_index(region, lz, m) * region.data.shape[1] + offs
    for address in dict.fromkeys(where.tolist()):
        group = [int(j) for j in np.flatnonzero(where == address)]
        while group:
            writers = [j for j in group if changes(j)]
            if not writers:   # none would change memory, so none will after the others: lane order
                yield from group
                break
            j = writers[schedule.choose(m, op, lz[writers])] if len(writers) >= 2 else writers[0]
            group.remove(j)
            yield j


def describe(schedule: Schedule) -> str:
    """`block (1, 0, 0) thread (0, 0, 0) first at k.cu:12`, for the decisions of one schedule (the first few;
    the outermost CUDA frame, the kernel's own line rather than the header an atomic is inlined from)."""
    import os


    parts = []
    for op, who in schedule.where[:3]:
        frames = cuda_frames(op)
        file, line = frames[-1] if frames else (op.span.file, op.span.line)
        parts.append(f"{who} first at {os.path.basename(str(file))}:{line}")
    more = len(schedule.where) - 3
    return "; ".join(parts) + (f"; … ({more} more decisions)" if more > 0 else "") if parts else "lane order"


@dataclass
class Exploration:
    """How many schedules one input set ran, and how they were chosen."""

    tried: int = 0
    strategy: str = "one"  # 'one' (no decision met), 'all' (every order), 'partial' (budget hit), 'pct'
    seed: int = 0

    def text(self) -> str:
        return {"one": "1 (no contended atomic decided anything)",
                "all": f"{self.tried} (every order of the contended atomics)",
                "partial": f"{self.tried} (depth first, budget reached: not every order)",
                "pct": f"{self.tried} (PCT random priorities, seed {self.seed})"}[self.strategy]


def explore(run_once, budget: int = DEFAULT_BUDGET, seed: int = 0) -> Exploration:
    """Call `run_once(schedule)` once per schedule to try (the first is lane order); say which were tried."""
    first = Schedule()
    run_once(first)
    info = Exploration(tried=1)
    if not first.choices or budget <= 1:
        return info
    size = 1
    for options, _ in first.choices:
        size *= options
        if size > budget:
            break
    if size <= budget:  # small: every order, depth first
        info.strategy = "all"
        choices = first.choices
        while (prefix := _next_prefix(choices)) is not None:
            if info.tried >= budget:
                info.strategy = "partial"
                break
            s = Schedule(prefix=prefix)
            run_once(s)
            info.tried += 1
            choices = s.choices
        return info
    info.strategy, info.seed = "pct", seed
    rng = np.random.default_rng(seed)
    decisions = max(2, len(first.choices))
    while info.tried < budget:
        drops = rng.choice(decisions, size=min(PRIORITY_CHANGES, decisions), replace=False)
        run_once(Schedule(rng=np.random.default_rng(int(rng.integers(1 << 62))), drops=frozenset(drops.tolist())))
        info.tried += 1
    return info


def _next_prefix(choices: list):
    """The next sequence of decisions after `choices` in depth-first order, or None when all were tried."""
    for k in range(len(choices) - 1, -1, -1):
        options, chosen = choices[k]
        if chosen + 1 < options:
            return tuple(c for _, c in choices[:k]) + (chosen + 1,)
    return None
