"""Notes are said once per distinct text with a count (issue 32 §8); `-v` keeps each as made."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, strategies as st

from volta.cli import run
from volta.report.common import note_lines

EX = Path(__file__).resolve().parents[2] / "examples"


def test_notes_differing_only_in_place_become_one_line():
    notes = ["ref: ex/ref.ptx:221: `shl.b32` read as 2^n", "opt: ex/opt.ptx:9: `shl.b32` read as 2^n",
             "no place here", "no place here", "k.ptx:4: once"]
    assert note_lines(notes) == ["`shl.b32` read as 2^n (2 places: first ref: ref.ptx:221; -v lists each)",
                                 "no place here (2 times)", "k.ptx:4: once"]
    assert note_lines(notes, verbose=True) == notes


@given(st.lists(st.sampled_from(["a.ptx:1: x", "b.ptx:2: x", "c.ptx:3: y", "z"]), max_size=12))
def test_one_line_per_distinct_text(notes):
    lines = note_lines(notes)
    texts = {n.split(": ", 1)[1] if ".ptx:" in n else n for n in notes}
    assert len(lines) == len(texts)
    assert sum(int(l.split("(")[1].split(" ")[0]) if "(" in l else 1 for l in lines) == len(notes)


def test_check_prints_one_note_and_all_with_v(capsys):
    manifest = str(EX / "eq_silu_expf_div_sigmoid" / "manifest.toml")
    assert run(["check", manifest, "-q"]) == 0
    notes = [l for l in capsys.readouterr().out.splitlines() if l.strip().startswith("note:")]
    assert len(notes) == 1 and "(2 places: first ref: ref.sm80.ptx:" in notes[0]
    assert run(["check", manifest, "-q", "-v"]) == 0
    notes = [l for l in capsys.readouterr().out.splitlines() if l.strip().startswith("note:")]
    assert len(notes) == 2 and "opt: " in notes[1] and "opt.sm80.ptx:" in notes[1]


def test_v_is_a_flag_of_races_and_run(capsys):
    manifest = str(EX / "vector_add" / "manifest.toml")
    assert run(["races", manifest, "-v", "-q"]) == 0
    assert run(["run", manifest, "-v", "-q"]) == 0
