"""Named real constants (volta/symbolic/constants.py): the table's proofs, the reading of words, and how the rest of
the symbolic package treats the constants (not inputs; irrational in exact evaluation; enclosed; bounded in z3)."""
import functools
import importlib.util
import math
import struct
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from volta.symbolic import constants as C
from volta.symbolic import expr as E
from volta.symbolic.enclose import enclose
from volta.symbolic.evaluate import Inexact, evaluate, evaluate_float
from volta.symbolic.search import inputs_of, random_search
from volta.symbolic.verdict import Proved, Refuted
from volta.symbolic.z3bridge import decide_equal

from tests.symbolic.test_decide import ROOT

x = E.var("x", 0)
LOG2E_F32, LO_F32 = 0x3FB8AA3B, 0x32A57060


@functools.cache
def _load_proof():
    spec = importlib.util.spec_from_file_location("named_constants", ROOT / "proofs" / "named_constants.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["named_constants"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_every_table_row_is_proved_correctly_rounded():
    proof = _load_proof()
    assert proof.main() == 0
    assert {r.name for r in C.TABLE} == set(proof.TRUTH)


def test_the_proof_rejects_a_word_one_ulp_off():
    import dataclasses

    proof = _load_proof()
    row = next(r for r in C.TABLE if r.name == "sqrt(2/pi)")
    assert proof.check_row(row) == []
    assert proof.check_row(dataclasses.replace(row, f32=row.f32 + 1))
    assert proof.check_row(dataclasses.replace(row, f64_lo=row.f64_lo - 1))
    assert proof.check_row(dataclasses.replace(row, value=E.sqrt(E.div(2, C.LOG2E))))


@settings(deadline=None)   # the first example loads the proof (its series)
@given(st.sampled_from(C.TABLE), st.sampled_from(["f32", "f64"]), st.sampled_from([-1, 1]))
def test_the_exact_proof_rejects_every_neighbour_word(row, fmt, ulp):
    """rounds_to (struct-decoded words, rational midpoints) accepts the table's word and neither neighbour."""
    proof = _load_proof()
    c = proof.TRUTH[row.name]()
    assert proof.rounds_to(c, getattr(row, fmt), fmt)
    assert not proof.rounds_to(c, getattr(row, fmt) + ulp, fmt)


@settings(deadline=None)
@given(st.fractions(min_value=Fraction(-10 ** 6), max_value=Fraction(10 ** 6)).filter(lambda q: abs(q) > 1e-30))
def test_the_exact_proofs_rounding_agrees_with_volta_encode(q):
    """Two independent roundings of a rational to f32: the proof's midpoint test and volta.numerics' encode
    (a tie, where the strict test holds for neither neighbour, is skipped)."""
    from volta.numerics.formats import encode

    proof = _load_proof()
    word = encode(q, "f32")
    point = proof.I.exact(q)
    if not any(proof.rounds_to(point, word + d, "f32") for d in (-1, 0, 1)):
        return   # a midpoint between two words
    assert proof.rounds_to(point, word, "f32")


def test_the_exact_enclosures_hold_the_libm_values():
    """The series enclosures (no mpmath) agree with the C library's doubles to their precision."""
    proof = _load_proof()
    for interval, double in ((proof.LN2, math.log(2)), (proof.LN10, math.log(10)), (proof.PI, math.pi),
                             (proof.EULER, math.e), (proof.exp2(proof.I.exact(Fraction(1, 3))), 2 ** (1 / 3))):
        assert interval.width < Fraction(1, 1 << 300)
        assert abs(interval.lo - Fraction(double)) < Fraction(1, 1 << 51) * abs(Fraction(double))


def _f32(word: int) -> float:
    return struct.unpack("<f", struct.pack("<I", word))[0]


def _word(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def test_words_read_as_their_constants_negated_and_scaled_by_powers_of_two():
    named = C.reading(set())
    assert named.value(".f32", LOG2E_F32) is C.LOG2E
    assert named.value(".f32", LOG2E_F32 ^ 0x80000000) is E.neg(C.LOG2E)
    assert named.value(".f32", _word(2 * _f32(LOG2E_F32))) is E.mul(2, C.LOG2E)   # tanh's 2·log2 e
    assert named.value(".f64", 0x400921FB54442D18) is C.PI
    # RN(√2)/2 is RN(1/√2): the word reads as its own row, whose value is √2/2
    assert named.value(".f32", 0x3F3504F3) is E.mul(Fraction(1, 2), E.sqrt(2))
    assert {k[0] for k in named.read} == {"log2 e", "pi", "1/sqrt 2"}


@given(st.sampled_from(C.TABLE), st.integers(-1, 1))
def test_a_word_one_ulp_away_stays_a_literal(row, ulp):
    """0.7071f for 1/√2, a truncated √(2/π): a word that is not RN(c) is no constant (a real bug to report)."""
    named = C.reading({(".f32", row.f32), (".f64", row.f64)})
    hit = named.value(".f32", row.f32 + ulp)
    assert (hit is row.value) == (ulp == 0)
    assert (named.value(".f64", row.f64 + ulp) is row.value) == (ulp == 0)


def test_a_truncated_constant_is_no_constant():
    named = C.reading(set())
    assert named.value(".f32", _word(0.7071)) is None           # 1/√2 typed short
    assert named.value(".f32", _word(0.797)) is None            # √(2/π) truncated
    assert named.value(".f32", _word(1.4427)) is None           # log2 e to 5 digits


def test_a_lo_word_reads_as_zero_only_beside_its_hi_word():
    assert C.reading(set()).value(".f32", LO_F32) is None
    with_hi = C.reading({(".f32", LOG2E_F32)})
    assert with_hi.value(".f32", LO_F32) is E.ZERO
    assert with_hi.value(".f32", LO_F32 ^ 0x80000000) is E.ZERO
    assert ("log2 e", "0f32A57060", True) in with_hi.read
    # another constant's hi does not license log2 e's lo
    assert C.reading({(".f32", 0x40490FDB)}).value(".f32", LO_F32) is None


def test_constants_are_not_inputs_and_have_no_rational_value():
    e = E.exp2(E.mul(x, C.LOG2E))
    assert inputs_of(e) == [x]
    with pytest.raises(Inexact):
        evaluate(C.LOG2E, {})
    assert evaluate_float(e, {x: 1.0}) == pytest.approx(math.e)
    box = enclose(e, {x: Fraction(1)})
    e_27_digits = Fraction(2718281828459045235360287471, 10 ** 27)
    assert abs(box.lo - e_27_digits) < Fraction(1, 10 ** 26) and box.hi - box.lo < Fraction(1, 10 ** 30)
    assert enclose(E.mul(C.PI, E.div(1, C.PI)), {}) == 1


def test_relations_hold_by_construction_and_are_decided():
    ln2 = next(r.value for r in C.TABLE if r.name == "ln 2")
    assert decide_equal(E.mul(E.mul(x, ln2), C.LOG2E), x) == Proved("normal-form")
    # exp(x) three ways: 2^(x·log2 e), e^x = (2^log2 e)^x as 2^(x log2 e), and 2^(x·log2 e)·2^0
    e_row = next(r.value for r in C.TABLE if r.name == "e")
    assert decide_equal(E.exp2(E.mul(x, C.LOG2E)), E.exp2(E.add(E.mul(x, C.LOG2E), 0))) == Proved("normal-form")
    assert e_row is E.exp2(C.LOG2E)


def test_a_difference_through_a_constant_is_confirmed_at_its_true_value():
    """exp(x) against 2^(x·RN(log2 e)): the search evaluates at small integers; the constant is never given a
    value of its own (it is no input), and the difference is certified by interval arithmetic."""
    rational = E.const(_f32(LOG2E_F32))
    found = random_search(E.exp2(E.mul(x, C.LOG2E)), E.exp2(E.mul(x, rational)))
    assert isinstance(found, Refuted) and found.confirmed and set(found.model) == {x}


def test_z3_knows_the_constants_bounds():
    # pi > 3 holds for the real π: z3 is given certified rational bounds, so this max is decided
    assert decide_equal(E.maximum(C.PI, 3), C.PI) == Proved("z3")
    found = decide_equal(E.maximum(C.PI, 4), C.PI)
    assert isinstance(found, Refuted) and found.confirmed


def test_no_word_is_both_a_constant_and_a_lo_correction():
    """A lo word reads as 0, a hi word as its constant: no word of the table (any sign, any 2^k) is both."""
    his, los = set(), set()
    for t, (width, man, field) in C.FORMATS.items():
        for k in range(-C.MAX_SHIFT, C.MAX_SHIFT + 1):
            for row in C.TABLE:
                for lo, into in ((False, his), (True, los)):
                    word = C._scaled(getattr(row, field + "_lo" if lo else field), width, man, k)
                    if word is not None:
                        into |= {(t, word), (t, word ^ (1 << (width - 1)))}
    assert his and los and not his & los
