"""The SIMT executor: every thread of every CTA of the launch as one vector of lanes.

Each step takes the lanes at the smallest program counter and executes that instruction once for
all of them with numpy (no per-thread Python loop). Lanes block at `bar.sync` until their CTA
arrives and at warp collectives until the members of their warp arrive; when nothing can run and
someone still waits, that is a deadlock. Registers are uint64 lane arrays of bits, with a parallel
flags array: DATA marks values derived from tensor data (a branch or address that depends on one
leaves the structured class) and UNDEF marks values read from never-written shared/local memory.
"""
from __future__ import annotations

import contextlib
import gc

import numpy as np

import volta.exec.handlers.every  # noqa: F401  (fills the opcode tables; `every` below is the lane array)
from volta.config import ALL_FAST, NO_INTEGERS, WARP_SIZE, FastPaths, IntegerInputs
from volta.errors import Unsupported, UsageError
from volta.exec import findings as F
from volta.exec import limits
from volta.exec.fast import onethread
from volta.exec.handlers import floatbits, hopper, ifconvert, integer_real, tensor_real
from volta.exec.races import memmodel
from volta.exec.state import lanesym
from volta.exec.state.lanesym import LaneSym
from volta.exec.state.memory import KERNEL_PARAM_BASE, Memory
from volta.exec.state.operands import (booleans, constants, exponent_field_idiom, lane_bits_constants, object_array,
                                       select_real, source_types)
from volta.exec.handlers.table import DISPATCH, NOT_REAL, REAL, WATCHERS
from volta.exec.races.shadow import Shadow
from volta.exec.state.runtime import ConcreteRuntime
from volta.exec.state.services import (BAR, DATA, EXIT, RUN, SPIN, UNDEF, WARP,  # noqa: F401 (re-exported)
                                       MachineServices)
from volta.ir.program import Program, RegRef, SpecialRef, VarRef, type_size
from volta.ir.written import written_origins
from volta.launch import globalvars, structargs
from volta.launch.spec import FIXED, KernelLaunch, bind_args
from volta.numerics.mma_select import MmaSetting
from volta.ptx import ast
from volta.semantics import compute as C
from volta.semantics import realops
from volta.semantics.bits import U64, as_float, is_float, mask, width
from volta.symbolic import expr as E
from volta.symbolic.lanepoly import CoefficientOverflow

WARP_COLLECTIVES = {"shfl", "vote", "match", "redux", "ldmatrix", "mma", "wmma", "bar.warp", "activemask", "elect"}
# Handlers that move every lane to the next instruction and never block, exit or branch.
# special registers whose values the hardware picks at run time (PTX ISA §10: %warpid "may change during
# execution", %nwarpid/%nsmid are device maxima, %clock/%globaltimer are time)
SCHEDULE_DEPENDENT = frozenset({"%smid", "%nsmid", "%gridid", "%warpid", "%nwarpid", "%clock", "%clock_hi",
                                "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"})
STRAIGHT = frozenset({"ld", "ldu", "st", "setp", "set", "mov", "cvta", "atom", "red", "membar", "fence"})


_PRED_LOGIC = {
    "and": E.logical_and, "or": E.logical_or, "not": E.logical_not,
    "xor": lambda a, b: E.logical_or(E.logical_and(a, E.logical_not(b)), E.logical_and(E.logical_not(a), b)),
}



def _joined_flags(each):
    """The flags of a result: every source's (data, never-written), or None when no source has any."""
    flags = None
    for f in each:
        if f is not None:
            flags = f if flags is None else flags | f
    return flags


def _selected_flags(pred, fa, fb, fp):
    """selp's flags per lane: those of the operand it selects, since the other arm is not read (a fill that
    nvcc compiles to `selp r, 0, r, p` keeps a never-written r only where p is false); where the predicate is
    data its bits are placeholders, so both arms' flags count, and the predicate's own always do."""
    if fa is None and fb is None:
        return fp
    like = fa if fa is not None else fb
    fa = fa if fa is not None else np.zeros_like(like)
    fb = fb if fb is not None else np.zeros_like(like)
    chosen = np.where(np.asarray(pred) != 0, fa, fb)
    if fp is None:
        return chosen
    return np.where((fp & DATA) != 0, fa | fb, chosen) | fp

