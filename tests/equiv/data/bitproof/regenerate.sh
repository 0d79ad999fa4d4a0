#!/usr/bin/env bash
# nvcc 13, sm_80: reductions.sm80.ptx, and the same with -ftz=true (every f32 op flushes subnormals).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/bin/nvcc)}
"$NVCC" -ptx -lineinfo -std=c++17 -arch=sm_80 -o reductions.sm80.ptx reductions.cu
"$NVCC" -ptx -lineinfo -std=c++17 -arch=sm_80 -ftz=true -o reductions.ftz.sm80.ptx reductions.cu
"$NVCC" -ptx -lineinfo -std=c++17 -arch=sm_80 -o mma_chain.sm80.ptx mma_chain.cu
"$NVCC" -ptx -lineinfo -std=c++17 -arch=sm_80 -o mma_f16.sm80.ptx mma_f16.cu
