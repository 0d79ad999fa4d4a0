"""Struct arguments bound: `{x,y,1024}` (fields in order) or `{0:x,8:y,16:1024:u32}` (by byte offset), as
volta/launch/args.py reads them into a `Struct`.

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

from dataclasses import dataclass

import numpy as np

from volta.errors import Unsupported, UsageError
from volta.launch.args import NULL, WIDTHS, Field, Name, Number, Struct
from volta.semantics.bits import from_float

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")


def _pointer(value, buffers: dict) -> bool:
    """Is this field value a pointer: a declared buffer, or null?"""
    return isinstance(value, Name) and not value.offset and (value.name in buffers or value.name == NULL)


def _symbol(value, symbols: dict) -> bool:
    return isinstance(value, Name) and not value.offset and value.name in symbols


def place(fields: list, size: int, where: str, span, buffers: dict, symbols: dict) -> list:
    """Each field with its type and offset settled; overlapping fields or a struct past `size` bytes are errors."""
    placed, cursor = [], 0
    for k, f in enumerate(fields):
        ftype = f.type
        if _pointer(f.value, buffers):
            kind = "null" if f.value.name == NULL and f.value.name not in buffers else "buffer"
            if ftype not in (None, "ptr", "u64", "s64"):
                raise UsageError(f"{where}: field {k + 1} `{f.text}` is a pointer ({kind}), 8 bytes: drop `:{ftype}`",
                                 span)
            ftype = "ptr"
        elif _symbol(f.value, symbols):
            name = f.value.name
            if ftype not in (None, symbols[name]):
                raise UsageError(f"{where}: field {k + 1} `{f.text}`: symbol `{name}` has type {symbols[name]}, "
                                 f"not {ftype}", span)
            ftype = symbols[name]
        else:
            number = f.value.value if isinstance(f.value, Number) else None
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
    ftype = f.type
    if ftype == "ptr":
        return bytes(8)
    number = f.value.value
    if f.inferred and ftype == "s32" and read_type == ".f32":
        ftype = "f32"
    if ftype in FLOAT_TYPES:
        bits = int(from_float(np.array([float(number)]), "." + ftype)[0])
    else:
        bits = fit_scalar(f"`{pname}` field `{f.text}`", "." + ftype, str(f.value), number)
        bits &= (1 << (8 * f.width)) - 1
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
        elif t == "ptr" or _pointer(f.value, buffers):
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
    if not isinstance(entry, Struct):
        raise UsageError(f"parameter `{name}` is a struct passed by value ({size} bytes, .align {struct.align}): "
                         f"give its fields in braces, e.g. {{x,y,1024}} in order or {{0:x,8:y,16:1024:u32}} by "
                         f"byte offset; `{entry}` is not one", struct.span)
    fields = list(entry.fields)
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
        if not _pointer(f.value, buffers) and not _symbol(f.value, symbols):
            image[f.offset:f.offset + f.width] = _bytes(f, name, read_type.get(f.offset))
        owner[f.offset:f.offset + f.width] = [k] * f.width
    bound = [("scalar", 0)]
    if getattr(struct, "addressed", False):
        symbolic = [f for f in placed if _symbol(f.value, symbols)]
        if symbolic:
            raise Unsupported(f"struct parameter `{name}` has its address taken (its bytes are read through it) "
                              f"and field `{symbolic[0].text}` is a symbol: only concrete fields can be stored "
                              f"there", struct.span)
        pointers = tuple((f.offset, f.value.name if _pointer(f.value, buffers) and f.value.name in buffers else None)
                         for f in placed if f.type == "ptr")
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
        special = [placed[k] for k in fields if placed[k].type == "ptr" or _symbol(placed[k].value, symbols)]
        if special:
            f = special[0]
            if len(fields) > 1 or f.offset != lo or f.width != hi - lo or not s.exact:
                kind = "pointer" if f.type == "ptr" else f"symbol ({f.type})"
                raise UsageError(f"{what}, which does not match field `{f.text}`, a {kind} of {f.width} bytes "
                                 f"at +{f.offset}: a {kind} field is read whole (fields: {_layout(placed)})", s.span)
            if _pointer(f.value, buffers) and f.value.name in buffers:
                bound.append(("buffer", buffers[f.value.name]))
            elif _symbol(f.value, symbols):
                bound.append(("symbol", f.value.name))
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
