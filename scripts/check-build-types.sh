#!/usr/bin/env bash
# Builds gpuguard (no tests run) in the build types that scripts/test.sh
# does not use, with warnings as errors: gcc's optimiser at -O3 finds
# maybe-uninitialized paths that RelWithDebInfo (-O2) does not (a Release
# build failed on src/sim/sim_config.c this way, issue 29).
#
#   scripts/check-build-types.sh [TYPE...]   default: Release
#
# Each type gets its own tree, build-TYPE/ (lower case).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

types=("$@")
((${#types[@]})) || types=(Release)
gg_ensure_packages "${GG_PACKAGES[@]}"
for type in "${types[@]}"; do
    dir="build-${type,,}"
    GG_BUILD_TYPE="$type" gg_configure "$dir"
    gg_build "$dir"
    gg_log "$type build passed with warnings as errors"
done
