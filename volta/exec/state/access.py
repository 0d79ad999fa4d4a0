"""Memory accesses of one instruction over its lanes: address → region, bounds, races, bytes.

Addresses of a state space map to (region, offset); a generic address is first sorted into the
shared, local, param or global window. Out-of-bounds and misaligned lanes are reported and then
masked off, so one bad lane does not stop the analysis of the others.
"""
from __future__ import annotations

import numpy as np

from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.races import memmodel, ordering, replicas
from volta.exec.state.memory import GENERIC_LOCAL, GENERIC_SHARED, KERNEL_PARAM_BASE, REGION_SHIFT, PagedArray
from volta.ir import spin
from volta.ir.program import RegRef
from volta.ir.structparams import describe
from volta.launch.spec import DTYPES
from volta.ptx import ast
from volta.symbolic import expr as E

_VIEW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_ALL_SET = {n: t(int("01" * n, 16)) for n, t in _VIEW.items()}   # n bool bytes all True, read as one word
_NO_PAIRS = np.zeros((0, 2), np.int64)   # track's answer when no two lanes of one warp store to the same bytes
_NO_PAIRS.flags.writeable = False


def addresses(m, op, operand: ast.Address, lanes):
    """Byte addresses of an address operand, checked to be data-independent."""
    base = operand.base
    if isinstance(base, ast.Imm):
        addr = np.full(lanes.size, base.value, np.uint64)
    elif isinstance(base, RegRef) and m.regs[base.index] is not None:   # as `m.read`, without its copies
        every = lanes is m.all_lanes   # (the sum below is a new array: nothing aliases the register)
        addr, flags = m.regs[base.index], m.flags[base.index]
        addr = addr if every else addr[lanes]
        m.require_concrete(op, flags if flags is None or every else flags[lanes], lanes, "address")
    else:
        addr, flags = m.read(base, lanes)
        m.require_concrete(op, flags, lanes, "address")
    return addr + np.uint64(operand.offset & ((1 << 64) - 1))


def resolve(m, op, space, addr, lanes, size, write):
    """Group lanes by (space, region): yields (region, lane positions, offsets)."""
    one = _one_region(m, space, addr, lanes, size)
    if one is not None:
        return one
    return _resolve_lanes(m, op, space, addr, lanes, size, write)


_WINDOWS = {0: (".global", 0), 1: (".shared", GENERIC_SHARED), 2: (".local", GENERIC_LOCAL)}   # generic windows


def _one_region(m, space, addr, lanes, size):
    """[(region, lanes, offsets)] when every address lies in one region of `space` (of one window of the generic
    space), in bounds and aligned: what `_resolve_lanes` answers then, from the least and greatest address
    instead of a region id per lane (offsets grow with the address inside a region, so bounds hold for every lane
    when they hold for those two; a region's base is a multiple of 1024, so the address's low bits are the
    offset's). None in any other case, which `_resolve_lanes` decides and reports; tests/exec/test_access.py
    compares the two."""
    if not addr.size:
        return None
    lo, hi = int(addr.min()), int(addr.max())
    window = 0
    if space is None or space == ".generic":
        if lo >> 56 != hi >> 56 or lo >> 56 not in _WINDOWS:
            return None
        space, window = _WINDOWS[lo >> 56]
        lo, hi = lo - window, hi - window
    else:
        space = space.split("::")[0]
    shift = REGION_SHIFT.get(space)
    if shift is None or space == ".param" or lo >> shift != hi >> shift:
        return None
    rid = lo >> shift
    regions = m.memory.regions
    region = regions[rid] if 0 < rid < len(regions) else None
    if region is None or region.space.split("::")[0] != space and not (space == ".global" and
                                                                       region.space == ".const"):
        return None
    base = (rid << shift) + (region.low if space == ".shared" else 0)
    align = min(size, 16)
    if lo < base or hi - base + size > region.size or align & (align - 1):
        return None
    if align > 1 and _misaligned(addr, align):
        return None
    return [(region, lanes, (addr - np.uint64(base + window)).astype(np.int64))]


