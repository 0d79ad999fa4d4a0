"""`volta races` end to end: text, JSON, SARIF and JUnit reports; exit codes 0/1/2/3; one-paragraph errors."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"
VADD = str(EX / "vector_add" / "kernel.sm80.ptx")
VADD_BUFFERS = ["--buffer", "x=f32[500]:in", "--buffer", "y=f32[500]:in", "--buffer", "out=f32[500]:out"]


def _vadd(*extra, args="x,y,out,500", grid="4"):
    return ["races", VADD, "--kernel", "vector_add", "--grid", grid, "--block", "128", "--args", args,
            *VADD_BUFFERS, *extra]


def _manifest(case):
    return str(EX / case / "manifest.toml")


def _usage_error(capsys, argv, needle):
    code = run(argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    message = err.strip()
    assert "\n\n" not in message and message.count("\n") <= 1, message  # one paragraph
    assert needle in message
    return message


# ---- verdicts and exit codes ------------------------------------------------------------------------

def test_clean_ptx_with_options_text(capsys):
    assert run(_vadd()) == 0
    out, err = capsys.readouterr()
    first, last = out.strip().splitlines()[0], out.strip().splitlines()[-1]
    assert first.startswith("races vector_add (") and "grid 4, block 128" in first
    assert "thread-instructions in" in first
    assert last.startswith("verdict: CLEAN")
    assert "volta races:" in err  # progress and timing on stderr


def test_named_arg_and_quiet(capsys):
    assert run(_vadd("--arg", "vector_add_param_3=500", "-q", args="x,y,out")) == 0
    out, err = capsys.readouterr()
    assert "verdict: CLEAN" in out and err == ""


def test_race_text_names_both_threads_and_lines(capsys):
    assert run(["races", _manifest("bug_gemm_tiled_nosync"), "-q", "--max-findings", "1"]) == 1
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert lines[1].startswith("RACE: write-read race on `gemm_tiled_nosync()::Bs`")  # demangled
    assert lines[2].strip().startswith("16 instances at ")  # a group: one finding per source site
    write, read = lines[3], lines[4]
    assert write.split()[0] == "write" and "block (0, 0, 0) thread (0, 0, 0)" in write
    assert read.split()[0] == "read" and "thread (0, 1, 0)" in read
    assert "kernel.sm80.ptx:93:2" in write and "kernel.cu:14" in write
    assert "kernel.sm80.ptx:95:2" in read and "kernel.cu:17" in read
    assert lines[5] == "  at `gemm_tiled_nosync()::Bs` byte offset 0 (size 1024 bytes)"  # no internal address
    assert "Bs[ty][tx] = B[" in lines[6] and lines[7].strip() == "|" + lines[7].split("|")[1] and "^" in lines[7]
    assert "more finding group(s) not shown" in out
    assert lines[-1].startswith("verdict: RACE (")


def test_out_of_bounds_and_deadlock_exit_1(capsys):
    assert run(["races", _manifest("bug_vector_add_offbyone"), "-q"]) == 1
    out, _ = capsys.readouterr()
    assert "OUT-OF-BOUNDS" in out and "past the end of" in out and "verdict: OUT OF BOUNDS" in out
    assert run(["races", _manifest("bug_reduce_divergent_sync"), "-q"]) == 1
    out, _ = capsys.readouterr()
    assert "verdict: DEADLOCK" in out


def test_unsupported_exit_3(capsys):
    assert run(["races", _manifest("embedding_gather"), "--structured-only", "-q"]) == 3
    out, _ = capsys.readouterr()
    assert "kernel.sm80.ptx:64:2: unsupported:" in out
    assert out.strip().splitlines()[-1].startswith("verdict: UNSUPPORTED")


def test_pair_manifest_reports_both_kernels(capsys):
    assert run(["races", _manifest("eq_gemm_naive_tiled"), "-q"]) == 0
    out, _ = capsys.readouterr()
    assert "races ref gemm_naive" in out and "races opt gemm_tiled" in out
    assert out.strip().splitlines()[-1].startswith("overall: CLEAN")
    assert run(["races", _manifest("eq_gemm_naive_tiled"), "-q", "--role", "opt", "--json"]) == 0
    data = json.loads(capsys.readouterr()[0])
    assert [k["role"] for k in data["kernels"]] == ["opt"]


# ---- machine-readable formats -----------------------------------------------------------------------

def test_json_clean(capsys):
    assert run(_vadd("--json")) == 0
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert data["schema"] == "volta.races/1" and data["verdict"] == "clean" and data["exit_code"] == 0
    (k,) = data["kernels"]
    assert k["kernel"] == "vector_add" and k["grid"] == "4" and k["block"] == "128" and k["threads"] == 512
    assert k["stats"]["thread_instructions"] > 0 and k["findings"] == [] and k["unsupported"] is None


def test_json_race(capsys):
    assert run(["races", _manifest("bug_gemm_tiled_nosync"), "--json", "-q"]) == 1
    data = json.loads(capsys.readouterr()[0])
    k = data["kernels"][0]
    assert k["verdict"] == "findings" and k["counts"]["race"] == len(k["findings"])
    f = k["findings"][0]
    assert f["kind"] == "race" and len(f["accesses"]) == 2
    a, b = f["accesses"]
    assert a["block"] == [0, 0, 0] and a["thread"] != b["thread"]
    assert a["ptx"]["line"] == 93 and a["cuda"]["line"] == 14 and b["cuda"]["line"] == 17
    assert a["instruction"] == "st.shared.f32" and isinstance(f["address"], int) and f["offset"] == 0


def test_json_unsupported(capsys):
    assert run(["races", _manifest("embedding_gather"), "--structured-only", "--json", "-q"]) == 3
    data = json.loads(capsys.readouterr()[0])
    u = data["kernels"][0]["unsupported"]
    assert data["verdict"] == "unsupported" and u["line"] == 64 and "depends on tensor data" in u["message"]


def test_sarif_structure(capsys):
    assert run(["races", _manifest("bug_gemm_tiled_nosync"), "--sarif", "-q"]) == 1
    data = json.loads(capsys.readouterr()[0])
    assert data["version"] == "2.1.0" and data["$schema"].endswith("sarif-schema-2.1.0.json")
    (run_,) = data["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["race"]
    res = run_["results"][0]
    assert res["ruleId"] == "race" and rules[res["ruleIndex"]]["id"] == "race" and res["level"] == "error"
    loc = res["locations"][0]["physicalLocation"]  # the CUDA line first, for code scanning
    assert loc["artifactLocation"]["uri"].endswith("kernel.cu") and loc["artifactLocation"]["uriBaseId"] == "SRCROOT"
    assert loc["region"] == {"startLine": 14}
    assert res["properties"]["count"] == 16 and len(run_["results"]) == 2
    related = res["relatedLocations"]
    ptx_related = [r for r in related if r["physicalLocation"]["artifactLocation"]["uri"].endswith(".ptx")]
    assert [r["physicalLocation"]["region"]["startLine"] for r in ptx_related] == [93, 95]
    assert "second" in ptx_related[1]["message"]["text"]
    assert len({r["id"] for r in related}) == len(related)
    cuda = [r for r in related if r["physicalLocation"]["artifactLocation"]["uri"].endswith(".cu")]
    assert {r["physicalLocation"]["region"]["startLine"] for r in cuda} == {17}


def test_sarif_unsupported_and_clean(capsys):
    assert run(["races", _manifest("embedding_gather"), "--structured-only", "--sarif", "-q"]) == 3
    data = json.loads(capsys.readouterr()[0])
    (res,) = data["runs"][0]["results"]
    assert res["ruleId"] == "unsupported" and res["level"] == "warning"
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 64
    assert run(_vadd("--sarif", "-q")) == 0
    assert json.loads(capsys.readouterr()[0])["runs"][0]["results"] == []


def test_junit(tmp_path, capsys):
    target = tmp_path / "races.xml"
    assert run(["races", _manifest("bug_gemm_ragged_noguard"), "--junit", str(target), "-q"]) == 1
    out, _ = capsys.readouterr()
    assert "verdict:" in out  # the text report still goes to stdout
    root = ET.parse(target).getroot()
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")  # the kernel, then one testcase per finding group
    assert cases[0].get("name") == "gemm_ragged_noguard" and len(cases) > 2
    assert [f.get("type") for f in cases[0].findall("failure")] == ["findings"]
    assert all(len(c.findall("failure")) == 1 for c in cases)
    assert {c.find("failure").get("type") for c in cases[1:]} == {"out-of-bounds", "race"}
    assert all(c.get("name").startswith("gemm_ragged_noguard: ") for c in cases[1:])
    assert int(root.get("failures")) == len(cases) == int(root.get("tests"))


def test_junit_pair_and_unsupported(tmp_path, capsys):
    target = tmp_path / "pair.xml"
    assert run(["races", _manifest("eq_gemm_naive_tiled"), "--junit", str(target), "-q"]) == 0
    cases = ET.parse(target).getroot().findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["ref gemm_naive", "opt gemm_tiled"]
    assert not any(c.findall("failure") for c in cases)
    assert run(["races", _manifest("embedding_gather"), "--structured-only", "--junit", str(target), "-q"]) == 3
    (case,) = ET.parse(target).getroot().findall("./testsuite/testcase")
    assert case.find("error").get("type") == "unsupported"
    capsys.readouterr()


# ---- usage errors: one paragraph, exit 2, never a traceback ------------------------------------------

def test_bad_grid(capsys):
    _usage_error(capsys, _vadd(grid="8y2"), "bad grid `8y2`")


def test_missing_kernel_name(capsys):
    argv = _vadd()
    argv[argv.index("vector_add")] = "nope"
    _usage_error(capsys, argv, "no kernel named `nope`")


def test_pointer_given_scalar(capsys):
    _usage_error(capsys, _vadd(args="x,7,out,500"), "pass a --buffer name")


def test_wrong_number_of_args(capsys):
    msg = _usage_error(capsys, _vadd(args="x,y,500"), "takes 4 parameters")
    assert "`vector_add`" in msg and "gives 3" in msg


def test_missing_file(capsys, tmp_path):
    _usage_error(capsys, ["races", str(tmp_path / "nope.ptx"), "--grid", "1", "--block", "1"], "no such file")
    _usage_error(capsys, ["races", str(tmp_path / "nope.toml")], "no such file")


def test_unknown_buffer_dtype(capsys):
    _usage_error(capsys, _vadd("--buffer", "z=f99[4]"), "unknown dtype")


def test_manifest_with_launch_options(capsys):
    _usage_error(capsys, ["races", _manifest("vector_add"), "--grid", "2"], "drop --grid")


def test_json_and_sarif_together(capsys):
    _usage_error(capsys, _vadd("--json", "--sarif"), "choose one of --json and --sarif")


def test_missing_grid(capsys):
    _usage_error(capsys, ["races", VADD, "--block", "128"], "--grid and --block are required")


def test_parse_error_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tfoo.bar %r1;\n}\n")
    code = run(["races", str(bad), "--grid", "1", "--block", "1"])
    _, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err and "bad.ptx:" in err


@pytest.mark.parametrize("fmt", ["--json", "--sarif"])
def test_machine_formats_keep_stdout_clean(capsys, fmt):
    run(["races", _manifest("bug_reduce_tree_nosync"), fmt])
    out, err = capsys.readouterr()
    json.loads(out)  # progress went to stderr
    assert "volta races:" in err


def test_a_mangled_kernel_is_named_as_the_cu_file_names_it(capsys, tmp_path):
    # nvcc mangles a kernel that is not extern "C": the header says `vector_add`, --kernel takes that name
    ptx = tmp_path / "mangled.ptx"
    ptx.write_text(Path(VADD).read_text().replace("vector_add", "_Z10vector_addPKfS0_Pfi"))
    assert run(["races", str(ptx), "--kernel", "vector_add", "--grid", "4", "--block", "128", "--args",
                "x,y,out,500", *VADD_BUFFERS, "-q"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("races vector_add (") and "_Z10" not in out, out
