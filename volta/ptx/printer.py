"""`Module` → PTX text that ptxas accepts (PTX ISA §11, directives; §9.7, instruction syntax).

The inverse of `volta.ptx.parser`: parse(print(m)) equals m up to source positions (see
`ast.without_positions`). Layout follows nvcc: directives at column 0, statements indented by
a tab per block level. DWARF sections are printed verbatim at the end; `.file` entries after the header.
"""
from __future__ import annotations

from volta.ptx import ast


def print_module(module: ast.Module) -> str:
    out = []
    if module.version is not None:
        out.append(f".version {module.version}")
    if module.target:
        out.append(f".target {', '.join(module.target)}")
    out.append(f".address_size {module.address_size}")
    out.append("")
    for index, path in sorted(module.files.items()):
        out.append(f'.file {index} "{path}"')
    for item in module.items:
        out.append(_top_item(item))
    out.extend(module.sections)
    return "\n".join(out) + "\n"


def _top_item(item) -> str:
    if isinstance(item, ast.Function):
        return print_function(item)
    return print_statement(item, "")


def print_function(fn: ast.Function) -> str:
    head = " ".join([*fn.attrs, ".entry" if fn.kind == "entry" else ".func"])
    if fn.returns:
        head += f" {_param_list(fn.returns)}"
    head += f" {fn.name}{_param_list(fn.params)}"
    lines = [head, *fn.perf]
    if fn.body is None:
        lines[-1] += ";"
        return "\n".join(lines) + "\n"
    lines.append("{")
    lines.extend(print_statement(s, "\t") for s in fn.body)
    lines.append("}\n")
    return "\n".join(lines)


def _param_list(params) -> str:
    if not params:
        return "()"
    return "(\n\t" + ",\n\t".join(print_decl(p) for p in params) + "\n)"


def print_statement(stmt, indent: str = "\t") -> str:
    if isinstance(stmt, ast.Instruction):
        return indent + print_instruction(stmt)
    if isinstance(stmt, ast.Label):
        return f"{stmt.name}:"
    if isinstance(stmt, ast.VarDecl):
        return f"{indent}{print_decl(stmt)};"
    if isinstance(stmt, ast.Loc):
        rest = stmt.rest if not stmt.rest or stmt.rest.startswith(",") else " " + stmt.rest
        return f"{indent}.loc\t{stmt.file} {stmt.line} {stmt.col}{rest}"
    if isinstance(stmt, ast.Pragma):
        return f"{indent}{stmt.text};"
    if isinstance(stmt, ast.Block):
        inner = [print_statement(s, indent + "\t") for s in stmt.body]
        return "\n".join([f"{indent}{{", *inner, f"{indent}}}"])
    if isinstance(stmt, ast.CallPrototype):
        rets = f" ({', '.join(print_decl(p) for p in stmt.returns)})" if stmt.returns else ""
        params = ", ".join(print_decl(p) for p in stmt.params)
        return f"{indent}{stmt.label}: .callprototype{rets} {stmt.name} ({params});"
    raise TypeError(f"cannot print {type(stmt).__name__}")


def print_instruction(inst: ast.Instruction) -> str:
    guard = ""
    if inst.guard is not None:
        guard = f"@{'!' if inst.guard.negated else ''}{inst.guard.reg} "
    if not inst.operands:
        return f"{guard}{inst.opcode};"
    return f"{guard}{inst.opcode} \t{', '.join(print_operand(o) for o in inst.operands)};"


def print_operand(op) -> str:
    if isinstance(op, (ast.Reg, ast.Sym)):
        return op.name
    if isinstance(op, ast.Imm):
        return str(op.value)
    if isinstance(op, ast.FloatImm):
        return op.text
    if isinstance(op, ast.Sink):
        return "_"
    if isinstance(op, ast.NotReg):
        return "!" + print_operand(op.reg)
    if isinstance(op, ast.Pair):
        return f"{print_operand(op.first)}|{print_operand(op.second)}"
    if isinstance(op, ast.Vector):
        return "{" + ", ".join(print_operand(e) for e in op.elems) + "}"
    if isinstance(op, ast.ParenList):
        return "(" + ", ".join(print_operand(e) for e in op.items) + ")"
    if isinstance(op, ast.Address):
        base = print_operand(op.base)
        if op.coords is not None:
            return f"[{base}, {print_operand(op.coords)}]"
        if op.offset:
            return f"[{base}+{op.offset}]"
        return f"[{base}]"
    raise TypeError(f"cannot print operand {op!r}")


def print_decl(decl: ast.VarDecl) -> str:
    names = ", ".join(_decl_name(n) for n in decl.names)
    text = f"{' '.join(decl.attrs)} {names}" if decl.attrs else names
    if decl.init is not None:
        text += " = " + _init(decl.init)
    return text


def _decl_name(name: ast.DeclName) -> str:
    if name.count is not None:
        return f"{name.name}<{name.count}>"
    return name.name + "".join(f"[{'' if d is None else d}]" for d in name.dims)


def _init(value) -> str:
    """Initializers as the parser builds them: numbers, names, flat tuples, ('list'|'generic'|'offset', …)."""
    if isinstance(value, tuple):
        if value and isinstance(value[0], str):
            kind = value[0]
            if kind == "list":
                return "{" + ", ".join(_init(v) for v in value[1]) + "}"
            if kind == "generic":
                return f"{value[1]}({value[2]})"
            if kind == "offset":
                return f"{value[1]}+{value[2]}"
        return "{" + ", ".join(_init(v) for v in value) + "}"
    if isinstance(value, int):
        return str(value)
    return print_operand(value)