def _resolve_lanes(m, op, space, addr, lanes, size, write):
    """`resolve` lane by lane: region ids per lane, bounds and alignment reported where they fail."""
    if space is None or space == ".generic":
        win = addr >> np.uint64(56)
        groups = [(".global", win == 0), (".shared", win == 1), (".local", win == 2), (".param", win == 4)]
        out = []
        for sp, sel in groups:
            if sel.any():
                a = addr[sel]
                if sp == ".shared":
                    a = a - np.uint64(GENERIC_SHARED)
                elif sp == ".local":
                    a = a - np.uint64(GENERIC_LOCAL)
                out.extend(_resolve_lanes(m, op, sp, a, lanes[sel], size, write))
        return out
    space = space.split("::")[0]
    if space == ".param":
        return _resolve_param(m, op, addr, lanes, size)
    mem = m.memory
    rids, offs = mem.locate(space, addr)
    results = []
    one = rids.size and bool((rids == rids[0]).all())   # one region: keep `lanes` itself (later `is` tests)
    for rid in (rids[:1] if one else np.unique(rids)):
        sel = rids == rid
        region = mem.regions[int(rid)] if 0 < rid < len(mem.regions) else None
        if region is None or region.space.split("::")[0] != space:
            if region is None or not (space == ".global" and region.space == ".const"):  # const via generic
                k = int(np.nonzero(sel)[0][0])
                nulls = getattr(m, "null_params", ())
                if rid == 0 and space == ".global" and nulls:
                    which = (describe(m.prog.params, nulls[0]) if len(nulls) == 1 else
                             "a null pointer parameter (" + ", ".join(f"`{p}`" for p in nulls) + " are 0)")
                    m.report(F.OUT_OF_BOUNDS, f"NULL POINTER dereference of {which}: "
                             f"{'write' if write else 'read'} of {size} bytes at address {int(addr[k]):#x} "
                             f"(--args passes 0 for it)", op, [lanes[k]], related=m.admitting_branch(lanes[k]),
                             address=int(addr[k]))
                    continue
                m.report(F.OUT_OF_BOUNDS, f"{'write' if write else 'read'} of {size} bytes at address "
                         f"{int(addr[k]):#x} in {space[1:]} memory, which is in no buffer or variable",
                         op, [lanes[k]], address=int(addr[k]))
                continue
        o, lz = (offs, lanes) if one else (offs[sel], lanes[sel])
        if int(o.min()) < 0 or int(o.max()) + size > region.size:   # two reductions when all lanes are in bounds
            bad = (o < 0) | (o + size > region.size)
            k = int(np.nonzero(bad)[0][0])
            var = m.prog.variables.get(region.name) if region.space == ".shared" else None
            dynamic = (f" (dynamic shared memory: the launch gives it {region.size} bytes, set by --shared-dynamic "
                       f"or a manifest's shared_dynamic)" if var is not None and var.dynamic else "")
            m.report(F.OUT_OF_BOUNDS, f"{'write' if write else 'read'} of {size} bytes past the end of "
                     f"`{region.name}`{dynamic}", op, [lz[k]], related=m.admitting_branch(lz[k]), buffer=region.name,
                     offset=int(o[k]), bounds=region.size, address=int(addr[sel][k]))
            m.count_threads(F.OUT_OF_BOUNDS, op, lz[bad])
            o, lz = o[~bad], lz[~bad]
        align = min(size, 16)
        if (o & (align - 1) if align & (align - 1) == 0 else o % align).any():
            mis = (o % align) != 0
            k = int(np.nonzero(mis)[0][0])
            m.report(F.MISALIGNED, f"{size}-byte access at an address not aligned to {align} bytes", op, [lz[k]],
                     buffer=region.name, offset=int(o[k]))
            o, lz = o[~mis], lz[~mis]
        if lz.size:
            results.append((region, lz, o))
    return results


def _resolve_param(m, op, addr, lanes, size):
    """Kernel parameters (read-only, shared by all) and per-thread call parameters."""
    out = []
    kp = addr >= np.uint64(KERNEL_PARAM_BASE)
    if kp.any():
        out.append(("kernel-param", lanes[kp], (addr[kp] - np.uint64(KERNEL_PARAM_BASE)).astype(np.int64)))
    if (~kp).any():
        out.extend(_param_regions(m, op, addr[~kp], lanes[~kp], size))
    return out


def _param_regions(m, op, addr, lanes, size):
    rids, offs = m.memory.locate(".param", addr)
    out = []
    for rid in np.unique(rids):
        sel = rids == rid
        region = m.memory.regions[int(rid)] if 0 < rid < len(m.memory.regions) else None
        if region is None:
            m.report(F.OUT_OF_BOUNDS, "parameter access outside any parameter", op, [lanes[sel][0]])
            continue
        out.append((region, lanes[sel], offs[sel]))
    return out


def row_index(region, lanes, m):
    """Which copy of a region each lane sees: one per CTA for shared, per thread for local/param."""
    if region.copies == 1:
        return np.zeros(lanes.size, np.int64)
    if region.space == ".shared":
        return m.cta if lanes is m.all_lanes else m.cta[lanes]   # every lane: the machine's own array (read only)
    return lanes


def _misaligned(offs, size: int) -> bool:
    """Whether some offset is not a multiple of `size`: where `size` is a power of two, the low bits of all the
    offsets OR-ed together (one reduction, no division and no temporary array)."""
    if size & (size - 1) == 0:
        return bool(int(np.bitwise_or.reduce(offs)) & (size - 1))
    return bool((offs % size).any())


def flat_index(region, rows, offs):
    """Index of byte `offs` of copy `rows` in a region's per-byte arrays read flat (`a.reshape(-1)`): one
    gather where `a[rows, offs]` costs a two-dimensional one."""
    return offs if region.copies == 1 else rows * region.data.shape[1] + offs


