#!/usr/bin/env bash
# The PTX the taint tests read: nvcc 13, sm_80, -lineinfo, local arrays kept in local memory (-O0 on device).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/bin/nvcc)}
"$NVCC" -ptx -lineinfo -std=c++17 -arch=sm_80 -o taint.sm80.ptx taint.cu
