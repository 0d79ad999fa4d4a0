"""Compare the reference's outputs with the candidate's, element by element, with `volta check`'s decision.

Each output pair must agree in number and shape (a difference there holds for every input). Then every
element is decided as `volta check` decides one (`equiv.check._compare`: identical DAGs, equal normal forms,
exact random search, Z3) after a cheaper sufficient test (`symbolic.ringform`: the same polynomial over the
same atoms), over the inputs a KernelBench problem's tensors hold (`Float32Inputs`: every float input a finite
float32, every witness rounded to one), and a candidate difference is reported only after `confirm` re-executes both sides
exactly on the model's input (the reference evaluated exactly, the candidate re-run with constant tensors)
and finds two values that certainly differ; otherwise the element is UNKNOWN. An output element the candidate
never wrote (a `torch::empty` a kernel left unfilled) is an uninitialized output, a finding: its value on a
GPU is whatever the allocator hands over, so no value is compared.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from volta.config import NO_INTEGERS, IntegerInputs
from volta.equiv.check import MAX_UNKNOWN, _compare, _expansion
from volta.errors import Unsupported
from volta.exec.limits import Timeout
from volta.kernelbench.elements import UNWRITTEN
from volta.symbolic import expr as E
from volta.symbolic.cuts import CutPoints
from volta.symbolic.domain import FORMATS, Domain
from volta.symbolic.enclose import Enclosure
from volta.symbolic.normal import Normalizer, equal, normalize
from volta.symbolic.ringform import RingForms
from volta.symbolic.screen import Screen
from volta.symbolic.search import random_search
from volta.symbolic.verdict import Proved, Unknown

PROGRESS_SECONDS = 2.0


@dataclass
class Difference:
    """A confirmed difference: output `output`, element `index` (row-major position), both exact values and
    the full input that shows it (leaf name -> {element: value})."""

    output: int
    index: int
    shape: tuple
    ref_value: object
    cand_value: object
    inputs: dict = field(default_factory=dict)
    structural: str | None = None   # a difference in the number or shapes of outputs (every input shows it)
    derived: dict = field(default_factory=dict)   # input name -> {i: value} where get_inputs derives the input
    #                                               from its leaves: the input's element at each given leaf
    note: str | None = None   # when the difference may be one of rounding, what the user can act on (rounding_note)

    @property
    def position(self) -> tuple:
        return tuple(int(i) for i in np.unravel_index(self.index, self.shape)) if self.shape else ()


@dataclass
class Comparison:
    verdict: str = "equivalent"         # equivalent | not-equivalent | findings | unknown
    compared: int = 0
    proved_by: dict = field(default_factory=dict)
    unknown: list = field(default_factory=list)        # (output, index, reason)
    difference: Difference | None = None
    unwritten: dict = field(default_factory=dict)      # output -> flat indices the candidate never wrote
    timed_out: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Float32Inputs(Domain):
    """The inputs a KernelBench problem's float tensors hold: every input leaf that is not an integer input is
    an element of a float32 tensor (`torch.randn`, `nn.Linear`'s weights: what the confirmation requires, see
    check._beyond_float32). A witness is rounded to float32 before it is confirmed (to nearest, then down and
    up: a max seeded with -1e38f differs from torch's only below -1e38f, where the solver's -1e38f - 1 is no
    float32 but the next float32 down is one), and Z3 is told each input is a finite float32, so a proof
    holds for every input the tensors can hold, as `volta check`'s does for its buffers' formats."""

    integers: IntegerInputs = NO_INTEGERS

    def format_of(self, leaf: E.Expr):
        if leaf.op is E.VAR and leaf.data[0] not in self.integers:
            return FORMATS["f32"]
        return None


HUGE_EXPANSION = 2_000_000   # estimated terms past which normal forms are not attempted (memory, hours)


def _decide(a, b, norm, timeout_ms, k, i, screen: Screen):
    """`volta check`'s decision for one element, except that expressions whose normal forms would expand to
    more than HUGE_EXPANSION terms (a sum of many fractions: a row of sigmoids, a softmax read as one ratio)
    only get the float screen (confirmed exactly) and the exact random search: a difference found is still
    confirmed, and otherwise the element is UNKNOWN rather than a normalization that exhausts memory.
    `screen` is the check's one float screen (its values memoized across the elements)."""
    if _expansion(a, b) > HUGE_EXPANSION:
        found = screen.search(a, b) or random_search(a, b, tries=60, domain=screen.domain, integers=screen.integers)
        return found if found is not None else Unknown(
            f"too large to normalize (over {HUGE_EXPANSION:,} terms) and no random input tells the two apart")
    return _compare(a, b, norm, timeout_ms, None, f"out{k}", i, screen)