def load(m, region, lanes, offs, size, seen: bool = True):
    """Bytes → uint64 bits (little endian) for each lane; and flags for never-written bytes."""
    flat = region.data.reshape(-1)
    start = offs if region.copies == 1 else row_index(region, lanes, m) * region.data.shape[1] + offs
    aligned = size in _VIEW and not _misaligned(start, size)
    if aligned:
        word = start // size if size > 1 else start
        bits = flat.view(_VIEW[size])[word].astype(np.uint64)
    else:
        idx = start[:, None] + np.arange(size)
        raw = flat[idx]
        bits = np.zeros(lanes.size, np.uint64)
        for k in range(min(size, 8)):
            bits |= raw[:, k].astype(np.uint64) << np.uint64(8 * k)
    undef = None
    if region.written is not None:
        w = region.written.reshape(-1)
        if aligned:   # the element's written flags as one word: all set when it equals 0x0101…
            ok = w.view(_VIEW[size])[word] == _ALL_SET[size]
        else:
            ok = w[start[:, None] + np.arange(size)].all(axis=1)
        unwritten = ok.size - np.count_nonzero(ok)   # (count_nonzero: a fifth of .all()'s cost)
        if unwritten and region.zero_start:   # defined (zeros), but the report says the kernel relied on them
            if seen:   # (not the machine's own look at memory around a store)
                m.__dict__.setdefault("zero_start_reads", set()).add(region.name)
        elif unwritten:
            undef = np.where(ok, 0, 2).astype(np.uint8)
    return bits, undef


