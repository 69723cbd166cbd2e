#!/usr/bin/env bash
# Builds gpuguard and runs its whole test suite (no GPU needed: the suites
# run over the simulated driver).
#
#   scripts/test.sh              build/        RelWithDebInfo, gcc, all tests
#   scripts/test.sh --sanitize   build-asan/   AddressSanitizer + UBSan, all tests
#   scripts/test.sh --tsan       build-tsan/   ThreadSanitizer, all tests
#   scripts/test.sh --clang ...  the same with clang, in build*-clang/
#   scripts/test.sh ... -- ARGS  extra arguments for ctest (e.g. -R unit)
#
# Installs missing Debian packages first (needs root or sudo).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

mode=default compiler=gcc ctest_args=()
while (($#)); do
    case "$1" in
        --sanitize|--asan) mode=asan ;;
        --tsan) mode=tsan ;;
        --clang) compiler=clang ;;
        -h|--help) usage; exit 0 ;;
        --) shift; ctest_args=("$@"); break ;;
        *) printf 'unknown option: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

packages=("${GG_PACKAGES[@]}")
cmake_args=()
# shellcheck disable=SC2054 # the comma is part of the value
case "$mode" in
    default) dir=build ;;
    asan)    dir=build-asan; cmake_args+=(-DGG_SANITIZE=address,undefined) ;;
    tsan)    dir=build-tsan; cmake_args+=(-DGG_SANITIZE=thread) ;;
esac
if [[ "$compiler" == clang ]]; then
    # Each compiler gets its own tree: CMake cannot switch the compiler of a
    # configured tree. clang's sanitizer runtimes are a separate package.
    dir="$dir-clang"
    cmake_args+=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
    [[ "$mode" != default ]] && packages+=(libclang-rt-14-dev)
fi

gg_ensure_packages "${packages[@]}"
# One copy for every build tree (build/referees), fetched once: later runs,
# and the sanitizer runs, find it there and make no network access. Offline
# it records why, and the tests over it report themselves skipped.
"$GG_ROOT/scripts/fetch-referees.sh" "${GG_REFEREE_PACKAGES[@]}"
numba_referees=("${GG_NUMBA_REFEREE_PACKAGES[@]}")
[[ -f "$GG_NUMBA_TOOLKIT_LIBDEVICE" ]] || numba_referees+=("$GG_NUMBA_LIBDEVICE_PACKAGE")
"$GG_ROOT/scripts/fetch-referees.sh" "${numba_referees[@]}"
gg_configure "$dir" "${cmake_args[@]}"
gg_build "$dir"

# A sanitizer report must fail the test that caused it, with a stack trace;
# leaks count as failures too (LeakSanitizer is part of ASan on Linux).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$GG_ROOT/tests/support/tsan.supp}"

# The tests run one at a time unless CTEST_PARALLEL_LEVEL says otherwise:
# several suites time waits and deadlines, and two cores shared between
# suites would make them flaky.
# Under TSan the whole suite runs: every suite starts threads (the simulated
# driver's stream workers). Criterion itself cannot start under TSan; a TSan
# build links the suites against a stand-in runner (cmake/GgHelpers.cmake).

# Torture loops (a forked or spawned process per round) run 60 rounds
# instead of 200 under TSan (tests/support/torture_rounds.h says why).
if [[ "$mode" == tsan ]]; then
    export GG_TORTURE_ROUNDS="${GG_TORTURE_ROUNDS:-60}"
fi

run=()
if [[ "$mode" == tsan ]] &&
   (( $(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28) > 28 )); then
    # gcc 12's ThreadSanitizer dies with "unexpected memory mapping" under
    # the larger address randomisation of recent kernels; turn it off for
    # the tests (and their children) only.
    run=(setarch "$(uname -m)" -R)
fi

gg_log "running the tests in $dir"
# The simulator honours CUDA_VISIBLE_DEVICES as a driver does; the tests
# expect its configured devices (a GPU machine may have it set).
unset CUDA_VISIBLE_DEVICES
status=0
"${run[@]}" ctest --test-dir "$GG_ROOT/$dir" --output-on-failure "${ctest_args[@]}" || status=$?

# ctest lists skipped tests without their reason; say it here.
for skip in "$GG_ROOT"/build/referees/*.skip; do
    [[ -f "$skip" ]] || continue
    gg_log "the tests over Debian's $(basename "$skip" .skip) were skipped: $(cat "$skip")"
done
exit "$status"
