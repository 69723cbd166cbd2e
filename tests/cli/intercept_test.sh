#!/bin/sh
# Checks of `gpuguard run` and `gpuguard sweep --intercept`, run by ctest:
#   intercept_test.sh GPUGUARD_BIN CASE [ARGS...]
# over the simulated driver (GPUGUARD_BACKEND=sim, or --driver). Each case
# pins exit statuses exactly (a crash must not pass for "exit 1") and checks
# the JSON a sweep writes with /usr/bin/python3. Nothing is timed.
#
# EXPECT_CRASH (from CMake): the outcome of the bug in unchecked_alloc,
# CRASH (SIGSEGV), or SANITIZER in a sanitizer build (UBSan or ASan reports
# the NULL store before the signal could kill the program).
set -u
bin="$1" case="$2"
shift 2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
out="$work/out" err="$work/err"
expect_crash="${EXPECT_CRASH:-CRASH}"

fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }

# expect_exit CODE ARGS...: runs the tool, fails unless it exits with CODE.
expect_exit() {
    want="$1"; shift
    "$bin" "$@" >"$out" 2>"$err"
    rc=$?
    [ "$rc" -eq "$want" ] || fail "gpuguard $* exited $rc, expected $want"
}

# expect_err TEXT: the tool's stderr holds TEXT (a fixed string).
expect_err() { grep -qF -- "$1" "$err" || fail "no '$1' on stderr"; }

# expect_json FILE PYTHON_EXPR: FILE parses as JSON and d satisfies the check.
expect_json() {
    /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if not eval("(" + sys.argv[2] + ")"):
    sys.exit("FAIL: %s is false for %s" % (sys.argv[2], json.dumps(d, indent=1)))' "$1" "$2" || fail "JSON check"
}

# The plans the cases use.
fail_staging='{"rules":[{"function":"cuMemAllocHost","nth":1,"error":"out_of_memory"}]}'
fail_device='{"rules":[{"function":"cuMemAlloc_v2","nth":1,"error":"out_of_memory"}]}'

