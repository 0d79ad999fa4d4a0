"""The MATLAB-tensor-core study's Hopper fp8 data through volta's rows: which setting reproduces which data set.

The study (Khattak & Mikaitis, "Accurate Models of NVIDIA Tensor Cores"; repository north-numerical-computing/
MATLAB-tensor-core, BSD-2-Clause) publishes 5,000 random dot products per GPU and format under
model_validation/GPU/FORMAT/: a_, b_ (32 inputs per line, f32 hex words of fp8 values), c_GPU_fp32 (the
accumulator, binary), d_GPU_fp32 and d_GPU_fp16 (the GPU's results, binary f32 words). This script reads a
checkout of it (never copied into this repository) and counts, for the H100 and H200 e4m3/e5m2 sets, the words
each volta setting reproduces:

    python3 examples/probes/matlab_study.py [CHECKOUT]        # default $VOLTA_MATLAB_TENSOR_CORE or
                                                              # /work/ext/MATLAB-tensor-core
    python3 examples/probes/matlab_study.py CHECKOUT --fixture examples/probes/matlab_study

`--fixture DIR` writes the small derived sample that tests/cli/test_mma_cli.py replays without the checkout:
`volta mma --batch` files of vectors on which the candidate rows disagree, with the study's words (README.md
there says what each file is and carries the study's licence notice).

What the data say (docs/numerics.md, "Which instruction, which toolkit"): the fp8 -> f32 sets are `wgmma`'s
datapath with a zero accumulator (the study's Validate_TC_models.m sets C = 0 for them, "D = AB + D where D is
zero for fp8 with WGMMA"); the fp8 -> f16 sets are `mma.sync` as ptxas 12.8+ compile it, with c rounded to f16.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from volta.numerics.mma_model import convert_word
from volta.numerics.mma_select import MmaSetting, select_row
from volta.numerics.mma_vec import mma_batch

GPUS = ("H100", "H200")
FORMATS = ("E4M3", "E5M2")
DEFAULT_CHECKOUT = Path(os.environ.get("VOLTA_MATLAB_TENSOR_CORE", "/work/ext/MATLAB-tensor-core"))
# (label, output, setting, how c is used): the settings a reader could take the data for
CANDIDATES = (
    ("mma.sync, ptxas 12.8+ (CUDA 13 default)", "f32", MmaSetting("mma", (13, 0)), "zero"),
    ("mma.sync, ptxas 12.4-12.6", "f32", MmaSetting("mma", (12, 6)), "zero"),
    ("wgmma", "f32", MmaSetting("wgmma"), "zero"),
    ("wgmma, c from the file", "f32", MmaSetting("wgmma"), "file"),
    ("mma.sync, ptxas 12.8+", "f16", MmaSetting("mma", (13, 0)), "file"),
    ("mma.sync, ptxas 12.8+, zero c", "f16", MmaSetting("mma", (13, 0)), "zero"),
)


@dataclass
class StudySet:
    """One GPU's data for one fp8 format, as volta words."""

    gpu: str
    fmt: str  # e4m3 | e5m2
    a: np.ndarray  # (5000, 32) fp8 words
    b: np.ndarray
    c32: np.ndarray  # f32 words, as in c_GPU_fp32.txt
    d32: np.ndarray  # the GPU's f32 words
    d16: np.ndarray  # the GPU's f16 results, as f16 words

    def c_for(self, acc: str, how: str) -> np.ndarray:
        if how == "zero":
            return np.zeros_like(self.c32)
        return self.c32 if acc == "f32" else _convert(self.c32, "f32", "f16")  # cvt.rn.f16.f32 in the CUDA code

    def want(self, acc: str) -> np.ndarray:
        return self.d32 if acc == "f32" else self.d16


def _convert(words: np.ndarray, src: str, dst: str) -> np.ndarray:
    return np.array([convert_word(int(w), src, dst) for w in words.reshape(-1)], dtype=np.int64).reshape(words.shape)


def _hex_lines(path: Path) -> np.ndarray:
    return np.array([[int(x, 16) for x in line.split()] for line in path.read_text().splitlines() if line.strip()],
                    dtype=np.int64)


def _binary_lines(path: Path) -> np.ndarray:
    return np.array([int(line.strip(), 2) for line in path.read_text().splitlines() if line.strip()], dtype=np.int64)


