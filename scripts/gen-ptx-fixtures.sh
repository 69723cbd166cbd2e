#!/bin/sh
# Regenerates tests/ptx/fixtures/*.ptx from tests/ptx/kernels/*.cu with the
# CUDA toolkit's nvcc (-ptx -arch=compute_75, what the interpreter targets).
# The fixtures are committed so CI, which has no toolkit, still runs the PTX
# tests; without nvcc this script says so and changes nothing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
    echo "gen-ptx-fixtures: no nvcc (set NVCC=...); fixtures left as they are" >&2
    exit 0
fi
# From the kernels' folder, so that the file names nvcc embeds (assert's
# message) are the bare names, not this checkout's path.
cd "$root/tests/ptx/kernels"
for cu in *.cu; do
    name=$(basename "$cu" .cu)
    "$nvcc" -ptx -arch=compute_75 -o "$root/tests/ptx/fixtures/$name.ptx" "$cu"
    echo "tests/ptx/fixtures/$name.ptx"
done
