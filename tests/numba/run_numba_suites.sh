#!/bin/sh
# Runs numba's own CUDA test packages (numba.cuda.tests.cudadrv and
# numba.cuda.tests.cudapy, as Debian's python3-numba 0.56 ships them),
# unmodified, over gpuguard's simulated driver (its 11.x face), whose PTX
# interpreter runs the kernels numba compiles with NVVM; then prints passed,
# failed, errors and skipped per package with the failures grouped by cause
# (summarize_numba.py).
#
# Usage: tests/numba/run_numba_suites.sh [--subset] [PACKAGE...]
#   PACKAGE          cudadrv, cudapy (default both)
#   --subset         only the tests subset.txt selects (under a minute),
#                    and fail if one of must_pass.txt did not pass
#   BUILD_DIR        (environment) the build tree; default build/
#   GG_NUMBA_SIM     (environment) the simulator's 11.x face; default
#                    BUILD_DIR/lib/libgpuguard_sim_cuda11.so
#   GG_NUMBA_CUDART_DIR (environment) the stand-in runtime's folder;
#                    default BUILD_DIR/tests/numba/cudart
#   GG_REFEREE_DIR   (environment) default build/referees of the checkout
#   GG_SUITE_TIMEOUT (environment) seconds per package; default 1800
#   GG_TEST_TIMEOUT  (environment) seconds for one test; default 300
# The packages come from scripts/test.sh (or scripts/fetch-referees.sh
# "${GG_NUMBA_REFEREE_PACKAGES[@]}", scripts/common.sh). Results and logs go
# to BUILD_DIR/numba-suites. Exit status: 0 when every test passed or was
# skipped (--subset: when every test of must_pass.txt passed), 1 otherwise,
# 77 when something it needs is missing (with the reason).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage() { sed -n '9,9s/^# \{0,1\}//p' "$0" >&2; exit 2; }
subset=0 packages=""
while [ $# -gt 0 ]; do
    case "$1" in
        --subset) subset=1 ;;
        cudadrv|cudapy) packages="$packages $1" ;;
        *) usage ;;
    esac
    shift
done
packages="${packages:-cudadrv cudapy}"
build="${BUILD_DIR:-$root/build}"
sim="${GG_NUMBA_SIM:-$build/lib/libgpuguard_sim_cuda11.so}"
cudart="${GG_NUMBA_CUDART_DIR:-$build/tests/numba/cudart}"
referees="${GG_REFEREE_DIR:-$root/build/referees}"
limit="${GG_SUITE_TIMEOUT:-1800}"
test_limit="${GG_TEST_TIMEOUT:-300}"
[ -f "$sim" ] || { echo "skipped: no $sim (build the target gpuguard_sim_cuda11)"; exit 77; }

echo "driver: $sim"

work="$build/numba-suites"
[ "$subset" = 1 ] && work="$build/numba-suites-subset"
mkdir -p "$work" || exit 1
results=""
for package in $packages; do
    out="$work/$package.jsonl"
    log="$work/$package.log"
    rm -f "$out"
    set --
    if [ "$subset" = 1 ]; then
        # subset.txt: "PACKAGE REGEX" lines, the tests to run.
        # shellcheck disable=SC2013 # one regex a line, none with spaces
        for pattern in $(awk -v p="$package" '$1 == p { print $2 }' "$here/subset.txt"); do
            set -- "$@" --only "$pattern"
        done
        [ $# -gt 0 ] || continue
    fi
    echo "running numba.cuda.tests.$package (log: $log)"
    # numba_suite.py ends a hung child itself; timeout is the last resort.
    PYTHONDONTWRITEBYTECODE=1 timeout --kill-after=10 "$((limit + 60))" \
        sh "$here/with_numba.sh" "$referees" "$sim" "$cudart" "$work/env" \
        /usr/bin/python3 "$here/numba_suite.py" run "$out" "numba.cuda.tests.$package" \
        --limit "$limit" --test-limit "$test_limit" "$@" >"$log" 2>&1
    status=$?
    case $status in
        77) cat "$log"; exit 77 ;;
        124|137) echo "$package: stopped after $((limit + 60)) s (see the log)" ;;
    esac
    [ -s "$out" ] || { echo "$package: no results (exit $status); the log:"; tail -n 20 "$log"; exit 1; }
    results="$results $out"
done
if [ "$subset" = 1 ]; then
    # shellcheck disable=SC2086 # one word per file
    /usr/bin/python3 "$here/summarize_numba.py" --must-pass "$here/must_pass.txt" $results
else
    # shellcheck disable=SC2086 # one word per file
    /usr/bin/python3 "$here/summarize_numba.py" $results
fi
