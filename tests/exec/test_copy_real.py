"""`volta check` over the reals through cp.async / cp.async.bulk / mbarrier pipelines, end to end (CLI).

PTX ISA §9.7.9.25 (cp.async): the copy reads its source when issued and writes shared memory by the time
the issuing thread's cp.async.wait_group / wait_all completes it; volta/exec/asynccopy.py moves the bytes
then and volta/exec/copy_real.py the elements' expressions with them. Triton's FMA dot loads its shared
tiles with ldmatrix of 32-bit words, which copy_real.py moves as whole elements.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"
T = EX / "triton"
NAIVE = EX / "gemm_naive" / "kernel.sm80.ptx"


def _check(capsys, argv):
    code = run(["check", *argv, "-q", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


def _gemm_buffers(m, n, k):
    return ["--buffer", f"A=f32[{m * k}]:in", "--buffer", f"B=f32[{k * n}]:in", "--buffer", f"C=f32[{m * n}]:out"]


def _triton(ptx, m, n, k, tile, shared, ref_args="A,B,C"):
    return ["--ref-launch", f"{NAIVE} grid={n // 16}x{m // 16} block=16x16 args={ref_args},{m},{n},{k}",
            "--opt-launch", f"{T / ptx} grid={m // tile}x{n // tile} block=128 args=A,B,C,{m},{n},{k},0,0 "
                            f"shared={shared}", *_gemm_buffers(m, n, k)]


TRITON = [  # (PTX, M, N, K, tile, dynamic shared memory): num_stages 2 and 3
    ("matmul.16x16x16.w4.s2.sm80.ptx", 32, 32, 32, 16, 2048),
    ("matmul.16x16x8.w4.s3.sm80.ptx", 32, 32, 32, 16, 2048),
    ("matmul.32x32x8.w4.s3.sm80.ptx", 64, 64, 32, 32, 4096),
]


@pytest.mark.parametrize("ptx,m,n,k,tile,shared", TRITON)
def test_triton_matmul_pipelined_equivalent_to_naive_gemm(capsys, ptx, m, n, k, tile, shared):
    text = (T / ptx).read_text()
    assert "cp.async.ca.shared.global" in text and "cp.async.wait_group" in text   # a pipelined K loop
    code, data = _check(capsys, _triton(ptx, m, n, k, tile, shared))
    assert code == 0 and data["verdict"] == "equivalent", data
    assert data["compared"] == m * n


@pytest.mark.slow
def test_triton_matmul_against_a_wrong_reference_has_a_replayed_witness(capsys, tmp_path):
    cex = tmp_path / "cex.json"
    argv = _triton("matmul.16x16x8.w4.s3.sm80.ptx", 32, 32, 32, 16, 2048, ref_args="B,A,C")   # ref computes B·A
    code, data = _check(capsys, [*argv, "--save-counterexample", str(cex)])
    assert code == 1 and data["verdict"] == "not-equivalent", data
    c = data["counterexample"]
    assert c["ref_value"] != c["opt_value"] and c["inputs"]
    code, replay = _check(capsys, [*argv, "--replay", str(cex)])   # concrete inputs through the cp.async stages
    assert code == 1 and replay["differ"] is True and replay["opt_value"] == c["opt_value"]


def _pair(case, arch="sm80"):
    """The option form of an eq_/neq_ gemm pair, on the PTX of `arch`."""
    d = EX / case
    m, n, k = (64, 64, 36) if "3stage" in case or "zfill" in case or "refill" in case else (32, 32, 32)
    grid = f"{n // 16}x{m // 16}"
    return [str(d / f"ref.{arch}.ptx"), str(d / f"opt.{arch}.ptx"), "--grid", grid, "--block", "16x16",
            "--args", f"A,B,C,{m},{n},{k}", *_gemm_buffers(m, n, k)]


@pytest.mark.parametrize("case", ["eq_gemm_cpasync_pipeline", "eq_gemm_cpasync_3stage"])
@pytest.mark.parametrize("arch", ["sm80", "sm90"])
def test_cuda_cp_async_gemm_equivalent_to_naive(capsys, case, arch):
    # 3stage: the ragged last k tile is zero-filled (src-size 0) into a stage that held tile 1: its stale
    # expressions must be gone, or the sums would carry extra terms
    code, data = _check(capsys, _pair(case, arch))
    assert code == 0 and data["verdict"] == "equivalent", data


# neq_gemm_cpasync_zfill_bytes (a float count passed as src-size: NOT EQUIVALENT with a replayed witness) and
# neq_gemm_cpasync_refill_early (a stage refilled before the barrier: a race) are checked through their
# manifests, which are this option form, by tests/cli/test_check_cli.py::test_example_pair (the checks of
# both here too repeated the two costliest checks of this file: 65 of its 125 s)


def test_wait_group_that_leaves_the_current_stage_in_flight_is_a_race(capsys, tmp_path):
    # wait_group 2 in a 3-stage loop that issues after the wait: tile kt may still be in flight when
    # other threads read it after the barrier
    d = tmp_path / "weak"
    d.mkdir()
    src = (EX / "eq_gemm_cpasync_3stage" / "opt.sm80.ptx").read_text()
    assert "cp.async.wait_group 1;" in src
    (d / "opt.sm80.ptx").write_text(src.replace("cp.async.wait_group 1;", "cp.async.wait_group 2;"))
    (d / "ref.sm80.ptx").write_text((EX / "eq_gemm_cpasync_3stage" / "ref.sm80.ptx").read_text())
    argv = _pair("eq_gemm_cpasync_3stage")
    argv[0], argv[1] = str(d / "ref.sm80.ptx"), str(d / "opt.sm80.ptx")
    code, data = _check(capsys, argv)
    assert code == 1 and data["verdict"] == "findings", data
    assert "race" in {f["kind"] for f in data["findings"]["opt"]}


def test_copy_of_part_of_an_element_is_unsupported(capsys, tmp_path):
    src = (EX / "eq_gemm_cpasync_pipeline" / "opt.sm80.ptx").read_text()
    assert "[%rd7], 4, 4;" in src
    bad = tmp_path / "opt.sm80.ptx"
    bad.write_text(src.replace("[%rd7], 4, 4;", "[%rd7], 4, 2;"))   # src-size 2 of a 4-byte float
    argv = _pair("eq_gemm_cpasync_pipeline")
    argv[1] = str(bad)
    code, data = _check(capsys, argv)
    assert code == 3 and data["verdict"] == "unsupported", data
    assert "piece of an element" in json.dumps(data)


def test_tma_bulk_copy_equivalent_and_a_wrong_scale_differs(capsys):
    code, data = _check(capsys, [str(EX / "eq_tma_bulk_scale" / "manifest.toml")])
    assert code == 0 and data["verdict"] == "equivalent", data
    d = EX / "eq_tma_bulk_scale"
    common = ["--buffer", "x=f32[1024]:in", "--buffer", "y=f32[1024]:out", "--symbol", "s=f32"]
    code, data = _check(capsys, ["--ref-launch", f"{d / 'ref.sm90.ptx'} grid=8 block=128 args=x,y,2.0",
                                 "--opt-launch", f"{d / 'opt.sm90.ptx'} grid=4 block=256 args=x,y,s", *common])
    assert code == 1 and data["verdict"] == "not-equivalent", data


def test_prove_bits_through_cp_async(capsys):
    code = run(["check", *_triton("matmul.16x16x16.w4.s2.sm80.ptx", 32, 32, 32, 16, 2048), "--fp", "ieee",
                "--prove", "-q"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert code == 0 and out.startswith("BIT-IDENTICAL"), out + err
