"""Differential safety net for the lane-structured symbolic path (`Machine(lane_structured=True)`).

Every example pair goes through `volta check` end to end (the manifest's verdict; a NOT EQUIVALENT with a saved
counterexample that `--replay` reproduces) and through the check again with the fast path off (same verdict; for
equivalent pairs the per-element expressions of both paths have equal normal forms on a sample of elements), and
random hand-written FMA-chain kernels (leaves, per-lane constants, partial masks, shared-memory round trips,
divisions and max that force the per-lane path) produce equal output polynomials both ways.
"""
from __future__ import annotations

import functools
import json
import random
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from volta.cli import run
from volta.config import FastPaths
from volta.equiv import check as CK
from volta.launch.args import entries
from volta.launch.spec import Buffer, Dim3, KernelLaunch, LaunchSpec, load_manifest
from volta.report import check_report
from volta.symbolic import z3bridge
from volta.symbolic.normal import Normalizer, equal, normalize
from volta.symbolic.shared import SharedTerms

EX = Path(__file__).resolve().parents[2] / "examples"
PAIRS = sorted(p.parent.name for p in EX.glob("eq_*/manifest.toml")) + sorted(
    p.parent.name for p in EX.glob("neq_*/manifest.toml"))
# a line the text form of a pair's check must hold: the count line worded from `proved_by`'s method keys
# (volta/report/check_report.py), read from the same check the sweep runs rather than from a second one
TEXT_LINES = {"eq_layernorm_twopass_onepass":   # the C = 1024 layer norm: every element by shared sums kept whole
              ("EQUIVALENT: ", "  2,048 output elements compared: 2,048 by equal normal forms with shared sums kept "
                               "whole\n")}


def _renamed_columns(doc):
    """Naive attention vs flash attention on tensor cores: one element by its normal forms, the other 511 (other
    columns of V, other query rows) as renamings of the element proved before them."""
    assert doc["proved_by"].get("renaming", 0) > 400 and sum(doc["proved_by"].values()) == doc["compared"] == 512


def _refuted_after_renamings(doc):
    """Causal attention against a flash version that drops the diagonal key on every row but the first: row 0's
    columns are renamings of O[0], row 1 is no renaming of row 0 (one key fewer), and O[16] is refuted."""
    assert doc["proved_by"].get("renaming", 0) == 15 and doc["counterexample"]["index"] == 16


# what a pair's `volta check --json` must say beyond its verdict (symbolic/renaming.py end to end), asserted on
# the sweep's own check of the pair rather than on a second one
JSON_CHECKS = {"eq_attention_naive_flash_mma": _renamed_columns,
               "neq_attention_causal_diagonal": _refuted_after_renamings}


EXECUTE = CK.execute
CHECK = CK.check
DECIDE_EQUAL = z3bridge.decide_equal


def _check(spec, lane: bool, monkeypatch, runs: dict | None = None, decided: dict | None = None):
    """`volta.equiv.check` with the fast path on or off (`_record`); the check's report."""
    _record(monkeypatch, lane, runs, decided)
    return CK.check(spec)


def _record(monkeypatch, lane: bool, runs: dict | None = None, decided: dict | None = None,
            reports: list | None = None):
    """Set the fast path on or off for every later `CK.check`; the machines a check runs for its own spec go to
    runs[(role, lane)], and each check's (spec, report) to `reports`. Given `decided`, a dict shared by the two
    checks of one pair, an element whose (ref, opt) expressions are the very nodes (interned) the other path
    already sent to the solver gets that decision again instead of a second solver run: the paths must build the
    same elements, and where they differ the solver runs as usual."""
    if decided is not None:
        monkeypatch.setattr(z3bridge, "decide_equal", functools.partial(_decide_once, decided))
    checking = {}

    def check(spec, *args, fast=None, **kwargs):
        checking["spec"] = spec
        report = CHECK(spec, *args, fast=FastPaths(lane_structured=lane) if fast is None else fast, **kwargs)
        if reports is not None:
            reports.append((spec, report))
        return report

    def execute(spec_, role, input_values=None, lane_structured=None, **modes):
        m = EXECUTE(spec_, role, input_values=input_values, lane_structured=lane_structured, **modes)
        if runs is not None and spec_ is checking.get("spec") and input_values is None and lane_structured is None:
            runs[(role, lane)] = m   # (not the per-assignment specs of volta/equiv/fixed_inputs.py, nor a replay)
        return m

    monkeypatch.setattr(CK, "check", check)
    monkeypatch.setattr(CK, "execute", execute)


