"""Manifests: an unknown key or table, or an [expect] verdict that is not one, is a usage error with a
did-you-mean (they used to be silently ignored); every manifest in examples/ still loads."""
from pathlib import Path

import pytest

from volta.cli import run
from volta.launch.spec import load_manifest

ROOT = Path(__file__).resolve().parents[2]
VADD = (ROOT / "examples" / "vector_add" / "manifest.toml").read_text()


@pytest.mark.parametrize("edit, needles", [
    (lambda t: t.replace('block = "128"', 'block = "128"\nshared_dynamc = 64'),
     ["unknown key in [kernel] `shared_dynamc`", "did you mean `shared_dynamic`?"]),
    (lambda t: t.replace('races = "clean"', 'races = "clen"'),
     ["[expect] races = 'clen' is not a verdict", "did you mean `clean`?"]),
    (lambda t: t.replace("[buffers]", "[buffer]"), ["unknown table `buffer`", "did you mean `buffers`?"]),
    (lambda t: t.replace("[expect]", "[expect]\nracse = \"clean\""), ["unknown key in [expect] `racse`",
                                                                     "did you mean `races`?"]),
    (lambda t: "[kernal]\n" + t, ["unknown table `kernal`", "did you mean `kernel`?"]),
])
def test_unknown_keys_are_usage_errors_with_did_you_mean(tmp_path, capsys, edit, needles):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(edit(VADD))
    (tmp_path / "kernel.sm80.ptx").write_text((ROOT / "examples" / "vector_add" / "kernel.sm80.ptx").read_text())
    for cmd in ("races", "run"):
        assert run([cmd, str(manifest)]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and str(manifest) in err
        for n in needles:
            assert n in err, err


def test_every_example_manifest_loads():
    manifests = sorted((ROOT / "examples").rglob("manifest.toml"))
    assert len(manifests) > 50
    for m in manifests:
        load_manifest(m)
