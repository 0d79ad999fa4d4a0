"""volta check with shared sums kept whole (issue 28 §3): the two-pass against the one-pass layer norm at
C = 1024 is proved by normal forms whose row sum is one atom (it timed out in the expansion before), the
report says so, and the mutant with the wrong divisor still gets a replayed counterexample."""
from __future__ import annotations

import json
from pathlib import Path

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"


def test_layer_norm_two_ways_proved_with_shared_terms(capsys):
    assert run(["check", str(EX / "eq_layernorm_twopass_onepass" / "manifest.toml"), "-q", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "equivalent"
    assert report["proved_by"] == {"shared-terms": 2048}


def test_text_report_names_the_method(capsys):
    assert run(["check", str(EX / "eq_layernorm_twopass_onepass" / "manifest.toml")]) == 0
    assert "shared sums kept whole" in capsys.readouterr().out


def test_wrong_divisor_has_a_replayed_witness(capsys, tmp_path):
    manifest = str(EX / "neq_layernorm_onepass_divisor" / "manifest.toml")
    cex = tmp_path / "cex.json"
    assert run(["check", manifest, "-q", "--json", "--save-counterexample", str(cex)]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "not-equivalent"
    assert run(["check", manifest, "-q", "--json", "--replay", str(cex)]) == 1
    assert json.loads(capsys.readouterr().out)["differ"] is True