def compare(ref_outs: list, cand_outs: list, confirm, timeout_ms: int = 10_000, progress=None,
            reading=lambda e: e, integers: IntegerInputs = NO_INTEGERS) -> Comparison:
    """Decide every output element; `confirm(verdict, output, index, a, b)` returns a Difference or None;
    `reading` maps each element of both sides first (`libm.Readings.apply`); `integers`: the problem's integer
    inputs (randint tensors), integers of their ranges to the search and the solver."""
    start = time.perf_counter()
    result = Comparison()
    if len(ref_outs) != len(cand_outs):
        result.verdict = "not-equivalent"
        result.difference = Difference(0, 0, (), None, None, structural=(
            f"the reference returns {len(ref_outs)} output(s) and the candidate {len(cand_outs)}"))
        return result
    for k, (r, c) in enumerate(zip(ref_outs, cand_outs)):
        if tuple(r.shape) != tuple(c.shape):
            result.verdict = "not-equivalent"
            result.difference = Difference(k, 0, tuple(r.shape), None, None, structural=(
                f"output {k} has shape {list(r.shape)} in the reference and {list(c.shape)} in the candidate"))
            return result
    pairs = [([reading(v) for v in r.values()], [reading(v) for v in c.values()]) for r, c in zip(ref_outs, cand_outs)]
    for k, (a, b) in enumerate(pairs):
        if any(v is UNWRITTEN for v in a):
            raise Unsupported(f"the reference's output {k} has elements nothing wrote (torch.empty returned as it is)")
        missing = [i for i, v in enumerate(b) if v is UNWRITTEN]
        if missing:
            result.unwritten[k] = missing
    if result.unwritten:
        result.verdict = "findings"
        return result
    total = sum(len(a) for a, _ in pairs)
    norm, forms = Normalizer(), RingForms()
    screen = Screen(domain=Float32Inputs(integers=integers), integers=integers)
    shown = time.perf_counter()
    for k, (a, b) in enumerate(pairs):
        # sub-expressions both sides compute (a group's statistics, a swish written two ways) proved equal once,
        # then one node, made for the first element that needs them (symbolic/cuts.py)
        cut_points = CutPoints(a, b, functools.partial(normalize, normalizer=norm), equal, _expansion)
        for i in range(len(a)):
            result.compared += 1
            if a[i] is b[i]:
                result.proved_by["identical"] = result.proved_by.get("identical", 0) + 1
                continue
            if progress is not None and time.perf_counter() - shown > PROGRESS_SECONDS:
                shown = time.perf_counter()
                progress(f"comparing: {result.compared:,} of {total:,} elements")
            try:
                if forms.equal(a[i], b[i]):
                    result.proved_by["ring-form"] = result.proved_by.get("ring-form", 0) + 1
                    continue
                if cut_points.proved(i, a[i], b[i], make=True):
                    result.proved_by["cut-points"] = result.proved_by.get("cut-points", 0) + 1
                    continue
                verdict = _decide(a[i], b[i], norm, timeout_ms, k, i, screen)
                if isinstance(verdict, Proved):
                    result.proved_by[verdict.how] = result.proved_by.get(verdict.how, 0) + 1
                    continue
                if isinstance(verdict, Unknown):
                    result.unknown.append((k, i, verdict.reason))
                else:
                    difference = confirm(verdict, k, i, a[i], b[i])
                    if difference is not None:
                        difference.note = rounding_note(a[i], b[i], difference.ref_value, difference.cand_value)
                        result.verdict, result.difference = "not-equivalent", difference
                        result.seconds = time.perf_counter() - start
                        return result
                    result.unknown.append((k, i, getattr(confirm, "refusal", None)
                                           or "a candidate counterexample could not be confirmed exactly"))
            except Timeout as err:
                result.timed_out = f"{err.message} at output {k} element {i}"
                result.unknown.append((k, i, err.message))
                result.verdict = "unknown"
                result.seconds = time.perf_counter() - start
                return result
            if len(result.unknown) >= MAX_UNKNOWN:
                break
        if len(result.unknown) >= MAX_UNKNOWN:
            break
    if result.unknown:
        result.verdict = "unknown"
    result.seconds = time.perf_counter() - start
    return result


# ---- differences of rounding -----------------------------------------------------------------------------------

FLOAT32_RESOLUTION = Fraction(1, 2 ** 24)   # half an ulp of float32, relative: values closer round alike
MAX_CONSTANTS = 4_096                        # constants looked at per side (a convolution's weights are inputs)
MAX_POOL = 48                                # constants whose pairwise sums and products are tried
MAX_FOLDED = 3                               # folded constants named in a note


