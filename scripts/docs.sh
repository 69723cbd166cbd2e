#!/usr/bin/env bash
# Builds the API reference with Doxygen into build/docs/html (open
# build/docs/html/index.html): the contract of every function of the public
# headers (include/gpuguard/), with README.md as the main page and the
# examples' READMEs as pages. Installs Debian's doxygen if missing (needs
# root or sudo). Doxygen's warnings go to build/docs/doxygen-warnings.log.
#
#   scripts/docs.sh
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

gg_ensure_packages doxygen
cd "$GG_ROOT"
mkdir -p build/docs
inputs=(include/gpuguard/gpuguard.h include/gpuguard/sim_kernel.h include/gpuguard/gg_sim_control.h README.md
        docs/DRIVER-FACTS.md docs/HIP-ABI-FACTS.md bench/README.md)
for readme in examples/*/README.md; do
    [[ -f "$readme" ]] && inputs+=("$readme")
done
gg_log "building the reference from ${inputs[*]}"
# The Doxyfile's settings, then this run's inputs (a later line wins).
# The main page by its full path: the examples' files are README.md too.
rm -rf build/docs/html build/docs/doxygen-warnings.log
{ cat docs/Doxyfile; printf 'INPUT = %s\n' "${inputs[*]}"
  printf 'USE_MDFILE_AS_MAINPAGE = %s\n' "$GG_ROOT/README.md"; } | doxygen -
[[ -f build/docs/html/index.html ]] || gg_die "doxygen wrote no build/docs/html/index.html"
grep -q "gg_launch_chunked" build/docs/html/*.html ||
    gg_die "the reference does not document gg_launch_chunked: see build/docs/doxygen-warnings.log"
gg_log "reference: build/docs/html/index.html ($(find build/docs/html -name '*.html' | wc -l) pages;" \
       "warnings in build/docs/doxygen-warnings.log)"
