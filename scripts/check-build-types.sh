#!/usr/bin/env bash
# Builds gpuguard (no tests run) in the build types that scripts/test.sh
# does not use, with warnings as errors: gcc's optimiser at -O3 finds
# maybe-uninitialized paths that RelWithDebInfo (-O2) does not (a Release
# build failed on src/sim/core/sim_config.c this way, issue 29).
#
#   scripts/check-build-types.sh [--clang] [TYPE...]   default: gcc, Release
#
# Each type gets its own tree, build-TYPE/ (lower case; build-TYPE-clang/
# with --clang).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

suffix="" compiler_args=()
if [[ "${1:-}" == --clang ]]; then
    suffix=-clang
    compiler_args=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
    shift
fi
types=("$@")
((${#types[@]})) || types=(Release)
gg_ensure_packages "${GG_PACKAGES[@]}"
for type in "${types[@]}"; do
    dir="build-${type,,}$suffix"
    GG_BUILD_TYPE="$type" gg_configure "$dir" "${compiler_args[@]}"
    gg_build "$dir"
    gg_log "$type build${suffix:+ with clang} passed with warnings as errors"
done
