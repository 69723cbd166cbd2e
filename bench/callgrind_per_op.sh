#!/bin/sh
# Instructions per call that gpuguard adds, counted by callgrind: a figure
# that does not depend on the machine's noise.
#
#   bench/callgrind_per_op.sh [BUILD_DIR] [CALLS]     (defaults: build 20000)
#
# Runs `gg_bench --callgrind CALLS` twice, with GPUGUARD_TIMELINE=on and
# =off (a table for each), which calls each direct_X and wrapped_X
# loop exactly once (CALLS calls; a tenth for alloc/free, a quarter for the
# copy) and prints "op direct_X wrapped_X calls" for each, under
#   valgrind --tool=callgrind --toggle-collect='direct_*' --toggle-collect='wrapped_*'
# then reads each loop's inclusive count (callgrind_annotate --inclusive=yes)
# and prints, per call:
#   direct, wrapped  the two loops, divided by their calls;
#   overhead         wrapped - direct: what a program pays for gpuguard;
#   gpuguard         overhead minus the one driver call every wrapped call
#                    adds (cuCtxGetCurrent, counted alone by direct_get_current):
#                    gpuguard's own code;
#   gate, no plan    wrapped minus the same loop in gg_bench_nogate, the
#                    library built with the fault gate compiled out
#                    (GG_BENCH_NO_FAULT_GATE; built here on demand).
set -eu
build=${1:-build}
calls=${2:-20000}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --build "$build" --target gg_bench gg_bench_nogate >/dev/null

# run NAME MODE: gg_bench variant NAME under callgrind, GPUGUARD_TIMELINE=MODE.
# Writes $work/NAME.MODE.counts ("op calls direct_Ir wrapped_Ir" lines) and
# $work/NAME.MODE.get_current ("Ir calls" of the lone driver call).
run() {
    out=$work/$1.$2
    GPUGUARD_TIMELINE=$2 valgrind --tool=callgrind --callgrind-out-file="$out.cg" \
        --toggle-collect='direct_*' --toggle-collect='wrapped_*' \
        "$build/bin/$1" --callgrind "$calls" >"$out.loops" 2>"$out.log" ||
        { cat "$out.log" >&2; exit 1; }
    callgrind_annotate --inclusive=yes --threshold=100 "$out.cg" >"$out.txt"
    : >"$out.counts"
    while read -r op direct wrapped n; do
        # Lines look like "12,345,678 (12.34%)  bench/gg_bench.c:wrapped_launch [...]".
        d=$(awk -v f=":$direct" 'index($0, f " [") { gsub(",", "", $1); print $1; exit }' "$out.txt")
        if [ "$wrapped" = - ]; then
            echo "${d:?no count for $direct} $n" >"$out.get_current"
            continue
        fi
        w=$(awk -v f=":$wrapped" 'index($0, f " [") { gsub(",", "", $1); print $1; exit }' "$out.txt")
        echo "$op $n ${d:?no count for $direct} ${w:?no count for $wrapped}" >>"$out.counts"
    done <"$out.loops"
}

# Timeline on (a stream write after every launch: the simulator's default)
# and off; only launches differ, the other ops are the same in both.
for mode in on off; do
    run gg_bench $mode
    run gg_bench_nogate $mode
    read -r gc_ir gc_n <"$work/gg_bench.$mode.get_current"
    echo "instructions per call, timeline $mode (callgrind; $calls calls per loop, fewer for alloc/free and copy; $build)"
    printf '%-16s %8s %8s %9s %9s %14s\n' op direct wrapped overhead gpuguard "gate, no plan"
    paste -d" " "$work/gg_bench.$mode.counts" "$work/gg_bench_nogate.$mode.counts" |
        awk -v gc_ir="$gc_ir" -v gc_n="$gc_n" '
        { n = $2; o = ($4 - $3) / n
          driver_calls = $1 ~ /^alloc_free/ ? 2 : 1 # alloc and free each ask once
          printf "%-16s %8.1f %8.1f %9.1f %9.1f %14.1f\n", $1, $3 / n, $4 / n, o, o - driver_calls * gc_ir / gc_n,
                 ($4 - $8) / n }
        END { printf "(the driver call every wrapped call adds, cuCtxGetCurrent: %.1f instructions here)\n\n", gc_ir / gc_n }'
done