def load(checkout: Path, gpu: str, fmt: str) -> StudySet:
    """One data set; the inputs must be exact fp8 values (they are) and the f16 results exact f16 values."""
    d = checkout / "model_validation" / gpu / fmt
    name = fmt.lower()
    raw_a, raw_b = _hex_lines(d / f"a_{gpu}_{fmt}.txt"), _hex_lines(d / f"b_{gpu}_{fmt}.txt")
    a, b = _convert(raw_a, "f32", name), _convert(raw_b, "f32", name)
    if not ((_convert(a, name, "f32") == raw_a).all() and (_convert(b, name, "f32") == raw_b).all()):
        raise ValueError(f"{d}: inputs that are not {name} values")
    d16_as_f32 = _binary_lines(d / f"d_{gpu}_fp16.txt")
    d16 = _convert(d16_as_f32, "f32", "f16")
    if not (_convert(d16, "f16", "f32") == d16_as_f32).all():
        raise ValueError(f"{d}: fp16 results that are not f16 values")
    return StudySet(gpu, name, a, b, _binary_lines(d / f"c_{gpu}_fp32.txt"), _binary_lines(d / f"d_{gpu}_fp32.txt"),
                    d16)


def evaluate(s: StudySet, acc: str, setting: MmaSetting, how: str) -> np.ndarray:
    row = select_row("hopper", s.fmt, acc, setting)
    return mma_batch(s.a, s.b, s.c_for(acc, how), "hopper", s.fmt, acc, params=row.params).astype(np.int64)


def table(checkout: Path) -> list[tuple[str, str, str, str, int, int]]:
    """(gpu, format, output, candidate, words reproduced, words) for every set and candidate."""
    out = []
    for gpu in GPUS:
        for fmt in FORMATS:
            s = load(checkout, gpu, fmt)
            for label, acc, setting, how in CANDIDATES:
                got = evaluate(s, acc, setting, how)
                out.append((gpu, s.fmt, acc, label, int((got == s.want(acc)).sum()), len(got)))
    return out


def write_fixture(checkout: Path, where: Path, per_file: int = 40) -> None:
    """Vectors on which the candidate rows disagree, as `volta mma --batch` files with the study's words."""
    where.mkdir(parents=True, exist_ok=True)
    for gpu in GPUS:
        for fmt in FORMATS:
            s = load(checkout, gpu, fmt)
            if gpu == "H100":  # the f32 sets of both GPUs are the same file (inputs and results)
                mma13 = evaluate(s, "f32", CANDIDATES[0][2], "zero")
                pick = np.flatnonzero(mma13 != s.d32)[:per_file]
                _write(where / f"{s.fmt}-f32-wgmma", s.a[pick], s.b[pick], np.zeros(len(pick), np.int64),
                       s.d32[pick], 8)
            ada_like = mma_batch(s.a, s.b, s.c_for("f16", "file"), "ada", s.fmt, "f16")
            pick = np.flatnonzero(ada_like != s.d16)[:per_file // 2]
            _write(where / f"{gpu.lower()}-{s.fmt}-f16-mma", s.a[pick], s.b[pick], s.c_for("f16", "file")[pick],
                   s.d16[pick], 4)


def _write(stem: Path, a, b, c, want, width: int) -> None:
    lines = [f"{','.join(f'{w:02x}' for w in ra)} ; {','.join(f'{w:02x}' for w in rb)} ; {int(rc):0{width}x}"
             for ra, rb, rc in zip(a, b, c)]
    stem.with_suffix(".batch").write_text("\n".join(lines) + "\n")
    stem.with_suffix(".want").write_text("\n".join(f"{int(w):0{width}x}" for w in want) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout", nargs="?", type=Path, default=DEFAULT_CHECKOUT)
    ap.add_argument("--fixture", type=Path, help="write the derived sample here")
    args = ap.parse_args(argv)
    if not (args.checkout / "model_validation").is_dir():
        print(f"no MATLAB-tensor-core checkout at {args.checkout}", file=sys.stderr)
        return 2
    if args.fixture:
        write_fixture(args.checkout, args.fixture)
        print(f"wrote {args.fixture}")
        return 0
    print(f"{'set':<16} {'candidate':<44} reproduced")
    for gpu, fmt, acc, label, ok, total in table(args.checkout):
        print(f"{gpu} {fmt}->{acc:<5} {label:<44} {ok:>5} / {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
