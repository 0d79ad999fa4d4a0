"""By-value struct kernel parameters (`.param .align 8 .b8 k_param_0[24]`), split into the slices the kernel reads.

A CUDA kernel taking `struct {float* in; float* out; int n;}` by value gets one byte-array parameter, read by
field with `ld.param.u64 %rd1, [k_param_0+8]` (PTX ISA §5.1.6.1, kernel function parameters). The executor
holds one value of at most 8 bytes per parameter, so lowering splits such a parameter into *slices*: every
maximal run of overlapping `ld.param` reads becomes a parameter of its own, named `k_param_0+8` (a name no PTX
identifier can have), and those loads are rewritten to read it. A pointer field is then a pointer parameter and
a number field a scalar parameter for everything downstream (buffers, bounds, races, symbolic addresses).

The parameter list keeps the struct itself (a `StructParam`, never read) followed by its slices (`SliceParam`s),
both unpacking as `(name, type, size)` like every other entry; `volta.launch.structargs` binds a launch's
`{x, y, 1024}` argument onto the slices. A struct whose address is taken, or read by one access wider than 8
bytes, cannot be split: it keeps the reason, and a launch of it is UNSUPPORTED naming the instruction. A
struct whose address is taken by `mov`/`cvta` (`mov.b64 %rd1, k_param_0`: nvcc does it at -O0, and at any level
for an array field indexed at run time) is `addressed`: besides its slices it gets bytes in the parameter state
space (volta/exec/machine.py), read through that address like any parameter memory.
"""
from __future__ import annotations

import dataclasses

from volta.errors import Span
from volta.ir.nodes import Variable, VarRef, type_size
from volta.ptx import ast

MAX_SLICE = 8  # bytes one parameter value holds in the executor


class StructParam(tuple):
    """`(name, type, size)` of a struct parameter, plus its alignment, declaration span, slices and any refusal."""

    def __new__(cls, name: str, type_: str, size: int, align: int, span: Span, slices: tuple = (),
                refused: tuple | None = None, addressed: bool = False):
        self = super().__new__(cls, (name, type_, size))
        self.align, self.span, self.slices, self.refused = align, span, slices, refused
        self.addressed = addressed  # its address is taken: it also lives in parameter memory
        return self

    @property
    def name(self) -> str:
        return self[0]


class SliceParam(tuple):
    """`(name, type, size)` of bytes [offset, offset + size) of struct parameter `struct`, as the kernel reads them.

    `exact` says every read of the slice reads all of it (a pointer or symbol field must be read whole);
    `elements` are the (offset, bytes, PTX type) of every element read; `span` is the first read, for messages."""

    def __new__(cls, struct: str, offset: int, size: int, span: Span, exact: bool, elements: tuple = ()):
        self = super().__new__(cls, (f"{struct}+{offset}", f".b{8 * size}", size))
        self.struct, self.offset, self.span, self.exact, self.elements = struct, offset, span, exact, elements
        return self


def is_struct_decl(decl: ast.VarDecl) -> bool:
    """A parameter declared as an array (`.b8 p[24]`): a struct or array passed by value."""
    return bool(decl.names[0].dims)


