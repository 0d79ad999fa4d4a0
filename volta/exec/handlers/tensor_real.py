"""Tensor-core instructions over the reals (volta check): sums of products and data movement, registered into
dispatch.REAL (PTX ISA §9.7.14 warp-level matrix instructions; redux.sync is in redux_real.py).

Over the reals an MMA is exact: D[i][j] = C[i][j] + Σ_k A[i][k]·B[k][j], in any k order, and its input
conversions (f16/bf16/tf32) are the identity, as `cvt` is. `ldmatrix`, `movmatrix` and `wmma.load/store` move
elements. Every handler runs the bit handler of volta/exec/handlers/tensor.py (or dispatch.py) for registers' bits,
flags, races, bounds and the warp's arrival, and adds the expressions: operands are read first (a destination
may be an operand), then the results written.

Fragments map to matrix coordinates through the layout tables the bit-exact replay uses (tensor.MMA_SHAPES,
tensor.wmma_layout, tensor.ldmatrix_layout; the same tables volta.equiv.bitproof uses for uninterpreted terms),
through tensor.tile_from_slots / slots_from_tile.

Registers of 16-bit elements (f16x2, bf16x2) hold two reals: their expression is the node `f16x2(lo, hi)`
(a pair, never a number: nothing computes with the node itself). `cvt.{rn,rz}{.relu}.f16x2.f32 d, a, b` makes
the pair (b, a) (`packed_compute`, which machine._real_compute sends every .f16x2/.bf16x2 instruction on data
to); add/sub/mul/fma/neg/abs/min/max on .f16x2/.bf16x2 compute each half apart; any other instruction of those
types on data is refused. A 4-byte `st` of a pair stores its two halves as 2-byte elements (`store_pairs`, called
by dispatch.py `st`), into untyped memory or a buffer of the pair's own element type. `mov` unpacking/packing
of data stays refused (dispatch.py `mov`): a 16-bit register's expression does not say its format.
`ldmatrix` and `movmatrix` move b16 elements without knowing their format, so a concrete element there is kept
as its bits, `b16(bits)`, and decoded by the instruction that gives it a type (mma, wmma.store); an element of
an integer buffer, or of a 16-bit float buffer of the other format, read that way is refused (same bits, another
number: `register_elements`). A symbolic element moved through memory (ldmatrix, movmatrix, wmma.load) carries no
format either (cvt.rn.f16.f32 and cvt.rn.bf16.f32 are both the identity), so it is read as f16 or bf16 only where
the launch makes no value of the other format (`refuse_unknown_format`). `wmma.store` writes whole elements of a
typed buffer only (`check_width`): check.outputs reads them at the buffer's width. Integer and fp8
MMAs (four elements a register) are refused: their wrapping and formats are not modelled over the reals.
"""
from __future__ import annotations

import numpy as np

from volta.config import WARP_SIZE
from volta.errors import Unsupported
from volta.exec.handlers import copy_real
from volta.exec.handlers import tensor as T
from volta.exec.handlers.table import handles_real, run_bits
from volta.exec.state import access as A
from volta.exec.state import lanesym
from volta.exec.state.access import pack_name
from volta.exec.state.lanesym import LaneSym
from volta.exec.state.operands import constants, object_array
from volta.exec.state.services import DATA
from volta.ir.program import RegRef
from volta.semantics import realops
from volta.semantics.bits import U64
from volta.symbolic import expr as E
from volta.symbolic.lanepoly import CoefficientOverflow, LanePoly

# element format -> the PTX type its concrete bits are read as (tf32 registers hold f32 bit patterns)
REAL_TYPES = {"f16": ".f16", "bf16": ".bf16", "tf32": ".f32", "f32": ".f32", "f64": ".f64"}
B16 = "b16"   # a concrete 16-bit element of unknown format, moved by ldmatrix/movmatrix: b16(bits)


# ---- elements of registers ------------------------------------------------------------------------------


def _constants(op, bits, t):
    vals = constants(bits, t)
    if not all(isinstance(v, E.Expr) for v in vals):
        raise Unsupported(f"`{op.d.inst.opcode}` on a concrete infinity (no real value in a matrix product)", op.span)
    return vals


def _decode(op, e, t):
    """An element as a real: b16(bits) read as type t; anything else as it is."""
    if e.op is E.CALL and e.data == B16:
        return _constants(op, np.array([int(e.args[0].data)], np.uint64), t)[0]
    return e


