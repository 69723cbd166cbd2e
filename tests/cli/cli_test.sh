#!/bin/sh
# Checks of the gpuguard tool, run by ctest: cli_test.sh GPUGUARD_BIN CASE.
# Exit codes and output shapes are what scripts rely on, so they are pinned
# exactly (a crash must not pass for "exit 1" or "exit 2").
set -u
bin="$1" case="$2"
out="$(mktemp)" err="$(mktemp)"

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

# The bad usages (bad_usage_* cases): each must exit 2 before anything
# runs, naming the option as given (and listing the valid choices where
# there is a list). All are tried and each failure said, then the count.
marker="$(mktemp -u)" work="$(mktemp -d)" cases=0 failures=0 with_env=""
trap 'rm -rf "$out" "$err" "$marker" "$work"' EXIT
# bad_usage TEXT ARGS...: gpuguard ARGS, then (except for info) -- and a
# program that would leave a marker, exits 2 with TEXT on stderr and the
# program never ran. with_env: NAME=VALUE words for the tool's environment.
bad_usage() {
    text="$1"; shift
    cases=$((cases + 1))
    rm -f "$marker"
    if [ "$1" = info ]; then
        env $with_env "$bin" "$@" >"$out" 2>"$err"
    else
        env $with_env "$bin" "$@" -- sh -c ': > "$0"' "$marker" >"$out" 2>"$err"
    fi
    rc=$?
    why=""
    [ "$rc" -eq 2 ] || why="exited $rc, not 2;"
    grep -qF -- "$text" "$err" || why="$why no '$text' on stderr;"
    [ ! -e "$marker" ] || why="$why the program ran;"
    ! grep -qE 'Sanitizer|runtime error:' "$err" || why="$why a sanitizer report;"
    if [ -n "$why" ]; then
        failures=$((failures + 1))
        echo "FAIL: ${with_env:+$with_env }gpuguard $*:$why"
        sed 's/^/    /' "$err" | head -4
    fi
}
# cannot_start CODE ARGS...: gpuguard ARGS -- PROGRAM for a program that
# cannot be started (missing, a directory, not executable), each said the
# one way: exit CODE, "gpuguard CMD: cannot run PROGRAM: REASON".
cannot_start() {
    code="$1" cmd="$2"; shift 2
    mkdir -p "$work/dir"
    printf 'not a program\n' >"$work/text"
    chmod 644 "$work/text"
    for prog in "$work/missing:No such file or directory" "$work/dir:Is a directory" "$work/text:Permission denied"; do
        path="${prog%%:*}" reason="${prog#*:}"
        cases=$((cases + 1))
        env $with_env "$bin" "$@" -- "$path" >"$out" 2>"$err"
        rc=$?
        why=""
        [ "$rc" -eq "$code" ] || why="exited $rc, not $code;"
        grep -qxF "gpuguard $cmd: cannot run $path: $reason" "$err" ||
            why="$why no 'gpuguard $cmd: cannot run $path: $reason' line on stderr;"
        ! grep -qE 'Sanitizer|runtime error:' "$err" || why="$why a sanitizer report;"
        if [ -n "$why" ]; then
            failures=$((failures + 1))
            echo "FAIL: gpuguard $* -- $path:$why"
            sed 's/^/    /' "$err" | head -4
        fi
    done
}
# The error names gpuguard injects, as the messages list them.
errors_listed="invalid_argument, no_device, out_of_memory, not_ready, launch_timeout, launch_failed, illegal_address, driver"
big="99999999999999999999999"

