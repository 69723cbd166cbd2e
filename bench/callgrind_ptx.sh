#!/bin/sh
# Host instructions per simulated thread-instruction of the PTX
# interpreter, counted by callgrind: a figure the machine's noise does not
# touch.
#
#   bench/callgrind_ptx.sh [BUILD_DIR]        (default: build)
#
# Runs `bench_ptx_interp --callgrind`, which runs each kernel's small fixed
# workload once inside its own noinline function cg_NAME and prints
# "NAME cg_NAME thread_insns", under
#   valgrind --tool=callgrind --toggle-collect='cg_*'
# then reads each function's inclusive count (callgrind_annotate
# --inclusive=yes) and prints Ir / thread-instructions.
set -eu
build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --build "$build" --target bench_ptx_interp >/dev/null
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" --toggle-collect='cg_*' \
    "$build/bin/bench_ptx_interp" --callgrind >"$work/runs" 2>"$work/log" ||
    { cat "$work/log" "$work/runs" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.out" >"$work/txt"
echo "host instructions per thread-instruction (callgrind; $build)"
printf '%-13s %14s %14s %10s\n' kernel Ir thread-insns 'Ir/insn'
while read -r name fn insns; do
    # Lines look like "12,345,678 (12.34%)  bench/ptx_interp.c:cg_render [...]".
    ir=$(awk -v f=":$fn" 'index($0, f " [") { gsub(",", "", $1); print $1; exit }' "$work/txt")
    awk -v n="$name" -v ir="${ir:?no count for $fn}" -v t="$insns" \
        'BEGIN { printf "%-13s %14d %14d %10.2f\n", n, ir, t, ir / t }'
done <"$work/runs"
