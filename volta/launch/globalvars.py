"""Module-scope `.global` variables given a value for a launch: `--global MAX_KEY=32`.

A kernel may read a `__device__` variable that the host sets before the launch (`cudaMemcpyToSymbol`); its
value is then part of the launch, as a scalar argument is. `--global NAME=VALUE` (in a manifest launch table,
`globals = { NAME = VALUE }`) gives it: the variable starts holding VALUE in the type it is declared with —
known bytes, as the initializer it replaces would be, never tensor data, so branches and addresses may depend
on it. Only scalar variables are set this way. VALUE is an integer (decimal or 0x hex) that fits the declared
type, or a number for a floating-point variable. A name that no launched module declares as a module-scope
`.global` scalar is a usage error (`check_declared`), so a typo never leaves the variable silently zero.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

from volta.errors import UsageError
from volta.ir.program import type_size
from volta.ptx.parser import parse_file

_NAME = re.compile(r"[A-Za-z_$%][\w$]*")
_FLOATS = {".f16": np.float16, ".f32": np.float32, ".f64": np.float64}


def parse(text: str, where: str = "--global") -> tuple[str, str]:
    """`NAME=VALUE` -> (name, value text); the value is checked to be a number here, its fit to the
    variable's type when the module is read (`encode`)."""
    name, eq, value = str(text).partition("=")
    name, value = name.strip(), value.strip()
    if not eq or not _NAME.fullmatch(name) or not value:
        raise UsageError(f"bad {where} `{text}`: expected NAME=VALUE with a variable name and a number, "
                         f"e.g. MAX_KEY=32")
    if _number(value) is None:
        raise UsageError(f"bad {where} `{text}`: `{value}` is not a number (an integer such as 32 or 0x20, or a "
                         f"float such as 1.5)")
    return name, value


def given(name, value, where: str) -> tuple[str, int | float]:
    """A variable given as Python values (`globals={"MAX_KEY": 32}`), checked as `parse` checks its text:
    (name, number)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise UsageError(f"{where}: {name!r} is not a variable name")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{where}: {name}={value!r}: the value must be an int or a float")
    return name, value


def _number(value):
    if isinstance(value, (int, float)):   # given as a number (the Python API)
        return value
    try:
        return int(value, 0)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        return None


def encode(name: str, ptx_type: str, count: int, value: str) -> bytes:
    """The little-endian bytes of `value` as the scalar variable `name` (declared `ptx_type`, `count` elements)."""
    if count != 1:
        raise UsageError(f"--global {name}={value}: `{name}` is an array of {count} elements; --global sets a "
                         f"scalar variable")
    number = _number(value)
    if ptx_type in _FLOATS:
        return np.array([float(number)], _FLOATS[ptx_type]).tobytes()
    bits = int(ptx_type[2:]) if ptx_type[1:2] in "bsu" and ptx_type[2:].isdigit() else None
    if bits is None:
        raise UsageError(f"--global {name}={value}: `{name}` has type {ptx_type}; --global sets integer and "
                         f"floating-point variables")
    if not isinstance(number, int):
        raise UsageError(f"--global {name}={value}: `{name}` is {ptx_type}, so its value must be an integer")
    lo = -(1 << (bits - 1)) if ptx_type[1] == "s" else (-(1 << (bits - 1)) if ptx_type[1] == "b" else 0)
    hi = (1 << bits) - 1 if ptx_type[1] in "ub" else (1 << (bits - 1)) - 1
    if not lo <= number <= hi:
        raise UsageError(f"--global {name}={value}: {number} does not fit `{name}`'s type {ptx_type} "
                         f"([{lo}, {hi}])")
    return (number & ((1 << bits) - 1)).to_bytes(bits // 8, "little")


def with_globals(spec, pairs) -> None:
    """Give every kernel launch of `spec` the variables `pairs` [(name, value text or number)] (in place; a value given
    here replaces the one a manifest gave the same variable)."""
    pairs = tuple(pairs)
    names = [n for n, _ in pairs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"--global `{twice[0]}` is given twice")
    if not pairs:
        return

    def give(launch):   # over what a manifest gave, by name
        if launch.host is not None:
            return launch
        return dataclasses.replace(launch, globals=tuple({**dict(launch.globals), **dict(pairs)}.items()))

    spec.launches = {role: give(x) for role, x in spec.launches.items()}
    spec.sequences = {role: tuple(give(x) for x in seq) for role, seq in spec.sequences.items()}


def check_declared(spec) -> None:
    """Each variable a launch sets must be a module-scope `.global` scalar of some launched module, and its
    value must fit: a usage error now rather than a run with the variable left at zero."""
    launches = [x for seq in spec.sequences.values() for x in seq] + list(spec.launches.values())
    wanted = {name: value for x in launches if x.host is None for name, value in x.globals}
    if not wanted:
        return
    declared = {}
    for path in {x.ptx for x in launches if x.host is None and x.globals}:
        for decl in parse_file(path).globals:
            if decl.space == ".global":
                for n in decl.names:
                    declared.setdefault(n.name, (decl, n, path))
    for name, value in wanted.items():
        if name not in declared:
            have = sorted(declared)
            raise UsageError(f"--global {name}={value}: no launched module declares a module-scope .global "
                             f"variable `{name}`" + (f" (they declare: {', '.join(have)})" if have else
                                                     " (they declare none)"))
        decl, n, _ = declared[name]
        encode(name, decl.type or ".b8", _count(n) * decl.vector, value)


def _count(declared_name) -> int:
    count = 1
    for d in declared_name.dims or ():
        count *= d if d is not None else 0
    return count


def initial_bytes(var, given: tuple) -> bytes | None:
    """The bytes a launch gives the module variable `var` (a lowered `Variable`), or None when it gives none."""
    for name, value in given:
        if name == var.name:
            return encode(name, var.type, var.size // max(1, type_size(var.type)), value)
    return None
