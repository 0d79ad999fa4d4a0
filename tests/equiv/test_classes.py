"""`volta classes` (issue 12): Triton rowsum autotune configurations split into bit-equivalence classes.

Ground truth: concrete bit-exact runs on inputs the partition never saw (other seeds). Configurations
in one class must agree bitwise on all of them (over-merge: must be 0); each pair of classes must
come with a witness that really separates them.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from volta.cli import run
from volta.equiv.bits import GENERATORS, make_inputs, output_words
from volta.equiv.classes import load_configs, partition
from volta.launch.spec import LaunchSpec
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.ptx.parser import parse_file

MANIFEST = Path(__file__).resolve().parents[2] / "examples" / "triton" / "rowsum_configs.toml"


def _words(config, buffers, inputs):
    prog = lower(parse_file(config.launch.ptx), config.launch.kernel)
    m = Machine(prog, config.launch, buffers, {}, inputs={k: v.copy() for k, v in inputs.items()},
                structured=False, check_races=False).run()
    return output_words(m, LaunchSpec({"kernel": config.launch}, buffers))


def test_rowsum_configurations():
    configs, buffers, symbols = load_configs(MANIFEST)
    result = partition(configs, buffers, symbols)
    labels = [[configs[k].label for k in members] for members in result.classes]
    assert len(result.classes) == 5 and not result.unsupported
    assert ["BLOCK=256 num_warps=4", "BLOCK=256 num_warps=4 (again)"] in labels
    assert all(s.witness is not None for s in result.separations)
    # no over-merge: members of a class agree on fresh inputs; witnesses separate for real
    spec = LaunchSpec({"ref": configs[0].launch, "opt": configs[0].launch}, buffers)
    for gen in GENERATORS:
        inputs, _ = make_inputs(spec, gen, 977)
        for members in result.classes:
            first = _words(configs[members[0]], buffers, inputs)
            for k in members[1:]:
                assert np.array_equal(first["out"], _words(configs[k], buffers, inputs)["out"])
    for s in result.separations:
        w = s.witness
        inputs, _ = make_inputs(spec, w["generator"], w["seed"])
        a = _words(configs[result.classes[s.a][0]], buffers, inputs)["out"][w["index"]]
        b = _words(configs[result.classes[s.b][0]], buffers, inputs)["out"][w["index"]]
        assert (int(a), int(b)) == tuple(w["bits"]) and a != b


def test_cli_json(capsys):
    assert run(["classes", str(MANIFEST), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "volta.classes/1" and len(data["classes"]) == 5


def test_bad_manifest(tmp_path, capsys):
    bad = tmp_path / "c.toml"
    bad.write_text('[buffers]\nx = "f32[4]:out"\n[[config]]\nlabel = "a"\nptx = "k.ptx"\ngrid = "1"\nblock = "1"\n'
                   'colour = "red"\n[[config]]\nptx = "k.ptx"\ngrid = "1"\nblock = "1"\n')
    assert run(["classes", str(bad)]) == 2
    assert "unknown key(s) colour" in capsys.readouterr().err
