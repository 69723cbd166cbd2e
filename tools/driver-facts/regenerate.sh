#!/usr/bin/env bash
# Regenerates sticky_kernels.ptx, memory_kernels.ptx and limits_kernels.ptx from their .cu with the CUDA
# toolkit's nvcc (compute_75 PTX: every GPU since Turing JIT-compiles it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
[[ -x "$nvcc" ]] || { echo "regenerate.sh: nvcc not found (set NVCC)" >&2; exit 1; }
"$nvcc" -ptx -arch=compute_75 -o "$here/sticky_kernels.ptx" "$here/sticky_kernels.cu"
echo "wrote $here/sticky_kernels.ptx"
"$nvcc" -ptx -arch=compute_75 -o "$here/memory_kernels.ptx" "$here/memory_kernels.cu"
echo "wrote $here/memory_kernels.ptx"
"$nvcc" -ptx -arch=compute_75 -o "$here/limits_kernels.ptx" "$here/limits_kernels.cu"
echo "wrote $here/limits_kernels.ptx"
