"""Which tensor-core row a piece of code gets: the PTX instruction, and the ptxas that compiled it.

`mma_model.PARAMS` holds what `mma.sync` computes per architecture as CUDA 13's ptxas compiles it. On Hopper
(sm_90) that is not the whole story, because sm_90 has no fp8 `mma.sync` in hardware:
- `wgmma.mma_async` with e4m3/e5m2 inputs is native (QGMMA.64xNx32 in the SASS of ptxas 12.4 and 13.0) and
  computes `mma_model.HOPPER_WGMMA_FP8` (group 32, 13 extra bits, 14-bit cut);
- `mma.sync` m16n8k32 with e4m3/e5m2 inputs is emulated by ptxas with two f16 HMMAs, and how changed between
  toolkits: ptxas 12.8 to 13.x chain the two HMMAs, ptxas 12.4 to 12.6 run both from zero and add the results
  with an FADD (f32 accumulators only: they reject fp8 `mma.sync` with an f16 accumulator); before 12.4 there is
  no fp8 `mma` at all.
Every other row is the same for both instructions and every toolkit that can compile it (read in the SASS of
ptxas 12.4, 12.5, 12.6, 12.8, 12.9 and 13.0 for sm_89, sm_90 and sm_100; docs/numerics.md).

`MmaSetting` carries the choice as a value; `select_row` returns the row with a name, what supports it and a
one-line account of its structure, which `volta mma`, `volta run` and `volta check` print. The default ptxas
(the nvcc found, else 13.0) is decided by the caller (`volta.cuda.nvcc_release`), never here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from volta.errors import UsageError
from volta.numerics.formats import Rnd
from volta.numerics.mma_model import HOPPER_FP8_PTXAS_12_4, HOPPER_WGMMA_FP8, MmaParams, arch_name, params_for

INSTS = ("mma", "wgmma")
DEFAULT_PTXAS = (13, 0)  # the toolkit of the H200 run (examples/probes/h200) and of this machine
FP8 = ("e4m3", "e5m2")
FP8_MMA_PTXAS = (12, 4)  # PTX ISA 8.4: the first ptxas that compiles fp8 mma.sync
FP8_CHAINED_PTXAS = (12, 8)  # PTX ISA 8.7: chained HMMAs for sm_90, and fp8 mma.sync with an f16 accumulator
_PTXAS_RE = re.compile(r"(\d+)(?:\.(\d+))?(?:\.\d+)?")
_SOURCE_TABLE = "docs/numerics.md (the characterization papers and issue 13)"
_SOURCE_H200 = {"f32": "an H200 with CUDA 13.0 (examples/probes/h200)",
                "f16": "issue 13; an H200 with CUDA 13.0 (examples/probes/h200); the MATLAB-tensor-core study's "
                       "H100/H200 fp8 -> f16 sets (mma.sync)"}
_SOURCE_WGMMA = "the MATLAB-tensor-core study's H100/H200 fp8 -> f32 sets (wgmma, zero accumulator)"
_SOURCE_PTXAS_12_4 = "the SASS of ptxas 12.4-12.6 (not measured on a GPU)"


@dataclass(frozen=True)
class MmaSetting:
    """The code a tensor-core result comes from: the instruction and the ptxas version that compiled it."""

    inst: str = "mma"  # "mma" (mma.sync and wmma) or "wgmma"
    ptxas: tuple[int, int] = DEFAULT_PTXAS  # (major, minor)
    ptxas_from: str = "default"  # where the version came from: "--ptxas", "nvcc" or "default"

    def __post_init__(self):
        if self.inst not in INSTS:
            raise UsageError(f"unknown tensor-core instruction {self.inst!r} (known: {', '.join(INSTS)})")

    @property
    def ptxas_text(self) -> str:
        return f"{self.ptxas[0]}.{self.ptxas[1]}"


def parse_ptxas(text: str) -> tuple[int, int]:
    """A ptxas (CUDA toolkit) version: MAJOR[.MINOR[.PATCH]]; a bare major is MAJOR.0."""
    m = _PTXAS_RE.fullmatch(str(text).strip())
    if not m:
        raise UsageError(f"bad --ptxas {text!r}: expected a CUDA version such as 13.0, 12.8 or 12.4")
    return int(m.group(1)), int(m.group(2) or 0)


def make_setting(inst: str = "mma", ptxas: str | tuple[int, int] | None = None,
                 found: tuple[int, int] | None = None) -> MmaSetting:
    """The setting for an instruction: `ptxas` when given (text or a tuple), else the nvcc `found`, else 13.0."""
    if ptxas is not None:
        version = parse_ptxas(ptxas) if isinstance(ptxas, str) else tuple(ptxas)
        return MmaSetting(inst, version, "--ptxas")
    if found is not None:
        return MmaSetting(inst, tuple(found), "nvcc")
    return MmaSetting(inst)


@dataclass(frozen=True)
class MmaRow:
    """One row of the model, as chosen for a setting: what it computes and what says so."""

    arch: str
    inst: str
    in_fmt: str
    acc_fmt: str
    params: MmaParams
    toolkits: str  # the ptxas versions the row is for ("every ptxas" where they do not matter)
    source: str  # the measurements or code the row rests on

    @property
    def name(self) -> str:
        inst = "wgmma" if self.inst == "wgmma" else "mma.sync"
        return f"{self.arch} {inst} {self.in_fmt}->{self.acc_fmt}, {self.toolkits}"

    @property
    def structure(self) -> str:
        return describe(self.params)

    def to_json(self, setting: MmaSetting | None = None) -> dict:
        out = {"name": self.name, "arch": self.arch, "inst": self.inst, "in": self.in_fmt, "acc": self.acc_fmt,
               "toolkits": self.toolkits, "structure": self.structure, "source": self.source}
        if setting is not None:
            out.update(ptxas=setting.ptxas_text, ptxas_from=setting.ptxas_from)
        return out


def select_row(arch: str, in_fmt: str, acc_fmt: str, setting: MmaSetting = MmaSetting()) -> MmaRow:
    """The row for (arch, input format, accumulator format) under `setting`; a combination that no toolkit
    compiles, or that nothing measured, is a usage error naming why."""
    arch = arch_name(arch)
    base = params_for(arch, in_fmt, acc_fmt)  # the mma.sync row (ptxas 12.8+); raises for a missing pair
    if setting.inst == "wgmma":
        if arch != "hopper":
            raise UsageError(f"wgmma exists on sm_90a (hopper) only, not on {arch}")
        if in_fmt in FP8 and acc_fmt == "f32":
            return MmaRow(arch, "wgmma", in_fmt, acc_fmt, HOPPER_WGMMA_FP8, "every ptxas", _SOURCE_WGMMA)
        if in_fmt in FP8 or in_fmt == "f64":
            raise UsageError(f"no measured model for hopper wgmma {in_fmt} -> {acc_fmt} (the wgmma data are "
                             "fp8 -> f32; the fp8 -> f16 data are mma.sync's)")
        return MmaRow(arch, "wgmma", in_fmt, acc_fmt, base, "every ptxas", _SOURCE_TABLE)
    if arch == "hopper" and in_fmt in FP8:
        v = setting.ptxas
        if v < FP8_MMA_PTXAS:
            raise UsageError(f"ptxas {setting.ptxas_text} cannot compile fp8 mma.sync (PTX ISA 8.4 came with "
                             "CUDA 12.4); give the version with its minor (12.4-12.6 and 12.8+ compile it "
                             "differently), e.g. --ptxas 12.6")
        if v < FP8_CHAINED_PTXAS:
            if acc_fmt != "f32":
                raise UsageError(f"ptxas {setting.ptxas_text} rejects fp8 mma.sync with an {acc_fmt} accumulator "
                                 "(PTX ISA 8.7, CUDA 12.8); give --ptxas 12.8 or later")
            return MmaRow(arch, "mma", in_fmt, acc_fmt, HOPPER_FP8_PTXAS_12_4, "ptxas 12.4-12.6",
                          _SOURCE_PTXAS_12_4)
        return MmaRow(arch, "mma", in_fmt, acc_fmt, base, "ptxas 12.8+", _SOURCE_H200[acc_fmt])
    return MmaRow(arch, "mma", in_fmt, acc_fmt, base, "every ptxas", _SOURCE_TABLE)


def summary(row: dict) -> str:
    """One line for a row as `MmaRow.to_json(setting)` gives it: name, the ptxas used where the row depends on
    it, structure, source (what `volta mma` prints on stderr and `volta run` as `tensor cores:`)."""
    ptxas = f" (ptxas {row['ptxas']}, {row['ptxas_from']})" if row["toolkits"] != "every ptxas" else ""
    return f"{row['name']}{ptxas}: {row['structure']}; from {row['source']}"


def describe(p: MmaParams) -> str:
    """One line for a row's structure, from its parameters alone (so no row is described by hand)."""
    if p.ieee_fma:
        return "a chain of IEEE fused multiply-adds in increasing k"
    floor = "none" if p.e_floor is None else str(p.e_floor)
    group = f"groups of {p.group}, {p.frac_bits} extra bits, floor {floor}, {_RND[p.rounding]}"
    if p.cut14:
        group += ", accumulator and result cut to 14 bits"
    parts = []
    if p.operand_fmt is not None:
        parts.append(f"inputs converted to {p.operand_fmt}")
    if p.split_mod > 1:
        sets = " then ".join("{" + ",".join(map(str, part)) + "}" for part in p.k_split)
        how = "chained from +0" if p.pass_sum is None else f"each from +0, summed ({_RND[p.pass_sum]})"
        parts.append(f"{len(p.k_split)} passes over k%{p.split_mod} in {sets}, {how}; each {group}")
    else:
        parts.append(group)
    if p.inst_k is not None:
        parts.insert(0, f"per k{p.inst_k} instruction")
    parts.append("c joins the first group" if p.c_after is None else f"then c added ({_RND[p.c_after]})")
    return "; ".join(parts)


_RND = {Rnd.RZ: "RZ", Rnd.RN: "RNE", Rnd.RP: "RP", Rnd.RM: "RM"}

__all__ = ["INSTS", "DEFAULT_PTXAS", "MmaSetting", "MmaRow", "parse_ptxas", "make_setting", "select_row",
           "summary", "describe"]
