"""libdevice expm1f over the reals (volta/exec/state/overflow_real.py): its `selp.f32 r, +inf, v, j > 128` is read as v,
because z3 proves v >= 2^128 wherever that arm is taken (the float result overflows there; the real model reads
every float instruction by its unrounded value). A +inf that is no overflow (`x > 10 ? INFINITY : e`) stays
UNSUPPORTED. Kernels: data/expm1_real/expm1.cu."""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.cli import run
from volta.exec.state.overflow_real import proves_overflow
from volta.symbolic import expr as E

PTX = str(Path(__file__).parent / "data" / "expm1_real" / "expm1.ptx")
BUFFERS = ["--buffer", "x=f32[64]:in", "--buffer", "y=f32[64]:out", "--args", "x,y,64"]
NOTE = "picks +inf only where the other arm's real value is ≥ 2^128 (proved by z3 under the selecting condition)"


def _check(opt, capsys, *extra):
    rc = run(["check", PTX, PTX, "--ref-kernel", "expm1_each", "--opt-kernel", opt, "--grid", "2", "--block", "32",
              *extra, *BUFFERS])
    return rc, capsys.readouterr().out


def test_expm1f_in_two_launch_shapes_is_equivalent(capsys):
    rc, out = _check("expm1_stride", capsys, "--opt-grid", "2", "--opt-block", "8")
    assert rc == 0 and "EQUIVALENT" in out and "NOT" not in out, out
    assert NOTE in out and "expm1.ptx:71" in out


def test_an_inf_where_expm1f_overflows_anyway_is_equivalent(capsys):
    rc, out = _check("expm1_inf_above_100", capsys)
    assert rc == 0 and "EQUIVALENT" in out and "NOT" not in out, out


def test_an_inf_that_is_no_overflow_is_unsupported(capsys):
    rc, out = _check("expm1_inf_above_10", capsys)
    assert rc == 3, out
    assert "UNSUPPORTED" in out and "a data-dependent choice involving an infinite value" in out
    assert "expm1.ptx:353" in out and "selp.f32" in out


def test_expf_minus_one_is_another_polynomial_over_the_reals(capsys):
    """expf(x) - 1 and expm1f(x) agree in floats to a few ulps, but not over the reals (their reductions and
    polynomials differ): NOT EQUIVALENT, with a witness, not a wrong EQUIVALENT."""
    rc, out = _check("expf_minus_one", capsys)
    assert rc == 1 and "NOT EQUIVALENT: y[0] differs" in out, out


@pytest.mark.parametrize("k, negated, sign, proved", [
    (129, False, 1, True),    # rint(x) > 128 -> 2^rint(x) >= 2^128 (integrality of rint, monotonicity of 2^z)
    (128, False, 1, True),    # rint(x) > 127: rint(x) >= 128, 2^rint(x) >= 2^128
    (127, False, 1, False),   # rint(x) > 126 admits rint(x) = 127: 2^127 is a finite f32
    (129, True, -1, True),    # -2^rint(x) <= -2^128
    (129, False, -1, False),  # 2^rint(x) is positive: never <= -2^128
])
def test_the_overflow_proof(k, negated, sign, proved):
    x = E.var("x", 0)
    j = E.rint(x, ".rni")
    cond = E.lt(E.const(k - 1), j)
    other = E.neg(E.exp2(j)) if negated else E.exp2(j)
    assert proves_overflow(cond, other, sign, E.const(2).data ** 128) is proved
