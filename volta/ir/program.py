"""Executable form of one kernel: flat instruction list, register file layout, resolved labels.

`lower(module, entry)` inlines `.func` calls (renaming callee registers and labels, mapping its
parameters onto the caller's `.param` slots), flattens nested `{ }` scopes with lexical renaming,
decodes every instruction once, and attaches the CUDA source line from the preceding `.loc`.
Calls through a function pointer are resolved statically or lowered to a dispatch chain of inlined
callees; function names used as values become fixed function addresses (volta/ir/indirect.py). The result's
types (`Program`, `Op`, operand references) are defined in volta/ir/nodes.py and importable from here.
"""
from __future__ import annotations

import dataclasses
import itertools
import re

from volta.errors import PtxSyntaxError, Span, Unsupported, UsageError
from volta.ir import cfg, indirect, structparams
from volta.ir.nodes import (  # noqa: F401  (re-exported: the lowered program's types, imported from here)
    SPECIAL_REGS, ExternCall, Op, Program, RegRef, SpecialRef, Variable, VarRef, cuda_frames, cuda_text, type_size,
)
from volta.ptx import ast
from volta.ptx.decode import decode

_INLINED_AT = re.compile(r"inlined_at\s+(\d+)\s+(\d+)\s+(\d+)")


def lower(module: ast.Module, entry: str | None = None) -> Program:
    """Build the executable program of one `.entry` (the only one when `entry` is None)."""
    entries = [f for f in module.entries if f.body is not None]
    if entry is None:
        if not entries:
            raise UsageError(f"{module.file} has no kernel (no .entry with a body): nothing to run or check")
        if len(entries) != 1:
            names = ", ".join(f.name for f in entries)
            raise UsageError(f"{module.file} has {len(entries)} kernels ({names}); choose one with --kernel")
        kernel = entries[0]
    else:
        kernel = next((f for f in entries if f.name == entry), None)
        if kernel is None:
            kernel = _by_source_name(entries, entry, module.file)
    return _Lowerer(module).run(kernel)


