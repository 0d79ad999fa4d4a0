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
