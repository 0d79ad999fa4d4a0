"""Soundness of the named-constant reading (volta/symbolic/constants.py) through `volta check`: a literal one ulp
away from a table word is no constant, so a kernel using it is NOT EQUIVALENT to the one using the constant (with
a witness that exact replay confirms), for every row of the table; the reading never makes two different words
one; and --exact-constants keeps every literal the rational it is."""
from __future__ import annotations

import json

import pytest

from volta.cli import run
from volta.symbolic import constants as C

HEAD = """.version 8.0
.target sm_80
.address_size 64
"""

ENTRY = """.visible .entry {name}(.param .u64 px, .param .u64 py)
{{
    .reg .b32 %r<2>;
    .reg .f32 %f<4>;
    .reg .f64 %fd<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [py];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, {size};
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
{body}
    ret;
}}
"""

# y = f(x) with the literal `{c}`: a product, and 2^(x·c) (how __expf and Triton's exp use log2 e)
F32_BODIES = {
    "mul": "    ld.global.f32 %f1, [%rd6];\n    mul.f32 %f2, %f1, {c};\n    st.global.f32 [%rd7], %f2;",
    "ex2": "    ld.global.f32 %f1, [%rd6];\n    mul.f32 %f2, %f1, {c};\n    ex2.approx.f32 %f3, %f2;\n"
           "    st.global.f32 [%rd7], %f3;",
}
F64_BODY = "    ld.global.f64 %fd1, [%rd6];\n    mul.f64 %fd2, %fd1, {c};\n    st.global.f64 [%rd7], %fd2;"


def _ptx(tmp_path, kernels: dict, size: int = 4):
    path = tmp_path / "k.ptx"
    path.write_text(HEAD + "".join(ENTRY.format(name=n, size=size, body=b) for n, b in kernels.items()))
    return str(path)


def _check(capsys, ptx, dtype, *extra):
    code = run(["check", ptx, ptx, "--ref-kernel", "ref", "--opt-kernel", "opt", "--grid", "1", "--block", "4",
                "--args", "x,y", "--buffer", f"x={dtype}[4]:in", "--buffer", f"y={dtype}[4]:out", "-q", "--json",
                *extra])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("row", C.TABLE, ids=lambda r: r.name)
@pytest.mark.parametrize("ulp", [1, -1])
def test_a_word_one_ulp_off_is_not_equivalent_to_the_constant(row, ulp, tmp_path, capsys):
    body = F32_BODIES["ex2" if row.name == "log2 e" else "mul"]
    ptx = _ptx(tmp_path, {"ref": body.format(c=f"0f{row.f32:08X}"), "opt": body.format(c=f"0f{row.f32 + ulp:08X}")})
    code, data = _check(capsys, ptx, "f32")
    assert code == 1 and data["verdict"] == "not-equivalent", data
    cex = data["counterexample"]
    assert cex["ref_value"] != cex["opt_value"] and cex["relative_difference"] > 0
    assert [c["name"] for c in data["constants"]] == [row.name] and data["constants"][0]["roles"] == ["ref"]


@pytest.mark.parametrize("row", C.TABLE[::4], ids=lambda r: r.name)
def test_an_f64_word_one_ulp_off_is_not_equivalent(row, tmp_path, capsys):
    ptx = _ptx(tmp_path, {"ref": F64_BODY.format(c=f"0d{row.f64:016X}"), "opt": F64_BODY.format(c=f"0d{row.f64 + 1:016X}")},
               size=8)
    code, data = _check(capsys, ptx, "f64")
    assert code == 1 and data["verdict"] == "not-equivalent", data


