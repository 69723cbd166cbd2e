#!/bin/sh
# Regenerates bench/kernels/big_module.ptx (a large, realistic PTX module
# for `bench_ptx_interp --load`) from bench/kernels/big_module.cu with the
# CUDA toolkit's nvcc, as scripts/gen-ptx-fixtures.sh does the fixtures.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
    echo "gen-big-ptx: no nvcc (set NVCC=...); big_module.ptx left as it is" >&2
    exit 0
fi
cd "$root/bench/kernels"
"$nvcc" -ptx -arch=compute_75 -o big_module.ptx big_module.cu
echo "bench/kernels/big_module.ptx: $(wc -c <big_module.ptx) bytes"
