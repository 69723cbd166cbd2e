#!/usr/bin/env bash
# scripts/demo.sh as a user runs it, over the simulator's HIP face: its own
# build tree (WORK_DIR, through GG_DEMO_DIR), holding only what the demo
# builds, then the render, whose output the ctest checks (the watchdog kill,
# the named kernel, the recovery, the chunked image). Then one image drawn
# twice on the compute GPU (no watchdog) of that tree's simulator: by the
# HIP face, which runs the kernel's C twin, and by the CUDA face, which
# interprets the PTX nvcc made of render.cu. The two PNGs must be the same
# bytes: the twin is right, and so is the interpreter on nvcc's code
# (double arithmetic with fused multiply-adds, nvcc's own log and log2).
#   check_demo.sh SOURCE_DIR WORK_DIR
# Each step has its own time limit (timeout kills the step's whole process
# group: the build's compilers too), under the ctest's TIMEOUT.
set -euo pipefail
src=$1 work=$2
# As examples/render's HIP ctest: about 6 s of device time, so that the 2 s
# watchdog kills the unchunked launch even on a machine 3x faster than CI's.
args=(--width 600 --height 450 --iterations 60000)
rm -f "$work/hip.png" "$work/twin.png" "$work/ptx.png"

GG_DEMO_DIR="$work" GPUGUARD_BACKEND=sim-hip \
    timeout -k 5 240 "$src/scripts/demo.sh" "${args[@]}" --output "$work/hip.png"

# The PTX is interpreted: an image the host draws in about 2 s.
same=(--device 1 --width 800 --height 600 --iterations 2000 --no-unchunked-demo)
for face in sim-hip:twin sim:ptx; do
    if ! GPUGUARD_BACKEND="${face%%:*}" timeout -k 5 60 "$work/bin/render" "${same[@]}" \
            --output "$work/${face#*:}.png" > "$work/${face#*:}.log" 2>&1; then
        cat "$work/${face#*:}.log"
        echo "check_demo: render over ${face%%:*} failed" >&2
        exit 1
    fi
done
if ! grep -q "kernel: render.ptx" "$work/ptx.log"; then
    cat "$work/ptx.log"
    echo "check_demo: the CUDA face did not run render.ptx" >&2
    exit 1
fi
if ! cmp "$work/twin.png" "$work/ptx.png"; then
    echo "check_demo: the C twin's image (HIP face) differs from the PTX's (CUDA face)" >&2
    exit 1
fi
echo "demo check passed: the C twin's image is the real kernel's PTX's, byte for byte"
