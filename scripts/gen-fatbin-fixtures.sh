#!/bin/sh
# Regenerates tests/ptx/fixtures/fatbin/ from scale.cu there, with the CUDA
# toolkit's nvcc (CUDA 13.0 made the committed ones). The fixtures are
# committed so CI, which has no toolkit, still tests the fatbin reader
# (tests/sim_fatbin); without nvcc this script says so and changes nothing.
#
#   scale.ptx               nvcc -ptx -arch=compute_75 (the reference text)
#   ptx75_zstd.fatbin       PTX for compute_75, CUDA 13's default: zstd
#   ptx75_size.fatbin       the same, -compress-mode=size (zstd, smaller)
#   ptx75_lz4.fatbin        the same, -compress-mode=speed: an LZ4 block
#   ptx75_none.fatbin       the same, -compress-mode=none: stored text
#   ptx75_debug.fatbin      -G: a 128-byte entry header (file name, options)
#   ptx_multi.fatbin        PTX for compute_75, compute_86 and compute_90
#                           (CUDA 13 has nothing older than compute_75)
#   ptx90a.fatbin           arch-specific PTX, compute_90a
#   ptx100f.fatbin          family-specific PTX, compute_100f
#   sass75_ptx75.fatbin     SASS for sm_75 and PTX for compute_75 (what a
#                           plain nvcc -c embeds for -arch=sm_75)
#   sass75.cubin            nvcc -cubin -arch=sm_75: SASS only
#   sass_multi.fatbin       SASS for sm_75 and sm_86, no PTX
#   sass75_zstd.fatbin      SASS for sm_75 compressed (-compress-mode=size)
#   lto75.fatbin            LTO-IR only (code=lto_75)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/tests/ptx/fixtures/fatbin"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
    echo "gen-fatbin-fixtures: no nvcc (set NVCC=...); fixtures left as they are" >&2
    exit 0
fi
# From inside the folder: -G records the source's name, which must not be
# this checkout's path.
cd "$dir"
# gen OUTPUT NVCC-ARGS...: one fixture.
gen() {
    out=$1
    shift
    "$nvcc" "$@" -o "$out" scale.cu
    echo "tests/ptx/fixtures/fatbin/$out ($(wc -c <"$out") bytes)"
}
gen scale.ptx -ptx -arch=compute_75
gen ptx75_zstd.fatbin -fatbin -gencode arch=compute_75,code=compute_75
gen ptx75_size.fatbin -fatbin -gencode arch=compute_75,code=compute_75 -compress-mode=size
gen ptx75_lz4.fatbin -fatbin -gencode arch=compute_75,code=compute_75 -compress-mode=speed
gen ptx75_none.fatbin -fatbin -gencode arch=compute_75,code=compute_75 -compress-mode=none
gen ptx75_debug.fatbin -fatbin -G -gencode arch=compute_75,code=compute_75
gen ptx_multi.fatbin -fatbin -gencode arch=compute_75,code=compute_75 \
    -gencode arch=compute_86,code=compute_86 -gencode arch=compute_90,code=compute_90
gen ptx90a.fatbin -fatbin -gencode arch=compute_90a,code=compute_90a
gen ptx100f.fatbin -fatbin -gencode arch=compute_100f,code=compute_100f
gen sass75_ptx75.fatbin -fatbin -gencode "arch=compute_75,code=[sm_75,compute_75]"
gen sass75.cubin -cubin -arch=sm_75
gen sass_multi.fatbin -fatbin -gencode arch=compute_75,code=sm_75 -gencode arch=compute_86,code=sm_86
gen sass75_zstd.fatbin -fatbin -gencode arch=compute_75,code=sm_75 -compress-mode=size
gen lto75.fatbin -fatbin -gencode arch=compute_75,code=lto_75
