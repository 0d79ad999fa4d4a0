"""Where bits diverge: the instruction whose own rounding departs from the reals (HEAL's diagnosis)."""
from pathlib import Path

import numpy as np

from volta.equiv.bits import compare_bits
from volta.equiv.diverge import diverge
from volta.launch.spec import load_manifest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def spec(name):
    return load_manifest(EXAMPLES / name / "manifest.toml")


def test_blames_the_bf16_cvt_when_the_accumulation_is_exact():
    # small integers: every f32 fma is exact, so only the downcast before the store rounds
    rng = np.random.default_rng(1)
    inputs = {"A": rng.integers(1, 9, 4096).astype(np.float32), "x": rng.integers(1, 9, 64).astype(np.float32)}
    d = diverge(spec("eq_bits_bf16_store"), buffer="y", index=5, inputs=inputs)
    assert d.ref.store is not None and d.ref.first is None and d.ref.path > 64
    assert d.ref.rounded_value == d.ref.exact_value
    w = d.opt.worst
    assert d.opt.first == w and w.opcode == "cvt.rn.bf16.f32"
    assert w.ptx.startswith("opt.sm90.ptx:") and w.cuda is not None
    assert w.bits_lost >= 8 and w.error == w.rounded - w.exact_of_rounded_inputs != 0
    assert "exact along the whole path" in d.conclusion and "cvt.rn.bf16.f32" in d.conclusion
    fmas = [s for s in d.opt.sites if s.opcode.startswith("fma")]
    assert fmas and all(s.roundings == 0 for s in fmas)


def test_witness_from_compare_bits_diagnoses_the_store_downcast():
    s = spec("eq_bits_bf16_store")
    report = compare_bits(s, trials=1, generators=("uniform",))
    d = diverge(s, witness=report.witness)
    assert (d.buffer, d.index) == (report.witness.buffer, report.witness.index)
    # random inputs: both accumulations round by at most an ulp; the cvt loses far more
    assert d.ref.worst.bits_lost <= 1 and d.opt.worst.opcode == "cvt.rn.bf16.f32" and d.opt.worst.bits_lost > 8
    assert d.ref.exact_value == d.opt.exact_value  # the same real expression


def test_reassociated_sum_follows_shared_memory():
    s = spec("eq_bits_reduce_seq_tree_f32")
    report = compare_bits(s, trials=1, generators=("uniform",))
    d = diverge(s, witness=report.witness)
    assert d.ref.exact_value == d.opt.exact_value != d.ref.rounded_value
    assert d.ref.first.opcode.startswith("add") and d.opt.first.opcode.startswith("add")
    assert d.opt.path > 256 and not d.opt.stops and not d.opt.truncated  # through st.shared/ld.shared


def test_walk_is_bounded():
    s = spec("eq_bits_reduce_seq_tree_f32")
    report = compare_bits(s, trials=1, generators=("uniform",))
    d = diverge(s, witness=report.witness, max_steps=50)
    assert d.ref.truncated and d.ref.path == 50
