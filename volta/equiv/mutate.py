"""Mutation testing of `volta check`: single-instruction mutants of an optimized kernel's PTX text.

Mutation operators (one edit per mutant, at the text level so the mutant goes through the parser):
`swap` (the two source operands of a non-commutative instruction), `imm±1` (an integer immediate),
`offset±size` (an address offset by one element), `add→sub`/`sub→add`, `drop` (delete one
instruction), `fconst` (a float constant `0fXXXXXXXX` changed: 0 → 1, x → 2x).

The independent oracle is concrete exact execution (the executor with input values, not the
symbolic run): both kernels on random small inputs, every output element compared. A mutant that
the oracle shows to differ must never be EQUIVALENT; every NOT EQUIVALENT must replay.
"""
from __future__ import annotations

import dataclasses
import random
import re
import struct
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from volta.equiv.check import _exact, check, execute, outputs, replay
from volta.equiv.witness import save_inputs
from volta.errors import Unsupported, VoltaError
from volta.exec import limits
from volta.launch.spec import LaunchSpec

NONCOMMUTATIVE = ("sub", "div", "rem", "shl", "shr", "setp", "selp", "bfe", "slct", "sad")
SKIP = ("ret", "exit", "bra", "bar", "barrier", "membar", "fence")
INSTRUCTION = re.compile(r"^(\s*)(@!?%\w+\s+)?([a-z][\w.]*)(\s+)(.*?);\s*$")
FLOAT_CONST = re.compile(r"0[fF]([0-9A-Fa-f]{8})")
ADDRESS_OFFSET = re.compile(r"\[(%\w+)\+(-?\d+)\]")
TYPE_SIZE = {"8": 1, "16": 2, "32": 4, "64": 8}


@dataclass(frozen=True)
class Mutant:
    line: int  # 1-based line of the mutated instruction
    kind: str
    before: str
    after: str | None  # None: the instruction was dropped

    def __str__(self) -> str:
        return f"line {self.line} {self.kind}: `{self.before.strip()}` -> " + (
            f"`{self.after.strip()}`" if self.after is not None else "(dropped)")


def _split_operands(text: str) -> list:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _float_changed(hexbits: str) -> str:
    value = struct.unpack(">f", bytes.fromhex(hexbits))[0]
    new = 1.0 if value == 0 else value * 2
    if abs(new) > FLT_MAX and abs(value) <= FLT_MAX:   # -FLT_MAX (a max's start) doubled is no f32: halve it
        new = value / 2
    return struct.pack(">f", new).hex().upper()


FLT_MAX = struct.unpack(">f", bytes.fromhex("7F7FFFFF"))[0]


def mutants(text: str) -> list:
    """Every single-instruction mutant of the kernel text, as (Mutant, mutated text)."""
    lines = text.splitlines(keepends=True)
    out = []

    def emit(i, kind, new_line):
        mutated = lines[:i] + ([new_line] if new_line is not None else []) + lines[i + 1:]
        out.append((Mutant(i + 1, kind, lines[i], new_line), "".join(mutated)))

    for i, line in enumerate(lines):
        m = INSTRUCTION.match(line.rstrip("\n"))
        if not m:
            continue
        indent, guard, opcode, space, rest = m.groups()
        guard = guard or ""
        family = opcode.split(".")[0]
        if family in SKIP or opcode.startswith(("ld.param", "cvta")):
            continue
        ops = _split_operands(rest)

        def rebuild(new_opcode=opcode, new_ops=ops):
            return f"{indent}{guard}{new_opcode}{space}{', '.join(new_ops)};\n"

        if family in NONCOMMUTATIVE and len(ops) >= 3 and ops[1] != ops[2]:
            emit(i, "swap", rebuild(new_ops=[ops[0], ops[2], ops[1], *ops[3:]]))
        if family in ("add", "sub"):
            emit(i, "add→sub" if family == "add" else "sub→add",
                 rebuild(new_opcode=("sub" if family == "add" else "add") + opcode[len(family):]))
        for k, op in enumerate(ops[1:], 1):
            if re.fullmatch(r"-?\d+", op) and not op.startswith("0x"):
                for delta in (1, -1):
                    new_ops = list(ops)
                    new_ops[k] = str(int(op) + delta)
                    emit(i, f"imm{delta:+d}", rebuild(new_ops=new_ops))
            fc = FLOAT_CONST.fullmatch(op)
            if fc:
                new_ops = list(ops)
                new_ops[k] = "0f" + _float_changed(fc[1])
                emit(i, "fconst", rebuild(new_ops=new_ops))
        size = next((TYPE_SIZE[t[-2:]] for t in opcode.split(".")[1:] if t[-2:] in TYPE_SIZE and t[0] in "fbsu"), 4)
        for k, op in enumerate(ops):
            a = ADDRESS_OFFSET.search(op)
            if a and family in ("ld", "st", "atom", "red"):
                for delta in (size, -size):
                    new_ops = list(ops)
                    new_ops[k] = op[:a.start()] + f"[{a[1]}+{int(a[2]) + delta}]" + op[a.end():]
                    emit(i, f"offset{delta:+d}", rebuild(new_ops=new_ops))
        emit(i, "drop", None)
    return out


