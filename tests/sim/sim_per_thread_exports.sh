#!/bin/sh
# The simulator's per-thread default stream exports (_ptsz, _ptds) against
# a real driver's, GG_REAL_LIBCUDA (Debian's libcuda, set by
# tests/cuda/real_libcuda.sh, which skips with 77 without it): each CUDA
# library must export no per-thread form the real driver lacks, and every
# one the real driver has whose legacy function the library exports.
# Usage: sim_per_thread_exports.sh SIM_LIBRARY...
set -u
exports() { nm -D --defined-only "$1" | awk '{ print $3 }' | sort -u; }
per_thread() { grep -E '_pt(ds|sz)$'; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
exports "$GG_REAL_LIBCUDA" | per_thread > "$work/real" || exit 1
count=$(wc -l < "$work/real")
if [ "$count" -lt 40 ]; then
    echo "FAIL: $GG_REAL_LIBCUDA lists only $count per-thread forms: not a driver library?"
    exit 1
fi
status=0
for lib in "$@"; do
    exports "$lib" > "$work/all" || exit 1
    per_thread < "$work/all" > "$work/sim"
    extra=$(comm -13 "$work/real" "$work/sim")
    if [ -n "$extra" ]; then
        echo "FAIL: $lib exports per-thread forms the real driver does not:" $extra
        status=1
    fi
    # The real driver's forms whose legacy function this library exports.
    sed -E 's/_pt(ds|sz)$//' "$work/real" > "$work/bases"
    paste -d' ' "$work/real" "$work/bases" | while read -r form base; do
        grep -qx "$base" "$work/all" && echo "$form"
    done | sort > "$work/want"
    missing=$(comm -23 "$work/want" "$work/sim")
    if [ -n "$missing" ]; then
        echo "FAIL: $lib exports the legacy function but not these forms the real driver has:" \
             $missing
        status=1
    fi
    echo "$lib: $(wc -l < "$work/sim") per-thread forms of the real driver's $count"
done
exit $status
