#!/usr/bin/env bash
# Regenerate every PTX file of the examples corpus and the parse corpus.
# Usage: examples/regenerate.sh            (from anywhere; needs nvcc 13 on PATH or at /usr/local/bin/nvcc)
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/bin/nvcc)}
FLAGS=(-ptx -lineinfo -std=c++17)
# cuRAND cases include <curand_kernel.h>, which a CUDA toolkit may lack: `pip install nvidia-curand` ships it
# (nvidia/cu13/include), or point CURAND_INCLUDE at the headers.
CURAND_INCLUDE=${CURAND_INCLUDE:-$(python3 -c 'import nvidia, os
for p in nvidia.__path__:
    d = os.path.join(p, "cu13", "include")
    if os.path.isfile(os.path.join(d, "curand_kernel.h")):
        print(d)
        break' 2>/dev/null || true)}
if [ -n "$CURAND_INCLUDE" ]; then FLAGS+=(-I"$CURAND_INCLUDE"); fi

# Which architectures a case is built for: manifest `arch = "sm_90a"` -> sm_90a only,
# `arch = "sm_90"` -> sm_90 only, otherwise sm_80 and sm_90.
archs_for() {
  local a
  a=$(sed -n 's/^arch *= *"\(sm_[0-9a-z]*\)".*/\1/p' "$1/manifest.toml" | head -1)
  case "$a" in
    sm_90a) echo "90a" ;;
    sm_90)  echo "90" ;;
    *)      echo "80 90" ;;
  esac
}

# Optional arguments: case directories to rebuild (default: all); "parse-corpus" rebuilds the parse corpus.
if [ $# -gt 0 ]; then CASES=("$@"); else CASES=(*/ parse-corpus); fi
DO_PC=0
for dir in "${CASES[@]}"; do
  dir=${dir%/}
  if [ "$dir" = parse-corpus ]; then DO_PC=1; continue; fi
  [ -f "$dir/manifest.toml" ] || continue
  # a manifest's `nvcc_flags = ["-G"]` adds flags for that case (struct_big_O0: no optimization)
  EXTRA=()
  while read -r f; do [ -n "$f" ] && EXTRA+=("$f"); done < <(sed -n 's/^nvcc_flags *= *\[\([^]]*\)\].*/\1/p' \
    "$dir/manifest.toml" | tr ',' '\n' | sed 's/^ *"\(.*\)" *$/\1/')
  for src in kernel ref opt; do
    [ -f "$dir/$src.cu" ] || continue
    rm -f "$dir/$src".sm*.ptx
    # a source may ask for more flags on a line of its own: `// nvcc-flags: --use_fast_math`
    read -r -a EXTRA <<< "$(sed -n 's|^// nvcc-flags: *||p' "$dir/$src.cu" | head -1)"
    for a in $(archs_for "$dir"); do
      "$NVCC" "${FLAGS[@]}" ${EXTRA[@]+"${EXTRA[@]}"} -arch=sm_$a -o "$dir/$src.sm$a.ptx" "$dir/$src.cu"
    done
  done
  echo "built $dir"
done

[ "$DO_PC" = 1 ] || exit 0
# Parse corpus: odd compilation modes and PTX constructs; no manifests.
PC=parse-corpus
mkdir -p "$PC"
rm -f "$PC"/*.ptx
for k in vector_add reduce_shuffle gemm_tiled softmax_online layernorm gemm_mma_sync attention_flash; do
  for a in 80 90; do
    "$NVCC" -ptx -std=c++17 -G            -arch=sm_$a -o "$PC/${k}.G.sm$a.ptx"        "$k/kernel.cu"
    "$NVCC" -ptx -std=c++17 -lineinfo --use_fast_math -arch=sm_$a -o "$PC/${k}.fastmath.sm$a.ptx" "$k/kernel.cu"
    "$NVCC" -ptx -std=c++17               -arch=sm_$a -o "$PC/${k}.nolineinfo.sm$a.ptx" "$k/kernel.cu"
  done
done
for src in "$PC"/*.cu; do
  b=$(basename "$src" .cu)
  for a in 80 90; do
    "$NVCC" "${FLAGS[@]}" -arch=sm_$a -o "$PC/$b.sm$a.ptx" "$src"
  done
  "$NVCC" -ptx -std=c++17 -G -arch=sm_80 -o "$PC/$b.G.sm80.ptx" "$src"
done
echo "parse corpus done"
