"""`--ctas`: running a chosen set of CTAs (volta/launch/ctas.py) in races, run and check."""
import json
from pathlib import Path

import pytest

from volta.cli import run
from volta.errors import UsageError
from volta.launch import ctas
from volta.launch.spec import Dim3

EX = Path(__file__).resolve().parents[2] / "examples"


def test_parse_corners_random_lists_and_coordinates():
    grid = Dim3(4, 3, 1)
    assert ctas.parse("corners", grid) == (0, 3, 8, 11)
    assert ctas.parse("0,5,5,11", grid) == (0, 5, 11)
    assert ctas.parse("1x2,0x0", grid) == (0, 9)
    picked = ctas.parse("random:3:7", grid)
    assert len(picked) == 3 and picked == ctas.parse("random:3:7", grid) and all(0 <= k < 12 for k in picked)
    assert ctas.parse("random:99", grid) == tuple(range(12))
    for bad in ("12", "4x0", "0x3", "x", "random:0", "", "1;2"):
        with pytest.raises(UsageError):
            ctas.parse(bad, grid)


def test_races_on_one_cta_name_its_grid_coordinates(capsys):
    code = run(["races", str(EX / "bug_gemm_tiled_nosync" / "manifest.toml"), "--ctas", "1x1", "-q"])
    out = capsys.readouterr().out
    assert code == 1 and "block (1, 1, 0)" in out and "block (0, 0, 0)" not in out
    assert "CTAs run (--ctas): 1 of 4 CTAs: (1, 1, 0)" in out and "256 threads" in out


def test_a_clean_partial_race_check_says_what_it_covers(capsys):
    code = run(["races", str(EX / "gemm_wmma" / "manifest.toml"), "--ctas", "0,3", "-q", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["kernels"][0]["ctas"] == "2 of 4 CTAs: (0, 0, 0), (1, 1, 0)"
    assert data["kernels"][0]["threads"] == 64


def test_run_on_selected_ctas_leaves_the_other_outputs_alone(tmp_path, capsys):
    out = tmp_path / "o.npz"
    code = run(["run", str(EX / "eq_gemm_naive_tiled" / "manifest.toml"), "--kernel", "ref", "--ctas", "0",
                "--inputs", "random", "--out", str(out), "-q"])
    text = capsys.readouterr().out
    assert code == 0 and "--ctas: only 1 of 4 CTAs" in text
    import numpy as np

    c = np.load(out)["C"].reshape(32, 32)
    assert np.any(c[:16, :16] != 0) and not np.any(c[16:, :]) and not np.any(c[:, 16:])


def test_partial_check_is_qualified_in_text_and_json(capsys):
    code = run(["check", str(EX / "eq_gemm_naive_tiled" / "manifest.toml"), "--ctas", "1x0", "-q", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["verdict"] == "equivalent"
    assert data["verdict_text"] == "EQUIVALENT ON THE SELECTED CTAS"
    assert data["coverage"]["not_compared"] == 768 and data["compared"] == 256
    run(["check", str(EX / "eq_gemm_naive_tiled" / "manifest.toml"), "--ctas", "1x0", "-q"])
    text = capsys.readouterr().out
    assert text.startswith("EQUIVALENT ON THE SELECTED CTAS") and "nothing is claimed about them" in text


def test_an_element_only_the_whole_grid_side_leaves_unwritten_is_a_difference(capsys):
    """ref's corner CTAs write the ragged rows; opt (every CTA of its 2x2 grid runs) never writes them."""
    code = run(["check", str(EX / "neq_kb_gemm_missing_rows" / "manifest.toml"), "--ctas", "corners", "-q"])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("NOT EQUIVALENT") and "untouched" in out.splitlines()[0]


def test_kernels_whose_ctas_communicate_are_refused(tmp_path, capsys):
    src = tmp_path / "dot.cu"
    src.write_text('extern "C" __global__ void dot_atomic(const float* x, float* out, int n)\n'
                   '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(out, x[i]); }\n')
    ptx = tmp_path / "dot.ptx"
    import shutil
    import subprocess

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    subprocess.run(["nvcc", "-arch=sm_80", "-ptx", str(src), "-o", str(ptx)], check=True)
    code = run(["check", str(ptx), str(ptx), "--grid", "2", "--block", "32", "--args", "x,out,64",
                "--buffer", "x=f32[64]:in", "--buffer", "out=f32[1]:inout", "--ctas", "0", "-q"])
    out = capsys.readouterr().out
    assert code == 3 and out.startswith("UNSUPPORTED") and "global atomic" in out and "atom.global.add.f32" in out


def test_bad_selections_are_usage_errors(capsys):
    manifest = str(EX / "eq_gemm_naive_tiled" / "manifest.toml")
    assert run(["check", manifest, "--ctas", "9", "-q"]) == 2
    assert "outside the grid of 4 CTAs" in capsys.readouterr().err
    assert run(["check", manifest, "--ctas", "0", "--fp", "ieee", "-q"]) == 2
    assert "--fp real" in capsys.readouterr().err


def test_the_memory_estimate_counts_only_the_selected_ctas(capsys):
    """A grid far too large to run whole (16,384 CTAs of 256 threads) checks on one CTA within 1 GB: the launch's
    memory is estimated after --ctas chose what runs."""
    case = EX / "eq_gemm_naive_tiled"
    argv = ["check", str(case / "ref.sm80.ptx"), str(case / "opt.sm80.ptx"), "--ref-kernel", "gemm_naive",
            "--opt-kernel", "gemm_tiled", "--grid", "128x128", "--block", "16x16", "--args", "A,B,C,32,32,32",
            "--buffer", "A=f32[1024]:in", "--buffer", "B=f32[1024]:in", "--buffer", "C=f32[1024]:out",
            "--max-memory", "1G", "-q"]
    assert run(argv) == 2 and "needs about" in capsys.readouterr().err
    assert run(argv + ["--ctas", "0"]) == 0
    assert capsys.readouterr().out.startswith("EQUIVALENT ON THE SELECTED CTAS")