def split(params: list, ops: list, variables: dict, decls, file: str) -> tuple:
    """(params, ops) with every struct parameter followed by its slices and its loads rewritten to them."""
    structs = {p[0]: (p, d) for p, d in zip(params, decls) if is_struct_decl(d)}
    if not structs:
        return params, ops
    reads = {name: [] for name in structs}  # name -> [(offset, width, op index, operand index)]
    refused, addressed = {}, set()
    for op in ops:
        for k, o in enumerate(op.operands):
            name = _struct_ref(o, structs)
            if name is None:
                continue
            if op.op in ("ld", "ldu") and op.d.space == ".param" and k == 1 and isinstance(o, ast.Address):
                t = op.d.types[-1] if op.d.types else ".b32"
                reads[name].append((o.offset, type_size(t) * op.d.vec, op.index, k, op.span, t, type_size(t)))
            elif op.op in ("mov", "cvta") and k == 1 and not isinstance(o, ast.Address):
                addressed.add(name)  # `mov.b64 %rd, k_param_0`: its address, in the parameter state space
            elif name not in refused:
                refused[name] = (f"the address of struct parameter `{name}` is taken by `{op.d.inst.opcode}` "
                                 f"(only field loads `ld.param [{name}+OFFSET]` are modelled)", op.span)
    out, rewrite = [], {}
    for p, decl in zip(params, decls):
        if p[0] not in structs:
            out.append(p)
            continue
        name, t, size = p
        span = Span(file, decl.line, decl.col)
        align = decl.align or type_size(t)
        groups = _components(reads[name])
        wide = next((g for g in groups if g[1] - g[0] > MAX_SLICE), None)
        why = refused.get(name)
        if why is None and wide is not None:
            first = min(wide[2], key=lambda r: r[2])
            why = (f"struct parameter `{name}` is read by {wide[1] - wide[0]} bytes at once at +{wide[0]} "
                   f"(a vector load; at most {MAX_SLICE} bytes per field are modelled)", first[4])
        if why is not None:
            out.append(StructParam(name, t, size, align, span, (), why))
            continue
        slices = []
        for lo, hi, members in groups:
            first = min(members, key=lambda r: r[2])
            exact = all(r[0] == lo and r[1] == hi - lo for r in members)
            elements = tuple(sorted({(r[0] + j * r[6], r[6], r[5]) for r in members for j in range(r[1] // r[6])}))
            s = SliceParam(name, lo, hi - lo, first[4], exact, elements)
            slices.append(s)
            variables[s[0]] = Variable(s[0], ".param", s[2], min(align, s[2]))
            for off, _, index, k, *_ in members:
                rewrite[(index, k)] = (s[0], off - lo)
        out.append(StructParam(name, t, size, align, span, tuple(slices), addressed=name in addressed))
        out.extend(slices)
    new_ops = []
    for op in ops:
        hits = [(k, rewrite[(op.index, k)]) for k in range(len(op.operands)) if (op.index, k) in rewrite]
        if hits:
            operands = list(op.operands)
            for k, (slice_name, off) in hits:
                base = operands[k].base
                operands[k] = dataclasses.replace(operands[k], base=dataclasses.replace(base, name=slice_name),
                                                  offset=off)
            op = dataclasses.replace(op, operands=tuple(operands))
        new_ops.append(op)
    return out, new_ops


def _struct_ref(operand, structs) -> str | None:
    """The struct parameter an operand names (as an address base or a plain symbol), if any."""
    base = operand.base if isinstance(operand, ast.Address) else operand
    return base.name if isinstance(base, VarRef) and base.name in structs else None


def _components(reads: list) -> list:
    """Maximal runs of overlapping byte ranges: [(lo, hi, [reads…])], by offset."""
    groups = []
    for r in sorted(reads):
        lo, hi = r[0], r[0] + r[1]
        if groups and lo < groups[-1][1]:
            g = groups[-1]
            groups[-1] = (g[0], max(g[1], hi), g[2] + [r])
        else:
            groups.append((lo, hi, [r]))
    return groups


def describe(params: list, name: str) -> str:
    """`parameter `n` (argument 3)`, or `field +8 of struct parameter `p` (argument 1)` for a slice."""
    top = [p for p in params if not isinstance(p, SliceParam)]
    entry = next((p for p in params if p[0] == name), None)
    if isinstance(entry, SliceParam):
        k = [p[0] for p in top].index(entry.struct)
        return f"field +{entry.offset} of struct parameter `{entry.struct}` (argument {k + 1})"
    names = [p[0] for p in top]
    return f"parameter `{name}` (argument {names.index(name) + 1})" if name in names else f"parameter `{name}`"
