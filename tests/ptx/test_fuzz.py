"""Mutated example files never produce a traceback: `volta parse` (parse + decode) either succeeds
or prints a one-paragraph error with file:line:col and exits 2. Deterministic (seeded)."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from volta.cli import run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HAND_WRITTEN = """.version 8.0
.target sm_80
.address_size 64
.shared .align 16 .b8 smem[64];
.visible .entry k(.param .u64 .ptr .global .align 1 k_param_0, .param .align 8 .b8 s[16])
.maxntid 128, 1, 1
{
\t.reg .pred %p<3>;
\t.reg .b32 %r<9>;
\t.reg .f32 %f<5>;
\t.reg .b64 %rd<4>;
\tld.param.u64 %rd1, [k_param_0];
\tcvta.to.global.u64 %rd2, %rd1;
\tmov.u32 %r1, %tid.x;
\tsetp.gt.u32 %p1, %r1, 31;
\t@%p1 bra $L__BB0_2;
\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+-16];
\tshfl.sync.bfly.b32 %r2|%p2, %r1, 16, 31, -1;
\tmov.b32 %f1, 0f3F800000;
\t{ .reg .pred p; setp.eq.u32 p, %r2, 0; @p add.s32 %r3, %r2, 1; }
\tst.shared.u32 [smem+8], %r1;
$L__BB0_2:
\tret;
}
"""
TOKEN = re.compile(r"%?[\w.$:]+|\S")
JUNK = ["{", "}", ";", ",", "[", "]", "(", ")", "%r1", "@%p1", ".reg", ".entry", "0f3F80", "-", "+", "|",
        "_", "add.rn.s32", "frob", "\x00", "é", "'", '"', "<", ">", ".loc", ".section", "//", "/*", "9.0", "0x"]
MUTANTS = 1200


def _sources() -> list[str]:
    files = sorted(EXAMPLES.glob("**/*.ptx"), key=lambda p: p.stat().st_size)
    small = [p.read_text() for p in files[:6] if p.stat().st_size < 12_000]
    return [HAND_WRITTEN, *small]


def mutate(text: str, rng: random.Random) -> str:
    tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(6)
        if kind == 5 or not tokens:
            return text[: rng.randrange(len(text) + 1)]  # truncate
        start, end = tokens[rng.randrange(len(tokens))]
        if kind == 0:  # delete a token
            text = text[:start] + text[end:]
        elif kind == 1:  # duplicate
            text = text[:end] + " " + text[start:end] + text[end:]
        elif kind == 2:  # swap with another token
            s2, e2 = tokens[rng.randrange(len(tokens))]
            if s2 > end:
                text = text[:start] + text[s2:e2] + text[end:s2] + text[start:end] + text[e2:]
        elif kind == 3:  # replace with junk
            text = text[:start] + rng.choice(JUNK) + text[end:]
        else:  # corrupt one character
            pos = rng.randrange(start, end)
            text = text[:pos] + chr(rng.choice([rng.randrange(32, 127), 10, 9, 0x3B])) + text[pos + 1:]
        tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    return text


POSITION = re.compile(r"^\S+\.ptx:\d+:\d+: ")


def test_mutants_never_crash(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("VOLTA_CACHE_DIR", str(tmp_path / "cache"))
    rng = random.Random(20240601)
    sources = _sources()
    outcomes = {0: 0, 2: 0}
    for i in range(MUTANTS):
        text = mutate(sources[i % len(sources)], rng)
        path = tmp_path / f"m{i}.ptx"
        path.write_text(text, errors="surrogateescape")
        try:
            code = run(["parse", "--no-cache", str(path)])
        except Exception as exc:  # anything but a VoltaError reaching here is a bug
            pytest.fail(f"mutant {i} raised {type(exc).__name__}: {exc}\n--- text ---\n{text}")
        err = capsys.readouterr().err
        assert code in (0, 2), (i, code, err)
        outcomes[code] += 1
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1, f"mutant {i}: error is not one paragraph: {err!r}"
            assert POSITION.match(lines[0]), f"mutant {i}: no file:line:col in {lines[0]!r}\n{text}"
        path.unlink()
    assert outcomes[2] > MUTANTS // 4  # the mutations do break things


# ---- races / check / run on mutated PTX and mutated launch options --------------------------------

VADD = EXAMPLES / "vector_add" / "kernel.sm80.ptx"
LAUNCH = {"grid": "2", "block": "32", "args": "x,y,out,50",
          "buffers": ["x=f32[50]:in", "y=f32[50]:in", "out=f32[50]:out"]}
OPTION_JUNK = ["", "0", "-1", "1.5", "1e9", "65536", "2147483648", "x", "x,y", "nan", "inf", "0x10", "3x0",
               "1x1x65", "1024x1024", "4294967296", "f32[0]", "q=f32[10]:in", "x=f99[4]", "x=f32[-1]",
               "x=f32[10000000000]:in", "out=u8[3]:out", "y=f32[50]:weird", "x=f32[50", "=", ",,,"]
STEPS = ["--max-steps", "20000"]
BUDGET_S = 25.0  # wall-clock budget for this test; cases are counted and printed


def _mutate_launch(rng: random.Random) -> dict:
    launch = {k: (list(v) if isinstance(v, list) else v) for k, v in LAUNCH.items()}
    for _ in range(rng.randint(1, 2)):
        key = rng.choice(["grid", "block", "args", "buffers", "buffers", "args"])
        if key == "buffers":
            bufs = launch["buffers"]
            kind = rng.randrange(3)
            if kind == 0 and bufs:
                bufs.pop(rng.randrange(len(bufs)))
            elif kind == 1:
                bufs.append(rng.choice(OPTION_JUNK))
            elif bufs:
                bufs[rng.randrange(len(bufs))] = rng.choice(OPTION_JUNK)
        elif key == "args":
            items = launch["args"].split(",")
            items[rng.randrange(len(items))] = rng.choice(OPTION_JUNK + ["0", "x", "out", "y"])
            if rng.random() < 0.3:
                items.pop(rng.randrange(len(items)))
            launch["args"] = ",".join(items)
        else:
            launch[key] = rng.choice(OPTION_JUNK + ["4", "2x2", "64", "1x1x1"])
    return launch


def _argv(cmd: str, ptx, launch: dict) -> list:
    files = [str(ptx)] if cmd != "check" else [str(ptx), str(VADD)]
    argv = [cmd, *files, "--grid", launch["grid"], "--block", launch["block"], "--args", launch["args"]]
    for b in launch["buffers"]:
        argv += ["--buffer", b]
    argv += STEPS + ["-q"]
    if cmd == "check":
        argv += ["--timeout", "5"]
    return argv


def test_mutated_kernels_and_launches_through_races_check_run(tmp_path, capsys, monkeypatch):
    """Mutated PTX (small kernels) and mutated launch options through `volta races`, `check` and `run`:
    never a traceback, an exit code in {0, 1, 2, 3}, every case bounded (small launches, --max-steps,
    --timeout). A fixed seed and a wall-clock budget keep it quick; the case counts are printed."""
    import time

    monkeypatch.setenv("VOLTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    rng = random.Random(8)
    base = VADD.read_text()
    counts: dict = {}
    start = time.perf_counter()
    i = 0
    while time.perf_counter() - start < BUDGET_S:
        cmd = ("races", "run", "check")[i % 3]
        if i % 2:  # a mutated kernel with the normal launch
            text = mutate(base, rng)
            ptx = tmp_path / f"m{i}.ptx"
            ptx.write_text(text, errors="surrogateescape")
            launch, what = LAUNCH, "ptx"
        else:  # the normal kernel with a mutated launch
            ptx, launch, what = VADD, _mutate_launch(rng), "launch"
            text = None
        argv = _argv(cmd, ptx, launch)
        try:
            code = run(argv)
        except BaseException as exc:  # anything reaching here is a bug (a VoltaError is caught inside run)
            pytest.fail(f"case {i} ({cmd}, mutated {what}) raised {type(exc).__name__}: {exc}\nargv: {argv}\n"
                        + (f"--- text ---\n{text}" if text else ""))
        out, err = capsys.readouterr()
        assert code in (0, 1, 2, 3), (i, argv, code, err)
        assert "Traceback" not in out + err and "internal error" not in err, (i, argv, err)
        if code == 2:
            assert err.strip() and "\n\n" not in err.strip(), (i, argv, err)
        counts[(cmd, what, code)] = counts.get((cmd, what, code), 0) + 1
        i += 1
    total = sum(counts.values())
    print(f"fuzzed {total} races/check/run cases in {time.perf_counter() - start:.1f} s: "
          + ", ".join(f"{c} {w} exit {k}: {n}" for (c, w, k), n in sorted(counts.items())))
    assert total >= 30
    assert any(k[2] == 2 for k in counts) and any(k[2] in (0, 1) for k in counts)
