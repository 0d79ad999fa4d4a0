"""Issue 28 §5: embedding lookups (`wte + ids[t]*C`, ids read from an int buffer) through `volta check`.

A declared range (`--buffer ids=s32[N]:in:range=LO..HI`, the manifest's buffer text, the API's
`Buffer(..., range=(lo, hi))`) proves the index arithmetic in range; the gather, an address that depends on
data, is decided per assignment of the ids (volta/equiv/fixed_inputs.py): every assignment when there are at
most 64 (EQUIVALENT is then a proof over the range), else on concrete assignments (EQUIVALENT ON THESE INPUTS,
exit 3). The verdict says which.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import volta
from volta.cli import run
from volta.equiv import fixed_inputs

ROOT = Path(__file__).resolve().parents[2]
PTX = str(Path(__file__).parent / "data" / "embedding.ptx")
EXAMPLE = str(ROOT / "examples" / "eq_embedding_gather_range" / "manifest.toml")


def launch(ntok, C=32, ids="s32[{n}]:in:range=0..63"):
    return ["--grid", "1", "--block", str(ntok * C), "--args", f"ids,wte,wpe,out,{ntok},{C}",
            "--buffer", "ids=" + ids.format(n=ntok), "--buffer", f"wte=f32[{64 * C}]:in",
            "--buffer", f"wpe=f32[{64 * C}]:in", "--buffer", f"out=f32[{ntok * C}]:out"]


def check(capsys, opt, *extra, ntok=2, ids="s32[{n}]:in:range=0..63"):
    code = run(["check", PTX, PTX, "--ref-kernel", "embed_ref", "--opt-kernel", opt, *launch(ntok, ids=ids),
                "-q", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out


def test_the_example_is_equivalent_on_the_assignments_tried(capsys):
    code = run(["check", EXAMPLE, "-q", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 3 and doc["verdict"] == "equivalent-for-inputs"
    assert doc["verdict_text"] == "EQUIVALENT ON THESE INPUTS"
    fx = doc["fixed_inputs"]
    assert fx["buffers"] == ["ids"] and fx["assignments"] == 4 and not fx["enumerated"]
    assert fx["inputs"][0].startswith("random:0: ids = [") and fx["inputs"][1] == "zeros: ids = [0, 0, 0, 0, 0, 0, 0, 0]"
    assert doc["compared"] == 4 * 1024 and sum(doc["proved_by"].values()) == doc["compared"]


def test_text_says_it_is_not_a_proof_for_other_ids(capsys):
    code = run(["check", EXAMPLE, "-q"])
    out = capsys.readouterr().out
    assert code == 3 and out.startswith("EQUIVALENT ON THESE INPUTS")
    assert "not a proof for other values of `ids`" in out and "assignment 2: zeros: ids = [0," in out


def test_a_small_range_is_enumerated_and_proved(capsys):
    code, out = check(capsys, "embed_ref", ntok=2, ids="s32[{n}]:in:range=0..3")
    assert code == 0 and out.startswith("EQUIVALENT:"), out
    assert "decided over every one of its 16 assignments" in out


def test_a_wrong_last_row_is_found_by_enumerating_the_range(capsys):
    code, out = check(capsys, "embed_clamp62", ntok=1)
    assert code == 1 and out.startswith("NOT EQUIVALENT"), out
    assert "ids[0] = 63" in out and "assignment 64 of its 64, enumerated: ids = [63]" in out
    # on the four generated assignments of a larger launch, id 63 does not occur: equal there, not a proof
    code, out = check(capsys, "embed_clamp62", ntok=2)
    assert code == 3 and out.startswith("EQUIVALENT ON THESE INPUTS"), out


def test_not_equivalent_carries_the_ids_and_replays(capsys, tmp_path):
    cex = tmp_path / "cex.json"
    code, out = check(capsys, "embed_swapped", "--save-counterexample", str(cex))
    assert code == 1 and out.startswith("NOT EQUIVALENT"), out
    saved = json.loads(cex.read_text())
    assert saved["fixed"] == ["ids"] and set(saved["inputs"]["ids"]) == {"0", "1"}
    code, out = check(capsys, "embed_swapped", "--replay", str(cex))
    assert code == 1 and out.startswith("DIFFER"), out


def test_given_assignments(capsys, tmp_path):
    given = tmp_path / "ids.npz"
    np.savez(given, ids=np.array([63, 5], np.int32))
    code, out = check(capsys, "embed_clamp62", "--inputs", str(given))
    assert code == 1 and "ids[0] = 63" in out, out
    np.savez(given, ids=np.array([64, 5], np.int32))
    code, _ = check(capsys, "embed_clamp62", "--inputs", str(given))   # 64 is outside the declared range
    assert code == 2
    code, out = check(capsys, "embed_ref", "--inputs", "random:3", "--trials", "2")
    assert code == 3 and "assignment 1: random:3: ids = [" in out and "assignment 2: random:4" in out


def test_without_a_range_the_refusal_says_how_to_declare_one(capsys):
    code, out = check(capsys, "embed_ref", ids="s32[{n}]:in")
    assert code == 3 and out.startswith("UNSUPPORTED"), out
    assert "declare it: `--buffer ids=DTYPE[N]:in:range=LO..HI`" in out


@pytest.mark.parametrize("text, needle", [
    ("ids=f32[4]:in:range=0..5", "applies to integer buffers"),
    ("ids=s32[4]:out:range=0..5", "applies to an input"),
    ("ids=u8[4]:in:range=0..300", "lie in u8's range"),
    ("ids=s32[4]:in:range=9..2", "LO <= HI"),
    ("ids=s32[4]:in:range=zero..9", "expected :range=LO..HI"),
])
def test_a_bad_range_is_a_usage_error(capsys, text, needle):
    code = run(["check", PTX, PTX, "--kernel", "embed_ref", "--grid", "1", "--block", "64", "--args",
                "ids,wte,wpe,out,2,32", "--buffer", text, "--buffer", "wte=f32[2048]:in", "--buffer",
                "wpe=f32[64]:in", "--buffer", "out=f32[64]:out"])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err, err


def test_the_api_buffer_takes_a_range():
    ids = volta.Buffer("ids", "s32", 2, "in", range=(0, 3))
    bufs = [ids, volta.Buffer("wte", "f32", 2048, "in"), volta.Buffer("wpe", "f32", 64, "in"),
            volta.Buffer("out", "f32", 64, "out")]
    r = volta.check(PTX, PTX, volta.Launch(grid=1, block=64, args=[*bufs, 2, 32], kernel="embed_ref"),
                    opt_launch=volta.Launch(grid=1, block=64, args=[*bufs, 2, 32], kernel="embed_swapped"))
    assert r.verdict == "not-equivalent" and ids.option() == "ids=s32[2]:in:range=0..3"


def test_random_assignments_respect_the_declared_range():
    from volta.launch.spec import parse_buffer
    from volta.session.replay import random_inputs

    arrays = random_inputs({"ids": parse_buffer("ids=s32[1000]:in:range=100..103")}, seed=1)
    assert set(np.unique(arrays["ids"])) == {100, 101, 102, 103}
    assert fixed_inputs.space(*_spec_with("ids=s32[3]:in:range=0..3")) == 64


def _spec_with(text):
    from volta.launch.spec import LaunchSpec, parse_buffer

    buf = parse_buffer(text)
    return LaunchSpec({}, {buf.name: buf}), [buf.name]
