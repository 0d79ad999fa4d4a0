"""Struct arguments in `--args`: `{x,y,1024}` (fields in order) or `{0:x,8:y,16:1024:u32}` (by byte offset).

A struct parameter (`.param .align 8 .b8 k_param_0[24]`) arrives split into the slices the kernel reads
(`volta.ir.structparams`). This module lays the user's fields out as C does, builds the struct's bytes, and gives
each slice what a plain parameter would get: a buffer, a symbol, or the number its bytes spell. The layout rule:

- a field is `VALUE`, `VALUE:TYPE` or `OFFSET:VALUE[:TYPE]`; without an offset it goes at the next offset aligned
  to its own size (C's natural alignment, as nvcc lays out `struct {float* in; float* out; int n;}`);
- a buffer name (or `null`) is an 8-byte pointer; a `--symbol` has its float type; an integer is 4 bytes (`int`)
  and a number with a point or exponent 4 bytes (`float`), unless a TYPE says otherwise (u8 … s64, f16, bf16,
  f32, f64, or `ptr`); an untyped integer the kernel reads with a float load is that float, as for a scalar;
- the kernel's reads are then checked against the fields: a read of bytes no field gives, of part of a pointer,
  or past the declared size is an error naming the parameter and where, so a wrong guess never runs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from volta.errors import Span, Unsupported, UsageError
from volta.semantics.bits import from_float

WIDTHS = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8,
          "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "ptr": 8}
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
NULL = "null"


@dataclass(frozen=True)
class Field:
    """One field of a struct argument as written, and where it went."""

    text: str  # as written, for messages
    value: str  # buffer or symbol name, `null`, or a number
    type: str | None  # WIDTHS key, or None: from the value
    offset: int | None = None  # bytes from the struct's start; None: the next naturally aligned offset
    inferred: bool = False  # the type came from the value (an untyped number), not from a :TYPE

    @property
    def width(self) -> int:
        return WIDTHS[self.type]


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


def is_struct_entry(entry) -> bool:
    return isinstance(entry, str) and entry.strip().startswith("{")


def parse_fields(entry: str, where: str, span: Span | None) -> list:
    """The fields of `{…}`: each `VALUE`, `VALUE:TYPE`, `OFFSET:VALUE` or `OFFSET:VALUE:TYPE`."""
    body = entry.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise UsageError(f"{where}: `{entry}` is not a struct argument {{FIELD,FIELD,...}}", span)
    inner = body[1:-1].strip()
    if not inner:
        raise UsageError(f"{where}: `{entry}` has no fields", span)
    fields = []
    for text in split_entries(inner, where):
        if "{" in text:
            raise UsageError(f"{where}: nested struct `{text}` in `{entry}`: give the inner struct's fields "
                             f"by offset (OFFSET:VALUE) in the outer one", span)
        parts = [p.strip() for p in text.split(":")]
        if not text or any(not p for p in parts) or len(parts) > 3:
            raise UsageError(f"{where}: bad field `{text}` in `{entry}`: expected VALUE, VALUE:TYPE, OFFSET:VALUE "
                             f"or OFFSET:VALUE:TYPE (TYPE one of {', '.join(WIDTHS)})", span)
        offset = None
        maybe_type = parts[-1] if len(parts) == 3 else (parts[1] if len(parts) == 2 else "")
        if maybe_type not in WIDTHS and re.fullmatch(r"(u|s|f|b|bf)\d+", maybe_type):
            raise UsageError(f"{where}: field `{text}` in `{entry}`: unknown type `{maybe_type}` "
                             f"(known: {', '.join(WIDTHS)})", span)
        if len(parts) == 3 or (len(parts) == 2 and parts[1] not in WIDTHS):
            try:
                offset = int(parts[0], 0)
            except ValueError:
                raise UsageError(f"{where}: field `{text}` in `{entry}`: `{parts[0]}` is not a byte offset "
                                 f"(and `{parts[1]}` is not a type: {', '.join(WIDTHS)})", span) from None
            if offset < 0:
                raise UsageError(f"{where}: field `{text}` in `{entry}` has a negative offset", span)
            parts = parts[1:]
        ftype = parts[1] if len(parts) == 2 else None
        if ftype is not None and ftype not in WIDTHS:
            raise UsageError(f"{where}: field `{text}` in `{entry}`: unknown type `{ftype}` "
                             f"(known: {', '.join(WIDTHS)})", span)
        fields.append(Field(text, parts[0], ftype, offset))
    return fields


def _number(text: str):
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def place(fields: list, size: int, where: str, span, buffers: dict, symbols: dict) -> list:
    """Each field with its type and offset settled; overlapping fields or a struct past `size` bytes are errors."""
    placed, cursor = [], 0
    for k, f in enumerate(fields):
        ftype = f.type
        if f.value in buffers or f.value == NULL:
            if ftype not in (None, "ptr", "u64", "s64"):
                raise UsageError(f"{where}: field {k + 1} `{f.text}` is a pointer ({'null' if f.value == NULL else 'buffer'}), "
                                 f"8 bytes: drop `:{ftype}`", span)
            ftype = "ptr"
        elif f.value in symbols:
            if ftype not in (None, symbols[f.value]):
                raise UsageError(f"{where}: field {k + 1} `{f.text}`: symbol `{f.value}` has type {symbols[f.value]}, "
                                 f"not {ftype}", span)
            ftype = symbols[f.value]
        else:
            number = _number(f.value)
            if number is None:
                raise UsageError(f"{where}: field {k + 1} `{f.text}` is neither a declared buffer, a --symbol, "
                                 f"`null`, nor a number", span)
            if ftype == "ptr":
                if number != 0:
                    raise UsageError(f"{where}: field {k + 1} `{f.text}`: a pointer field takes a --buffer name "
                                     f"or null", span)
            elif ftype is None:
                ftype = "s32" if isinstance(number, int) else "f32"
            elif ftype not in FLOAT_TYPES and isinstance(number, float) and not number.is_integer():
                raise UsageError(f"{where}: field {k + 1} `{f.text}` is not an integer, but its type is {ftype}", span)
        width = WIDTHS[ftype]
        offset = f.offset if f.offset is not None else -(-cursor // width) * width
        g = Field(f.text, f.value, ftype, offset, f.type is None)
        if offset + width > size:
            raise UsageError(f"{where}: field {k + 1} `{f.text}` ({ftype}, {width} bytes at +{offset}) ends at byte "
                             f"{offset + width}, past the parameter's declared {size} bytes ({_layout(placed + [g])})",
                             span)
        for j, h in enumerate(placed):
            if offset < h.offset + h.width and h.offset < offset + width:
                raise UsageError(f"{where}: field {k + 1} `{f.text}` ({width} bytes at +{offset}) overlaps field "
                                 f"{j + 1} `{h.text}` ({h.width} bytes at +{h.offset})", span)
        placed.append(g)
        cursor = offset + width
    return placed


def _layout(placed) -> str:
    return ", ".join(f"+{f.offset} {f.value} ({f.type})" for f in placed)


def _bytes(f: Field, pname: str, read_type: str | None) -> bytes:
    """The little-endian bytes of a number field; an untyped integer the kernel reads as a float is that float."""
    number, ftype = _number(f.value), f.type
    if ftype == "ptr":
        return bytes(8)
    if f.inferred and ftype == "s32" and read_type == ".f32":
        ftype = "f32"
    if ftype in FLOAT_TYPES:
        bits = int(from_float(np.array([float(number)]), "." + ftype)[0])
    else:
        bits = fit_scalar(f"`{pname}` field `{f.text}`", "." + ftype, f.value, number) & ((1 << (8 * f.width)) - 1)
    return bits.to_bytes(f.width, "little")


def _declared_types(fields: list, declared: list, where: str, span, buffers: dict) -> list:
    """Positional fields typed from the CUDA source's struct (`declared`: [(name, type)]); the count must match."""
    if len(fields) != len(declared):
        raise UsageError(f"{where}: the CUDA source declares {len(declared)} fields "
                         f"({', '.join(f'{t} {n}' for n, t in declared)}) but the entry gives {len(fields)}", span)
    out = []
    for f, (fname, t) in zip(fields, declared):
        if f.type is not None:
            out.append(f)
        elif t == "ptr" or f.value in buffers or f.value == NULL:
            if t != "ptr":
                raise UsageError(f"{where}: field `{fname}` is a {t} in the CUDA source, but `{f.value}` is a "
                                 f"pointer", span)
            out.append(f)
        else:
            out.append(Field(f.text, f.value, t, f.offset))
    return out


