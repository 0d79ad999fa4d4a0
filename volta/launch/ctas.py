"""`--ctas`: run a chosen set of a launch's CTAs instead of the whole grid (a 4096² GEMM has 65,536 CTAs).

The machine executes only the selected CTAs (their %ctaid stay the grid's, %nctaid the whole grid's), so
every result is about those CTAs: races among them, and outputs they write. Which claims survive:
- `races`/`run`: findings among the selected CTAs are real; a clean result covers only them.
- `check`: an output element written by a selected CTA has the value it has in the whole launch only when no
  other CTA can influence it, i.e. without cross-CTA communication in the kernel (global atomics, and grid
  synchronization, which is built from them; clusters here hold one CTA): such kernels are refused
  (`refuse_partial`); a read of another CTA's output in the same launch is a race either way. Elements written on one side only
  (the other side's writer is not selected) are not compared, and the report says how many were.
"""
from __future__ import annotations

import dataclasses
import random
import re

from volta.errors import UsageError

GRAMMAR = "corners, random:N[:SEED], or a list of CTA indices / coordinates such as 0,5,17 or 0x0,3x1"


def parse(text: str, grid) -> tuple[int, ...]:
    """The linear CTA indices (x fastest, then y, then z) that TEXT selects in `grid` (sorted, distinct)."""
    text = (text or "").strip()
    dims = (grid.x, grid.y, grid.z)
    total = grid.count
    if text == "corners":
        picks = {_linear((x, y, z), dims) for x in {0, dims[0] - 1} for y in {0, dims[1] - 1}
                 for z in {0, dims[2] - 1}}
        return tuple(sorted(picks))
    m = re.fullmatch(r"random:(\d+)(?::(\d+))?", text)
    if m:
        n, seed = int(m.group(1)), int(m.group(2) or 0)
        if n < 1:
            raise UsageError(f"--ctas {text}: choose at least one CTA ({GRAMMAR})")
        return tuple(sorted(random.Random(seed).sample(range(total), min(n, total))))
    picks = set()
    for entry in filter(None, (e.strip() for e in text.split(","))):
        if re.fullmatch(r"\d+", entry):
            k = int(entry)
            if k >= total:
                raise UsageError(f"--ctas {text}: CTA {k} is outside the grid of {total} CTAs "
                                 f"({grid.x}x{grid.y}x{grid.z})")
            picks.add(k)
        elif re.fullmatch(r"\d+(x\d+){1,2}", entry):
            coord = tuple(int(c) for c in entry.split("x")) + (0, 0)
            if any(c >= d for c, d in zip(coord[:3], dims)):
                raise UsageError(f"--ctas {text}: CTA {entry} is outside the grid {grid.x}x{grid.y}x{grid.z}")
            picks.add(_linear(coord[:3], dims))
        else:
            raise UsageError(f"--ctas {text}: `{entry}` is not a CTA ({GRAMMAR})")
    if not picks:
        raise UsageError(f"--ctas needs at least one CTA ({GRAMMAR})")
    return tuple(sorted(picks))


def _linear(coord, dims) -> int:
    return coord[0] + dims[0] * (coord[1] + dims[1] * coord[2])


def select(spec, text: str | None, roles) -> dict:
    """Apply `--ctas TEXT` to each role's launch of SPEC (in place); role -> selected indices (empty: none
    given, or the selection is the whole grid). A launch sequence cannot be cut."""
    chosen = {}
    if not text:
        return chosen
    for role in roles:
        if role in getattr(spec, "sequences", {}) and len(spec.sequences[role]) > 1:
            raise UsageError(f"--ctas selects CTAs of one launch; the {role} side is a sequence of "
                             f"{len(spec.sequences[role])} launches (a later launch reads all of an earlier one's output)")
        launch = spec.launches[role]
        picks = parse(text, launch.grid)
        if len(picks) == launch.grid.count:
            continue
        spec.launches[role] = dataclasses.replace(launch, ctas=picks)
        chosen[role] = picks
    return chosen


def run_note(picks, grid) -> str:
    """What a `volta run` of only the CTAs `picks` leaves out (a note of its report)."""
    return (f"--ctas: only {describe(picks, grid)} ran; the others' outputs keep their initial values and their "
            f"races are not checked")


def refuse_partial(prog, role: str) -> str | None:
    """Why a partial `check` of this program would not speak for the whole launch (None: it would)."""
    for op in prog.ops:
        if op.op in ("atom", "red") and op.d.space not in (".shared", ".shared::cta"):
            return (f"the {role} kernel has `{op.d.inst.opcode}` at line {op.span.line}: a global atomic lets CTAs "
                    f"that are not selected change what the selected ones compute")
    return None


def describe(picks, grid) -> str:
    """`CTAs (0,0,0), (3,1,0) of 4x2x1` (at most 8 listed)."""
    dims = (grid.x, grid.y, grid.z)
    coords = [f"({k % dims[0]}, {k // dims[0] % dims[1]}, {k // (dims[0] * dims[1])})" for k in picks[:8]]
    more = f" and {len(picks) - 8} more" if len(picks) > 8 else ""
    return f"{len(picks)} of {grid.count} CTAs: {', '.join(coords)}{more}"
