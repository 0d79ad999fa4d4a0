"""The Volta paper's benchmark on its own kernels: all 39 pairs and race checks, one process each.

    python benchmarks/bench_paper.py PATH                 # PATH: a checkout of willtunnels/volta
    python benchmarks/bench_paper.py PATH MatMul Red-     # only benchmarks whose name contains a word
    python benchmarks/bench_paper.py PATH --timeout 400 --list

The kernels stay in that checkout (`crates/volta_bench/kernels/`); this file holds only our own table of
what its benchmark crate launches (`crates/volta_bench/src/benchmarks/*.rs`): kernel, block, arrays with
their roles, parameters, dynamic shared memory, module globals. The reconstruction analyzes CTA 0 of the
launch; so does this script (`--ctas 0`, the grid kept as the crate gives it, since some kernels read
`%nctaid`). Each benchmark runs `python -m volta check|races … --json` in its own process; the script
prints verdict, expectation, wall and CPU seconds and peak RSS of that process, and a summary line.
Before the first, it byte-compiles the volta the children import (as `pip install` does), so a process
measures the check, not compiling the package's source again each time.

Table rows (`Bench`, `Run`, `Array`) are plain data, so a test can run a kernel of our own through the
same runner (tests/benchmarks/test_bench_paper.py). A child killed at --timeout (wall) still reports its CPU
seconds (reaped children's rusage), so a timeout under load says how much work it had done.

Figures (CPU s / peak MB, one process a pair; 2 shared cores, load 9-18 on 2026-12-07, so wall is 3-10x CPU):
    reductions 7/7, race kernels 10/10        0.6-1.0 s each, as expected
    MatMul-1 vs MatMul-1 / -2 / -3 / -4       46 / 41 / 62 / 48 s, 1.06-1.09 GB, EQUIVALENT
    MatMul-1 vs MatMul-5 / -6 / -7            TIMEOUT at 300 s wall (load 14-18; CPU not recorded then)
    MatMul-1-32x32 vs GEMM-1 / -2             17 / 12.8 s, 642-660 MB, EQUIVALENT
    MatMul-1-32x32 vs GEMM-3 (wmma)           TIMEOUT -> 19.7 s, 1.2 GB, EQUIVALENT (wmma lane-structured)
    TileLang 32x32x32 / 64x32x32 / 64x64x32   9.9 s, 605 MB / TIMEOUT at 300 s wall / 130 s, 1.45 GB (earlier)
    Attention vs Attention                    30 s, 663 MB, EQUIVALENT
    Causal-Attention naive vs fused           22.8 s, 385 MB, EQUIVALENT
    Attention vs FA1                          TIMEOUT -> 164 s CPU, 3.9 GB, EQUIVALENT (ratios by den lead, screen leaves)
    Attention vs FA1-TC                       179 s CPU, 3.9 GB, EQUIVALENT (was a false UNINITIALIZED READ: selp)
    Attention vs FA1, after 10f38c0           172 s CPU, 408 s wall, 3.86 GB, EQUIVALENT (load 4-7: unchanged)
    Attention vs FA2-TC                       TIMEOUT at 600 s wall (149 s CPU, load 10). Profile (py-spy, load 12,
                                              run to 41% of the comparison): ref ~100 s wall, opt ~330 s (wmma
                                              over exp weights: per-lane products), compare ~1,700 s projected;
                                              per element the float screen 34%, normal forms 49%; before 10f38c0
                                              cuts' per-node size check took 29% of the first 600 s
    Causal FA1 / FA1-TC / FA2-TC              TIMEOUT (300 s wall, before the FA1 fixes; not re-run)
  end of session, machine otherwise idle: MatMul-1 vs -1 / -5 / -6 / -7 35.3 / 41.5 / 36.7 / 36.7 s, 1.06-1.08 GB;
    TileLang 64x32x32 23.1 s, 819 MB; 64x64x32 76.9 s, 1.45 GB (all EQUIVALENT)
    Conv2D ref vs opt                         TIMEOUT (154 s CPU once) -> RACE in 19.6 s CPU, 40.7 s wall, 497 MB
                                              (load 4-7; 24.8-29.1 s at load 12-14; Rust: 63 s, 4.1 GB):
                                              f16 arithmetic (the ref's __hmul) and wmma tiles of leaves and
                                              padding zeros on lane polynomials; no second run for shared races.
                                              py-spy after: the interpreter's steps, nothing above 5% on its own
Branch paper30a (issue 30, session 5), old and new code run side by side at load 12-13 (CPU inflated ~1.5x):
    reductions 7/7                            0.31-0.42 s CPU a process (byte-compiled; z3 no longer loaded)
    MatMul-1 vs MatMul-1                      58.3 -> 49.5 s CPU, 1076 -> 1018 MB, EQUIVALENT (read-record
                                              shortcuts, outputs() from written bytes)
    TileLang 64x64x32                         150.9 -> 139.1 s CPU, 1425 -> 1377 MB, EQUIVALENT (target missed:
                                              ldmatrix/mma per-lane element work and the ref's shared reads)
  alone at load 5-6 after: MatMul-1 vs -1 44.2 s CPU, 1003 MB; MatMul-1-32x32 vs GEMM-2 13.4 s, 587 MB;
    vs GEMM-3 (wmma) 18.1 s, 1186 MB (all EQUIVALENT)
  profile of MatMul-1 vs -1 after (py-spy): execution 94%, of it ld 73% (race shadow 37%: _record_reads 30%,
  _second_reader 11% — A tiles are read by two warps per interval, so few records get full), lane compute 15%.
Branch gemm30c (issue 30, session 6; load 9-11 throughout, so CPU is inflated ~1.3x against the figures above):
    MatMul-1 vs MatMul-1, main and branch     59.9 -> 53.7 s CPU, 1016 -> 1009 MB, EQUIVALENT (run side by side:
                                              the race shadow's weak reads logged per CTA and barrier generation
                                              and folded at once, volta/exec/races/readlog.py; the shadow alone on
                                              MatMul-1's K-tile pattern: 11.1 -> 6.5 ms a tile)
    MatMul-1 vs MatMul-2 / -3                 55.5 / 64.9 s, 1.01 GB, EQUIVALENT (branch only; -4..-7 not re-run)
    MatMul-1-32x32 vs GEMM-3 (wmma)           20.7 s, 1185 MB, EQUIVALENT (branch only)
    TileLang 64x64x32                         157.9 s, 1403 MB, EQUIVALENT (branch only; target < 30 s missed)
  profile of MatMul-1 vs -1 after (py-spy): ld 53% (was 69%), of it the race shadow 25% (was 31%; the fold 12%
  at the next store), Machine._compute 19%, load_lsym 11%. TileLang 32x32x32 (py-spy): ld 32% (the ref's shared
  reads), compare ~15%, mma 7.6% and ldmatrix 6.3% (per-element fragments: less than the brief assumed), gc 10%.
Branch attn30d (issue 30, session 6; load 10-12 on 2 cores, so CPU inflated ~2x against an idle machine):
    Attention vs Attention                    73.4 s CPU, 629 MB, EQUIVALENT (726 s wall; execution only: both sides
                                              are the one-thread reference, every element identical)
    Attention vs FA1                          TIMEOUT at 900 s wall, 111.8 s CPU (was comparing when stopped);
                                              rerun at load 1: 172 -> 68.8 s CPU, 3.86 -> 1.71 GB, EQUIVALENT (82 s wall)
    Attention vs FA2-TC                       TIMEOUT at 600 s wall -> 128.1 s CPU, 1.72 GB, EQUIVALENT (936 s wall)
    Causal FA2-TC naive vs fused              TIMEOUT at 300 s wall -> 48.2 s CPU, 181 MB, EQUIVALENT (56 s wall)
  at load 1 after: Causal-Attention naive vs fused 22.4 s CPU, 371 MB; Causal FA1 naive vs fused 40.7 s, 165 MB;
    Causal FA1-TC naive vs fused 192.7 s, 257 MB; Attention vs FA1-TC 179 -> 142.2 s CPU, 3.9 -> 1.76 GB
    (phases not measured); all EQUIVALENT.
  what changed: an element that is the last proved one with its input leaves renamed (another column of V,
  another query row) is proved by a walk of both pairs (symbolic/renaming.py), not by its own normal forms and
  float screen (and, when measured, normal forms before the screen for small elements: taken out since). Our reduction of
  the pair (LK 256, D 16, 256 outputs; load 5-10): decide 41.7 -> 7.8 s wall, 32.4 -> 18.2 s CPU in all,
  255 of 256 elements by renaming. Left: execution, now most of every attention pair (the one-thread
  reference ~35 s CPU a side at this load; FA1/FA2-TC's per-lane products and lane-polynomial exprs).
Branch attn30h (issue 30, session 7; main and branch side by side unless noted, load 15-22 on 2 cores then 4-10):
    Attention vs Attention                    35.1 -> 30.4 s CPU, 629 MB (load 5; execution only: both one-thread)
    Attention vs FA1                          86.1 -> 64.5 s CPU, 1777 -> 1325 MB (main alone at load 8-13)
    Attention vs FA1-TC                       159.0 -> 135.9 s CPU, 1825 -> 1375 MB (decide 445 -> 65 s wall)
    Attention vs FA2-TC                       88.6 -> 65.1 s CPU, 1798 -> 1345 MB (decide 325 -> 142 s wall)
    Causal naive / FA1 / FA2-TC               22.0 -> 18.6 / 43.8 -> 46.0 / 40.5 -> 41.9-49.5 s CPU,
                                              371 / 172 / 190-220 MB
    Causal FA1-TC                             182 s CPU, 264 MB on the branch (main 270 s under py-spy: all execution,
                                              the lane machine: wmma 32%, ld/st 36%, back_edge's register hash 10.6%)
    all EQUIVALENT; causal elements are all identical DAGs (decide 0.0-0.2 s), so those pairs are execution only.
  what changed: normal forms before the float screen again, under a hard work budget (normal.Budget; element 0
  of FA1 and FA2-TC: 2.9 M units, 1.6 s, proved), cut points made only for an element that needs them (the
  estimate walk over all 2,048 roots was 14% of FA1's profile; its memo, an entry per node, likely most of the
  memory saved), and the one-thread reference's call to exp once a key writing back only the registers it
  names (its 64 accumulators stay cached), division/rcp/ex2/roots as decoded steps. Left: execution, the lane
  machine's side (FA1, FA1-TC, FA2-TC and every causal kernel), most of every pair.
Branch edge30i (issue 30, session 7; main and branch side by side, load 3-5 on 2 cores, each sampled 40 s by py-spy):
    Causal FA1-TC naive vs fused              182.8 -> 166.3 s CPU, 245 MB, EQUIVALENT (500 -> 476 s wall)
  what changed: back_edge (the spin-wait check at every backward branch) hashed all ~800 registers of every
  lane that took it; it now hashes only those its loop body (target..branch) writes, 7-13 for the inner loops,
  deciding the same (the comparison is made only when that branch was the lane's last backward branch, so
  nothing outside the body ran since the snapshot; tests/exec/test_spin_digest.py checks it differentially).
  back_edge 12.2% -> 1.9% of the profile. Next: _wmma 38% (wmma.load 19%, wmma.mma 18%), _ld 18%, _st 17%,
  Machine.write 15% (of it _write_sym 12%), the race shadow's track 11%.
Profile of (Attention, FA1) on main at load 8-13 (py-spy): execute 61.5% (onethread ref 18.2%, of it the general
path 47% and the register write-back 11%; FA1's machine 43%: _real_compute 19% with LanePoly.to_exprs 11%, _ld
16.6%), cuts.cut's estimate walk 14.4%, renaming 9.8%, _compare 3.9% (the screen 2%).
Profile of (Attention, FA1) before the screen fix (py-spy, 1,100 s wall): execution 43% (onethread ref 17%, FA1's
PV loop: per-lane fma expressions, LaneSym.exprs of sV), compare 33% (Screen.search 18%, of it leaf draws 12%;
normalize 12%; cuts.cut 9%).
Branch paper30g (issue 30, session 7; load 16-20 on 2 cores throughout; main and branch each run from a snapshot
of its commit, side by side where both are given; CPU = user + sys of the process):
    MatMul-1 vs MatMul-1                      main 37.3 -> 27.0 s CPU, 1034 -> 1032 MB, EQUIVALENT (both; side
                                              by side; an earlier pair of runs: 41.3 -> 32.5 s before the last
                                              two commits)
    MatMul-1 vs MatMul-3 / -6                 40.5 / 33.1 s, 1.03 GB, EQUIVALENT (branch only)
    MatMul-1-32x32 vs GEMM-1 / GEMM-3 (wmma)  10.9 s, 615 MB / 15.6 s, 1216 MB, EQUIVALENT (main GEMM-3: 16.9 s)
    TileLang 32x32x32 / 64x64x32              8.1 s, 554 MB / 82.6 s, 1431 MB, EQUIVALENT (main 64x64x32: 112.4 s)
  what changed: shared memory's race shadow drops a CTA's logged weak reads at its next barrier generation
  instead of folding them (they can no longer race; the fold was 11% of MatMul-1 and most of its stores' cost);
  logged reads are kept by granule, their shadow positions found only if folded; the cyclic garbage collector
  runs every 100,000 allocations during a run instead of every 700; a lane-structured load reads memory's UNDEF
  taint only from a region given some; fewer numpy calls per access (bounds and alignment by min/max, no
  gathers of the machine's own per-lane arrays for every lane, one CTA test a batch, offsets made once).
  profile of MatMul-1 with K = 512 (py-spy, before the last two commits): ld 72% of execution (track 20%,
  load_lsym 18%, the data taint 9%, resolve 9%, register write 8%), lane compute 22%; outside execution,
  equiv/check.py's per-element pass over C's 16 M elements (`outputs`, the `operator.is_` map) is a fixed
  ~1.5 s a pair. TileLang 32x32x32 (py-spy): execution 72% of the process (ld 36%, lane compute 24%, register
  writes 9%, mma 5%, ldmatrix 3%), start-up imports 14%. Targets missed: TileLang 64x64x32 82.6 s (< 30 s);
  MatMul-1 vs -3 / -6 over 30 s at this load.
Branch tc30j (issue 30, session 8; main and branch side by side, load 10-16 on 2 shared cores, CPU = user + sys):
    TileLang 64x64x32                         80.8 -> 70.1 s CPU, 1441 MB both, EQUIVALENT (again, the last
                                              commit's code: 79.9 -> 69.2 s, 1424 -> 1437 MB)
    MatMul-1 vs MatMul-3                      35.2 -> 31.8 s CPU, 1031 MB both, EQUIVALENT
    Causal FA1-TC naive vs fused              147.5 -> 119.7 s CPU, 251 MB both, EQUIVALENT (the last commit's
                                              code alone later at load ~10: 129.4 s; figures move ~10% here)
  profiles on main (py-spy): TileLang 64x64x32 is ~65% the ref's fma loop (per step: ld.shared 35% with the race
  shadow 10.5%, lane compute 13%, register writes 9%) and ~25% the opt's mma (18.5%: fragments' per-lane decode
  11%, of it the f16/bf16 format refusal 5.5%, asked per lane) and ldmatrix (6.5%); causal FA1-TC is wmma 39%
  (mma 21%, of it product 13.8%, 9.3% Fraction additions of two constant zeros: the padded tile rows and the
  causal mask's zero weights; wmma.load 16.8%, every element resolved and loaded twice), st 19%, ld 16%,
  Machine.write 13.5% (LaneSym merges 6.6%, np.isin in LaneSym.without 3%).
  what changed: wmma/mma `product` skips terms with a constant-0 factor (the same nodes: mul folds them to E.ZERO,
  add of E.ZERO is the identity; tests/exec/test_tensor_product.py and test_tensor_paths.py compare node for
  node with the every-term product); wmma.load reads each element's expression where the bit handler reads its
  bits; the format refusal is decided once per fragment and remembered per key (format, leaf buffers, computed)
  on the machine; LaneSym skips its order check for the machine's all_lanes (now read-only) and its own
  subsets, and `without` searches increasing lane sets instead of sorting them (np.isin); Machine.write skips
  the coverage scan of a LaneSym that covers exactly the lanes written. The per-step cost of the lane machine
  (some 25 numpy calls an ld, each 1-3 us) is the rest: TileLang 64x64x32 (< 30 s) and FA1-TC (< 60 s) stay
  missed. Candidates for next: f16 pairs loaded lane-structured (a 4-byte load of an f16 input builds two
  leaves and a pair node a lane, ~8% of TileLang 32x32x32's execution under cProfile, for st.shared to split
  them again), mma fragments of leaves read straight into index arrays (no object tiles), and fewer numpy calls
  in the ld path that every step of the ref's loop takes.
Branch mm30m (issue 30, session 9; main and the branch's commit 00504f1 run one after the other per pair, load
12-21 on 2 shared cores; CPU = user + sys; RSS 1.00-1.04 GB both sides for every MatMul pair; all EQUIVALENT):
    MatMul-1 vs MatMul-1 / -2                 24.5 -> 13.7 / 21.6 -> 12.7 s CPU
    MatMul-1 vs MatMul-3 / -4 / -5            30.9 -> 19.4 / 30.4 -> 19.7 / 31.4 -> 19.8 s CPU
    MatMul-1 vs MatMul-6 / -7                 27.1 -> 16.4 / 26.4 -> 16.0 s CPU
    TileLang 64x64x32                         58.3 -> 40.7 s CPU, 1.42 GB both (target < 30 s missed)
    Red-5/6/7 RACE, Red-1 vs 1-4 EQUIVALENT (0.3 s CPU each), Conv2D RACE (branch)
  what changed (all in the ld path, the race shadow and the compute step around the lane polynomials): an access
  whose least and greatest address lie in one region, in bounds and aligned, is resolved from those two
  (access._one_region; the lane-by-lane path still decides and reports every other case); a weak load of one
  CTA without vector clocks goes to Shadow.weak_reads with the CTA and generation as numbers and is logged when
  no write can be concurrent (access's own shortcut), without the per-lane arrays and the conflict pass; the
  shadow refines to the coarsest granule an access allows (2 bytes for f16, not 1); lane-structured and plain
  loads gather per-byte arrays by one flat index; compute reads its sources' flags first and their bits only
  when the result is not a LaneSym over every lane; np.count_nonzero for .any()/.all() on the hot masks (a fifth
  of the cost); memory-model strength remembered per instruction; no copies of address registers.
  profile of MatMul-1 (K = 1024, py-spy) after: execution ~50% of the process, ld 23% (load_lsym 7%, of it the
  LaneSym take 4%; track 3.5%; register write 3.5%; load 3%; resolve 2%), compute 16% (lane polynomial
  arithmetic 7%); equiv's output pass 17%. TileLang 64x64x32 (py-spy, before the last commits): ld 27% (the f16
  pair loads' per-lane leaves and pair nodes 9%), mma 23.5% and ldmatrix 9% (tensor_real), compute 20%. The
  target < 30 s for TileLang is missed: what is left is lane polynomial arithmetic (volta/symbolic), the
  tensor-core handlers and the f16 pairs of a 4-byte load (no lane-structured form for a pair yet).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

KERNELS = Path("crates/volta_bench/kernels")  # inside the checkout


@dataclass(frozen=True)
class Array:
    """A global buffer: name, Volta dtype, element count, role (in/out/inout/temp), contents (iota…)."""

    name: str
    dtype: str
    n: int
    role: str
    contents: str = ""  # "" (symbolic/random) or a `--buffer` contents spelling such as "iota"

    def spec(self) -> str:
        return f"{self.name}={self.dtype}[{self.n}]:{self.role}" + (f":{self.contents}" if self.contents else "")


@dataclass(frozen=True)
class Run:
    """One kernel launch as the benchmark crate defines it."""

    ptx: str  # path relative to crates/volta_bench/kernels
    kernel: str
    block: str
    grid: str
    arrays: tuple[Array, ...]
    args: tuple[str, ...]
    shared: int = 0
    globals: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Bench:
    name: str
    category: str
    expect: str  # equivalent | race | clean
    ref: Run
    opt: Run | None = None
    symbols: tuple[str, ...] = ()  # scalars kept symbolic (alpha, beta)
    define_fn: tuple[str, ...] = ()  # external functions given their meaning (__symexpf=exp)


# --- the table -------------------------------------------------------------------------------------

def _matmul(ptx: str, kernel: str, threads: int) -> Run:
    n = 4096 * 4096
    arrays = (Array("A", "f32", n, "in"), Array("B", "f32", n, "in"), Array("C", "f32", n, "inout"))
    return Run(f"02_matmul/{ptx}", kernel, str(threads), "64x64", arrays, ("A", "B", "C", "alpha", "beta"))


def _reduction(ptx: str, kernel: str, n: int, shared: int) -> Run:
    arrays = (Array("in", "s32", n, "in"), Array("out", "s32", 1, "out"))
    return Run(f"01_reduction/{ptx}", kernel, "128", "1", arrays, ("in", "out"), shared)


def _attention(ptx: str, kernel: str, threads: int, aux: bool) -> Run:
    lq, lk, dim = 16, 512, 64
    arrays = (Array("Q", "f32", lq * dim, "in"), Array("K", "f32", lk * dim, "in"),
              Array("V", "f32", lk * dim, "in"), Array("O", "f32", lq * dim, "out"))
    args = ("Q", "K", "V", "O", "0.125")
    if aux:  # FA1's running statistics: outputs of the optimized kernel only, so not compared
        arrays += (Array("fa_l", "f32", lq, "temp"), Array("fa_m", "f32", lq, "temp"))
        args += ("fa_l", "fa_m")
    return Run(ptx, kernel, str(threads), "1", arrays, args)


def _agent(ptx: str, kernel: str) -> Run:
    n = 4096 * 4096
    arrays = (Array("A", "f32", n, "in"), Array("B", "f32", n, "in"), Array("C", "f32", n, "inout"))
    return Run(f"06_agent_gemm/{ptx}", kernel, "512", str(128 * 128), arrays, ("A", "B", "C"))


def _tilelang(ptx: str) -> Run:
    n = 4096 * 4096
    arrays = (Array("A", "f16", n, "in"), Array("B", "f16", n, "in"), Array("C", "f16", n, "out"))
    return Run(f"07_tilelang/{ptx}", "main_kernel", "128", "128x128", arrays, ("A", "B", "C"), 160 * 1024)


def _races() -> list[Bench]:
    big = 1 << 20
    bucket = Run("", "_Z22computeBucketPositionsPj", "64", "1", (Array("bucketOffset", "u32", big, "inout"),),
                 ("bucketOffset",), 64 * 1024)
    crange = Run("", "_Z12computeRangePKiPi", "64", "1",
                 (Array("data", "u32", big, "in"), Array("range", "u32", big, "out")), ("data", "range"),
                 64 * 1024, (("MAX_KEY", 32),))
    reduce_value = Run("", "computeRMSDPart1", "64", "1",
                       (Array("posq", "f32", big, "in"), Array("refpos", "f32", big, "in"),
                        Array("particles", "u32", big, "in", "iota"), Array("buffer", "f32", big, "inout")),
                       ("posq", "refpos", "particles", "buffer"), 64 * 1024)
    n1, n2 = 2, 1024
    layer_norm = Run("", "_Z16cuApplyLayerNormIfffEvPT1_PT0_S3_PKT_iiS2_PKS0_S8_ii", "32", "1x2",
                     (Array("out", "f32", n1 * n2, "out"), Array("mean", "f32", n1, "out"),
                      Array("invvar", "f32", n1, "out"), Array("vals", "f32", n1 * n2, "in"),
                      Array("gamma", "f32", n2, "in"), Array("beta", "f32", n2, "in")),
                     ("out", "mean", "invvar", "vals", str(n1), str(n2), "1e-5", "gamma", "beta", "1", "1"))

    # The crate's grid y = 1 << 20 only makes CTA (0,0) take row 0 of the row loop (stride %nctaid.y, n1 = 8
    # rows baked in); CUDA allows y <= 65535, so the launch here is the natural one CTA per row: y = 8.
    def grad_input(block: str) -> Run:
        return Run("", "_Z18cuComputeGradInputIfffEvPKT1_PKT_PKT0_S8_S6_S2_PS3_", block, "1x8",
                   (Array("dout", "f32", 1 << 22, "in"), Array("input", "f32", 1 << 22, "in"),
                    Array("mean", "f32", big, "in"), Array("invvar", "f32", big, "in"),
                    Array("gamma", "f32", 1 << 12, "in"), Array("grad_input", "f32", 1 << 22, "out")),
                   ("dout", "input", "mean", "invvar", "1e-5", "gamma", "grad_input"), 64 * 1024)

    out = []
    for name, pre, post in (("BucketPositions", bucket, bucket), ("ComputeRange", crange, crange),
                            ("ReduceValue", reduce_value, reduce_value), ("LayerNorm", layer_norm, layer_norm),
                            ("GradInput", grad_input("32x4"), grad_input("32"))):
        for run, suffix, expect in ((pre, "pre_racy", "race"), (post, "post_fixed", "clean")):
            run = replace(run, ptx=f"08_races/{name}-{suffix}.ptx")
            out.append(Bench(f"{name} ({suffix.split('_')[0]}-fix)", "races", expect, run))
    return out


def benchmarks() -> list[Bench]:
    red1 = _reduction("Red-1.ptx", "_Z17reduce1024_1blockPKiPi", 128, 0)
    reds = [_reduction("Red-2.ptx", "_Z7reduce2PiS_", 128, 0), _reduction("Red-3.ptx", "_Z7reduce3PiS_", 128, 0),
            _reduction("Red-4.ptx", "_Z7reduce0PiS_", 192, 0)]
    out = [Bench("(Red-1, Red-1)", "reduction", "equivalent", red1, red1)]
    out += [Bench(f"(Red-1, Red-{i + 2})", "reduction", "equivalent", red1, r) for i, r in enumerate(reds)]
    out += [Bench("Red-5 (racy)", "reduction", "race", _reduction("Red-5_racy.ptx", "_Z7reduce0PiS_", 192, 2048)),
            Bench("Red-6 (racy)", "reduction", "race",
                  _reduction("Red-6_racy.ptx", "_Z7reduce6ILj128EEvPiS0_", 128, 2048)),
            Bench("Red-7 (racy)", "reduction", "race",
                  _reduction("Red-7_racy.ptx", "_Z12reduce1blockILj128EEvPKiPi", 128, 2048))]

    mm1 = _matmul("MatMul-1.ptx", "_Z5sgemmPKfS0_Pfff", 512)
    mms = [("MatMul-2.ptx", "_Z5sgemmPKfS0_Pfff", 512), ("MatMul-3.ptx", "_Z5sgemmPfS_S_ff", 128),
           ("MatMul-4.ptx", "_Z5sgemmPfS_S_ff", 128), ("MatMul-5.ptx", "_Z5sgemmPfS_S_ff", 128),
           ("MatMul-6.ptx", "_Z5sgemmPKfS0_Pfff", 256), ("MatMul-7.ptx", "_Z5sgemmPKfS0_Pfff", 256)]
    ab = ("alpha", "beta")
    out.append(Bench("(MatMul-1, MatMul-1)", "matmul", "equivalent", mm1, mm1, ab))
    out += [Bench(f"(MatMul-1, MatMul-{i + 2})", "matmul", "equivalent", mm1, _matmul(*m), ab)
            for i, m in enumerate(mms)]

    exp = ("__symexpf=exp",)
    basic, fa1, fa2 = "_Z10sdpa_basicPKfS0_S0_Pff", "_Z12sdpa_fa_likePKfS0_S0_PffS1_S1_", "_Z11sdpa_fa2_tcPKfS0_S0_Pff"
    att = _attention("03_attention/Attention.ptx", basic, 1, False)
    for name, ptx, kernel, aux in (("Attention", "Attention", basic, False), ("FA1", "FA1", fa1, True),
                                   ("FA1-TC", "FA1-TC", fa1, True), ("FA2-TC", "FA2-TC", fa2, False)):
        threads = 1 if name == "Attention" else 128
        opt = _attention(f"03_attention/{ptx}.ptx", kernel, threads, aux)
        out.append(Bench(f"(Attention, {name})", "attention", "equivalent", att, opt, define_fn=exp))
    for name, kernel, threads, aux in (("Causal-Attention", basic, 1, False), ("Causal-FA1", fa1, 128, True),
                                       ("Causal-FA1-TC", fa1, 128, True), ("Causal-FA2-TC", fa2, 128, False)):
        naive = _attention(f"04_causal_attention/{name}-naive.ptx", kernel, threads, aux)
        fused = _attention(f"04_causal_attention/{name}-fused.ptx", kernel, threads, aux)
        out.append(Bench(f"({name}-naive, {name}-fused)", "causal", "equivalent", naive, fused, define_fn=exp))

    n_gemm = 100 * 55 * 55
    conv_arrays = (Array("input", "f32", 100 * 3 * 224 * 224, "in"), Array("weight", "f32", 96 * 3 * 11 * 11, "in"),
                   Array("bias", "f32", 96, "in"), Array("output", "f32", 96 * n_gemm, "out"))
    conv_args = ("input", "weight", "bias", "output")
    grid = str(-(-n_gemm // 128))
    out.append(Bench("(Conv2D-ref, Conv2D-opt)", "conv2d", "race",  # the opt reads other lanes' wmma.store results
                     Run("05_conv2d_llm/Conv2D-ref.ptx", "_Z11dumb_conv2dPKfS0_S0_Pf", "256", grid, conv_arrays,
                         conv_args),
                     Run("05_conv2d_llm/Conv2D-opt.ptx", "_Z6conv2dPKfS0_S0_Pf", "256", grid, conv_arrays, conv_args)))

    ref32 = _agent("MatMul-1-ref_32x32.ptx", "_Z25sgemm_global_mem_coalescePKfS0_Pf")
    out += [Bench(f"(MatMul-1-32x32, GEMM-{i})", "agent", "equivalent", ref32,
                  _agent(f"GEMM-{i}.ptx", "_Z15sgemm_optimizedPKfS0_Pf")) for i in (1, 2, 3)]
    out += [Bench(f"(TL-{s}-ref, TL-{s}-opt)", "tilelang", "equivalent", _tilelang(f"{s}-ref.ptx"),
                  _tilelang(f"{s}-opt.ptx")) for s in ("32x32x32", "64x32x32", "64x64x32")]
    return out + _races()


# --- running ---------------------------------------------------------------------------------------

def command(bench: Bench, kernels: Path) -> list[str]:
    """The `volta` command line of one benchmark (CTA 0 only, as the reconstruction checks)."""
    def side(prefix: str, run: Run) -> list[str]:
        argv = [f"--{prefix}kernel", run.kernel, f"--{prefix}grid", run.grid, f"--{prefix}block", run.block,
                f"--{prefix}args", ",".join(run.args)]
        return argv

    first = bench.ref
    argv = ["--ctas", "0", "-q", "--json"]
    arrays: dict[str, Array] = {}  # one buffer per name for both sides, as long as the longer side needs
    for a in first.arrays + (bench.opt.arrays if bench.opt else ()):
        if a.name not in arrays or a.n > arrays[a.name].n:
            arrays[a.name] = a
    for a in arrays.values():
        argv += ["--buffer", a.spec()]
    for name in bench.symbols:
        argv += ["--symbol", f"{name}=f32"]
    for fn in bench.define_fn:
        argv += ["--define-fn", fn]
    for name, value in first.globals:
        argv += ["--global", f"{name}={value}"]
    shared = max(first.shared, bench.opt.shared if bench.opt else 0)
    if shared:
        argv += ["--shared-dynamic", str(shared)]
    if bench.opt is None:
        return ["races", str(kernels / first.ptx)] + side("", first) + argv
    return (["check", str(kernels / first.ptx), str(kernels / bench.opt.ptx)] + side("ref-", first)
            + side("opt-", bench.opt) + argv)


def finding_kinds(report) -> set[str]:
    """Kinds of every finding anywhere in a `volta check`/`races` JSON report."""
    kinds: set[str] = set()
    if isinstance(report, dict):
        for key, value in report.items():
            if key == "findings" and isinstance(value, (list, dict)):   # races: a list; check: role -> list
                for found in value.values() if isinstance(value, dict) else [value]:
                    kinds |= {f["kind"] for f in found if isinstance(f, dict) and "kind" in f}
            else:
                kinds |= finding_kinds(value)
    elif isinstance(report, list):
        for value in report:
            kinds |= finding_kinds(value)
    return kinds


# every kind of data race Volta reports (benign ones and volatile ordering races are still races between
# unordered accesses, which is what the benchmark's racy kernels are about)
RACE_KINDS = {"race", "benign-race", "benign-read-race", "ordering-race", "nondeterministic-write"}


def outcome(report: dict | None) -> str:
    """The benchmark's verdict in the table's words: equivalent, race, clean, or what Volta said instead."""
    if report is None:
        return "error"
    kinds = finding_kinds(report)
    if kinds:
        return "race" if kinds & RACE_KINDS else "findings:" + ",".join(
            sorted(kinds))
    return report.get("verdict", "error")


# The child reports its own CPU seconds and peak RSS when it exits (a killed child reports nothing).
_WRAPPER = """
import atexit, json, resource, sys
def _usage():
    u = resource.getrusage(resource.RUSAGE_SELF)
    sys.stderr.write("\\n@usage " + json.dumps([u.ru_utime + u.ru_stime, u.ru_maxrss / 1024]) + "\\n")