@dataclass(frozen=True)
class StructImage:
    """The bytes of a struct parameter whose address the kernel takes (`StructParam.addressed`): number fields
    as laid out; each pointer field (offset -> buffer name, None for null) is filled with its buffer's
    address by the machine that places the buffers."""

    data: bytes
    pointers: tuple  # ((offset, buffer name | None), ...)


def bind_struct(struct, slices: list, entry, buffers: dict, symbols: dict, declared: list | None = None) -> list:
    """The bindings of the struct parameter (never read: a 0; `("struct", StructImage)` when its address is
    taken) and of each slice, in order.

    `declared` ([(name, type)] from the CUDA source, volta/launch/cudastruct.py) types the fields of a positional
    entry and fixes their number; an entry with offsets is taken as written."""
    name, _, size = struct
    where = f"--args entry `{entry}` for struct parameter `{name}` ({size} bytes, .align {struct.align})"
    if not is_struct_entry(entry):
        raise UsageError(f"parameter `{name}` is a struct passed by value ({size} bytes, .align {struct.align}): "
                         f"give its fields in braces, e.g. {{x,y,1024}} in order or {{0:x,8:y,16:1024:u32}} by "
                         f"byte offset; `{entry}` is not one", struct.span)
    fields = parse_fields(entry, where, struct.span)
    if declared and all(f.offset is None for f in fields):
        fields = _declared_types(fields, declared, where, struct.span, buffers)
    placed = place(fields, size, where, struct.span, buffers, symbols)
    if struct.refused is not None:
        reason, at = struct.refused
        raise Unsupported(reason, at)
    image, owner = bytearray(size), [-1] * size
    read_type = {}
    for s in slices:
        for off, _, t in s.elements:
            read_type[off] = t
    for k, f in enumerate(placed):
        if f.value not in buffers and f.value not in symbols:
            image[f.offset:f.offset + f.width] = _bytes(f, name, read_type.get(f.offset))
        owner[f.offset:f.offset + f.width] = [k] * f.width
    bound = [("scalar", 0)]
    if getattr(struct, "addressed", False):
        symbolic = [f for f in placed if f.value in symbols]
        if symbolic:
            raise Unsupported(f"struct parameter `{name}` has its address taken (its bytes are read through it) "
                              f"and field `{symbolic[0].text}` is a symbol: only concrete fields can be stored "
                              f"there", struct.span)
        pointers = tuple((f.offset, f.value if f.value in buffers else None) for f in placed if f.type == "ptr")
        bound = [("struct", StructImage(bytes(image), pointers))]
    for s in slices:
        lo, hi = s.offset, s.offset + s[2]
        what = f"the kernel reads {hi - lo} bytes at +{lo} of struct parameter `{name}`"
        if hi > size:
            raise UsageError(f"{what}, past its declared {size} bytes", s.span)
        fields = sorted({owner[b] for b in range(lo, hi)})
        if -1 in fields:
            gap = next(b for b in range(lo, hi) if owner[b] == -1)
            raise UsageError(f"{what}, but no field of {entry} gives byte +{gap} (fields: {_layout(placed)}); "
                             f"give the field there, with a :TYPE of the width the kernel reads or by offset "
                             f"(OFFSET:VALUE:TYPE)", s.span)
        special = [placed[k] for k in fields if placed[k].type == "ptr" or placed[k].value in symbols]
        if special:
            f = special[0]
            if len(fields) > 1 or f.offset != lo or f.width != hi - lo or not s.exact:
                kind = "pointer" if f.type == "ptr" else f"symbol ({f.type})"
                raise UsageError(f"{what}, which does not match field `{f.text}`, a {kind} of {f.width} bytes "
                                 f"at +{f.offset}: a {kind} field is read whole (fields: {_layout(placed)})", s.span)
            if f.value in buffers:
                bound.append(("buffer", buffers[f.value]))
            elif f.value in symbols:
                bound.append(("symbol", f.value))
            else:
                bound.append(("scalar", 0))  # null
            continue
        bound.append(("scalar", int.from_bytes(bytes(image[lo:hi]), "little")))
    return bound


