#!/usr/bin/env bash
# Builds gpuguard into build/ and runs the vector_add example on device 0:
# a real GPU when a CUDA or HIP driver is found, else the simulated driver.
# Arguments are passed to the example (e.g. --n 4096, --device 1).
# Installs missing Debian packages first (needs root or sudo).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

gg_ensure_packages "${GG_PACKAGES[@]}"
gg_configure build
gg_build build

gg_log "running build/bin/vector_add $*"
exec "$GG_ROOT/build/bin/vector_add" "$@"
