#!/bin/sh
# Runs COMMAND with Debian's PyCUDA over gpuguard's simulated driver:
# PYTHONPATH at python3-pycuda as scripts/fetch-referees.sh unpacked it
# under REFEREE_DIR, and LD_LIBRARY_PATH with first a directory holding
# libcuda.so.1 -> SIM_LIBRARY, then the unpacked libcurand10 (PyCUDA's
# extension links both). When the packages or PyCUDA's Python dependencies
# are missing it says why and exits 77, which ctest reports as skipped.
# Fails if COMMAND writes anything to stderr.
# Usage: with_pycuda.sh REFEREE_DIR SIM_LIBRARY WORK_DIR COMMAND [ARGS...]
referees="$1" sim="$2" work="$3"
shift 3
skip() { echo "skipped: $*"; exit 77; }
for pkg in python3-pycuda libcurand10; do
    if [ ! -d "$referees/$pkg" ]; then
        [ -f "$referees/$pkg.skip" ] &&
            skip "Debian's $pkg could not be fetched: $(cat "$referees/$pkg.skip")"
        skip "Debian's $pkg is not in $referees (scripts/test.sh fetches it;" \
             "or run scripts/fetch-referees.sh $pkg)"
    fi
done
site="$referees/python3-pycuda/usr/lib/python3/dist-packages"
curand="$(dirname "$(ls "$referees"/libcurand10/usr/lib/*/libcurand.so.10 2>/dev/null | head -n 1)")"
[ -d "$site/pycuda" ] || skip "no pycuda package under $site"
[ -n "$curand" ] && [ "$curand" != . ] || skip "no libcurand.so.10 under $referees/libcurand10"
# PyCUDA's own dependencies, from Debian's main component (scripts/common.sh
# installs them).
/usr/bin/python3 -c 'import numpy, pytools, mako, appdirs, decorator' 2>/dev/null ||
    skip "PyCUDA's Python dependencies are missing: apt-get install python3-numpy" \
         "python3-pytools python3-mako python3-appdirs python3-decorator"
for lib in libboost_python311.so.1.74.0 libboost_thread.so.1.74.0; do
    ldconfig -p 2>/dev/null | grep -q "$lib" ||
        skip "$lib is missing: apt-get install libboost-python1.74.0 libboost-thread1.74.0"
done
mkdir -p "$work/libcuda" || exit 1
ln -sf "$sim" "$work/libcuda/libcuda.so.1" || exit 1
PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
LD_LIBRARY_PATH="$work/libcuda:$curand${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH LD_LIBRARY_PATH
err="$work/stderr.$$"
"$@" 2>"$err"
status=$?
if [ -s "$err" ]; then
    echo "--- stderr (must be empty) ---"
    cat "$err"
    [ "$status" -eq 0 ] && status=1
fi
rm -f "$err"
exit "$status"
