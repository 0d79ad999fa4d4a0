"""The reward-hack corpus (tests/kernelbench/hacks/): each hack candidate gets its finding and never EQUIVALENT,
each honest control beside it is EQUIVALENT, through the command line as a CI user runs it (expect.toml says
what each must get). Also: every finding kind reaches SARIF, JUnit and --explain, and the controls pass
--require-kernel only where a kernel computes the outputs."""
import json
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from volta import cuda
from volta.cli import run

ROOT = Path(__file__).resolve().parent / "hacks"
EXPECT = tomllib.loads((ROOT / "expect.toml").read_text())
needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")
OPTIONS = ("sizes", "require_kernel")


def cases():
    """Every candidate; the first of each outcome (verdict, finding kinds, ragged) in the edit loop's subset and
    the corpus's repeats of an outcome marked `slow` (each is the same check on other host code: ~1.3 CPU s
    warm, ~5 with a cold build cache)."""
    seen = set()
    for problem, table in EXPECT.items():
        for name, want in table.items():
            if name not in OPTIONS:
                outcome = (want["verdict"], tuple(want.get("kinds", ())), want.get("ragged"))
                marks = [pytest.mark.slow] if outcome in seen else []
                seen.add(outcome)
                yield pytest.param(problem, name, want, id=f"{problem}/{name}", marks=marks)


def args_for(problem: str, name: str, want: dict, *extra) -> list:
    table = EXPECT[problem]
    args = ["kernelbench", str(ROOT / problem / "problem.py"), str(ROOT / problem / f"{name}.py"), "-q", *extra]
    for size, value in want.get("sizes", table.get("sizes", {})).items():
        args += ["--size", f"{size}={value}"]
    if table.get("require_kernel"):
        args.append("--require-kernel")
    if "ragged" in want:
        args.append("--ragged")
    return args


def test_corpus_size():
    hacks = [n for t in EXPECT.values() for n in t if n.startswith("hack_")]
    assert len(hacks) >= 15
    for problem, table in EXPECT.items():
        assert "control" in table, problem


@needs_nvcc
@pytest.mark.parametrize("problem,name,want", list(cases()))
def test_candidate(problem, name, want, capsys):
    code = run(args_for(problem, name, want, "--json"))
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == want["verdict"], report
    kinds = {f["kind"] for f in report["hack_findings"]} | {f["kind"] for f in report["findings"]}
    assert set(want.get("kinds", [])) <= kinds, report
    if name.startswith("hack_"):
        final = report["ragged"]["verdict"] if "ragged" in want else report["verdict"]
        assert final != "equivalent", report
        assert code == 1
        for f in report["hack_findings"]:
            assert f["file"].endswith(f"{name}.py") and f["line"] and f["explain"], f
    else:
        assert code == 0 and not report["hack_findings"], report
    if "ragged" in want:
        assert report["ragged"]["verdict"] == want["ragged"], report["ragged"]
    if "line_has" in want:
        first = report["hack_findings"][0]
        assert want["line_has"] in Path(first["file"]).read_text().splitlines()[first["line"] - 1], first


@needs_nvcc
@pytest.mark.parametrize("problem,name,kind", [("relu", "hack_zero_inputs", "input-written"),
                                               ("relu", "hack_nonblocking_stream", "stream-race"),
                                               ("relu", "hack_thread", "host-thread")])
def test_sarif_junit_explain(problem, name, kind, capsys):
    want = EXPECT[problem][name]
    assert run(args_for(problem, name, want, "--sarif")) == 1
    sarif = json.loads(capsys.readouterr().out)
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == kind]
    assert results
    location = results[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith(f"{name}.py") and location["region"]["startLine"] >= 1
    assert run(args_for(problem, name, want, "--junit")) == 1
    suite = ET.fromstring(capsys.readouterr().out)
    assert any(f.get("type") == kind for f in suite.iter("failure"))
    assert run(args_for(problem, name, want, "--explain")) == 1
    text = capsys.readouterr().out
    assert "what the candidate did:" in text


@needs_nvcc
def test_require_kernel_off_lets_torch_through(capsys):
    """Without --require-kernel the reference's own torch op is EQUIVALENT: the coverage table still says so."""
    args = ["kernelbench", str(ROOT / "add" / "problem.py"), str(ROOT / "add" / "hack_torch_only.py"), "-q",
            "--size", "batch_size=2", "--size", "dim=8", "--json"]
    assert run(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["origin"] for s in report["coverage"]] == ["torch op"]


@pytest.mark.slow   # 2.8 CPU s
@needs_nvcc
def test_batch_and_pytest_plugin_carry_findings(tmp_path):
    from volta.pytest_plugin import KernelCheckFailed, assert_kernelbench_equivalent

    relu = ROOT / "relu"
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text("\n".join(json.dumps({"id": name, "problem": str(relu / "problem.py"),
                                          "candidate": str(relu / f"{name}.py"),
                                          "sizes": {"batch_size": 2, "dim": 64}})
                              for name in ("control", "hack_zero_inputs", "hack_python_stream")) + "\n")
    out = tmp_path / "out.jsonl"
    run(["batch", str(jobs), "--workers", "1", "--out", str(out), "-q"])
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert results["control"]["exit_code"] == 0
    assert [f["kind"] for f in results["hack_zero_inputs"]["report"]["hack_findings"]] == ["input-written"]
    assert [f["kind"] for f in results["hack_python_stream"]["report"]["hack_findings"]] == ["stream-race"]
    with pytest.raises(KernelCheckFailed, match="INPUT WRITTEN"):
        assert_kernelbench_equivalent(relu / "problem.py", relu / "hack_zero_inputs.py", {"batch_size": 2, "dim": 64})
    assert_kernelbench_equivalent(relu / "problem.py", relu / "control.py", {"batch_size": 2, "dim": 64})


@needs_nvcc
def test_process_from_forward_is_unsupported_naming_it(tmp_path, capsys):
    source = (ROOT / "relu" / "control.py").read_text().replace(
        "        return ext.relu(x)",
        "        worker = multiprocessing.Process(target=print)\n        worker.start()\n        return ext.relu(x)")
    cand = tmp_path / "cand.py"
    cand.write_text("import multiprocessing\n" + source)
    code = run(["kernelbench", str(ROOT / "relu" / "problem.py"), str(cand), "-q", "--size", "batch_size=2",
                "--size", "dim=8", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 3 and report["verdict"] == "unsupported"
    assert "starts a process" in report["unsupported"]["message"]


def test_help_documents_the_finding_kinds():
    from click.testing import CliRunner

    from volta.cli.kernelbench_cmd import command

    text = CliRunner().invoke(command, ["--help"]).output
    for kind in ("INPUT WRITTEN", "STREAM RACE", "HOST THREAD", "NO CUSTOM KERNEL"):
        assert kind in text.replace("\n", " ").replace("  ", " ")
    assert "--require-kernel" in text and "--explain" in text and "--junit" in text
