"""Volta on a production kernel library's versions of one op: llm.c's dev/cuda kernels (softmax, layer norm, the
bias gradient, GELU forward and backward, residual, embeddings and their gradient, AdamW, the global norm,
residual + layer norm fused, causal attention), each version checked against version 1 (the plain one; for
the fused residual, the two kernels it fuses; for attention, version 1's three kernels against version 2's
flash kernel with its host steps), one process per pair; prints verdict, expected, wall, CPU and peak RSS.

    python benchmarks/bench_llmc.py PATH/TO/llm.c [names…] [--timeout S] [--list]

PATH is a checkout of karpathy/llm.c (fetched into a git-ignored folder; its code stays out of this
repository). Each `dev/cuda/*.cu` named below is compiled to PTX with nvcc once, with two stand-in headers for
cuBLAS (the kernels do not use it; the files include it for their host code). The launches are the files' own
launchers' (grid, block, dynamic shared memory) at small sizes; where a version's assumption about the sizes
does not hold (a block wider than the row) the verdict expected is what the kernel does there, and the row says
why. Expected verdicts were read off the kernels, not off Volta: `race` for softmax version 4 (the block's max is
read from shared[0] while warp 0 may already have written its partial sum there: no barrier between), and the
row sizes chosen so that every other version is a correct softmax or layer norm.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_paper import byte_compile, finding_kinds, outcome, run_volta  # noqa: E402

STUB_HEADERS = {   # what the files' host code needs of cuBLAS (and the bf16/f16 types it brings in); no kernel uses it
    "cublas_v2.h": "#pragma once\n#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n"
                   "typedef int cublasStatus_t; typedef void* cublasHandle_t; typedef int "
                   "cublasComputeType_t; typedef int cublasMath_t; typedef int cublasOperation_t;\n"
                   "#define CUBLAS_STATUS_SUCCESS 0\n#define CUBLAS_OP_N 0\n#define CUBLAS_OP_T 1\n"
                   "#define CUBLAS_COMPUTE_32F_FAST_TF32 1\n#define CUBLAS_COMPUTE_32F 0\n"
                   "#define CUBLAS_COMPUTE_16F 2\n#define CUBLAS_TF32_TENSOR_OP_MATH 1\n#define CUBLAS_DEFAULT_MATH 0\n"
                   "#define CUBLAS_GEMM_DEFAULT 0\n"
                   "template <class... A> static inline int cublasSgemmStridedBatched(A...) { return 0; }\n"
                   "template <class... A> static inline int cublasGemmStridedBatchedEx(A...) { return 0; }\n"
                   "static inline int cublasCreate(cublasHandle_t*){return 0;}\n"
                   "static inline int cublasSetMathMode(cublasHandle_t, int){return 0;}\n"
                   "static inline int cublasDestroy(cublasHandle_t){return 0;}\n",
    "cublasLt.h": "#pragma once\ntypedef void* cublasLtHandle_t;\n"
                  "static inline int cublasLtCreate(cublasLtHandle_t*){return 0;}\n"
                  "static inline int cublasLtDestroy(cublasLtHandle_t){return 0;}\n",
}


@dataclass(frozen=True)
class Pair:
    name: str
    source: str            # dev/cuda/<source>.cu
    ref: str               # the kernel's CUDA name (Volta finds the mangled one)
    opt: str
    ref_launch: tuple      # (grid, block, dynamic shared bytes)
    opt_launch: tuple
    args: str
    buffers: tuple
    expect: str
    symbols: tuple = ()    # float scalars kept symbolic (--symbol NAME=f32)
    ref_steps: tuple = ()  # a launch sequence instead of one kernel: (kernel, grid, block, args[, shared]) each,
    opt_steps: tuple = ()  # or a host step ("memset m 240", "copy q out")


def _softmax(name, opt, launch, expect, rows=4, cols=128):
    return Pair(name, "softmax_forward", "softmax_forward_kernel1", opt, ("1", "32", 0), launch,
                f"out,inp,{rows},{cols}", (f"inp=f32[{rows * cols}]:in", f"out=f32[{rows * cols}]:out"), expect)


def _layernorm(name, opt, launch, rows=2, cols=64):
    return Pair(name, "layernorm_forward", "layernorm_forward_kernel1", opt, ("1", "32", 0), launch,
                f"out,mean,rstd,inp,w,bias,{rows},{cols}",
                (f"inp=f32[{rows * cols}]:in", f"out=f32[{rows * cols}]:out", f"mean=f32[{rows}]:out",
                 f"rstd=f32[{rows}]:out", f"w=f32[{cols}]:in", f"bias=f32[{cols}]:in"), "equivalent")


def _bias_grad(name, opt, launch, rows=64, cols=32):
    """dbias += the column sums of dout (bf16, dbias read and written): version 1 is a block per column with a
    shared-memory tree."""
    return Pair(name, "matmul_backward_bias", "matmul_backward_bias_kernel1", opt, (str(cols), "32", 128), launch,
                f"dbias,dout,1,{rows},{cols}", (f"dout=bf16[{rows * cols}]:in", f"dbias=bf16[{cols}]:inout"),
                "equivalent")


def _elementwise(name, source, ref, opt, operands, n=256, expect="equivalent"):
    """An elementwise bf16 op: version 1 an element a thread, the other eight a thread through a 16-byte
    Packed128 (load128/store128: eight bf16 converted one by one and packed two to a 32-bit word)."""
    bufs = tuple(f"{b}=bf16[{n}]:{'out' if k == 0 else 'in'}" for k, b in enumerate(operands))
    return Pair(name, source, ref, opt, ("1", str(n), 0), ("1", str(n // 8), 0), ",".join(operands) + f",{n}",
                bufs, expect)


def _encoder(name, opt, launch, b=2, t=4, c=32, vocab=16):
    """Token plus position embeddings: `inp` holds token ids (an index array, range declared). Addresses depend
    on it, so the verdict is equivalence on the id assignments tried, every float input symbolic."""
    return Pair(name, "encoder_forward", "encoder_forward_kernel1", opt, ("1", "32", 0), launch,
                f"out,inp,wte,wpe,{b},{t},{c}",
                (f"out=bf16[{b * t * c}]:out", f"inp=s32[{b * t}]:in:range=0..{vocab - 1}",
                 f"wte=bf16[{vocab * c}]:in", f"wpe=bf16[{t * c}]:in"), "equivalent-for-inputs")


def _fused_residual(name, opt, launch, rows=8, cols=256, expect="equivalent"):
    """residual = a + b, then a layer norm of it (bf16): the reference is two launches, residual_forward_kernel1
    then layernorm_forward_kernel1, against one fused kernel."""
    n = rows * cols
    steps = (("residual_forward_kernel1", str(-(-n // 256)), "256", f"res,a,b,{n}"),
             ("layernorm_forward_kernel1", "1", "64", f"normed,mean,rstd,res,w,bias,{rows},{cols}"))
    return Pair(name, "fused_residual_forward", "", opt, ("", "", 0), launch,
                f"res,normed,mean,rstd,a,b,w,bias,{rows},{cols}",
                (f"res=bf16[{n}]:out", f"normed=bf16[{n}]:out", f"mean=bf16[{rows}]:out", f"rstd=bf16[{rows}]:out",
                 f"a=bf16[{n}]:in", f"b=bf16[{n}]:in", f"w=bf16[{cols}]:in", f"bias=bf16[{cols}]:in"),
                expect, ref_steps=steps)


def _attention_flash(name, t=32, c=8, heads=2):
    """Causal self-attention: version 1 is three kernels (scores, softmax, weighted values through `preatt` and
    `att`) against version 2, the flash-attention kernel with its host steps (permute q/k/v, l and m set by
    cudaMemset — m to the byte 0xF0 that -10000.0f becomes —, the kernel, unpermute, a copy into out)."""
    d, n = c // heads, t * c
    sram = (2 * 32 * d + 32 * d + 32 * 32) * 4
    ref = (("attention_query_key_kernel1", str(-(-heads * t * t // 256)), "256", f"preatt,inp,1,{t},{c},{heads}"),
           ("attention_softmax_kernel1", str(-(-heads * t // 256)), "256", f"att,preatt,1,{t},{heads}"),
           ("attention_value_kernel1", str(-(-heads * t // 256)), "256", f"out,att,inp,1,{t},{c},{heads}"))
    opt = (("permute_kernel", str(-(-n // 256)), "256", f"q,k,v,inp,1,{t},{heads},{d}"), "memset l 0",
           "memset m 240",
           ("attention_forward_kernel2", f"1x{heads}", "32",
            f"q,k,v,{t},{d},{-(-t // 32)},{-(-t // 32)},32,32,{1 / d ** 0.5},l,m,out", sram),
           ("unpermute_kernel", str(-(-n // 256)), "256", f"out,q,1,{t},{heads},{d}"), "copy q out")
    temps = [f"{b}=f32[{heads * t * t}]:temp" for b in ("preatt", "att")] + \
        [f"{b}=f32[{n}]:temp" for b in "qkv"] + [f"{b}=f32[{heads * t}]:temp" for b in "lm"]
    return Pair(name, "attention_forward", "", "", ("", "", 0), ("", "", 0), "",
                (f"inp=f32[{3 * n}]:in", f"out=f32[{n}]:out", *temps), "equivalent", ref_steps=ref, opt_steps=opt)


ADAMW_SCALARS = ("lr", "beta1", "beta2", "c1", "c2", "eps", "wd")


def pairs() -> list[Pair]:
    return [
        _softmax("softmax-2 shared tree", "softmax_forward_kernel2", ("4", "32", 128), "equivalent"),
        _softmax("softmax-3 warp shuffles", "softmax_forward_kernel3", ("4", "32", 128), "equivalent"),
        _softmax("softmax-4 warps + shared", "softmax_forward_kernel4", ("4", "128", 16), "race"),
        _softmax("softmax-online-1 per thread", "softmax_forward_online_kernel1", ("1", "32", 0), "equivalent"),
        _softmax("softmax-online-2 record merge (cg)", "softmax_forward_online_kernel2", ("1", "128", 0),
                 "equivalent"),
        _softmax("softmax-7 unrolled", "softmax_forward_kernel7", ("4", "128", 32), "equivalent"),
        _softmax("softmax-online-8 warp", "softmax_forward_online_kernel8", ("1", "128", 0), "equivalent"),
        # a row narrower than the block: version 8 returns early for threadIdx.x >= C, so the warps of rows 2
        # and 3 never run (their outputs are never written)
        _softmax("softmax-online-8 row < block", "softmax_forward_online_kernel8", ("1", "128", 0),
                 "not-equivalent", cols=64),
        _layernorm("layernorm-3 cg reduce", "layernorm_forward_kernel3", ("1", "64", 0)),
        _layernorm("layernorm-4 E[x^2]-E[x]^2", "layernorm_forward_kernel4", ("1", "64", 0)),
        _layernorm("layernorm-5 block per row", "layernorm_forward_kernel5", ("2", "32", 0)),
        _layernorm("layernorm-6 shared rows", "layernorm_forward_kernel6", ("1", "32x2", 4 * 64 * 4)),
        _layernorm("layernorm-4 C=768", "layernorm_forward_kernel4", ("1", "64", 0), cols=768),
        _bias_grad("bias-grad-2 warp per column", "matmul_backward_bias_kernel2", ("8", "128", 0)),
        _bias_grad("bias-grad-3 block per column", "matmul_backward_bias_kernel3", ("32", "128", 0)),
        _bias_grad("bias-grad-4 32 columns a block", "matmul_backward_bias_kernel4", ("1", "128", 512)),
        _elementwise("gelu-2 packed128", "gelu_forward", "gelu_forward_kernel1", "gelu_forward_kernel2",
                     ("out", "inp")),
        _elementwise("gelu-backward-2 packed128", "gelu_backward", "gelu_backward1", "gelu_backward2",
                     ("dinp", "inp", "dout")),
        _elementwise("residual-2 packed128", "residual_forward", "residual_forward_kernel1",
                     "residual_forward_kernel2", ("out", "inp1", "inp2")),
        _encoder("encoder-2 a thread per channel", "encoder_forward_kernel2", ("8", "32", 0)),
        _encoder("encoder-3 packed128", "encoder_forward_kernel3", ("1", "32", 0)),
        Pair("adamw-2 lerp", "adamw", "adamw_kernel1", "adamw_kernel2", ("2", "32", 0), ("2", "32", 0),
             "p,g,m,v,64," + ",".join(ADAMW_SCALARS),
             ("p=f32[64]:inout", "g=f32[64]:in", "m=f32[64]:inout", "v=f32[64]:inout"), "equivalent",
             symbols=ADAMW_SCALARS),
        Pair("global-norm-2 atomic a warp", "global_norm", "norm_kernel1", "norm_kernel2", ("2", "64", 0),
             ("2", "64", 0), "out,x,512", ("out=f32[1]:out", "x=bf16[512]:in"), "equivalent"),
        Pair("global-norm-3 block reduce", "global_norm", "norm_kernel1", "norm_kernel3", ("2", "64", 0),
             ("2", "64", 0), "out,x,512", ("out=f32[1]:out", "x=bf16[512]:in"), "equivalent"),
        _fused_residual("fused-residual-3 warp a row", "fused_residual_forward3", ("2", "32x4", 0)),
        # `if (idx > N) return;`: row N (one past the last) is read and written when the grid has more rows than
        # N, as the file's own launcher makes it (ceil_div(N, block_y) blocks) whenever block_y does not divide N
        _fused_residual("fused-residual-3 N=5 (idx > N)", "fused_residual_forward3", ("2", "32x4", 0), rows=5,
                        expect="findings:out-of-bounds"),
        _fused_residual("fused-residual-4 packed128", "fused_residual_forward_kernel4", ("2", "32x4", 0)),
        _fused_residual("fused-residual-5 shared params", "fused_residual_forward_kernel5",
                        ("2", "32x4", (2 + 4) * 256 * 2)),
        _fused_residual("fused-residual-6 z-warps", "fused_residual_forward_kernel6",
                        ("1", "32x1x4", (2 + 4) * 256 * 2 + 64 * 4 * 4)),
        # the embeddings' gradient: atomicAdd into the rows the token ids pick (collisions where ids repeat),
        # against a thread per channel looping over the tokens
        Pair("encoder-backward-2 no atomics", "encoder_backward", "encoder_backward_kernel1",
             "encoder_backward_kernel2", ("2", "128", 0), ("1", "32", 0), "dwte,dwpe,dout,inp,2,4,32",
             ("dwte=f32[512]:inout", "dwpe=f32[128]:inout", "dout=f32[256]:in", "inp=s32[8]:in:range=0..15"),
             "equivalent-for-inputs"),
        _attention_flash("attention-2 flash (T=32, hs=4)"),
        _attention_flash("attention-2 flash (T=32, hs=16)", c=32),
    ]


def compile_sources(checkout: Path, names: set[str], into: Path) -> dict[str, Path]:
    stubs = into / "stub"
    stubs.mkdir(parents=True, exist_ok=True)
    for file, text in STUB_HEADERS.items():
        (stubs / file).write_text(text)
    out = {}
    for name in sorted(names):
        ptx = into / f"{name}.ptx"
        subprocess.run(["nvcc", "-ptx", "-arch=sm_80", "-O3", "-lineinfo", f"-I{stubs}", "-o", str(ptx),
                        str(checkout / "dev" / "cuda" / f"{name}.cu")], check=True, capture_output=True)
        out[name] = ptx
    return out


def command(pair: Pair, ptx: Path) -> list[str]:
    (rg, rb, rs), (og, ob, os_) = pair.ref_launch, pair.opt_launch
    if pair.ref_steps:
        opt_steps = pair.opt_steps or ((pair.opt, og, ob, pair.args, os_),)
        argv = ["check", *_steps("ref", pair.ref_steps, ptx), *_steps("opt", opt_steps, ptx), "--json", "-q"]
    else:
        argv = ["check", str(ptx), str(ptx), "--ref-kernel", pair.ref, "--opt-kernel", pair.opt, "--ref-grid", rg,
                "--ref-block", rb, "--opt-grid", og, "--opt-block", ob, "--args", pair.args, "--json", "-q"]
        if max(rs, os_):
            argv += ["--shared-dynamic", str(max(rs, os_))]   # one size for both sides: the reference takes none
    for b in pair.buffers:
        argv += ["--buffer", b]
    for name in pair.symbols:
        argv += ["--symbol", f"{name}=f32"]
    return argv


def _steps(role: str, steps: tuple, ptx: Path) -> list[str]:
    argv = []
    for step in steps:
        if isinstance(step, str):
            argv += [f"--{role}-step", step]
        else:
            kernel, grid, block, args, *shared = step
            argv += [f"--{role}-launch", f"{ptx}:{kernel} grid={grid} block={block} args={args}"
                                         + (f" shared={shared[0]}" if shared and shared[0] else "")]
    return argv


def run_one(pair: Pair, ptx: Path, timeout: float) -> dict:
    run = run_volta(command(pair, ptx), timeout)
    report = run["report"]
    got = "timeout" if run["timed_out"] else _outcome(report)
    benign = sorted(finding_kinds(report) & BENIGN) if report else []
    return {"name": pair.name, "expect": pair.expect, "got": got, "wall": run["wall"], "cpu": run["cpu"],
            "rss_mb": run["rss_mb"], "listed": ", ".join(benign)}


BENIGN = {"benign-race", "benign-read-race"}   # listed under a verdict, not findings that make it


def _outcome(report: dict | None) -> str:
    """bench_paper's outcome, except that a benign race listed under EQUIVALENT leaves it EQUIVALENT (softmax 7
    reads a clamped y[C-1] that another thread rewrites, into a register it never uses)."""
    if report is not None and not finding_kinds(report) - BENIGN:
        return report.get("verdict", "error")
    return outcome(report)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of karpathy/llm.c")
    parser.add_argument("only", nargs="*", help="run only pairs whose name contains one of these")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per pair (default 600)")
    parser.add_argument("--list", action="store_true", help="print the command lines, run nothing")
    args = parser.parse_intermixed_args(argv)
    if not (args.checkout / "dev" / "cuda").is_dir():
        parser.error(f"{args.checkout}/dev/cuda is not a directory: give a checkout of karpathy/llm.c")
    chosen = [p for p in pairs() if not args.only or any(w in p.name for w in args.only)]
    with tempfile.TemporaryDirectory(prefix="volta-llmc-") as tmp:
        ptx = compile_sources(args.checkout, {p.source for p in chosen}, Path(tmp))
        if args.list:
            for p in chosen:
                print(p.name, "::", "volta", " ".join(command(p, ptx[p.source])))
            return 0
        byte_compile()
        rows = []
        print(f"{'pair (vs version 1)':38s} {'expected':15s} {'got':15s} {'wall s':>8s} {'cpu s':>8s} "
              f"{'peak MB':>8s}  listed")
        for p in chosen:
            row = run_one(p, ptx[p.source], args.timeout)
            rows.append(row)
            mark = "" if row["got"] == row["expect"] else "   <--"
            print(f"{row['name']:38s} {row['expect']:15s} {row['got']:15s} {row['wall']:8.2f} {row['cpu']:8.2f} "
                  f"{row['rss_mb']:8.0f}  {row['listed']}{mark}", flush=True)
    right = sum(r["got"] == r["expect"] for r in rows)
    print(f"\n{len(rows)} pairs: {right} as expected, {len(rows) - right} not; total cpu "
          f"{sum(r['cpu'] for r in rows):.0f} s")
    return 0 if right == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