case "$case" in
    bad_usage_info)
        bad_usage "--backend 'nope' is not one of auto, cuda, hip, sim, sim-hip" info --backend nope
        bad_usage "--backend 'nope' is not one of auto, cuda, hip, sim, sim-hip" info --json --backend nope
        bad_usage "--backend 'simx' is not one of" info --backend=simx
        bad_usage "--backend '' is not one of" info --backend=
        bad_usage "--backend '' is not one of" info --backend ''
        # A variable the user set is named as such (here it is the option).
        with_env="GPUGUARD_LOG=bogus"
        bad_usage "GPUGUARD_LOG='bogus' is not one of" info --backend sim
        with_env="GPUGUARD_BACKEND=nope"
        bad_usage "GPUGUARD_BACKEND='nope' is not one of" info
        with_env="" ;;
    bad_usage_sweep)
        mkdir "$work/dir"
        bad_usage "--errors: unknown error 'oom'; the errors: $errors_listed" sweep --errors oom
        bad_usage "--error: unknown error 'oom'; the errors: $errors_listed" sweep --error oom
        bad_usage "--errors: unknown error 'OUT_OF_MEMORY'" sweep --errors out_of_memory,OUT_OF_MEMORY
        bad_usage "--errors: unknown error 'oom'" sweep --mode async --errors illegal_address,oom
        bad_usage "--errors: an empty list" sweep --errors ,
        bad_usage "--ops: unknown operation 'allocc'; the operations: init, driver_version," sweep --ops allocc
        bad_usage "--ops: unknown operation 'copy'" sweep --ops alloc,copy
        bad_usage "--ops needs a value" sweep --ops ''
        bad_usage "--json $work/dir: Is a directory" sweep --json "$work/dir"
        bad_usage "--json $work/none/x.json: cannot write in its folder" sweep --json "$work/none/x.json"
        bad_usage "--json needs a value" sweep --json
        bad_usage "--json needs a value" sweep --json ''
        bad_usage "--max-runs must be a whole number >= 1, not '$big'" sweep --max-runs "$big"
        bad_usage "--timeout must be seconds, more than 0 and at most 86400, not '100000'" sweep --timeout 100000
        bad_usage "unknown option 'prog' (put the command after --)" sweep prog
        bad_usage "--mode async latches only errors that kill a context" sweep --ops launch --mode async --errors out_of_memory
        with_env="GPUGUARD_BACKEND=nope"
        bad_usage "GPUGUARD_BACKEND='nope' is not one of auto, cuda, hip, sim, sim-hip" sweep
        with_env="" ;;
    bad_usage_sweep_intercept)
        # (GPUGUARD_BACKEND=sim: the interposer forwards to the simulator.)
        mkdir "$work/dir"
        bad_usage "--errors: unknown error 'oom'; the errors: $errors_listed" sweep --intercept --errors oom
        bad_usage "--function cuMemAloc: not a driver function the interposer knows" sweep --intercept --function cuMemAloc
        bad_usage "--function hipMaloc: not a driver function the interposer knows" \
            sweep --intercept --function cuMemAlloc --function hipMaloc
        bad_usage "--json $work/dir: Is a directory" sweep --intercept --json "$work/dir"
        bad_usage "--max-runs must be a whole number >= 1, not '$big'" sweep --intercept --max-runs "$big"
        bad_usage "--driver needs a value" sweep --intercept --driver
        bad_usage "--mode async latches only errors that kill a context" \
            sweep --intercept --function cuMemAlloc --mode async --errors out_of_memory,not_ready
        with_env="GPUGUARD_BACKEND=nope"
        bad_usage "GPUGUARD_BACKEND='nope' is not one of auto, cuda, hip, sim, sim-hip" sweep --intercept
        with_env="" ;;
    bad_usage_run)
        # (GPUGUARD_BACKEND=sim: the interposer forwards to the simulator.)
        mkdir "$work/dir"
        bad_usage "--faults: fault plan: rule 0: \"error\": unknown error \"oom\" (the errors: $errors_listed)" \
            run --faults '{"rules":[{"function":"cuMemAlloc","nth":1,"error":"oom"}]}'
        bad_usage "--report $work/dir: Is a directory" run --report "$work/dir"
        with_env="GPUGUARD_INTERCEPT_REPORT=$work/dir"
        bad_usage "GPUGUARD_INTERCEPT_REPORT $work/dir: Is a directory" run
        with_env="GPUGUARD_BACKEND=nope"
        bad_usage "GPUGUARD_BACKEND='nope' is not one of auto, cuda, hip, sim, sim-hip" run
        with_env="" ;;
    cannot_start)
        # (GPUGUARD_BACKEND=sim, for run and sweep --intercept.)
        cannot_start 127 run run
        cannot_start 2 sweep sweep
        cannot_start 2 sweep sweep --intercept ;;
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
        # (--mode async with no error that kills a context would make no
        # run: refused before any, a bad usage: bad_usage_sweep.)
        # A program that runs gpuguard only the first time (the counting run):
        # no injected run reaches its fault.
        marker="$(mktemp -u)"
        expect_exit 1 sweep --ops alloc --max-runs 2 -- sh -c '[ -e "$0" ] && exit 0; : > "$0"; exec "$1" --n 4096' \
            "$marker" "$3"
        rm -f "$marker"
        grep -q "no run reached its fault" "$err" || { echo "FAIL: all not reached"; cat "$err"; exit 1; } ;;
    *) echo "unknown case $case"; exit 2 ;;
esac
if [ "$cases" -gt 0 ]; then
    echo "$((cases - failures)) of $cases cases as expected"
    [ "$failures" -eq 0 ] || exit 1
fi
echo "PASS: $case"
