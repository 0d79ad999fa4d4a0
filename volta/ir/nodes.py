"""The executable form of one kernel as data: the `Program` that lowering (volta/ir/program.py) makes, its `Op`s and
operand references (registers, special registers, variables, extern calls), variables, and the sizes of PTX types.

Its own module so that the passes lowering runs (volta/ir/structparams.py, volta/ir/cfg.py) read these types
without importing the lowering back.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from volta.errors import Span
from volta.ptx.decode import Decoded

SPECIAL_REGS = frozenset(
    {"%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
     "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock64",
     "%globaltimer", "%dynamic_smem_size", "%total_smem_size", "%clusterid", "%nclusterid", "%cluster_ctaid",
     "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster", "%globaltimer_lo",
     "%globaltimer_hi", "%aggr_smem_size", "%warpsz", "%current_graph_exec", "%clock_hi",
     "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
     "%reserved_smem_offset_0", "%reserved_smem_offset_1"}
    | {f"%envreg{i}" for i in range(32)} | {f"%pm{i}" for i in range(8)} | {f"%pm{i}_64" for i in range(8)}
)


@dataclass(frozen=True, slots=True)
class Op:
    """One lowered instruction: decoded modifiers, operands with names resolved, and where it came from."""

    index: int
    d: Decoded
    operands: tuple
    guard: tuple | None  # (register index, negated)
    span: Span
    cuda: tuple | None  # (file path, line) from .loc
    inlined: tuple = ()  # ((file path, line), …): the call sites this line was inlined into, innermost first

    @property
    def op(self) -> str:
        return self.d.op

    def where(self) -> str:
        text = f"{self.span.file}:{self.span.line}"
        if self.cuda:
            text += f" ({cuda_text(self)})"
        return text


@dataclass(frozen=True, slots=True)
class RegRef:
    index: int
    name: str
    type: str


@dataclass(frozen=True, slots=True)
class SpecialRef:
    name: str  # '%tid.x'


@dataclass(frozen=True, slots=True)
class VarRef:
    """The address of a declared variable (shared/global/const/local/param symbol)."""

    name: str
    space: str


@dataclass(frozen=True, slots=True)
class ExternCall:
    """A `.func` declared without a body (e.g. `__symexpf`): its parameter and return types."""

    name: str
    param_types: tuple
    return_types: tuple


@dataclass
class Variable:
    name: str
    space: str
    size: int  # bytes; 0 for dynamic extern shared
    align: int
    init: bytes | None = None
    dynamic: bool = False
    extern: bool = False  # `.extern`: defined in another module, its contents unknown here
    type: str = ".b8"  # the element type it is declared with (`--global NAME=VALUE` encodes VALUE in it)


@dataclass
class Program:
    name: str
    file: str
    params: list  # [(name, type, size)]
    ops: list
    labels: dict  # name -> op index
    regs: list  # [(name, type)]
    variables: dict  # name -> Variable (shared, global, const, local, per-thread param)
    target: tuple = ()
    cfg: object = field(default=None, repr=False)

    def reg_index(self, name: str) -> int:
        return self._reg_names[name]

    def __post_init__(self):
        self._reg_names = {n: i for i, (n, _) in enumerate(self.regs)}


def cuda_frames(op) -> tuple:
    """Every CUDA (file, line) of an instruction, innermost first: its .loc, then the inlined_at call sites."""
    return ((op.cuda,) + tuple(op.inlined)) if op.cuda else ()


def cuda_text(op) -> str | None:
    """`kernel.cu:18 (inlined at kernel.cu:28, kernel.cu:51)`, or None without .loc."""
    frames = cuda_frames(op)
    if not frames:
        return None
    head = f"{frames[0][0]}:{frames[0][1]}"
    if len(frames) == 1:
        return head
    return head + " (inlined at " + ", ".join(f"{f}:{n}" for f, n in frames[1:]) + ")"


_TYPE_SIZES = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}


def type_size(t: str | None) -> int:
    """Bytes of a PTX type such as `.f32`, `.b64`, `.f16x2` (pred counts as 1)."""
    if t is None or t == ".pred":
        return 1
    if t.endswith("x2") and t[1] in "fb":
        return 4
    digits = "".join(ch for ch in t if ch.isdigit())
    if t in (".e4m3", ".e5m2"):
        return 1
    if t in (".e4m3x2", ".e5m2x2"):
        return 2
    return _TYPE_SIZES.get(digits, 4)
