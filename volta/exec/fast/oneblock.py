"""Straight-line runs of one-thread steps compiled into one Python function (issue 9, "few lanes, long loops").

A step closure (volta/exec/fast/onestep.py) costs a call, a trip round the run loop, and a tuple per register it
reads or writes. A loop body of loads, fmas and index arithmetic is a run of such steps that ends in a
branch; here the run is generated as Python source once, with registers in local variables (bits, flags,
expression of register 5 are `b5, f5, e5`), the tests each step closure makes at run time dropped where
the flags are known when the run is compiled (an index computed in the run is concrete; a leaf or a sum of
products is data), and registers written back to the cache only when the run ends.

The semantics are the step closures' (same intscalar functions, same expression constructors, same tests
on memory): a run that meets anything a step closure would send to the general path stops before that
step, writes back what it changed, and the step closure takes it from there. Runs contain no stores,
barriers or guarded steps other than a final branch, so nothing they read can change under them.
tests/exec/test_oneblock.py compares every register and counter with runs on and off.
"""
from __future__ import annotations

from volta.exec.fast import onestep as S
from volta.exec.state.services import DATA
from volta.semantics.bits import width
from volta.symbolic import expr as E
from volta.symbolic.expr import Expr

MAX_STEPS = 64
_DIRECT = {"add": E.add, "sub": E.sub, "mul": E.mul, "fma": E.fma, "mad": E.fma, "neg": E.neg,
           "max": E.maximum, "min": E.minimum, "div": E.div, "ex2": E.exp2, "sqrt": E.sqrt, "rsqrt": E.rsqrt,
           "lg2": E.lg2, "tanh": E.tanh, "sin": E.sin, "cos": E.cos}   # realops.TABLE without `d` (no .relu:
# arith_shape; rcp reads `d`: .approx is its own atom, so it takes the step closure)


class Block:
    __slots__ = ("run", "steps", "source")

    def __init__(self, run, steps, source):
        self.run, self.steps, self.source = run, steps, source   # run() -> (next pc, steps done)


def compile_block(m, ops, pc, regs) -> Block | None:
    """The run of steps from `pc` (up to a branch, a step it does not cover, or MAX_STEPS), or None when
    that run is shorter than two steps."""
    if not m.fast.blocks:
        return None
    gen = _Generator(m, regs, pc)
    for op in ops[pc:pc + MAX_STEPS]:
        if not gen.emit(op) or op.op == "bra":
            break
    if gen.done < 2:
        return None
    return gen.finish()