def rounding_note(ref: E.Expr, cand: E.Expr, ref_value, cand_value) -> str | None:
    """Why a confirmed difference may be one of rounding, in words the user can act on: constants the two
    sides hold in different precisions (the reference's 1e-5 as float32, the candidate's as a double: the same
    float32, different reals), named with both values; and a difference below float32's resolution (the two
    values round to the same float32: a constant as above, or a threshold such as softplus's x itself above
    20). The verdict stands (over the reals the two differ); None when neither applies."""
    mine, theirs = _constants(ref), _constants(cand)
    parts = [f"the constant {_shown(r)} in the reference is {_shown(c)} in the candidate ({_precision(r)} and "
             f"{_precision(c)}: the same float32)" for r, c in _rounded_alike(mine, theirs)]
    parts += [f"the candidate's constant {_shown(c)} is the float32 rounding of {_shown(x)} {op} {_shown(y)}, "
              f"which the reference applies as two constants ({_shown(v)} over the reals)"
              for c, x, op, y, v in _folded(theirs - mine, mine)]
    parts += [f"the reference's constant {_shown(c)} is the float32 rounding of {_shown(x)} {op} {_shown(y)}, "
              f"which the candidate applies as two constants ({_shown(v)} over the reals)"
              for c, x, op, y, v in _folded(mine - theirs, theirs)]
    rel = _relative(ref_value, cand_value)
    if rel is not None and rel < FLOAT32_RESOLUTION:
        parts.append(f"the two values differ by {float(rel):.1e} relative, below float32's resolution "
                     f"({float(FLOAT32_RESOLUTION):.1e}): they round to the same float32")
    if not parts:
        return None
    return ("the difference may be one of rounding: " + "; ".join(parts) + ". Over the reals the outputs differ, so "
            "the verdict stands; hold the constant as the reference does, or judge in float with --atol/--rtol")


def _constants(root: E.Expr) -> set:
    """The non-integer constants of an expression (at most MAX_CONSTANTS of them)."""
    found = {n.data for n in E.postorder(root) if n.op is E.CONST and n.data.denominator != 1}
    return set(sorted(found)[:MAX_CONSTANTS]) if len(found) > MAX_CONSTANTS else found


def _folded(lone: set, other: set) -> list:
    """(c, x, op, y, x op y) for a constant c of one side only that is the float32 rounding, but not the value,
    of the sum, difference or product of two constants of the other side: `x - 0.5 - 0.2` against a
    candidate's `x - 0.7f` (0.5 + float32's 0.2 rounds to 0.7f). The first MAX_FOLDED found."""
    pool = sorted(other | {Fraction(1, 2), Fraction(1)})[:MAX_POOL]
    found, named = [], set()
    for c in sorted(lone)[:MAX_POOL]:
        target = _f32(c)
        for i, x in enumerate(pool):
            for y in pool[i:]:
                for op, v in (("+", x + y), ("-", x - y), ("-", y - x), ("*", x * y)):
                    if v != c and _f32(v) == target and target != 0 and c not in named:
                        named.add(c)
                        found.append((c, x, op, y, v) if op != "-" or v == x - y else (c, y, op, x, v))
                        if len(found) >= MAX_FOLDED:
                            return found
    return found


def _rounded_alike(mine: set, theirs: set) -> list:
    """(reference constant, candidate constant) pairs, each found on its side only, that are different reals
    with the same float32 rounding (integers and exact float32 pairs excluded: those are different numbers)."""
    by_f32: dict = {}
    for c in theirs - mine:
        by_f32.setdefault(_f32(c), []).append(c)
    return [(r, c) for r in sorted(mine - theirs) for c in sorted(by_f32.get(_f32(r), ())) if _f32(r) != 0]


def _f32(q: Fraction) -> float:
    with np.errstate(over="ignore"):
        return float(np.float32(float(q)))


def _precision(q: Fraction) -> str:
    if Fraction(_f32(q)) == q:
        return "float32"
    return "float64" if Fraction(float(q)) == q else "exact"


def _shown(q: Fraction) -> str:
    return repr(float(q))


def _relative(ref_value, cand_value) -> Fraction | None:
    """|ref - cand| / |ref| from exact values or the midpoints of certified enclosures; None if unknown."""
    def mid(v):
        if isinstance(v, (int, Fraction)):
            return Fraction(v)
        if isinstance(v, Enclosure):
            return (v.lo + v.hi) / 2
        return None
    r, c = mid(ref_value), mid(cand_value)
    if r is None or c is None or r == 0:
        return None
    return abs(r - c) / abs(r)
