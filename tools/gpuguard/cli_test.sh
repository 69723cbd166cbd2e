#!/bin/sh
# Checks of the gpuguard tool, run by ctest: cli_test.sh GPUGUARD_BIN CASE.
# Exit codes and output shapes are what scripts rely on, so they are pinned
# exactly (a crash must not pass for "exit 1" or "exit 2").
set -u
bin="$1" case="$2"
out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT

# expect_exit CODE ARGS...: runs the tool, fails unless it exits with CODE.
expect_exit() {
    want="$1"; shift
    "$bin" "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: gpuguard $* exited $rc, expected $want"
        cat "$out" "$err"
        exit 1
    fi
    # Under ASan/UBSan a report exits 1 too: don't let it pass for "no GPU".
    if grep -qE 'Sanitizer|runtime error:' "$err"; then
        echo "FAIL: gpuguard $*: sanitizer report"
        cat "$err"
        exit 1
    fi
}

# expect_json PYTHON_EXPR: stdout parses as JSON and d satisfies the check.
expect_json() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if not eval("(" + sys.argv[2] + ")"):
    sys.exit("FAIL: %s is false for %s" % (sys.argv[2], json.dumps(d)))' "$out" "$1" || {
        cat "$out"; exit 1; }
}

case "$case" in
    info_sim)
        expect_exit 0 info --backend sim
        if ! grep -q '^backend: *cuda$' "$out" || ! grep -q 'simulated: *yes' "$out"; then
            echo "FAIL: unexpected text"; cat "$out"; exit 1
        fi ;;
    info_json_sim)
        expect_exit 0 info --json --backend sim
        expect_json 'd["backend"] == "cuda" and d["driver_version"] > 0 and
            len(d["devices"]) > 0 and
            all(x["simulated"] is True and x["total_memory"] > 0 and
                len(x["max_grid"]) == 3 for x in d["devices"])' ;;
    info_verbose_sim)
        # Each entry point with the variant called: on the default simulated
        # driver (CUDA 13.0) cuCtxCreate is _v4.
        expect_exit 0 info --verbose --backend sim
        if ! grep -qE '^  cuCtxCreate +-> cuCtxCreate_v4 \(ABI 12050, cuGetProcAddress_v2\)$' "$out" ||
           ! grep -qE '^  cuLaunchKernel +-> cuLaunchKernel \(ABI 4000, ' "$out"; then
            echo "FAIL: entry points not listed as expected"; cat "$out"; exit 1
        fi ;;
    info_verbose_sim_drv12020)
        # The simulator playing Debian 12's driver (CUDA 12.2): cuCtxCreate is
        # _v3 there, asked at its own version, never above the driver's.
        export GPUGUARD_SIM_CONFIG='{"driver_version": 12020}'
        expect_exit 0 info --verbose --backend sim
        if ! grep -q '^driver version: 12020 (12.2)$' "$out" ||
           ! grep -qE '^  cuCtxCreate +-> cuCtxCreate_v3 \(ABI 11040, cuGetProcAddress_v2\)$' "$out" ||
           ! grep -qE '^  cuEventElapsedTime +-> cuEventElapsedTime \(ABI 2000, ' "$out"; then
            echo "FAIL: entry points not listed as expected"; cat "$out"; exit 1
        fi ;;
    info_json_verbose_sim)
        expect_exit 0 info --json -v --backend sim
        expect_json 'len(d["entry_points"]) > 40 and
            all(e["variant"] and 0 < e["abi_version"] <= d["driver_version"]
                for e in d["entry_points"] if e["required"]) and
            [e["variant"] for e in d["entry_points"] if e["name"] == "cuCtxCreate"] == ["cuCtxCreate_v4"]' ;;
    info_verbose_sim_hip)
        # HIP has no versioned entry points: each is the plain name, by dlsym.
        expect_exit 0 info --verbose --backend sim-hip
        grep -qE '^  hipModuleLaunchKernel +-> hipModuleLaunchKernel \(dlsym\)$' "$out" ||
            { echo "FAIL: entry points not listed as expected"; cat "$out"; exit 1; } ;;
    info_no_driver)
        # A driver path that cannot load: exit 1, the reason on stderr.
        export GPUGUARD_CUDA_LIBRARY=/nonexistent/libcuda.so.1
        expect_exit 1 info --backend cuda
        grep -q 'GG_NO_DRIVER' "$err" ||
            { echo "FAIL: no status on stderr"; cat "$err"; exit 1; } ;;
    info_json_no_driver)
        export GPUGUARD_CUDA_LIBRARY=/nonexistent/libcuda.so.1
        expect_exit 1 info --json --backend cuda
        expect_json 'd["error"]["status"] == "GG_NO_DRIVER" and d["error"]["message"]' ;;
    usage)
        expect_exit 0 --help
        expect_exit 0 info --help
        expect_exit 2
        expect_exit 2 frobnicate
        expect_exit 2 info --frobnicate
        expect_exit 2 info --backend
        expect_exit 2 sweep --pairs -- true
        expect_exit 2 sweep --host-alloc --ops alloc -- true ;;
    sweep_plan_replaced)
        # $3: a program that loads its own fault plans (fault_injection).
        expect_exit 1 sweep -- "$3"
        grep -q "replaces the sweep's fault plan" "$err" || { echo "FAIL: no word of the replaced plan"; cat "$err"; exit 1; } ;;
    sweep_cannot_pass_empty)
        # $3: a deterministic example (vector_add). Each way a sweep could
        # pass having tested nothing must fail, saying why.
        expect_exit 1 sweep --ops launch -- "$bin" info --backend sim
        grep -q "saw no driver calls" "$err" || { echo "FAIL: counting run with no calls"; cat "$err"; exit 1; }
        expect_exit 1 sweep --ops launch --mode async --errors out_of_memory -- "$3" --n 4096
        grep -q "no injected run was made" "$err" || { echo "FAIL: no runs"; cat "$err"; exit 1; }
        # A program that runs gpuguard only the first time (the counting run):
        # no injected run reaches its fault.
        marker="$(mktemp -u)"
        expect_exit 1 sweep --ops alloc --max-runs 2 -- sh -c '[ -e "$0" ] && exit 0; : > "$0"; exec "$1" --n 4096' \
            "$marker" "$3"
        rm -f "$marker"
        grep -q "no run reached its fault" "$err" || { echo "FAIL: all not reached"; cat "$err"; exit 1; } ;;
    *) echo "unknown case $case"; exit 2 ;;
esac
echo "PASS: $case"
