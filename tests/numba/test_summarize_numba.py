#!/usr/bin/python3
"""Tests summarize_numba.py on results written here: the counts, the
grouping of failures by cause (a missing driver function, the driver call
the exception names with the simulator's detail, numbers generalised), an
incomplete package, and --must-pass's regression check and exit status."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARIZE = os.path.join(HERE, "summarize_numba.py")
P = "numba.cuda.tests.cudapy.test_x.T."


def result(name, outcome, message="", errors=()):
    return {"event": "result", "id": P + name, "outcome": outcome, "message": message,
            "seconds": 0.1, "driver_errors": [list(e) for e in errors]}


RESULTS = [
    result("test_a", "passed"),
    result("test_b", "passed"),
    result("test_c", "error", "numba.cuda.cudadrv.error.CudaDriverError: "
           "Driver missing function: cuStreamAddCallback"),
    result("test_d", "error", "CudaAPIError: [1] Call to cuModuleLoadDataEx results in "
           "CUDA_ERROR_INVALID_PTX",
           [("cuMemFree", "CUDA_ERROR_INVALID_VALUE", "an older error"),
            ("cuModuleLoadDataEx", "CUDA_ERROR_INVALID_PTX", "PTX line 12: no .foo")]),
    result("test_e", "error", "CudaAPIError: [1] Call to cuModuleLoadDataEx results in "
           "CUDA_ERROR_INVALID_PTX",
           [("cuModuleLoadDataEx", "CUDA_ERROR_INVALID_PTX", "PTX line 340: no .foo")]),
    result("test_f", "failed", "AssertionError: 3 != 4",
           [("cuMemsetD8", "CUDA_ERROR_INVALID_VALUE", "")]),
    result("test_g", "failed", "AssertionError: 12 != 0.5"),
    result("test_h", "skipped", "needs scipy"),
    result("test_i", "crashed", "crashed: killed by signal 11"),
    result("test_j", "error", "CudaAPIError: [1] Call to cuLaunchKernel results in "
           "CUDA_ERROR_INVALID_VALUE"),
    # Two failing subtests of one test (with parameters, with a message):
    # one failed test, two failing results.
    result("test_k (i=1)", "failed", "AssertionError: 1 == 1"),
    result("test_k [on nan]", "failed", "AssertionError: 1 == 1"),
]


def write(folder, name, lines):
    path = os.path.join(folder, name)
    with open(path, "w") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
    return path


def run(*args):
    proc = subprocess.run([sys.executable, SUMMARIZE, *args],
                          capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout, proc.stderr


failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def cause_count(out, text):
    """The count printed before the cause line that contains TEXT."""
    for line in out.splitlines():
        if text in line and "[e.g." in line:
            return int(line.split()[0])
    return None


with tempfile.TemporaryDirectory() as folder:
    path = write(folder, "cudapy.jsonl", [{"event": "start", "id": P + "test_a"}] + RESULTS
                 + [{"event": "end"}])
    status, out, err = run(path)
    check(status == 1, f"failures give exit 1, got {status} ({err})")
    check("cudapy: 2 passed, 3 failed, 4 error, 1 skipped, 0 xfailed, 0 xpassed, "
          "1 crashed, 0 hung (11 tests)" in out, f"counts line: {out}")
    check("failing results by cause (9:" in out, f"failing results: {out}")
    check(cause_count(out, "AssertionError: N == N") == 2, "subtests' results each count")
    check(cause_count(out, "cuStreamAddCallback missing from the driver") == 1, "missing function")
    # The call the exception names, not the earlier error; line numbers as N.
    check(cause_count(out, "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (PTX line N: no .foo)")
          == 2, f"named call with detail grouped: {out}")
    check("an older error" not in out, "an earlier driver error is not the cause")
    check(cause_count(out, "cuMemsetD8: CUDA_ERROR_INVALID_VALUE  [") == 1,
          "a driver error explains an assertion")
    check(cause_count(out, "AssertionError: N != N") == 1, "exception line generalised")
    check(cause_count(out, "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE") == 1,
          "a named call without a recorded error")
    check(cause_count(out, "crashed: killed by signal N") == 1, "crash")
    check(cause_count(out, "needs scipy") == 1, "skip reason")
    check("INCOMPLETE" not in out, "a package that ended is complete")

    # Every test passed or skipped: exit 0.
    clean = write(folder, "cudadrv.jsonl", [RESULTS[0], RESULTS[7], {"event": "end"}])
    status, out, _ = run(clean)
    check(status == 0, f"a clean package gives exit 0, got {status}")

    # A package that stopped before its end is incomplete, and fails.
    cut = write(folder, "cut.jsonl", [RESULTS[0]])
    status, out, _ = run(cut)
    check(status == 1 and "INCOMPLETE" in out, f"a cut package fails: {status} {out}")
    load = write(folder, "load.jsonl", [
        {"event": "result", "id": "load numba.cuda.tests.cudadrv", "outcome": "error",
         "message": "CudaDriverError: Driver missing function: cuDeviceGetUuid",
         "driver_errors": []},
        {"event": "end", "incomplete": "the tests could not be loaded"}])
    status, out, _ = run(load)
    check(status == 1 and out.startswith("cudadrv: 0 passed") and
          "INCOMPLETE: the tests could not be loaded" in out and
          cause_count(out, "cuDeviceGetUuid missing from the driver") == 1,
          f"a package that did not load: {out}")

    # --must-pass: exit 0 while every listed test passed, other failures
    # allowed; 1, naming it, when one listed did not pass.
    listed = os.path.join(folder, "must_pass.txt")
    with open(listed, "w") as out_file:
        out_file.write("# comment\n" + P + "test_a\n" + P + "test_b\n")
    status, out, _ = run("--must-pass", listed, path)
    check(status == 0 and "2 of the 2 tests that must pass passed" in out,
          f"must-pass met: {status} {out}")
    with open(listed, "a") as out_file:
        out_file.write(P + "test_c\n")
    status, out, _ = run("--must-pass", listed, path)
    check(status == 1 and f"REGRESSION: {P}test_c" in out,
          f"must-pass regression: {status} {out}")

    # Bad input: exit 2.
    bad = os.path.join(folder, "bad.jsonl")
    with open(bad, "w") as out_file:
        out_file.write('{"event": "result", "id": "x", "outcome": "weird"}\n')
    check(run(bad)[0] == 2, "an unknown outcome is bad input")
    check(run()[0] == 2, "no file is bad input")
    check(run(os.path.join(folder, "absent.jsonl"))[0] == 2, "a missing file is bad input")

for failure in failures:
    print("FAIL:", failure)
print(f"summarize_numba: {len(failures)} failed checks")
sys.exit(1 if failures else 0)
