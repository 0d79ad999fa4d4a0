"""Per-kernel facts read off the syntax tree: parameters, registers, shared memory, opcode mix.

What `volta parse` reports. Sizes follow PTX ISA §5.2 (fundamental types) and §5.1.5
(shared state space); static shared bytes are the plain sum of declared sizes (no padding).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from volta.ptx import ast
from volta.ptx.decode import iter_instructions

TYPE_BYTES = {
    ".b8": 1, ".u8": 1, ".s8": 1, ".e4m3": 1, ".e5m2": 1,
    ".b16": 2, ".u16": 2, ".s16": 2, ".f16": 2, ".bf16": 2, ".e4m3x2": 2, ".e5m2x2": 2,
    ".b32": 4, ".u32": 4, ".s32": 4, ".f32": 4, ".f16x2": 4, ".bf16x2": 4, ".tf32": 4,
    ".b64": 8, ".u64": 8, ".s64": 8, ".f64": 8,
    ".b128": 16,
}


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # '.u64', or '.b8[40]' for a by-value struct
    attrs: tuple = ()  # everything else written: ('.ptr', '.global', '.align 1')


@dataclass(frozen=True)
class KernelSummary:
    name: str
    params: tuple
    registers: dict  # type -> count
    shared_static_bytes: int
    shared_variables: tuple  # names of the static .shared variables counted
    dynamic_shared: bool
    instructions: int
    opcodes: dict = field(default_factory=dict)  # base opcode -> count, most frequent first

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "params": [{"name": p.name, "type": p.type, "attrs": list(p.attrs)} for p in self.params],
            "registers": dict(self.registers),
            "shared": {
                "static_bytes": self.shared_static_bytes,
                "variables": list(self.shared_variables),
                "dynamic": self.dynamic_shared,
            },
            "instructions": self.instructions,
            "opcodes": dict(self.opcodes),
        }


def summarize(module: ast.Module) -> tuple[KernelSummary, ...]:
    return tuple(summarize_kernel(module, fn) for fn in module.entries if fn.body is not None)


def summarize_kernel(module: ast.Module, fn: ast.Function) -> KernelSummary:
    registers: Counter = Counter()
    local_shared = []
    for decl in _declarations(fn.body):
        if decl.space == ".reg":
            registers[decl.type or "?"] += sum(n.count if n.count is not None else _elements(n) for n in decl.names)
        elif decl.space == ".shared":
            local_shared.append(decl)
    module_shared = {n.name: d for d in module.globals if d.space == ".shared" for n in d.names}
    used = _referenced_names(module, fn)
    shared = [(n, d) for d in local_shared for n in d.names]
    shared += [(n, d) for name, d in module_shared.items() if name in used for n in d.names if n.name == name]
    static = [(n, d) for n, d in shared if ".extern" not in d.attrs and None not in n.dims]
    dynamic = any(".extern" in d.attrs or None in n.dims for n, d in shared)
    opcodes = Counter(inst.base for inst in iter_instructions(fn.body))
    return KernelSummary(
        name=fn.name,
        params=tuple(_param(p) for p in fn.params),
        registers=dict(sorted(registers.items())),
        shared_static_bytes=sum(_bytes(n, d) for n, d in static),
        shared_variables=tuple(n.name for n, _ in static),
        dynamic_shared=dynamic,
        instructions=sum(opcodes.values()),
        opcodes=dict(sorted(opcodes.items(), key=lambda kv: (-kv[1], kv[0]))),
    )


def _param(decl: ast.VarDecl) -> Param:
    name = decl.names[0]
    dims = "".join(f"[{'' if d is None else d}]" for d in name.dims)
    rest = tuple(a for a in decl.attrs if a not in (".param", decl.type))
    return Param(name.name, f"{decl.type or '?'}{dims}", rest)


def _declarations(body):
    for stmt in body or ():
        if isinstance(stmt, ast.VarDecl):
            yield stmt
        elif isinstance(stmt, ast.Block):
            yield from _declarations(stmt.body)


def _elements(name: ast.DeclName) -> int:
    count = 1
    for d in name.dims:
        count *= d or 0
    return count


def _bytes(name: ast.DeclName, decl: ast.VarDecl) -> int:
    return TYPE_BYTES.get(decl.type, 0) * decl.vector * _elements(name)


def _referenced_names(module: ast.Module, fn: ast.Function) -> set[str]:
    """Names used as operands by `fn` and by every `.func` it calls, transitively."""
    functions = {f.name: f for f in module.functions if f.body is not None}
    seen, todo, names = {fn.name}, [fn], set()
    while todo:
        current = todo.pop()
        for inst in iter_instructions(current.body):
            for op in inst.operands:
                for name in _operand_names(op):
                    names.add(name)
                    if name in functions and name not in seen:
                        seen.add(name)
                        todo.append(functions[name])
    return names


def _operand_names(op):
    if isinstance(op, ast.Sym):
        yield op.name
    elif isinstance(op, ast.Address):
        yield from _operand_names(op.base)
    elif isinstance(op, (ast.Vector, ast.ParenList)):
        for e in op.elems if isinstance(op, ast.Vector) else op.items:
            yield from _operand_names(e)