atexit.register(_usage)
from volta.cli import run
sys.exit(run(sys.argv[1:]))
"""


def _children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def byte_compile() -> None:
    """Write the .pyc files of the volta the children import, once, as installing the package does. Where
    PYTHONDONTWRITEBYTECODE is set (this project's shells set it) every child would otherwise compile the
    ~190 modules it imports from source: 0.3-0.5 s of CPU a process, more than a reduction's whole check."""
    subprocess.run([sys.executable, "-c", "import compileall, os, volta; "
                    "compileall.compile_dir(os.path.dirname(volta.__file__), quiet=1)"], check=True)


def run_volta(argv: list[str], timeout: float) -> dict:
    """`volta ARGV` in its own process: its JSON report (None if it printed none), wall and CPU seconds, peak RSS
    (MB), exit status, whether it was killed at `timeout`, and its last stderr line."""
    start, children = time.perf_counter(), _children_cpu()
    proc = subprocess.Popen([sys.executable, "-c", _WRAPPER] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        timed_out = True
    wall = time.perf_counter() - start
    cpu, rss, lines = _children_cpu() - children, float("nan"), []   # CPU of a killed child too (reaped)
    for line in err.splitlines():
        if line.startswith("@usage "):
            cpu, rss = json.loads(line[len("@usage "):])
        elif line.strip():
            lines.append(line.strip())
    try:
        report = json.loads(out) if out.strip() else None
    except ValueError:
        report = None
    return {"report": report, "wall": wall, "cpu": cpu, "rss_mb": rss, "exit": proc.returncode,
            "timed_out": timed_out, "stderr": lines[-1:]}


def run_one(bench: Bench, kernels: Path, timeout: float) -> dict:
    run = run_volta(command(bench, kernels), timeout)
    got = "timeout" if run["timed_out"] else outcome(run["report"])
    return {"name": bench.name, "expect": bench.expect, "got": got,
            **{k: run[k] for k in ("wall", "cpu", "rss_mb", "exit", "stderr")}}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of willtunnels/volta")
    parser.add_argument("only", nargs="*", help="run only benchmarks whose name contains one of these")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per benchmark (default 600)")
    parser.add_argument("--list", action="store_true", help="print the command lines, run nothing")
    args = parser.parse_intermixed_args(argv)  # names may follow --timeout
    kernels = args.checkout / KERNELS
    if not kernels.is_dir():
        parser.error(f"{kernels} is not a directory: give a checkout of willtunnels/volta")
    chosen = [b for b in benchmarks() if not args.only or any(w in b.name for w in args.only)]
    if args.list:
        for b in chosen:
            print(b.name, "::", "volta", " ".join(command(b, kernels)))
        return 0
    byte_compile()
    rows = []
    print(f"{'benchmark':40s} {'expected':10s} {'got':22s} {'wall s':>8s} {'cpu s':>8s} {'peak MB':>8s}")
    for bench in chosen:
        row = run_one(bench, kernels, args.timeout)
        rows.append(row)
        mark = "" if row["got"] == row["expect"] else "   <-- " + " ".join(row["stderr"])[:120]
        print(f"{row['name']:40s} {row['expect']:10s} {row['got']:22s} {row['wall']:8.2f} {row['cpu']:8.2f} "
              f"{row['rss_mb']:8.0f}{mark}", flush=True)
    right = sum(r["got"] == r["expect"] for r in rows)
    slowest = max(rows, key=lambda r: r["wall"]) if rows else None
    print(f"\n{len(rows)} benchmarks: {right} as expected, {len(rows) - right} not; total wall "
          f"{sum(r['wall'] for r in rows):.0f} s, cpu {sum(r['cpu'] for r in rows):.0f} s"
          + (f"; slowest {slowest['name']} {slowest['wall']:.1f} s" if slowest else ""))
    return 0 if right == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
