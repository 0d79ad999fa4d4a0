""".cu inputs: `volta check|races|run` compile CUDA with the real nvcc (-ptx -lineinfo, --arch, --nvcc-flag), cache
the PTX, show nvcc's own message on a compile error (exit 2), and say what to do when nvcc is missing (exit 2).
Tests that need nvcc skip when it is absent; the missing-nvcc paragraph is tested everywhere."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from volta import cuda
from volta.cli import run

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
DATA = Path(__file__).resolve().parent / "data" / "cuda"
SCALE = ["--grid", "2", "--block", "64", "--buffer", "x=f32[100]:in", "--buffer", "y=f32[100]:out"]

needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """A fresh cache per test, so a test sees nvcc run (or not) for itself."""
    monkeypatch.setenv("VOLTA_CACHE_DIR", str(tmp_path / "cache"))


@needs_nvcc
def test_races_on_cu_with_nvcc_flag_finds_the_off_by_one(capsys):
    args = ["races", str(DATA / "scale.cu"), *SCALE, "--args", "x,y,2.0,100", "-q"]
    assert run(args) == 0, capsys.readouterr()
    capsys.readouterr()
    assert run(args + ["--nvcc-flag=-DOFF_BY_ONE", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    kinds = {f["kind"] for k in data["kernels"] for f in k["findings"]}
    assert kinds == {"out-of-bounds"}
    text = json.dumps(data)
    assert 'scale.cu", "line": 5' in text  # -lineinfo: findings name the CUDA line


@needs_nvcc
def test_check_cu_pair_equivalent(capsys):
    code = run(["check", str(DATA / "scale.cu"), str(DATA / "scale_commuted.cu"), *SCALE, "--args", "x,y,a,100",
                "--symbol", "a=f32", "--arch", "sm_90", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("EQUIVALENT"), out


@needs_nvcc
@pytest.mark.parametrize("case,verdict,code", [("eq_gemm_naive_tiled", "EQUIVALENT", 0),
                                               ("neq_saxpy_last_sign", "NOT EQUIVALENT", 1)])
def test_examples_ref_cu_opt_cu_end_to_end(tmp_path, capsys, case, verdict, code):
    """The examples' CUDA sources, compiled here, give the verdict their shipped PTX gives."""
    import tomllib

    m = tomllib.loads((EX / case / "manifest.toml").read_text())
    ref, opt = m["ref"], m["opt"]
    args = ["check", str(EX / case / "ref.cu"), str(EX / case / "opt.cu"), "--grid", ref["grid"],
            "--block", ref["block"], "--args", ",".join(ref["args"]), "--ref-kernel", ref["name"],
            "--opt-kernel", opt["name"], "--save-counterexample", str(tmp_path / "cex.json"), "-q"]
    for name, text in m["buffers"].items():
        args += ["--buffer", f"{name}={text}"]
    for name, t in m.get("symbols", {}).items():
        args += ["--symbol", f"{name}={t}"]
    assert run(args) == code
    out = capsys.readouterr().out
    assert out.startswith(verdict + ":"), out
    if code == 1:
        assert "opt.cu:" in out  # the differing store, by CUDA line


@needs_nvcc
def test_run_cu_reports_inputs_on_stderr(capsys):
    code = run(["run", str(DATA / "scale.cu"), *SCALE, "--args", "x,y,2.0,100", "--inputs", "random:5"])
    cap = capsys.readouterr()
    assert code == 0 and "inputs: random from seed 5 for x" in cap.err and "y: f32[100]" in cap.out


@needs_nvcc
def test_ptx_is_cached_by_content(tmp_path, monkeypatch):
    src = tmp_path / "k.cu"
    src.write_text((DATA / "scale.cu").read_text())
    first = cuda.compile_to_ptx(src)
    assert first.read_text().lstrip().startswith("//") and ".target sm_80" in first.read_text()

    def no_nvcc(*a, **k):
        raise AssertionError("nvcc ran although the PTX was cached")

    monkeypatch.setattr(cuda.subprocess, "run", no_nvcc)
    assert cuda.compile_to_ptx(src) == first
    src.write_text(src.read_text() + "\n// changed\n")
    with pytest.raises(AssertionError, match="nvcc ran"):
        cuda.compile_to_ptx(src)  # new content, new key: nvcc runs again


