"""examples/probes: the inference of derive.py recovers each architecture's numerics.md row from `volta mma`'s
model (an end-to-end test of the probe logic without a GPU), and mma_probe.cu compiles to PTX when nvcc exists."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from volta.numerics.mma_model import PARAMS, Rnd

PROBES = Path(__file__).resolve().parents[2] / "examples" / "probes"
DERIVE = PROBES / "derive.py"
sys.path.insert(0, str(PROBES))
import derive  # noqa: E402

# numerics.md's parameter table, (in, acc) -> (G, F, E_floor, rounding), as written there
NUMERICS_MD = {
    "volta": {("f16", "f32"): (4, 23, None, "RZ"), ("f16", "f16"): (4, 23, -19, "RNE")},
    "ampere": {("f16", "f32"): (8, 24, -132, "RZ"), ("bf16", "f32"): (8, 24, -132, "RZ"),
               ("f16", "f16"): (8, 24, -20, "RNE"), ("tf32", "f32"): (4, 24, -132, "RZ")},
    "hopper": {("f16", "f32"): (16, 25, -133, "RZ"), ("bf16", "f32"): (16, 25, -133, "RZ"),
               ("f16", "f16"): (16, 25, -21, "RNE"), ("tf32", "f32"): (8, 25, -133, "RZ")},
    "blackwell": {("f16", "f32"): (16, 25, -133, "RZ"), ("bf16", "f32"): (16, 25, -133, "RZ"),
                  ("f16", "f16"): (16, 25, -21, "RNE"), ("tf32", "f32"): (8, 25, -133, "RZ")},
}
NUMERICS_MD["ada"] = NUMERICS_MD["ampere"]


def _derive(*args):
    return subprocess.run([sys.executable, str(DERIVE), *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("arch", ["ampere", "hopper", "volta", "ada", "blackwell"])
def test_model_inference_recovers_table(arch, capsys):
    rc = derive.main(["--model", arch, "--json"])
    text = capsys.readouterr().out
    assert rc == 0, text
    out = json.loads(text)
    assert out["match"] and out["arch"] == arch
    want = NUMERICS_MD[arch]
    assert {tuple(k.split("-")) for k in out["results"]} == set(want)
    for key, got in out["results"].items():
        g, f, floor, rnd = want[tuple(key.split("-"))]
        assert (got["G"], got["F"], got["rounding"]) == (g, f, rnd), key
        if key == "f16-f32":  # every f16 product is >= 2^-48: no f32 floor can show
            assert got["E_floor"] == "n/o"
        else:
            assert got["E_floor"] == floor, key


def test_table_in_derive_matches_numerics_md_and_model_params():
    assert derive.TABLE == NUMERICS_MD
    for arch, rows in NUMERICS_MD.items():
        for (i, acc), (g, f, floor, rnd) in rows.items():
            p = PARAMS[arch][(i, acc)]
            assert (p.group, p.frac_bits, p.e_floor) == (g, f, floor)
            assert p.rounding == (Rnd.RZ if rnd == "RZ" else Rnd.RN)


def test_volta_mma_command_end_to_end():
    """The same inference through the `volta mma --batch` command itself (a process per batch)."""
    res = _derive("--model", "ampere", "--via-cli", "--formats", "bf16-f32,f16-f16", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    got = json.loads(res.stdout)["results"]
    assert (got["bf16-f32"]["G"], got["bf16-f32"]["F"], got["bf16-f32"]["E_floor"]) == (8, 24, -132)
    assert (got["f16-f16"]["E_floor"], got["f16-f16"]["rounding"]) == (-20, "RNE")


@pytest.mark.slow
def test_compare_gemm_counts_differing_words(tmp_path, capsys):
    """compare_gemm.py's comparison half (--gpu-out), fed Hopper-model words as the 'GPU' output."""
    import numpy as np

    import compare_gemm
    from volta.numerics.mma_vec import mma

    A, B = compare_gemm.random_tile(0)
    a = A.view(np.uint16).reshape(compare_gemm.M, compare_gemm.K)
    b = B.view(np.uint16).reshape(compare_gemm.K, compare_gemm.N)
    C = mma(a, b, np.zeros((compare_gemm.M, compare_gemm.N), np.uint32), "hopper", "f16", "f32")
    np.savez(tmp_path / "tile0.npz", A=A, B=B, C=C.reshape(-1).view(np.float32))
    assert compare_gemm.main(["--arch", "hopper", "--tiles", "1", "--gpu-out", str(tmp_path)]) == 0
    assert "tile 0: 0 of 1024 words differ" in capsys.readouterr().out
    assert compare_gemm.main(["--arch", "ampere", "--tiles", "1", "--gpu-out", str(tmp_path)]) == 1
    assert "total: 0 " not in capsys.readouterr().out


def test_wrong_row_is_reported(capsys):
    """Ampere's behaviour compared with Hopper's row: a mismatch, exit 1 (the logic discriminates)."""
    assert derive.main(["--model", "ampere", "--arch", "hopper", "--formats", "bf16-f32"]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_saved_outputs_round_trip(tmp_path, capsys):
    """--save then --saved (how GPU results are re-read) gives the same inference."""
    assert derive.main(["--model", "hopper", "--formats", "bf16-f32", "--save", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bf16-f32.1.batch", "bf16-f32.1.out",
                                                          "bf16-f32.2.batch", "bf16-f32.2.out"]
    capsys.readouterr()
    assert derive.main(["--saved", str(tmp_path), "--arch", "hopper", "--formats", "bf16-f32", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]["bf16-f32"]["G"] == 16


def test_probe_lines_pad_to_whole_instructions():
    c1 = derive.phase1("tf32", "f32")
    for line in derive.lines_of(c1):
        k = line.text("tf32", "f32").split(";")[0].count(",") + 1
        assert k % 8 == 0 and k <= 64
    for line in derive.lines_of(derive.phase1("bf16", "f32")):
        assert (line.text("bf16", "f32").split(";")[0].count(",") + 1) in (16, 32)


def test_round_word_exact_encodings():
    assert derive.round_word(derive.P(-25), "f16", "RNE") == 0
    assert derive.round_word(derive.P(-25) + derive.P(-40), "f16", "RNE") == 1
    assert derive.round_word(37748739, "f32", "RZ") == 0x4C100000
    assert derive.round_word(37748739, "f32", "RNE") == 0x4C100001
    assert derive.round_word(-37748739, "f32", "RD") == 0xCC100001
    assert derive.round_word(1, "bf16", exact=True) == 0x3F80
    assert derive.round_word(derive.P(-132) - derive.P(-156), "f32", "RZ") == 0x0001FFFF


NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.access("/usr/local/bin/nvcc", os.X_OK) else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not available")
@pytest.mark.parametrize("sm", ["sm_80", "sm_90"])
def test_probe_compiles_to_ptx(tmp_path, sm):
    out = tmp_path / f"probe.{sm}.ptx"
    res = subprocess.run([NVCC, "-ptx", f"-arch={sm}", "-o", str(out), str(PROBES / "mma_probe.cu")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    ptx = out.read_text()
    for inst in ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                 "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
                 "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"):
        assert inst in ptx, inst
