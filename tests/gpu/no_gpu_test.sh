#!/usr/bin/env bash
# ctest gpu_check_no_gpu: scripts/gpu-check.sh --no-build against BUILD_DIR.
# Without a GPU it must print exactly one line, "gpu-check: no GPU found:
# <gpuguard's message>", and exit 0; with one, the suite runs and must pass.
#   no_gpu_test.sh SCRIPT BUILD_DIR
set -uo pipefail
script="$1" build="$2"
output="$("$script" --no-build --build-dir "$build" -- --json "$build/gpu-check-no-gpu.json" 2>&1)"
rc=$?
printf '%s\n' "$output"
if [[ "$output" == "gpu-check: no GPU found: "* ]]; then
    lines="$(printf '%s\n' "$output" | wc -l)"
    [[ "$lines" == 1 ]] || { echo "FAIL: $lines lines of output without a GPU, expected 1"; exit 1; }
    [[ "$rc" == 0 ]] || { echo "FAIL: exit status $rc without a GPU, expected 0"; exit 1; }
    grep -q '"gpu":[[:space:]]*false' "$build/gpu-check-no-gpu.json" ||
        { echo "FAIL: the report does not say \"gpu\": false"; exit 1; }
    echo "ok: one line, exit 0, report says no GPU"
    exit 0
fi
[[ "$rc" == 0 ]] || { echo "FAIL: gpu-check exited $rc"; exit 1; }
echo "ok: a GPU was found and the suite passed"
