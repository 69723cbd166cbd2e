#!/bin/sh
# Regenerates tests/ptx/fixtures/*.ptx from tests/ptx/kernels/*.cu, and the
# examples' committed PTX (examples/NAME/kernels/NAME.ptx), with the
# CUDA toolkit's nvcc (-ptx -arch=compute_75, what the interpreter targets).
# The fixtures are committed so CI, which has no toolkit, still runs the PTX
# tests; without nvcc this script says so and changes nothing.
# half_numba_like.ptx has no .cu: it is written by hand in the shape numba's
# float16 lowering takes, and this script leaves it alone.
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
# The examples' kernels too: their committed PTX is what the simulator runs
# on machines without nvcc (cmake/GgHelpers.cmake, gg_add_gpu_kernel_images).
for example in render vector_add dead_context; do
    dir="$root/examples/$example"
    mkdir -p "$dir/kernels"
    (cd "$dir" && "$nvcc" -ptx -arch=compute_75 -o "kernels/$example.ptx" "$example.cu")
    echo "examples/$example/kernels/$example.ptx"
done
# gpu_check's kernels as PTX: what gg_gpu_check --backend sim runs when the
# build has no nvcc to make gpu_check.fatbin (tests/gpu/CMakeLists.txt).
(cd "$root/tests/gpu/kernels" && "$nvcc" -ptx -arch=compute_75 -o gpu_check.ptx gpu_check.cu)
echo "tests/gpu/kernels/gpu_check.ptx"
