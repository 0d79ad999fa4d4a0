"""`volta check --fp ieee --prove`: identical bits for every input, proved rather than sampled.

Every instruction is a function of its operands' bits. Both kernels run once with symbolic data in
which each instruction applied to data builds the hash-consed term `opcode(arguments…)`: the opcode
text with all its modifiers names the function (`add.rn.ftz.f32` is not `add.rn.f32`), constants are
their bit patterns, input elements and symbolic scalars are leaves standing for their bits. Two
output elements that are the same term are the same function of the input bits (congruence), whatever
those functions are — so the proof does not depend on how well Volta models rounding. The one
identity used is commutativity of the opcodes in `COMMUTATIVE`, each checked against Volta's
bit-exact semantics by proofs/bit_identities.py. Layouts (which thread and register holds which
element) vanish because outputs are compared per element.

What differs is settled by the sampling comparison (`volta.equiv.bits`): a witness input makes it
BITS DIFFER; otherwise the element is UNKNOWN. Instructions with hidden state (carry chains), tensor
cores, atomics and external functions are refused (UNSUPPORTED), never approximated.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from volta.errors import Unsupported, UsageError
from volta.exec.access import region_itemsize
from volta.exec.launch import LaunchSpec
from volta.exec.machine import DATA, Machine, source_types
from volta.ir.program import RegRef, lower
from volta.ptx import ast
from volta.ptx.parser import parse_file
from volta.semantics.bits import is_float, mask, width
from volta.symbolic import expr as E

# Opcodes (base name) whose result does not depend on the order of the first two sources, for every
# type and modifier they take (proofs/bit_identities.py checks each against volta.semantics.compute).
COMMUTATIVE = frozenset({"add", "mul", "fma", "mad", "and", "or", "xor", "min", "max"})
COMMUTATIVE_CMP = frozenset({".eq", ".ne", ".equ", ".neu", ".num", ".nan"})
HIDDEN_STATE = frozenset({"addc", "subc", "madc"})
MODULAR = frozenset({".s16", ".u16", ".b16", ".s32", ".u32", ".b32", ".s64", ".u64", ".b64"})


def modular_sum(w: int, args: tuple) -> E.Expr:
    """Integer `add` without .sat: addition modulo 2^w is associative and commutative, so a sum is the
    multiset of its summands whatever the tree or the signedness (`add.s32` and `add.u32` agree bitwise)."""
    name = f"add.mod2^{w}"
    flat, constant = [], 0
    for a in args:
        for x in (a.args if a.op is E.CALL and a.data == name else (a,)):
            if x in _CONSTANT_BITS:
                constant += _CONSTANT_BITS[x]   # constants fold, and + 0 vanishes: exact modulo 2^w
            else:
                flat.append(x)
    constant &= (1 << w) - 1
    if constant:
        flat.append(bit_constant(constant, f".b{w}"))
    if len(flat) == 1:
        return flat[0]
    return E.call(name, *sorted(flat, key=lambda n: n.id))


def term(opcode: str, args: tuple, commutative: bool = False) -> E.Expr:
    """`opcode(args…)` as a hash-consed node; the first two arguments sorted when they commute."""
    if commutative and len(args) >= 2 and args[1].id < args[0].id:
        args = (args[1], args[0]) + tuple(args[2:])
    return E.call(opcode, *args)


def bit_constant(bits: int, t: str | None) -> E.Expr:
    """A constant by its bit pattern (so +0 and -0, and NaN payloads, stay apart)."""
    w = width(t) if t and t != ".pred" else 64
    bits = int(bits) & ((1 << w) - 1)
    node = E.call(f"{t or '.b64'}#{bits:x}")
    _CONSTANT_BITS[node] = bits
    return node


_CONSTANT_BITS: dict = {}  # bit-constant node -> its bits


class TermMachine(Machine):
    """The SIMT machine with data as bit-function terms (see the module docstring)."""

    bit_terms = True

    def __init__(self, prog, launch, buffers, symbols=None, **kw):
        super().__init__(prog, launch, buffers, symbols, symbolic=True, lane_structured=False,
                         check_races=True, structured=True, **kw)

    def read_sym(self, operand, lanes, t):
        raw = self.sym_of(operand, lanes)
        out = np.empty(lanes.size, dtype=object) if raw is None else raw.copy()
        need = np.arange(lanes.size) if raw is None else np.flatnonzero(raw == None)  # noqa: E711
        if need.size:
            bits, _ = self.read(operand, lanes[need], t)
            if t is not None and t != ".pred" and width(t) < 64:
                bits = mask(bits, width(t))
            unique, inverse = np.unique(bits, return_inverse=True)
            made = np.empty(unique.size, dtype=object)
            made[:] = [bit_constant(int(b), ".pred" if t == ".pred" else t) for b in unique]
            out[need] = made[inverse.reshape(-1)]
        return out

    def _real_compute(self, op, lanes, srcs, flags, t):
        d = op.d
        if d.op in HIDDEN_STATE or d.has(".cc"):
            raise Unsupported(f"`{d.inst.opcode}` reads or writes the carry flag, hidden state that bit terms "
                              f"do not follow", op.span)
        data = (flags & DATA) != 0
        dl = lanes[data]
        args = [self.read_sym(s, dl, st) for s, st in zip(srcs, source_types(op))]
        out = np.full(lanes.size, None, dtype=object)
        if d.op == "selp":   # a known predicate picks its operand: exactly that operand's bits
            out[data] = [a if c in _CONSTANT_BITS and _CONSTANT_BITS[c] else
                         b if c in _CONSTANT_BITS else term(d.inst.opcode, (a, b, c)) for a, b, c in zip(*args)]
            return out
        if d.op == "add" and t in MODULAR and not d.has(".sat"):
            out[data] = [modular_sum(width(t), a) for a in zip(*args)]
            return out
        commutative = d.op in COMMUTATIVE
        out[data] = [term(d.inst.opcode, a, commutative) for a in zip(*args)]
        return out

    def setp_terms(self, op, lanes, flags, t, has_c):
        """`setp` on data: the predicate term, and for `p|q` the term of the second destination."""
        data = (flags & DATA) != 0
        dl = lanes[data]
        srcs = op.operands[1:4] if has_c else op.operands[1:3]
        types = [t, t, ".pred"][:len(srcs)]
        args = [self.read_sym(s, dl, st) for s, st in zip(srcs, types)]
        commutative = op.d.cmp in COMMUTATIVE_CMP
        ps = np.full(lanes.size, None, dtype=object)
        qs = np.full(lanes.size, None, dtype=object)
        ps[data] = [term(op.d.inst.opcode, a, commutative) for a in zip(*args)]
        qs[data] = [term(op.d.inst.opcode + "#q", a, commutative) for a in zip(*args)]
        return ps, qs


@dataclass
class BitProof:
    """The outcome of `prove_bits`. verdict: bit-identical | bits-differ | unknown | findings | unsupported."""

    verdict: str
    compared: int = 0
    proved: int = 0                 # elements whose two terms (or concrete bits) are identical
    unproved: list = field(default_factory=list)   # (buffer, index) not proved identical
    sampled: object = None          # volta.equiv.bits.BitsReport of the sampling search, when it ran
    divergence: object = None       # where the bits part (HEAL's diagnosis), when a witness was found
    witness: dict | None = None     # --batch-invariant: the input and element whose bits depend on the batch
    findings: dict = field(default_factory=dict)
    unsupported: object = None      # (role, Unsupported)
    kernels: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        return {"bit-identical": 0, "bits-differ": 1, "findings": 1}.get(self.verdict, 3)


def element_terms(m: Machine, spec: LaunchSpec) -> dict:
    """Per out/inout buffer: per element its term, or ('bits', word) where the kernel stored a constant,
    or ('input', index) where it never wrote an inout element."""
    result = {}
    for name, buf in spec.buffers.items():
        if buf.role not in ("out", "inout"):
            continue
        region = m.buffer_regions[name]
        size = region_itemsize(region)
        words = np.array(region.data[0, :buf.nbytes], dtype=np.uint8).view(
            {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
        elements = []
        for i in range(buf.count):
            off = i * size
            written = region.kwritten is not None and region.kwritten[0, off:off + size].all()
            stored = region.sym[0, off] if region.sym is not None else None
            if stored is not None and region.symsize[0, off] == size:
                elements.append(stored)
            elif written:
                elements.append(("bits", int(words[i])))
            else:
                elements.append(("input", i) if buf.role == "inout" else ("unwritten", int(words[i])))
        result[name] = elements
    return result


def prove_bits(spec: LaunchSpec, fp: str = "ieee", trials: int = 4, seed: int = 0,
               batch_invariant: bool = False) -> BitProof:
    """BIT-IDENTICAL when every output element is the same term in both kernels; else search for a witness.

    `batch_invariant`: ref and opt are one kernel at two launch sizes (M and 2M rows); only the elements
    the smaller launch (ref) writes are compared — the rows both compute must not depend on the batch."""
    from volta.exec.launch import single_launches

    single_launches(spec, "volta check --prove")
    from volta.equiv.bits import FP_MODES, check_bits

    if fp not in FP_MODES:
        raise UsageError(f"--prove compares bits: choose --fp {', '.join(FP_MODES)}")
    if "ref" not in spec.launches or "opt" not in spec.launches:
        raise UsageError("a bit-identity proof needs two kernels: REF.ptx OPT.ptx, or a manifest with [ref] and [opt]")
    if spec.functions:
        raise UsageError("--define-fn gives real meanings; a bit-identity proof has no use for them")
    start = time.perf_counter()
    proof = BitProof("bit-identical")
    progs = {role: lower(parse_file(spec.launches[role].ptx), spec.launches[role].kernel) for role in ("ref", "opt")}
    terms = {}
    for role, prog in progs.items():
        proof.kernels[role] = prog.name
        try:
            m = TermMachine(prog, spec.launches[role], spec.buffers, spec.symbols, fp=fp,
                            allow_exit_before_barrier=spec.allow_exit_before_barrier).run()
        except Unsupported as err:
            proof.verdict, proof.unsupported = "unsupported", (role, err)
            proof.seconds = time.perf_counter() - start
            return proof
        proof.findings[role] = m.findings
        terms[role] = element_terms(m, spec)
    if any(proof.findings.values()):
        proof.verdict = "findings"
        proof.seconds = time.perf_counter() - start
        return proof
    for name, ref_elements in terms["ref"].items():
        for i, (a, b) in enumerate(zip(ref_elements, terms["opt"][name])):
            if batch_invariant and isinstance(a, tuple) and a[0] != "bits":
                continue   # a row only the larger launch computes
            proof.compared += 1
            if a is b or (isinstance(a, tuple) and a == b):
                proof.proved += 1
            else:
                proof.unproved.append((name, i))
    if batch_invariant and not proof.compared:
        raise UsageError("--batch-invariant compares the elements the ref launch writes, and it writes none")
    if proof.unproved and batch_invariant:
        proof.witness = _row_witness(spec, fp, proof.unproved, trials, seed)
        proof.verdict = "bits-differ" if proof.witness is not None else "unknown"
    elif proof.unproved:
        sampled, divergence, _ = check_bits(spec, fp=fp, trials=trials, seed=seed)
        proof.sampled, proof.divergence = sampled, divergence
        if sampled.unsupported is not None:
            proof.verdict, proof.unsupported = "unsupported", sampled.unsupported
        elif not sampled.identical and sampled.witness is not None:
            proof.verdict = "bits-differ"
        else:
            proof.verdict = "unknown"
    proof.seconds = time.perf_counter() - start
    return proof


def _row_witness(spec, fp, elements, trials, seed) -> dict | None:
    """An input on which some of `elements` differ between the two launches (same buffers), or None."""
    from volta.equiv.bits import GENERATORS, Runner, _seed, make_inputs, output_words

    runner = Runner(spec, fp)
    for g, gen in enumerate(GENERATORS):
        for trial in range(trials):
            s = _seed(seed, g, trial)
            inputs, scalars = make_inputs(spec, gen, s)
            words = {role: output_words(runner.run(role, {k: v.copy() for k, v in inputs.items()}, scalars), spec)
                     for role in ("ref", "opt")}
            for name, i in elements:
                a, b = int(words["ref"][name][i]), int(words["opt"][name][i])
                if a != b:
                    return {"generator": gen, "trial": trial, "seed": s, "buffer": name, "index": i,
                            "ref_bits": a, "opt_bits": b}
    return None