class _Generator:
    def __init__(self, m, regs, pc):
        self.m, self.regs, self.pc = m, regs, pc
        self.lines: list[str] = []
        self.env = {"vals": regs.vals, "fill": regs.fill, "dirty": regs.dirty, "regs": regs, "m": m,
                    "inputs": regs.inputs, "DATA": DATA, "Expr": Expr, "INTEGER": bool(m.integers),
                    "input_region": S.input_region, "new_leaf": S.new_leaf}
        self.known: dict[int, tuple] = {}   # register -> (flags if known else None, expression known to be an Expr)
        self.written: list[int] = []
        self.done = 0            # steps emitted
        self.ended = False       # the last step returned (a branch)
        self.checked_integer = False
        self.loads = 0
        self.bases: dict[tuple, tuple] = {}   # (base register, element size) -> its first load in the run

    # ---- operands
    def operand(self, slot):
        """(bits, flags, expression) as source text, and (known flags, known Expr) of a register slot."""
        if slot >= len(self.m.regs):   # an immediate's slot: its triple is fixed (Registers.constant)
            bits, flags, e = self.regs.vals[slot]
            return (repr(bits), repr(flags), "None"), (flags, False)
        if slot not in self.known:
            self.line(f"b{slot}, f{slot}, e{slot} = vals[{slot}] or fill({slot})")
            self.known[slot] = (None, False)
        return (f"b{slot}", f"f{slot}", f"e{slot}"), self.known[slot]

    def write(self, o, bits, flags, expr, known):
        self.line(f"b{o}, f{o}, e{o} = {bits}, {flags}, {expr}")
        self.known[o] = known
        for key in [k for k in self.bases if k[0] == o]:
            del self.bases[key]   # a new base value: its loads start over
        if o not in self.written:
            self.written.append(o)

    def name(self, value, prefix="k"):
        key = f"{prefix}{len(self.env)}"
        self.env[key] = value
        return key

    def line(self, text):
        self.lines.append("    " + text)

    def leave(self, pc, steps, indent=""):
        """Lines that write back the registers written so far and return (pc, steps), at `indent`."""
        out = [f"vals[{i}] = (b{i}, f{i}, e{i})" for i in self.written]
        if self.written:
            out.append(f"dirty.update({tuple(self.written)!r})")
        out.append(f"return {pc}, {steps}")
        for text in out:
            self.line(indent + text)

    def bail_if(self, condition, op):
        """Stop before `op` when `condition` holds at run time (the step closure then runs `op`)."""
        self.line(f"if {condition}:")
        self.leave(op.index, self.done, "    ")

    # ---- steps
    def emit(self, op) -> bool:
        if op.guard is not None and op.op != "bra":
            return False
        handler = {"bra": self._bra, "mov": self._mov, "setp": self._setp, "ld": self._load,
                   "ldu": self._load}.get(op.op, self._arith)
        mark = (len(self.lines), dict(self.known), list(self.written), dict(self.bases))
        if not handler(op):
            self.lines[mark[0]:] = []
            self.known, self.written, self.bases = mark[1], mark[2], mark[3]
            return False
        self.done += 1
        return True

    def _bra(self, op):
        target = op.operands[0][1]
        if op.guard is None:
            self.leave(target, self.done + 1)
            self.ended = True
            return True
        g, negated = op.guard
        (bits, _, _), _ = self.operand(g)
        self._concrete([g], op)
        self.line(f"m.last_branch[regs.lane] = {op.index}")
        self.line(f"if ({bits} != 0) == {negated!r}:")
        self.line("    regs.skipped += 1")
        self.leave(op.index + 1, self.done + 1, "    ")
        self.leave(target, self.done + 1)
        self.ended = True
        return True

    def _mov(self, op):
        shape = S.mov_shape(self.m, op, self.regs)
        if shape is None:
            return False
        src, o, mk = shape
        (bits, flags, e), known = self.operand(src)
        self.write(o, f"{bits} & {mk}", flags, e, known)
        return True

    def _setp(self, op):
        shape = S.setp_shape(self.m, op, self.regs)
        if shape is None:
            return False
        cmp, srcs, dst = shape
        (a, _), (b, _) = (self.operand(i) for i in srcs)
        self._concrete(srcs, op)
        fn = self.name(cmp, "cmp")
        self.write(dst[0], f"1 if {fn}({a[0]}, {b[0]}) else 0", "0", "None", (0, False))
        return True

    def _concrete(self, slots, op):
        """Stop before `op` unless the registers `slots` hold concrete values (flags 0); known from then on."""
        unknown = [f"f{i}" for i in dict.fromkeys(slots) if i < len(self.m.regs) and self.known[i][0] != 0]
        if unknown:
            self.bail_if(" or ".join(unknown), op)
        for i in slots:
            if i < len(self.m.regs):
                self.known[i] = (0, False)

    def _arith(self, op):
        shape = S.arith_shape(self.m, op, self.regs)
        if shape is None:
            return False
        srcs, (o, mk), scalar, real = shape
        operands = [self.operand(i)[0] for i in srcs]
        if scalar is not None:
            self._concrete(srcs, op)
            bits = [b for b, _, _ in operands]
            if op.op in ("add", "sub") and len(bits) == 2:   # intscalar._addsub, inline
                sign = "+" if op.op == "add" else "-"
                value = f"({bits[0]} {sign} {bits[1]}) & {mk & ((1 << width(op.d.types[-1])) - 1)}"
            else:
                value = f"{self.name(scalar, 'int')}({', '.join(bits)}) & {mk}"
            self.write(o, value, "0", "None", (0, False))
            return True
        if real is None or op.op not in _DIRECT or all(i >= len(self.m.regs) for i in srcs):
            return False   # (immediates only: concrete arithmetic, the step's business)
        args, unknown = [], []
        for i, (bits, flags, e) in zip(srcs, operands):
            if i >= len(self.m.regs):   # an immediate: decoded now, as the step decodes it
                c = S.decode_float(op.d.types[-1], int(bits), self.m.named)
                if c is None:
                    return False
                args.append(self.name(c, "c"))
                continue
            if self.known[i] != (DATA, True):
                unknown.append(f"({flags} != DATA or type({e}) is not Expr)")
                self.known[i] = (DATA, True)   # from here on, past the test
            args.append(e)
        if not self.checked_integer:
            unknown.insert(0, "INTEGER")
            self.checked_integer = True
        if unknown:
            self.bail_if(" or ".join(unknown), op)
        fn = self.name(_DIRECT[op.op], "real")
        self.write(o, "0", "DATA", f"{fn}({', '.join(args)})", (DATA, True))
        return True

    def _load(self, op):
        shape = S.load_shape(self.m, op, self.regs)
        if shape is None:
            return False
        base, offset, es, size, align, puts = shape
        (bits, _, _), _ = self.operand(base)
        self._concrete([base], op)
        seen = self.bases.get((base, es))
        if seen is None:   # the step closure's tests, in full
            n = self.loads = self.loads + 1
            self.line(f"a_ = ({bits} + {offset}) & {S.MASK64}")
            self.line(f"key_ = (a_ >> {S.GLOBAL_SHIFT}, {es})")
            self.line(f"entry{n} = inputs.get(key_)")
            self.line(f"if entry{n} is None:")
            self.line(f"    entry{n} = inputs[key_] = input_region(m, key_[0], {es})")
            self.bail_if(f"entry{n} is False", op)
            self.line(f"region{n}, words{n}, leaves{n}, _ = entry{n}")
            self.line(f"o{n} = a_ & {S.OFFSET_MASK}")
            self.bail_if(f"o{n} + {size} > region{n}.size or o{n} % {align} or region{n}.sym is not None"
                         f" or region{n}.kwritten is not None or region{n}.lsref is not None", op)
            self.bases[(base, es)] = (n, offset, size, align)
            at = f"o{n}"
        else:   # the same base again: the same region, unchanged (a run stores nothing); only the bounds move
            n, first, first_size, first_align = seen
            delta = offset - first
            at = f"(o{n} + {delta})" if delta else f"o{n}"
            tests = [f"{at} < 0"] if delta < 0 else []
            if delta + size > first_size:
                tests.append(f"{at} + {size} > region{n}.size")
            if first_align % align or delta % align:
                tests.append(f"{at} % {align}")
            if tests:
                self.bail_if(" or ".join(tests), op)
        self.line(f"i_ = {at} // {es}")
        for j, (r, mk) in enumerate(puts):
            at = f"i_ + {j}" if j else "i_"
            self.line(f"leaf_ = leaves{n}.get({at})")
            self.line("if leaf_ is None:")
            self.line(f"    leaf_ = new_leaf(entry{n}, {at}, {es})")
            bits = f"words{n}[{at}]" + (f" & {mk}" if mk < (1 << 8 * es) - 1 else "")
            self.write(r, bits, "DATA", "leaf_", (DATA, True))
        return True

    def finish(self) -> Block:
        if not self.ended:
            self.leave(self.pc + self.done, self.done)
        names = ", ".join(self.env)
        source = f"def make({names}):\n  def run():\n" + "\n".join("  " + t for t in self.lines) + "\n  return run\n"
        space: dict = {}
        exec(compile(source, f"<one-thread run at {self.pc}>", "exec"), space)
        return Block(space["make"](**self.env), self.done, source)