@needs_nvcc
def test_compile_error_is_nvccs_message_exit_2(capsys):
    code = run(["races", str(DATA / "broken.cu"), "--grid", "1", "--block", "32", "--args", "y",
                "--buffer", "y=f32[32]"])
    err = capsys.readouterr().err
    assert code == 2
    assert "undeclared_name" in err and "is undefined" in err and "Traceback" not in err


def test_missing_nvcc_says_what_to_do(monkeypatch, capsys):
    monkeypatch.setattr(cuda, "find_nvcc", lambda: None)
    code = run(["races", str(DATA / "scale.cu"), *SCALE, "--args", "x,y,2.0,100"])
    err = capsys.readouterr().err
    assert code == 2
    assert "needs nvcc" in err and "Install the CUDA toolkit" in err and "-ptx -lineinfo" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1  # one paragraph


def test_find_nvcc_looks_in_cuda_home(tmp_path, monkeypatch):
    fake = tmp_path / "toolkit" / "bin" / "nvcc"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "toolkit"))
    monkeypatch.setattr(cuda.os.path, "isfile", lambda p, _f=cuda.os.path.isfile: _f(p) and p != "/usr/local/bin/nvcc")
    assert cuda.find_nvcc() == str(fake)


@pytest.mark.parametrize("extra,message", [(["--arch", "sm_80"], "apply to .cu inputs"),
                                           (["--nvcc-flag=-O3"], "apply to .cu inputs")])
def test_cuda_options_without_cu_are_usage_errors(capsys, extra, message):
    code = run(["races", str(EX / "vector_add" / "kernel.sm80.ptx"), "--grid", "4", "--block", "128",
                "--args", "x,y,out,500", "--buffer", "x=f32[500]", "--buffer", "y=f32[500]", "--buffer", "out=f32[500]",
                *extra])
    assert code == 2 and message in capsys.readouterr().err


def test_bad_arch_is_usage_error(monkeypatch, capsys):
    monkeypatch.setattr(cuda, "find_nvcc", lambda: "/bin/true")
    code = run(["races", str(DATA / "scale.cu"), *SCALE, "--args", "x,y,2.0,100", "--arch", "ampere"])
    assert code == 2 and "bad --arch `ampere`" in capsys.readouterr().err


def test_parse_says_cu_is_not_ptx(capsys):
    assert run(["parse", str(DATA / "scale.cu")]) == 2
    err = capsys.readouterr().err
    assert "is CUDA source and volta parse reads PTX" in err and "nvcc -ptx -lineinfo" in err


@needs_nvcc
def test_cu_inputs_are_named_by_the_users_file_and_kernel_cache_path_only_with_v(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    cache = str(tmp_path / "cache")
    va = ["examples/vector_add/kernel.cu", "--grid", "4", "--block", "128", "--args", "x,y,out,500",
          "--buffer", "x=f32[500]:in", "--buffer", "y=f32[500]:in", "--buffer", "out=f32[500]:out", "-q"]
    assert run(["run", *va]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ran vector_add (examples/vector_add/kernel.cu→sm_80.ptx) grid 4") and cache not in out
    assert run(["races", *va, "-v"]) == 0
    out = capsys.readouterr().out
    assert "races vector_add (examples/vector_add/kernel.cu→sm_80.ptx; PTX " + cache in out
    pair = ["examples/eq_gemm_naive_tiled/ref.cu", "examples/eq_gemm_naive_tiled/opt.cu", "--grid", "2x2",
            "--block", "16x16", "--args", "A,B,C,32,32,32", "--buffer", "A=f32[1024]:in", "--buffer",
            "B=f32[1024]:in", "--buffer", "C=f32[1024]:out", "-q"]
    assert run(["check", *pair]) == 0
    out = capsys.readouterr().out
    assert "ref gemm_naive (examples/eq_gemm_naive_tiled/ref.cu→sm_80.ptx)" in out and cache not in out
    assert run(["run", *va, "--kernel", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no kernel named `nope` in examples/vector_add/kernel.cu→sm_80.ptx" in err and cache not in err
