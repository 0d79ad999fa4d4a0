"""volta against words an NVIDIA H200 computed (examples/probes/h200, gathered by examples/probes/gpu_check.sh).

No GPU is needed: the hardware's outputs are committed, and each test replays the same inputs in volta.
- every example and Triton configuration whose `volta run --fp hopper` matched the H200 bit for bit still does
  (those whose output depends on the schedule, through a race or atomics, are left out);
- numerics.md's discriminating vectors and 20 random m16n8k16 GEMM tiles through the hopper tensor-core rows;
- the issue-13 vectors and the parameter sweeps of derive.py, re-read from the saved GPU outputs;
- f32 ex2/lg2/rcp/rsqrt/sqrt/div `.approx` give the H200's words (the measured unit, volta/numerics/mufu.py).
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "examples" / "probes" / "h200"
sys.path.insert(0, str(ROOT / "examples" / "probes"))

import approx_probe  # noqa: E402
import replay_examples  # noqa: E402

CASES = json.loads((H200 / "examples.json").read_text())["cases"]
SCHEDULE = {"defect", "float atomics", "atomic order"}  # outputs that depend on the order threads ran in
IDENTICAL = sorted(cid for cid, m in CASES.items() if m["volta_hopper"] == "identical" and not SCHEDULE & set(m["noise"]))


@pytest.fixture(scope="module")
def gpu_outputs():
    with np.load(H200 / "examples.npz") as z:
        return {k: z[k] for k in z.files}


def test_the_record_covers_the_examples():
    assert len(IDENTICAL) >= 220 and sum(cid.startswith("triton/") for cid in IDENTICAL) == 34
    # every case that differed depends on the schedule: a defect (a race, an uninitialized read) or atomics
    assert all(SCHEDULE & set(m["noise"]) for m in CASES.values() if m["volta_hopper"] == "differs")


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDENTICAL)
def test_example_matches_the_h200(cid, gpu_outputs):
    from volta.session import replay
    from volta.launch.spec import DTYPES

    spec, role = replay_examples.load_case(cid)
    arrays = replay.choose_inputs(spec, "random:0").arrays
    for buf, digest in CASES[cid]["inputs_sha256"].items():
        raw = np.ascontiguousarray(arrays[buf]).view(np.uint8).reshape(-1)[: spec.buffers[buf].nbytes] \
            if buf in spec.buffers else np.ascontiguousarray(arrays[buf]).view(np.uint8).reshape(-1)
        assert hashlib.sha256(raw.tobytes()).hexdigest()[:16] == digest, \
            f"the random:0 inputs of {buf} changed since the H200 run: rerun examples/probes/gpu_check.sh"
    raw = replay.run_launch(spec, role, arrays, fp="hopper", check_races=False)
    for key, words in gpu_outputs.items():
        case, buf = key.split("::")
        if case != cid:
            continue
        size = DTYPES[spec.buffers[buf].dtype][1] if buf in spec.buffers else 1
        mine = np.ascontiguousarray(raw.outputs[buf]).view(np.uint8).reshape(-1)[: words.size]
        bad = np.flatnonzero(mine != words)
        assert bad.size == 0, f"{buf}: byte {bad[0]} (element {bad[0] // size}) differs from the H200's"


@pytest.mark.parametrize("fmt", ["bf16", "f16", "e4m3", "e5m2"])
def test_mma_vectors_match_the_h200(fmt):
    from volta.cli.mma_cmd import _read_batch, run_batch_text

    batch = H200 / f"mma-vectors-{fmt}.batch"
    got = run_batch_text(_read_batch(str(batch)), str(batch), "hopper", fmt, "f32")
    want = [int(w, 16) for w in (H200 / f"mma-vectors-{fmt}.gpu").read_text().split()]
    assert got == want


def test_gemm_tiles_match_the_h200():
    import volta

    manifest = ROOT / "examples" / "gemm_mma_sync" / "manifest.toml"
    for tile in sorted((H200 / "gemm").glob("tile*.npz")):
        with np.load(tile) as z:
            A, B, C = z["A"], z["B"], z["C"]
        res = volta.run(str(manifest), inputs={"A": A.view(np.float16), "B": B.view(np.float16)}, fp="hopper",
                        check_races=False)
        mine = np.asarray(res.outputs["C"]).astype(np.float32).view(np.uint32)
        assert np.array_equal(mine, C.view(np.uint32)), tile.name


@pytest.mark.parametrize("probe", ["check_vectors.py", "derive.py"])
def test_saved_gpu_probes_agree_with_the_hopper_rows(probe):
    saved = H200 / ("vectors" if probe == "check_vectors.py" else "derive")
    res = subprocess.run([sys.executable, str(ROOT / "examples" / "probes" / probe), "--saved", str(saved),
                          "--arch", "hopper"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]


# f32 .approx instructions volta models bit for bit (volta/numerics/mufu.py): 8,192 of the H200's operands each
# (from the second, independent sample: the rules were read off the first),
# half random bit patterns (zeros, subnormals, infinities, NaN), half over the useful range. sin and cos keep
# RN(libm), which is not the hardware (examples/probes/README.md gives how far).
EXACT = ["ex2.approx.f32", "ex2.approx.ftz.f32", "lg2.approx.f32", "lg2.approx.ftz.f32", "rcp.approx.f32",
         "rcp.approx.ftz.f32", "sqrt.approx.f32", "sqrt.approx.ftz.f32", "rsqrt.approx.f32", "rsqrt.approx.ftz.f32",
         "tanh.approx.f32", "div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"]


@pytest.mark.parametrize("op", EXACT)
def test_approx_is_the_h200s(op):
    from volta.numerics import approx as AP
    from volta.semantics import compute as C

    with np.load(H200 / "approx.npz") as z:
        key = approx_probe._key(op)
        words = [z[f"in.{key}.{k}"] for k in (("x", "y") if op.startswith("div") else ("x",))]
        gpu = z[f"gpu.{key}"]
    mods = approx_probe._Mods(op)
    name = "div.full" if op.startswith("div.full") else op.split(".")[0]
    mine = np.asarray(C.approx(name, mods, "f32", *[w.astype(np.uint64) for w in words])).astype(np.uint32)
    same = (mine == gpu) | (approx_probe._isnan(gpu) & approx_probe._isnan(mine))
    assert same.all(), f"{np.count_nonzero(~same)} words differ, first at operand {np.flatnonzero(~same)[0]}"
    for i in range(0, gpu.size, 97):  # the scalar model (special lanes, other callers) agrees lane by lane
        w = AP.approx(name, *(int(x[i]) for x in words), fmt="f32", ftz=mods.has(".ftz"))
        assert w == gpu[i] or (approx_probe._isnan(np.uint32(w)) and approx_probe._isnan(gpu[i]))


@pytest.mark.parametrize("inst", ["ex2.approx.f16", "ex2.approx.ftz.bf16", "tanh.approx.f16", "tanh.approx.bf16"])
def test_16bit_approx_is_the_h200s_on_every_operand(inst):
    from tests.semantics.helpers import one
    from volta.semantics import compute as C

    with np.load(H200 / "approx16.npz") as z:
        gpu = z[approx_probe._key(inst)]
    fmt = inst.split(".")[-1]
    mine = np.asarray(C.approx(inst.split(".")[0], approx_probe._Mods(inst), fmt, np.arange(1 << 16, dtype=np.uint64)))
    assert np.array_equal(mine.astype(np.uint16), gpu)
    for lo, hi in ((0x3C00, 0x1234), (0xBC00, 0x7E00), (0x0001, 0xFBFF)):  # the packed form, through the machine
        assert one(inst + "x2", (hi << 16) | lo) == (int(gpu[hi]) << 16) | int(gpu[lo])