# ---- the oracle: concrete exact execution on random inputs ---------------------------------------
def random_inputs(spec: LaunchSpec, rng: random.Random) -> dict:
    inputs = {name: {k: Fraction(rng.randint(-6, 6) if buf.contents is None else k) for k in range(buf.count)}
              for name, buf in spec.buffers.items() if buf.role in ("in", "inout")}
    inputs["__symbols__"] = {s: Fraction(rng.randint(-4, 4)) for s in spec.symbols}
    return inputs


def concrete_outputs(spec: LaunchSpec, role: str, inputs: dict) -> dict:
    m = execute(spec, role, input_values=inputs)
    return {name: [_exact(elements.at(i)) for i in range(len(elements))]
            for name, elements in outputs(m, spec).items()}


def oracle_differs(spec: LaunchSpec, trials: int = 2, seed: int = 0):
    """True if concrete execution shows ref != opt on some random input, False if not, None if it cannot run."""
    rng = random.Random(seed)
    for _ in range(trials):
        inputs = random_inputs(spec, rng)
        try:
            a, b = concrete_outputs(spec, "ref", inputs), concrete_outputs(spec, "opt", inputs)
        except (VoltaError, ZeroDivisionError, IndexError, ValueError):
            return None
        if a != b:
            return True
    return False


# ---- one mutant through volta check --------------------------------------------------------------
@dataclass
class Outcome:
    mutant: Mutant
    verdict: str  # a check verdict, or 'parse-error'
    changes: bool | None  # oracle: the mutant's function differs from ref's
    confirmed: bool = False  # a NOT EQUIVALENT whose saved counterexample replays to two different values
    detail: str = ""


MUTANT_STEPS = 2_000_000  # a mutated loop bound or step can loop for ever: each mutant is bounded (steps, time)
MUTANT_SECONDS = 120.0


def run_mutant(spec: LaunchSpec, mutant: Mutant, text: str, workdir: Path, timeout_ms: int = 5_000,
               seconds: float = MUTANT_SECONDS) -> Outcome:
    """The mutant through `check`, the oracle, and the replay of a counterexample, within MUTANT_STEPS steps
    per launch and `seconds` in all (over either: UNSUPPORTED or UNKNOWN, which is never EQUIVALENT)."""
    try:
        with limits.using(max_steps=MUTANT_STEPS, timeout=seconds):
            return _run_mutant(spec, mutant, text, workdir, timeout_ms)
    except limits.Timeout as err:
        return Outcome(mutant, "unknown", None, detail=str(err))


def _run_mutant(spec: LaunchSpec, mutant: Mutant, text: str, workdir: Path, timeout_ms: int) -> Outcome:
    ptx = workdir / f"mutant_{mutant.line}_{re.sub(r'[^a-z0-9]+', '_', mutant.kind)}.ptx"
    ptx.write_text(text)
    launches = dict(spec.launches)
    launches["opt"] = dataclasses.replace(launches["opt"], ptx=ptx)
    mspec = dataclasses.replace(spec, launches=launches)
    try:
        report = check(mspec, timeout_ms=timeout_ms)
    except Unsupported as err:
        return Outcome(mutant, "unsupported", None, detail=str(err))
    except VoltaError as err:  # the mutant no longer parses or binds: not a kernel
        return Outcome(mutant, "parse-error", None, detail=str(err))
    changes = oracle_differs(mspec) if report.verdict in ("equivalent", "not-equivalent", "unknown") else None
    out = Outcome(mutant, report.verdict, changes)
    if report.verdict == "not-equivalent":
        cex_file = ptx.with_suffix(".json")
        save_inputs(report.counterexample, cex_file, mspec)
        values = replay(mspec, cex_file)
        out.confirmed = values["ref"] != values["opt"]
        out.detail = f"{values['buffer']}[{values['index']}]: ref = {values['ref']}, opt = {values['opt']}"
    return out


def summarize(outcomes: list) -> dict:
    """Counts; `kill_rate` = NOT EQUIVALENT / mutants known to change the function."""
    changed = [o for o in outcomes if o.changes or o.verdict == "not-equivalent"]
    killed = [o for o in changed if o.verdict == "not-equivalent" and o.confirmed]
    counts: dict = {}
    for o in outcomes:
        counts[o.verdict] = counts.get(o.verdict, 0) + 1
    return {"mutants": len(outcomes), "changes_function": len(changed), "killed": len(killed),
            "kill_rate": len(killed) / len(changed) if changed else 1.0,
            "equivalent_mutants": sum(1 for o in outcomes if o.verdict == "equivalent" and o.changes is False),
            "by_verdict": counts}
