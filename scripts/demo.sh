#!/usr/bin/env bash
# Builds gpuguard into build/ and runs the main demo, build/bin/render: a
# Mandelbrot render on device 0 that first shows the display watchdog killing
# an unchunked launch (the context dies, the kernel is named, gpuguard
# recovers it), then renders in watchdog-safe slices and writes render.png.
# It runs on a real GPU when a CUDA or HIP driver is found, else on the
# simulated driver. Arguments go to render (see build/bin/render --help).
# Installs missing Debian packages first (needs root or sudo).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

gg_ensure_packages "${GG_PACKAGES[@]}"
gg_configure build
gg_build build

gg_log "running build/bin/render $*"
exec "$GG_ROOT/build/bin/render" "$@"
