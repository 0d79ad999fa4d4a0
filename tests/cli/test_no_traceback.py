"""Issue 28 §5: no example, no mutant of one, ends in a Python traceback or an internal error.

An exception that is not a `VoltaError` is a bug; the CLI turns it into one `internal error` paragraph (exit 3,
nothing claimed) instead of a traceback (volta/cli/__init__.py), and this guard fails on either. Every manifest
of examples/ goes through the commands its manifest is for: `volta run` (its kernel, or a pair's opt side) here,
`volta races` (every manifest) in tests/exec/test_examples_races.py and `volta check` (pairs) in
tests/equiv/test_lanepoly_path.py, which assert the same guard on the run that checks the verdict. Mutants
(volta/equiv/mutate.py: one instruction changed) of the example kernels go through `check` (pairs) or `races`
(single kernels), a fixed sample of them, each bounded by `--timeout`.
"""
from __future__ import annotations

import functools
import random
import shutil
import tomllib
from pathlib import Path

import pytest

from volta.cli import internal_error, run
from volta.equiv.mutate import mutants

EX = Path(__file__).resolve().parents[2] / "examples"
CASES = sorted(p.parent.name for p in EX.glob("*/manifest.toml"))
DATA = Path(__file__).parent / "data"
BOUND = ["--timeout", "60"]   # a bound per command, not a verdict: UNKNOWN is an answer, a traceback is not
MUTANTS = 40                  # a fixed sample over every example kernel (seeded: the same mutants every run)
SHARES = 4                    # the sample's mutants run in this many tests


def guarded(capsys, argv) -> int:
    """Run one command; fail on a traceback, an internal error or an exit code no command has."""
    code = run(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, (argv, err[-3000:])
    assert code in (0, 1, 2, 3), (argv, code, err)
    return code


def test_an_unexpected_exception_is_one_internal_error_paragraph(capsys, monkeypatch):
    from volta.session import races   # the command imports `analyze` from here when it runs (start-up)

    def broken(*args, **kwargs):
        raise OverflowError("Python int too large to convert to C long")

    monkeypatch.setattr(races, "analyze", broken)
    monkeypatch.delenv("VOLTA_TRACEBACK", raising=False)
    code = run(["races", str(EX / "vector_add" / "manifest.toml"), "-q"])
    out, err = capsys.readouterr()
    assert code == 3 and out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("internal error: OverflowError: Python int too large")
    assert "(raised at volta/cli/races_cmd.py:" in err   # the innermost line of Volta's own code
    assert "nothing is claimed" in err and "VOLTA_TRACEBACK=1" in err
    monkeypatch.setenv("VOLTA_TRACEBACK", "1")
    with pytest.raises(OverflowError):
        run(["races", str(EX / "vector_add" / "manifest.toml"), "-q"])


def test_internal_error_names_the_line_of_volta_that_raised():
    try:
        from volta.symbolic.lanepoly import LanePoly

        LanePoly.lane_constants(["x"])
    except Exception as err:   # noqa: BLE001 - whatever it is, it is described in one line
        text = internal_error(err)
    assert text.startswith("internal error: ") and "(raised at volta/symbolic/lanepoly.py:" in text
    assert "\n" not in text


def test_a_float_constant_beyond_int64_is_not_an_overflow(capsys):
    """The flash-attention traceback of issue 28 §5: `x * 1e30f` (and `+ 3e-39f`) made a lane constant whose
    numerator (denominator) leaves int64, and numpy.full raised OverflowError. It is a per-lane expression now."""
    ptx = str(DATA / "big_constants.ptx")
    launch = ["--grid", "1", "--block", "32", "--args", "x,y,32", "--buffer", "x=f32[32]:in",
              "--buffer", "y=f32[32]:out"]
    code = guarded(capsys, ["check", ptx, ptx, "--ref-kernel", "scale_big", "--opt-kernel", "scale_big_swapped",
                            *launch, "-q"])
    assert code == 0
    code = guarded(capsys, ["check", ptx, ptx, "--ref-kernel", "scale_big", "--opt-kernel", "scale_big_wrong",
                            *launch, "-q"])
    assert code == 1


def _pair(case: str) -> bool:
    return "opt" in tomllib.loads((EX / case / "manifest.toml").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_every_example_through_run(case, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # nothing is written beside the examples
    manifest = str(EX / case / "manifest.toml")
    guarded(capsys, ["run", manifest, *(["--kernel", "opt"] if _pair(case) else []), "-q", *BOUND])


@functools.cache
def _sample() -> tuple:
    """(case, file name, mutant text, what) for MUTANTS mutants spread over the example kernels (seeded: the
    same mutants every run, in every worker)."""
    rng = random.Random(28)
    kernels = []
    for case in CASES:
        m = tomllib.loads((EX / case / "manifest.toml").read_text())
        side = m.get("opt") or m.get("kernel")
        launches = [t for t in side["launch"] if "ptx" in t] if "launch" in side else [side]   # (not a host step)
        kernels.append((case, launches[0]["ptx"]))
    picked = []
    for case, ptx in rng.sample(kernels, min(MUTANTS, len(kernels))):
        found = mutants((EX / case / ptx).read_text())
        if found:
            m, text = rng.choice(found)
            picked.append((case, ptx, text, str(m)))
    return tuple(picked)


def test_the_mutant_sample_is_most_of_the_kernels_drawn():
    assert len(_sample()) >= MUTANTS // 2


@pytest.mark.slow
@pytest.mark.parametrize("share", range(SHARES))
def test_mutants_of_the_examples_through_check_and_races(share, capsys, tmp_path, monkeypatch):
    """Every SHARES-th mutant of the sample from `share` on: the sample in SHARES tests that the workers run side
    by side (one test of all 40 was a ~23 CPU s tail on one worker)."""
    monkeypatch.chdir(tmp_path)
    codes = {}
    for k, (case, ptx, text, what) in list(enumerate(_sample()))[share::SHARES]:
        where = tmp_path / f"m{k}"
        shutil.copytree(EX / case, where)
        (where / ptx).write_text(text)   # the mutant replaces the opt (or only) kernel's PTX
        manifest = str(where / "manifest.toml")
        cmd = ["check", manifest] if _pair(case) else ["races", manifest]
        try:
            code = guarded(capsys, [*cmd, "-q", "--timeout", "20"])
        except AssertionError as err:
            raise AssertionError(f"{case}, mutant {what}: {err}") from None
        codes[code] = codes.get(code, 0) + 1
    print(f"{sum(codes.values())} mutants: exit codes {dict(sorted(codes.items()))}")
    assert codes   # every share has mutants to run