def register_elements(m, op, regs, flat, fmt, per):
    """Per register of `regs`, per element inside it (low first): object arrays over `flat` of the elements'
    real values (a concrete register is read as `per` elements of format `fmt`)."""
    t = REAL_TYPES.get(fmt)
    if t is None or per not in (1, 2):
        raise Unsupported(f"`{op.d.inst.opcode}` on {fmt} elements is not modelled over the reals "
                          f"(use --fp ieee|ARCH to compare bits)", op.span)
    ew = T._WIDTH[fmt]
    name = pack_name(fmt)
    out = []
    for r in regs:
        bits, _ = m.read(r, flat)
        sym = m.sym_of(r, flat)
        elems = [np.full(flat.size, None, dtype=object) for _ in range(per)]
        conc = np.arange(flat.size) if sym is None else np.flatnonzero(sym == None)  # noqa: E711
        if conc.size:
            for j in range(per):
                word = (bits[conc] >> U64(j * ew)) & U64((1 << ew) - 1) if ew < 64 else bits[conc]
                elems[j][conc] = _constants(op, word, t)
        if sym is not None:
            moved = []   # elements ldmatrix/movmatrix moved (no format of their own): checked together below
            b16 = pack_name("b16")
            at = np.flatnonzero(sym != None)  # noqa: E711
            vals = sym[at].tolist()
            if per == 2 and not m.integers and _plain_pairs(vals, name):   # what the loop below takes as it is
                for j in (0, 1):
                    elems[j][at] = object_array([e.args[j] for e in vals])
                out.append(elems)
                continue
            got = [[] for _ in range(per)]
            for e in vals:
                call = isinstance(e, E.Expr) and e.op is E.CALL
                if not isinstance(e, E.Expr) or (per == 2) != (call and e.data in (name, b16)) or (
                        per == 1 and call and e.data.endswith("x2")):
                    raise Unsupported(f"`{op.d.inst.opcode}` reads a register that does not hold {per} {fmt} "
                                      f"element(s) as real values", op.span)
                parts = e.args if per == 2 else (e,)
                if m.integers and any(E.has_integer_leaf(x, m.integers) for x in parts):
                    raise Unsupported(f"`{op.d.inst.opcode}` reads integer data as {fmt} elements (an integer input "
                                      f"buffer's bits taken as floats): over the reals that is not the integer's "
                                      f"value", op.span)
                if call and e.data == b16:   # moved by ldmatrix/movmatrix: no format of its own
                    moved.extend(x for x in parts if not _is_bits(x))
                for j in range(per):
                    x = parts[j]
                    got[j].append(_decode(op, x, t) if x.op is E.CALL else x)
            for j in range(per):
                elems[j][at] = object_array(got[j])
            # one decision over every lane's moved elements: it refuses iff it would refuse some lane's own
            # (its conditions are disjunctions over the elements), without a set and four scans per lane
            refuse_unknown_format(m, op, moved, fmt)
        out.append(elems)
    return out


def _plain_pairs(vals, name) -> bool:
    """Whether every value is a pair `name(lo, hi)` (f16x2 of an f16 fragment) of elements that are not moved
    bits (b16(bits), which `_decode` reads): nothing to decode, refuse or check for its format, so
    `register_elements` takes the halves as they are."""
    CALL, Expr = E.CALL, E.Expr
    return all(type(e) is Expr and e.op is CALL and e.data == name and not _is_bits(e.args[0]) and
               not _is_bits(e.args[1]) for e in vals)


def _formats_made(m) -> frozenset:
    """The 16-bit float formats whose values this kernel makes: the result type of any instruction but a move,
    load, store or comparison (cvt.rn.bf16.f32, add.f16x2, an mma with f16 D, ...)."""
    made = m.__dict__.get("_formats16")
    if made is None:
        movers = {"ld", "ldu", "st", "mov", "shfl", "ldmatrix", "stmatrix", "movmatrix", "cp", "setp", "testp"}
        made = set()
        for o in m.prog.ops:
            if o.d.types and o.op not in movers and not (o.op == "wmma" and o.d.has(".load", ".store")):
                t = o.d.types[0].removesuffix("x2")
                if t in (".f16", ".bf16"):
                    made.add(t[1:])
        made = m.__dict__["_formats16"] = frozenset(made)
    return made


def formats_stored(m) -> frozenset:
    """What a later launch of a sequence must assume this launch's 16-bit values may be: the float formats it
    makes, and "int" where it converts floats to integers (a float rounded to a u16 is no f16 or bf16 number)."""
    return _formats_made(m) | ({"int"} if converts_floats_to_integers(m) else frozenset())


def converts_floats_to_integers(m) -> bool:
    def integer(t):
        return t[1] in "us" or (t[1] == "b" and t[2:].isdigit())
    return any(o.op == "cvt" and integer(o.d.types[0]) and not integer(o.d.types[-1]) for o in m.prog.ops)


def refuse_unknown_format(m, op, elems, fmt):
    """16-bit elements that came through memory (ldmatrix, movmatrix, wmma.load; concrete ones excluded) read as
    `fmt`. An expression does not say whether its bits were made as f16 or bf16 (every conversion is the
    identity over the reals), so an element is taken as `fmt` only when nothing could have made it in the
    other format: no instruction of the kernel makes that format, no earlier launch of a sequence ran, it is not
    an element of a buffer of that format, and, unless it is a buffer's element itself, no buffer of that format
    is there to move from."""
    if elems:
        _refuse_format(m, op, fmt, {x.data[0] for x in elems if x.op is E.VAR}, any(x.op is not E.VAR for x in elems))


def refuse_unknown_format_poly(m, op, poly, fmt):
    """`refuse_unknown_format` for a lane polynomial's values (each lane one element): its leaves' buffers,
    and whether some lane holds more than one leaf."""
    if not any(poly.groups):   # () holds constants: they have no format to doubt
        return
    if not _other_buffers(m, fmt):   # the leaves matter only beside buffers of the other format
        _refuse_format(m, op, fmt, set(), False)
        return
    leaf = poly.leaf_parts()
    _refuse_format(m, op, fmt, {leaf[0]} if leaf else set(), leaf is None)


def _other_buffers(m, fmt) -> bool:
    """Whether the launch has a buffer of the other 16-bit float format than `fmt` (the buffers are fixed when
    the machine is made, so the answer is kept on it)."""
    known = m.__dict__.setdefault("_other_buffers16", {})
    if fmt not in known:
        other = {"f16": "bf16", "bf16": "f16"}.get(fmt)
        known[fmt] = any(r.dtype == other for r in m.buffer_regions.values())
    return known[fmt]


