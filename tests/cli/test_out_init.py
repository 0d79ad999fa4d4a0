"""Out buffers start at zero unless `--out-init undefined` (issue 32 §11): `volta run` says when a kernel read an
out buffer before writing it; under `undefined` that read is an UNINITIALIZED READ in run, races and check."""
from __future__ import annotations

from pathlib import Path

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"
DOT = str(EX / "eq_dot_shared_atomic" / "manifest.toml")   # atomicAdd into `out`, which nothing zeroes


def test_run_says_an_atomic_read_the_zeroed_out_buffer(capsys):
    assert run(["run", DOT, "--kernel", "opt", "-q"]) == 0
    out = capsys.readouterr().out
    assert "note: the kernel read out buffer `out` where it had not written: out buffers start at zero" in out
    assert run(["run", str(EX / "vector_add" / "manifest.toml"), "-q"]) == 0
    assert "out buffers start at zero" not in capsys.readouterr().out   # a plain store: nothing to say


def test_out_init_undefined_makes_the_read_a_finding_everywhere(capsys):
    assert run(["run", DOT, "--kernel", "opt", "-q", "--out-init", "undefined"]) == 1
    assert "UNINITIALIZED-READ: `atom.global.add.f32` updates never-written bytes of global buffer `out`" in \
        capsys.readouterr().out
    assert run(["races", DOT, "-q", "--out-init", "undefined"]) == 1
    assert "UNINITIALIZED" in capsys.readouterr().out
    assert run(["check", DOT, "-q", "--out-init", "undefined"]) == 1
    assert capsys.readouterr().out.startswith("UNINITIALIZED READ: dot_seq vs dot_atomic")
    assert run(["check", DOT, "-q", "--out-init", "zeros"]) == 0   # the default: equivalent, as before


def test_out_init_undefined_leaves_a_plain_store_clean(capsys):
    assert run(["races", str(EX / "vector_add" / "manifest.toml"), "-q", "--out-init", "undefined"]) == 0
    assert run(["run", DOT, "--kernel", "ref", "-q", "--out-init", "undefined"]) == 0
