#!/usr/bin/env bash
# Everything that needs real hardware, in one run on a GPU machine (sm_90; needs nvcc, numpy, CuPy and
# compute-sanitizer; no volta). Steps: tensor approx examples sanitizers (default: all). Results go to
# $OUT/results.tgz (the two large .approx files beside it); compare them anywhere with volta installed (examples/probes/README.md, "Whole examples"):
#
#   python3 examples/probes/replay_examples.py plan --out .gpu/plan          # here, before
#   python3 examples/probes/approx_probe.py inputs --out .gpu/approx_in.npz
#   cp /path/to/mma-vectors.json .gpu/                                       # numerics.md's vectors (optional)
#   OUT=... bash examples/probes/gpu_check.sh                                # on the GPU machine
set -u
P=examples/probes
R=/tmp/res
mkdir -p "$R" "${OUT:=/tmp/out}"
STEPS=${*:-tensor approx examples sanitizers}
step() { echo "== $(date +%T) $*"; }
want() { [[ " $STEPS " == *" $1 "* ]]; }
{
step gpu; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
nvcc --version | tail -1

if want tensor; then
  step "tensor cores: derive the parameters, the issue-13 vectors, numerics.md's vectors, 20 GEMM tiles"
  nvcc -O2 -arch=sm_90 -o /tmp/mma_probe $P/mma_probe.cu
  timeout 60 python3 $P/derive.py --probe /tmp/mma_probe --arch hopper --save $R/derive-hopper > $R/derive.txt 2>&1
  echo "derive rc $?"; tail -30 $R/derive.txt
  timeout 40 python3 $P/check_vectors.py --probe /tmp/mma_probe --arch hopper --save $R/vectors-hopper \
      > $R/vectors.txt 2>&1; echo "check_vectors rc $?"; cat $R/vectors.txt
  if [ -f .gpu/mma-vectors.json ]; then
    for fmt in bf16 f16 e4m3 e5m2; do
      python3 -c "import json,sys;[print(','.join(v['a']),';',','.join(v['b']),';',v['c']) for v in json.load(open('.gpu/mma-vectors.json'))['vectors'] if v['in']==sys.argv[1] and v['acc']=='f32' and len(v['a'])<=64]" $fmt > $R/hk-$fmt.txt
      /tmp/mma_probe --in $fmt $R/hk-$fmt.txt > $R/hk-$fmt.gpu 2>&1; echo "hk $fmt rc $? lines $(wc -l < $R/hk-$fmt.gpu)"
    done
  fi
  timeout 60 python3 $P/compare_gemm.py --arch hopper --tiles 20 --out $R/gemm-hopper --gpu-only > $R/gemm.txt 2>&1
  echo "gemm rc $?"; rm -f $R/gemm-hopper/*.bin $R/gemm-hopper/gemm_probe
fi

if want approx; then
  step "special-function unit: .approx instructions (random operands, binade sweeps)"
  timeout 60 python3 $P/approx_probe.py gpu --inputs .gpu/approx_in.npz --out $R/approx_gpu.npz \
      --sweep-out $R/approx_sweeps.npz --exhaustive16-out $R/approx16.npz; echo "approx rc $?"
fi

if want examples; then
  step "examples: every buffer after each case"
  python3 $P/replay_examples.py gpu --plan .gpu/plan --out $R/examples.npz --budget 120 --timeout 15
  echo "examples rc $?"; rm -rf $R/examples.parts
fi

if want sanitizers; then
  skip=(); [ -f $R/examples.json ] && skip=(--skip-from $R/examples.json)
  for tool in memcheck racecheck synccheck initcheck; do
    step "examples under compute-sanitizer --tool $tool"
    python3 $P/replay_examples.py gpu --plan .gpu/plan --out $R/$tool.npz --sanitizer $tool --timeout 30 \
        --budget 70 "${skip[@]}"; echo "$tool rc $?"
    rm -rf $R/$tool.parts $R/$tool.npz
  done
fi
step done
} 2>&1 | tee $OUT/log.txt
cp "$OUT/log.txt" $R/log.txt
for big in approx_gpu.npz approx_sweeps.npz; do [ -f $R/$big ] && mv $R/$big "$OUT/"; done   # 16 MiB a file
tar czf "$OUT/results.tgz" -C /tmp res