def _refuse_format(m, op, fmt, leaf_buffers, computed: bool):
    """The decision of `refuse_unknown_format` for elements that are leaves of `leaf_buffers` and, where
    `computed`, other expressions."""
    other = {"f16": "bf16", "bf16": "f16"}.get(fmt)
    if other is None:
        return
    other_buffers = _other_buffers(m, fmt)
    # The decision reads only this key and what the machine fixes at its start (its buffers, the formats its
    # kernel makes, the regions carried in), so a key that passed once passes again: an ldmatrix/cvt of f16
    # leaves asks it once per instruction of a K loop, not once per lane and step.
    key = (fmt, frozenset(leaf_buffers) if other_buffers else None, bool(computed and other_buffers))
    passed = m.__dict__.setdefault("_formats_passed", set())
    if key in passed:
        return
    for name in sorted(leaf_buffers) if other_buffers else ():
        region = m.buffer_regions.get(name)
        if getattr(region, "dtype", None) == other:
            raise Unsupported(f"`{op.d.inst.opcode}` reads elements of {other} buffer `{region.name}` as {fmt}: "
                              f"the same bits are another number", op.span)
    why = None
    if other in _formats_made(m):
        why = f"this kernel also makes {other} values"
    elif _carried_unknown(m, other):   # a later launch of a sequence: what came before is not seen here
        why = f"an earlier launch of the sequence may have made {other} values"
    elif other_buffers and computed:
        why = f"this launch has {other} buffers"
    if why:
        raise Unsupported(f"`{op.d.inst.opcode}` reads 16-bit values moved through memory as {fmt}, and {why}: a "
                          f"moved value does not carry its format, and the same bits in the other format are "
                          f"another number", op.span)
    passed.add(key)


def _carried_unknown(m, other: str) -> bool:
    """Whether memory carried in from earlier launches may hold `other`-format values: it does unless every
    carried region says its values are of its own dtype (`typed_values`, set by the kernelbench front door,
    whose storages hold values of their tensor's dtype) and none is of the other format, or says which 16-bit
    formats the earlier launches made (`formats_made`, stamped by Machine.run) and `other` is not one."""
    carried = m.carried_regions
    return any(r.dtype == other or not (getattr(r, "typed_values", False) or
                                        (r.formats_made is not None and other not in r.formats_made))
               for r in carried.values())