def store(m, region, lanes, offs, size, bits):
    region.stored = True
    rows = row_index(region, lanes, m)
    flat = region.data.reshape(-1)
    stride = region.data.shape[1]
    start = rows * stride + offs
    if size in _VIEW and (start % size == 0).all():
        flat.view(_VIEW[size])[start // size] = bits.astype(_VIEW[size])
    else:
        for k in range(size):
            flat[start + k] = ((bits >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.uint8)
    if region.written is not None:
        w = region.written.reshape(-1)
        for k in range(size):
            w[start + k] = True


def track(m, op, region, lanes, offs, size, write, atomic=False, warp_uniform=False, image=None, data=None,
          exprs=None):
    """Race bookkeeping for one access batch (global and shared regions only).

    With `warp_uniform` (plain stores) returns pairs of positions into `lanes` of threads of one warp
    that write the same bytes in this instruction: not a race, provided they store equal values.
    A store passes `image` (the bytes each lane stores, lanes x size) and `data` (which lanes store
    tensor data): a write-write race where every write stores the same value is a BENIGN RACE. In a
    symbolic run it also passes `exprs(positions, element)`, the expressions it stores: tensor data
    then compares over the reals (volta/exec/races/replicas.py)."""
    none = _NO_PAIRS
    shadow = region.shadow
    if shadow is None or not m.check_races:
        return none
    if m.path_log is not None:
        m.path_log.record(m, op, lanes)
    if m.L == 1 and not write and not atomic:   # one thread: no other access to race with (reference kernels);
        return none                           # writes still record the last writer for the reports
    if region.read_only:   # nothing in the launch can write it: no read of it races
        if write or atomic:
            raise Unsupported(f"`{op.d.inst.opcode}` writes buffer `{region.name}`, which the address analysis "
                              f"(volta/ir/written.py) found no store can reach: pointer arithmetic it does not "
                              f"follow; races on it are not decided", op.span)
        return none
    g = fit_granule(shadow, size, offs)
    if not (write or atomic) and _weak_reads_of_one_cta(m, op, region, shadow, lanes, offs, size, g):
        return none
    rows = row_index(region, lanes, m)
    stride = region.data.shape[1]
    per = max(1, size // g)
    gidx = (rows * stride + offs) // g
    if per > 1:
        gidx = (gidx[:, None] + np.arange(per)).reshape(-1)
    every = lanes is m.all_lanes   # the whole launch: the machine's own arrays, not gathered copies
    rep = (lambda a: a) if per == 1 else (lambda a: np.repeat(a, per))  # noqa: E731
    tid = rep(lanes)
    cta = rep(rows if region.space == ".shared" and region.copies > 1 else m.cta if every else m.cta[lanes])
    gen = m.gen[cta]
    warp = rep(m.gwarp if every else m.gwarp[lanes])
    # --lockstep-warps: a warp executes in lock step, so its threads' accesses in different steps are ordered
    wgen = m.wgen[warp] if not getattr(m, "lockstep", False) else np.full(gidx.size, m.steps, np.int64)
    scope = _strength(m, op) or (memmodel.GPU if atomic else 0)
    if scope and op.op not in ("atom", "red"):
        scope += 10  # shadow.PLAIN: strong, but not an atomic
    clocks = getattr(m, "clocks", None)
    clk = clocks.own(tid) if clocks is not None else None
    order = clocks.ordered(tid) if clocks is not None else None
    polling = not write and scope > 0 and op.index in spin.polling_loads(m.prog)
    silent = None
    if image is not None:   # which stores leave the bytes as they were (benign reads; equal values)
        start = rows * stride + offs
        before = region.data.reshape(-1)[start[:, None] + np.arange(image.shape[1])]
        silent = (before == image).all(axis=1)
        if data is not None and m.structured:
            silent &= ~np.asarray(data, bool)   # a value of tensor data is a placeholder here: not known equal
    conflicts, same_warp = shadow.access(gidx, tid, cta, gen, warp, wgen, op.index, write, atomic, warp_uniform,
                                         scope=scope, clk=clk, order=order,
                                         data=rep(data) if data is not None else None, polling=polling,
                                         silent=rep(silent) if silent is not None else None)
    for c in conflicts:
        byte = (c.granule * g) % stride
        prior = m.prog.ops[c.prior_pc]
        where_ = {}
        if c.ordering:
            if c.prior_write and c.write and (image is None or _same_values(
                    m, op, region, lanes, image, data, rows, offs, g, per, c, prior, exprs)[0] in ("bytes", "reals")):
                continue   # equal values (or an atomic, whose value is its own business) remain in any order
            if clocks is not None:
                clocks.unordered_race(op)
            ordering.report(m, region, c, op, prior, byte, size)
            continue
        kinds = ("write" if c.prior_write else "read", "write" if c.write else "read")
        kind, pair, text = F.RACE, (c.prior_tid, c.tid), "no barrier"
        if c.prior_strong and m.cta[c.prior_tid] != m.cta[c.tid]:
            text = ("no synchronization whose scope covers both (.cta-scoped atomics and fences do not order "
                    "or protect threads of different blocks)")
        if c.prior_write != c.write and (c.prior_silent or (c.write and silent is not None and silent[c.at // per])):
            m.report(F.BENIGN_READ, f"benign read race on `{region.name}`: the racing write stores the value already "
                     f"there, so the read gets the same value in any order (still a data race in the PTX memory model; "
                     f"--allow-benign-races leaves it out of the exit code)", prior, [c.prior_tid, c.tid], second=op,
                     buffer=region.name, offset=byte, bounds=region.size)
            continue
        if c.prior_write and c.write and image is not None and c.positions:
            same, pair, prior, at, values = _same_values(m, op, region, lanes, image, data, rows, offs, g, per, c,
                                                         prior, exprs)
            if at is not None:
                byte = int(offs[at // per]) + (at % per) * g  # where the pair whose values differ met
            if same in ("bytes", "reals"):
                if same == "reals":
                    replicas.note(m, prior, op)
                m.report(F.BENIGN_RACE, f"benign race on `{region.name}`: every write stores the same value"
                         f"{' over the reals' if same == 'reals' else ''} (still a data race in the PTX memory "
                         f"model; --allow-benign-races leaves it out of the exit code)", prior, [c.prior_tid, c.tid],
                         second=op, buffer=region.name, offset=byte, bounds=region.size,
                         details={"reals": True} if same == "reals" else {})
                continue
            if values is not None:   # a concrete run: the two words, for volta/exec/drivers/replica_bits.py
                where_["details"] = {"values": values}
            elif same == "undecided" and (not m.symbolic or m.expressions_follow):
                m.reals_rerun.append(op)   # tensor data: `volta races` compares it over the reals in a re-run
                where_["details"] = {"reals-undecided": True}
        if clocks is not None:
            clocks.unordered_race(op)
        m.report(kind, f"{kinds[0]}-{kinds[1]} race on `{region.name}` between threads with {text} "
                 f"between them", prior, list(pair), second=op, buffer=region.name, offset=byte,
                 bounds=region.size, **where_)
    return np.unique(same_warp // per, axis=0) if same_warp.size else none


def stored_values_differ(m, bits_a, bits_b, data_a, data_b):
    """(differ, undecided) for pairs of stored values: concrete values compare by bits; in the structured
    class a value from tensor data is a placeholder, so the pair is undecided there (not equal, not
    different). Shared by the same-warp store check and the benign-race classification."""
    symbolic = (np.asarray(data_a, bool) | np.asarray(data_b, bool)) & m.structured
    return ~symbolic & (np.asarray(bits_a) != np.asarray(bits_b)), symbolic


def fit_granule(shadow, size: int, offs) -> int:
    """The shadow's granule, first refined if this access of `size` bytes at `offs` does not cover whole
    granules: to the coarsest granule (a power of two) that the size and every offset are multiples of, 2 for
    f16 loads rather than bytes. Refining keeps each record on every byte it covered (Shadow.refine), so a
    granule that every access so far covers whole decides as bytes would; a narrower access refines again
    (tests/exec/test_access.py replays random accesses against a byte shadow)."""
    g = shadow.g
    if g > 1 and (size < g or _misaligned(offs, g)):
        g //= 2
        while g > 1 and (size % g or _misaligned(offs, g)):
            g //= 2
        shadow.refine(g)
    return g


def _strength(m, op) -> int:
    """memmodel.strength(op) (four modifier look-ups), remembered on the machine per instruction; the entry
    holds its instruction, so an index reused by another program's instruction is not taken for it."""
    memo = m.__dict__.setdefault("strength_memo", {})
    got = memo.get(op.index)
    if got is None or got[0] is not op:
        got = memo[op.index] = (op, memmodel.strength(op))
    return got[1]


def _weak_reads_of_one_cta(m, op, region, shadow, lanes, offs, size, g) -> bool:
    """A weak load whose lanes are all of one CTA, with no vector clocks: handed to `Shadow.weak_reads` with the
    CTA and its barrier generation as numbers, which logs it when no write can be concurrent (the fields are
    those `track` builds below for `Shadow.access`, without the per-lane arrays of one value). False when it
    does not apply or the shadow declines: `track` goes on."""
    if getattr(m, "clocks", None) is not None or _strength(m, op):
        return False
    every = lanes is m.all_lanes
    if m.n_cta == 1:
        cta = 0
    else:
        ctas = m.cta if every else m.cta[lanes]
        cta = int(ctas.min())
        if cta != int(ctas.max()):
            return False
    row = cta if region.space == ".shared" and region.copies > 1 else 0   # row_index: the CTA's copy, or the one
    gidx = offs + row * region.data.shape[1] if row else offs
    gidx = gidx >> (g.bit_length() - 1) if g > 1 else gidx   # granules are 1, 2 or 4 bytes
    warp = m.gwarp if every else m.gwarp[lanes]
    wgen = m.steps if getattr(m, "lockstep", False) else m.wgen[warp]   # --lockstep-warps: as `track` below
    per = size // g
    if per > 1:
        gidx = (gidx[:, None] + np.arange(per)).reshape(-1)
        lanes, warp = np.repeat(lanes, per), np.repeat(warp, per)
        wgen = np.repeat(wgen, per) if isinstance(wgen, np.ndarray) else wgen
    return shadow.weak_reads(gidx, lanes, cta, int(m.gen[cta]), warp, wgen, op.index)


def _same_values(m, op, region, lanes, image, data, rows, offs, g, per, c, prior_op, exprs):
    """Do all racing writes of a write-write conflict store the same value? (same, pair, prior op, position,
    words): `same` is "bytes" (equal bytes), "reals" (tensor data equal over the reals: a symbolic run, where
    `exprs` gives the stored expressions), "differ" or "undecided" (tensor data not compared); the pair and
    position are the first whose values differ (or could), else the conflict's own; `words` the two stored
    words of that pair in a concrete run."""
    flat = region.data.reshape(-1)
    stride = region.data.shape[1]
    es = _element_size(op, per * g)
    reals = False
    for k, j, prior_tid, prior_pc, prior_data in c.positions:
        lane, piece = k // per, k % per
        mine = image[lane, piece * g:(piece + 1) * g]
        if j >= 0:
            theirs = image[j // per, piece * g:(piece + 1) * g]
            their_data = bool(data[j // per]) if data is not None else False
        else:
            at = int(rows[lane]) * stride + int(offs[lane]) + piece * g
            theirs = flat[at:at + g]
            their_data = prior_data
        my_data = bool(data[lane]) if data is not None else False
        differ, undecided = stored_values_differ(m, [mine.tobytes()], [theirs.tobytes()], [my_data], [their_data])
        if undecided[0] and exprs is not None:
            element = piece * g // es
            a = exprs(np.array([lane]), element)[0]
            b = exprs(np.array([j // per]), element)[0] if j >= 0 else \
                replicas.stored_expr(region, int(rows[lane]), int(offs[lane]) + element * es, es)
            equal = replicas.real_equal(m, a, b)
            if equal:
                reals = True
                continue
            differ[0], undecided[0] = equal is False, equal is None
        if differ[0] or undecided[0]:
            words = replicas.words(mine, theirs) if not m.structured else None
            return ("undecided" if undecided[0] else "differ"), (prior_tid, int(lanes[lane])), \
                m.prog.ops[prior_pc], k, words
    return ("reals" if reals else "bytes"), (c.prior_tid, c.tid), prior_op, None, None


def _element_size(op, size: int) -> int:
    """Bytes of one stored element of a (vector) store of `size` bytes."""
    vec = getattr(op.d, "vec", 1) or 1
    return max(1, size // vec)


def load_sym(m, op, region, lanes, offs, size, t, bits):
    """Expressions of loaded values (symbolic mode): stored ones, input leaves, or None if concrete."""

    rows = row_index(region, lanes, m)
    out = np.full(lanes.size, None, dtype=object)
    _refuse_unreadable(op, region, rows, offs, size)
    if region.sym is not None:
        stored = region.sym[rows, offs]
        have = stored != None  # noqa: E711  (elementwise over an object array)
        if have.any():
            if (region.symsize[rows[have], offs[have]] != size).any():
                raise Unsupported(f"`{op.d.inst.opcode}` reads {size} bytes of a value stored with another width "
                                  f"in `{region.name}`", op.span)
            out[have] = stored[have]
    else:
        have = np.zeros(lanes.size, bool)
    refs = region.lsref
    if refs is not None:
        ref = refs[rows, offs].astype(np.int64) - 1   # stored as slot + 1: 0 (untouched zero pages) is none
        live = (ref >= 0) & ~have
        if live.any():
            if (region.symsize[rows[live], offs[live]] != size).any():
                raise Unsupported(f"`{op.d.inst.opcode}` reads {size} bytes of a value stored with another width "
                                  f"in `{region.name}`", op.span)
            at = np.flatnonzero(live)
            row = region.lsrow[rows[at], offs[at]]
            for r in np.unique(ref[at]):
                sel = ref[at] == r
                out[at[sel]] = region.lslist[int(r)].exprs()[row[sel]]
            have = have | live
    if region.space != ".global" or region.role not in ("in", "inout") or have.all():
        return out   # the rest is concrete bits
    written = np.zeros(lanes.size, bool)
    if region.kwritten is not None:   # bytes the kernel wrote: concrete bits, unless an expression is there
        bytes_written = region.kwritten[rows[:, None], offs[:, None] + np.arange(size)]
        written = bytes_written.all(axis=1)
        if (bytes_written.any(axis=1) & ~written & ~have).any():
            raise Unsupported(f"`{op.d.inst.opcode}` reads {size} bytes of input buffer `{region.name}` of which "
                              f"the kernel wrote only some: their value is in part the input's", op.span)
    todo = np.nonzero(~have & ~written)[0]
    if todo.size:
        out[todo] = _input_values(m, op, region, offs[todo], size)
    return out


def pack_name(fmt: str) -> str:
    """The name of the call that pairs two 16-bit elements of format `fmt` into one register (`f16x2(lo, hi)`)."""
    return f"{fmt}x2"


def _input_values(m, op, region, offs, size):
    """Expressions of input elements read `size` bytes at a time: one element, or a pair of f16/bf16 elements
    read as 32 bits (a __half2 load: the pair f16x2(low, high), as packed arithmetic and stores take it)."""
    itemsize = region_itemsize(region)
    if size == itemsize:
        return input_leaves(m, region, itemsize, offs // itemsize)
    if size == 4 and itemsize == 2 and region.dtype in ("f16", "bf16") and not (offs % 2).any():
        low = input_leaves(m, region, 2, offs // 2)
        high = input_leaves(m, region, 2, offs // 2 + 1)
        pairs = np.empty(offs.size, dtype=object)
        pairs[:] = [E.call(pack_name(region.dtype), a, b) for a, b in zip(low, high)]
        return pairs
    raise Unsupported(f"`{op.d.inst.opcode}` reads {size}-byte pieces of the {region.dtype} buffer "
                      f"`{region.name}`; only whole elements (and pairs of f16/bf16 elements) are modelled "
                      f"symbolically", op.span)


# region.cover, per byte: where stored expressions lie. Only an expression's first byte has one in region.sym
# (or lsref); the bytes after it hold placeholder bits, and a store into some of an expression's bytes leaves
# the others holding a piece of a value that no expression describes.
START, INSIDE, DEAD = 1, 2, 3


def unreadable(region, rows, offs, size):
    """Per access of `size` bytes at (rows, offs): why no stored expression or concrete bits are what it reads
    (None where they are), or None when every access is readable. `rows` None: the region's one copy."""
    if region.cover is None:
        return None
    if getattr(region, "cover_width", 0) == size and not _misaligned(offs, size):
        return None   # every expression stored is `size` bytes at a multiple of `size`, none cut: whole values
    if rows is None:
        rows = np.zeros(offs.size, np.int64)
    c = region.cover[rows[:, None], offs[:, None] + np.arange(size)]
    if not ((c[:, 0] >= INSIDE).any() or (c[:, 1:] & 1).any()):   # START/DEAD after the first byte: odd
        return None
    why = np.full(rows.size, None, dtype=object)
    why[(c[:, 1:] == START).any(axis=1)] = "over a narrower value stored inside them"
    why[c[:, 0] == INSIDE] = "starting inside a wider value stored before them"
    why[(c == DEAD).any(axis=1)] = "of a value partly overwritten by a narrower store"
    return why


def stored_halves(m, region, lanes, offs) -> bool:
    """Whether 4-byte reads at (lanes, offs) cover 16-bit values stored apart, each whole (two 2-byte stores,
    or one beside an input element of a 16-bit buffer): what a 16-byte load of a struct of bf16 written element
    by element reads. `dispatch._ld` pairs them; `load_sym` refuses a read across stored values."""
    if region.cover is None or (offs % 2).any():
        return False
    rows = row_index(region, lanes, m)
    c = region.cover[rows[:, None], offs[:, None] + np.arange(4)]
    if not ((c[:, 2] == START).any() or ((c[:, 0] == START) & (region.symsize[rows, offs] == 2)).any()):
        return False
    return all(_readable(region, rows, at, 2) for at in (offs, offs + 2))


def _readable(region, rows, offs, size) -> bool:
    why = unreadable(region, rows, offs, size)
    return why is None or bool((why == None).all())  # noqa: E711


def _refuse_unreadable(op, region, rows, offs, size):
    why = unreadable(region, rows, offs, size)
    if why is not None:
        bad = np.flatnonzero(why != None)  # noqa: E711
        if bad.size:
            raise Unsupported(f"`{op.d.inst.opcode}` reads {size} bytes {why[bad[0]]} in `{region.name}`", op.span)


def _cover(region, rows, offs, size, has):
    """Record a store of `size` bytes at (rows, offs), an expression where `has`: an older expression the
    store overwrites only in part is dropped and its other bytes become DEAD."""
    if region.cover is None:
        if has is None or not has.any():
            return
        region.cover = np.zeros(region.data.shape, np.int8)   # zero pages: resident only where written
    cover, width = region.cover, region.cover.shape[1]
    end = offs + size
    after = np.zeros(rows.size, np.int8)
    inb = end < width
    after[inb] = cover[rows[inb], end[inb]]
    for j in np.flatnonzero((cover[rows, offs] == INSIDE) | (after == INSIDE)).tolist():   # rare
        _kill_partial(region, int(rows[j]), int(offs[j]), size)
    cover[rows[:, None], offs[:, None] + np.arange(size)] = 0
    if has is not None and has.any():
        _mark(region, rows[has], offs[has], size)


def _mark(region, rows, offs, size):
    if region.cover is None:
        region.cover = np.zeros(region.data.shape, np.int8)
    # cover_width: the one width of every expression marked so far, all at multiples of it (0: mixed widths,
    # unaligned, or one cut by a narrower store); `unreadable` needs no look at the cover for such reads
    width = getattr(region, "cover_width", None)
    region.cover_width = size if width in (None, size) and not (offs % size).any() else 0
    region.cover[rows, offs] = START
    if size > 1:
        region.cover[rows[:, None], offs[:, None] + np.arange(1, size)] = INSIDE


def _kill_partial(region, r, o, size):
    cover, width = region.cover, region.cover.shape[1]
    first = o
    while first > 0 and cover[r, first] == INSIDE:
        first -= 1   # back to the first byte of the expression the store begins inside
    end = o + size
    while end < width and cover[r, end] == INSIDE:
        end += 1
    part = cover[r, first:end]
    part[(part == START) | (part == INSIDE)] = DEAD   # the store's own bytes are reset after this
    region.cover_width = 0
    if first < o:
        if region.sym is not None:
            region.sym[r, first] = None
        if region.lsref is not None:
            region.lsref[r, first] = 0


def input_leaves(m, region, itemsize, index):
    """The expressions of input elements `index` (variables, or replayed constants), each built once and kept
    in pages: a buffer of 16 M elements of which a launch reads 64 K costs 64 K leaves, not 16 M pointers."""
    if region.leaves is None:
        region.leaves = PagedArray((1, -(-region.size // itemsize)), object, None)
    got = region.leaves.get(index)
    missing = np.flatnonzero(got == None)  # noqa: E711
    if missing.size:
        values = (m.input_values or {}).get(region.name)
        got[missing] = [input_leaf(region.name, values, int(i)) for i in index[missing]]
        region.leaves.put(index[missing], got[missing])
    return got


def input_leaf(name, values, i):
    return E.const(values[i]) if values is not None else E.var(name, i)


def store_sym(m, region, lanes, offs, size, sym):
    """Store per-lane expressions (an object array over `lanes`, None where concrete; or None for all
    concrete). The expression array of a region exists only once an expression is stored, and is paged:
    dense, its pointers would touch every page of a large buffer (memory follows what the launch touches)."""
    rows = row_index(region, lanes, m)
    if region.symsize is None:
        region.symsize = np.zeros(region.data.shape, np.int8)   # zero pages: resident only where written
    if region.kwritten is None:
        region.kwritten = np.zeros(region.data.shape, bool)
    has = np.asarray(sym, dtype=object) != None if sym is not None else None  # noqa: E711
    _cover(region, rows, offs, size, has)
    if region.sym is None and has is not None and has.any():
        region.sym = _object_pages(region.data.shape)
    stride = region.data.shape[1]
    if region.sym is not None:
        region.sym[rows, offs] = sym if sym is not None else None
        if size > 1:
            region.sym.put(((rows * stride + offs)[:, None] + np.arange(1, size)).reshape(-1), None)
    region.symsize[rows, offs] = size
    within = ((rows * stride + offs)[:, None] + np.arange(size)).reshape(-1)
    region.kwritten.reshape(-1)[within] = True
    if region.lsref is not None:
        region.lsref.reshape(-1)[within] = 0


def _object_pages(shape):
    """The expression stored at each offset, allocated a page at a time (None where nothing is stored)."""
    return PagedArray(shape, object, None)


def store_lsym(m, region, lanes, offs, size, ls):
    """Store a LaneSym (covering some of `lanes`; the others store concrete bits) as compact per-element
    references (value, row) instead of expressions."""
    store_sym(m, region, lanes, offs, size, None)
    if ls is None:
        return
    found, pos = ls.positions(lanes)
    if not found.any():
        return
    if region.lsref is None:
        region.lsref = np.zeros(region.data.shape, np.int32)   # slot + 1 (0: none): lazily zero pages
        region.lsrow = np.zeros(region.data.shape, np.int64)
        region.lslist = []
    rows = row_index(region, lanes[found], m)
    o = offs[found]
    _mark(region, rows, o, size)
    region.lsref[rows, o] = len(region.lslist) + 1
    region.lsrow[rows, o] = pos
    region.lslist.append(ls)


_LANE_TYPES = None


def _lane_types():
    """(lanesym, LaneSym, CoefficientOverflow, LanePoly), imported at the first lane-structured load rather than
    with this module (reports import it; lane polynomials load with the machine), and then kept: an import
    statement in the function cost a few microseconds on every load."""
    global _LANE_TYPES
    if _LANE_TYPES is None:
        from volta.exec.state import lanesym  # start-up
        from volta.symbolic.lanepoly import CoefficientOverflow, LanePoly  # start-up
        _LANE_TYPES = (lanesym, lanesym.LaneSym, CoefficientOverflow, LanePoly)
    return _LANE_TYPES


def load_lsym(m, op, region, lanes, offs, size):
    """Loaded values as one LaneSym (input leaves or stored LaneSym rows) covering the lanes that read
    symbolic data (the others read concrete bits, exactly as `load_sym` would), or None: the general
    path (`load_sym`) then decides."""
    lanesym, LaneSym, CoefficientOverflow, LanePoly = _lane_types()

    if region == "kernel-param" or lanes.size == 0:
        return None
    rows = row_index(region, lanes, m) if region.copies > 1 else None   # (made below if needed)
    flat = offs if rows is None else flat_index(region, rows, offs)   # one index into each per-byte array
    _refuse_unreadable(op, region, rows, offs, size)
    if region.sym is not None:
        stored = region.sym.get(flat)
        if np.count_nonzero(stored != None):  # noqa: E711
            return _stored_leaves(region, lanes, row_index(region, lanes, m) if rows is None else rows, offs, size,
                                  stored)
    refs = region.lsref
    if refs is not None:
        ref = refs.reshape(-1)[flat]   # slot + 1 in region.lslist, 0: none
        count = np.count_nonzero(ref)
        every = count == ref.size
        if count:
            has = ref > 0
            at = flat if every else flat[has]
            if np.count_nonzero(region.symsize.reshape(-1)[at] != size):
                return None
            if not every:   # the other lanes read what the general path reads as concrete bits
                if region.space == ".global" and region.role in ("in", "inout") and \
                        not region.kwritten.reshape(-1)[flat[~has]].all():
                    return None   # unwritten input elements are leaves there: let the general path mix them
                lanes, ref = lanes[has], ref[has]
            row = region.lsrow.reshape(-1)[at]
            ids = ref[:1] if np.count_nonzero(ref != ref[0]) == 0 else np.unique(ref)
            try:
                if ids.size == 1:
                    return LaneSym(lanes, region.lslist[int(ids[0]) - 1].poly.take(row),
                                   ordered=lanes is m.all_lanes)
                polys = [region.lslist[int(r) - 1].poly for r in ids]
                leaves = _leaves_of_one_buffer(polys)
                if leaves is not None:
                    # input elements of one buffer stored by several instructions (a tile filled in steps): one leaf
                    index = np.empty(lanes.size, np.int64)
                    for r, leaf in zip(ids, leaves):
                        sel = ref == r
                        index[sel] = leaf[1][row[sel]]
                    return LaneSym(lanes, LanePoly.leaf(leaves[0][0], index))
                return lanesym.merge([LaneSym(lanes[ref == r], p.take(row[ref == r])) for r, p in zip(ids, polys)])
            except CoefficientOverflow:
                return None
    if region.kwritten is not None and (region.kwritten.reshape(-1)[flat].any() if size == 1 else
                                        region.kwritten.reshape(-1)[flat[:, None] + np.arange(size)].any()):
        return None   # some bytes the kernel wrote: load_sym sorts them out
    if region.space == ".global" and region.role in ("in", "inout") and m.input_values is None:
        itemsize = region_itemsize(region)
        if size != itemsize or _misaligned(offs, itemsize):
            return None
        return LaneSym(lanes, LanePoly.leaf(region.name, offs // itemsize if itemsize > 1 else offs),
                       ordered=lanes is m.all_lanes)
    return None


def _leaves_of_one_buffer(polys: list):
    """[(buffer, index per lane)] when every polynomial is one input element of the same buffer in each lane,
    else None — decided at the first one that is not (a softmax's stored values: the first, of hundreds)."""
    out = []
    for p in polys:
        leaf = p.leaf_parts()
        if leaf is None or (out and leaf[0] != out[0][0]):
            return None
        out.append(leaf)
    return out


def _stored_leaves(region, lanes, rows, offs, size, stored):
    """Per-lane expressions stored at (rows, offs) as one LaneSym of leaves, when every lane reads an input
    element of one buffer stored at this width (a tile copied into shared memory as f16 pairs, read back
    element by element); None otherwise (the general path)."""
    _, LaneSym, _, LanePoly = _lane_types()

    first = stored[0]
    if not isinstance(first, E.Expr) or first.op is not E.VAR or (region.symsize[rows, offs] != size).any():
        return None
    name = first.data[0]
    try:
        index = np.fromiter((e.data[1] if e.op is E.VAR and e.data[0] == name else -1 for e in stored),
                            np.int64, stored.size)
    except AttributeError:   # None (concrete bits) or another kind of value in some lane
        return None
    if (index < 0).any():
        return None
    return LaneSym(lanes, LanePoly.leaf(name, index))


def region_itemsize(region) -> int:
    return DTYPES[region.dtype][1] if region.dtype in DTYPES else 1
