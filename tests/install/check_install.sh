#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds a consumer
# against it twice: with find_package(gpuguard) (which also builds a
# simulator kernel module with the installed gg_add_sim_module, and runs
# it) and with pkg-config. Both consumers must run over the installed
# simulator. Only the installed package is used: the consumer's folder is
# copied out of the source tree first.
# Then the relocation (issue 29): a DESTDIR staged install, moved to a
# folder it was never installed for, runs `gpuguard run`, `gpuguard sweep
# --intercept` and a program under the bare interposer over its own
# simulator, with the build tree out of reach (hidden under an empty
# tmpfs in a private mount namespace where unshare allows it), and every
# gpuguard library those processes load must come from the moved copy.
# Nothing is written outside the temporary directory.
#   check_install.sh BUILD_DIR SOURCE_DIR PROGRAM_SOURCE
# PROGRAM_SOURCE: examples/intercept/unchecked_alloc.c, a program that
# loads libcuda.so.1 itself.
set -euo pipefail
build=$1 src=$2 program_source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect_installed_under LOG DIR: every file cmake --install wrote (LOG)
# went under DIR.
expect_installed_under() {
    if grep -E '^-- (Installing|Up-to-date): ' "$1" | grep -v -- "-- [A-Za-z-]*: $2/"; then
        echo "check_install: the lines above were installed outside $2" >&2
        exit 1
    fi
    grep -qE '^-- (Installing|Up-to-date): ' "$1" || { echo "check_install: $1 lists no file" >&2; exit 1; }
}

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
libdir=$(dirname "$(find "$work/prefix" -name libgpuguard.so | head -1)")
# Everything goes under --prefix (the interposer's links once went to the
# configured prefix instead, issue 29), and the links lead to the library.
expect_installed_under "$work/install.log" "$work/prefix"
# The per-line variants too (src/intercept/README.md), e.g. cuda11/.
for face in libcuda.so.1 libamdhip64.so.5 cuda11/libcuda.so.1 cuda11/libamdhip64.so.5; do
    if [[ ! -e "$libdir/gpuguard/intercept/$face" ]]; then
        ls -l "$libdir/gpuguard/intercept" >&2 || true
        echo "check_install: the installed interposer link $face does not lead to the library" >&2
        exit 1
    fi
done

cp -r "$src/consumer" "$work/consumer-src"
cmake -S "$work/consumer-src" -B "$work/cmake-consumer" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake-consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$work/cmake-consumer/consumer"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc -o "$work/pc-consumer" "$work/consumer-src/main.c" $(pkg-config --cflags --libs gpuguard)
LD_LIBRARY_PATH="$libdir" "$work/pc-consumer"

# --- Relocation. A packager's staged install: everything under DESTDIR.
DESTDIR="$work/dest" cmake --install "$build" --prefix /opt/gpuguard-staged > "$work/destdir.log"
expect_installed_under "$work/destdir.log" "$work/dest/opt/gpuguard-staged"
# Moved where it was never installed for.
mv "$work/dest/opt/gpuguard-staged" "$work/moved"
moved=$work/moved
moved_libdir=$(dirname "$(find "$moved" -name libgpuguard.so | head -1)")
tool=$moved/bin/gpuguard
cc -o "$work/unchecked_alloc" "$program_source" -ldl

# The checks, run by a script of their own so that they can run in a mount
# namespace where the build tree is an empty folder.
cat > "$work/relocated.sh" <<'CHECKS'
set -u
work=$1 moved=$2 moved_libdir=$3 tool=$4 other_libdir=$5
cd "$work"
fail() { echo "check_install (relocated): $*" >&2; cat "$work/out" "$work/err" >&2; exit 1; }
export GPUGUARD_BACKEND=sim LD_DEBUG=files LD_DEBUG_OUTPUT="$work/loaded"
# Nothing from the caller's environment chooses a library for them.
unset GPUGUARD_CUDA_LIBRARY GPUGUARD_HIP_LIBRARY GPUGUARD_INTERCEPT_DRIVER GPUGUARD_INTERCEPT_HIP_RUNTIME LD_LIBRARY_PATH
# gpuguard run: its own interposer and simulator, found from where it is.
"$tool" run -v -- ./unchecked_alloc > out 2> err || fail "gpuguard run exited $?"
grep -q '^verified 4096 elements$' out || fail "the program did not run to its end"
grep -qF "over the interposer in $moved_libdir/gpuguard/intercept (variant full:" err || fail "not the moved copy's interposer"
grep -qF "CUDA driver: $moved_libdir/libgpuguard_sim_cuda.so (GPUGUARD_BACKEND=sim)" err ||
    fail "not the moved copy's simulator"