class Machine(MachineServices):
    def __init__(self, prog: Program, launch: KernelLaunch, buffers: dict, symbols: dict | None = None,
                 inputs: dict | None = None, structured: bool = True, check_races: bool = True,
                 fp: str = "ieee", symbolic: bool = False, input_values: dict | None = None,
                 functions: dict | None = None,
                 lane_structured: bool = False, allow_exit_before_barrier: bool = False,
                 lockstep_warps: bool = False, tensor: MmaSetting | None = None,
                 runtime: ConcreteRuntime | None = None, named=None, integers: IntegerInputs = NO_INTEGERS,
                 carried: dict | None = None, racing: dict | None = None, path_log=None,
                 fast: FastPaths = ALL_FAST):
        self.prog = prog
        self.fast = fast  # which fast paths this run may take (volta/config.py)
        # a launch sequence: the previous launch's buffer regions, taken as they are (volta/exec/drivers/pipeline.py)
        self.carried_regions = carried or {}
        self.integers = integers  # integer input buffers and their ranges (volta/config.py), read by the real paths
        self.runtime = runtime or ConcreteRuntime()  # bodiless functions, printf, schedule (exec/state/runtime.py)
        self.lockstep = lockstep_warps  # pre-Volta: a warp's threads execute each instruction together
        self.solo_state = None  # volta/exec/fast/onethread.py: a lane's register cache and decoded steps
        self.lane_fallbacks: dict = {}  # opcode -> count of data instructions that took the per-lane path
        self.symbolic = symbolic  # float data as real-valued expressions (`volta check`)
        self.input_values = input_values  # {buffer: {index: Fraction}}: replay a counterexample exactly
        self.functions = functions or {}  # external function -> real meaning ('exp', 'sqrt', …)
        # a `constants.Reading`: float words that are RN(log2 e), RN(π), … read as those constants (`volta check`,
        # volta/symbolic/constants.py); None: every concrete float is the rational its bits are (`volta run`,
        # the bit modes, --exact-constants)
        self.named = named if symbolic else None
        self.fp = fp  # 'real' | 'ieee' | an architecture name ('ampere', 'hopper', …) for tensor cores
        self.tensor = tensor or MmaSetting()  # which tensor-core code: instruction default, ptxas version
        self.tensor_rows: dict = {}  # row name -> MmaRow: each tensor-core row this run used (volta run names them)
        self.launch = launch
        self.structured = structured  # False for `volta run`: data may steer control flow
        self.check_races = check_races
        self.allow_exit_before_barrier = allow_exit_before_barrier  # exited threads count as arrived (sm_70+)
        self.findings: list[F.Finding] = []
        self._seen = set()
        # refuse before allocating: threads × per-thread state + buffers + shared/local copies (--max-memory)
        limits.check_memory(prog, launch, buffers, symbolic=symbolic, check_races=check_races)
        grid, block = launch.grid, launch.block
        picks = getattr(launch, "ctas", None)  # --ctas: only these CTAs run (volta/launch/ctas.py)
        self.n_cta = len(picks) if picks else grid.count
        self.per_cta = block.count
        n = self.L = self.n_cta * self.per_cta
        lane = np.arange(n, dtype=np.int64)
        self.cta = lane // self.per_cta  # the CTA's position among those that run (shared memory, barriers)
        local = lane % self.per_cta
        self.tid = (local % block.x, (local // block.x) % block.y, local // (block.x * block.y))
        linear = np.asarray(picks, np.int64)[self.cta] if picks else self.cta
        self.ctaid = (linear % grid.x, (linear // grid.x) % grid.y, linear // (grid.x * grid.y))
        self.laneid = local % WARP_SIZE
        self.warp_in_cta = local // WARP_SIZE
        self.warps_per_cta = (self.per_cta + WARP_SIZE - 1) // WARP_SIZE
        self.gwarp = self.cta * self.warps_per_cta + self.warp_in_cta
        self.all_lanes = lane  # the lane array used whenever every thread takes part (fast paths test `is`)
        lane.flags.writeable = False   # an arange that stays one: LaneSym trusts its order (`ordered=`)
        self.pc = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int8)
        self.nbar = np.zeros(n, dtype=np.int64)  # barriers passed, per thread
        self.gen = np.zeros(self.n_cta, dtype=np.int64)
        self.wgen = np.zeros(self.n_cta * self.warps_per_cta, dtype=np.int64)
        self.regs: list = [None] * len(prog.regs)
        self.flags: list = [None] * len(prog.regs)
        self.sym: list = [None] * len(prog.regs)  # object lane arrays of expressions (symbolic mode)
        self.steps = 0
        self.clock = limits.StepClock()  # when step_check next reads the clock (deadline, memory, progress)
        self.undef_origin = None  # (op, lane) of the first read of never-written shared/local memory
        self.last_branch = np.full(n, -1, np.int64)  # per lane: pc of the last conditional branch executed
        self.conditional = None  # (lanes whose path condition may fail, op) while if-conversion runs a side
        self.expressions_follow = False  # while a REAL handler runs its bit handler (handlers/table.run_bits)
        self.path_condition = None  # {lane: condition} of the side running, when `path_log` is kept
        self.path_log = path_log  # volta/exec/drivers/feasible.py: conditions each memory access ran under
        self.thread_instructions = 0
        self.unproved_stores: list = []  # same-warp stores of data to one address whose values need expressions
        self.reals_rerun: list = []  # stores racing with tensor data in a structured run: compared over the reals
        self.replicas: set = set()  # PTX sites of stores to one slot found equal over the reals (replicas.py)
        self.racing = racing  # racy_reads.py's second run: region -> the first run's race shadow (None: first)
        self.racing_pcs: set = set()  # ... and the loads that returned fresh leaves there
        self.normalizer = None  # shared by the value comparisons of those stores (symbolic mode)
        self.mem_epoch = 0  # bumped whenever a store or atomic changes memory (wakes parked spinners)
        self.spin_hash = self.spin_pc = self.spin_epoch = None  # per lane, allocated at the first back-edge
        self._setup_memory(buffers, symbols or {}, inputs or {})
        # vector clocks for release/acquire and fences (volta/exec/races/memmodel.py), only where the program has them
        self.clocks = memmodel.Clocks(self) if check_races and memmodel.needs_clocks(prog) else None
        # loops may spin on memory (atomics, strong loads, a grid barrier): park lanes whose iteration changed nothing
        self.may_spin = not structured or _may_spin(prog)
        opcodes = {o.op for o in prog.ops}   # instructions that watch the others (dispatch.WATCHERS: wgmma)
        self.watchers = [make(self) for name, make in WATCHERS.items() if name in opcodes]
        # one thread on the plain Machine: the one-thread executor runs it (volta/exec/fast/onethread.py)
        self.one_thread = onethread.applies(self, type(self) is Machine)
        # polynomial data as LaneSym (one numpy-structured value per register), see volta/exec/state/lanesym.py;
        # the one-thread executor keeps per-lane expressions instead
        self.lane_structured = bool(lane_structured and symbolic and input_values is None and not self.one_thread)

    # ---- set-up ---------------------------------------------------------------------------
    def _mark_read_only(self):
        """Buffers no store, atomic or copy of this launch can reach (volta/ir/written.py) are read-only:
        the race detector does not record their reads (a third of a GEMM's time)."""
        origins = written_origins(self.prog)
        regions = self.buffer_regions.values()
        for region in regions:
            region.read_only = False
        if origins is None:
            return
        reached = set()
        for name in origins:
            if name in self.param_values:
                bits = self.param_values[name][0]
                rid = int(self.memory.locate(".global", np.array([bits], np.uint64))[0][0])
                reached.add(rid)
            elif name in self.memory.by_name:
                reached.add(self.memory.by_name[name].rid)
            else:
                return   # an origin this launch has no region for: take nothing as read-only
        for region in regions:
            region.read_only = region.space == ".global" and region.rid not in reached

    def _setup_memory(self, buffers, symbols, inputs):
        mem = self.memory = Memory()
        self.buffer_regions = {}
        bound = bind_args(self.launch, self.prog.params, buffers, symbols)
        pointer_params = _pointer_params(self.prog)
        self.null_params = []  # pointer parameters passed 0: null pointers (dereferencing one is a finding)
        for (pname, ptype, _), (kind, value) in zip(self.prog.params, bound):
            if kind == "scalar" and pname in pointer_params and value == 0:
                self.null_params.append(pname)
            elif kind == "scalar" and pname in pointer_params and isinstance(value, int):
                raise UsageError(f"parameter `{pname}` is used as a pointer but --args passes the scalar {value}; "
                                 f"pass a --buffer name")
        hopper.refuse_larger_clusters(self.prog)  # launches have clusters of one CTA
        carried = self.carried_regions
        for name, buf in buffers.items():
            if name in carried:  # same bytes, taint and symbolic values; a fresh race shadow (launches are ordered)
                region = carried[name]
                region.rid, region.shadow = len(mem.regions), None
                mem.regions.append(region)
                mem.by_name[name] = region
                self.buffer_regions[name] = region
                continue
            known = buf.known_values()   # `:iota`: known numbers whatever the inputs say (role FIXED)
            region = mem.add(name, ".global", buf.nbytes, role=buf.role if known is None else FIXED, dtype=buf.dtype)
            if name in inputs or known is not None:
                pass   # given bytes: defined
            elif buf.role == "temp" or buf.undefined_start:  # never-written: reading it first is an uninitialized read
                region.written = np.zeros(region.data.shape, bool)
            elif buf.role == "out" and not self.structured:   # `volta run`: zeros, but say when a read sees them
                region.written, region.zero_start = np.zeros(region.data.shape, bool), True
            if name in inputs or known is not None:
                raw = np.ascontiguousarray(inputs[name] if known is None else known).view(np.uint8).reshape(-1)
                region.data[0, : raw.size] = raw[: region.size]
            self.buffer_regions[name] = region
        shared_dyn = self.launch.shared_dynamic
        for var in self.prog.variables.values():
            if var.space == ".shared":
                size = shared_dyn if var.dynamic else var.size
                mem.add(var.name, ".shared", size, copies=self.n_cta, init=var.init)
            elif var.space == ".local":
                mem.add(var.name, ".local", var.size, copies=self.L, init=var.init)
            elif var.space in (".global", ".const"):
                # a variable this module defines starts as its initializer (zeros without one), known bytes of
                # this module, never an input: ref and opt each have their own `__device__` tables. An
                # `.extern` one is defined elsewhere: its contents are an input, like a buffer's
                # (`--global NAME=VALUE`, volta/launch/globalvars.py: the value the launch gives it, known too)
                given = globalvars.initial_bytes(var, self.launch.globals) if var.space == ".global" else None
                mem.add(var.name, var.space, var.size, init=given or var.init,
                        role="in" if var.extern and given is None else "module")
            elif var.space == ".param" and var.name not in dict((p[0], p) for p in self.prog.params):
                mem.add(var.name, ".param", var.size, copies=self.L)
        # kernel parameters: one read-only copy, values from --args
        self.param_values = {}
        for (pname, ptype, size), (kind, value) in zip(self.prog.params, bound):
            if kind == "struct":  # a by-value struct whose address is taken: its bytes in parameter memory
                structargs.place_image(mem, pname, size, value, self.buffer_regions)
                continue
            if kind == "buffer":
                bits = self.buffer_regions[value.name].base
            elif kind == "buffer_at":   # a pointer into a buffer (`--args x+256`)
                bits = self.buffer_regions[value[0].name].base + value[1]
            elif kind == "symbol":
                bits = 0
            elif isinstance(value, float) or ptype.startswith(".f"):
                bits = int(C.from_float(np.array([value]), ptype)[0])
            else:
                bits = int(value) & ((1 << (8 * min(size, 8))) - 1)
            self.param_values[pname] = (bits, value if kind == "symbol" else None)
        self._mark_read_only()
        if _uses_envreg(self.prog):
            # %envreg1:%envreg2 is the driver's grid-sync workspace of a cooperative launch (cg::this_grid()):
            # the barrier nvcc emits (atom.add.release.gpu + ld.acquire.gpu spin) runs on it as written
            mem.add("%grid_sync_workspace", ".global", 16, role="inout", dtype="u32")
        # a region only one CTA touches (its copy of shared memory: clusters are of one CTA; anything when the
        # launch is one CTA) forgets reads of its earlier barrier intervals, unless a cp.async looks back at them
        no_async = not any(op.op == "cp" for op in self.prog.ops)
        for region in mem.regions[1:]:
            if self.check_races and region.space in (".global", ".shared"):
                g = 4 if region.dtype is None else min(4, max(1, type_size("." + region.dtype) if region.dtype[0] in "fsu" else 4))
                private = no_async and (region.space == ".shared" or self.n_cta == 1)
                region.shadow = Shadow(region.copies * max(region.data.shape[1], 16), g, private=private)

    # ---- the scheduler ------------------------------------------------------------------
    def run(self):
        try:
            with _rare_collections():
                if self.one_thread:
                    onethread.run(self)   # one thread: decoded closures over scalars, this machine for the rest
                else:
                    self._run_lanes()
        except limits.Timeout as err:
            err.count(self)   # a timed-out report shows the work done until then
            raise
        waiting = np.nonzero((self.status == BAR) | (self.status == WARP) | (self.status == SPIN))[0]
        if waiting.size:
            self._report_deadlock(waiting)
        self._stamp_formats()
        return self

    def _stamp_formats(self):
        """Say on each buffer which 16-bit float formats the launches so far made, for a later launch of a
        sequence that reads a stored 16-bit value (its bits do not say whether they are f16 or bf16): what
        this kernel makes, and what the earlier launches made (unknown stays unknown); "int" where a launch
        converts floats to integers."""
        made = tensor_real.formats_stored(self)
        for name, region in self.buffer_regions.items():
            if name not in self.carried_regions:
                region.formats_made = made
            elif region.formats_made is not None:
                region.formats_made = region.formats_made | made

    def _run_lanes(self):
        solo = self.L > 1 and onethread.eligible(self, type(self) is Machine)
        n_ops = len(self.prog.ops)
        every = self.all_lanes
        fast_pc = -1  # set while every lane is converged and running: the next step needs no search
        max_steps = limits.current().step_limit
        while True:
            if 0 <= fast_pc < n_ops:
                pc, lanes = fast_pc, every
            else:
                picked = self._pick()
                if picked is None:
                    return
                pc, lanes = picked
                if lanes.size == 1 and solo and onethread.solo(self, int(lanes[0]), self._picked_alone_below(pc)):
                    continue   # it ran ahead alone, up to an instruction for the general path
            fast_pc = -1
            op = self._counted_step(pc, lanes, max_steps)
            if lanes is every and op.guard is None and (op.op in STRAIGHT or op.op in C.TABLE and op.op not in DISPATCH):
                fast_pc = pc + 1

    def _picked_alone_below(self, pc: int) -> int:
        """For the one lane `_pick` chose at `pc`: the lowest pc of every other lane that `_pick` could choose
        or take along (runnable, or waiting at a warp sync). Below it the lane keeps being picked alone."""
        others = ((self.status == RUN) | (self.status == WARP)) & (self.pc != pc)
        return int(self.pc[others].min()) if others.any() else len(self.prog.ops) + 1

    def step_once(self, max_steps: int) -> bool:
        """One step of the scheduler (volta/exec/fast/onethread.py's way into the general path); False when no
        thread is left to run."""
        picked = self._pick()
        if picked is None:
            return False
        self._counted_step(*picked, max_steps)
        return True

    def _pick(self):
        """The lowest program counter among runnable lanes and the lanes there; None when nothing can run
        (after releasing barriers and waking spinners)."""
        n_ops = len(self.prog.ops)
        while True:
            runnable = self.status == RUN
            if not runnable.any():
                if self._release_barriers() or self._wake_spinners():
                    continue
                return None
            pc = int(self.pc[runnable].min())
            if pc >= n_ops:
                self.status[runnable & (self.pc >= n_ops)] = EXIT
                continue
            lanes = np.flatnonzero((runnable | (self.status == WARP)) & (self.pc == pc))
            return pc, (self.all_lanes if lanes.size == self.L else lanes)

    def _counted_step(self, pc, lanes, max_steps):
        ops = self.prog.ops
        self.steps += 1
        if self.steps >= self.clock.due:
            limits.step_check(self)  # --timeout deadline, memory, progress line: by the clock (StepClock)
        if self.steps > max_steps:
            raise limits.too_many_steps(max_steps, ops[pc].span)
        op = ops[pc]
        self._step(op, lanes)
        return op

    def advance(self, lanes):
        """Move lanes to the next instruction (a whole-array add when every lane is there)."""
        if lanes is self.all_lanes:
            self.pc += 1
        else:
            self.pc[lanes] += 1

    def _step(self, op, lanes):
        if op.guard is not None:
            reg, negated = op.guard
            if self.structured and ifconvert.data_condition(self, reg, lanes):
                # a condition on tensor data: both sides run under it and merge (volta/exec/handlers/ifconvert.py)
                if op.op in ("bra", "exit", "ret"):
                    ifconvert.run_region(self, op, lanes)
                else:
                    ifconvert.run_guarded(self, op, lanes)
                return
            self._require_structured(op, reg, lanes, "branch condition" if op.op == "bra" else "guard predicate")
            if op.op == "bra":
                self.last_branch[lanes] = op.index
            g = self.regs[reg][lanes] != 0 if self.regs[reg] is not None else np.zeros(lanes.size, bool)
            if negated:
                g = ~g
            if op.op in WARP_COLLECTIVES or op.op in ("bar", "barrier"):
                pass  # predicated collectives: only lanes with a true guard take part
            skipped = lanes[~g]
            self.pc[skipped] += 1
            self.status[skipped] = RUN
            lanes = lanes[g]
            if lanes.size == 0:
                return
        try:
            self._execute(op, lanes)
        except Unsupported as e:
            if e.span is None:   # raised below the instruction (an operand, a register): say where it was
                e.span = op.span
            raise

    def _execute(self, op, lanes):
        """op on lanes whose guard holds (or that if-conversion runs under a path condition)."""
        self.thread_instructions += lanes.size
        for watch in self.watchers:
            watch(op, lanes)
        if self.symbolic and op.op in NOT_REAL:
            real = REAL.get(op.op) if not getattr(self, "bit_terms", False) else None
            if real is not None:
                real(self, op, lanes)
                return
            raise Unsupported(f"`{op.d.inst.opcode}` moves or computes tensor data outside the real-number "
                              f"model of volta check (use `volta check --fp ieee|ARCH` to compare bits)", op.span)
        handler = DISPATCH.get(op.op)
        if handler is not None:
            handler(self, op, lanes)
            return
        fn = C.TABLE.get(op.op)
        if fn is None:
            raise Unsupported(f"no semantics for `{op.d.inst.opcode}` yet", op.span)
        self._compute(op, fn, lanes)

    def report(self, kind, message, op, threads, second=None, related=None, **where):
        """A finding of a thread that runs an if-converted side says it needs the data condition."""
        cond = self.conditional
        if cond is not None and any(int(t) in cond[0] for t in threads):
            message += (" (possible only when a condition on tensor data holds: the branch is if-converted, "
                        "both sides are checked)")
            where["details"] = {**where.get("details", {}), "conditional": True}
        super().report(kind, message, op, threads, second, related, **where)

    # ---- register access ---------------------------------------------------------------------
    def read(self, operand, lanes, t=None):
        """Bits of an operand for the given lanes (uint64), and its flags (uint8 or None)."""
        if isinstance(operand, RegRef):
            r = self.regs[operand.index]
            f = self.flags[operand.index]
            if r is None:
                return np.zeros(lanes.size, np.uint64), np.full(lanes.size, UNDEF, np.uint8)
            if lanes is self.all_lanes:
                return r.copy(), (f.copy() if f is not None else None)
            return r[lanes], (f[lanes] if f is not None else None)
        if isinstance(operand, ast.Imm):
            v = operand.value & ((1 << 64) - 1)
            if t is not None and width(t) < 64:
                v &= (1 << width(t)) - 1
            return np.full(lanes.size, v, np.uint64), None
        if isinstance(operand, ast.FloatImm):
            bits = operand.bits
            if bits is None:
                bits = int(C.from_float(np.array([float(operand.text)]), t or ".f64")[0])
            elif t == ".f64" and operand.width == 32:
                bits = int(C.from_float(np.array([np.uint32(bits)]).view(np.float32).astype(np.float64), ".f64")[0])
            elif t == ".f32" and operand.width == 64:
                bits = int(C.from_float(np.array([np.uint64(bits)]).view(np.float64), ".f32")[0])
            return np.full(lanes.size, bits, np.uint64), None
        if isinstance(operand, SpecialRef):
            return self._special(operand.name, lanes), None
        if isinstance(operand, VarRef):
            return np.full(lanes.size, self._var_address(operand), np.uint64), None
        if isinstance(operand, ast.NotReg):
            v, f = self.read(operand.reg, lanes)
            return (v == 0).astype(np.uint64), f
        raise Unsupported(f"operand {operand!r} cannot be read here")

    def write(self, operand, lanes, bits, flags=None, sym=None):
        if isinstance(operand, ast.Sink) or operand is None:
            return
        if self.symbolic and not self.expressions_follow and isinstance(operand, RegRef):
            if flags is not None:
                self._require_expressions(lanes, flags, sym)
            self._write_sym(operand.index, lanes, sym)
        if not isinstance(operand, RegRef):
            raise Unsupported(f"cannot write to operand {operand!r}")
        i = operand.index
        if self.regs[i] is None:
            self.regs[i] = np.zeros(self.L, np.uint64)
        w = width(operand.type) if operand.type != ".pred" else 1
        at = slice(None) if lanes is self.all_lanes else lanes
        if bits.dtype != np.uint64:
            bits = bits.astype(np.uint64)
        self.regs[i][at] = mask(bits, w) if w < 64 else bits
        if flags is not None and np.count_nonzero(flags):   # (count_nonzero: a fifth of .any()'s cost)
            if self.flags[i] is None:
                self.flags[i] = np.zeros(self.L, np.uint8)
            self.flags[i][at] = flags
        elif self.flags[i] is not None:
            if lanes is self.all_lanes:
                self.flags[i] = None
            else:
                self.flags[i][lanes] = 0

    def _require_expressions(self, lanes, flags, sym):
        """Safety net for `volta check`: a data lane written without an expression would later be
        read back as a concrete placeholder; refuse instead of computing with it."""
        if isinstance(sym, LaneSym) and sym.lanes is lanes:
            return   # an expression on every lane written (a lane computation over all of them)
        data = (np.asarray(flags) & DATA) != 0
        count = np.count_nonzero(data)
        if not count:
            return
        if sym is None:
            covered = False
        elif isinstance(sym, LaneSym):
            want = lanes if count == data.size else lanes[data]
            if want.size == sym.lanes.size and (want is sym.lanes or np.array_equal(want, sym.lanes)):
                covered = True
            else:   # both sorted: a binary search per lane
                covered = bool(sym.positions(want)[0].all())
        else:
            covered = not any(e is None for e in np.asarray(sym, dtype=object)[data])
        if not covered:
            raise Unsupported("an instruction produced tensor data without a real-number value "
                              "(its semantics over the reals are not modelled)")

    def _write_sym(self, i, lanes, sym):
        cur = self.sym[i]
        if isinstance(sym, LaneSym):  # covers a subset of `lanes`; the others become concrete
            if cur is None:
                self.sym[i] = sym
                return
            if isinstance(cur, LaneSym):
                rest = None if lanes is self.all_lanes else cur.without(lanes)   # every lane: nothing of cur stays
                if rest is None:
                    self.sym[i] = sym
                    return
                try:
                    self.sym[i] = lanesym.merge([rest, sym])
                    return
                except CoefficientOverflow:
                    cur = self._materialize(i)
            others = np.ones(self.L, bool)
            others[lanes] = False
            if not (cur[others] != None).any():  # noqa: E711
                self.sym[i] = sym
                return
            cur[lanes] = None
            cur[sym.lanes] = sym.exprs()
            return
        if isinstance(cur, LaneSym):
            if sym is None:
                self.sym[i] = cur.without(lanes)
                return
            cur = self._materialize(i)
        if sym is None:
            if cur is not None:
                cur[lanes] = None
            return
        if cur is None:
            self.sym[i] = cur = np.full(self.L, None, dtype=object)
        cur[lanes] = sym

    def _materialize(self, i):
        """Turn register i's LaneSym into the per-lane object array (the general path)."""
        cur = self.sym[i]
        if isinstance(cur, LaneSym):
            arr = np.full(self.L, None, dtype=object)
            arr[cur.lanes] = cur.exprs()
            self.sym[i] = cur = arr
        return cur

    def lane_sym(self, operand, lanes):
        """The LaneSym of a register restricted to the lanes it covers among `lanes`, or None."""
        if isinstance(operand, RegRef) and isinstance(self.sym[operand.index], LaneSym):
            return self.sym[operand.index].restrict(lanes)[1]
        return None

    def lane_value(self, operand, lanes, t):
        """The operand on `lanes` as a LanePoly (symbolic or concrete constants), or None when some
        lane holds a per-lane expression or a value with no rational meaning (inf/NaN)."""
        cur = self.sym[operand.index] if isinstance(operand, RegRef) else None
        if isinstance(operand, ast.NotReg):
            return None
        if cur is None:
            return _lane_constants(self, operand, lanes, t)
        if isinstance(cur, LaneSym):
            if cur.lanes is lanes or (lanes is self.all_lanes and cur.lanes.size == lanes.size):
                return cur.poly   # every lane (a LaneSym's lanes are distinct lanes of the machine, increasing)
            found, part = cur.restrict(lanes)
            if found.all():
                return part.poly
            rest = lanes[~found]
            consts = _lane_constants(self, operand, rest, t)
            if consts is None:
                return None
            if part is None:
                return consts
            return lanesym.merge([part, LaneSym(rest, consts)]).poly
        if (cur[lanes] != None).any():  # noqa: E711
            return None
        return _lane_constants(self, operand, lanes, t)

    def sym_of(self, operand, lanes):
        """Raw expressions of a register for the lanes (None where concrete), or None."""
        if isinstance(operand, RegRef) and self.sym[operand.index] is not None:
            return self._materialize(operand.index)[lanes]
        if isinstance(operand, ast.NotReg):
            s = self.sym_of(operand.reg, lanes)
            return None if s is None else np.array([None if e is None else E.logical_not(e) for e in s], dtype=object)
        return None

    def read_sym(self, operand, lanes, t):
        """Expressions for an operand: its symbolic value, or its concrete bits read as type t."""
        raw = self.sym_of(operand, lanes)
        pred = isinstance(operand, RegRef) and operand.type == ".pred" or t == ".pred"
        if raw is None:
            out, need = np.empty(lanes.size, dtype=object), None
        else:
            out = raw.copy()
            need = np.nonzero(raw == None)[0]  # noqa: E711  (elementwise over an object array)
            if need.size == 0:
                return out
        at = lanes if need is None else lanes[need]
        bits, _ = self.read(operand, at, t)
        consts = booleans(bits) if pred else constants(bits, t, self.named)
        if need is None:
            out[:] = consts
        else:
            out[need] = consts
        return out

    def _special(self, name, lanes):
        base, _, comp = name.partition(".")
        if self.symbolic and (base in SCHEDULE_DEPENDENT or base.startswith("%pm")):
            raise Unsupported(f"special register {name} depends on the hardware and the schedule (which SM, which "
                              f"warp slot, when), not on the launch or the inputs; `volta check` would have to "
                              f"pick one value for it, so it compares no kernel that reads it (`volta run` and "
                              f"`volta races` use a fixed value)")
        k = "xyz".index(comp) if comp in ("x", "y", "z") else 0
        block, grid = self.launch.block, self.launch.grid
        if base == "%tid":
            v = self.tid[k][lanes]
        elif base == "%ntid":
            v = np.full(lanes.size, (block.x, block.y, block.z)[k])
        elif base == "%ctaid":
            v = self.ctaid[k][lanes]
        elif base == "%nctaid":
            v = np.full(lanes.size, (grid.x, grid.y, grid.z)[k])
        elif base == "%laneid":
            v = self.laneid[lanes]
        elif base == "%warpid":
            v = self.warp_in_cta[lanes]
        elif base == "%nwarpid":
            v = np.full(lanes.size, self.warps_per_cta)
        elif base.startswith("%lanemask_"):
            lid = self.laneid[lanes].astype(np.uint64)
            one = U64(1) << lid
            v = {"%lanemask_eq": one, "%lanemask_lt": one - U64(1), "%lanemask_le": (one << U64(1)) - U64(1),
                 "%lanemask_gt": ~((one << U64(1)) - U64(1)) & U64(0xFFFFFFFF),
                 "%lanemask_ge": ~(one - U64(1)) & U64(0xFFFFFFFF)}[base]
        elif base == "%dynamic_smem_size":
            v = np.full(lanes.size, self.launch.shared_dynamic)
        elif base in ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"):
            v = np.full(lanes.size, self.steps)
        elif base == "%clock_hi":
            v = np.full(lanes.size, self.steps >> 32)
        elif base in ("%smid", "%gridid", "%nsmid"):
            v = np.zeros(lanes.size)
        elif base in ("%clusterid", "%cluster_ctaid", "%cluster_ctarank"):
            v = self.ctaid[k][lanes] if base == "%clusterid" else np.zeros(lanes.size)
        elif base in ("%nclusterid", "%cluster_nctaid", "%cluster_nctarank"):
            # clusters of one CTA: as many clusters as CTAs
            v = np.ones(lanes.size) if base != "%nclusterid" else np.full(lanes.size, (grid.x, grid.y, grid.z)[k])
        elif base.startswith("%envreg"):
            # driver-set environment registers: 1 and 2 hold the grid-sync workspace address (high, low)
            ws = self.memory.by_name.get("%grid_sync_workspace")
            addr = ws.base if ws is not None else 0
            v = np.full(lanes.size, {"%envreg1": addr >> 32, "%envreg2": addr & 0xFFFFFFFF}.get(base, 0))
        elif base.startswith("%reserved_smem_offset") or base in ("%total_smem_size", "%aggr_smem_size"):
            v = np.full(lanes.size, 0 if base.startswith("%reserved") else self._smem_total())
        elif base in ("%pm0", "%pm1", "%pm2", "%pm3", "%pm4", "%pm5", "%pm6", "%pm7", "%pm0_64", "%pm1_64",
                      "%pm2_64", "%pm3_64", "%pm4_64", "%pm5_64", "%pm6_64", "%pm7_64"):
            v = np.zeros(lanes.size)  # performance monitoring counters
        elif base == "%warpsz":
            v = np.full(lanes.size, WARP_SIZE)
        elif base == "%is_explicit_cluster":
            v = np.zeros(lanes.size)
        elif base == "%current_graph_exec":
            v = np.zeros(lanes.size)
        else:
            raise Unsupported(f"special register {name} is not modelled")
        return np.asarray(v).astype(np.uint64)

    def _smem_total(self) -> int:
        return sum(r.size for r in self.memory.regions[1:] if r.space == ".shared")

    def _var_address(self, ref: VarRef) -> int:
        if ref.name in self.param_values:
            idx = [p[0] for p in self.prog.params].index(ref.name)
            return KERNEL_PARAM_BASE + idx * 16
        region = self.memory.by_name.get(ref.name)
        if region is None:
            raise Unsupported(f"variable `{ref.name}` has no storage")
        return region.base

    # ---- structured-class guard ----------------------------------------------------------------
    def _require_structured(self, op, reg, lanes, what):
        f = self.flags[reg]
        if f is None:
            return
        bad = f[lanes]
        if self.structured and (bad & DATA).any():
            raise Unsupported(f"the {what} of `{op.d.inst.opcode}` depends on tensor data "
                              f"(outside the structured class: control flow and addresses must depend only "
                              f"on thread ids and sizes)", op.span)
        if (bad & UNDEF).any():
            k = int(np.nonzero(bad & UNDEF)[0][0])
            self.uninitialized(f"a value read from never-written shared/local memory decides the {what}",
                               op, lanes[k])

    def require_concrete(self, op, flags, lanes, what):
        """The one place where 'this must not depend on data' is decided (addresses, lanes, counts)."""
        if flags is None:
            return
        if self.structured and np.count_nonzero(flags & DATA):
            raise Unsupported(f"the {what} of `{op.d.inst.opcode}` depends on tensor data (outside the structured "
                              f"class: addresses and control flow must depend only on thread ids and sizes)", op.span)
        if np.count_nonzero(flags & UNDEF):
            k = int(np.nonzero(flags & UNDEF)[0][0])
            self.uninitialized(f"a value read from never-written shared/local memory is used as {what}",
                               op, lanes[k])

    # ---- generic compute -------------------------------------------------------------------
    def _compute(self, op, fn, lanes):
        dst, srcs = op.operands[0], op.operands[1:]
        t = op.d.types[-1] if op.d.types else None
        vals = None
        if self.symbolic and op.op != "selp":   # flags first: bits only where the result needs them (below)
            flags = _joined_flags([self._source_flags(s, lanes) for s in srcs])
        else:
            vals, each = self._sources(op, srcs, lanes)
            flags = _selected_flags(vals[2], *each) if op.op == "selp" else _joined_flags(each)
        sym = None
        if self.symbolic and flags is not None and np.count_nonzero(flags & DATA):
            sym = self._real_compute(op, lanes, srcs, flags, t)
        if isinstance(sym, LaneSym) and sym.lanes.size == lanes.size:
            # tensor data in every lane: its bits are placeholders nothing decides on (addresses, branches and
            # counts refuse data), so the concrete computation (an f16 -> f32 cvt's rounding, ...) is skipped,
            # and the sources' bits are not even read
            self.write(dst, lanes, np.zeros(lanes.size, np.uint64), flags, sym)
            self.advance(lanes)
            return
        if vals is None:
            vals = self._sources(op, srcs, lanes)[0]
        if op.op in ("div", "rem"):
            result = self._dividing(op, lanes, fn, vals)
        else:
            result = fn(op.d, *vals)
        self.write(dst, lanes, result, flags, sym)
        self.advance(lanes)

    def _sources(self, op, srcs, lanes):
        """The bits and the flags of each source operand, read as its type (`source_types`)."""
        vals, each = [], []
        for s, st in zip(srcs, source_types(op)):
            v, f = self.read(s, lanes, st)
            vals.append(v)
            each.append(f)
        return vals, each

    def _source_flags(self, operand, lanes):
        """The flags `read` gives for an operand, without its bits, and for every lane the register's own
        array rather than a copy (only read: `_compute` joins flags into a new array or writes them by copy)."""
        if isinstance(operand, RegRef):
            if self.regs[operand.index] is None:
                return np.full(lanes.size, UNDEF, np.uint8)
            f = self.flags[operand.index]
            return f if f is None or lanes is self.all_lanes else f[lanes]
        if isinstance(operand, ast.NotReg):
            return self._source_flags(operand.reg, lanes)
        if isinstance(operand, (ast.Imm, ast.FloatImm, SpecialRef, VarRef)):
            return None
        return self.read(operand, lanes)[1]   # anything else: as `read` answers (or refuses) it

    def _dividing(self, op, lanes, fn, vals):
        """Integer `div`/`rem`: a zero divisor is a finding naming the thread (PTX: the result is unspecified)."""
        zero = C.zero_divisors(op.d, vals[1])
        if zero is not None and zero.any():
            k = int(np.nonzero(zero)[0][0])
            self.report(F.DIV_BY_ZERO, f"`{op.d.inst.opcode}` divides by zero in {int(np.count_nonzero(zero))} "
                        f"thread(s): the result is unspecified", op, [lanes[k]])
        return fn(op.d, *vals)

    def _real_compute(self, op, lanes, srcs, flags, t):
        """The expression each data lane computes (`--fp real`); None for concrete lanes."""
        d = op.d
        data = (flags & DATA) != 0
        dl = lanes if np.count_nonzero(data) == data.size else lanes[data]   # the same object: `is` tests hold
        if self.integers and t is not None and is_float(t) and d.op != "mov":
            self._refuse_integer_bits(op, srcs, dl)
        if self.lane_structured:
            fast = self._lane_compute(op, dl, srcs, t)
            if fast is not None:
                return fast
            self.lane_fallbacks[d.op] = self.lane_fallbacks.get(d.op, 0) + 1
        out = np.full(lanes.size, None, dtype=object)
        if d.op == "selp":
            a = self.read_sym(srcs[0], dl, t)
            b = self.read_sym(srcs[1], dl, t)
            c = self.read_sym(srcs[2], dl, ".pred")
            out[data] = [select_real(ci, ai, bi, op, self) for ai, bi, ci in zip(a, b, c)]
            return out
        if d.op == "shl" and exponent_field_idiom(self.prog, op):
            # full-precision expf: `bits(v) << 23` is the f32 2^(v - base - 127) (realops.exponent_field)
            vals = [realops.exponent_field(v) for v in self.read_sym(srcs[0], dl, ".f32")]
            if any(v is None for v in vals):
                raise Unsupported(f"`{d.inst.opcode}` builds a float in the exponent field, but the bounds of the "
                                  f"shifted value do not prove it is an integer f32 whose exponent field lands in "
                                  f"the normal range [1, 254]", op.span)
            note = (f"{op.span.file}:{op.span.line}: `{d.inst.opcode}` (the exp range reduction of expf, coshf, "
                    f"erfcf…) read as 2^n; checked by interval bounds: the shifted f32 is an integer in [2^23, 2^24) "
                    f"whose exponent field lands in the normal range [1, 254]; over the reals n is unrounded")
            notes = self.__dict__.setdefault("real_notes", [])
            if note not in notes:
                notes.append(note)
            out[data] = vals
            return out
        if t == ".pred" and d.op in _PRED_LOGIC:   # conditions on data combined (`a[i] > 10 && i < n`)
            args = [self.read_sym(s, dl, ".pred") for s in srcs]
            out[data] = object_array([_PRED_LOGIC[d.op](*a) for a in zip(*args)])
            return out
        if d.types and (d.types[0] in _PACKED or d.types[-1] in _PACKED):
            out[data] = object_array(tensor_real.packed_compute(self, op, dl, srcs))
            return out
        if t is not None and t.endswith("x2") and not is_float(t):   # .u16x2/.s16x2: two integers in one register
            raise Unsupported(f"`{d.inst.opcode}` computes on two packed 16-bit integers of tensor data; over the "
                              f"reals a register holds one number, so packed integer arithmetic is not modelled",
                              op.span)
        bitwise = floatbits.real_compute(self, op, dl, srcs)   # integer instructions on float bits
        if bitwise is not None:
            out[data] = object_array(bitwise)
            return out
        if d.op == "shl" and integer_real.type_range(t) is not None and isinstance(srcs[1], ast.Imm):
            # integer data shifted left by a constant: times 2^k, a ring operation modulo 2^w (nvcc's a * 4);
            # k >= w shifts every bit out, and 2^k is 0 modulo 2^w then too
            k = int(srcs[1].value) % (1 << 32)
            factor = E.const(1 << k) if k < width(t) else E.const(0)
            out[data] = object_array([E.mul(v, factor) for v in self.read_sym(srcs[0], dl, t)])
            return out
        if d.op == "cvt":
            if len(srcs) != 1:
                raise Unsupported(f"`{d.inst.opcode}` with {len(srcs)} sources is not modelled over the reals", op.span)
            dst_t, src_t = d.types[0], d.types[-1]
            if d.rounding in E.ROUNDINGS and is_float(src_t) and not d.has(".sat"):
                # rounding to an integer (libdevice expm1f's cvt.rni): an exact real step function; into an
                # integer type it saturates to the type's range, as PTX's float-to-integer cvt does
                vals = [E.rint(v, d.rounding) if isinstance(v, E.Expr) else _no_meaning(op, v)
                        for v in self.read_sym(srcs[0], dl, src_t)]
                if not is_float(dst_t):
                    reg = op.operands[0]
                    if dst_t.startswith(".s") and isinstance(reg, RegRef) and width(reg.type) > width(dst_t):
                        raise Unsupported(f"`{d.inst.opcode}` writes a {dst_t[1:]} into the wider register {reg.name}: "
                                          f"how a negative value extends there is not modelled", op.span)
                    vals = [integer_real.clamp(v, dst_t) for v in vals]
                out[data] = object_array(vals)
                return out
            if is_float(dst_t) and is_float(src_t) and d.rounding not in (".rni", ".rzi", ".rmi", ".rpi"):
                vals = self.read_sym(srcs[0], dl, src_t)
                if src_t in (".f16", ".bf16"):   # 16-bit bits read in one format: made or loaded in the other?
                    tensor_real.refuse_unknown_format(self, op, [v for v in vals if isinstance(v, E.Expr)
                                                                 and v.op is not E.CONST], src_t[1:])
                if d.has(".sat"):  # cvt.sat clamps to [0, 1]
                    vals = np.frompyfunc(lambda v: realops.apply(d, (v,)) if isinstance(v, realops.Infinity)
                                         else realops._clamp01(d, v), 1, 1)(vals)
                    if (vals == None).any():  # noqa: E711
                        raise Unsupported(f"`{d.inst.opcode}` on an infinite value has no exact real meaning", op.span)
                if d.has(".relu", ".satfinite"):   # clamps at 0 / at the destination's largest finite value
                    vals = np.frompyfunc(lambda v: realops.clamped_conversion(d, v), 1, 1)(vals)
                    if (vals == None).any():  # noqa: E711
                        raise Unsupported(f"`{d.inst.opcode}`: its clamp of {dst_t[1:]} is not modelled over the "
                                          f"reals", op.span)
                out[data] = vals
                return out
            if not is_float(dst_t) and not is_float(src_t):
                # to a narrower width: the residue (the same polynomial); wider or saturating: src's number
                vals = self.read_sym(srcs[0], dl, src_t)
                reg = op.operands[0]
                if isinstance(reg, RegRef) and width(reg.type) > width(dst_t):
                    raise Unsupported(f"`{d.inst.opcode}` writes a {dst_t[1:]} into the wider register {reg.name}: its "
                                      f"upper bits extend the truncated value, which is not the integer polynomial "
                                      f"over the reals (not modelled)", op.span)
                if integer_real.wider(dst_t, src_t) or d.has(".sat"):
                    vals = integer_real.in_range(self, op, vals, src_t, "its source")
                if d.has(".sat"):
                    vals = [integer_real.clamp(v, dst_t) for v in vals]
                out[data] = object_array(vals)
                return out
            raise Unsupported(f"`{d.inst.opcode}` converts tensor data between floats and integers; "
                              f"over the reals that needs rounding to an integer, which is not modelled", op.span)
        if d.op == "mov" or (t is not None and (is_float(t) or d.op in ("add", "sub", "mul", "mad", "min", "max", "neg", "abs"))):
            if d.op in ("mul", "mad") and not is_float(t) and d.has(".hi"):
                raise Unsupported(f"`{d.inst.opcode}` on integer data is not modelled symbolically", op.span)
            if d.has(".xorsign", ".abs") or (d.has(".relu") and d.op not in ("min", "max")):
                raise Unsupported(f"`{d.inst.opcode}`: its modifier changes the value in a way the real-number "
                                  f"model of volta check does not follow", op.span)
            args = [self.read_sym(s, dl, t) for s in srcs]
            if integer_real.type_range(t) is not None and d.op != "mov":
                return self._integer_compute(op, data, out, args, t)
            fn = realops.TABLE.get(d.op)
            if fn is not None:
                if any(_has_infinity(a) for a in args) and self.named is not None and d.op in ("mul", "fma", "mad"):
                    infinite = np.any([_IS_INFINITY(a).astype(bool) for a in args[:2]], axis=0)
                    args[:2] = [self._lo_words_signed(s, dl, t, a, infinite) for s, a in zip(srcs[:2], args[:2])]
                if d.has(".sat") or any(_has_infinity(a) for a in args):
                    values = np.frompyfunc(lambda *a: realops.apply(d, a), len(args), 1)(*args)
                else:  # the common case: one expression constructor over the lanes
                    values = np.frompyfunc(lambda *a: fn(d, *a), len(args), 1)(*args)
                if (values == None).any():  # noqa: E711
                    values = self._no_real_value(op, dl, values)
                out[data] = values
                return out
        raise Unsupported(f"`{d.inst.opcode}` on tensor data has no real-number semantics here "
                          f"(bit manipulation of float data is outside what `volta check` decides)", op.span)

    def _lo_words_signed(self, operand, lanes, t, vals, infinite):
        """A factor that is the lo word of a hi/lo split (read as 0, volta/symbolic/constants.py) times ±inf (the
        lanes `infinite`) is the number its bits are: ±inf·lo is ±inf with lo's sign (libdevice expf of a masked
        -inf score), where ±inf·0 would have no value. Only the sign matters to the product, so the result is
        the same ±inf."""
        zero = np.array([v is E.ZERO for v in vals], bool) & infinite
        if not zero.any():
            return vals
        bits, _ = self.read(operand, lanes[zero], t)
        out = vals.copy()
        for j, word in zip(np.flatnonzero(zero).tolist(), bits.tolist()):
            if self.named.is_lo(t, word):
                out[j] = E.const(float(as_float(np.array([word], np.uint64), t)[0]))
        return out

    def _integer_compute(self, op, data, out, args, t):
        """add/sub/mul/mad/neg/min/max/abs on integer data (volta/exec/handlers/integer_real.py): operands the
        instruction reads as numbers (min, max, abs, .wide, .sat) must lie in t's range; .sat clamps to it."""
        d = op.d
        wide = d.op in ("mul", "mad") and d.has(".wide")
        reads = integer_real.READS_VALUE.get(d.op, ())
        args = [integer_real.in_range(self, op, a, t) if k in reads or (wide and k < 2) or d.has(".sat") else a
                for k, a in enumerate(args)]
        if any(not isinstance(v, E.Expr) for a in args for v in a):
            raise Unsupported(f"`{d.inst.opcode}` on an integer operand with no real value", op.span)
        fn = realops.TABLE[d.op]
        values = [fn(d, *a) for a in zip(*args)]
        if d.has(".sat"):
            values = [integer_real.clamp(v, t) for v in values]
        out[data] = object_array(values)
        return out

    def _refuse_integer_bits(self, op, srcs, dl):
        """Float arithmetic on integer data reads an integer's bits as a float (`__int_as_float`): over the
        reals both would be the same number, so `x + 1` on s32 and `__float_as_int(__int_as_float(x) + 1.0f)`
        would meet. Integer data never becomes a float otherwise (cvt between them is refused)."""
        for s in srcs:
            cur = self.sym[s.index] if isinstance(s, RegRef) else None
            if cur is None:
                continue
            if isinstance(cur, LaneSym):
                hit = any(name in self.integers for shape in cur.poly.groups for name in shape)
            else:
                hit = any(isinstance(e, E.Expr) and E.has_integer_leaf(e, self.integers) for e in cur[dl])
            if hit:
                raise Unsupported(f"`{op.d.inst.opcode}` computes on {s.name} as a float, but it holds integer data "
                                  f"(an integer input buffer's bits read as a float): over the reals that is not "
                                  f"the integer's value", op.span)

    def _no_real_value(self, op, dl, values):
        """An infinite operand whose result has no real value (libdevice's `x·inf + inf` for a negative
        logf argument): NoValue on lanes running an if-converted side (a select may drop it there,
        realops.choose); Unsupported anywhere else."""
        cond = self.conditional
        missing = np.flatnonzero(values == None)  # noqa: E711
        if cond is None or any(int(dl[k]) not in cond[0] for k in missing):
            raise Unsupported(f"`{op.d.inst.opcode}` on an infinite value has no exact real meaning", op.span)
        values = values.copy()
        values[missing] = realops.NoValue(f"`{op.d.inst.opcode}` at line {op.span.line} on an infinite value")
        return values

    def _lane_compute(self, op, dl, srcs, t):
        """add/sub/mul/fma/mad/neg (and float-to-float cvt) over polynomial operands as one LaneSym;
        None sends the instruction to the per-lane path."""
        d = op.d
        kind = d.op
        if kind == "cvt":   # over the reals a float-to-float conversion is the identity
            if not (d.types[0] in _LANE_TYPES and d.types[-1] in _LANE_TYPES) or d.rounding in (
                    ".rni", ".rzi", ".rmi", ".rpi") or d.has(".sat", ".relu", ".satfinite"):
                return None
            t = d.types[-1]
        elif kind not in _LANE_OPS or t not in _LANE_TYPES or d.has(".sat", ".relu") or len(srcs) != _LANE_OPS[kind]:
            return None
        if dl.size == 0:
            return None
        try:
            args = []
            for s in srcs:
                v = self.lane_value(s, dl, t)
                if v is None:
                    return None
                args.append(v)
            if kind == "add":
                poly = args[0] + args[1]
            elif kind == "sub":
                poly = args[0] - args[1]
            elif kind in ("mul", "fma", "mad") and lanesym.expands(args[0], args[1]):
                return None   # a product of two long sums: kept as a product on the per-lane path
            elif kind == "mul":
                poly = args[0] * args[1]
            elif kind in ("fma", "mad"):
                poly = args[0] * args[1] + args[2]
            elif kind == "neg":
                poly = -args[0]
            else:  # cvt between float types, mov
                poly = args[0]
                if t in (".f16", ".bf16"):   # 16-bit bits read in one format: made or loaded in the other?
                    tensor_real.refuse_unknown_format_poly(self, op, poly, t[1:])
            if poly.term_count() > lanesym.MAX_TERMS or poly.bound >= lanesym.MAX_BOUND:
                return None   # too big, or coefficient sums could leave int64: the per-lane path
        except CoefficientOverflow:
            return None
        return LaneSym(dl, poly, ordered=dl is self.all_lanes)


_LANE_OPS = {"add": 2, "sub": 2, "mul": 2, "fma": 3, "mad": 3, "neg": 1, "mov": 1}
_LANE_TYPES = frozenset({".f32", ".f64", ".f16", ".bf16"})   # over the reals a 16-bit element is a real too
_PACKED = frozenset(tensor_real.PACKED)   # f16x2, bf16x2: pairs of reals, computed per half


def _lane_constants(m, operand, lanes, t):
    """Concrete operand bits on `lanes` as per-lane rational constants (None for inf/NaN, and for a named
    constant such as log2 e, which is no rational: the per-lane path reads it)."""
    bits, _ = m.read(operand, lanes, t)
    if m.named is not None and any(m.named.value(t, int(w)) is not None for w in np.unique(bits).tolist()):
        return None
    return lane_bits_constants(bits, t)


_IS_INFINITY = np.frompyfunc(lambda x: type(x) in realops.NON_REAL, 1, 1)   # ±inf or NoValue


def _has_infinity(values) -> bool:
    return bool(_IS_INFINITY(values).any())


def _no_meaning(op, v):
    raise Unsupported(f"`{op.d.inst.opcode}` rounds a value with no real meaning ({v!r}) to an integer", op.span)


@contextlib.contextmanager
def _rare_collections():
    """A run allocates objects by the million (expressions, lane polynomials, index arrays) and keeps most of
    them: with the default threshold of 700 allocations the cyclic collector runs every few instructions and
    walks the young objects each time to find almost no cycles (MatMul-1 with K = 512, a loaded machine: 7.9 and
    8.4 s CPU with the default, 7.4 and 6.0 s with this). A threshold of 100,000 leaves at most that many objects
    of cyclic garbage waiting; the caller's setting is restored."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], 100_000), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _may_spin(prog: Program) -> bool:
    for op in prog.ops:
        if op.op == "atom" or op.op == "ld" and any(op.d.has(q) for q in (".volatile", ".relaxed", ".acquire")):
            return True
    return _uses_envreg(prog)


def _uses_envreg(prog: Program) -> bool:
    for op in prog.ops:
        for o in op.operands:
            if isinstance(o, SpecialRef) and o.name in ("%envreg1", "%envreg2"):
                return True
    return False


def _pointer_params(prog: Program) -> set:
    """Parameters whose loaded value is converted to a global address or used as one."""
    loaded = {}
    for op in prog.ops:
        if op.op == "ld" and op.d.space == ".param" and isinstance(op.operands[1], ast.Address):
            base = op.operands[1].base
            if isinstance(base, VarRef) and isinstance(op.operands[0], RegRef):
                loaded[op.operands[0].index] = base.name
    pointers = set()
    for op in prog.ops:
        if op.op == "cvta" and len(op.operands) == 2 and isinstance(op.operands[1], RegRef):
            if op.operands[1].index in loaded:
                pointers.add(loaded[op.operands[1].index])
        for o in op.operands:
            if isinstance(o, ast.Address) and isinstance(o.base, RegRef) and o.base.index in loaded:
                if op.d.space != ".param":
                    pointers.add(loaded[o.base.index])
    return pointers