case "$case" in
    run_unchecked_alloc)
        # $1: unchecked_alloc. With no plan it runs as without gpuguard and
        # the tool says nothing; each plan reproduces its failure on demand.
        prog="$1"
        expect_exit 0 run -- "$prog"
        grep -q '^verified 4096 elements$' "$out" || fail "no verification"
        [ ! -s "$err" ] || fail "stderr not empty without faults or --verbose"
        # The bug the sweep finds: the unchecked staging allocation.
        if [ "$expect_crash" = CRASH ]; then
            expect_exit $((128 + 11)) run --faults "$fail_staging" -- "$prog"
            expect_err "gpuguard run: $prog was killed by signal 11"
        else
            "$bin" run --faults "$fail_staging" -- "$prog" >"$out" 2>"$err"
            [ $? -ne 0 ] || fail "the run with the staging allocation failed exited 0"
            grep -qE 'Sanitizer|runtime error:' "$err" || fail "no sanitizer report of the NULL store"
        fi
        expect_err 'gpuguard run: rule 0 {"function":"cuMemAllocHost","nth":1,"error":"out_of_memory"} fired 1 time(s), first at cuMemAllocHost_v2'
        grep -q 'verified' "$out" && fail "the program carried on past the fault"
        # A checked allocation: a clean exit saying why; the plan from a file;
        # the report kept where asked.
        printf '%s\n' "$fail_device" >"$work/plan.json"
        expect_exit 1 run --faults "@$work/plan.json" --report "$work/report.json" -- "$prog"
        expect_err 'cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)'
        expect_err 'fired 1 time(s), first at cuMemAlloc_v2'
        expect_err "gpuguard run: $prog exited with status 1"
        expect_json "$work/report.json" 'd["calls"]["cuMemAlloc_v2"] == 1 and d["rules"][0]["fired"] == 1 and
            d["rules"][0]["first_fired_call"] == "cuMemAlloc_v2" and "cuMemAllocHost_v2" not in d["calls"]'
        # The same through cuGetProcAddress, as the CUDA runtime gets them.
        expect_exit 1 run --faults "$fail_device" -- "$prog" --proc-address
        expect_err 'fired 1 time(s), first at cuMemAlloc_v2'
        # --verbose says what is used even when nothing fired.
        expect_exit 0 run -v -- "$prog"
        expect_err "; CUDA driver: "
        expect_err "libgpuguard_sim_cuda.so (GPUGUARD_BACKEND=sim)"
        expect_err "gpuguard run: $prog exited with status 0" ;;
    run_other_processes)
        # $1: reloading_forking_program (tests/intercept): the parent and its
        # forked child each reload the driver and allocate twice. Each
        # process's own 2nd allocation fails; the report is the parent's
        # (the first to call), the child's is REPORT.<pid>, and the tool
        # says there was one other process.
        prog="$1"
        nth2='{"rules":[{"function":"cuMemAlloc","nth":2,"error":"out_of_memory"}]}'
        expect_exit 0 run --faults "$nth2" --report "$work/r.json" -- "$prog"
        grep -qE '^parent: [0-9]+ 2$' "$out" || fail "the parent's 2nd allocation was not the one failed"
        grep -qE '^child: [0-9]+ 2$' "$out" || fail "the child's 2nd allocation was not the one failed"
        grep -qE '^(parent|child): 2 ' "$out" && fail "a 1st allocation failed"
        expect_err "gpuguard run: 1 other process(es) of $prog called the driver too"
        expect_json "$work/r.json" 'd["calls"]["cuMemAlloc_v2"] == 2 and d["rules"][0]["fired"] == 1 and
            d["rules"][0]["first_fired_match"] == 2 and d["written_at"] == "exit"'
        set -- "$work"/r.json.[0-9]*
        [ $# -eq 1 ] && [ -f "$1" ] || fail "not exactly one child's report beside the parent's: $*"
        expect_json "$1" 'd["calls"]["cuMemAlloc_v2"] == 2 and d["rules"][0]["fired"] == 1 and
            d["rules"][0]["first_fired_match"] == 2 and str(d["pid"]) == sys.argv[1].rsplit(".", 1)[1]'
        # A rerun under the same --report: the earlier run's child report is
        # removed before it, and this run's child writes its own.
        old_child="$1"
        expect_exit 0 run --report "$work/r.json" -- "$prog"
        [ ! -e "$old_child" ] || fail "the earlier run's child report $old_child was left beside this run's"
        set -- "$work"/r.json.[0-9]*
        [ $# -eq 1 ] && [ -f "$1" ] || fail "not exactly one child's report after the rerun: $*"
        # With the tool's own temporary report (in TMPDIR, as --verbose
        # shows), nothing is left there.
        mkdir "$work/tmp"
        (TMPDIR="$work/tmp"; export TMPDIR; expect_exit 0 run -v --faults "$nth2" -- "$prog") || exit 1
        expect_err "report: $work/tmp/gpuguard-run-"
        expect_err "gpuguard run: 1 other process(es)"
        [ -z "$(ls -A "$work/tmp")" ] || fail "left in TMPDIR: $(ls -A "$work/tmp")" ;;
    run_refuses)
        # $1: unchecked_alloc. Every refusal exits 2 before the program runs
        # (it would leave a marker) and names what is wrong.
        prog="$1"
        marker="$work/ran"
        never() { expect_exit 2 "$@" -- sh -c ': > "$0"' "$marker"; [ ! -e "$marker" ] || fail "the program ran"; }
        never run --faults '{"rules":[{"function":"cuMemAlloc","nth":1,"error":"out_of_memory"}'
        expect_err "gpuguard run: --faults: fault plan: not valid JSON"
        never run --faults '{"rules":[{"function":"cuMemAlloc","nth":1,"error":"out_of_memry"}]}'
        expect_err 'gpuguard run: --faults: fault plan: rule 0: "error": unknown error "out_of_memry"'
        never run --faults '{"rules":[{"function":"cuMemAlloc","nth":0,"error":"out_of_memory"}]}'
        expect_err '"nth"'
        never run --faults "@$work/missing.json"
        expect_err "cannot read the fault plan $work/missing.json"
        (GPUGUARD_INTERCEPT_FAULTS='[{"op":"alloc"}]'; export GPUGUARD_INTERCEPT_FAULTS; never run) || exit 1
        expect_err "gpuguard run: GPUGUARD_INTERCEPT_FAULTS: fault plan: rule 0"
        never run --driver "$work/none.so"
        expect_err "the driver $work/none.so (from --driver)"
        libm="$(/usr/bin/python3 -c 'import ctypes.util; print(ctypes.util.find_library("m"))')"
        for dir in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
            [ -e "$dir/$libm" ] && { never run --driver "$dir/$libm"; expect_err "is not a CUDA driver: it has no cuInit"; break; }
        done
        never run --report "$work/no/such/folder/report.json"
        expect_err "gpuguard run: --report $work/no/such/folder/report.json: cannot write in its folder"
        never run --hip-runtime "$work/none.so"
        expect_err "the HIP runtime $work/none.so (from --hip-runtime)"
        for dir in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
            [ -e "$dir/$libm" ] && { never run --hip-runtime "$dir/$libm"; expect_err "is not a HIP runtime: it has no hipInit"; break; }
        done
        never run --faults
        expect_err "--faults needs a value"
        never run --frobnicate
        expect_err "unknown option '--frobnicate'"
        expect_exit 2 run
        expect_err "no command given"
        expect_exit 0 run --help
        grep -q '^usage: gpuguard run' "$out" || fail "no usage"
        expect_exit 127 run -- "$work/no-such-program"
        expect_err "cannot run $work/no-such-program" ;;
    run_refuses_itself)
        # $1: the interposer as built (lib/intercept/libcuda.so.1): a driver
        # that is the interposer itself would call itself for ever.
        expect_exit 2 run --driver "$1" -- true
        expect_err "is gpuguard's interposer itself"
        # A copy of it elsewhere (it exports gg_intercept_marker) is no driver either.
        cp "$1" "$work/libcuda.so.1"
        expect_exit 2 run --driver "$work/libcuda.so.1" -- true
        expect_err "is a build of gpuguard's interposer, not a real one"
        # The same for the HIP runtime: the interposer under that name too.
        expect_exit 2 run --hip-runtime "$(dirname "$1")/libamdhip64.so.5" -- true
        expect_err "is gpuguard's interposer itself" ;;
    run_hip_unchecked_alloc)
        # $1: hip_unchecked_alloc, a HIP program linked against the real
        # libamdhip64.so.5, over the interposer and the simulator's HIP face.
        prog="$1"
        expect_exit 0 run -- "$prog"
        grep -q '^verified 4096 elements$' "$out" || fail "no verification"
        [ ! -s "$err" ] || fail "stderr not empty without faults or --verbose"
        fail_hip_staging='{"rules":[{"function":"hipHostMalloc","nth":1,"error":"out_of_memory"}]}'
        if [ "$expect_crash" = CRASH ]; then
            expect_exit $((128 + 11)) run --faults "$fail_hip_staging" -- "$prog"
            expect_err "gpuguard run: $prog was killed by signal 11"
        else
            "$bin" run --faults "$fail_hip_staging" -- "$prog" >"$out" 2>"$err"
            [ $? -ne 0 ] || fail "the run with the staging allocation failed exited 0"
            grep -qE 'Sanitizer|runtime error:' "$err" || fail "no sanitizer report of the NULL store"
        fi
        expect_err 'fired 1 time(s), first at hipHostMalloc (its 1st matching call)'
        # A checked allocation, by operation: a clean exit saying why, and
        # the report counting HIP calls; the name comes from the runtime's
        # hipGetErrorName, a passed-through function.
        expect_exit 1 run --faults '{"rules":[{"op":"alloc","error":"out_of_memory"}]}' --report "$work/report.json" -- "$prog"
        expect_err 'hipMalloc failed: hipErrorOutOfMemory (2)'
        expect_json "$work/report.json" 'd["calls"]["hipMalloc"] == 1 and d["rules"][0]["first_fired_call"] == "hipMalloc"
            and d["calls"]["hipGetDeviceCount"] == 1 and "hipHostMalloc" not in d["calls"] and
            d["hip_runtime"].endswith("libgpuguard_sim_hip.so")'
        # A sticky error after the copy: every later call fails with it.
        expect_exit 1 run --faults '{"rules":[{"function":"hipMemcpyHtoD","error":"illegal_address","mode":"async"}]}' -- "$prog"
        expect_err 'hipMemcpyDtoH failed: hipErrorIllegalAddress (700)'
        expect_err 'hipHostFree failed: hipErrorIllegalAddress (700)' ;;
    run_one_library_missing)
        # $1: unchecked_alloc (CUDA), $2: hip_unchecked_alloc, $3: the
        # simulator's HIP face, on a machine whose loader finds no CUDA
        # driver: a HIP program runs as it would without gpuguard; a CUDA
        # program's calls fail as with NVIDIA's stub library, and the tool
        # says so, and why, instead of leaving "error 34" unexplained.
        if /usr/bin/python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
            echo "skipped: the dynamic loader finds a libcuda.so.1 here"
            exit 77
        fi
        unset GPUGUARD_BACKEND GPUGUARD_INTERCEPT_DRIVER GPUGUARD_CUDA_LIBRARY
        expect_exit 0 run --hip-runtime "$3" -- "$2"
        grep -q '^verified 4096 elements$' "$out" || fail "no verification"
        [ ! -s "$err" ] || fail "stderr not empty for a HIP program on a machine without a CUDA driver"
        expect_exit 0 run -v --hip-runtime "$3" -- "$2"
        expect_err "CUDA driver: none (the dynamic loader finds no libcuda.so.1)"
        # With no --hip-runtime, the runtime the loader finds (Debian's,
        # where installed: no device here, so the program stops at its first
        # check; on an AMD GPU it runs through).
        if /usr/bin/python3 -c 'import ctypes; ctypes.CDLL("libamdhip64.so.5")' 2>/dev/null; then
            "$bin" run -v --report "$work/real.json" -- "$2" >"$out" 2>"$err"
            rc=$?
            expect_err "(the system's places)"
            case "$rc" in
                0) grep -q '^verified 4096 elements$' "$out" || fail "exit 0 without verification" ;;
                1) expect_err "hipGetDeviceCount failed: hipErrorNoDevice (100)" ;;
                *) fail "over the loader's HIP runtime it exited $rc" ;;
            esac
            expect_json "$work/real.json" '"gpuguard" not in d["hip_runtime"] and "libamdhip64.so.5" in d["hip_runtime"]
                and d["calls"]["hipGetDeviceCount"] == 1'
        fi
        expect_exit 1 run --hip-runtime "$3" -- "$1"
        expect_err "cuInit failed"
        expect_err "gpuguard run: the program called the CUDA driver ("
        expect_err "they all returned CUDA_ERROR_STUB_LIBRARY (34)"
        expect_exit 1 sweep --intercept --hip-runtime "$3" -- "$1"
        expect_err "the counting run of $1 cannot be swept: the program called the CUDA driver" ;;
    sweep_hip_unchecked_alloc)
        # $1: hip_unchecked_alloc. Every HIP call it makes is failed once;
        # the one bug is found, by HIP function and call.
        expect_exit 1 sweep --intercept --json "$work/sweep.json" -- "$1"
        grep -qE "^hipHostMalloc +1 out_of_memory +immediate +$expect_crash " "$out" ||
            fail "no $expect_crash line for hipHostMalloc call 1"
        grep -q "^  $expect_crash: hipHostMalloc call 1 failed with out_of_memory (immediate)$" "$out" ||
            fail "the bug is not in the summary"
        expect_json "$work/sweep.json" 'd["kind"] == "intercept" and sorted(r["function"] for r in d["runs"]) == sorted([
                "hipGetDeviceCount", "hipSetDevice", "hipMalloc", "hipHostMalloc", "hipMemcpyHtoD",
                "hipMemcpyDtoH", "hipHostFree", "hipFree"]) and
            [r["outcome"] for r in d["runs"] if r["outcome"] != "clean-exit"] == ["'"$expect_crash"'"]' ;;
    sweep_unchecked_alloc)
        # $1: unchecked_alloc, then its arguments. Every driver call it makes
        # is failed once; the one bug is found, by driver function and call.
        proc_calls=0
        case " $* " in *" --proc-address "*) proc_calls=11 ;; esac # one per entry point
        expect_exit 1 sweep --intercept --json "$work/sweep.json" -- "$@"
        grep -qE "^cuMemAllocHost_v2 +1 out_of_memory +immediate +$expect_crash " "$out" ||
            fail "no $expect_crash line for cuMemAllocHost_v2 call 1"
        grep -q "^  $expect_crash: cuMemAllocHost_v2 call 1 failed with out_of_memory (immediate)$" "$out" ||
            fail "the bug is not in the summary"
        # (With --proc-address it also calls cuGetProcAddress_v2 once per
        # entry point: each of those calls is failed in turn too.)
        expect_json "$work/sweep.json" 'd["kind"] == "intercept" and
            sorted(r["function"] for r in d["runs"] if r["function"] != "cuGetProcAddress_v2") == sorted([
                "cuInit", "cuDeviceGet", "cuCtxCreate_v2", "cuCtxDestroy_v2", "cuMemAlloc_v2", "cuMemFree_v2",
                "cuMemAllocHost_v2", "cuMemFreeHost", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2"]) and
            all(r["call"] == 1 for r in d["runs"] if r["function"] != "cuGetProcAddress_v2") and
            [r["call"] for r in d["runs"] if r["function"] == "cuGetProcAddress_v2"] ==
                list(range(1, '"$proc_calls"' + 1)) and
            all(r["fired"] and r["failed_call"] == r["function"] for r in d["runs"]) and
            [(r["function"], r["outcome"]) for r in d["runs"] if r["outcome"] != "clean-exit"] ==
                [("cuMemAllocHost_v2", "'"$expect_crash"'")] and
            all(r["error"] == ("out_of_memory" if r["function"].startswith("cuMemAlloc") else "driver")
                for r in d["runs"]) and
            d["summary"]["'"$expect_crash"'"] == 1 and d["summary"]["not_reached"] == 0' ;;
    sweep_options)
        # $1: unchecked_alloc. --function (a base name takes in its variants),
        # --errors, --mode both and --max-runs shape the runs.
        # An async launch_failed latched at cuMemAlloc lets that call succeed
        # and fails the next one in the context, the unchecked cuMemAllocHost:
        # the same crash, reached another way.
        expect_exit 1 sweep --intercept --function cuMemAlloc --function cuMemcpyHtoD --errors out_of_memory,launch_failed \
            --mode both --json "$work/sweep.json" -- "$1"
        expect_json "$work/sweep.json" '[(r["function"], r["error"], r["mode"], r["outcome"]) for r in d["runs"]] == [
            ("cuMemAlloc_v2", "out_of_memory", "immediate", "clean-exit"),
            ("cuMemAlloc_v2", "launch_failed", "immediate", "clean-exit"),
            ("cuMemAlloc_v2", "launch_failed", "async", "'"$expect_crash"'"),
            ("cuMemcpyHtoD_v2", "out_of_memory", "immediate", "clean-exit"),
            ("cuMemcpyHtoD_v2", "launch_failed", "immediate", "clean-exit"),
            ("cuMemcpyHtoD_v2", "launch_failed", "async", "clean-exit")]'
        expect_exit 0 sweep --intercept --max-runs 2 --json "$work/capped.json" -- "$1"
        grep -q '2 run(s) (capped by --max-runs)' "$out" || fail "not capped"
        expect_json "$work/capped.json" 'len(d["runs"]) == 2'
        # The driver named explicitly (no GPUGUARD_BACKEND) works the same.
        (unset GPUGUARD_BACKEND; expect_exit 0 sweep --intercept --driver "$2" --function cuMemFree -- "$1") || exit 1
        grep -qE '^cuMemFree_v2 +1 driver +immediate +clean-exit ' "$out" || fail "cuMemFree_v2 not swept" ;;
    sweep_cannot_pass_empty)
        # $1: unchecked_alloc. Each way an intercept sweep could pass having
        # tested nothing fails, saying why.
        expect_exit 1 sweep --intercept -- true
        expect_err "left no interposer report"
        expect_exit 1 sweep --intercept --function cuMemsetD8 -- "$1"
        expect_err "--function cuMemsetD8: $1 never called it"
        # cuMemAlloc's own error, out_of_memory, is never latched: no run.
        expect_exit 1 sweep --intercept --function cuMemAlloc --mode async -- "$1"
        expect_err "no injected run was made"
        marker="$work/counted"
        expect_exit 1 sweep --intercept --function cuMemAlloc -- sh -c '[ -e "$0" ] && exit 0; : > "$0"; exec "$1"' \
            "$marker" "$1"
        expect_err "no run reached its fault"
        expect_exit 1 sweep --intercept -- "$1" --n 0
        expect_err "the counting run of $1 failed" ;;
    sweep_usage)
        expect_exit 2 sweep --intercept --host-alloc -- true
        expect_exit 2 sweep --intercept --ops alloc -- true
        expect_exit 2 sweep --intercept --pairs --max-runs 3 -- true
        expect_exit 2 sweep --function cuMemAlloc -- true
        expect_exit 2 sweep --intercept --errors out_of_memry -- true
        expect_err "--errors: unknown error 'out_of_memry'; the errors: "
        expect_exit 0 sweep --help
        grep -q 'launch_failed for launches' "$out" || fail "the default errors are not in the usage" ;;
    sweep_pycuda)
        # $@: PyCUDA's watchdog story (examples/python/pycuda_vs_gpuguard),
        # which runs to the end without a fault, as python and its arguments;
        # run by tests/pycuda/with_pycuda.sh. An exception after
        # make_context() skips ctx.pop(), and at exit PyCUDA aborts with the
        # context still pushed: the sweep finds those aborts and names the
        # driver call that was failed. PyCUDA retries an allocation that
        # failed with out of memory (after a garbage collection), so that
        # one is tolerated.
        expect_exit 1 sweep --intercept --function cuMemAlloc --function cuLaunchKernel --function cuMemcpyDtoH \
            --max-runs 6 --json "$work/sweep.json" -- "$@"
        grep -qE '^cuLaunchKernel +1 launch_failed +immediate +ABORT +signal 6$' "$out" ||
            fail "no ABORT line for cuLaunchKernel call 1"
        grep -q '^  ABORT: cuLaunchKernel call 1 failed with launch_failed (immediate)$' "$out" ||
            fail "the abort is not in the summary"
        expect_json "$work/sweep.json" '[(r["function"], r["call"], r["error"], r["outcome"]) for r in d["runs"]] == [
                ("cuLaunchKernel", 1, "launch_failed", "ABORT"), ("cuMemAlloc_v2", 1, "out_of_memory", "tolerated"),
                ("cuMemcpyDtoH_v2", 1, "driver", "ABORT")] and
            all(r["fired"] and r["failed_call"] == r["function"] for r in d["runs"]) and
            "cuLaunchKernel failed" in d["runs"][0]["stderr_tail"] and
            all("The context stack was not empty upon module cleanup" in r["stderr_tail"]
                for r in d["runs"] if r["outcome"] == "ABORT")' ;;
    run_pycuda)
        # $@: as sweep_pycuda. One of the aborts the sweep found, on demand.
        expect_exit $((128 + 6)) run --faults '{"rules":[{"function":"cuLaunchKernel","nth":1,"error":"launch_failed"}]}' \
            -- "$@"
        expect_err "pycuda._driver.LaunchError: cuLaunchKernel failed"
        expect_err "The context stack was not empty upon module cleanup"
        expect_err 'gpuguard run: rule 0 {"function":"cuLaunchKernel","nth":1,"error":"launch_failed"} fired 1 time(s), first at cuLaunchKernel'
        expect_err "was killed by signal 6"
        grep -q 'scaled' "$out" && fail "the story carried on past the fault"
        # The tolerated one: PyCUDA calls cuMemAlloc again and carries on.
        expect_exit 0 run --faults "$fail_device" --report "$work/report.json" -- "$@"
        grep -q '^scaled 262144 elements$' "$out" || fail "the story did not complete after the retried allocation"
        expect_json "$work/report.json" 'd["calls"]["cuMemAlloc_v2"] == 2 and d["rules"][0]["fired"] == 1'
        # Without a plan it runs to the end as it does without gpuguard.
        expect_exit 0 run -- "$@"
        grep -q '^scaled 262144 elements$' "$out" || fail "the story did not complete without faults"
        [ ! -s "$err" ] || fail "stderr not empty without faults" ;;
    *) echo "unknown case $case"; exit 2 ;;
esac
echo "PASS: $case"
