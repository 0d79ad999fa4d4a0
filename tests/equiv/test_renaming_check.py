"""`volta check` proves an element by renaming the inputs of a proved one (symbolic/renaming.py), end to end."""
from __future__ import annotations

import json
from pathlib import Path

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"


def _check(capsys, manifest: Path) -> dict:
    run(["check", str(manifest), "-q", "--json"])
    out, err = capsys.readouterr()
    assert "internal error" not in err, err
    return json.loads(out)


def test_flash_attention_columns_by_renaming(capsys):
    """Naive attention vs flash attention on tensor cores: one element by its normal forms, the other 511 (other
    columns of V, other query rows) as renamings of the element proved before them."""
    doc = _check(capsys, EX / "eq_attention_naive_flash_mma" / "manifest.toml")
    assert doc["verdict"] == "equivalent"
    assert doc["proved_by"].get("renaming", 0) > 400 and sum(doc["proved_by"].values()) == doc["compared"] == 512


def test_a_pair_differing_in_one_element_is_still_refuted(capsys):
    """Causal attention against a flash version that drops the diagonal key on every row but the first: row 0's
    columns are renamings of O[0], row 1 is no renaming of row 0 (one key fewer), and O[16] is refuted."""
    doc = _check(capsys, EX / "neq_attention_causal_diagonal" / "manifest.toml")
    assert doc["verdict"] == "not-equivalent"
    assert doc["proved_by"].get("renaming", 0) == 15 and doc["counterexample"]["index"] == 16