def _fragment(m, op, regs, grid, fmt, per, table, shape):
    """A fragment's elements as tiles (W, rows, cols) of expressions, through a layout table."""
    W = grid.shape[0]
    elems = register_elements(m, op, regs, grid.reshape(-1), fmt, per)
    values = [elems[s // per][s % per].reshape(W, WARP_SIZE) for s in range(table[0].shape[1])]
    return T.tile_from_slots(values, table, shape, object)


def _pack(elems, fmt):
    """Registers' expressions from their elements (object arrays, low first); None stays concrete."""
    if len(elems) == 1:
        return elems[0]
    out = np.full(elems[0].size, None, dtype=object)
    name = pack_name(fmt)
    has = np.flatnonzero((elems[0] != None) | (elems[1] != None))  # noqa: E711
    out[has] = [E.call(name, a, b) for a, b in zip(elems[0][has].tolist(), elems[1][has].tolist())]
    return out


def _write(m, reg, flat, sym, given=None):
    """Give `reg` of `flat` the expressions `sym` (None: concrete) over the bits the bit handler wrote, or the
    (bits, flags) it `given` to write here instead."""
    bits, flags = m.read(reg, flat) if given is None else given
    flags = np.zeros(flat.size, np.uint8) if flags is None else flags & np.uint8(0xFF ^ DATA)
    has = sym != None  # noqa: E711
    m.write(reg, flat, bits, flags | has.astype(np.uint8) * np.uint8(DATA), sym if has.any() else None)


def _store_fragment(m, regs, grid, tile, per, fmt, table, bits=None, flags=None):
    """Tiles (W, rows, cols) of expressions into fragment registers `regs` through a layout table; with `bits`
    (W, 32, registers) and per-warp `flags`, the registers' bits too (the bit handler left them to this write)."""
    flat = grid.reshape(-1)
    slots = [v.reshape(-1) for v in T.slots_from_tile(tile, table)]
    lane_flags = None if bits is None else np.repeat(flags, WARP_SIZE)
    for k, r in enumerate(regs):
        given = None if bits is None else (bits[:, :, k].reshape(-1), lane_flags)
        _write(m, r, flat, _pack(slots[k * per:(k + 1) * per], fmt), given)


def product(At, Bt, Ct):
    """D = C + A·B over the reals, per warp: (W, M, K), (W, K, N), (W, M, N) object tiles → (W, M, N).

    Built as `product_reference` builds it, ((C + A0·B0) + A1·B1) + …, less the terms with a factor that is the
    constant 0 (the zero rows and columns that pad a tile, a causal mask's weights): such a term is the node
    E.ZERO (mul folds it: constants are interned by value), and adding E.ZERO returns the sum unchanged (add
    folds that too), so dropping it builds the very same nodes, without a Fraction addition of two constant
    zeros per element and step. tests/exec/test_tensor_product.py compares the two node for node."""
    a_live = _nonzero(At)
    b_live = _nonzero(Bt)
    D = Ct.copy()
    for k in range(At.shape[2]):
        live = a_live[:, :, k:k + 1] & b_live[:, k:k + 1, :]   # (W, M, N): both factors not the constant 0
        if live.all():
            D = D + At[:, :, k:k + 1] * Bt[:, k:k + 1, :]
        elif live.any():
            w, i, j = np.nonzero(live)
            D[w, i, j] = [d + a * b for d, a, b in zip(D[w, i, j].tolist(), At[w, i, k].tolist(),
                                                         Bt[w, k, j].tolist())]
    return D


def product_reference(At, Bt, Ct):
    """D = C + A·B, every term added (what `product` must build node for node)."""
    D = Ct.copy()
    for k in range(At.shape[2]):
        D = D + At[:, :, k:k + 1] * Bt[:, k:k + 1, :]
    return D


def _nonzero(tile):
    """Where an object tile's element is not the constant 0 (E.ZERO: every constant 0 is that one node)."""
    return np.fromiter((e is not E.ZERO for e in tile.reshape(-1).tolist()), bool, tile.size).reshape(tile.shape)


def _refuse_integer(op, *fmts):
    for f in fmts:
        if f not in REAL_TYPES:
            raise Unsupported(f"`{op.d.inst.opcode}` on {f} data is not modelled over the reals (integer and fp8 "
                              f"MMAs pack four elements a register; use --fp ieee|ARCH to compare bits)", op.span)


# ---- mma.sync ---------------------------------------------------------------------------------------------

@handles_real("mma")
def _mma(m, op, lanes):
    """§9.7.14.5 mma.sync: the fragments' elements through MMA_SHAPES' layouts, D = C + A·B exactly."""
    key, dt, at, bt, ct = T._mma_kind(op)
    _refuse_integer(op, at, bt, ct)
    (M, N, K), la, lb, lc, per_reg = T.MMA_SHAPES[key]
    d_op, a_op, b_op, c_op = op.operands[:4]
    ra, rb, rc, rd = T._regs(a_op), T._regs(b_op), T._regs(c_op), T._regs(d_op)
    c_per = 2 if ct == "f16" else 1
    if len(ra) * per_reg != M * K // WARP_SIZE or len(rc) * c_per != M * N // WARP_SIZE or len(rd) != len(rc):
        raise Unsupported(f"`{op.d.inst.opcode}`: wrong number of fragment registers", op.span)
    grid = T._full_warps(m, op, lanes)
    if grid is None:
        return
    At = _fragment(m, op, ra, grid, at, per_reg, T.layout_table(la, M * K // WARP_SIZE), (M, K))
    Bt = _fragment(m, op, rb, grid, bt, per_reg, T.layout_table(lb, K * N // WARP_SIZE), (K, N))
    lane_d = _lane_product(m, grid, At, Bt, rc, T.layout_table(lc, M * N // WARP_SIZE)) if c_per == 1 else None
    if lane_d is not None:
        run_bits(m, op, lanes)
        flat = grid.reshape(-1)
        for reg, poly in zip(rd, lane_d):
            _write_lane(m, reg, flat, poly)
        return
    Ct = _fragment(m, op, rc, grid, ct, c_per, T.layout_table(lc, M * N // WARP_SIZE), (M, N))
    run_bits(m, op, lanes)
    _store_fragment(m, rd, grid, product(At, Bt, Ct), c_per, dt, T.layout_table(lc, M * N // WARP_SIZE))


def _leaf_tile(tile):
    """(buffer, index array of the tile's shape) when every element is an input leaf of one buffer, else None."""
    found = _leaves_or_zeros(tile)
    if found is None or found[0] is None or (found[1] < 0).any():
        return None
    return found


def _leaves_or_zeros(tile):
    """(buffer, index array of the tile's shape, -1 where the element is the constant 0) when every element is
    an input leaf of one buffer or zero (a tile padded with zeros past a matrix's edge, as an implicit-GEMM
    convolution pads its taps); (None, all -1) for a tile of zeros; else None."""
    name, index = None, []
    for e in tile.reshape(-1).tolist():   # one pass, stopping at the first element that is neither
        if e is E.ZERO:
            index.append(-1)
        elif isinstance(e, E.Expr) and e.op is E.VAR and (name is None or e.data[0] == name):
            name = e.data[0]
            index.append(e.data[1])
        else:
            return None
    return name, np.array(index, np.int64).reshape(tile.shape)


def _lane_product(m, grid, At, Bt, rc, table):
    """D = C + A·B as one lane polynomial per accumulator register (f32 C and D, one element a register), when
    A and B are leaves of input buffers (fragments loaded from them, as GEMM kernels do), or zeros padding them,
    and C is a lane polynomial: each register gains a block of K terms A[row, k]·B[k, col] per lane, as index
    arrays (coefficient 0 where either factor is a padding zero), instead of K products and sums of expressions
    per element (a K = 4096 tensor-core GEMM stays lane-structured, as the same GEMM's fma loop does). None: the
    expression path decides."""
    if not m.lane_structured:
        return None
    a, b = _leaves_or_zeros(At), _leaves_or_zeros(Bt)
    if a is None or b is None:
        return None
    flat = grid.reshape(-1)
    W, K = At.shape[0], At.shape[2]
    (na, ai), (nb, bi) = a, b
    rows, cols = table
    out = []
    for s, reg in enumerate(rc):
        acc = m.lane_value(reg, flat, ".f32")
        if acc is None:
            return None
        if na is None or nb is None:   # a tile of zeros adds nothing
            out.append(acc)
            continue
        ka = ai[:, rows[:, s], :].reshape(W * WARP_SIZE, K).T                 # A[row(lane), k]: (K, lanes)
        kb = bi[:, :, cols[:, s]].transpose(1, 0, 2).reshape(K, W * WARP_SIZE)  # B[k, col(lane)]
        present = (ka >= 0) & (kb >= 0)
        coef = np.ones((K, 1), np.int64) if present.all() else present.astype(np.int64)
        ka, kb = np.maximum(ka, 0), np.maximum(kb, 0)   # a zero's term has coefficient 0: any index will do
        pair = (ka, kb) if na <= nb else (kb, ka)                          # factors in shape order
        block = LanePoly(flat.size, {tuple(sorted((na, nb))): [(np.stack(pair, axis=1), coef)]}, 1, K, K)
        try:
            poly = acc + block
        except CoefficientOverflow:
            return None
        if poly.term_count() > lanesym.MAX_TERMS or poly.bound >= lanesym.MAX_BOUND:
            return None
        out.append(poly)
    return out


def _write_lane(m, reg, flat, poly, given=None):
    """Give `reg` of `flat` the lane polynomial `poly` (tensor data in every lane) over the bits the bit handler
    wrote, or the (bits, flags) it `given` to write here instead."""
    bits, flags = m.read(reg, flat) if given is None else given
    flags = np.zeros(flat.size, np.uint8) if flags is None else flags & np.uint8(0xFF ^ DATA)
    m.write(reg, flat, bits, flags | np.uint8(DATA), LaneSym(flat, poly))


# ---- wmma ---------------------------------------------------------------------------------------------------

def _per_reg(fmt):
    return 1 if fmt in ("f32", "tf32", "f64", "s32") else 32 // T._WIDTH[fmt]


def read_elements(m, op, space, addr, lanes, es):
    """Expressions of the `es`-byte elements at `addr`, one per lane (lanes unique): an object array, None where
    the element is concrete (stored constant, or not an input), and the elements' bits."""
    sym = np.full(lanes.size, None, dtype=object)
    bits = np.zeros(lanes.size, np.uint64)
    pos_of = np.full(m.L, -1, np.int64)
    pos_of[lanes] = np.arange(lanes.size)
    for region, lz, offs in A.resolve(m, op, space, addr, lanes, es, False):
        if region == "kernel-param":
            raise Unsupported(f"`{op.d.inst.opcode}` from kernel parameters", op.span)
        pos = pos_of[lz]
        b, _ = A.load(m, region, lz, offs, es)
        bits[pos] = b
        sym[pos] = A.load_sym(m, op, region, lz, offs, es, f".b{8 * es}", b)
    return sym, bits


def _filled(op, sym, bits, t):
    """Elements as reals: expressions, and concrete bits read as type t."""
    out = sym.copy()
    conc = np.flatnonzero(sym == None)  # noqa: E711
    if conc.size:
        out[conc] = _constants(op, bits[conc], t)
    return out


@handles_real("wmma")
def _wmma(m, op, lanes):
    if op.d.has(".load"):
        _wmma_load(m, op, lanes)
    elif op.d.has(".store"):
        _wmma_store(m, op, lanes)
    elif op.d.has(".mma"):
        _wmma_mma(m, op, lanes)
    else:
        raise Unsupported(f"`{op.d.inst.opcode}` is not modelled", op.span)


def _wmma_load(m, op, lanes):
    """The tile's elements (row- or column-major at the pointer, `.col`) into the fixed register layout. The bit
    handler reads each element's expression where it reads its bits (tensor._wmma_access `exprs`) and leaves
    the registers to this handler, which writes bits, flags and expressions at once."""
    which = T._wmma_which(op)
    rows, cols = T._wmma_dims(op, which)
    fmt = T._elem_fmt(op.d.types[-1])
    _refuse_integer(op, fmt)
    regs = T._regs(op.operands[0])
    per = _per_reg(fmt)
    grid = T._full_warps(m, op, lanes)
    if grid is None:
        return
    words, tile, bits, flags = run_bits(m, op, lanes, exprs=True, grid=grid)
    known = tile != None  # noqa: E711
    refuse_unknown_format(m, op, tile[known].tolist(), fmt)   # the load's type is no proof
    if not known.all():
        tile[~known] = _constants(op, words[~known], REAL_TYPES[fmt])
    _store_fragment(m, regs, grid, tile, per, fmt, T.wmma_layout(rows, cols, len(regs) * per), bits, flags)


def _wmma_store(m, op, lanes):
    rows, cols = T._wmma_dims(op, "d")
    fmt = T._elem_fmt(op.d.types[-1])
    _refuse_integer(op, fmt)
    regs = T._regs(op.operands[1])
    per = _per_reg(fmt)
    grid = T._full_warps(m, op, lanes)
    if grid is None:
        return
    if per == 1 and _store_lanes(m, op, lanes, grid, regs, rows, cols, T._WIDTH[fmt] // 8):
        return
    tile = _fragment(m, op, regs, grid, fmt, per, T.wmma_layout(rows, cols, len(regs) * per), (rows, cols))
    run_bits(m, op, lanes, grid=grid)
    flat = grid.reshape(-1)
    w_idx = np.repeat(np.arange(grid.shape[0]), WARP_SIZE)
    pos_of = np.full(m.L, -1, np.int64)
    pos_of[flat] = np.arange(flat.size)
    es = T._WIDTH[fmt] // 8
    stride_op = op.operands[2] if len(op.operands) > 2 else None
    per_lane = rows * cols // WARP_SIZE
    for r, c, addr in T.wmma_addresses(m, op, grid, op.operands[0], stride_op, rows, cols, per_lane, es):
        for region, lz, offs in A.resolve(m, op, op.d.space or None, addr, flat, es, True):
            check_width(op, region, es)   # the outputs are read element by element, at the buffer's width
            pos = pos_of[lz]
            A.store_sym(m, region, lz, offs, es, tile[w_idx[pos], r[pos], c[pos]])


def _wmma_mma(m, op, lanes):
    (M, N, K), dt, at, bt, ct = T.wmma_mma_kind(op)
    _refuse_integer(op, at, bt, ct, dt)
    d_op, a_op, b_op, c_op = op.operands[:4]
    ra, rb, rc, rd = T._regs(a_op), T._regs(b_op), T._regs(c_op), T._regs(d_op)
    a_per, c_per, d_per = _per_reg(at), _per_reg(ct), _per_reg(dt)
    grid = T._full_warps(m, op, lanes)
    if grid is None:
        return
    At = _fragment(m, op, ra, grid, at, a_per, T.wmma_layout(M, K, len(ra) * a_per), (M, K))
    Bt = _fragment(m, op, rb, grid, bt, a_per, T.wmma_layout(K, N, len(rb) * a_per), (K, N))
    if c_per == 1 and d_per == 1 and len(rd) == len(rc):   # f32 accumulators: as mma.sync's (_lane_product)
        lane_d = _lane_product(m, grid, At, Bt, rc, T.wmma_layout(M, N, len(rc)))
        if lane_d is not None:
            bits, flags = run_bits(m, op, lanes, exprs=True, grid=grid)   # D's registers are left to this handler
            flat = grid.reshape(-1)
            lane_flags = np.repeat(flags, WARP_SIZE)
            for k, (reg, poly) in enumerate(zip(rd, lane_d)):
                _write_lane(m, reg, flat, poly, (bits[:, :, k].reshape(-1), lane_flags))
            return
    Ct = _fragment(m, op, rc, grid, ct, c_per, T.wmma_layout(M, N, len(rc) * c_per), (M, N))
    bits, flags = run_bits(m, op, lanes, exprs=True, grid=grid)
    _store_fragment(m, rd, grid, product(At, Bt, Ct), d_per, dt, T.wmma_layout(M, N, len(rd) * d_per), bits,
                    flags)


def _store_lanes(m, op, lanes, grid, regs, rows, cols, es) -> bool:
    """wmma.store of one-element registers that all hold lane polynomials on every lane of the warps (an f32
    accumulator of `_lane_product`): each slot's register stored as LaneSym rows (`access.store_lsym`), as `st`
    stores one, instead of materializing per-lane expressions (4,096 terms each for a K = 4,096 GEMM) into the
    tile. False: nothing done, the expression path stores."""
    flat = grid.reshape(-1)
    values = []
    for reg in regs[:rows * cols // 32]:
        cur = m.sym[reg.index] if isinstance(reg, RegRef) else None
        if not isinstance(cur, LaneSym):
            return False
        found, part = cur.restrict(flat)
        if not found.all():
            return False
        values.append(part)
    run_bits(m, op, lanes, grid=grid)
    stride_op = op.operands[2] if len(op.operands) > 2 else None
    slots = T.wmma_addresses(m, op, grid, op.operands[0], stride_op, rows, cols, rows * cols // 32, es)
    for ls, (_r, _c, addr) in zip(values, slots):
        for region, lz, offs in A.resolve(m, op, op.d.space or None, addr, flat, es, True):
            check_width(op, region, es)   # the outputs are read element by element, at the buffer's width
            A.store_lsym(m, region, lz, offs, es, ls)
    return True


# ---- ldmatrix -----------------------------------------------------------------------------------------------

def _word_elements(m, space, addr, lanes):
    """Does any 16-byte row at `addr` (given by `lanes`) hold 4-byte values (f32 data, as Triton's FMA dot
    stores its shared tiles)? Those ldmatrix moves word by word (copy_real.py)."""
    rids, offs = m.memory.locate(space.split("::")[0], addr)
    for rid in np.unique(rids):
        region = m.memory.regions[int(rid)] if 0 < rid < len(m.memory.regions) else None
        if region is None or region.symsize is None:
            continue
        sel = rids == rid
        o, lz = offs[sel], lanes[sel]
        ok = (o >= 0) & (o + 16 <= region.size)
        rows = A.row_index(region, lz[ok], m)
        if (region.symsize[rows[:, None], o[ok][:, None] + np.arange(16)] == 4).any():
            return True
    return False


@handles_real("ldmatrix")
def _ldmatrix(m, op, lanes):
    """§9.7.14.5.15 ldmatrix.m8n8{.x1,.x2,.x4}{.trans}.b16: lane l's register i holds elements j = 0, 1 of row
    l>>2, columns 2(l&3)+j of matrix i (with .trans: row 2(l&3)+j, column l>>2), rows from lanes 8i..8i+7.
    Elements move as they are; rows of 4-byte values go to copy_real.py (whole f32 words)."""
    if op.d.shape != ".m8n8" or (op.d.types and op.d.types[-1] != ".b16"):
        raise Unsupported(f"`{op.d.inst.opcode}`: only .m8n8 .b16 is modelled", op.span)
    nm = 4 if op.d.has(".x4") else 2 if op.d.has(".x2") else 1
    trans = op.d.has(".trans")
    dst, src = op.operands
    regs = T._regs(dst)
    grid = T._full_warps(m, op, lanes)
    if grid is None:
        return
    if len(regs) != nm:
        raise Unsupported(f"`{op.d.inst.opcode}` needs {nm} destination registers", op.span)
    W = grid.shape[0]
    providers = grid[:, : 8 * nm].reshape(-1)   # lanes 8i..8i+7 give the rows of matrix i
    space = op.d.space or ".shared"
    addr = A.addresses(m, op, src, providers)   # before the bit handler: a destination may be the address
    if _word_elements(m, space, addr, providers):
        return copy_real._ldmatrix(m, op, lanes)
    mats = np.full((W, nm, 8, 8), None, dtype=object)   # (warp, matrix, row, b16 column)
    for c in range(8):
        sym, bits = read_elements(m, op, space, addr + U64(2 * c), providers, 2)
        marked = np.full(sym.size, None, dtype=object)
        has = np.flatnonzero(sym != None)  # noqa: E711
        marked[has] = sym[has]
        conc = np.flatnonzero(sym == None)  # noqa: E711
        marked[conc] = [E.call(B16, E.const(int(b))) for b in bits[conc]]
        mats[:, :, :, c] = marked.reshape(W, nm, 8)
    run_bits(m, op, lanes)
    flat = grid.reshape(-1)
    lane = np.arange(WARP_SIZE)
    for i, reg in enumerate(regs):
        elems = []
        for j in (0, 1):
            r, c = T.ldmatrix_layout(lane, j, trans)
            elems.append(mats[:, i, r, c].reshape(-1))
        _write(m, reg, flat, _pack_moved(elems))


def _is_bits(e) -> bool:
    return e.op is E.CALL and e.data == B16


def _pack_moved(elems):
    """b16 elements moved by ldmatrix/movmatrix into registers: `b16x2(lo, hi)`, concrete where both are bits."""
    out = np.full(elems[0].size, None, dtype=object)
    for k, (a, b) in enumerate(zip(*elems)):
        if not (_is_bits(a) and _is_bits(b)):
            out[k] = E.call(pack_name("b16"), a, b)
    return out


# ---- movmatrix ----------------------------------------------------------------------------------------------

@handles_real("movmatrix")
def _movmatrix(m, op, lanes):
    """§9.7.14.5.16 movmatrix.m8n8.trans.b16: b16 elements move across the warp (tensor.movmatrix_sources);
    a concrete element stays its bits, b16(bits), as ldmatrix keeps them."""
    T.movmatrix_form(op)
    grid = T._full_warps(m, op, lanes)
    if grid is None:
        return
    dst, src = op.operands
    flat = grid.reshape(-1)
    bits, _ = m.read(src, flat)
    sym = m.sym_of(src, flat)
    parts = []   # per lane of flat: its two source elements, low first
    for k in range(flat.size):
        e = None if sym is None else sym[k]
        if e is None:
            w = int(bits[k])
            parts.append((E.call(B16, E.const(w & 0xFFFF)), E.call(B16, E.const(w >> 16 & 0xFFFF))))
        elif isinstance(e, E.Expr) and e.op is E.CALL and e.data.endswith("x2") and len(e.args) == 2:
            parts.append(tuple(e.args))
        else:
            raise Unsupported(f"`{op.d.inst.opcode}` moves a register that does not hold two 16-bit elements "
                              f"as real values", op.span)
    run_bits(m, op, lanes)
    lane = np.tile(np.arange(WARP_SIZE), grid.shape[0])
    base = np.repeat(np.arange(grid.shape[0]) * WARP_SIZE, WARP_SIZE)
    elems = []
    for j in (0, 1):
        sl, sub = T.movmatrix_sources(lane, j)
        col = np.empty(flat.size, dtype=object)
        col[:] = [parts[b + s][u] for b, s, u in zip(base, sl, sub)]
        elems.append(col)
    _write(m, dst, flat, _pack_moved(elems))


# ---- f16x2 / bf16x2 registers outside the tensor core --------------------------------------------------------

PACKED = {".f16x2": "f16", ".bf16x2": "bf16"}
_HALF_OPS = frozenset({"add", "sub", "mul", "fma", "neg", "abs", "min", "max"})


def is_pair(e) -> bool:
    return isinstance(e, E.Expr) and e.op is E.CALL and len(e.args) == 2 and e.data in (
        "f16x2", "bf16x2", pack_name(B16))


def packed_compute(m, op, dl, srcs):
    """The expressions an instruction of type .f16x2/.bf16x2 computes on the data lanes `dl` (PTX ISA §9.7.9.21
    cvt, §9.7.4 half precision arithmetic), a list (machine._real_compute calls it when a type is packed).

    `cvt.rn.f16x2.f32 d, a, b` puts b in the low half and a in the high one: d = f16x2(b, a) (conversions are the
    identity over the reals; `.relu` clamps each at 0). Arithmetic applies to the halves independently, each
    operand read as two elements of the instruction's format (a concrete register as its bits, a symbolic one
    only when it holds a pair of that format, register_elements). Everything else on packed data is refused."""
    d = op.d
    what = d.inst.opcode
    fmt = PACKED.get(d.types[0])
    if d.op == "cvt":
        src_t = d.types[-1]
        if fmt is None or src_t != ".f32" or len(srcs) != 2 or d.has(".satfinite") or \
                d.rounding not in (None, ".rn", ".rz", ".rm", ".rp"):
            raise Unsupported(f"`{what}` on tensor data is not modelled over the reals (only cvt.{{rn,rz,rm,rp}}"
                              f"{{.relu}}.f16x2/.bf16x2.f32 packing two f32)", op.span)
        hi, lo = (m.read_sym(s, dl, ".f32") for s in srcs)
        out = []
        for a, b in zip(lo, hi):
            if not (isinstance(a, E.Expr) and isinstance(b, E.Expr)):
                raise Unsupported(f"`{what}` packs a value with no real meaning (an infinity) into {fmt} halves",
                                  op.span)
            if d.has(".relu"):
                a, b = E.maximum(a, E.ZERO), E.maximum(b, E.ZERO)
            out.append(E.call(pack_name(fmt), a, b))
        return out
    if (d.op not in _HALF_OPS or fmt is None or any(t != d.types[0] for t in d.types) or
            d.has(".xorsign", ".oob") or (d.has(".relu") and d.op not in ("min", "max"))):
        raise Unsupported(f"`{what}` on tensor data in {d.types[0]} registers is not modelled over the reals "
                          f"(use --fp ieee|ARCH to compare bits)", op.span)
    halves = register_elements(m, op, srcs, dl, fmt, 2)   # per operand: [low elements, high elements]
    out = []
    for k in range(dl.size):
        parts = []
        for j in (0, 1):
            v = realops.apply(d, tuple(h[j][k] for h in halves))
            if not isinstance(v, E.Expr):
                raise Unsupported(f"`{what}` on tensor data has no real value here", op.span)
            parts.append(v)
        out.append(E.call(pack_name(fmt), *parts))
    return out


def refuse_pairs(m, op, dl, srcs):
    """An instruction that is neither a move nor packed arithmetic reading a register that holds a pair of
    16-bit elements (integer arithmetic on its bits): refused, the pair is no number."""
    for s in srcs:
        if isinstance(s, RegRef) and m.sym[s.index] is not None and not isinstance(m.sym[s.index], LaneSym):
            sym = m.sym_of(s, dl)
            if sym is not None and any(is_pair(e) for e in sym):
                raise Unsupported(f"`{op.d.inst.opcode}` computes with the bits of a register holding two 16-bit "
                                  f"elements ({s.name}); only moves, shuffles, stores, mma and .f16x2/.bf16x2 "
                                  f"arithmetic are modelled on such pairs over the reals", op.span)


def check_width(op, region, size):
    """Tensor data stored `size` bytes at a time into a typed buffer must be whole elements of it."""
    if region.dtype is not None and A.region_itemsize(region) != size:
        raise Unsupported(f"`{op.d.inst.opcode}` stores {size}-byte tensor data into the "
                          f"{A.region_itemsize(region)}-byte {region.dtype} elements of `{region.name}`; only whole "
                          f"elements are modelled", op.span)


def store_pairs(m, op, region, lanes, offs, size, sym) -> bool:
    """`st` of register expressions `sym` (over `lanes`) into `region` at `offs`, `size` bytes each: the pairs of
    a 4-byte store become two 2-byte elements (low at offs, high at offs + 2), the element type of the memory a
    pair's own (untyped shared/local memory, or a buffer of f16 for f16x2, bf16 for bf16x2). A data value whose
    width is not the element width of a typed buffer is refused: the outputs are read element by element.
    Returns False when no lane stores a pair (the caller stores `sym` as it is)."""
    has = np.flatnonzero(sym != None)  # noqa: E711
    pairs = np.array([is_pair(e) for e in sym[has]], bool)
    if not pairs.any():
        if has.size:
            check_width(op, region, size)
        return False
    if size != 4 or not pairs.all():
        raise Unsupported(f"`{op.d.inst.opcode}` stores a pair of 16-bit elements together with other values",
                          op.span)
    names = {sym[k].data for k in has}
    allowed = {"f16x2": (None, "f16"), "bf16x2": (None, "bf16"), pack_name(B16): (None, "f16", "bf16")}
    if pack_name(B16) in names and region.dtype is not None:   # moved elements: stored as the buffer's format
        moved = [x for k in has for x in sym[k].args]
        if any(_is_bits(x) for x in moved):
            raise Unsupported(f"`{op.d.inst.opcode}` stores concrete 16-bit elements of unknown format into "
                              f"`{region.name}` ({region.dtype})", op.span)
        refuse_unknown_format(m, op, moved, region.dtype)
    if any(region.dtype not in allowed.get(n, ()) for n in names):
        raise Unsupported(f"`{op.d.inst.opcode}` stores {'/'.join(sorted(names))} pairs into `{region.name}`"
                          f"{' (' + region.dtype + ')' if region.dtype else ''}: their 16-bit elements are "
                          f"modelled only in untyped memory or a buffer of their own format", op.span)
    for j in (0, 1):
        half = np.full(lanes.size, None, dtype=object)
        half[has] = [sym[k].args[j] for k in has]
        leaves = _leaf_tile(half) if m.lane_structured else None
        if leaves is not None:   # input elements (a tile copied to shared memory): loads read them as one LaneSym
            A.store_lsym(m, region, lanes, offs + 2 * j, 2, LaneSym(lanes, LanePoly.leaf(*leaves)))
        else:
            A.store_sym(m, region, lanes, offs + 2 * j, 2, half)
    return True
