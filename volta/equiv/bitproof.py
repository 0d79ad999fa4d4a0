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
BITS DIFFER; otherwise the element is UNKNOWN. Instructions with hidden state (carry chains), atomics
and external functions are refused (UNSUPPORTED), never approximated.

Tensor cores: `mma.sync` is, per output element, the uninterpreted term `mma.<model><shape><types>(a_row…,
b_col…, c)` with A's row and B's column in increasing k, the fragments mapped to matrix coordinates by the
concrete executor's own layout tables (volta.exec.tensor). The model (the architecture row of
volta.numerics.mma_model) is part of the name, and k is never reordered: the models round per group of k
(proofs/mma_terms.md). `ldmatrix`, `ldmatrix.trans` and `movmatrix` only move terms. Under `--fp ieee` a
floating-point mma has no IEEE definition and is refused; f64 (an fma chain) and integer mma are exact.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from volta.equiv.bits import FP_MODES, GENERATORS, Runner, _seed, make_inputs, output_words
from volta.equiv.diverge import check_bits
from volta.errors import Unsupported, UsageError
from volta.exec import access as A
from volta.exec import tensor as T
from volta.exec.access import region_itemsize
from volta.exec.table import REAL, _advance, _data_flag, _merge
from volta.launch.spec import LaunchSpec, single_launches
from volta.exec.machine import DATA, Machine
from volta.exec.operands import source_types
from volta.ir.program import RegRef, lower
from volta.numerics.mma_model import arch_name
from volta.numerics.mma_select import MmaSetting
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


def element(word: E.Expr, sub: int, ew: int) -> E.Expr:
    """Element `sub` (ew bits wide) of a packed register's term: exact for a constant and for a `pack`."""
    if word in _CONSTANT_BITS and sub == 0 and _is_width(word, ew):
        return word
    if word in _CONSTANT_BITS:
        return bit_constant((_CONSTANT_BITS[word] >> (sub * ew)) & ((1 << ew) - 1), f".b{ew}")
    if word.op is E.CALL and word.data == f"pack.b{ew}":
        return word.args[sub]
    return E.call(f"bits{ew}@{sub * ew}", word)


def pack(elements, ew: int) -> E.Expr:
    """A register holding `elements` (low first): exact inverse of `element`, so a register that is only
    unpacked and packed again is its own term."""
    if len(elements) == 1:
        return elements[0]
    if all(e in _CONSTANT_BITS for e in elements):
        return bit_constant(sum(_CONSTANT_BITS[e] << (k * ew) for k, e in enumerate(elements)),
                            f".b{ew * len(elements)}")
    first = elements[0]
    if first.op is E.CALL and first.data == f"bits{ew}@0":
        whole = first.args[0]
        if all(e.op is E.CALL and e.data == f"bits{ew}@{k * ew}" and e.args[0] is whole
               for k, e in enumerate(elements)):
            return whole
    return E.call(f"pack.b{ew}", *elements)


def _is_width(node, ew):
    return node.data.split("#")[0] in (f".b{ew}", f".f{ew}", f".s{ew}", f".u{ew}")


