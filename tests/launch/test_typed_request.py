"""The CLI's option strings and the Python API's typed values build the same launch spec (volta/launch/spec.py):
`parse_buffer`/`parse_dim3` only read text into the typed constructors `buffer`/`dim3` that volta.Buffer and
volta.Launch call directly, so the two front doors agree value for value and refuse the same things."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import volta
from volta.errors import UsageError
from volta.launch.args import Name
from volta.launch.spec import (DTYPES, ROLES, assemble, buffer, dim3, pair_from_options, parse_buffer, parse_dim3,
                               sequences_from_options)

INTEGER = [d for d in DTYPES if d[0] in "su"]
names = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(name=names, dtype=st.sampled_from(sorted(DTYPES)), count=st.integers(1, 1 << 20),
       role=st.sampled_from(ROLES))
def test_a_buffer_option_and_a_volta_buffer_are_one_buffer(name, dtype, count, role):
    typed = volta.Buffer(name, dtype, count, role).declared()
    assert typed == parse_buffer(f"{name}={dtype}[{count}]:{role}")
    assert typed == buffer(name, dtype, count, role, where="test")


@settings(max_examples=200, deadline=None)
@given(dtype=st.sampled_from(INTEGER), role=st.sampled_from(ROLES), lo=st.integers(-300, 300),
       span=st.integers(-5, 300))
def test_a_range_is_accepted_or_refused_alike(dtype, role, lo, span):
    hi = lo + span
    try:
        expected = parse_buffer(f"ids={dtype}[8]:{role}:range={lo}..{hi}")
    except UsageError as err:
        reason = err.message.partition("`: ")[2]
        with pytest.raises(UsageError) as typed_err:
            volta.Buffer("ids", dtype, 8, role, range=(lo, hi))
        assert typed_err.value.message.endswith(reason)
        return
    assert volta.Buffer("ids", dtype, 8, role, range=(lo, hi)).declared() == expected


@settings(max_examples=200, deadline=None)
@given(dims=st.lists(st.integers(0, 70_000), min_size=1, max_size=3), what=st.sampled_from(["grid", "block"]))
def test_a_dimension_text_and_a_tuple_are_one_dim3(dims, what):
    text = "x".join(map(str, dims))
    try:
        expected = parse_dim3(text, what)
    except UsageError as err:
        with pytest.raises(UsageError) as typed_err:
            dim3(dims, what)
        assert typed_err.value.message == err.message
        return
    assert dim3(dims, what) == expected
    if what == "grid":
        assert volta.Launch(tuple(dims), 1).kernel_launch(Path("k.ptx")).grid == expected


def test_assemble_refuses_what_the_option_parsers_refuse():
    x = buffer("x", "f32", 4, "in", where="x")
    with pytest.raises(UsageError, match="declared twice"):
        assemble({}, [x, x], {})
    with pytest.raises(UsageError, match="has the name of a buffer"):
        assemble({}, [x], {"x": "f32"}, symbols_apart=True)
    with pytest.raises(UsageError, match="expected NAME=f32"):
        assemble({}, [x], {"alpha": "f33"})
    with pytest.raises(UsageError, match="needs a role"):
        pair_from_options("a.ptx", "b.ptx", ["x=f32[4]"], grid="1", block="1")


def test_a_sequence_of_launches_and_steps_is_assembled_in_order():
    spec = sequences_from_options([("launch", "a.ptx grid=1 block=32 args=x,y")],
                                  [("step", "memset y 0"), ("launch", "b.ptx:k grid=2 block=32 args=x,y")],
                                  ["x=f32[64]:in", "y=f32[64]:out"])
    assert "ref" not in spec.sequences and spec.launches["ref"].ptx == Path("a.ptx")
    host, launch = spec.sequences["opt"]
    assert host.host == "memset y 0" and spec.launches["opt"] == host
    assert (launch.kernel, str(launch.grid), launch.args) == ("k", "2", (Name("x"), Name("y")))


@pytest.mark.parametrize("spelled, ptx", [("i32", "s32"), ("int64", "s64"), ("uint8", "u8"), ("float32", "f32"),
                                          ("half", "f16"), ("bfloat16", "bf16")])
def test_a_dtype_spelled_as_numpy_or_c_names_ptxs_spelling(spelled, ptx):
    assert ptx in DTYPES
    for attempt in (lambda: parse_buffer(f"x={spelled}[4]:in"), lambda: volta.Buffer("x", spelled, 4, "in")):
        with pytest.raises(UsageError) as err:
            attempt()
        assert f"unknown dtype `{spelled}`; `{ptx}` is PTX's name for it" in err.value.message
