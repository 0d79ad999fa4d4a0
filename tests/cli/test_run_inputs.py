"""`volta run` never starts from inputs it does not name: random from --seed by default (PTX file or manifest),
--inputs random[:SEED] or zeros explicitly, an .npz otherwise; stderr says which."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"
VA = [str(EX / "vector_add" / "kernel.sm80.ptx"), "--grid", "4", "--block", "128", "--args", "x,y,out,500",
      "--buffer", "x=f32[500]:in", "--buffer", "y=f32[500]:in", "--buffer", "out=f32[500]:out"]


def _run(capsys, *args):
    code = run(["run", *args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_ptx_without_inputs_is_random_not_zeros(tmp_path, capsys):
    out = tmp_path / "o.npz"
    code, text, err = _run(capsys, *VA, "--out", str(out))
    assert code == 0 and "inputs: random from seed 0 for x, y" in err
    saved = np.load(out)
    assert np.array_equal(saved["out"], saved["input.x"] + saved["input.y"]) and saved["input.x"].any()


def test_seed_and_random_seed_agree(tmp_path, capsys):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert _run(capsys, *VA, "--seed", "3", "--out", str(a))[0] == 0
    code, _, err = _run(capsys, *VA, "--inputs", "random:3", "--out", str(b))
    assert code == 0 and "seed 3" in err
    assert np.array_equal(np.load(a)["out"], np.load(b)["out"])


def test_zeros_explicitly(capsys):
    code, text, err = _run(capsys, *VA, "--inputs", "zeros", "--json")
    data = json.loads(text)
    assert code == 0 and "inputs: zeros for x, y" in err
    assert data["buffers"]["out"]["max"] == 0.0 and data["seed"] is None


def test_manifest_default_is_random_and_said(capsys):
    code, text, err = _run(capsys, str(EX / "vector_add" / "manifest.toml"))
    assert code == 0 and "random from seed 0" in err and "inputs: generated from --seed 0" in text


def test_npz_inputs_are_named(tmp_path, capsys):
    p = tmp_path / "in.npz"
    np.savez(p, x=np.ones(500, np.float32), y=np.ones(500, np.float32))
    code, text, err = _run(capsys, *VA, "--inputs", str(p), "--json")
    assert code == 0 and f"from {p} (x, y)" in err and json.loads(text)["buffers"]["out"]["mean"] == 2.0


def test_input_mode_errors_exit_2(tmp_path, capsys):
    for extra, message in ((["--inputs", "random:x"], "random:SEED"), (["--inputs", "random:1", "--seed", "2"],
                                                                        "disagree"),
                           (["--inputs", "zeros", "--seed", "1"], "not --inputs zeros"),
                           (["--inputs", str(tmp_path / "none.npz")], "no such inputs file")):
        code, _, err = _run(capsys, *VA, *extra)
        assert code == 2 and message in err and "Traceback" not in err, (extra, err)


def test_misnamed_array_is_a_usage_error_with_the_name_meant(tmp_path, capsys):
    p = tmp_path / "wrong.npz"
    np.savez(p, xx=np.ones(500, np.float32), y=np.ones(500, np.float32))
    code, text, err = _run(capsys, *VA, "--inputs", str(p))
    assert code == 2 and text == "" and "array `xx` names no buffer" in err and "did you mean `x`?" in err
    assert "Traceback" not in err


def test_buffer_without_array_is_a_usage_error_unless_filled(tmp_path, capsys):
    p = tmp_path / "x_only.npz"
    np.savez(p, x=np.full(500, 2.0, np.float32))
    code, _, err = _run(capsys, *VA, "--inputs", str(p))
    assert code == 2 and "no array for the input buffer(s) y" in err and "--inputs random" in err
    code, text, err = _run(capsys, *VA, "--inputs", str(p), "--inputs", "zeros", "--json")
    assert code == 0 and f"from {p} (x); zeros for y" in err
    assert json.loads(text)["buffers"]["out"]["mean"] == 2.0   # x + 0, the fill said on stderr
    code, text, err = _run(capsys, *VA, "--inputs", str(p), "--inputs", "random:4", "--json")
    assert code == 0 and "random:4 for y" in err and json.loads(text)["buffers"]["out"]["mean"] != 2.0
    code, _, err = _run(capsys, *VA, "--inputs", "zeros", "--inputs", "random")
    assert code == 2 and "give the arrays first" in err


def test_races_npz_trial_is_checked_too(tmp_path, capsys):
    p = tmp_path / "wrong.npz"
    np.savez(p, xx=np.ones(500, np.float32), y=np.ones(500, np.float32))
    code = run(["races", *VA, "--inputs", str(p)])
    err = capsys.readouterr().err
    assert code == 2 and "array `xx` names no buffer" in err
