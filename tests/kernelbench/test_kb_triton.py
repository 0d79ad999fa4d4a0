"""Triton candidates through `volta kernelbench` (volta/kernelbench/triton_host.py): a `ModelNew` whose forward
calls `@triton.jit` kernels with `kernel[grid](...)` (grid tuples and lambdas, several kernels per call, torch ops
between them) decided as tests/kernelbench/triton/*/expect.toml says, through the command line with no flag but
sizes; and what the report says of a Triton launch."""
import json
import tomllib
from pathlib import Path

import pytest

from volta.cli import run

ROOT = Path(__file__).resolve().parent / "triton"
pytest.importorskip("triton", reason="Triton is not installed")
EXIT = {"equivalent": 0, "not-equivalent": 1, "findings": 1, "precision": 1}


def cases():
    """Each candidate of expect.toml; `slow = true` marks one over ~5 CPU s whose path a cheaper test here keeps
    in the edit loop's subset (`-m "not slow"`)."""
    for expect in sorted(ROOT.glob("*/expect.toml")):
        for name, want in tomllib.loads(expect.read_text()).items():
            yield pytest.param(expect.parent, name, want, id=f"{expect.parent.name}/{name}",
                               marks=[pytest.mark.slow] if want.get("slow") else [])


def check(problem_dir: Path, name: str, sizes: dict, capsys, *extra) -> tuple:
    args = ["kernelbench", str(problem_dir / "problem.py"), str(problem_dir / f"{name}.py"), "--json", "-q", *extra]
    for size, value in sizes.items():
        args += ["--size", f"{size}={value}"]
    code = run(args)
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.isolated
@pytest.mark.parametrize("problem_dir,name,want", list(cases()))
def test_candidate(problem_dir, name, want, capsys):
    code, report = check(problem_dir, name, want.get("sizes", {}), capsys)
    assert report["verdict"] == want["verdict"], report
    if "text" in want:
        assert report["verdict_text"] == want["text"], report
    assert code == EXIT.get(want["verdict"], 3)
    if want["verdict"] == "not-equivalent":
        assert report["counterexample"]["ref_value"] != report["counterexample"]["cand_value"]
    if want["verdict"] != "unsupported":
        assert report["launches"] and all(x["extension"].startswith("triton:") for x in report["launches"])


@pytest.mark.isolated
def test_two_kernels_listed_in_order_with_their_grids(capsys):
    code, report = check(ROOT / "l1_softmax", "eq_two_kernels", {"batch_size": 4, "dim": 48}, capsys)
    assert code == 0
    launches = [(x["kernel"], x["grid"]) for x in report["launches"]]
    assert launches[:2] == [("row_stats_kernel", [4, 1, 1]), ("normalize_kernel", [4, 2, 1])]


@pytest.mark.isolated
def test_findings_name_the_kernels_python_line(capsys):
    code, report = check(ROOT / "l2_scale_add", "oob_wrong_mask", {"batch_size": 3, "features": 100}, capsys)
    assert code == 1
    kinds = {f["kind"] for f in report["findings"]}
    assert kinds == {"out-of-bounds"}
    lines = {(Path(a["cuda"]["file"]).name, a["cuda"]["line"]) for f in report["findings"] for a in f["accesses"]}
    assert lines == {("oob_wrong_mask.py", 12), ("oob_wrong_mask.py", 13), ("oob_wrong_mask.py", 16)}


@pytest.mark.isolated
def test_uninitialized_tail_counts_the_missing_elements(capsys):
    code, report = check(ROOT / "l2_scale_add", "uninit_no_tail_block", {"batch_size": 3, "features": 100}, capsys)
    assert code == 1
    assert report["unwritten"] == [{"output": 0, "count": 44, "first": list(range(256, 272))}]
