"""Function addresses and indirect calls (`call (ret), %rd, (args), prototype;`, PTX ISA §9.7.13.4 `call`).

CUDA function pointers reach PTX as `mov.u64 %rd, fname;`, as `.global .u64 table[N] = {f, g};` initializers
that are loaded, or as a `selp.b64` between such values; the call names the register and a `.callprototype`.

Design (lowering, not a new execution mechanism):
- Every function of the module gets a fixed **function address** `FUNCTION_BASE + 16·k` (k: its position
  among the module's functions). It lies in no state space's region, so dereferencing it as data is an
  out-of-bounds access; `mov` of a function's name and initializers naming functions produce these numbers.
- An indirect call whose target register has exactly one definition in the calling function, an unguarded
  `mov` of a function's name, is **resolved statically**: it is lowered as the direct call it is.
- Otherwise it becomes a **dispatch chain** over the *candidates* (functions whose address the module takes,
  in a non-call operand or an initializer, with the call's number of parameters and results), one inlined
  body each: `setp.ne.u64 %p, %rd, ADDR_k; @%p bra next_k; <body of f_k>; bra done; next_k: …`. Each lane
  thus runs the callee its own pointer value names (a per-lane choice runs several callees, diverging and
  reconverging at `done` like any branch), and every analysis (races, replay, symbolic check) sees ordinary
  instructions. Lanes that match no candidate reach a final `call` pseudo-op (`IndirectMiss`), whose handler
  (volta/exec/handlers/indirect.py) stops the run with UNSUPPORTED naming the value, the thread and file:line:col: on
  hardware such a call jumps to no function. A candidate already on the call stack (recursion) is left out
  of the chain, so a lane that names it also stops there, with that reason.
"""
from __future__ import annotations

from dataclasses import dataclass

from volta.ptx import ast
from volta.ptx.decode import iter_instructions

FUNCTION_BASE = 0x00F0_0000_0000_0000  # above every global region (rid << 40), below the generic windows


def function_addresses(module: ast.Module) -> dict:
    """name → address for every function the module declares or defines (first declaration order)."""
    out = {}
    for f in module.functions:
        if f.name not in out:
            out[f.name] = FUNCTION_BASE + 16 * len(out)
    return out


def address_taken(module: ast.Module) -> tuple:
    """Names of functions whose address the module takes (an operand other than a call target, or an
    initializer), in module order: the candidates of an indirect call."""
    names = {f.name for f in module.functions}
    seen = set()

    def visit(v):
        if isinstance(v, ast.Sym) and v.name in names:
            seen.add(v.name)
        elif isinstance(v, (tuple, list)):
            for x in v:
                visit(x)
        elif isinstance(v, (ast.Vector, ast.ParenList)):
            visit(v.elems if isinstance(v, ast.Vector) else v.items)

    for decl in module.globals:
        visit(decl.init)
    for f in module.functions:
        for inst in iter_instructions(f.body):
            if inst.base == "call":
                continue  # call targets are direct calls, not taken addresses
            visit(inst.operands)
    order = [f.name for f in module.functions]
    return tuple(sorted(seen, key=order.index))


def static_target(function: ast.Function | None, reg: str, module: ast.Module) -> str | None:
    """The function a register must hold: its only definition in `function` is an unguarded
    `mov.b64/u64 reg, fname`. None when it has another definition, several, or none."""
    if function is None or function.body is None or _declarations(function.body, reg) > 1:
        return None  # a nested `{ .reg … }` scope reuses the name: definitions cannot be told apart by name
    defs = [inst for inst in iter_instructions(function.body) if _defines(inst, reg)]
    if len(defs) != 1:
        return None
    inst = defs[0]
    if inst.base != "mov" or inst.guard is not None or len(inst.operands) != 2:
        return None
    src = inst.operands[1]
    if isinstance(src, ast.Sym) and any(f.name == src.name for f in module.functions):
        return src.name
    return None


def _declarations(body, reg: str) -> int:
    """How many `.reg` declarations in a body (nested scopes included) declare the name `reg`."""
    count = 0
    for stmt in body or ():
        if isinstance(stmt, ast.Block):
            count += _declarations(stmt.body, reg)
        elif isinstance(stmt, ast.VarDecl) and stmt.space == ".reg":
            for n in stmt.names:
                names = [f"{n.name}{i}" for i in range(n.count)] if n.count is not None else [n.name]
                count += reg in names
    return count


_NO_DEST = frozenset({"st", "red", "bar", "barrier", "bra", "call", "ret", "exit", "membar", "fence", "trap",
                      "prefetch", "prefetchu", "cp", "mbarrier", "wmma", "stmatrix", "tensormap"})


def _defines(inst: ast.Instruction, reg: str) -> bool:
    """Whether an instruction (possibly) writes `reg`: its first operand names it (alone, in a vector or
    a `p|q` pair). Stores and other instructions without a register destination do not count."""
    if inst.base in _NO_DEST or not inst.operands:
        return False
    dest = inst.operands[0]
    if isinstance(dest, ast.Reg):
        return dest.name == reg
    if isinstance(dest, ast.Vector):
        return any(isinstance(e, ast.Reg) and e.name == reg for e in dest.elems)
    if isinstance(dest, ast.Pair):
        return any(isinstance(e, ast.Reg) and e.name == reg for e in (dest.first, dest.second))
    return False


@dataclass(frozen=True, slots=True)
class IndirectMiss:
    """Operand of the pseudo-op that ends a dispatch chain: the target register (a RegRef) and what the
    chain knows, so the message can say which value matched nothing and why."""

    target: object  # RegRef of the pointer
    candidates: tuple  # ((name, address), …) tried in the chain
    skipped: tuple  # ((name, address, reason), …) functions with an address that the chain cannot run
    addresses: tuple  # ((name, address), …) of every function of the module


MISS_OP = "call.indirect_miss"  # Decoded.op of the chain's last instruction (never a PTX opcode)
