"""Field types of a struct kernel parameter, read from the CUDA source's kernel signature (best effort).

When the launch knows its `.cu` (a manifest's `cuda =` key, or a `.cu` input compiled by nvcc), a positional
struct argument `{x,y,1024}` takes each field's declared type (`long n` is 8 bytes, `double` an f64) and must
give every field. Only plain C structs are read: fields of scalar, pointer and the types below, one declarator
list per `;`. Anything else (templates, arrays, vector types, nested structs, unions, bit-fields) returns None
and the explicit layout rule of volta/launch/structargs.py applies, whose check against the kernel's reads stays.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

# C type words (const/volatile removed, words sorted) -> structargs type
C_TYPES = {
    "int": "s32", "signed": "s32", "int signed": "s32", "unsigned": "u32", "int unsigned": "u32",
    "int32_t": "s32", "uint32_t": "u32", "float": "f32", "double": "f64", "long": "s64", "int long": "s64",
    "long long": "s64", "int long long": "s64", "long unsigned": "u64", "long long unsigned": "u64",
    "int long long unsigned": "u64", "int long unsigned": "u64", "int64_t": "s64", "uint64_t": "u64",
    "size_t": "u64", "ptrdiff_t": "s64", "short": "s16", "int short": "s16", "short unsigned": "u16",
    "int short unsigned": "u16", "int16_t": "s16", "uint16_t": "u16", "char": "s8", "char signed": "s8",
    "char unsigned": "u8", "int8_t": "s8", "uint8_t": "u8", "bool": "u8", "__half": "f16", "half": "f16",
    "__nv_bfloat16": "bf16",
}
QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct"}


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def _field_type(words: list) -> str | None:
    if "*" in "".join(words):
        return "ptr"
    key = " ".join(sorted(w for w in words if w not in QUALIFIERS))
    return C_TYPES.get(key)


@lru_cache(maxsize=64)
def _source(path: str, mtime: float) -> str:
    return _strip_comments(Path(path).read_text(errors="replace"))


def struct_fields(cu: Path | str | None, kernel: str, index: int) -> list | None:
    """[(field name, type)] of parameter `index` of `__global__` kernel `kernel` in `cu`, or None when unknown."""
    if cu is None or not Path(cu).is_file():
        return None
    text = _source(str(cu), Path(cu).stat().st_mtime)
    m = re.search(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?"
                  + re.escape(kernel) + r"\s*\(([^)]*)\)", text)
    if m is None:
        return None
    params = [p.strip() for p in m.group(1).split(",")]
    if index >= len(params):
        return None
    words = re.findall(r"[A-Za-z_]\w*|\*", params[index])
    names = [w for w in words[:-1] if w not in QUALIFIERS]  # the last word is the parameter's name
    if len(names) != 1 or "*" in names:
        return None
    body = _struct_body(text, names[0])
    if body is None:
        return None
    fields = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        if re.search(r"[\[\]():{}<>=]", decl):
            return None  # arrays, bit-fields, methods, templates, initializers: not read here
        parts = [p.strip() for p in decl.split(",")]
        head = re.findall(r"[A-Za-z_]\w*|\*", parts[0])
        if len(head) < 2:
            return None
        base = [w for w in head[:-1] if w != "*"]
        for part in parts:
            toks = re.findall(r"[A-Za-z_]\w*|\*", part)
            t = "ptr" if "*" in toks[:-1] else _field_type(base)
            name = toks[-1] if toks else ""
            if t is None:
                return None
            fields.append((name, t))
    return fields or None


def _struct_body(text: str, name: str) -> str | None:
    m = re.search(r"\bstruct\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?" + re.escape(name) + r"\s*\{([^{}]*)\}", text)
    if m is None:
        m = re.search(r"\btypedef\s+struct\s*\w*\s*\{([^{}]*)\}\s*" + re.escape(name) + r"\s*;", text)
    return m.group(1) if m else None