def test_the_same_constant_two_ways_is_equivalent_and_exact_constants_separates_them(tmp_path, capsys):
    """x·RN(π) and (x·RN(π/2))·2 are π·x both; as rationals they are too (2^k scaling is exact), so that pair
    stays EQUIVALENT either way. RN(log2 e)·x against its hi/lo split is equal only under the reading."""
    twice = ("    ld.global.f32 %f1, [%rd6];\n    mul.f32 %f2, %f1, 0f3FC90FDB;\n    add.f32 %f3, %f2, %f2;\n"
             "    st.global.f32 [%rd7], %f3;")
    ptx = _ptx(tmp_path, {"ref": F32_BODIES["mul"].format(c="0f40490FDB"), "opt": twice})
    assert _check(capsys, ptx, "f32")[0] == 0
    split = ("    ld.global.f32 %f1, [%rd6];\n    mul.f32 %f2, %f1, 0f3FB8AA3B;\n    fma.rn.f32 %f3, %f1, 0f32A57060, %f2;\n"
             "    ex2.approx.f32 %f3, %f3;\n    st.global.f32 [%rd7], %f3;")
    ptx = _ptx(tmp_path, {"ref": F32_BODIES["ex2"].format(c="0f3FB8AA3B"), "opt": split})
    code, data = _check(capsys, ptx, "f32")
    assert code == 0 and data["constants"][0]["literals"] == ["0f3FB8AA3B", "lo 0f32A57060"], data
    code, data = _check(capsys, ptx, "f32", "--exact-constants")
    assert code == 1 and data["verdict"] == "not-equivalent" and data["constants"] == []


def test_a_lo_word_alone_is_the_number_it_is(tmp_path, capsys):
    """Without its hi word a lo word is no correction: x·lo is not 0."""
    zero = "    ld.global.f32 %f1, [%rd6];\n    mul.f32 %f2, %f1, 0f00000000;\n    st.global.f32 [%rd7], %f2;"
    ptx = _ptx(tmp_path, {"ref": F32_BODIES["mul"].format(c="0f32A57060"), "opt": zero})
    code, data = _check(capsys, ptx, "f32")
    assert code == 1 and data["verdict"] == "not-equivalent", data


@pytest.mark.parametrize("row", C.TABLE[1::5], ids=lambda r: r.name)
def test_two_kernels_one_ulp_off_either_side_are_not_equivalent(row, tmp_path, capsys):
    """Neither word is RN(c), so neither is read as c: the two literals stay the two rationals they are, and
    the witness, saved as .npz and replayed through the CLI, gives the same two values again."""
    body = F32_BODIES["mul"]
    ptx = _ptx(tmp_path, {"ref": body.format(c=f"0f{row.f32 - 1:08X}"), "opt": body.format(c=f"0f{row.f32 + 1:08X}")})
    saved = tmp_path / "cex.npz"
    code, data = _check(capsys, ptx, "f32", "--save-counterexample", str(saved))
    assert code == 1 and data["verdict"] == "not-equivalent" and data["constants"] == [], data
    cex = data["counterexample"]
    code, again = _check(capsys, ptx, "f32", "--replay", str(saved))
    assert code == 1, again
    assert (again["ref_value"], again["opt_value"]) == (cex["ref_value"], cex["opt_value"]), (again, cex)


def test_a_split_whose_lo_word_is_one_ulp_off_is_not_the_constant(tmp_path, capsys):
    """libdevice's split with lo + 1 ulp: the hi word is log2 e, but the lo word is no table word, so it is the
    rational it is and x·(log2 e + lo') is not x·log2 e; the difference is confirmed by certified enclosures."""
    split = ("    ld.global.f32 %f1, [%rd6];\n    mul.f32 %f2, %f1, 0f3FB8AA3B;\n    fma.rn.f32 %f3, %f1, 0f32A57061, %f2;\n"
             "    ex2.approx.f32 %f3, %f3;\n    st.global.f32 [%rd7], %f3;")
    ptx = _ptx(tmp_path, {"ref": F32_BODIES["ex2"].format(c="0f3FB8AA3B"), "opt": split})
    code, data = _check(capsys, ptx, "f32")
    assert code == 1 and data["verdict"] == "not-equivalent", data
    assert data["constants"][0]["literals"] == ["0f3FB8AA3B"], data
