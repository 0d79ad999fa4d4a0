"""Soundness harness for `volta check` (issue 8 §1): an EQUIVALENT must survive concrete execution.

For every pair of examples/ that `volta check` proves EQUIVALENT, and for single-instruction mutants
of their optimized kernels (volta/equiv/mutate.py): both kernels run on several random inputs and
must agree. The oracle is concrete execution, not the decision procedure: exact rationals where
every output is rational (the machine with input values), and, for outputs that are irrational
(exp, sqrt), bit-level IEEE execution of both kernels compared with a relative tolerance, and where that
leaves elements apart (cancellation), their exact real values (certified enclosures) decide. Both runs
must also be free of findings (an uninitialized read that reads as zero agrees by accident). In the
other direction, a mutant that concrete execution shows to differ must never be EQUIVALENT.
Each pair's mutant counts are printed (`pytest -s -n 0`) for the closing note; every pair that passes here
agreed concretely, and tests/cli/test_check_cli.py proves each of them EQUIVALENT.
"""
from __future__ import annotations

import contextlib
import dataclasses
import random
import signal
import tomllib
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from volta.equiv.check import _exact, check, execute, outputs
from volta.equiv.mutate import concrete_outputs, mutants
from volta.errors import VoltaError
from volta.exec import machine
from volta.launch.spec import DTYPES, load_manifest
from volta.session.replay import run_launch

EX = Path(__file__).resolve().parents[2] / "examples"
EQUIVALENT_PAIRS = sorted(p.parent.name for p in EX.glob("eq_*/manifest.toml")
                          if tomllib.loads(p.read_text())["expect"].get("check") == "equivalent")
MUTANTS_PER_PAIR = 3   # evenly spread over the optimized kernel
TRIALS = 3



def _inputs(spec, rng):
    """Small integers and quarters: exact, and varied enough that comparisons and maxima differ."""
    values = {}
    for name, buf in spec.buffers.items():
        if buf.role in ("in", "inout"):
            values[name] = {k: Fraction(rng.randint(-24, 24), rng.choice((1, 4))) for k in range(buf.count)}
    values["__symbols__"] = {s: Fraction(rng.randint(-4, 4)) for s in spec.symbols}
    return values


def _float_outputs(spec, role, values):
    arrays = {}
    for name, buf in spec.buffers.items():
        if buf.role in ("in", "inout"):
            arr = np.array([float(values[name][k]) for k in range(buf.count)])
            arrays[name] = arr.astype(DTYPES[buf.dtype][0]) if buf.dtype not in ("bf16",) else arr.astype(np.float32)
    result = run_launch(spec, role, arrays, fp="ieee", check_races=False,
                        scalars={s: float(v) for s, v in values["__symbols__"].items()})
    return result.outputs, result.findings


TRANSCENDENTAL = frozenset({"ex2", "lg2", "sqrt", "rsqrt", "tanh", "sin", "cos", "call"})


def _rational(spec) -> bool:
    """Whether both kernels' real semantics stays rational and total (no exp, roots, nor libdevice's logf,
    which is NaN/-inf for x <= 0): then the exact oracle."""
    from volta.exec.handlers import floatbits
    from volta.ir.program import lower
    from volta.ptx.parser import parse_file

    for launch in spec.launches.values():
        prog = lower(parse_file(launch.ptx), launch.kernel)
        if any(op.op in TRANSCENDENTAL for op in prog.ops) or floatbits.plan(prog).roles:
            return False
    return True


def _half_precision(spec) -> float | None:
    """The unit roundoff of the narrowest format a kernel rounds data to on the way (tensor-core attention
    converts P to f16: 2^-11 per element), or None when everything stays f32 or wider."""
    from volta.ir.program import lower
    from volta.ptx.parser import parse_file

    eps = None
    for launch in spec.launches.values():
        for op in lower(parse_file(launch.ptx), launch.kernel).ops:
            types = set(op.d.types or ())
            if op.op in ("cvt", "mma", "wmma") and types & {".bf16", ".bf16x2"}:
                eps = 2.0 ** -8
            elif op.op in ("cvt", "mma", "wmma") and types & {".f16", ".f16x2"} and eps is None:
                eps = 2.0 ** -11
    return eps


def disagreement(spec, trials=TRIALS, seed=0, ref_runs=None):
    """None when ref and opt agree on `trials` random inputs; otherwise what differs. Raises
    VoltaError/Unsupported when the kernels cannot run concretely. Kernels with rational real semantics
    are compared exactly; the others (exp, sqrt) by IEEE execution within rounding tolerance: relative to
    each element in f32, and for kernels that round data to f16/bf16 (P of tensor-core attention) relative to
    the buffer's largest value, 2 units of that format's roundoff (a weighted average of V whose weights are
    rounded to f16 is off by up to 2^-11 * max|V|, however small the average).

    `ref_runs`, a dict shared by calls whose specs differ only in the opt kernel (mutants of one pair),
    keeps the ref kernel's outputs per trial: the same seed draws the same inputs, so ref runs once."""
    rng = random.Random(seed)
    exact_oracle = _rational(spec)
    half = None if exact_oracle else _half_precision(spec)
    ref_runs = {} if ref_runs is None else ref_runs
    for trial in range(trials):
        values = _inputs(spec, rng)
        key = (seed, trial, exact_oracle)
        if exact_oracle:
            if key not in ref_runs:
                ref_runs[key] = concrete_outputs(spec, "ref", values)
            exact = {"ref": ref_runs[key], "opt": concrete_outputs(spec, "opt", values)}
            for name in exact["ref"]:
                for i, (a, b) in enumerate(zip(exact["ref"][name], exact["opt"][name])):
                    if a != b:
                        return f"{name}[{i}]: ref = {a}, opt = {b} (exact)"
            continue
        if key not in ref_runs:
            ref_runs[key] = _float_outputs(spec, "ref", values)
        (ref_out, ref_f), (opt_out, opt_f) = ref_runs[key], _float_outputs(spec, "opt", values)
        if ref_f or opt_f:
            return f"findings in the concrete run: {[f.kind for f in ref_f + opt_f]}"
        for name, buf in spec.buffers.items():
            if buf.role in ("out", "inout"):
                a, b = np.asarray(ref_out[name], np.float64), np.asarray(opt_out[name], np.float64)
                if half is None:
                    bad = ~np.isclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True)
                else:
                    bad = ~np.isclose(a, b, rtol=0, atol=2 * half * np.nanmax(np.abs(a)) + 1e-6, equal_nan=True)
                if bad.any() and not _reals_agree(spec, values, name, np.flatnonzero(bad)):
                    i = int(np.argmax(bad))
                    return f"{name}[{i}]: ref = {a[i]}, opt = {b[i]} (IEEE, beyond rounding; exact reals differ too)"
    return None