def _decide_once(decided: dict, a, b, timeout_ms, norm, domain, integers):
    """z3bridge.decide_equal, remembered per (a, b, domain, integers): the same obligation asked twice (once per
    path) is solved once (a clamp pair sends all its 512 elements to the solver)."""
    key = (a, b, repr(domain), repr(integers))
    if key not in decided:
        decided[key] = DECIDE_EQUAL(a, b, timeout_ms, norm, domain, integers=integers)
    return decided[key]


def _same_elements(spec, sample: int | None = 24, seed: int = 0, runs: dict | None = None):
    """The fast and the per-lane path give equal normal forms, element by element (a sample of them), from
    the machines in `runs` (those the checks ran) or fresh executions."""
    norm = Normalizer()
    kept = Normalizer(shared=SharedTerms(), limit=CK.LARGE_EXPANSION)
    rng = random.Random(seed)
    runs = {} if runs is None else runs
    for role in ("ref", "opt"):
        machines = [runs.get((role, lane)) or EXECUTE(spec, role, lane_structured=lane) for lane in (True, False)]
        # rows: the fast path's elements as PolyRows, made expressions only where sampled (all 4096 of a
        # GEMM made into expressions were three quarters of this test's time)
        fast, slow = CK.outputs(machines[0], spec, rows=True), CK.outputs(machines[1], spec)
        for name in slow:
            idx = list(range(len(slow[name])))
            if sample is not None and len(idx) > sample:
                idx = rng.sample(idx, sample)
            for i in idx:
                a, b = fast[name].at(i), slow[name].at(i)
                a = a.expr() if isinstance(a, CK.PolyRow) else a
                if a is b:
                    continue
                assert a is not CK.UNTOUCHED and b is not CK.UNTOUCHED, (role, name, i)
                if CK._expansion(a, b) > CK.LARGE_EXPANSION:   # as the checker does: shared sums kept whole (a
                    # layer norm's squared row sum expanded is C²/2 monomials a side: 20 GB at C = 1024)
                    assert CK._kept_equal(a, b, kept), (role, name, i)
                    continue
                assert equal(normalize(a, norm), normalize(b, norm)), (role, name, i, a, b)


@pytest.mark.slow
@pytest.mark.isolated
@pytest.mark.parametrize("case", PAIRS)
def test_example_pair(case, capsys, tmp_path, monkeypatch):
    """Every pair through `volta check` (the fast path, as a user runs it) and through the check with the fast
    path off: one sweep, the CLI's run being the fast side (a sweep of each ran the fast check twice)."""
    runs, decided, reports, texts = {}, {}, [], []
    _record(monkeypatch, True, runs, decided, reports)
    if case in TEXT_LINES:   # the CLI prints JSON; the same result in text form is kept too
        json_format = check_report.FORMATS["json"]
        monkeypatch.setitem(check_report.FORMATS, "json",
                            lambda result: texts.append(check_report.format_text(result)) or json_format(result))
    doc = _check_cli(case, capsys, tmp_path)
    JSON_CHECKS.get(case, lambda doc: None)(doc)
    (spec, fast), = reports   # (the CLI's spec: the slow side runs on what the CLI made of the manifest)
    if case in TEXT_LINES:
        headline, line = TEXT_LINES[case]
        assert texts[0].startswith(headline) and line in texts[0], texts
    slow = _check(spec, False, monkeypatch, runs, decided)
    assert fast.verdict == slow.verdict == spec.expect.get("check", slow.verdict)
    if fast.verdict == "equivalent":   # a difference stops the comparison: what came before counts in bulk or not
        assert fast.compared == slow.compared
    if fast.counterexample is not None:
        assert (fast.counterexample.buffer, fast.counterexample.index) == (
            slow.counterexample.buffer, slow.counterexample.index)
    if slow.verdict == "equivalent":
        _same_elements(spec, runs=runs)


