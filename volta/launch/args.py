"""A kernel's arguments as typed values, read once where a front end meets them.

`--args x,x+256,3,{x,8:y,16:1024:u32}`, a manifest's `args = ["x", 3, ["x", "y"]]`, `volta.Launch(args=[...])`
and the launches the KernelBench and Triton front doors make all become a tuple of these, held by
`KernelLaunch.args`; binding (`spec.bind_args`, `structargs.bind_struct`) reads them against the kernel's
parameters and never parses text. Each value keeps how it was written, for messages and for a command line that
re-creates a launch (`str(arg)`).

- `Name`: a declared buffer or `--symbol` by name (which one is known only against the spec's declarations);
  `offset` bytes into a buffer for `x+256` (`x.data_ptr() + 64` for floats, as host code passes a view).
- `Number`: an integer (decimal or 0x hex) or a float (`1.5`, `1e-5`, `inf`, `nan`), its spelling kept.
- `Struct`: a struct passed by value, its `Field`s in order: `VALUE`, `VALUE:TYPE` or `OFFSET:VALUE[:TYPE]`,
  each VALUE a `Name` (`null` among them: a null pointer) or a `Number` (volta/launch/structargs.py lays them out).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from volta.errors import UsageError

WIDTHS = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8,
          "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "ptr": 8}
NULL = "null"  # a struct field's null pointer


@dataclass(frozen=True)
class Name:
    """A buffer or a symbol; `offset` bytes into a buffer (`x+256`)."""

    name: str
    offset: int = 0

    def __str__(self) -> str:
        return f"{self.name}+{self.offset}" if self.offset else self.name


@dataclass(frozen=True)
class Number:
    """A scalar given as a number; `text` is how it was written (messages name it so)."""

    value: int | float
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Field:
    """One field of a struct argument as written, and (once laid out, structargs.place) where it went."""

    text: str  # as written, for messages
    value: Name | Number  # a buffer or symbol (`null`: a null pointer), or a number
    type: str | None  # WIDTHS key, or None: from the value
    offset: int | None = None  # bytes from the struct's start; None: the next naturally aligned offset
    inferred: bool = False  # the type came from the value (an untyped number), not from a :TYPE

    @property
    def width(self) -> int:
        return WIDTHS[self.type]

    @staticmethod
    def of(value: Name | Number, type: str | None = None, offset: int | None = None) -> Field:
        """A field given as values, its text spelled as the launch language writes it."""
        return Field(":".join(str(x) for x in (offset, value, type) if x is not None), value, type, offset)


@dataclass(frozen=True)
class Struct:
    """A struct argument: its fields in order, and its text (`{x,8:y}`)."""

    fields: tuple
    text: str

    def __str__(self) -> str:
        return self.text

    @staticmethod
    def of(fields) -> Struct:
        fields = tuple(fields)
        return Struct(fields, "{" + ",".join(f.text for f in fields) + "}")


Arg = Name | Number | Struct


def number(text: str) -> int | float | None:
    """The number `text` spells (an int, 0x hex included, or a float), else None."""
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def scalar(text: str) -> Name | Number:
    """One plain entry: a number, else a name (`x`, or `x+256`: a pointer 256 bytes into buffer x). A name that
    is neither a declared buffer nor a symbol is an error of binding, which knows the parameter it was for."""
    text = text.strip()
    value = number(text)
    if value is not None and (not text.isidentifier() or isinstance(value, float) and not math.isfinite(value)):
        return Number(value, text)
    name, plus, offset = text.partition("+")
    if plus and offset.strip().isdigit():
        return Name(name.strip(), int(offset))
    return Name(text)


def entry(text: str, where: str = "--args") -> Arg:
    """One `--args` entry: a struct `{…}` or a plain entry."""
    text = str(text).strip()
    return struct(text, f"{where} entry `{text}`") if text.startswith("{") else scalar(text)


def entries(text: str, where: str = "--args") -> tuple:
    """`x,{a,b,1024},3` -> (Name('x'), Struct(…), Number(3, '3')); an empty text is no arguments."""
    return tuple(entry(t, where) for t in split_entries(text, where)) if str(text).strip() else ()


def of(value, where: str = "--args") -> Arg:
    """An argument given as a Python value: an Arg as it is, an int or float as a Number, a string as an entry."""
    if isinstance(value, (Name, Number, Struct)):
        return value
    if isinstance(value, bool):
        raise UsageError(f"kernel argument {value!r}: pass an int (0 or 1), not a bool")
    if isinstance(value, (int, float)):
        return Number(value, repr(value))
    if isinstance(value, str):
        return entry(value, where)
    raise UsageError(f"kernel argument {value!r}: expected a buffer or symbol name, or a number")


def split_entries(text: str, what: str = "--args") -> tuple:
    """`x,{a,b,1},3` → ('x', '{a,b,1}', '3'): commas inside braces belong to the struct entry."""
    out, depth, cur = [], 0, []
    for ch in str(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise UsageError(f"bad {what} `{text}`: a `}}` closes no `{{`")
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise UsageError(f"bad {what} `{text}`: a `{{` is never closed (a struct argument is {{FIELD,FIELD,...}})")
    out.append("".join(cur).strip())
    return tuple(out)


def struct(text: str, where: str) -> Struct:
    """The fields of `{…}`: each `VALUE`, `VALUE:TYPE`, `OFFSET:VALUE` or `OFFSET:VALUE:TYPE`; `where` opens
    every message."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise UsageError(f"{where}: `{text}` is not a struct argument {{FIELD,FIELD,...}}")
    inner = body[1:-1].strip()
    if not inner:
        raise UsageError(f"{where}: `{text}` has no fields")
    return Struct(tuple(_field(t, text, where) for t in split_entries(inner, where)), body)


