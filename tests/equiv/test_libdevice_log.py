"""`volta check` over the reals on libdevice's logf (tests/equiv/data/libdevice_log.cu, nvcc sm_80, no fast
math): its exponent/mantissa split on the float's bits (volta/exec/handlers/floatbits.py, proofs/float_bits.py)."""
import importlib.util
import json
from pathlib import Path

from volta.cli import run

DATA = Path(__file__).parent / "data"
PTX = str(DATA / "libdevice_log.ptx")
LAUNCH = ["--grid", "1", "--block", "32", "--args", "x,y,32", "--buffer", "x=f32[32]:in",
          "--buffer", "y=f32[32]:out", "-q"]


def _check(capsys, ref, opt, *extra):
    code = run(["check", PTX, PTX, "--ref-kernel", ref, "--opt-kernel", opt, *LAUNCH, *extra])
    return code, capsys.readouterr().out


def test_guarding_the_undefined_side_is_equivalent_and_says_what_it_relied_on(capsys):
    """logf(x) vs x > 0 ? logf(x) : 0 differ only where logf is NaN/-inf (x <= 0), which the real semantics
    leaves undefined (proofs/README.md §3): the solver must not offer x <= 0 as a counterexample."""
    code, out = _check(capsys, "log_plain", "log_guarded", "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "equivalent", out
    assert any("floor(log2(v/c))" in n and "v <= 0 leaves the result undefined" in n for n in data["notes"])


def test_a_one_ulp_change_of_the_result_or_the_argument_is_not_equivalent(capsys):
    for opt in ("log_shifted", "log_scaled_arg"):
        code, out = _check(capsys, "log_plain", opt)
        assert code == 1 and out.startswith("NOT EQUIVALENT"), out
        assert "exact rational arithmetic" in out


def test_bit_manipulation_outside_the_idiom_is_unsupported_and_named(capsys):
    code, out = _check(capsys, "log_plain", "mantissa_bits")
    assert code == 3 and out.startswith("UNSUPPORTED"), out
    assert "and.b32" in out and "libdevice_log.ptx:" in out


def _proof():
    spec = importlib.util.spec_from_file_location("float_bits", DATA.parents[2] / "proofs" / "float_bits.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bit_identities_hold_and_their_check_can_fail():
    proof = _proof()
    assert proof.main() == 0
    assert proof.check_split(0x3F2AAAAB, mask=0xFFC00000) > 0      # one mantissa bit kept: k is wrong
    assert proof.check_split(0x3F2AAAAB, mask=0xFF000000) > 0      # one exponent bit dropped
    x = 0x3F800000   # 1.0 is not below itself: a comparison table off by one must be caught
    assert proof.check_compare(proof.np.array([x], proof.np.uint32), [x]) == []
    real = proof.realops.bits_compare
    try:
        proof.realops.bits_compare = lambda cmp, s, v, k, first: real(".le" if cmp == ".lt" else cmp, s, v, k, first)
        assert proof.check_compare(proof.np.array([x], proof.np.uint32), [x])
    finally:
        proof.realops.bits_compare = real
