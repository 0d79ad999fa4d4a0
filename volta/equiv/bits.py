"""`volta check --fp ieee|ampere|hopper|…`: are two kernels bit-identical, and if not, by how much?

Kernels equivalent over the reals still differ in bits (reassociated sums, split-K, other mma shapes, a
bf16 downcast at a store: the HEAL finding, specs/numerics.md). Both kernels run concretely, bit-exact per
instruction under the chosen float model, on the same inputs: random ones and adversarial ones built to expose
rounding (cancellation, wide magnitude ranges, subnormals, values near a rounding boundary of the output
format). Every out/inout element is compared bitwise (a NaN equals a NaN of the same bits); differences are
measured in ULPs of the output dtype and relatively, with one input and element that shows the largest.

A `Tolerance` (`--ulp N`, `--rtol R`, `--atol A`, `--signed-zero equal|differ`) relaxes the sampled comparison:
an element differing in its bits is *within tolerance* when it is at most N ULPs away or |ref - opt| ≤ A + R·|ref|
(either criterion given suffices); `--signed-zero equal` counts +0 and -0 as the same value, while the default,
`differ`, keeps them a difference that no numeric tolerance hides. The verdict is then `within-tolerance` when every difference found is within it, and
`bits-differ` names an element beyond it; like the bitwise verdict, it covers only the inputs tried.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from volta.config import FP_MODES  # noqa: F401  (the bit-exact float models: volta.equiv.bits.FP_MODES)
from volta.errors import Unsupported, UsageError
from volta.launch.args import with_scalars
from volta.launch.spec import DTYPES, LaunchSpec
from volta.exec.machine import Machine
from volta.ir.program import lower
import volta.numerics.lanes as NL
from volta.numerics.mma_select import MmaSetting
from volta.ptx.parser import parse_file

FLOATS = ("f64", "f32", "f16", "bf16")
MANTISSA = {"f64": 52, "f32": 23, "f16": 10, "bf16": 7}
MIN_EXP = {"f64": -1022, "f32": -126, "f16": -14, "bf16": -126}
GENERATORS = ("uniform", "cancellation", "wide", "subnormal", "boundary", "signed-zero")


@dataclass(frozen=True)
class Tolerance:
    """How far apart two output elements may be and still count as agreeing (sampled comparison only)."""
    ulp: float | None = None
    rtol: float | None = None
    atol: float | None = None
    signed_zero: str = "differ"  # "equal": +0 == -0

    def __post_init__(self):
        for name in ("ulp", "rtol", "atol"):
            v = getattr(self, name)
            if v is not None and not (v >= 0 and np.isfinite(v)):
                raise UsageError(f"--{name} {v!r}: a finite number ≥ 0")
        if self.signed_zero not in ("equal", "differ"):
            raise UsageError(f"--signed-zero {self.signed_zero!r}: choose equal or differ")

    @property
    def numeric(self) -> bool:
        return any(v is not None for v in (self.ulp, self.rtol, self.atol))

    @property
    def active(self) -> bool:
        return self.numeric or self.signed_zero == "equal"

    def text(self) -> str:
        parts = [f"{n} {getattr(self, n):g}" for n in ("ulp", "rtol", "atol") if getattr(self, n) is not None]
        if self.signed_zero == "equal":
            parts.append("±0 equal")
        return ", ".join(parts) or "none"

    def accepts(self, ulps: np.ndarray, a_val: np.ndarray, b_val: np.ndarray) -> np.ndarray:
        """Which differing elements are within tolerance (ref values a_val, opt values b_val)."""
        ok = np.zeros(ulps.shape, dtype=bool)
        if self.ulp is not None:
            ok |= ulps <= self.ulp
        if self.rtol is not None or self.atol is not None:
            with np.errstate(invalid="ignore", over="ignore"):
                bound = (self.atol or 0.0) + (self.rtol or 0.0) * np.abs(a_val)
                ok |= np.isfinite(a_val) & np.isfinite(b_val) & (np.abs(a_val - b_val) <= bound)
        return ok


NO_TOLERANCE = Tolerance()


@dataclass
class Witness:
    """One input (generator, trial, seed: `make_inputs` rebuilds it) and the element that shows a difference."""
    generator: str
    trial: int
    seed: int
    buffer: str
    index: int
    ref_bits: int
    opt_bits: int
    ref_value: float
    opt_value: float
    ulps: float  # inf when exactly one side is NaN
    relative: float
    inputs: dict = field(repr=False, default_factory=dict)  # name -> array given to both kernels
    scalars: dict = field(default_factory=dict)  # symbolic scalar -> value


@dataclass
class GeneratorResult:
    name: str
    trials: int = 0
    elements: int = 0  # compared elements, over all trials
    differing: int = 0
    max_ulps: float = 0.0
    max_relative: float = 0.0
    witness: Witness | None = None
    beyond: int = 0  # differing elements beyond the tolerance (== differing without one)
    signed_zero_only: int = 0  # elements whose bits differ only in the sign of zero (counted equal with ±0 equal)

    @property
    def fraction(self) -> float:
        return self.differing / self.elements if self.elements else 0.0


@dataclass
class BitsReport:
    fp: str
    identical: bool = True
    generators: dict = field(default_factory=dict)  # name -> GeneratorResult
    compared: int = 0
    differing: int = 0
    max_ulps: float = 0.0
    max_relative: float = 0.0
    witness: Witness | None = None  # the largest difference in ULPs over every generator
    findings: dict = field(default_factory=dict)  # role -> [Finding] from the runs
    unsupported: object = None  # (role, Unsupported) when a kernel could not run
    seconds: float = 0.0
    thread_instructions: int = 0
    tolerance: Tolerance = NO_TOLERANCE
    beyond: int = 0  # differing elements beyond the tolerance
    signed_zero_only: int = 0

    @property
    def within_tolerance(self) -> bool:
        """Every difference found is within a numeric tolerance (False when there is none or nothing differs)."""
        return self.tolerance.numeric and self.differing > 0 and self.beyond == 0

    @property
    def verdict(self) -> str:
        if self.unsupported is not None:
            return "unsupported"
        # sampled, not proved (volta.equiv.bitproof proves): no claim beyond the inputs tried
        if self.identical:
            return "no-difference-found"
        return "within-tolerance" if self.within_tolerance else "bits-differ"

    @property
    def fraction(self) -> float:
        return self.differing / self.compared if self.compared else 0.0


# ---- inputs ------------------------------------------------------------------------------------

def _output_float(spec: LaunchSpec) -> str:
    """The narrowest float format among the outputs (rounding boundaries are built for it)."""
    outs = [b.dtype for b in spec.buffers.values() if b.role in ("out", "inout") and b.dtype in FLOATS]
    return min(outs, key=lambda d: MANTISSA[d]) if outs else "f32"


def _values(gen: str, rng, n: int, dtype: str, target: str) -> np.ndarray:
    """float64 values for one buffer; rounded to the buffer's format by `_encode`."""
    p = MANTISSA[dtype]
    if gen == "uniform":
        scale = float(rng.choice([1.0, 2.0 ** -8, 2.0 ** 8]))
        return rng.uniform(-scale, scale, n)
    if gen == "cancellation":  # pairs of nearly equal values with opposite signs
        v = rng.uniform(0.5, 2.0, (n + 1) // 2) * rng.choice([-1.0, 1.0], (n + 1) // 2)
        w = -v * (1 + rng.integers(1, 8, v.size) * 2.0 ** -p * rng.choice([-1.0, 1.0], v.size))
        out = np.empty(2 * v.size)
        out[0::2], out[1::2] = v, w
        return rng.permutation(out[:n]) if rng.random() < 0.5 else out[:n]
    if gen == "wide":
        return rng.choice([-1.0, 1.0], n) * 2.0 ** rng.uniform(-20, 20, n)
    if gen == "subnormal":
        tiny = 2.0 ** (MIN_EXP[dtype] - p)
        sub = rng.integers(1, 2 ** min(p, 30), n) * tiny * rng.choice([-1.0, 1.0], n)
        normal = rng.uniform(-1, 1, n) * 2.0 ** MIN_EXP[dtype] * 4
        return np.where(rng.random(n) < 0.7, sub, normal)
    if gen == "boundary":  # 1 + k·ulp ± half an ulp of the output format: products and sums land on ties
        q = min(MANTISSA[target], p - 1)
        k = rng.integers(0, 16, n)
        half = rng.choice([-1.0, 0.0, 1.0], n) * 2.0 ** -(q + 1)
        tiny = rng.choice([-1.0, 0.0, 1.0], n) * 2.0 ** -p
        return rng.choice([-1.0, 1.0], n) * (1 + k * 2.0 ** -q + half + tiny)
    if gen == "signed-zero":  # sums of zeros keep or lose the sign: -0 + -0 = -0 but -0 + (+0) = +0
        return rng.choice([-0.0, -0.0, -0.0, 0.0], n) if rng.random() < 0.5 else np.full(n, -0.0)
    raise UsageError(f"unknown input generator `{gen}` (choose from {', '.join(GENERATORS)})")


def _encode(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bf16":
        return NL.round_f64(values, "bf16").astype(np.uint16)
    return values.astype(DTYPES[dtype][0])


def make_inputs(spec: LaunchSpec, generator: str, seed: int) -> tuple[dict, dict]:
    """Arrays for every in/inout buffer, and values for the symbolic scalars: (inputs, scalars)."""
    rng = np.random.default_rng(seed)
    target = _output_float(spec)
    inputs, scalars = {}, {}
    for name in sorted(spec.symbols):
        t = spec.symbols[name].lstrip(".")
        t = t if t in FLOATS else "f32"
        scalars[name] = float(_decode(_encode(rng.uniform(0.5, 2.0, 1), t), t)[0])
    for name in sorted(spec.buffers):
        buf = spec.buffers[name]
        if buf.role == "out":
            continue
        if buf.dtype in FLOATS:
            inputs[name] = _encode(_values(generator, rng, buf.count, buf.dtype, target), buf.dtype)
        elif buf.dtype in DTYPES and buf.dtype[0] in "su":
            inputs[name] = rng.integers(0, 8, buf.count).astype(DTYPES[buf.dtype][0])
        else:
            raise Unsupported(f"buffer `{name}` has dtype {buf.dtype}, which bit-exact inputs do not cover yet")
    return inputs, scalars


# ---- running -----------------------------------------------------------------------------------

class Runner:
    """Parses and lowers each kernel of a pair once; runs it on concrete inputs."""

    def __init__(self, spec: LaunchSpec, fp: str = "ieee", machine=Machine, tensor: MmaSetting | None = None):
        self.spec, self.fp, self.machine, self.tensor = spec, fp, machine, tensor
        self.progs = {role: lower(parse_file(spec.launches[role].ptx), spec.launches[role].kernel)
                      for role in ("ref", "opt")}

    def run(self, role: str, inputs: dict, scalars: dict, **kw):
        launch = self.spec.launches[role]
        launch = dataclasses.replace(launch, args=with_scalars(launch.args, scalars))
        opts = dict(structured=False, check_races=False, fp=self.fp, tensor=self.tensor)
        opts.update(kw)
        return self.machine(self.progs[role], launch, self.spec.buffers, {}, inputs=inputs, **opts).run()


def output_words(m: Machine, spec: LaunchSpec) -> dict:
    """name -> unsigned word array of every out/inout buffer after a run."""
    out = {}
    for name, buf in spec.buffers.items():
        if buf.role in ("out", "inout"):
            raw = np.array(m.buffer_regions[name].data[0, :buf.nbytes], dtype=np.uint8)
            out[name] = raw.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[buf.itemsize])
    return out


def _decode(words: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in FLOATS:
        return NL.to_f64(words, dtype)
    return words.view(DTYPES[dtype][0]).astype(np.float64)


def ulp_distance(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    """Distance in units in the last place: how many representable values lie between a and b (inf for NaN vs
    number); integers count plainly."""
    if dtype not in FLOATS:
        return np.abs(_decode(a, dtype) - _decode(b, dtype))
    w = 8 * DTYPES[dtype][1]
    sign = np.uint64(1) << np.uint64(w - 1)

    def ordered(x):
        x = x.astype(np.uint64)
        mag = (x & ~sign).astype(np.float64)
        return np.where(x & sign, -mag, mag)

    d = np.abs(ordered(a) - ordered(b))
    na, nb = np.isnan(_decode(a, dtype)), np.isnan(_decode(b, dtype))
    return np.where(na | nb, np.where(na & nb, 0.0, np.inf), d)


def relative_difference(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    x, y = _decode(a, dtype), _decode(b, dtype)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        r = np.abs(x - y) / np.maximum(np.abs(x), np.abs(y))
    return np.where(x == y, 0.0, np.nan_to_num(r, nan=np.inf))


def compare_bits(spec: LaunchSpec, fp: str = "ieee", trials: int = 8, seed: int = 0,
                 generators=GENERATORS, tolerance: Tolerance = NO_TOLERANCE,
                 tensor: MmaSetting | None = None) -> BitsReport:
    """Run both kernels of a pair on `trials` inputs from each generator and compare every output bitwise
    (`tensor`: the tensor-core setting, volta.numerics.mma_select; default ptxas 13.0)."""
    if "ref" not in spec.launches or "opt" not in spec.launches:
        raise UsageError("a bit-exact check needs two kernels: REF.ptx OPT.ptx, or a manifest with [ref] and [opt]")
    if not any(b.role in ("out", "inout") for b in spec.buffers.values()):
        raise UsageError("a bit-exact check needs at least one :out or :inout buffer to compare")
    report = BitsReport(fp, tolerance=tolerance)
    start = time.perf_counter()
    runner = Runner(spec, fp, tensor=tensor)
    for g, gen in enumerate(generators):
        res = report.generators[gen] = GeneratorResult(gen)
        for trial in range(trials):
            s = _seed(seed, g, trial)
            inputs, scalars = make_inputs(spec, gen, s)
            outs = {}
            for role in ("ref", "opt"):
                try:
                    m = runner.run(role, {k: v.copy() for k, v in inputs.items()}, scalars)
                except Unsupported as err:
                    report.unsupported = (role, err)
                    report.seconds = time.perf_counter() - start
                    return report
                report.thread_instructions += m.thread_instructions
                if m.findings:
                    report.findings.setdefault(role, []).extend(m.findings)
                outs[role] = output_words(m, spec)
            res.trials += 1
            _tally(spec, res, outs, gen, trial, s, inputs, scalars, tolerance)
        report.compared += res.elements
        report.differing += res.differing
        report.beyond += res.beyond
        report.signed_zero_only += res.signed_zero_only
        report.max_relative = max(report.max_relative, res.max_relative)
        if res.witness is not None:
            out_of, best = getattr(res, "_witness_beyond", False), getattr(report, "_witness_beyond", False)
            if report.witness is None or (out_of and not best) or (out_of == best and
                                                                   res.witness.ulps > report.witness.ulps):
                report.witness, report._witness_beyond = res.witness, out_of
        report.max_ulps = max(report.max_ulps, res.max_ulps)
    report.identical = report.differing == 0
    report.seconds = time.perf_counter() - start
    return report


def _seed(seed: int, g: int, trial: int) -> int:
    return int(np.random.SeedSequence([seed, g, trial]).generate_state(1)[0])


def _tally(spec, res, outs, gen, trial, s, inputs, scalars, tolerance: Tolerance = NO_TOLERANCE):
    for name, a in outs["ref"].items():
        b = outs["opt"][name]
        dtype = spec.buffers[name].dtype
        res.elements += a.size
        diff = a != b
        if not diff.any():
            continue
        if dtype in FLOATS:
            av, bv = _decode(a, dtype), _decode(b, dtype)
            zeros = diff & (av == 0) & (bv == 0)  # +0 vs -0: bits differ, values do not
            res.signed_zero_only += int(zeros.sum())
            if tolerance.signed_zero == "equal":
                diff = diff & ~zeros
                if not diff.any():
                    continue
        res.differing += int(diff.sum())
        ulps = ulp_distance(a, b, dtype)
        rel = relative_difference(a, b, dtype)
        res.max_relative = max(res.max_relative, float(rel[diff].max()))
        beyond = diff
        if tolerance.numeric and dtype in FLOATS:
            ok = tolerance.accepts(ulps, av, bv)
            if tolerance.signed_zero == "differ":
                ok &= ~zeros  # ±0 differ by policy: no numeric tolerance hides them (0 ulp apart as numbers)
            beyond = diff & ~ok
        res.beyond += int(beyond.sum())
        res.max_ulps = max(res.max_ulps, float(ulps[diff].max()))
        out_of = bool(beyond.any())  # the witness: the largest difference beyond the tolerance, if any is
        pick = beyond if out_of else diff
        i = int(np.argmax(np.where(pick, ulps, -1)))
        w = res.witness
        w_out = w is not None and getattr(res, "_witness_beyond", False)
        if w is None or (out_of and not w_out) or (out_of == w_out and ulps[i] > w.ulps):
            res._witness_beyond = out_of
            ra, rb = _decode(a[i:i + 1], dtype)[0], _decode(b[i:i + 1], dtype)[0]
            res.witness = Witness(gen, trial, s, name, i, int(a[i]), int(b[i]), float(ra), float(rb),
                                  float(ulps[i]), float(rel[i]), inputs, scalars)