def _field(text: str, entry_text: str, where: str) -> Field:
    if "{" in text:
        raise UsageError(f"{where}: nested struct `{text}` in `{entry_text}`: give the inner struct's fields "
                         f"by offset (OFFSET:VALUE) in the outer one")
    parts = [p.strip() for p in text.split(":")]
    if not text or any(not p for p in parts) or len(parts) > 3:
        raise UsageError(f"{where}: bad field `{text}` in `{entry_text}`: expected VALUE, VALUE:TYPE, OFFSET:VALUE "
                         f"or OFFSET:VALUE:TYPE (TYPE one of {', '.join(WIDTHS)})")
    offset = None
    maybe_type = parts[-1] if len(parts) == 3 else (parts[1] if len(parts) == 2 else "")
    if maybe_type not in WIDTHS and re.fullmatch(r"(u|s|f|b|bf)\d+", maybe_type):
        raise UsageError(f"{where}: field `{text}` in `{entry_text}`: unknown type `{maybe_type}` "
                         f"(known: {', '.join(WIDTHS)})")
    if len(parts) == 3 or (len(parts) == 2 and parts[1] not in WIDTHS):
        try:
            offset = int(parts[0], 0)
        except ValueError:
            raise UsageError(f"{where}: field `{text}` in `{entry_text}`: `{parts[0]}` is not a byte offset "
                             f"(and `{parts[1]}` is not a type: {', '.join(WIDTHS)})") from None
        if offset < 0:
            raise UsageError(f"{where}: field `{text}` in `{entry_text}` has a negative offset")
        parts = parts[1:]
    ftype = parts[1] if len(parts) == 2 else None
    if ftype is not None and ftype not in WIDTHS:
        raise UsageError(f"{where}: field `{text}` in `{entry_text}`: unknown type `{ftype}` "
                         f"(known: {', '.join(WIDTHS)})")
    return Field(text, scalar(parts[0]), ftype, offset)


def names(arg: Arg) -> list:
    """The buffer and symbol names an argument mentions (a struct's fields' too; `null` is none)."""
    if isinstance(arg, Struct):
        return [f.value.name for f in arg.fields if isinstance(f.value, Name) and f.value.name != NULL]
    return [arg.name] if isinstance(arg, Name) else []


def with_numbers(arg: Arg, values: dict, types: dict) -> Arg:
    """`arg` with every name in `values` (name -> Number) given as that number, inside structs too; a symbol's
    struct field keeps its symbol's width (`{x,alpha}` with alpha an f64 becomes `{x,0.5:f64}`)."""
    if isinstance(arg, Name):
        return values.get(arg.name, arg) if not arg.offset else arg
    if not isinstance(arg, Struct):
        return arg
    fields = []
    for f in arg.fields:
        if isinstance(f.value, Name) and not f.value.offset and f.value.name in values:
            f = Field.of(values[f.value.name], f.type or types.get(f.value.name), f.offset)
        fields.append(f)
    return Struct.of(fields)


def with_scalars(args: tuple, scalars: dict) -> tuple:
    """Arguments naming a symbol in `scalars` (name -> number) given that number instead: a concrete run of a
    launch whose scalars are symbolic (the bit comparisons of volta/equiv)."""
    return tuple(Number(scalars[a.name], repr(scalars[a.name]))
                 if isinstance(a, Name) and not a.offset and a.name in scalars else a for a in args)
