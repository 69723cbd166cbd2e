#!/usr/bin/env bash
# Builds the API reference with Doxygen into build/docs/html (open
# build/docs/html/index.html): the contract of every function of the public
# headers (include/gpuguard/), every status, enum value and struct field,
# the shared contract and sim_kernel.h's guide as pages, with README.md as
# the main page and the examples' READMEs as pages. Then checks that every
# public status, enum value and struct field is in it, with its text
# (tools/docs/check_reference.py). Installs Debian's doxygen if missing
# (needs root or sudo). Doxygen's warnings go to OUT_DIR/doxygen-warnings.log.
#
#   scripts/docs.sh [OUT_DIR]     (default: build/docs; ctest gives its own build tree's)
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

gg_ensure_packages doxygen
cd "$GG_ROOT"
out=${1:-build/docs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
headers=(include/gpuguard/gpuguard.h include/gpuguard/sim_kernel.h include/gpuguard/gg_sim_control.h)
# gg_status is generated from GG_STATUS_LIST (the Doxyfile expands it); each
# status's text is its message there, given to Doxygen as a \var block.
sed -n 's/^ *X(\([A-Z_]*\), *\([0-9]*\), *"\(.*\)").*/\/** \\var GG_\1\n \3 (\2). *\//p' \
    include/gpuguard/gpuguard.h > "$out/statuses.dox"
[[ -s "$out/statuses.dox" ]] || gg_die "no status found in GG_STATUS_LIST (include/gpuguard/gpuguard.h)"
inputs=("${headers[@]}" "$out/statuses.dox" README.md docs/DRIVER-FACTS.md docs/HIP-ABI-FACTS.md bench/README.md)
for readme in examples/*/README.md docs/CONTRIBUTING.md; do
    [[ -f "$readme" ]] && inputs+=("$readme")
done
gg_log "building the reference from ${inputs[*]}"
# The Doxyfile's settings, then this run's inputs and output (a later line
# wins). The main page by its full path: the examples' files are README.md too.
rm -rf "$out/html" "$out/doxygen-warnings.log"
{ cat docs/Doxyfile; printf 'INPUT = %s\n' "${inputs[*]}"
  printf 'OUTPUT_DIRECTORY = %s\nWARN_LOGFILE = %s\n' "$out" "$out/doxygen-warnings.log"
  printf 'USE_MDFILE_AS_MAINPAGE = %s\n' "$GG_ROOT/README.md"; } | doxygen -
[[ -f "$out/html/index.html" ]] || gg_die "doxygen wrote no $out/html/index.html"
grep -q "gg_launch_chunked" "$out"/html/*.html ||
    gg_die "the reference does not document gg_launch_chunked: see $out/doxygen-warnings.log"
for page in contract sim_kernels; do
    [[ -f "$out/html/$page.html" ]] || gg_die "the reference has no page $page"
done
# The guide's examples, verbatim (code blocks, not reflowed text).
sed 's/<[^>]*>//g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g; s/&quot;/"/g' "$out/html/sim_kernels.html" > "$out/sim_kernels.txt"
grep -qxF 'GG_SIM_KERNEL(saxpy) { float a = GG_SIM_PARAM(b, float, 0); ... }' "$out/sim_kernels.txt" ||
    gg_die "sim_kernel.h's example is not verbatim in $out/html/sim_kernels.html"
/usr/bin/python3 tools/docs/check_reference.py --html "$out/html" "${headers[@]}" ||
    gg_die "the reference lacks what the headers declare (above)"
gg_log "reference: $out/html/index.html ($(find "$out/html" -name '*.html' | wc -l) pages;" \
       "warnings in $out/doxygen-warnings.log)"
