"""Kernel arguments as typed values (volta/launch/args.py): what each spelling of `--args` reads as, that the
text it keeps spells the same value back, and that struct fields read as plain entries do."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from volta.errors import UsageError
from volta.launch import args
from volta.launch.args import Name, Number, Struct

names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda n: n.lower() not in ("inf", "nan", "infinity"))
integers = st.integers(-(1 << 63), (1 << 64) - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("text, arg", [
    ("x", Name("x")), ("x+256", Name("x", 256)), (" x + 8 ", Name("x", 8)), ("3", Number(3, "3")),
    ("0x10", Number(16, "0x10")), ("-1", Number(-1, "-1")), ("1.5", Number(1.5, "1.5")),
    ("1e+5", Number(1e5, "1e+5")), ("x+y", Name("x+y")), ("foo-bar", Name("foo-bar")),
])
def test_plain_entries(text, arg):
    assert args.entry(text) == arg


def test_float_specials_are_numbers():
    assert math.isinf(args.entry("inf").value) and math.isnan(args.entry("nan").value)


@given(st.lists(st.one_of(names, integers.map(str), floats.map(repr)), min_size=1, max_size=6))
def test_a_list_reads_entry_by_entry_and_spells_itself_back(items):
    read = args.entries(",".join(items))
    assert [str(a) for a in read] == items
    for item, arg in zip(items, read):
        expected = args.number(item)
        assert isinstance(arg, Name) if expected is None else arg.value == expected


@given(names, st.integers(0, 1 << 20))
def test_a_pointer_offset_is_a_name_with_bytes(name, offset):
    assert args.entry(f"{name}+{offset}") == Name(name, offset)


@given(st.lists(st.tuples(st.one_of(names, integers.map(str)), st.sampled_from([None, *args.WIDTHS])),
                min_size=1, max_size=5))
def test_struct_fields_read_as_their_values(fields):
    text = "{" + ",".join(v if t is None else f"{v}:{t}" for v, t in fields) + "}"
    struct = args.entry(text)
    assert isinstance(struct, Struct) and str(struct) == text
    assert [(f.value, f.type) for f in struct.fields] == [(args.scalar(v), t) for v, t in fields]
    assert args.Struct.of(struct.fields).text == text


def test_struct_fields_by_offset_and_the_names_an_argument_mentions():
    struct = args.entry("{0:x,8:null,16:alpha:f64,24:3:u32}")
    assert [f.offset for f in struct.fields] == [0, 8, 16, 24]
    assert args.names(struct) == ["x", "alpha"] and args.names(Name("y", 4)) == ["y"]
    assert args.names(Number(1, "1")) == []


def test_with_numbers_and_with_scalars():
    given = {"alpha": Number(0.5, "0.5")}
    assert args.with_numbers(Name("alpha"), given, {}) == Number(0.5, "0.5")
    assert args.with_numbers(Name("alpha", 4), given, {}) == Name("alpha", 4)   # a pointer into a buffer alpha
    assert args.with_scalars((Name("alpha"), Name("x"), Number(1, "1")), {"alpha": 2.0}) == \
        (Number(2.0, "2.0"), Name("x"), Number(1, "1"))


def test_python_values():
    assert args.of(3) == Number(3, "3") and args.of(2.5) == Number(2.5, "2.5") and args.of("x+4") == Name("x", 4)
    with pytest.raises(UsageError, match="not a bool"):
        args.of(True)
    with pytest.raises(UsageError, match="expected a buffer or symbol name"):
        args.of(object())


@pytest.mark.parametrize("text, says", [
    ("{x,out,128", "never closed"), ("x,out}", "closes no"), ("{x,,128}", "bad field"), ("{}", "no fields"),
    ("{x,out,128:u33}", "unknown type `u33`"), ("{x,{1}}", "nested struct"), ("{-8:x}", "negative offset"),
    ("{z:x:u32}", "not a byte offset"),
])
def test_malformed_entries(text, says):
    with pytest.raises(UsageError, match=says):
        args.entries(text)


@pytest.mark.parametrize("ptype, says", [(".f32", "--symbol lr=f32"), (".f64", "--symbol lr=f64"),
                                         (".u64", "--buffer lr=DTYPE[N]:ROLE"), (".u32", "nor a number")])
def test_an_unbound_name_says_how_to_declare_it(ptype, says):
    from volta.launch.spec import _bind_plain

    with pytest.raises(UsageError) as err:
        _bind_plain("p1", ptype, Name("lr"), {}, {})
    assert says in str(err.value) and str(err.value).endswith(says if ptype != ".u32" else "nor a number")