def test_the_sweep_s_tables_name_example_pairs():
    """A misspelt pair in TEXT_LINES or JSON_CHECKS would leave its assertions unmade without failing."""
    assert set(TEXT_LINES) | set(JSON_CHECKS) <= set(PAIRS)


def _cli_json(capsys, argv):
    code = run(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err   # (tests/cli/test_no_traceback.py)
    return code, json.loads(out)


def _check_cli(case: str, capsys, tmp_path) -> dict:
    """`volta check MANIFEST --json --save-counterexample`: the manifest's `[expect] check`; a NOT EQUIVALENT
    comes with a saved counterexample whose `--replay` re-executes both kernels and reproduces both values.
    The check's JSON document."""
    manifest = str(EX / case / "manifest.toml")
    cex = tmp_path / "cex.json"
    code, data = _cli_json(capsys, ["check", manifest, "-q", "--json", "--save-counterexample", str(cex)])
    m = tomllib.loads((EX / case / "manifest.toml").read_text())
    expected = m["expect"]["check"]
    assert data["schema"] == "volta.check/1"
    assert data["verdict"] == expected, data
    for side in ("ref", "opt"):   # a launch sequence ([[opt.launch]]): every launch ran, in order
        if "launch" in m[side]:
            ran = {k["role"]: k["kernel"] for k in data["kernels"]}
            assert ran[side] == " → ".join(t.get("name") or t["step"] for t in m[side]["launch"]), data["kernels"]
    if expected in ("equivalent", "equivalent-for-inputs"):   # (the latter: equal on the ids tried, exit 3)
        assert code == (0 if expected == "equivalent" else 3)
        assert data["counterexample"] is None and not cex.exists()
        assert sum(data["proved_by"].values()) == data["compared"] > 0
        return data
    if expected == "findings":  # equal over the reals, but a finding makes the output no function of the inputs
        assert code == 1 and data["counterexample"] is None and not cex.exists()
        assert data["findings"]["ref"] == [] and m["expect"]["races"] in {f["kind"] for f in data["findings"]["opt"]}
        return data
    assert code == 1
    c = data["counterexample"]
    assert c["ref_value"] != c["opt_value"]
    assert c["file"] == str(cex) and cex.exists()
    assert c["replay_command"].startswith("volta check ") and c["replay_command"].endswith(f"--replay {cex}")
    assert c["inputs"], "the input values the element depends on"
    # a side that never writes the element (a grid too small) has no writer and the value "untouched"
    assert set(c["writers"]) == {s for s in ("ref", "opt") if c[f"{s}_value"] != "untouched"}
    # the replay re-executes both kernels on the saved input and reproduces both values
    code, replay = _cli_json(capsys, ["check", manifest, "-q", "--json", "--replay", str(cex)])
    assert code == 1 and replay["differ"] is True
    assert (replay["buffer"], replay["index"]) == (c["buffer"], c["index"])
    for side in ("ref_value", "opt_value"):   # exact values, "untouched", or a certified enclosure's text
        assert _value(replay[side]) == _value(c[side])
    assert replay["ref_value"] != replay["opt_value"]
    return data


def _value(text):
    try:
        return Fraction(text)
    except ValueError:
        return text


# ---- random FMA-chain kernels ------------------------------------------------------------------------

T = 32   # threads (one CTA)
K = 4    # extra input elements per buffer, read at tid + k
NF = 8   # float registers
NOUT = 3
CTAS = 2  # output stride: register j of global thread g goes to OUT[T*CTAS*j + g]

HEADER = """.version 7.0
.target sm_80
.address_size 64

.visible .entry chain(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
\t.reg .pred %p<4>;
\t.reg .f32 %f<16>;
\t.reg .b32 %r<12>;
\t.reg .b64 %rd<16>;
\t.shared .align 4 .f32 sh[64];
\tld.param.u64 %rd1, [pa];
\tld.param.u64 %rd2, [pb];
\tld.param.u64 %rd3, [pout];
\tcvta.to.global.u64 %rd1, %rd1;
\tcvta.to.global.u64 %rd2, %rd2;
\tcvta.to.global.u64 %rd3, %rd3;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r8, %ctaid.x;
\tmad.lo.u32 %r9, %r8, 32, %r1;
\tmul.wide.u32 %rd4, %r9, 4;
\tadd.s64 %rd5, %rd1, %rd4;
\tadd.s64 %rd6, %rd2, %rd4;
\tadd.s64 %rd7, %rd3, %rd4;
\tcvt.rn.f32.u32 %f15, %r1;
\tsetp.lt.u32 %p1, %r1, 5;
\tsetp.ge.u32 %p2, %r1, 20;
\tmov.u32 %r2, sh;
\tshl.b32 %r3, %r1, 2;
\tadd.u32 %r4, %r2, %r3;
\tsub.u32 %r5, 31, %r1;
\tshl.b32 %r6, %r5, 2;
\tadd.u32 %r7, %r2, %r6;
"""

CONSTS = ["0f3F800000", "0f3F000000", "0fC0000000", "0f40400000", "0f00000000", "0f3E800000"]


def _reg(rng):
    return f"%f{rng.randrange(NF)}"


def _src(rng):
    r = rng.random()
    if r < 0.12:
        return rng.choice(CONSTS)
    if r < 0.2:
        return "%f15"   # a different constant in every lane
    return _reg(rng)


def _program(rng, n_ops: int, slow_ops: bool) -> list[str]:
    lines = []
    for k in range(NF):   # every register starts as a leaf or a constant
        if k % 3 == 2:
            lines.append(f"mov.f32 %f{k}, {rng.choice(CONSTS)};")
        else:
            lines.append(f"ld.global.f32 %f{k}, [%rd{5 + k % 2}+{4 * rng.randrange(K)}];")
    for _ in range(n_ops):
        guard = rng.choice(["", "", "", "@%p1 ", "@!%p1 ", "@%p2 "])
        kind = rng.random()
        d = _reg(rng)
        if kind < 0.35:
            lines.append(f"{guard}fma.rn.f32 {d}, {_src(rng)}, {_src(rng)}, {_src(rng)};")
        elif kind < 0.45:
            lines.append(f"{guard}add.f32 {d}, {_src(rng)}, {_src(rng)};")
        elif kind < 0.52:
            lines.append(f"{guard}sub.f32 {d}, {_src(rng)}, {_src(rng)};")
        elif kind < 0.62:
            lines.append(f"{guard}mul.f32 {d}, {_src(rng)}, {_src(rng)};")
        elif kind < 0.67:
            lines.append(f"{guard}neg.f32 {d}, {_reg(rng)};")
        elif kind < 0.72:
            lines.append(f"{guard}mov.f32 {d}, {_reg(rng)};")
        elif kind < 0.77:
            lines.append(f"{guard}ld.global.f32 {d}, [%rd{rng.choice([5, 6])}+{4 * rng.randrange(K)}];")
        elif kind < 0.87:   # a shared-memory round trip to another thread
            lines += ["bar.sync 0;", f"st.shared.f32 [%r4], {_reg(rng)};", "bar.sync 0;",
                      f"ld.shared.f32 {d}, [%r{rng.choice([4, 7])}];"]
        elif kind < 0.92:
            lines.append(f"{guard}mad.rn.f32 {d}, {_src(rng)}, {_src(rng)}, {_src(rng)};")
        elif slow_ops and kind < 0.96:
            lines.append(f"{guard}div.rn.f32 {d}, {_reg(rng)}, {rng.choice(['0f40000000', '0f40400000'])};")
        elif slow_ops:
            lines.append(f"{guard}max.f32 {d}, {_reg(rng)}, {_reg(rng)};")
    for j in range(NOUT):
        lines.append(f"st.global.f32 [%rd7+{4 * T * CTAS * j}], %f{rng.randrange(NF)};")
    return lines


def _spec(tmp_path: Path, name: str, ref: list[str], opt: list[str], ctas: int = 1) -> LaunchSpec:
    assert ctas <= CTAS
    launches = {}
    for role, body in (("ref", ref), ("opt", opt)):
        path = tmp_path / f"{name}_{role}.ptx"
        path.write_text(HEADER + "".join(f"\t{line}\n" for line in body) + "\tret;\n}\n")
        launches[role] = KernelLaunch(path, "chain", Dim3(ctas), Dim3(T), entries("A,B,OUT"))
    bufs = {"A": Buffer("A", "f32", T * ctas + K, "in"), "B": Buffer("B", "f32", T * ctas + K, "in"),
            "OUT": Buffer("OUT", "f32", T * CTAS * NOUT, "out")}
    return LaunchSpec(launches, bufs, source=name)


@pytest.mark.parametrize("seed", range(16))
def test_random_chain_same_polynomials(seed, tmp_path):
    rng = random.Random(seed)
    body = _program(rng, 26, slow_ops=seed % 4 == 3)
    spec = _spec(tmp_path, f"chain{seed}", body, body, ctas=1 + seed % 2)
    _same_elements(spec, sample=None)


@pytest.mark.parametrize("seed", range(12))
def test_random_chain_same_verdict(seed, tmp_path, monkeypatch):
    rng = random.Random(1000 + seed)
    body = _program(rng, 30, slow_ops=seed % 3 == 2)
    other = list(body)
    if seed % 2:   # a mutation (usually not equivalent): one arithmetic source operand becomes 0.5
        arith = [k for k in range(NF, len(other) - NOUT) if other[k].split()[-4 if "fma" in other[k] else -3:]
                 and any(w in other[k] for w in ("fma.rn", "add.f32", "mul.f32", "sub.f32"))]
        k = rng.choice(arith)
        head, _, last = other[k].rpartition(", ")
        other[k] = f"{head}, 0f3F000000;"
    spec = _spec(tmp_path, f"pair{seed}", body, other, ctas=1 + seed // 6)
    fast = _check(spec, True, monkeypatch)
    slow = _check(spec, False, monkeypatch)
    assert fast.verdict == slow.verdict, (fast.verdict, slow.verdict, fast.unsupported, slow.unsupported)
    if fast.counterexample is not None:
        assert (fast.counterexample.buffer, fast.counterexample.index) == (
            slow.counterexample.buffer, slow.counterexample.index)
    if seed % 2 == 0:
        assert fast.verdict == "equivalent"


def test_fast_path_is_taken_for_gemm():
    """The GEMM accumulation runs lane-structured: no data instruction of the pair falls back."""
    spec = load_manifest(EX / "eq_gemm_naive_tiled" / "manifest.toml")
    for role in ("ref", "opt"):
        m = CK.execute(spec, role, lane_structured=True)
        assert m.lane_fallbacks == {}, (role, m.lane_fallbacks)
        region = m.buffer_regions["C"]
        assert getattr(region, "lsref", None) is not None and (region.lsref[0] > 0).any()


def test_lanepoly_take_scatter_compact():
    from volta.symbolic.lanepoly import LanePoly

    a = LanePoly.leaf("A", np.array([0, 1, 2, 3]))
    b = LanePoly.leaf("B", np.array([3, 2, 1, 0]))
    p = a * b + a.scale(3) - LanePoly.lane_constants([1, 2, 0, 0.5])
    pos = np.array([2, 0])
    assert [str(e) for e in p.take(pos).to_exprs()] == [str(e) for e in p.to_exprs([2, 0])]
    s = p.take(pos).scatter(np.array([1, 3]), 5)
    assert s.compact().equals(s)
    assert s.differing_lanes(LanePoly.constant(0, 5)).tolist() == [1, 3]


@pytest.mark.parametrize("seed", range(8))
def test_bulk_comparison_matches_normal_forms(seed, tmp_path):
    """`_bulk_equal` (canonical lane polynomials) agrees with per-element normal forms on every element."""
    rng = random.Random(2000 + seed)
    body = _program(rng, 30, slow_ops=False)
    other = list(body)
    for _ in range(2):
        arith = [k for k in range(NF, len(other) - NOUT) if any(w in other[k] for w in ("fma.rn", "add.f32", "mul.f32"))]
        k = rng.choice(arith)
        head, _, _ = other[k].rpartition(", ")
        other[k] = f"{head}, 0f3F000000;"
    spec = _spec(tmp_path, f"bulk{seed}", body, other, ctas=CTAS)
    rows = {role: CK.outputs(CK.execute(spec, role, lane_structured=True), spec, rows=True) for role in ("ref", "opt")}
    slow = {role: CK.outputs(CK.execute(spec, role, lane_structured=False), spec) for role in ("ref", "opt")}
    norm = Normalizer()
    for name in rows["ref"]:
        proved = CK._bulk_equal(rows["ref"][name], rows["opt"][name])
        for i, ok in enumerate(proved):
            same = equal(normalize(slow["ref"][name][i], norm), normalize(slow["opt"][name][i], norm))
            if ok:
                assert same, (name, i)
            elif isinstance(rows["ref"][name][i], CK.PolyRow) and isinstance(rows["opt"][name][i], CK.PolyRow):
                assert not same, (name, i)


def test_large_coefficients_fall_back(tmp_path):
    """Coefficients or denominators that would leave int64 send the instruction to the per-lane path."""
    body = ["ld.global.f32 %f0, [%rd5];", "ld.global.f32 %f1, [%rd6+4];", "mov.f32 %f2, %f15;"]
    body += ["mul.f32 %f0, %f0, 0f40400000;", "fma.rn.f32 %f0, %f0, %f1, %f1;"] * 42   # coefficients 3^k
    body += ["mul.f32 %f2, %f1, 0f0D800000;", "add.f32 %f2, %f2, %f1;"]                # 2^-100 + 1
    body += ["st.global.f32 [%rd7], %f0;", f"st.global.f32 [%rd7+{4 * T}], %f2;",
             f"st.global.f32 [%rd7+{8 * T}], %f1;"]
    spec = _spec(tmp_path, "big", body, body)
    m = CK.execute(spec, "ref", lane_structured=True)
    assert m.lane_fallbacks.get("add") and (m.lane_fallbacks.get("mul") or m.lane_fallbacks.get("fma"))
    _same_elements(spec, sample=None)


def test_normalizer_never_mutates_a_returned_normal_form():
    """Regression: normalizing b = a + x2 after a (same Normalizer) consumed a's sum in place, so the
    normal form already returned for a became a + x2 and `equal` proved x0 + x1 = x0 + x1 + x2."""
    from volta.symbolic import expr as E

    x = [E.var("x", i) for i in range(3)]
    a = E.add(x[0], x[1])
    b = E.add(a, x[2])
    norm = Normalizer()
    na = normalize(a, norm)
    nb = normalize(b, norm)
    assert not equal(na, nb)
    assert CK._compare(a, b, Normalizer(), 1000, None, "out", 0).__class__.__name__ != "Proved"


def test_tensor_core_gemm_stays_lane_structured():
    """f16 leaves converted to f32 (the reference's fma loop) and mma.sync accumulators built from ldmatrix
    fragments of input leaves are lane polynomials: both sides store C as LaneSym rows, and the pair is
    decided in bulk (no element needs a per-element normal form)."""
    spec = load_manifest(EX / "eq_gemm_naive_mma_ldmatrix" / "manifest.toml")
    for role in ("ref", "opt"):
        m = CK.execute(spec, role, lane_structured=True)
        assert m.lane_fallbacks == {}, (role, m.lane_fallbacks)
        assert (m.buffer_regions["C"].lsref[0] > 0).sum() == 1024, role
    report = CK.check(spec)
    assert report.verdict == "equivalent" and report.proved_by == {"normal-form": 1024}


def test_wmma_gemm_stays_lane_structured():
    """wmma.mma with f32 accumulators over wmma.load fragments of input leaves adds K-term blocks to lane
    polynomials, as mma.sync does, and wmma.store writes them as LaneSym rows: the pair is decided in bulk
    (the paper's GEMM-3, K = 4,096, was a TIMEOUT materializing 4,096-term products per element)."""
    spec = load_manifest(EX / "eq_gemm_naive_wmma" / "manifest.toml")
    m = CK.execute(spec, "opt", lane_structured=True)
    assert (m.buffer_regions["C"].lsref[0] > 0).sum() == 4096
    report = CK.check(spec)
    assert report.verdict == "equivalent" and report.proved_by == {"normal-form": 4096}


def test_half_arithmetic_stays_lane_structured(tmp_path):
    """mul/fma/sub on f16 registers (a reference that multiplies half-rounded operands with __hmul, as the
    Volta paper's Conv2D reference does) are lane polynomials, as f32 arithmetic is, with the same elements as
    the per-lane path: over the reals a 16-bit element is a real too."""
    body = [".reg .b16 %h<8>;", "ld.global.f32 %f0, [%rd5];", "ld.global.f32 %f1, [%rd6+4];",
            "mov.f32 %f2, 0f00000000;", "@%p1 ld.global.f32 %f2, [%rd5+8];",   # a padding zero in some lanes
            "cvt.rn.f16.f32 %h0, %f0;", "cvt.rn.f16.f32 %h1, %f1;", "cvt.rn.f16.f32 %h2, %f2;",
            "mul.f16 %h3, %h0, %h1;", "fma.rn.f16 %h4, %h2, %h1, %h3;", "@%p2 sub.f16 %h4, %h4, %h0;",
            "cvt.f32.f16 %f3, %h3;", "cvt.f32.f16 %f4, %h4;", "add.f32 %f5, %f3, %f4;"]
    body += [f"st.global.f32 [%rd7+{4 * T * CTAS * j}], %f{3 + j};" for j in range(NOUT)]
    spec = _spec(tmp_path, "half", body, body)
    m = CK.execute(spec, "ref", lane_structured=True)
    assert m.lane_fallbacks == {}
    assert (m.buffer_regions["OUT"].lsref[0] > 0).sum() == T * NOUT
    _same_elements(spec, sample=None)


def test_wmma_tiles_padded_with_zeros_stay_lane_structured():
    """wmma fragments whose elements are input leaves or padding zeros (an implicit-GEMM convolution's taps
    outside the image, k past the filter size, rows past the last filter) add blocks of K terms with
    coefficient 0 where either factor is a zero: no instruction of the opt falls back to per-lane
    expressions, and the pair is decided in bulk (the paper's Conv2D opt materialized them per lane)."""
    spec = load_manifest(EX / "eq_conv2d_direct_wmma" / "manifest.toml")
    m = CK.execute(spec, "opt", lane_structured=True)
    assert m.lane_fallbacks == {}
    assert (m.buffer_regions["out"].lsref[0] > 0).sum() == 1440
    report = CK.check(spec)
    assert report.verdict == "equivalent" and report.proved_by == {"normal-form": 1440}
