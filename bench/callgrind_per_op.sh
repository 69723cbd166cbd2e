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
#   valgrind --tool=callgrind --toggle-collect='direct_*' --toggle-collect='wrapped_*' \
#       --dump-after=direct_X --dump-after=wrapped_X ...    (one dump per loop)
# then reads each loop's counts (callgrind_driver_split.py) and prints, per
# call:
#   direct, wrapped  the two loops' inclusive counts, divided by their calls;
#   overhead         wrapped - direct: what a program pays for gpuguard, if
#                    the driver does the same work in both loops;
#   gpuguard         overhead minus the one driver call every wrapped call
#                    adds (cuCtxGetCurrent, counted alone by direct_get_current,
#                    its loop included): gpuguard's own code, by difference;
#   gate, no plan    wrapped minus the same loop in gg_bench_nogate, the
#                    library built with the fault gate compiled out
#                    (GG_BENCH_NO_FAULT_GATE; built here on demand);
#   drv direct, drv wrapped  the driver's part of each loop: every call from
#                    outside the simulator (libgpuguard_sim_cuda.so) into it,
#                    inclusive (in the wrapped loop, cuCtxGetCurrent too);
#   own              wrapped - drv wrapped - the wrapped loop function's own
#                    instructions: gpuguard's own code counted inside the
#                    wrapped loop alone, whatever the driver costs there. It
#                    differs from "gpuguard" by a few instructions where the
#                    driver does the same work in both loops (the loops' own
#                    code: a direct launch passes eleven arguments; the
#                    45 subtracted for cuCtxGetCurrent include its loop's 5)
#                    and by the difference in the driver's work where not
#                    (alloc + free: the simulator's cuMemFree scans the
#                    contexts in creation order, and the direct loop's
#                    context is the second). Issue 30's budgets are checked
#                    against this column.
set -eu
build=${1:-build}
calls=${2:-20000}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --build "$build" --target gg_bench gg_bench_nogate >/dev/null

# The loops gg_bench runs under --callgrind, in its order ("op direct_X
# wrapped_X calls" lines), from a short run outside valgrind.
"$build/bin/gg_bench" --callgrind 10 >"$work/loops" ||
    { echo "gg_bench --callgrind failed" >&2; exit 1; }
dumps=$(awk '{ printf " --dump-after=%s", $2; if ($3 != "-") printf " --dump-after=%s", $3 }' "$work/loops")

# run NAME MODE: gg_bench variant NAME under callgrind, GPUGUARD_TIMELINE=MODE,
# one dump per loop (collection is on only inside the loops, so each dump
# holds exactly one). Writes $work/NAME.MODE.counts ("op calls direct_Ir
# wrapped_Ir direct_driver_Ir wrapped_driver_Ir wrapped_self_Ir" lines: the
# loops' inclusive counts, the driver's part of each, the wrapped loop
# function's own) and $work/NAME.MODE.get_current ("Ir calls" of the lone
# driver call).
run() {
    out=$work/$1.$2
    # shellcheck disable=SC2086 # $dumps is a list of options
    GPUGUARD_TIMELINE=$2 valgrind --tool=callgrind --callgrind-out-file="$out.cg" \
        --toggle-collect='direct_*' --toggle-collect='wrapped_*' $dumps \
        "$build/bin/$1" --callgrind "$calls" >"$out.loops" 2>"$out.log" ||
        { cat "$out.log" >&2; exit 1; }
    /usr/bin/python3 "$here/callgrind_driver_split.py" libgpuguard_sim_cuda.so "$out.cg".* >"$out.split"
    awk -v gc="$out.get_current" -v counts="$out.counts" '
        NR == FNR { inc[$1] = $2; own[$1] = $3; drv[$1] = $4; next }
        !($2 in inc) || ($3 != "-" && !($3 in inc)) { print "no count for " $2 " or " $3 > "/dev/stderr"; bad = 1; exit }
        $3 == "-" { print inc[$2], $4 > gc; next }
        { print $1, $4, inc[$2], inc[$3], drv[$2], drv[$3], own[$3] > counts }
        END { exit bad }' "$out.split" "$out.loops"
}

# Timeline on (a stream write after every launch: the simulator's default)
# and off; only launches differ, the other ops are the same in both.
for mode in on off; do
    run gg_bench $mode
    run gg_bench_nogate $mode
    read -r gc_ir gc_n <"$work/gg_bench.$mode.get_current"
    echo "instructions per call, timeline $mode (callgrind; $calls calls per loop, fewer for alloc/free and copy; $build)"
    printf '%-16s %8s %8s %9s %9s %14s %12s %12s %7s\n' op direct wrapped overhead gpuguard "gate, no plan" \
        "drv direct" "drv wrapped" own
    paste -d" " "$work/gg_bench.$mode.counts" "$work/gg_bench_nogate.$mode.counts" |
        awk -v gc_ir="$gc_ir" -v gc_n="$gc_n" '
        { n = $2; o = ($4 - $3) / n
          driver_calls = $1 ~ /^alloc_free/ ? 2 : 1 # alloc and free each ask once
          printf "%-16s %8.1f %8.1f %9.1f %9.1f %14.1f %12.1f %12.1f %7.1f\n", $1, $3 / n, $4 / n, o,
                 o - driver_calls * gc_ir / gc_n, ($4 - $11) / n, $5 / n, $6 / n, ($4 - $7 - $6) / n }
        END { printf "(the driver call every wrapped call adds, cuCtxGetCurrent: %.1f instructions here)\n\n", gc_ir / gc_n }'
done
