#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan in
# build-fuzz/, and fuzzes each for a bounded time.
#
#   scripts/fuzz.sh                  every harness, GG_FUZZ_SECONDS each (default 60)
#   scripts/fuzz.sh NAME...          only those
#
# The harnesses and their seeds are the ones CMake registers (tests/fuzz,
# tests/ptx): each harness NAME has a ctest NAME_seeds, labelled fuzz, that
# runs it once over its committed seeds; the script reads that list from
# ctest (`ctest --test-dir build-fuzz -L fuzz -N` shows it), so a harness
# added there is fuzzed here with nothing to repeat.
# Each run starts from the committed seed corpus (the folder its NAME_seeds
# test runs over: tests/fuzz/corpus/NAME, or tests/ptx/fixtures for
# fuzz_ptx; never modified here) plus what earlier runs found
# (build-fuzz/corpus/NAME).
# A crash, a sanitizer report or a broken contract fails the script; the
# input that caused it is printed in the log (hex and base64) and kept in
# build-fuzz/artifacts/. Replay one with: build-fuzz/bin/NAME FILE.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

seconds="${GG_FUZZ_SECONDS:-60}"
dir=build-fuzz

# libFuzzer's runtime is in clang's compiler-rt package.
gg_ensure_packages clang libclang-rt-14-dev libcjson-dev libzstd-dev liblz4-dev cmake pkg-config python3
compgen -G "$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null ||
    gg_die "clang's libFuzzer runtime is missing (Debian package libclang-rt-14-dev)"
gg_configure "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DGG_FUZZ=ON \
    -DGG_SANITIZE=address,undefined -DGG_BUILD_EXAMPLES=OFF -DGG_BUILD_GPU_CHECK=OFF

# Every harness CMake registers, with its committed seeds: the ctests
# labelled fuzz, NAME_seeds, whose command is NAME -runs=0 SEEDS. ctest
# names a test's command only once its program is built, so the names come
# first and the seed folders after the build.
# fuzz_tests: one line per harness, its name and (once built) its seeds.
fuzz_tests() {
    ctest --test-dir "$GG_ROOT/$dir" -L '^fuzz$' --show-only=json-v1 | python3 -c '
import json, sys
for test in json.load(sys.stdin)["tests"]:
    if test["name"].endswith("_seeds"):
        print("%s\t%s" % (test["name"][:-len("_seeds")], test.get("command", [""])[-1]))
'
}
registered=()
while IFS=$'\t' read -r name _; do registered+=("$name"); done < <(fuzz_tests)
((${#registered[@]})) || gg_die "no fuzz harness registered in $dir (ctest -L fuzz lists none)"
harnesses=("$@")
((${#harnesses[@]})) || harnesses=("${registered[@]}")
for name in "${harnesses[@]}"; do
    [[ " ${registered[*]} " == *" $name "* ]] ||
        gg_die "no harness $name; the harnesses are: ${registered[*]}"
done

gg_log "building the harnesses in $dir"
cmake --build "$GG_ROOT/$dir" -j"$(nproc)" --target "${harnesses[@]}" gpuguard_sim_cuda
declare -A seeds=()
while IFS=$'\t' read -r name corpus; do seeds[$name]="$corpus"; done < <(fuzz_tests)
for name in "${harnesses[@]}"; do
    [[ -d "${seeds[$name]:-}" ]] || gg_die "the seeds of $name (its ctest ${name}_seeds) are not a folder"
done

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

status=0
summary=()
for name in "${harnesses[@]}"; do
    corpus="$GG_ROOT/$dir/corpus/$name" artifacts="$GG_ROOT/$dir/artifacts"
    mkdir -p "$corpus" "$artifacts"
    log="$GG_ROOT/$dir/$name.log"
    gg_log "fuzzing $name for ${seconds}s"
    rc=0
    # -timeout: an input running 10 s is a hang; -max_len keeps inputs small
    # enough to mean something (a plan, a config, a few hundred calls).
    "$GG_ROOT/$dir/bin/$name" -max_total_time="$seconds" -timeout=10 -max_len=4096 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
        "$corpus" "${seeds[$name]}" >"$log" 2>&1 || rc=$?
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    summary+=("$name: ${execs:-?} executions in ${seconds}s, exit $rc")
    if ((rc != 0)); then
        status=1
        echo "==> $name FAILED (exit $rc); its log:"
        tail -n 80 "$log"
        for crash in "$artifacts/$name"-*; do
            [[ -f "$crash" ]] || continue
            echo "==> reproducer $crash ($(stat -c %s "$crash") bytes); replay: $dir/bin/$name FILE"
            od -A d -t x1 "$crash" | head -n 64
            echo "base64: $(base64 -w0 "$crash")"
        done
    fi
done
gg_log "fuzzing summary:"
printf '    %s\n' "${summary[@]}"
exit "$status"
