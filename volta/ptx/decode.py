"""Opcode table: generic `Instruction` → typed `Decoded` (PTX ISA §9.7, instruction set).

The grammar keeps opcodes as one dotted word; here each base opcode names the modifier
classes it accepts. Modifiers are decoded as a set (producers order them differently), then
sorted into rounding, state space, vector width, scope/order, shape, comparison and types.
Unknown opcodes and modifiers outside an opcode's classes are errors naming the token.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from volta.errors import PtxSyntaxError, Span
from volta.ptx import ast

# ---- modifier classes ----------------------------------------------------------

INT_TYPES = frozenset(f".{k}{w}" for k in "usb" for w in (8, 16, 32, 64)) | {".b128", ".u16x2", ".s16x2"}
FLOAT_TYPES = frozenset(
    {".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32", ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2",
     ".e2m1x2", ".e2m3x2", ".e3m2x2", ".ue8m0x2", ".s4", ".u4", ".b1", ".e2m1", ".e3m2", ".e2m3", ".f32x2",
     ".e4m3x4", ".e5m2x4", ".e2m1x4", ".e2m3x4", ".e3m2x4"}
)
TYPES = INT_TYPES | FLOAT_TYPES | {".pred"}
ROUND_FLOAT = frozenset({".rn", ".rz", ".rm", ".rp", ".rna", ".rs"})
ROUND_INT = frozenset({".rni", ".rzi", ".rmi", ".rpi"})
CMP = frozenset(
    {".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs",
     ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"}
)
BOOL = frozenset({".and", ".or", ".xor"})
SPACE = frozenset(
    {".global", ".shared", ".shared::cta", ".shared::cluster", ".local", ".param", ".param::entry",
     ".param::func", ".const", ".tex"}
)
SCOPE = frozenset({".cta", ".cluster", ".gpu", ".sys"})
ORDER = frozenset({".relaxed", ".acquire", ".release", ".acq_rel", ".volatile", ".weak", ".mmio", ".sc"})
VEC = frozenset({".v2", ".v4", ".v8"})
FLOAT_MODS = frozenset({".ftz", ".sat", ".approx", ".full", ".NaN", ".xorsign", ".abs", ".oob", ".relu", ".satfinite"})
ATOM_OPS = frozenset({".add", ".inc", ".dec", ".min", ".max", ".and", ".or", ".xor", ".exch", ".cas", ".sub"})
SHAPE_RE = re.compile(r"\.m\d+n\d+k\d+$|\.m8n8$|\.m16n16$|\.m8n16$|\.m16n8$|\.x[124]$|\.num$")
CACHE_RE = re.compile(r"\.(ca|cg|cs|lu|cv|wb|wt|nc|L1::\w+|L2::\w+|level::\w+)$")

@dataclass(frozen=True, slots=True)
class Spec:
    """What one base opcode accepts: modifier classes plus literal extra words, and operand counts."""

    family: str
    classes: frozenset
    extra: frozenset = frozenset()
    operands: tuple = (0, 99)  # min, max
    tier: int = 1


def _spec(family, classes="", extra="", operands=(0, 99), tier=1):
    cls = frozenset(classes.split())
    return Spec(family, cls, frozenset("." + w for w in extra.split()), operands, tier)


_I = "int"
_F = "float"
_M = "memory"
_C = "control"
_S = "sync"
_W = "warp"
_T = "tensor"

OPCODES: dict[str, Spec] = {
    # integer arithmetic (§9.7.1)
    "add": _spec(_I, "types round fmods", "cc", (3, 3)),
    "sub": _spec(_I, "types round fmods", "cc", (3, 3)),
    "addc": _spec(_I, "types", "cc", (3, 3)),
    "subc": _spec(_I, "types", "cc", (3, 3)),
    "mul": _spec(_I, "types round fmods", "lo hi wide", (3, 3)),
    "mad": _spec(_I, "types round fmods", "lo hi wide cc", (4, 4)),
    "madc": _spec(_I, "types", "lo hi cc", (4, 4)),
    "mul24": _spec(_I, "types", "lo hi", (3, 3)),
    "mad24": _spec(_I, "types", "lo hi", (4, 4)),
    "sad": _spec(_I, "types", "", (4, 4)),
    "div": _spec(_I, "types round fmods", "", (3, 3)),
    "rem": _spec(_I, "types", "", (3, 3)),
    "abs": _spec(_I, "types fmods", "", (2, 2)),
    "neg": _spec(_I, "types fmods", "", (2, 2)),
    "min": _spec(_I, "types fmods", "", (3, 4)),
    "max": _spec(_I, "types fmods", "", (3, 4)),
    "popc": _spec(_I, "types", "", (2, 2)),
    "clz": _spec(_I, "types", "", (2, 2)),
    "bfind": _spec(_I, "types", "shiftamt", (2, 2)),
    "fns": _spec(_I, "types", "", (4, 4)),
    "brev": _spec(_I, "types", "", (2, 2)),
    "bfe": _spec(_I, "types", "", (4, 4)),
    "bfi": _spec(_I, "types", "", (5, 5)),
    "szext": _spec(_I, "types", "clamp wrap", (3, 3), 2),
    "bmsk": _spec(_I, "types", "clamp wrap", (3, 3), 2),
    "dp4a": _spec(_I, "types", "", (4, 4), 2),
    "dp2a": _spec(_I, "types", "lo hi", (4, 4), 2),
    # SIMD video instructions (§9.7.17): d, a, b, c with the default masks/selectors (nvcc emits no others)
    **{op: _spec(_I, "types fmods", "add min max", (4, 4), 2)
       for op in ("vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4",
                  "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2")},
    "vset4": _spec(_I, "types cmp", "add", (4, 4), 2),
    "vset2": _spec(_I, "types cmp", "add", (4, 4), 2),
    # logic and shift (§9.7.8)
    "and": _spec(_I, "types", "", (3, 3)),
    "or": _spec(_I, "types", "", (3, 3)),
    "xor": _spec(_I, "types", "", (3, 3)),
    "not": _spec(_I, "types", "", (2, 2)),
    "cnot": _spec(_I, "types", "", (2, 2)),
    "lop3": _spec(_I, "types bool", "", (5, 6), 2),
    "shf": _spec(_I, "types", "l r clamp wrap", (4, 4), 2),
    "shl": _spec(_I, "types", "", (3, 3)),
    "shr": _spec(_I, "types", "", (3, 3)),
    "prmt": _spec(_I, "types", "f4e b4e rc8 ecl ecr rc16", (4, 4), 2),
    # floating point (§9.7.3)
    "fma": _spec(_F, "types round fmods", "", (4, 4)),
    "rcp": _spec(_F, "types round fmods", "", (2, 2)),
    "sqrt": _spec(_F, "types round fmods", "", (2, 2)),
    "rsqrt": _spec(_F, "types fmods", "", (2, 2)),
    "sin": _spec(_F, "types fmods", "", (2, 2)),
    "cos": _spec(_F, "types fmods", "", (2, 2)),
    "lg2": _spec(_F, "types fmods", "", (2, 2)),
    "ex2": _spec(_F, "types fmods", "", (2, 2)),
    "tanh": _spec(_F, "types fmods", "", (2, 2)),
    "copysign": _spec(_F, "types", "", (3, 3)),
    "testp": _spec(_F, "types", "finite infinite number notanumber normal subnormal", (2, 2)),
    "cvt": _spec(_F, "types round rint fmods", "pack", (2, 4)),
    "cvta": _spec(_M, "types space", "to", (2, 2)),
    # comparison and selection (§9.7.4)
    "setp": _spec(_I, "types cmp bool fmods", "", (3, 5)),
    "set": _spec(_I, "types cmp bool fmods", "", (3, 4)),
    "selp": _spec(_I, "types", "", (4, 4)),
    "slct": _spec(_I, "types fmods", "", (4, 4)),
    # data movement (§9.7.9)
    "mov": _spec(_M, "types", "", (2, 2)),
    "ld": _spec(_M, "types space vec cache scope order", "unified", (2, 3)),
    "ldu": _spec(_M, "types space vec", "", (2, 2)),
    "st": _spec(_M, "types space vec cache scope order", "", (2, 3)),
    "prefetch": _spec(_M, "space cache", "tensormap L1 L2", (1, 1)),
    "prefetchu": _spec(_M, "", "L1", (1, 1)),
    "isspacep": _spec(_M, "space", "", (2, 2)),
    "cp": _spec(_M, "types space cache", "async bulk tensor commit_group wait_group wait_all ca cg mbarrier "
                "complete_tx bytes 1d 2d 3d 4d 5d tile im2col multicast cluster prefetch ignore_src "
                "shared cta global mbarrier::complete_tx::bytes read arrive noinc reduce bulk_group", (0, 6), 2),
    "ldmatrix": _spec(_W, "types shape space", "sync aligned trans", (2, 2), 2),
    "stmatrix": _spec(_W, "types shape", "sync aligned trans", (2, 2), 3),
    "movmatrix": _spec(_W, "types shape", "sync aligned trans", (2, 2), 3),
    "shfl": _spec(_W, "types", "sync up down bfly idx", (4, 5)),
    # synchronization (§9.7.12)
    "bar": _spec(_S, "types bool", "sync arrive red popc warp cta aligned", (0, 4)),
    "barrier": _spec(_S, "types bool", "sync arrive red popc cta aligned cluster wait release relaxed acquire",
                     (0, 4)),
    "membar": _spec(_S, "scope", "gl sys cta proxy", (0, 0)),
    "fence": _spec(_S, "scope order", "proxy async alias tensormap cp_async sync_restrict mbarrier_init "
                   "shared::cta shared::cluster global op_restrict acquire release", (0, 2)),
    "atom": _spec(_M, "types space scope order fmods", "add inc dec min max and or xor exch cas sub noftz "
                  "v2 v4 v8 L2::cache_hint", (3, 5)),
    "red": _spec(_M, "types space scope order fmods", "add inc dec min max and or xor sub noftz v2 v4 v8 "
                 "L2::cache_hint", (2, 4)),
    "vote": _spec(_W, "types", "sync all any uni ballot", (2, 4)),
    "match": _spec(_W, "types", "sync any all", (3, 4), 2),
    "redux": _spec(_W, "types fmods", "sync add min max and or xor", (3, 3), 2),
    "activemask": _spec(_W, "types", "", (1, 1), 2),
    "elect": _spec(_W, "", "sync", (1, 2), 3),
    "mbarrier": _spec(_S, "types space scope order", "init inval arrive arrive_drop expect_tx complete_tx "
                      "test_wait try_wait pending_count noComplete parity", (1, 5), 3),
    "griddepcontrol": _spec(_S, "", "launch_dependents wait", (0, 0), 3),
    "nanosleep": _spec(_C, "types", "", (1, 1)),
    "trap": _spec(_C, "", "", (0, 0)),
    "brkpt": _spec(_C, "", "", (0, 0)),
    "pmevent": _spec(_C, "", "mask", (1, 1)),
    # control flow (§9.7.13)
    "bra": _spec(_C, "", "uni", (1, 1)),
    "brx": _spec(_C, "", "idx uni", (2, 2)),
    "call": _spec(_C, "", "uni", (1, 4)),
    "ret": _spec(_C, "", "uni", (0, 0)),
    "exit": _spec(_C, "", "", (0, 0)),
    # tensor cores (§9.7.14–15)
    "mma": _spec(_T, "types shape round fmods", "sync aligned row col kind::f8f6f4 kind::f16 kind::i8 "
                 "kind::tf32 block_scale sp sp::ordered_metadata", (4, 7), 2),
    "wmma": _spec(_T, "types shape space", "load store mma sync aligned a b c d row col satfinite", (2, 5), 2),
    "wgmma": _spec(_T, "types shape", "mma_async sync aligned fence commit_group wait_group sp satfinite and popc",
                   (0, 10), 3),
    "tcgen05": _spec(_T, "types shape", "", (0, 10), 3),
    "setmaxnreg": _spec(_C, "types", "inc dec sync aligned", (1, 1), 3),
    "tensormap": _spec(_M, "types", "replace tile global_address cp_fenceproxy", (0, 4), 3),
    "applypriority": _spec(_M, "space", "L2::evict_normal", (2, 2), 3),
    "discard": _spec(_M, "space", "L2", (2, 2), 3),
    "createpolicy": _spec(_M, "types", "fractional L2::evict_last L2::evict_normal L2::evict_first "
                          "L2::evict_unchanged", (2, 4), 3),
    "getctarank": _spec(_M, "types space", "", (2, 2), 3),
    "mapa": _spec(_M, "types space", "", (3, 3), 3),
    "istypep": _spec(_M, "types", "texref samplerref surfref", (2, 2), 3),
    "tex": _spec(_M, "types", "1d 2d 3d a1d a2d cube acube 2dms a2dms base level grad", (3, 6), 3),
    "tld4": _spec(_M, "types", "r g b a 2d a2d cube acube", (3, 6), 3),
    "suld": _spec(_M, "types vec", "b 1d 2d 3d a1d a2d trap clamp zero", (3, 3), 3),
    "sust": _spec(_M, "types vec", "b p 1d 2d 3d a1d a2d trap clamp zero", (3, 3), 3),
    "alloca": _spec(_M, "types space", "", (2, 3), 3),
    "stackrestore": _spec(_M, "types", "", (1, 1), 3),
    "stacksave": _spec(_M, "types", "", (1, 1), 3),
    "clusterlaunchcontrol": _spec(_C, "types", "try_cancel query_cancel async is_canceled get_first_ctaid "
                                  "shared::cta mbarrier::complete_tx::bytes multicast::cluster::all", (1, 3), 3),
}
_CLASSES = {
    "types": TYPES, "round": ROUND_FLOAT, "rint": ROUND_INT, "cmp": CMP, "bool": BOOL, "space": SPACE,
    "scope": SCOPE, "order": ORDER, "vec": VEC, "fmods": FLOAT_MODS,
}


@dataclass(frozen=True, slots=True)
class Decoded:
    """A typed instruction: the generic one plus its modifiers sorted by meaning."""

    inst: ast.Instruction
    op: str
    family: str
    tier: int
    types: tuple[str, ...]  # in the order written: cvt.f32.s32 → ('.f32', '.s32')
    mods: frozenset[str]
    rounding: str | None
    space: str | None
    vec: int
    cmp: str | None
    boolop: str | None
    scope: str | None
    order: str | None
    shape: str | None

    @property
    def type(self) -> str | None:
        return self.types[0] if self.types else None

    def has(self, *words: str) -> bool:
        return any(w in self.mods for w in words)


def decode(inst: ast.Instruction, filename: str = "<ptx>") -> Decoded:
    """Type one instruction or raise `PtxSyntaxError` naming the bad opcode or modifier."""
    parts = inst.opcode.split(".")
    base = parts[0]
    spec = OPCODES.get(base)
    span = Span(filename, inst.line, inst.col)
    if spec is None:
        raise PtxSyntaxError(f"unknown opcode `{base}` in `{inst.opcode}`", span)
    mods = tuple("." + p for p in parts[1:])
    types, cls = [], {k: None for k in ("rounding", "space", "cmp", "boolop", "scope", "order", "shape")}
    vec = 1
    for m in mods:
        kind = _classify(m, spec)
        if kind is None:
            raise PtxSyntaxError(f"modifier `{m}` is not valid for `{base}` (in `{inst.opcode}`)", span)
        if kind == "types":
            types.append(m)
        elif kind == "vec":
            vec = int(m[2:])
        elif kind in cls:
            if cls[kind] is not None and (kind in ("rounding", "cmp", "scope", "order")
                                          or (kind == "space" and base in ("ld", "st", "atom", "red"))):
                raise PtxSyntaxError(f"two {kind} modifiers `{cls[kind]}` and `{m}` in `{inst.opcode}`", span)
            if cls[kind] is None:  # cp.async names two spaces: the first is the destination
                cls[kind] = m
    if base in ("setp", "set") and cls["cmp"] is None:
        raise PtxSyntaxError(f"`{inst.opcode}` needs a comparison (.eq, .lt, …)", span)
    problem = _illegal_combination(base, spec, tuple(types), mods, cls)
    if problem:
        raise PtxSyntaxError(f"{problem} (in `{inst.opcode}`)", span)
    low, high = spec.operands
    if not low <= len(inst.operands) <= high:
        raise PtxSyntaxError(
            f"`{inst.opcode}` takes {low if low == high else f'{low} to {high}'} operands, got {len(inst.operands)}",
            span,
        )
    if base == "bra" and (isinstance(inst.operands[0], (ast.Imm, ast.FloatImm)) or (
            isinstance(inst.operands[0], ast.Reg) and inst.operands[0].name.startswith("%"))):
        target = inst.operands[0]
        what = f"the register `{target.name}`" if isinstance(target, ast.Reg) else f"`{target}`"
        raise PtxSyntaxError(f"`{inst.opcode}` takes a label, not {what} (an indirect branch is brx.idx)", span)
    return Decoded(inst, base, spec.family, spec.tier, tuple(types), frozenset(mods), vec=vec, **cls)


# ---- combinations the per-modifier classes let through (PTX ISA §9.7, each instruction's syntax) -----

NEEDS_TYPE = frozenset(
    "add sub addc subc mul mad madc mul24 mad24 sad div rem abs neg min max popc clz bfind brev bfe bfi "
    "and or xor not cnot shl shr fma rcp sqrt rsqrt sin cos lg2 ex2 tanh copysign testp cvt setp set selp slct "
    "mov ld ldu st atom red shfl prmt lop3 shf dp4a dp2a".split()
)
ONE_TYPE = frozenset(
    "add sub addc subc mul mad madc mul24 mad24 div rem abs neg min max shl shr and or xor not cnot fma rcp sqrt "
    "rsqrt sin cos lg2 ex2 tanh copysign setp selp mov ld ldu st shfl popc clz brev bfe bfi bfind".split()
)
FLOAT_ONLY_OPS = frozenset("fma rcp sqrt rsqrt sin cos lg2 ex2 tanh copysign testp".split())
INT_ONLY_OPS = frozenset("rem popc clz brev bfe bfi bfind shl shr and or xor not cnot addc subc madc mul24 mad24 "
                         "sad dp4a dp2a lop3 shf prmt".split())
INT_ONLY_MODS = frozenset({".lo", ".hi", ".wide", ".cc"})
FLOAT_ONLY_MODS = frozenset({".ftz", ".approx", ".full", ".NaN", ".xorsign", ".oob"})
FLOAT_CMPS = frozenset({".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"})
UNSIGNED_CMPS = frozenset({".lo", ".ls", ".hi", ".hs"})
_NOT_FLOAT = frozenset({".s4", ".u4", ".b1"})
MMA_SHAPES = frozenset({".m8n8k4", ".m16n8k4", ".m16n8k8", ".m16n8k16", ".m16n8k32", ".m16n8k64",
                        ".m16n8k128", ".m16n8k256", ".m8n8k16", ".m8n8k32", ".m8n8k128"})
WMMA_SHAPES = frozenset({".m16n16k16", ".m32n8k16", ".m8n32k16", ".m16n16k8", ".m8n8k32", ".m8n8k128", ".m8n8k4"})
MATRIX_SHAPES = frozenset({".m8n8", ".m16n16", ".m8n16", ".m16n8"})
WGMMA_SHAPE_RE = re.compile(r"\.m64n(\d+)k(8|16|32|256)$")


def is_float_type(t: str) -> bool:
    return t in FLOAT_TYPES and t not in _NOT_FLOAT


def _illegal_combination(base: str, spec: Spec, types: tuple, mods: tuple, cls: dict) -> str | None:
    """Why this set of modifiers cannot go together, or None. Tier-3 opcodes are not checked."""
    if spec.tier == 3:
        return None
    floats = [t for t in types if is_float_type(t)]
    if base in NEEDS_TYPE and not types:
        return f"`{base}` needs a type (.s32, .f32, …)"
    if base in ONE_TYPE and len(types) > 1:
        return f"`{base}` takes one type, got `{''.join(types)}`"
    if base == "cvt" and len(types) != (3 if ".pack" in mods else 2):
        return f"`cvt` takes a destination and a source type, got `{''.join(types) or 'none'}`"
    if base in FLOAT_ONLY_OPS and types and not floats:
        return f"`{base}` is a floating-point instruction; `{types[0]}` is not a float type"
    if base in INT_ONLY_OPS and floats:
        return f"`{base}` is an integer instruction; `{floats[0]}` is a float type"
    rounding = cls["rounding"]
    if rounding is not None:
        if base == "cvt":
            dst, src = types[0], types[-1]
            if rounding in ROUND_INT and not is_float_type(src):
                return f"integer rounding `{rounding}` needs a float source, not `{src}`"
            if rounding in ROUND_FLOAT and not is_float_type(dst):
                return f"rounding `{rounding}` needs a float destination, not `{dst}` (use .rni/.rzi/…)"
        elif not floats and base not in ("mma", "wmma"):
            return f"rounding modifier `{rounding}` on integer type `{types[0] if types else ''}`"
    for m in mods:
        if m in FLOAT_ONLY_MODS and not floats:
            return f"floating-point modifier `{m}` on integer type `{types[0] if types else ''}`"
        if m in INT_ONLY_MODS and base not in ("setp", "set") and floats and base not in ("mma", "wmma"):
            return f"integer modifier `{m}` on float type `{floats[0]}`"
    cmp = cls["cmp"]
    if cmp is not None and base in ("setp", "set"):
        operand_type = types[-1]
        if cmp in FLOAT_CMPS and not is_float_type(operand_type):
            return f"comparison `{cmp}` is for floats, not `{operand_type}`"
        if cmp in UNSIGNED_CMPS and is_float_type(operand_type):
            return f"comparison `{cmp}` is for unsigned integers, not `{operand_type}`"
    shape = cls["shape"]
    if base == "mma" and shape not in MMA_SHAPES:
        return f"bad or missing `mma` shape `{shape or ''}` (m16n8k16, m16n8k8, m16n8k32, …)"
    if base == "wmma" and shape not in WMMA_SHAPES:
        return f"bad or missing `wmma` shape `{shape or ''}` (m16n16k16, m32n8k16, m8n32k16, …)"
    if base in ("ldmatrix", "stmatrix", "movmatrix"):
        if shape not in MATRIX_SHAPES:
            return f"bad or missing `{base}` shape `{shape or ''}` (m8n8, m16n16, …)"
        if base != "movmatrix" and not any(m in (".x1", ".x2", ".x4") for m in mods):
            return f"`{base}` needs a count (.x1, .x2, .x4)"
    return None


_CLASS_FIELD = {"round": "rounding", "rint": "rounding", "bool": "boolop"}


def _classify(mod: str, spec: Spec) -> str | None:
    """Which field a modifier fills for this opcode: a class name, 'extra', or None if illegal."""
    if mod in spec.extra:
        return "extra"
    for name in spec.classes:
        if name == "shape":
            if SHAPE_RE.search(mod) or (spec.family == _T and WGMMA_SHAPE_RE.match(mod)):
                return "shape" if mod[1] == "m" else "extra"
        elif name == "cache":
            if CACHE_RE.match(mod):
                return "extra"
        elif mod in _CLASSES[name]:
            return _CLASS_FIELD.get(name, name)
    if spec.tier == 3:
        return "extra"  # tier-3 forms must parse; their modifiers are kept, not checked
    return None


def iter_instructions(body):
    """Every instruction of a function body in order, nested `{ }` blocks included."""
    for stmt in body or ():
        if isinstance(stmt, ast.Instruction):
            yield stmt
        elif isinstance(stmt, ast.Block):
            yield from iter_instructions(stmt.body)


def decode_module(module: ast.Module) -> dict[str, tuple[Decoded, ...]]:
    """Decode every instruction of every defined function: name → decoded instructions in order.

    Raises the first `PtxSyntaxError`, naming the module's file, line and column.
    """
    return {
        fn.name: tuple(decode(inst, module.file) for inst in iter_instructions(fn.body))
        for fn in module.functions
        if fn.body is not None
    }
