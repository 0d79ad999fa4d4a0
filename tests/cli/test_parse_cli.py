"""`volta parse`: text and JSON reports per kernel, one-paragraph errors, exit 2 if any file failed."""
from __future__ import annotations

import json

from volta.cli import run

GOOD = """.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.shared .align 4 .b8 used[256];
.shared .align 4 .b8 unused[1024];
.func helper()
{
\t.reg .b32 %r<2>;
\tst.shared.u32 [used+4], %r1;
\tret;
}
.visible .entry k(.param .u64 .ptr .global .align 1 k_param_0, .param .align 8 .b8 s[40], .param .u32 n)
{
\t.shared .align 4 .f32 tile[64];
\t.reg .pred %p<3>;
\t.reg .b32 %r<39>;
\t.reg .f32 %f<5>;
\t.reg .b64 %rd<4>;
\tmov.u32 %r1, %tid.x;
\tadd.s32 %r2, %r1, 1;
\tadd.s32 %r3, %r2, 1;
\tmov.u64 %rd1, dyn;
\t{ .reg .pred p; setp.eq.u32 p, %r1, 0; }
\t{
\tcall.uni helper, ();
\t}
\tret;
}
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_text_report(tmp_path, capsys):
    path = _write(tmp_path, "good.ptx", GOOD)
    assert run(["parse", path]) == 0
    out = capsys.readouterr().out
    assert f"{path}: kernel k" in out
    assert "k_param_0 .u64, s .b8[40], n .u32" in out
    assert ".b32 39" in out and ".pred 4" in out and ".f32 5" in out
    assert "512 static bytes" in out and "dynamic .extern .shared" in out
    assert "instructions: 7" in out and "add 2" in out


def test_json_report(tmp_path, capsys):
    path = _write(tmp_path, "good.ptx", GOOD)
    assert run(["parse", "--json", path]) == 0
    report = json.loads(capsys.readouterr().out)
    (entry,) = report["files"]
    assert entry["ok"] and entry["error"] is None and entry["target"] == ["sm_80"]
    (k,) = entry["kernels"]
    assert k["name"] == "k"
    assert k["params"][0] == {"name": "k_param_0", "type": ".u64", "attrs": [".ptr", ".global", ".align 1"]}
    assert k["registers"] == {".b32": 39, ".b64": 4, ".f32": 5, ".pred": 4}
    assert k["shared"] == {"static_bytes": 64 * 4 + 256, "variables": ["tile", "used"], "dynamic": True}
    assert k["instructions"] == 7
    assert k["opcodes"] == {"add": 2, "mov": 2, "call": 1, "ret": 1, "setp": 1}


def test_bad_file_is_one_paragraph_with_position(tmp_path, capsys):
    path = _write(tmp_path, "bad.ptx", GOOD.replace("add.s32 %r3, %r2, 1;", "add.rn.s32 %r3, %r2, 1;"))
    assert run(["parse", path]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"{path}:22:2: ") and "`.rn`" in err


def test_several_files_continue_after_a_failure(tmp_path, capsys):
    good = _write(tmp_path, "good.ptx", GOOD)
    bad = _write(tmp_path, "bad.ptx", GOOD.replace("ret;\n}\n", "ret;\n", 1)[:-20])
    missing = str(tmp_path / "missing.ptx")
    assert run(["parse", bad, good, missing, "--json"]) == 2
    captured = capsys.readouterr()
    files = json.loads(captured.out)["files"]
    assert [f["ok"] for f in files] == [False, True, False]
    assert files[1]["kernels"][0]["name"] == "k"
    assert len(captured.err.strip().splitlines()) == 2
    assert captured.err.startswith(f"{bad}:")


def test_no_kernels(tmp_path, capsys):
    path = _write(tmp_path, "empty.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n")
    assert run(["parse", path]) == 0
    assert "no kernels" in capsys.readouterr().out
