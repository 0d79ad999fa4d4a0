"""`volta mma`: single dot products, batch files, and one-line usage errors with exit code 2."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from volta.cli import run


def test_single_dot_product(capsys):
    rc = run(["mma", "--arch", "hopper", "--in", "bf16", "--acc", "f32", "--a", "3f80,3f80,3980",
              "--b", "3f80,bf80,3900"])
    assert rc == 0
    word, value = capsys.readouterr().out.split()
    assert word == "33000000" and float(value) == 2.0 ** -25


def test_single_with_accumulator_and_arch_alias(capsys):
    assert run(["mma", "--arch", "sm_80", "--in", "f16", "--a", "3c00", "--b", "3c00", "--c", "bf7fffff"]) == 0
    assert capsys.readouterr().out.split()[0] == "33800000"


def test_f16_accumulator(capsys):
    assert run(["mma", "--arch", "volta", "--in", "f16", "--acc", "f16", "--a", "3c00,3c00", "--b", "3c00,3c00",
                "--c", "3c00"]) == 0
    assert capsys.readouterr().out.split() == ["4200", "3.0"]


def test_batch(tmp_path, capsys):
    path = tmp_path / "dots.txt"
    path.write_text("# comment\n3f80,3f80,3980 ; 3f80,bf80,3900 ; 0\n\n3800 ; b800 ; 3f800000\n"
                    "3fc0,3fc0,3980;3fc0,bfc0,3900;00000000\n")
    assert run(["mma", "--arch", "ampere", "--in", "bf16", "--batch", str(path)]) == 0
    assert capsys.readouterr().out.split() == ["00000000", "3f800000", "00000000"]
    assert run(["mma", "--arch", "hopper", "--in", "bf16", "--batch", str(path)]) == 0
    assert capsys.readouterr().out.split() == ["33000000", "3f800000", "33000000"]


def test_batch_tf32_words(tmp_path, capsys):
    path = tmp_path / "tf32.txt"
    path.write_text("3f801fff ; 3f800000 ; 0\n")
    assert run(["mma", "--arch", "hopper", "--in", "tf32", "--batch", str(path)]) == 0
    assert capsys.readouterr().out.split() == ["3f800000"]


@pytest.mark.parametrize("argv,needle", [
    (["--arch", "pascal", "--in", "bf16", "--a", "0", "--b", "0"], "unknown architecture"),
    (["--arch", "hopper", "--in", "bf17", "--a", "0", "--b", "0"], "unknown format"),
    (["--arch", "ampere", "--in", "e4m3", "--a", "0", "--b", "0"], "no tensor-core model"),
    (["--arch", "hopper", "--in", "bf16", "--a", "3g80", "--b", "0"], "not a hex word"),
    (["--arch", "hopper", "--in", "bf16", "--a", "13f80", "--b", "0"], "does not fit"),
    (["--arch", "hopper", "--in", "bf16", "--a", "0,0", "--b", "0"], "has 2 words"),
    (["--arch", "hopper", "--in", "bf16", "--a", "0", "--b", "0", "--c", "1ffffffff"], "does not fit"),
    (["--arch", "hopper", "--in", "bf16"], "--a and --b"),
])
def test_bad_input_is_a_usage_error(argv, needle, capsys):
    assert run(["mma", *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("body,needle", [
    ("3f80 ; 3f80\n", ":1: expected"),
    ("3f80 ; 3f80 ; 0\nzz ; 3f80 ; 0\n", ":2: a: 'zz' is not a hex word"),
    ("3f80,3f80 ; 3f80 ; 0\n", ":1: a has 2 words"),
    ("3f80 ; 3f80 ; 0,0\n", ":1:"),
    ("3f80 ; 1ffff ; 0\n", ":1: b: '1ffff' does not fit"),
])
def test_bad_batch_lines(tmp_path, capsys, body, needle):
    path = tmp_path / "bad.txt"
    path.write_text(body)
    assert run(["mma", "--arch", "hopper", "--in", "bf16", "--batch", str(path)]) == 2
    assert needle in capsys.readouterr().err


def test_missing_batch_file(capsys):
    assert run(["mma", "--arch", "hopper", "--in", "bf16", "--batch", "/nonexistent/x.txt"]) == 2
    assert "cannot read batch file" in capsys.readouterr().err


@pytest.mark.parametrize("arch,in_fmt,out,a,b,c,want", [
    # the issue-13 rows (derivations in tests/numerics/test_mma_rows.py): H1, A3, B1, W1
    ("hopper", "e4m3", "f16", "70,70,08", "70,f0,08", "0", "0c00"),
    ("sm_100", "e4m3", "f16", "70,70,08", "70,f0,08", "0", "0c00"),
    ("sm_89", "e4m3", "f16", "30,18", "38,38", "6400", "6400"),
    ("blackwell", "e4m3", "f32", "03", "01", "43000000", "43000001"),
    ("blackwell", "e5m2", "f32", "5c,5c,18", "5c,dc,18", "0", "36800000"),
    ("blackwell", "f16", "f16", "5800,5800,1000", "5800,d800,3c00", "0", "1000"),
    ("blackwell", "tf32", "f32", "3f800000,3f800000,39800000", "3f800000,bf800000,39000000", "0", "33000000"),
])
def test_issue13_rows_with_out_option(arch, in_fmt, out, a, b, c, want, capsys):
    assert run(["mma", "--arch", arch, "--in", in_fmt, "--out", out, "--a", a, "--b", b, "--c", c]) == 0
    assert capsys.readouterr().out.split()[0] == want


# ---- the instruction and the ptxas version (issue 34 §2; volta/numerics/mma_select.py) ----------------------

STUDY = Path(__file__).resolve().parents[2] / "examples" / "probes" / "matlab_study"


def _study_words(stem: str) -> list[str]:
    return (STUDY / f"{stem}.want").read_text().split()


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_study_fp8_f32_sample_is_wgmma(fmt, capsys):
    """The MATLAB-tensor-core study's fp8 -> f32 words (a sample on which the rows disagree): `--inst wgmma`
    gives every one; `mma.sync` (either toolkit) none of them."""
    batch = str(STUDY / f"{fmt}-f32-wgmma.batch")
    want = _study_words(f"{fmt}-f32-wgmma")
    assert run(["mma", "--arch", "hopper", "--in", fmt, "--inst", "wgmma", "--batch", batch]) == 0
    out, err = capsys.readouterr()
    assert out.split() == want and "row hopper wgmma" in err
    for ptxas in ("13.0", "12.6"):
        assert run(["mma", "--arch", "hopper", "--in", fmt, "--ptxas", ptxas, "--batch", batch]) == 0
        assert not set(enumerate(capsys.readouterr().out.split())) & set(enumerate(want))


@pytest.mark.parametrize("stem", ["h100-e4m3-f16-mma", "h100-e5m2-f16-mma", "h200-e4m3-f16-mma",
                                  "h200-e5m2-f16-mma"])
def test_study_fp8_f16_sample_is_mma_sync(stem, capsys):
    fmt = stem.split("-")[1]
    assert run(["mma", "--arch", "hopper", "--in", fmt, "--out", "f16", "--ptxas", "12.8",
                "--batch", str(STUDY / f"{stem}.batch")]) == 0
    assert capsys.readouterr().out.split() == _study_words(stem)


def test_text_names_the_row_on_stderr(capsys):
    # P1 (tests/numerics/test_mma_select.py): the summed HMMAs of ptxas 12.4-12.6 round 2^12 + 0.75 ulp up
    argv = ["mma", "--arch", "sm_90", "--in", "e4m3", "--a", "68,00,0c", "--b", "68,00,08"]
    assert run([*argv, "--ptxas", "12.6"]) == 0
    out, err = capsys.readouterr()
    assert out.split()[0] == "45800001"
    assert err.startswith("volta mma: row hopper mma.sync e4m3->f32, ptxas 12.4-12.6 (ptxas 12.6, --ptxas): ")
    assert "summed (RNE)" in err
    assert run([*argv, "--ptxas", "13"]) == 0
    out, err = capsys.readouterr()
    assert out.split()[0] == "45800000" and "ptxas 12.8+ (ptxas 13.0, --ptxas)" in err


def test_json_carries_the_row(capsys):
    assert run(["mma", "--arch", "hopper", "--in", "e5m2", "--inst", "wgmma", "--a", "54,00,26", "--b",
                "54,00,24", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["words"] == ["45800000"] and doc["value"] == 4096.0 and doc["acc"] == "f32"
    row = doc["row"]
    assert row["name"] == "hopper wgmma e5m2->f32, every ptxas" and row["inst"] == "wgmma"
    assert "groups of 32, 13 extra bits" in row["structure"] and "MATLAB-tensor-core" in row["source"]
    assert row["ptxas_from"] in ("nvcc", "default")  # no --ptxas: the nvcc found, else 13.0


def test_json_batch_and_the_default_row(tmp_path, capsys):
    path = tmp_path / "b.txt"
    path.write_text("3f80 ; 3f80 ; 0\n4000 ; 4000 ; 3f800000\n")
    assert run(["mma", "--arch", "ampere", "--in", "bf16", "--batch", str(path), "--json", "--ptxas", "12.4"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["words"] == ["3f800000", "40a00000"] and doc["value"] is None
    assert doc["row"]["name"] == "ampere mma.sync bf16->f32, every ptxas" and doc["row"]["ptxas"] == "12.4"


@pytest.mark.parametrize("argv,needle", [
    (["--arch", "hopper", "--in", "e4m3", "--ptxas", "12"], "ptxas 12.0 cannot compile fp8 mma.sync"),
    (["--arch", "hopper", "--in", "e4m3", "--out", "f16", "--ptxas", "12.6"], "rejects fp8 mma.sync with an f16"),
    (["--arch", "hopper", "--in", "e4m3", "--ptxas", "twelve"], "bad --ptxas"),
    (["--arch", "ampere", "--in", "f16", "--inst", "wgmma"], "wgmma exists on sm_90a"),
    (["--arch", "hopper", "--in", "e5m2", "--out", "f16", "--inst", "wgmma"], "no measured model"),
    (["--arch", "hopper", "--in", "f16", "--inst", "wmma"], "Invalid value for '--inst'"),
])
def test_settings_that_no_toolkit_compiles(argv, needle, capsys):
    assert run(["mma", *argv, "--a", "0", "--b", "0"]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
