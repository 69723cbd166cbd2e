#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan in
# build-fuzz/, and fuzzes each for a bounded time.
#
#   scripts/fuzz.sh                  every harness, GG_FUZZ_SECONDS each (default 60)
#   scripts/fuzz.sh NAME...          only those (fuzz_fault_plan fuzz_env fuzz_api fuzz_sim_config fuzz_model
#                                    fuzz_fatbin fuzz_ptx)
#
# Each run starts from the committed seed corpus (tests/fuzz/corpus/NAME;
# for fuzz_ptx the PTX fixtures, tests/ptx/fixtures; never modified here) plus what earlier runs found (build-fuzz/corpus/NAME).
# A crash, a sanitizer report or a broken contract fails the script; the
# input that caused it is printed in the log (hex and base64) and kept in
# build-fuzz/artifacts/. Replay one with: build-fuzz/bin/NAME FILE.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

seconds="${GG_FUZZ_SECONDS:-60}"
harnesses=("$@")
((${#harnesses[@]})) || harnesses=(fuzz_fault_plan fuzz_env fuzz_api fuzz_sim_config fuzz_model fuzz_fatbin fuzz_ptx)
dir=build-fuzz

# libFuzzer's runtime is in clang's compiler-rt package.
gg_ensure_packages clang libclang-rt-14-dev libcjson-dev libzstd-dev liblz4-dev cmake pkg-config
compgen -G "$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null ||
    gg_die "clang's libFuzzer runtime is missing (Debian package libclang-rt-14-dev)"
gg_configure "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DGG_FUZZ=ON \
    -DGG_SANITIZE=address,undefined -DGG_BUILD_EXAMPLES=OFF -DGG_BUILD_GPU_CHECK=OFF
gg_log "building the harnesses in $dir"
cmake --build "$GG_ROOT/$dir" -j"$(nproc)" --target "${harnesses[@]}" gpuguard_sim_cuda

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# The committed seeds of a harness.
seeds_of() {
    if [[ "$1" == fuzz_ptx ]]; then
        echo "$GG_ROOT/tests/ptx/fixtures"
    else
        echo "$GG_ROOT/tests/fuzz/corpus/$1"
    fi
}

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
        "$corpus" "$(seeds_of "$name")" >"$log" 2>&1 || rc=$?
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
