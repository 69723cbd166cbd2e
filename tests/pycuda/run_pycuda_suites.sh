#!/bin/sh
# Runs PyCUDA's own test files (test_driver.py, test_gpuarray.py,
# test_cumath.py) unmodified, with Debian's PyCUDA, over gpuguard's simulated
# driver, whose PTX interpreter runs the kernels PyCUDA compiles; then prints
# passed, failed and skipped per file with the reasons (summarize_suites.py).
#
# Usage: tests/pycuda/run_pycuda_suites.sh PYCUDA_CHECKOUT [PYTEST_ARGS...]
#   PYCUDA_CHECKOUT  a PyCUDA source tree at the version Debian ships
#                    (git tag v2022.2.2); its test files are not packaged.
#                    Fetch it, never commit its files.
#   BUILD_DIR        (environment) the build tree holding
#                    lib/libgpuguard_sim_cuda.so; default build/
#   GG_SUITES        (environment) which files; default the three above
#   GG_SUITE_TIMEOUT (environment) seconds per file; default 1200
# Needs the CUDA toolkit's nvcc (PyCUDA compiles its kernels with it; the
# wrapper in nvcc-ptx/ makes it emit PTX, see there) and the referees
# scripts/test.sh fetches into build/referees. Exit status: 0 when every
# in-scope test passed, 1 when one failed, 77 when something it needs is
# missing (with the reason).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2; }
checkout=$(cd "$1" 2>/dev/null && pwd) || { echo "run_pycuda_suites: no directory $1" >&2; exit 2; }
shift
build="${BUILD_DIR:-$root/build}"
sim="$build/lib/libgpuguard_sim_cuda.so"
suites="${GG_SUITES:-test_driver.py test_gpuarray.py test_cumath.py}"
limit="${GG_SUITE_TIMEOUT:-1200}"
[ -f "$sim" ] || { echo "skipped: no $sim (build the target gpuguard_sim_cuda)"; exit 77; }
real_nvcc="${GG_REAL_NVCC:-/usr/local/cuda/bin/nvcc}"
[ -x "$real_nvcc" ] || { echo "skipped: no nvcc at $real_nvcc (set GG_REAL_NVCC)"; exit 77; }
/usr/bin/python3 -c 'import pytest' 2>/dev/null ||
    { echo "skipped: pytest is missing: apt-get install python3-pytest"; exit 77; }
for suite in $suites; do
    [ -f "$checkout/test/$suite" ] || { echo "run_pycuda_suites: no $checkout/test/$suite" >&2; exit 2; }
done
work="$build/pycuda-suites"
mkdir -p "$work" || exit 1
results=""
for suite in $suites; do
    xml="$work/${suite%.py}.xml"
    rm -f "$xml"
    echo "running $suite (log: $work/${suite%.py}.log)"
    # PyCUDA prints its warnings to stderr, which with_pycuda.sh counts as a
    # failure of the command; the per-test results are in the XML.
    (cd "$checkout/test" &&
        GG_REAL_NVCC="$real_nvcc" PATH="$here/nvcc-ptx:$PATH" PYTHONDONTWRITEBYTECODE=1 \
        timeout --kill-after=10 "$limit" sh "$here/with_pycuda.sh" "$root/build/referees" "$sim" \
            "$work/env" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
            --junitxml="$xml" "$@" "$suite") > "$work/${suite%.py}.log" 2>&1
    status=$?
    case $status in
        77) cat "$work/${suite%.py}.log"; exit 77 ;;
        124|137) echo "$suite: stopped after $limit s (see the log)" ;;
    esac
    [ -f "$xml" ] || { echo "$suite: pytest wrote no results (exit $status); the log:"; tail -n 20 "$work/${suite%.py}.log"; exit 1; }
    results="$results $xml"
done
# shellcheck disable=SC2086 # one word per file
/usr/bin/python3 "$here/summarize_suites.py" $results