# A plan fires through it.
"$tool" run --faults '{"rules":[{"function":"cuMemAlloc_v2","nth":1,"error":"out_of_memory"}]}' \
    -- ./unchecked_alloc > out 2> err
rc=$?
[ "$rc" -eq 1 ] || fail "gpuguard run --faults exited $rc, expected 1"
grep -qF 'fired 1 time(s), first at cuMemAlloc_v2' err || fail "the plan did not fire"
# gpuguard sweep --intercept finds the one unchecked allocation.
"$tool" sweep --intercept -- ./unchecked_alloc > out 2> err
rc=$?
[ "$rc" -eq 1 ] || fail "gpuguard sweep --intercept exited $rc, expected 1"
grep -q '^  CRASH: cuMemAllocHost_v2 call 1 failed with out_of_memory (immediate)$' out ||
    fail "the sweep did not find the bug"
grep -q ' 10 run(s): .* 0 not reached' out || fail "the sweep did not reach every call"
# The bare interposer (no tool) finds the simulator next to itself.
LD_LIBRARY_PATH="$moved_libdir/gpuguard/intercept" ./unchecked_alloc > out 2> err ||
    fail "unchecked_alloc under the moved interposer exited $?"
grep -q '^verified 4096 elements$' out || fail "the program did not run to its end under the interposer"
# Every gpuguard library any of those processes loaded (the dynamic
# loader's own record) came from the moved copy.
grep -h 'calling init: ' "$work"/loaded.* | sed 's/.*calling init: //' | sort -u > loaded.txt
grep -E 'gpuguard|libcuda\.so|libamdhip64' loaded.txt > gpuguard_loaded.txt || fail "no gpuguard library loaded"
if grep -vF "$moved/" gpuguard_loaded.txt; then
    echo "check_install (relocated): the libraries above were loaded from outside the moved copy $moved" >&2
    exit 1
fi
grep -qF "$moved_libdir/gpuguard/intercept/libcuda.so.1" gpuguard_loaded.txt || fail "the interposer was not loaded"
# The tool goes by its own place, not by the libgpuguard the loader gave
# it: with the first install's library first on LD_LIBRARY_PATH, still the
# moved copy's interposer and simulator.
unset LD_DEBUG LD_DEBUG_OUTPUT
LD_LIBRARY_PATH="$other_libdir" "$tool" run -v -- ./unchecked_alloc > out 2> err ||
    fail "gpuguard run with another libgpuguard exited $?"
grep -qF "over the interposer in $moved_libdir/gpuguard/intercept (variant full:" err ||
    fail "with another libgpuguard on LD_LIBRARY_PATH, not the tool's own interposer"
grep -qF "CUDA driver: $moved_libdir/libgpuguard_sim_cuda.so (GPUGUARD_BACKEND=sim)" err ||
    fail "with another libgpuguard on LD_LIBRARY_PATH, not the tool's own simulator"
echo "relocated copy checked"
CHECKS
# Out of reach: the build tree hidden (an empty tmpfs over it, in a private
# mount namespace) where the system lets an unprivileged user make one;
# else still there, and the dynamic loader's record alone says nothing
# came from it.
if unshare --user --map-root-user --mount true 2> /dev/null; then
    echo "check_install: the build tree is hidden for the relocated checks"
    unshare --user --map-root-user --mount sh -c 'mount -t tmpfs none "$1" && shift && exec sh "$@"' sh \
        "$build" "$work/relocated.sh" "$work" "$moved" "$moved_libdir" "$tool" "$libdir"
else
    echo "check_install: no private mount namespace here; the build tree stays visible to the relocated checks"
    sh "$work/relocated.sh" "$work" "$moved" "$moved_libdir" "$tool" "$libdir"
fi
echo "install check passed"
