#!/usr/bin/env bash
# scripts/demo.sh as a user runs it, over the simulator's HIP face: its own
# build tree (WORK_DIR, through GG_DEMO_DIR), holding only what the demo
# builds, then the render, whose output the ctest checks (the watchdog kill,
# the named kernel, the recovery, the chunked image). Then the same image
# from the CUDA face of that tree's simulator: the two PNGs must be the same
# bytes, so the HIP face's image is not only complete but right.
#   check_demo.sh SOURCE_DIR WORK_DIR
# Each step has its own time limit (timeout kills the step's whole process
# group: the build's compilers too), under the ctest's TIMEOUT.
set -euo pipefail
src=$1 work=$2
# As examples/render's ctests: about 6 s of device time, so that the 2 s
# watchdog kills the unchunked launch even on a machine 3x faster than CI's.
args=(--width 600 --height 450 --iterations 60000)
rm -f "$work/hip.png" "$work/cuda.png"

GG_DEMO_DIR="$work" GPUGUARD_BACKEND=sim-hip \
    timeout -k 5 240 "$src/scripts/demo.sh" "${args[@]}" --output "$work/hip.png"

if ! GPUGUARD_BACKEND=sim timeout -k 5 60 "$work/bin/render" "${args[@]}" --no-unchunked-demo \
        --output "$work/cuda.png" > "$work/cuda.log" 2>&1; then
    cat "$work/cuda.log"
    echo "check_demo: the CUDA face's render failed" >&2
    exit 1
fi
if ! cmp "$work/hip.png" "$work/cuda.png"; then
    echo "check_demo: the HIP face's image differs from the CUDA face's" >&2
    exit 1
fi
echo "demo check passed: the HIP face's image is the CUDA face's, byte for byte"