def _by_source_name(entries: list, entry: str, file) -> ast.Function:
    """The kernel whose CUDA name is `entry` (`softmax_kernel` for `_Z14softmax_kernelPfPKfii`, `ns::k` or `k`
    for `_ZN2ns1kEPf`): the name a user reads in the .cu file. Several (overloads, template instances) or none
    is a usage error that lists the PTX names to choose from."""
    matches = [f for f in entries if entry in source_names(f.name)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(f.name for f in matches)
        raise UsageError(f"`{entry}` names {len(matches)} kernels in {file} (overloads or template instances: "
                         f"{names}); give the one you mean by its PTX name")
    names = ", ".join(f.name for f in entries) or "none"
    raise UsageError(f"no kernel named `{entry}` in {file} (kernels: {names})")


def source_names(mangled: str) -> tuple:
    """The names a C++ (Itanium-mangled) function answers to: `_Z3fooPf` -> ("foo",), `_ZN2ns3fooEPf` ->
    ("ns::foo", "foo"); a template's arguments and the parameter types are not part of it. Not mangled: ()."""
    if mangled.startswith("_ZN"):
        parts, i = [], 3
        while i < len(mangled) and mangled[i] not in "EI":   # E ends the nested name, I opens template arguments
            name, i = length_prefixed(mangled, i)
            if not name or i > len(mangled):
                return ()
            parts.append(name)
        return ("::".join(parts), parts[-1]) if parts else ()
    name, end = length_prefixed(mangled, 2) if mangled.startswith("_Z") else (None, 0)
    return (name,) if name and end <= len(mangled) else ()


def length_prefixed(s: str, i: int) -> tuple[str | None, int]:
    """The `<length><identifier>` of a mangled name at s[i:] and the index after it (past the end of s when the
    name is cut short); (None, i) without a length."""
    m = re.match(r"\d+", s[i:])
    if not m:
        return None, i
    start = i + len(m[0])
    return s[start:start + int(m[0])], start + int(m[0])


class _Lowerer:
    def __init__(self, module: ast.Module):
        self.module = module
        self.file = module.file
        self.ops: list = []
        self.pending: list = []  # (op-slot, label name) to resolve
        self.labels: dict = {}
        self.regs: list = []
        self.reg_index: dict = {}
        self.variables: dict = {}
        self.counter = itertools.count()
        self.cuda = None  # ((file path, line), inlined_at chain) of the last .loc with a line
        self.loc_chains = {}  # (file, line, col) of a .loc -> its inlined_at chain
        self.func_addresses = indirect.function_addresses(module)  # a function's name as a value
        self._taken = None  # functions whose address is taken: indirect-call candidates (on first use)
        for decl in module.globals:
            self._declare_variable(decl, {})

    def run(self, kernel: ast.Function) -> Program:
        params = []
        for p in kernel.params:
            t = p.type or ".b64"
            name = p.names[0].name
            size = type_size(t) * max(1, _array_len(p.names[0].dims))
            params.append((name, t, size))
            self.variables[name] = Variable(name, ".param", size, p.align or type_size(t))
        self._body(kernel.body, scope={}, call_stack=(kernel.name,), ret_label=None)
        labels = self.labels
        ops = []
        for i, (inst_d, operands, guard, span, cuda) in enumerate(self.ops):
            resolved = tuple(self._resolve_label(o, labels, span) for o in operands)
            where, inlined = cuda if cuda is not None else (None, ())
            ops.append(Op(i, inst_d, resolved, guard, span, where, inlined))
        # by-value structs: one parameter per field the kernel reads
        params, ops = structparams.split(params, ops, self.variables, kernel.params, self.file)
        prog = Program(kernel.name, self.file, params, ops, labels, self.regs, self.variables, self.module.target)
        prog.cfg = cfg.build_cfg(prog)
        return prog

    # -- declarations ------------------------------------------------------------
    def _declare_variable(self, decl: ast.VarDecl, scope: dict, prefix: str = ""):
        space = decl.space
        if space == ".reg":
            for n in decl.names:
                names = [f"{n.name}{i}" for i in range(n.count)] if n.count is not None else [n.name]
                for name in names:
                    unique = prefix + name
                    scope[name] = self._new_reg(unique, decl.type or ".b32")
            return
        for n in decl.names:
            unique = prefix + n.name
            t = decl.type or ".b8"
            count = _array_len(n.dims)
            size = type_size(t) * decl.vector * count
            dynamic = bool(n.dims) and n.dims[-1] is None
            init = None
            if decl.init is not None:
                init = _init_bytes(decl.init, t, size, self.func_addresses,
                                   Span(self.file, decl.line, decl.col) if decl.line else None)
            self.variables[unique] = Variable(unique, space or ".global", size, decl.align or type_size(t), init, dynamic,
                                              ".extern" in decl.attrs, t)
            scope[n.name] = VarRef(unique, space or ".global")

    def _new_reg(self, name: str, t: str) -> RegRef:
        if name in self.reg_index:
            return RegRef(self.reg_index[name], name, t)
        idx = len(self.regs)
        self.regs.append((name, t))
        self.reg_index[name] = idx
        return RegRef(idx, name, t)

    # -- bodies ----------------------------------------------------------------------
    def _body(self, body, scope, call_stack, ret_label, prefix="", nested=False):
        """Lower one `{ }` scope; registers declared in a nested scope get a unique name."""
        # labels are function-scoped but inline asm repeats them per block: rename per block
        block_id = next(self.counter)
        local_labels = {s.name: f"{prefix}{s.name}#{block_id}" for s in body if isinstance(s, ast.Label)}
        scope = {**scope, **{("label", k): v for k, v in local_labels.items()}}
        for s in body:
            if isinstance(s, ast.VarDecl):
                self._declare_variable(s, scope, f"{prefix}{block_id}:" if nested and s.space == ".reg" else prefix)
            elif isinstance(s, ast.Label):
                self.labels[local_labels[s.name]] = len(self.ops)
            elif isinstance(s, ast.Loc):
                self._loc(s)
            elif isinstance(s, ast.Block):
                self._body(s.body, scope, call_stack, ret_label, prefix, nested=True)
            elif isinstance(s, ast.Instruction):
                self._instruction(s, scope, call_stack, ret_label, prefix)
            # pragmas and call prototypes carry no semantics here

    def _loc(self, loc: ast.Loc):
        """Follow `inlined_at F L C` to the caller: its own chain is that of the latest .loc at F L C."""
        chain = ()
        m = _INLINED_AT.search(loc.rest or "")
        if m:
            f, line, col = (int(g) for g in m.groups())
            chain = ((self.module.files.get(f, f"file{f}"), line),) + self.loc_chains.get((f, line, col), ())
        self.loc_chains[(loc.file, loc.line, loc.col)] = chain
        if loc.line:
            self.cuda = ((self.module.files.get(loc.file, f"file{loc.file}"), loc.line), chain)

    def _span(self, inst):
        return Span(self.file, inst.line, inst.col)

    def _instruction(self, inst, scope, call_stack, ret_label, prefix):
        d = decode(inst, self.file)
        if d.op == "call":
            self._inline_call(inst, d, scope, call_stack, prefix)
            return
        if d.op == "ret" and ret_label is not None:
            inst = ast.Instruction("bra.uni", (ast.Sym(ret_label),), inst.guard, inst.line, inst.col)
            d = decode(inst, self.file)
            operands = (("label", ret_label),)
        else:
            operands = tuple(self._operand(o, scope, inst) for o in inst.operands)
        guard = None
        if inst.guard is not None:
            ref = self._lookup_reg(inst.guard.reg, scope, inst)
            guard = (ref.index, inst.guard.negated)
        self.ops.append((d, operands, guard, self._span(inst), self.cuda))

    def _lookup_reg(self, name, scope, inst):
        ref = scope.get(name)
        if isinstance(ref, RegRef):
            return ref
        raise PtxSyntaxError(f"register `{name}` is not declared", self._span(inst))

    def _operand(self, o, scope, inst):
        if isinstance(o, ast.Reg):
            ref = scope.get(o.name)
            if isinstance(ref, RegRef):
                return ref
            base = o.name.split(".")[0]
            if base in SPECIAL_REGS:
                return SpecialRef(o.name)
            if isinstance(ref, VarRef):
                return ref
            raise PtxSyntaxError(f"register `{o.name}` is not declared", self._span(inst))
        if isinstance(o, ast.Sym):
            label = scope.get(("label", o.name))
            if label is not None:
                return ("label", label)
            ref = scope.get(o.name)
            if isinstance(ref, (VarRef, RegRef)):
                return ref
            if o.name in self.variables:
                return VarRef(o.name, self.variables[o.name].space)
            if o.name in self.func_addresses:  # `mov.u64 %rd, fname`: the function's address
                return ast.Imm(self.func_addresses[o.name])
            return ("label", o.name)  # resolved (or rejected) after the whole body is seen
        if isinstance(o, ast.Address):
            return ast.Address(self._operand(o.base, scope, inst) if not isinstance(o.base, ast.Imm) else o.base,
                               o.offset, o.coords)
        if isinstance(o, ast.Vector):
            return ast.Vector(tuple(self._operand(e, scope, inst) for e in o.elems))
        if isinstance(o, ast.Pair):
            return ast.Pair(self._operand(o.first, scope, inst), self._operand(o.second, scope, inst))
        if isinstance(o, ast.NotReg):
            return ast.NotReg(self._operand(o.reg, scope, inst))
        if isinstance(o, ast.ParenList):
            return ast.ParenList(tuple(self._operand(e, scope, inst) for e in o.items))
        return o

    def _resolve_label(self, o, labels, span):
        if isinstance(o, tuple) and o and o[0] == "label":
            if o[1] not in labels:
                raise PtxSyntaxError(f"unknown name `{o[1].split('#')[0]}`", span)
            return ("label", labels[o[1]])
        return o

    # -- calls -------------------------------------------------------------------------
    def _inline_call(self, inst, d, scope, call_stack, prefix):
        ops = list(inst.operands)
        rets = ()
        if ops and isinstance(ops[0], ast.ParenList):
            rets = ops.pop(0).items
        target = ops.pop(0) if ops else None
        args = ops.pop(0).items if ops and isinstance(ops[0], ast.ParenList) else ()
        if isinstance(target, ast.Reg):
            caller = self.module.function(call_stack[-1])
            name = indirect.static_target(caller, target.name, self.module)
            if name is None:
                self._indirect_call(inst, d, target, rets, args, scope, call_stack, prefix)
                return
            target = ast.Sym(name)  # the register's only value: a direct call
        if not isinstance(target, ast.Sym):
            raise Unsupported(f"call through `{target}`: expected a function name or a register", self._span(inst))
        self._direct_call(inst, d, target.name, rets, args, scope, call_stack, prefix, inst.guard)

    def _direct_call(self, inst, d, name, rets, args, scope, call_stack, prefix, guard):
        """Inline the body of `name` (or keep an external function as a call op), under `guard`."""
        callee = self.module.function(name)
        if callee is None:
            raise Unsupported(f"call to undeclared function `{name}`", self._span(inst))
        if callee.body is None:  # an external function: kept as a call, uninterpreted downstream
            types = tuple(p.type or ".b32" for p in callee.params)
            ret_types = tuple(p.type or ".b32" for p in callee.returns)
            operands = (ExternCall(name, types, ret_types),
                        tuple(self._operand(r, scope, inst) for r in rets),
                        tuple(self._operand(a, scope, inst) for a in args))
            guard_ref = None
            if guard is not None:
                ref = self._lookup_reg(guard.reg, scope, inst)
                guard_ref = (ref.index, guard.negated)
            self.ops.append((d, operands, guard_ref, self._span(inst), self.cuda))
            return
        if name in call_stack:
            raise Unsupported(f"recursive call to `{name}`", self._span(inst))
        n = next(self.counter)
        callee_prefix = f"{name}@{n}:"
        callee_scope = {}
        for decl in self.module.globals:
            for nm in decl.names:
                callee_scope[nm.name] = VarRef(nm.name, decl.space or ".global")
        # the callee's parameters are the caller's .param slots passed in
        for formal, actual in zip(callee.params, args):
            callee_scope[formal.names[0].name] = self._operand(actual, scope, inst)
        for formal, actual in zip(callee.returns, rets):
            callee_scope[formal.names[0].name] = self._operand(actual, scope, inst)
        ret_label = f"{callee_prefix}return"
        guard_skip = None
        if guard is not None:  # a guarded call: branch around the inlined body
            guard_skip = f"{callee_prefix}skip"
            ref = self._lookup_reg(guard.reg, scope, inst)
            self._emit_bra(guard_skip, (ref.index, not guard.negated), inst)
        caller_cuda = self.cuda
        self._body(callee.body, callee_scope, call_stack + (name,), ret_label, callee_prefix)
        self.cuda = caller_cuda
        self.labels[ret_label] = len(self.ops)
        if guard_skip:
            self.labels[guard_skip] = len(self.ops)

    def _emit_bra(self, label, guard, inst):
        skip = ast.Instruction("bra", (ast.Sym(label),), None, inst.line, inst.col)
        self.ops.append((decode(skip, self.file), (("label", label),), guard, self._span(inst), self.cuda))

    def _indirect_call(self, inst, d, target, rets, args, scope, call_stack, prefix):
        """A call through a register: a chain that runs, for each lane, the candidate its value names
        (volta/ir/indirect.py), ending in a pseudo-op for lanes whose value names no candidate."""
        ref = scope.get(target.name)
        if not isinstance(ref, RegRef):
            raise PtxSyntaxError(f"register `{target.name}` is not declared", self._span(inst))
        if self._taken is None:
            self._taken = indirect.address_taken(self.module)
        candidates, skipped = [], []
        for name in self._taken:
            fn = self.module.function(name)
            address = self.func_addresses[name]
            if len(fn.params) != len(args) or len(fn.returns) != len(rets):
                skipped.append((name, address, f"takes {len(fn.params)} parameters and returns "
                                f"{len(fn.returns)} values; the call passes {len(args)} and expects {len(rets)}"))
            elif name in call_stack:
                skipped.append((name, address, "a recursive call (calls are inlined)"))
            else:
                candidates.append((name, address))
        n = next(self.counter)
        done = f"{prefix}icall@{n}:done"
        if inst.guard is not None:
            g = self._lookup_reg(inst.guard.reg, scope, inst)
            self._emit_bra(done, (g.index, not inst.guard.negated), inst)
        for k, (name, address) in enumerate(candidates):
            pred = self._new_reg(f"{prefix}icall@{n}:p{k}", ".pred")
            nxt = f"{prefix}icall@{n}:next{k}"
            setp = ast.Instruction("setp.ne.u64", (ast.Reg(pred.name), target, ast.Imm(address)), None,
                                   inst.line, inst.col)
            self.ops.append((decode(setp, self.file), (pred, ref, ast.Imm(address)), None, self._span(inst),
                             self.cuda))
            self._emit_bra(nxt, (pred.index, False), inst)
            self._direct_call(inst, d, name, rets, args, scope, call_stack, prefix, None)
            self._emit_bra(done, None, inst)
            self.labels[nxt] = len(self.ops)
        miss = indirect.IndirectMiss(ref, tuple(candidates), tuple(skipped),
                                     tuple(self.func_addresses.items()))
        self.ops.append((dataclasses.replace(d, op=indirect.MISS_OP), (miss,), None, self._span(inst), self.cuda))
        self.labels[done] = len(self.ops)


def _array_len(dims) -> int:
    n = 1
    for d in dims:
        n *= d if d else 0 if d is None else 1
    return n if dims else 1


def _init_bytes(init, t: str, size: int, functions: dict | None = None, span: Span | None = None) -> bytes:
    """Flatten a numeric initializer to little-endian bytes of the declared element type; a function's
    name stands for its address (`functions`, volta/ir/indirect.py)."""
    import struct

    functions = functions or {}

    values = []

    def flat(v):
        if isinstance(v, tuple) and v and v[0] == "list":
            for x in v[1]:
                flat(x)
        elif isinstance(v, tuple) and v and v[0] in ("generic", "offset"):
            raise Unsupported("initializers holding a variable's address (generic(), name+offset) are not "
                              "modelled", span)
        elif isinstance(v, tuple):
            for x in v:
                flat(x)
        else:
            values.append(v)

    flat(init)
    width = type_size(t)
    out = bytearray()
    for v in values:
        if isinstance(v, ast.FloatImm):
            if v.bits is not None:
                out += v.bits.to_bytes(v.width // 8, "little")
            else:
                out += struct.pack("<f" if width == 4 else "<d", float(v.text))
        elif isinstance(v, ast.Sym) and v.name in functions:
            out += (functions[v.name] & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
        elif isinstance(v, ast.Sym):
            raise Unsupported(f"initializer holding the address of `{v.name}` (a variable's address is not "
                              f"modelled; function addresses are)", span)
        else:
            out += (int(v) & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
    out = out[:size]
    return bytes(out) + bytes(size - len(out))