def mma_model(fp: str, in_fmt: str) -> str | None:
    """The name of the function an mma computes: the architecture row, or an exact definition; None under
    --fp ieee for floating-point inputs, which IEEE arithmetic does not define."""
    if in_fmt in ("s8", "u8"):
        return "exact-int"        # integer products and sums, exactly (wrapping or .satfinite)
    if in_fmt == "f64":
        return "f64-fma-chain"    # an IEEE fma chain in increasing k on every architecture
    if fp in ("ieee", "real"):
        return None               # no IEEE definition of a floating-point tensor-core MMA
    return arch_name(fp)


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

    # ---- tensor cores: uninterpreted, exactly named terms; matrix moves move terms -------------------
    def _execute(self, op, lanes):
        handler = {"mma": self._mma_terms, "ldmatrix": self._ldmatrix_terms,
                   "movmatrix": self._movmatrix_terms}.get(op.op)
        if op.op == "mov" and any(isinstance(x, ast.Vector) for x in op.operands[:2]):
            handler = self._mov_vector_terms
        if handler is not None:
            self.thread_instructions += lanes.size
            return handler(op, lanes)
        if op.op in ("cp", "mbarrier"):   # data movement: the copied terms land with the bytes (copy_real.py)
            self.thread_instructions += lanes.size
            return REAL[op.op](self, op, lanes)
        if op.op in ("wmma", "wgmma", "stmatrix"):
            raise Unsupported(f"`{op.d.inst.opcode}` is not followed by bit terms (only mma.sync, ldmatrix and "
                              f"movmatrix are)", op.span)
        return super()._execute(op, lanes)

    def _mov_vector_terms(self, op, lanes):
        """`mov.b32 r, {h0, h1}` packs element terms; `mov.b32 {h0, h1}, r` takes them apart (exactly)."""
        dst, src = op.operands
        t = op.d.types[-1] if op.d.types else ".b64"
        if isinstance(src, ast.Vector):
            ew = width(t) // len(src.elems)
            bits, flags = np.zeros(lanes.size, np.uint64), None
            for k, e in enumerate(src.elems):
                v, f = self.read(e, lanes, f".b{ew}")
                bits |= mask(v, ew) << np.uint64(k * ew)
                flags = _merge(flags, f)
            sym = None
            if flags is not None and (flags & DATA).any():
                parts = [self.read_sym(e, lanes, f".b{ew}") for e in src.elems]
                sym = np.full(lanes.size, None, dtype=object)
                for i in np.flatnonzero(flags & DATA):
                    sym[i] = pack([p[i] for p in parts], ew)
            self.write(dst, lanes, bits, flags, sym)
        else:
            v, f = self.read(src, lanes, t)
            ew = width(t) // len(dst.elems)
            data = np.flatnonzero(f & DATA) if f is not None else np.array([], np.int64)
            whole = self.read_sym(src, lanes, t) if data.size else None
            for k, e in enumerate(dst.elems):
                sym = None
                if data.size:
                    sym = np.full(lanes.size, None, dtype=object)
                    for i in data:
                        sym[i] = element(whole[i], k, ew)
                self.write(e, lanes, mask(v >> np.uint64(k * ew), ew), f, sym)
        _advance(self, lanes)

    def _register_terms(self, regs, flat, t):
        """Per register (a list) the lanes' terms (object arrays), and the OR of their flags."""
        flags = np.zeros(flat.size, np.uint8)
        terms = []
        for r in regs:
            _, f = self.read(r, flat, t)
            if f is not None:
                flags |= f
            terms.append(self.read_sym(r, flat, t))
        return terms, flags

    def _tile_terms(self, terms, grid, per_reg, ew, table, shape):
        """Register terms → (W, rows, cols) object tiles of element terms, through the executor's layout."""
        rows, cols = table
        W = grid.shape[0]
        tile = np.empty((W,) + shape, dtype=object)
        for s in range(rows.shape[1]):
            reg, sub = divmod(s, per_reg)
            for w in range(W):
                for lane in range(32):
                    word = terms[reg][w * 32 + lane]   # one element per register: the register's own term
                    tile[w, rows[lane, s], cols[lane, s]] = (element(word, sub, ew) if per_reg > 1 or
                                                             word in _CONSTANT_BITS else word)
        return tile

    def _mma_terms(self, op, lanes):
        key, dt, at, bt, ct = T._mma_kind(op)
        (M, N, K), la, lb, lc, per_reg = T.MMA_SHAPES[key]
        model = mma_model(self.fp, at)
        if model is None:
            raise Unsupported(f"`{op.d.inst.opcode}` on {at} inputs has no IEEE semantics (the PTX ISA leaves "
                              f"tensor-core rounding unspecified): prove per architecture, e.g. --fp ampere",
                              op.span)
        grid = T._full_warps(self, op, lanes)
        if grid is None:
            return
        flat = grid.reshape(-1)
        W = grid.shape[0]
        d_op, a_op, b_op, c_op = op.operands[:4]
        ra, rb, rc, rd = T._regs(a_op), T._regs(b_op), T._regs(c_op), T._regs(d_op)
        ew, bw, cw = T._WIDTH[at], T._WIDTH[bt], T._WIDTH[ct]
        a_per = per_reg if at != "f64" else 1
        c_per = 2 if ct == "f16" else 1
        if len(ra) * a_per != M * K // 32 or len(rc) * c_per != M * N // 32 or len(rd) != len(rc):
            raise Unsupported(f"`{op.d.inst.opcode}`: wrong number of fragment registers", op.span)
        ta, fa = self._register_terms(ra, flat, f".b{ew * a_per}")   # .b32, or .b64 for f64 fragments
        tb, fb = self._register_terms(rb, flat, f".b{bw * a_per}")
        tc, fc = self._register_terms(rc, flat, f".b{cw * c_per}")
        At = self._tile_terms(ta, grid, a_per, ew, T.layout_table(la, M * K // 32), (M, K))
        Bt = self._tile_terms(tb, grid, a_per, bw, T.layout_table(lb, K * N // 32), (K, N))
        Ct = self._tile_terms(tc, grid, c_per, cw, T.layout_table(lc, M * N // 32), (M, N))
        name = f"mma.{model}{op.d.shape}.row.col{''.join(op.d.types)}" + (".satfinite" if op.d.has(".satfinite")
                                                                          else "")
        Dt = np.empty((W, M, N), dtype=object)
        for w in range(W):
            for i in range(M):
                for j in range(N):   # A's row and B's column in increasing k, then c: never reordered
                    Dt[w, i, j] = E.call(name, *At[w, i, :], *Bt[w, :, j], Ct[w, i, j])
        rows, cols = T.layout_table(lc, M * N // 32)
        flags = np.repeat(np.full(W, DATA, np.uint8) | np.bitwise_or.reduce(
            ((fa | fb | fc) & 2).reshape(W, 32), axis=1), 32)
        for k, r in enumerate(rd):
            sym = np.empty(flat.size, dtype=object)
            for w in range(W):
                for lane in range(32):
                    slots = range(k * c_per, (k + 1) * c_per)
                    sym[w * 32 + lane] = pack([Dt[w, rows[lane, s], cols[lane, s]] for s in slots], cw)
            self.write(r, flat, np.zeros(flat.size, np.uint64), flags, sym)
        _advance(self, flat)

    def _load_words(self, op, space, addr, lanes, size):
        """`size`-byte words at `addr` for `lanes` (unique): bits, flags (DATA where a term was stored or
        the word is an input element; UNDEF carried) and terms (None where concrete). No race tracking."""
        bits = np.zeros(lanes.size, np.uint64)
        flags = np.zeros(lanes.size, np.uint8)
        sym = np.full(lanes.size, None, dtype=object)
        pos_of = {int(x): k for k, x in enumerate(lanes)}
        for region, lz, offs in A.resolve(self, op, space, addr, lanes, size, False):
            if region == "kernel-param":
                raise Unsupported(f"`{op.d.inst.opcode}` from kernel parameters", op.span)
            p = np.array([pos_of[int(x)] for x in lz], np.int64)
            b, u = A.load(self, region, lz, offs, size)
            bits[p] = b
            if u is not None:
                flags[p] |= u & 2
            carried = _data_flag(self, region, lz, offs, size)
            if carried is not None:
                flags[p] |= carried & 2
            s = A.load_sym(self, op, region, lz, offs, size, f".b{8 * size}", b)
            sym[p] = s
            flags[p] |= (s != None).astype(np.uint8)  # noqa: E711
        return bits, flags, sym

    def _ldmatrix_terms(self, op, lanes):
        """ldmatrix: each register is the word (or with .trans the two b16 of two rows) the layout names."""
        if op.d.shape != ".m8n8" or (op.d.types and op.d.types[-1] != ".b16"):
            raise Unsupported(f"`{op.d.inst.opcode}`: only .m8n8 .b16 is modelled", op.span)
        nm = 4 if op.d.has(".x4") else 2 if op.d.has(".x2") else 1
        trans = op.d.has(".trans")
        grid = T._full_warps(self, op, lanes)
        if grid is None:
            return
        dst, src = op.operands
        regs = T._regs(dst)
        if len(regs) != nm:
            raise Unsupported(f"`{op.d.inst.opcode}` needs {nm} destination registers", op.span)
        W = grid.shape[0]
        providers = grid[:, : 8 * nm]   # lanes 8i..8i+7 give the row addresses of matrix i
        addr = A.addresses(self, op, src, providers.reshape(-1)).reshape(W, 8 * nm)
        space = op.d.space or None
        for region, lz, offs in A.resolve(self, op, space, addr.reshape(-1), providers.reshape(-1), 16, False):
            if region == "kernel-param":
                raise Unsupported(f"`{op.d.inst.opcode}` from kernel parameters", op.span)
            if region.space in (".global", ".shared"):   # reads belong to the lane giving the row address
                A.track(self, op, region, lz, offs, 16, write=False)
        flat = grid.reshape(-1)
        lane = np.arange(32)
        for i, reg in enumerate(regs):
            parts = []
            whole = None
            if not trans:   # a 32-bit word stored whole (f32/tf32 data): its own term
                r, c = T.ldmatrix_layout(lane, 0, False)
                try:
                    whole = self._load_words(op, space, (addr[:, 8 * i + r] + (2 * c).astype(np.uint64)).reshape(-1),
                                             flat, 4)
                except Unsupported:
                    whole = None   # stored as two b16 elements: take them one by one below
            for j in ((0, 1) if whole is None else ()):
                r, c = T.ldmatrix_layout(lane, j, trans)   # element j of lane's register: row r, b16 column c
                words = addr[:, 8 * i + r] + (2 * c).astype(np.uint64)
                parts.append(self._load_words(op, space, words.reshape(-1), flat, 2))
            if whole is None:
                (b0, f0, s0), (b1, f1, s1) = parts
                bits, flags = b0 | (b1 << np.uint64(16)), f0 | f1
                sym = np.full(flat.size, None, dtype=object)
                for k in np.flatnonzero((s0 != None) | (s1 != None)):  # noqa: E711
                    sym[k] = pack([x[k] if x[k] is not None else bit_constant(int(b[k]), ".b16")
                                   for x, b in ((s0, b0), (s1, b1))], 16)
            else:
                bits, flags, sym = whole
            self.write(reg, flat, bits, flags, sym)
        _advance(self, flat)

    def _movmatrix_terms(self, op, lanes):
        """movmatrix.trans: the 8x8 b16 matrix held as ldmatrix holds it, transposed across the warp."""
        if op.d.shape != ".m8n8" or not op.d.has(".trans") or (op.d.types and op.d.types[-1] != ".b16"):
            raise Unsupported(f"`{op.d.inst.opcode}`: only .m8n8.trans.b16 is modelled", op.span)
        grid = T._full_warps(self, op, lanes)
        if grid is None:
            return
        flat = grid.reshape(-1)
        dst, src = op.operands
        bits, f = self.read(src, flat, ".b32")
        terms = self.read_sym(src, flat, ".b32")
        lane = np.arange(32)
        sym = np.empty(flat.size, dtype=object)
        out = np.zeros(flat.size, np.uint64)
        for w in range(grid.shape[0]):
            for ln in range(32):
                elems = []
                for j in (0, 1):
                    r, c = T.ldmatrix_layout(lane[ln], j, True)   # element (r, c) of the source matrix
                    src_lane, sub = w * 32 + r * 4 + c // 2, c % 2
                    elems.append(element(terms[src_lane], sub, 16))
                    out[w * 32 + ln] |= ((bits[src_lane] >> np.uint64(16 * sub)) & np.uint64(0xFFFF)) << np.uint64(16 * j)
                sym[w * 32 + ln] = pack(elems, 16)
        flags = np.repeat(np.bitwise_or.reduce((f if f is not None else np.zeros(flat.size, np.uint8))
                                               .reshape(-1, 32), axis=1), 32) | DATA
        self.write(dst, flat, out, flags, sym)
        _advance(self, flat)

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
        why = A.unreadable(region, np.zeros(buf.count, np.int64), np.arange(buf.count) * size, size)
        bad = np.flatnonzero(why != None) if why is not None else ()  # noqa: E711
        if len(bad):
            raise Unsupported(f"element {int(bad[0])} of `{name}` is {size} bytes {why[bad[0]]}; only values "
                              f"stored at the element's width are compared")
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
               batch_invariant: bool = False, tensor: MmaSetting | None = None) -> BitProof:
    """BIT-IDENTICAL when every output element is the same term in both kernels; else search for a witness.

    `batch_invariant`: ref and opt are one kernel at two launch sizes (M and 2M rows); only the elements
    the smaller launch (ref) writes are compared — the rows both compute must not depend on the batch."""
    single_launches(spec, "volta check --prove")
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
            m = TermMachine(prog, spec.launches[role], spec.buffers, spec.symbols, fp=fp, tensor=tensor,
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
        proof.witness = _row_witness(spec, fp, proof.unproved, trials, seed, tensor)
        proof.verdict = "bits-differ" if proof.witness is not None else "unknown"
    elif proof.unproved:
        sampled, divergence, _ = check_bits(spec, fp=fp, trials=trials, seed=seed, tensor=tensor)
        proof.sampled, proof.divergence = sampled, divergence
        if sampled.unsupported is not None:
            proof.verdict, proof.unsupported = "unsupported", sampled.unsupported
        elif not sampled.identical and sampled.witness is not None:
            proof.verdict = "bits-differ"
        else:
            proof.verdict = "unknown"
    proof.seconds = time.perf_counter() - start
    return proof


def _row_witness(spec, fp, elements, trials, seed, tensor: MmaSetting | None = None) -> dict | None:
    """An input on which some of `elements` differ between the two launches (same buffers), or None."""
    runner = Runner(spec, fp, tensor=tensor)
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
