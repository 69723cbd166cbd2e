#!/bin/sh
# The interposer a program gets through `gpuguard run` presents no wrapped
# driver function the driver beneath lacks (src/intercept/README.md, "Which
# functions it presents"), each bound checked from both sides: over the
# simulator's 11.x face none of the line functions (cuCtxGetDevice works),
# over its 13.0 face all of them (cuCtxGetDevice_v2 works), over Debian's
# 535 (12.2) driver cuGetProcAddress_v2 but not cuFuncGetParamInfo (12.4);
# GPUGUARD_INTERCEPT_LINE chooses a variant (cuda12.8: cuEventElapsedTime_v2
# but not cuCtxGetDevice_v2), and an unknown one is refused.
# The 535 driver: GG_REAL_LIBCUDA, else where scripts/fetch-referees.sh
# unpacks it under REFEREE_DIR; without it that case is said to be unchecked.
# Usage: test_intercept_lines.sh GPUGUARD PROBE SIM_CUDA SIM_CUDA11 [REFEREE_DIR]
set -u
[ $# -ge 4 ] || { echo "usage: $0 GPUGUARD PROBE SIM_CUDA SIM_CUDA11 [REFEREE_DIR]" >&2; exit 2; }
tool=$1 probe=$2 sim=$3 sim11=$4 real=${GG_REAL_LIBCUDA:-}
if [ -z "$real" ] && [ $# -ge 5 ]; then
    for lib in "$5"/libcuda1/usr/lib/*/nvidia/current/libcuda.so.1; do
        [ -f "$lib" ] && real=$lib && break
    done
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
unset GPUGUARD_INTERCEPT_DRIVER GPUGUARD_INTERCEPT_LINE GPUGUARD_CUDA_LIBRARY LD_LIBRARY_PATH
export GPUGUARD_BACKEND=sim
failed=0
# run NAME VARIANT DRIVER ARGS...: gpuguard run -v --driver DRIVER PROBE ARGS
# passes, and says it chose VARIANT.
run() {
    name=$1 variant=$2 driver=$3
    shift 3
    if "$tool" run -v --driver "$driver" -- "$probe" "$@" > "$work/out" 2> "$work/err" &&
        grep -q "(variant $variant: " "$work/err"; then
        echo "ok: $name"
    else
        echo "FAILED: $name"
        cat "$work/out" "$work/err"
        failed=1
    fi
}
line_functions="cuGetProcAddress_v2 cuFuncGetParamInfo cuCtxCreate_v4 cuEventElapsedTime_v2 cuCtxGetDevice_v2 cuCtxSynchronize_v2"
absent="" present=""
for f in $line_functions; do absent="$absent -$f" present="$present +$f"; done
# shellcheck disable=SC2086 # the lists are words on purpose
run "11.x face: no line function, cuCtxGetDevice works" cuda11 "$sim11" --call +cuCtxGetDevice $absent
# shellcheck disable=SC2086
run "13.0 face: every line function, cuCtxGetDevice_v2 works" full "$sim" --call +cuCtxGetDevice $present
GPUGUARD_INTERCEPT_LINE=cuda12.8 run "override cuda12.8 over the 13.0 face" cuda12.8 "$sim" \
    +cuEventElapsedTime_v2 +cuCtxCreate_v4 -cuCtxGetDevice_v2 -cuCtxSynchronize_v2
GPUGUARD_INTERCEPT_LINE=full run "override full over the 11.x face" full "$sim11" +cuCtxGetDevice_v2
if GPUGUARD_INTERCEPT_LINE=cuda14 "$tool" run --driver "$sim" -- "$probe" +cuInit > "$work/out" 2> "$work/err"; then
    echo "FAILED: an unknown GPUGUARD_INTERCEPT_LINE was accepted"
    failed=1
elif grep -q "GPUGUARD_INTERCEPT_LINE=cuda14: not a variant" "$work/err"; then
    echo "ok: an unknown GPUGUARD_INTERCEPT_LINE is refused"
else
    echo "FAILED: an unknown GPUGUARD_INTERCEPT_LINE: not the message expected"
    cat "$work/err"
    failed=1
fi
if [ -n "$real" ] && [ -f "$real" ]; then
    # Only looked up, never called: no GPU here.
    run "Debian's 535 driver (12.2): cuGetProcAddress_v2, not cuFuncGetParamInfo" cuda12.0 "$real" \
        +cuGetProcAddress_v2 +cuCtxGetDevice -cuFuncGetParamInfo -cuCtxCreate_v4 -cuCtxGetDevice_v2
else
    echo "not checked: Debian's 535 driver is not fetched (scripts/fetch-referees.sh libcuda1)"
fi
exit $failed
