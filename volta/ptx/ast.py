"""PTX syntax tree: immutable dataclasses that keep every statement's line and column.

Instructions are generic here (opcode text + operands); `volta.ptx.decode` types them.
Equality is structural, which is what the parse → print → parse property compares.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Union


# ---- operands ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Reg:
    """A register (`%r1`), special register (`%tid.x`) or scoped inline-asm name (`p`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Imm:
    """An integer immediate."""

    value: int


@dataclass(frozen=True, slots=True)
class FloatImm:
    """A float immediate; `bits` is the IEEE word for hex forms (0f..., 0d...), else None."""

    text: str
    width: int  # 32 or 64
    bits: int | None = None


@dataclass(frozen=True, slots=True)
class Sym:
    """A name: a label, a parameter, a global/shared variable or a function."""

    name: str


@dataclass(frozen=True, slots=True)
class Sink:
    """The `_` operand: a result that is discarded."""


@dataclass(frozen=True, slots=True)
class NotReg:
    """`!%p`: a negated predicate operand."""

    reg: Reg


@dataclass(frozen=True, slots=True)
class Pair:
    """`%r2|%p1`: a value and a predicate written by one instruction."""

    first: Reg
    second: Reg


@dataclass(frozen=True, slots=True)
class Vector:
    """`{%r1, %r2}` (1 to 64 elements; elements may be immediates or `_`)."""

    elems: tuple


@dataclass(frozen=True, slots=True)
class Address:
    """`[base+offset]`; `coords` for tensor-map addresses `[tmap, {c0, c1}]`."""

    base: Reg | Sym | Imm
    offset: int = 0
    coords: object = None


@dataclass(frozen=True, slots=True)
class ParenList:
    """`(retval0)` / `(param0, param1)` in `call`."""

    items: tuple


Operand = Union[Reg, Imm, FloatImm, Sym, Sink, NotReg, Pair, Vector, Address, ParenList]


# ---- statements ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Guard:
    reg: str
    negated: bool


@dataclass(frozen=True, slots=True)
class Instruction:
    opcode: str
    operands: tuple
    guard: Guard | None
    line: int
    col: int

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def modifiers(self) -> tuple[str, ...]:
        return tuple("." + m for m in self.opcode.split(".")[1:])


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class Loc:
    """`.loc file line col[, function_name …, inlined_at …]`: the CUDA source position that follows."""

    file: int
    line: int
    col: int
    rest: str = ""  # the inlining tail, kept verbatim


@dataclass(frozen=True, slots=True)
class Pragma:
    text: str


@dataclass(frozen=True, slots=True)
class DeclName:
    """One declared name: `smem[4096]`, `dyn[]` (dims None), or `%r<39>` (count 39)."""

    name: str
    dims: tuple = ()
    count: int | None = None


@dataclass(frozen=True, slots=True)
class VarDecl:
    """A state-space declaration: `.shared .align 16 .b8 smem[4096];`, `.reg .pred %p<3>;`, a param."""

    attrs: tuple  # dotted words in order, e.g. ('.shared', '.align 16', '.b8')
    names: tuple  # of DeclName
    init: object = None  # tuple of ints/floats (flat numbers) or nested tuples/names
    line: int = 0
    col: int = 0

    @property
    def space(self) -> str | None:
        for a in self.attrs:
            if a in SPACES:
                return a
        return None

    @property
    def type(self) -> str | None:
        for a in reversed(self.attrs):
            if a in TYPES:
                return a
        return None

    @property
    def align(self) -> int | None:
        for a in self.attrs:
            if a.startswith(".align "):
                return int(a.split()[1], 0)
        return None

    @property
    def vector(self) -> int:
        for a in self.attrs:
            if a in (".v2", ".v4", ".v8"):
                return int(a[2:])
        return 1


@dataclass(frozen=True, slots=True)
class Block:
    """A nested `{ … }` scope (inline asm, call sequences): names declared here are local to it."""

    body: tuple


@dataclass(frozen=True, slots=True)
class CallPrototype:
    label: str
    returns: tuple
    name: str
    params: tuple
    line: int
    col: int


Statement = Union[Instruction, Label, Loc, Pragma, VarDecl, Block, CallPrototype]


@dataclass(frozen=True, slots=True)
class Function:
    """A `.entry` kernel or a `.func` device function (body None for a declaration)."""

    kind: str  # 'entry' or 'func'
    name: str
    attrs: tuple  # linkage: ('.visible',), ('.weak',), ('.extern',)…
    params: tuple  # of VarDecl
    returns: tuple  # of VarDecl
    perf: tuple  # performance directives, verbatim ('.maxntid 256, 1, 1',)
    body: tuple | None
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class Module:
    file: str
    version: str | None
    target: tuple  # ('sm_90a',) or ('sm_80', 'debug')
    address_size: int
    items: tuple  # Functions, VarDecls, Loc/Pragma, raw sections…
    files: dict = field(default_factory=dict, compare=True, hash=False)  # .file index -> path
    sections: tuple = ()  # DWARF `.section` blocks, verbatim

    @property
    def functions(self) -> tuple[Function, ...]:
        return tuple(i for i in self.items if isinstance(i, Function))

    @property
    def entries(self) -> tuple[Function, ...]:
        return tuple(f for f in self.functions if f.kind == "entry")

    @property
    def globals(self) -> tuple[VarDecl, ...]:
        return tuple(i for i in self.items if isinstance(i, VarDecl))

    def function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name and f.body is not None:
                return f
        for f in self.functions:
            if f.name == name:
                return f
        return None


SPACES = frozenset({".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex"})
TYPES = frozenset(
    {
        ".b8", ".b16", ".b32", ".b64", ".b128",
        ".u8", ".u16", ".u32", ".u64",
        ".s8", ".s16", ".s32", ".s64",
        ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32",
        ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2", ".pred",
        ".texref", ".samplerref", ".surfref",
    }
)


_POSITION_FIELDS = ("line", "col")


def without_positions(node):
    """The same tree with every `line`/`col` set to 0: what parse → print → parse must preserve."""
    if isinstance(node, tuple):
        return tuple(without_positions(n) for n in node)
    if isinstance(node, list):
        return [without_positions(n) for n in node]
    if isinstance(node, dict):
        return {k: without_positions(v) for k, v in node.items()}
    if is_dataclass(node) and not isinstance(node, type):
        changes = {}
        for f in fields(node):
            value = getattr(node, f.name)
            if f.name in _POSITION_FIELDS and isinstance(value, int):
                if value:
                    changes[f.name] = 0
            elif isinstance(value, (tuple, list, dict)) or is_dataclass(value):
                new = without_positions(value)
                if new is not value:
                    changes[f.name] = new
        return replace(node, **changes) if changes else node
    return node