def place_image(memory, name: str, size: int, image: StructImage, buffer_regions: dict) -> None:
    """The struct's bytes as a read-only region of the parameter state space named after it (so `mov %rd,
    name` is its address), pointer fields holding their buffers' addresses."""
    region = memory.add(name, ".param", size)
    data = bytearray(image.data)
    for offset, buffer in image.pointers:
        base = buffer_regions[buffer].base if buffer is not None else 0
        data[offset:offset + 8] = base.to_bytes(8, "little")
    region.data[0, :size] = np.frombuffer(bytes(data), np.uint8)


def _split_field(text: str) -> tuple:
    """(offset text or None, value, type or None) of one field, without checking them."""
    parts = [p.strip() for p in text.split(":")]
    offset = None
    if len(parts) == 3 or (len(parts) == 2 and parts[1] not in WIDTHS):
        offset, parts = parts[0], parts[1:]
    return offset, parts[0], parts[1] if len(parts) > 1 else None


def field_values(entry: str) -> list:
    """The VALUE of every field of a struct entry (buffer and symbol names among them)."""
    return [_split_field(t)[1] for t in split_entries(entry.strip()[1:-1])]


def substitute(entry, values: dict, types: dict):
    """`entry` with every name in `values` replaced by its number, inside struct entries too; a symbol field
    keeps its width (`{x,alpha}` with alpha an f64 becomes `{x,0.5:f64}`)."""
    if not is_struct_entry(entry):
        return values.get(entry, entry) if isinstance(entry, str) else entry
    fields = []
    for text in split_entries(entry.strip()[1:-1]):
        offset, value, ftype = _split_field(text)
        if value in values:
            value, ftype = values[value], ftype or types.get(value)
        fields.append(":".join(x for x in (offset, value, ftype) if x is not None))
    return "{" + ",".join(fields) + "}"


def fit_scalar(pname: str, ptype: str, text: str, number):
    """A numeric --args entry checked against its parameter's PTX type: an integer parameter takes an
    integer that fits its width (signed or unsigned)."""
    if ptype.startswith(".f"):
        return float(number) if ptype in (".f16", ".f32", ".f64") else number
    bits = {".u8": 8, ".s8": 8, ".b8": 8, ".u16": 16, ".s16": 16, ".b16": 16, ".u32": 32, ".s32": 32,
            ".b32": 32, ".u64": 64, ".s64": 64, ".b64": 64}.get(ptype)
    if bits is None:
        raise UsageError(f"parameter `{pname}` has type {ptype}, which takes no number from --args")
    if isinstance(number, float):
        if not number.is_integer():
            raise UsageError(f"--args entry `{text}` for parameter `{pname}` is not an integer, but `{pname}` "
                             f"has the integer type {ptype}")
        number = int(number)
    if not -(1 << (bits - 1)) <= number < (1 << bits):
        raise UsageError(f"--args entry `{text}` for parameter `{pname}` does not fit its type {ptype} "
                         f"({bits} bits)")
    return number
