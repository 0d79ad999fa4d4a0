"""volta check with shared sums kept whole (issue 28 §3): the two-pass against the one-pass layer norm at
C = 1024 is proved by normal forms whose row sum is one atom (it timed out in the expansion before), the
report says so. (The mutant with the wrong divisor, examples/neq_layernorm_onepass_divisor, gets its replayed
counterexample in tests/equiv/test_lanepoly_path.py::test_example_pair, which checks every pair that way.)"""
from __future__ import annotations

from pathlib import Path

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"


def test_layer_norm_two_ways_proved_with_shared_terms_and_the_report_names_the_method(capsys):
    # one check (~7 CPU s), read in its text form: the line counts the elements by `proved_by` method, worded
    # from the JSON's method keys (volta/report/check_report.py), so "shared sums kept whole" is `shared-terms`
    assert run(["check", str(EX / "eq_layernorm_twopass_onepass" / "manifest.toml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("EQUIVALENT: ")
    assert "2,048 output elements compared: 2,048 by equal normal forms with shared sums kept whole\n" in out

