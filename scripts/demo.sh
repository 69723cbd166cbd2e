#!/usr/bin/env bash
# Builds what the main demo needs into build-demo/ (the library, both faces
# of the simulated driver and build-demo/bin/render; no tests, no
# benchmarks) and runs it: a Mandelbrot render on device 0 that first shows
# the display watchdog killing an unchunked launch in a worker process (the
# context dies, the kernel is named; on CUDA the error poisons the process,
# so the render continues in a new one; on HIP the context is recovered),
# then renders in watchdog-safe slices and writes build-demo/render.png
# (pass --output PATH to write it elsewhere). It runs on a real GPU when a
# CUDA or HIP driver is found, else on the simulated driver;
# GPUGUARD_BACKEND=sim or sim-hip picks the
# simulator's CUDA or HIP face. Arguments go to render (see
# build-demo/bin/render --help).
# GG_DEMO_DIR=PATH builds elsewhere (relative paths are taken from the
# repository root; the ctest demo_sim_hip uses its own).
# The build is quiet: its output goes to build-demo/demo-build.log, shown
# only if it fails. Installs the Debian packages the build needs if missing
# (needs root or sudo).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Its own tree: configuring build/ without tests would turn them off for
# scripts/test.sh, which reuses build/.
dir="${GG_DEMO_DIR:-build-demo}"
# common.sh's functions take a folder relative to the repository root.
if [[ "$dir" == /* ]]; then
    dir="$(realpath -m --relative-to="$GG_ROOT" "$dir")"
fi
gg_ensure_packages "${GG_DEMO_PACKAGES[@]}"
mkdir -p "$GG_ROOT/$dir"
log="$GG_ROOT/$dir/demo-build.log"
gg_log "building the demo into $dir (log: $dir/demo-build.log)"
# render depends on both faces of the simulator (examples/render), so the
# one target is all there is to build.
if ! { gg_configure "$dir" -DGG_BUILD_TESTS=OFF -DGG_BUILD_GPU_CHECK=OFF &&
       gg_build "$dir" --target render; } > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    gg_die "the demo's build failed; the whole log is $dir/demo-build.log"
fi

# The image goes into the build tree unless the caller says where.
args=("$@")
output_given=false
for arg in "${args[@]}"; do
    [[ "$arg" == --output || "$arg" == --output=* ]] && output_given=true
done
$output_given || args+=(--output "$GG_ROOT/$dir/render.png")

gg_log "running $dir/bin/render ${args[*]}"
exec "$GG_ROOT/$dir/bin/render" "${args[@]}"
