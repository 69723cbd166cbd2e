#!/bin/sh
# gpuguard's interposer and sweep over a numba program with a real kernel
# (issue 31, item 4): `gpuguard sweep --intercept -- /usr/bin/python3
# vector_add.py` over the simulator's 11.x face, numba set up by
# with_numba.sh and finding the interposer as libcuda.so.1 (its own search,
# NUMBA_CUDA_DRIVER unset). Checks, from the sweep's JSON: the sweep ran to
# its end (exit 0: no crash, abort, hang or sanitizer report), every run is
# classified and reached its fault, the kernel's launch was among the calls
# swept, and at least one injected run made numba exit cleanly with an
# error; then runs one such run's plan again and checks that numba raised a
# CudaAPIError (not a crash). Exits 77 (skipped) when numba is missing.
# Usage: sweep_numba.sh GPUGUARD REFEREE_DIR SIM_CUDA11 CUDART_DIR WORK_DIR
set -u
[ $# -eq 5 ] || { echo "usage: $0 GPUGUARD REFEREE_DIR SIM_CUDA11 CUDART_DIR WORK_DIR" >&2; exit 2; }
tool=$1 referees=$2 sim=$3 cudart=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
# Bounds: numba's vector add makes 52 driver calls (one run each); a run
# takes about a second here, so the whole sweep fits; a hang ends at 60 s.
max_runs=60 timeout=60
mkdir -p "$work" || exit 1
rm -f "$work/sweep.json" "$work/sweep.out" "$work/replay.out"
cd "$work" || exit 1
# Inside with_numba.sh (77 when a package is missing): numba is to look for
# libcuda.so.1 itself, and get the interposer.
sh "$here/with_numba.sh" "$referees" "$sim" "$cudart" "$work" sh -c '
    unset NUMBA_CUDA_DRIVER
    exec "$0" sweep --intercept --driver "$1" --max-runs "$2" --timeout "$3" --json "$4" -- \
        /usr/bin/python3 "$5"' \
    "$tool" "$sim" "$max_runs" "$timeout" "$work/sweep.json" "$here/vector_add.py" > "$work/sweep.out" 2>&1
status=$?
[ "$status" -eq 77 ] && { cat "$work/sweep.out"; exit 77; }
tail -n 3 "$work/sweep.out"
if [ "$status" -ne 0 ]; then
    echo "FAILED: the sweep exited $status"
    cat "$work/sweep.out"
    exit 1
fi
# The JSON's verdicts; prints the plan of a clean-exit run to replay.
plan=$(/usr/bin/python3 - "$work/sweep.json" "$max_runs" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
runs, summary = report["runs"], report["summary"]
problems = []
outcomes = ("tolerated", "clean-exit", "CRASH", "ABORT", "HANG", "SANITIZER")
if not 0 < len(runs) <= int(sys.argv[2]):
    problems.append("%d runs, not 1 to %s" % (len(runs), sys.argv[2]))
if sum(summary[o] for o in outcomes) != len(runs):
    problems.append("the summary's outcomes do not add up to the %d runs" % len(runs))
for r in runs:
    if r["outcome"] not in outcomes or not r["fired"]:
        problems.append("run %s #%d: outcome %s, fired %s" % (r["function"], r["call"], r["outcome"], r["fired"]))
for o in ("CRASH", "ABORT", "HANG", "SANITIZER", "not_reached"):
    if summary[o]:
        problems.append("%d runs %s" % (summary[o], o))
if not any(r["function"] == "cuLaunchKernel" for r in runs):
    problems.append("the kernel's launch (cuLaunchKernel) was not swept")
clean = [r for r in runs if r["outcome"] == "clean-exit"]
if not clean:
    problems.append("no injected run made numba exit with an error")
for p in problems:
    print("FAILED:", p, file=sys.stderr)
print("runs %d: %s" % (len(runs), ", ".join("%s %d" % (o, summary[o]) for o in outcomes)), file=sys.stderr)
if problems:
    sys.exit(1)
# The copy to the device, where numba has one, else the first clean exit.
pick = ([r for r in clean if r["function"].startswith("cuMemcpyHtoD")] + clean)[0]
print(json.dumps({"rules": [{"function": pick["failed_call"], "nth": pick["call"], "error": pick["error"]}]}))
PY
) || exit 1
echo "replaying $plan"
sh "$here/with_numba.sh" "$referees" "$sim" "$cudart" "$work" sh -c '
    unset NUMBA_CUDA_DRIVER
    exec "$0" run --driver "$1" --faults "$2" -- /usr/bin/python3 "$3"' \
    "$tool" "$sim" "$plan" "$here/vector_add.py" > "$work/replay.out" 2>&1
status=$?
if [ "$status" -eq 1 ] && grep -q "CudaAPIError" "$work/replay.out" && ! grep -q "vector add: ok" "$work/replay.out"; then
    grep "CudaAPIError" "$work/replay.out" | tail -n 1
    echo "ok: numba raised a CudaAPIError and exited 1"
    exit 0
fi
echo "FAILED: the replayed run exited $status without numba's CudaAPIError"
cat "$work/replay.out"
exit 1