def _reals_agree(spec, values, name, indices) -> bool:
    """Whether the elements IEEE execution left apart have the same value in the real semantics the check
    decides: both kernels executed on the same inputs, each element's exact value or a certified enclosure
    (`!=`: certainly different; None: undefined or unbounded, which is no agreement). A layer norm of 768
    columns, one thread summing sequentially against a warp's shuffles, rounds apart by 1e-5 where
    (x - mean)·rstd·gamma cancels beta; its exact values agree to within the enclosures' 1e-38."""
    elements = {role: outputs(execute(spec, role, input_values=values), spec)[name] for role in ("ref", "opt")}
    for i in indices:
        a, b = (_exact(elements[role][i]) for role in ("ref", "opt"))
        if a is None or b is None or a != b:
            return False
    return True


def _with_opt(spec, ptx: Path):
    launches = dict(spec.launches)
    launches["opt"] = dataclasses.replace(launches["opt"], ptx=ptx)
    return dataclasses.replace(spec, launches=launches)


class _OverBudget(Exception):
    pass


@contextlib.contextmanager
def _budget(seconds: int, steps: int = 300_000):
    """Bound one mutant: a wall-clock alarm and a step cap (a mutated loop bound can run for minutes).
    Over budget counts as undecided, which is never EQUIVALENT, so skipping it is sound."""
    try:
        from volta.exec import limits
    except ImportError:
        limits = None
    if limits is not None:
        with limits.using(max_steps=steps, timeout=seconds):
            yield
        return

    def alarm(signum, frame):
        raise _OverBudget()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    old_cap = machine.MAX_STEPS
    machine.MAX_STEPS = steps
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        machine.MAX_STEPS = old_cap


@pytest.mark.slow
@pytest.mark.isolated
@pytest.mark.parametrize("case", EQUIVALENT_PAIRS)
def test_equivalent_pair_and_its_mutants_proved_equivalent_agree_concretely(case, tmp_path):
    """The pairs whose manifest expects EQUIVALENT: tests/equiv/test_lanepoly_path.py::test_example_pair asserts that
    `volta check` (the same check(spec)) says so; here both kernels agree concretely. (Running the check here
    too repeated the most expensive step of this sweep for an assertion made there.) Then the pair's mutants: each
    one the check proves EQUIVALENT agrees concretely too, on the first of the same inputs, so the ref kernel's
    outputs on them are computed once for the pair and its mutants (one test per pair: two tests ran the ref
    kernel's exact execution twice, ~1 CPU s a run for a 64x64 GEMM)."""
    spec = load_manifest(EX / case / "manifest.toml")
    ref_runs = {}   # the ref kernel's outputs on each trial's inputs, the same for the pair and every mutant
    assert disagreement(spec, ref_runs=ref_runs) is None
    text = Path(spec.launches["opt"].ptx).read_text()
    found = mutants(text)
    step = max(1, len(found) // MUTANTS_PER_PAIR)
    counts = Counter()
    for mutant, mutated in found[::step][:MUTANTS_PER_PAIR]:
        ptx = tmp_path / f"m{mutant.line}.ptx"
        ptx.write_text(mutated)
        mspec = _with_opt(spec, ptx)
        counts["mutants"] += 1
        try:
            with _budget(20):
                verdict = check(mspec, timeout_ms=2_000).verdict
        except _OverBudget:
            counts["mutants over budget"] += 1
            continue
        except VoltaError as err:
            counts["mutants over budget" if err.exit_code == 3 else "mutants that no longer parse"] += 1
            continue
        counts[f"mutants {verdict}"] += 1
        if verdict != "equivalent":   # nothing claimed, nothing for concrete execution to refute (a NOT
            continue                  # EQUIVALENT's witness is confirmed by check itself); a run to the 90 s
            # budget of an UNKNOWN mutant was most of this test's time
        try:
            with _budget(90):
                differs = disagreement(mspec, trials=2, ref_runs=ref_runs)
        except (VoltaError, ZeroDivisionError, ValueError, IndexError, _OverBudget) as err:
            raise AssertionError(f"{case}: {mutant} proved EQUIVALENT but cannot run concretely: {err}") from None
        assert differs is None, f"{case}: {mutant} proved EQUIVALENT but {differs}"
        counts["equivalent mutants agreeing concretely"] += 1
    print(f"\nsoundness harness, {case}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
