#!/usr/bin/python3
"""Tests numba_suite.py's runner on a package of tests written here (no
numba needed): each outcome is recorded; a test that kills its process and
one that hangs past --test-limit are recorded as crashed and hung, and the
tests after them still run; --only selects tests; a package that does not
load is one error and an incomplete end; --limit stops a run that is out of
time."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "numba_suite.py")

TESTS = '''
import os, signal, time, unittest

class T(unittest.TestCase):
    def test_1_pass(self):
        pass
    def test_2_fail(self):
        self.assertEqual(1, 2)
    def test_3_error(self):
        raise RuntimeError("boom 42")
    @unittest.skip("not here")
    def test_4_skip(self):
        pass
    def test_5_crash(self):
        os.kill(os.getpid(), signal.SIGSEGV)
    def test_6_hang(self):
        time.sleep(600)
    @unittest.expectedFailure
    def test_7_xfail(self):
        self.assertTrue(False)
    def test_8_subtests(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)
    def test_9_pass(self):
        pass
'''

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def run(folder, out, package, *args):
    env = dict(os.environ, PYTHONPATH=folder, PYTHONDONTWRITEBYTECODE="1")
    env.pop("NUMBA_CUDA_DRIVER", None)
    proc = subprocess.run([sys.executable, RUNNER, "run", out, package, *args], env=env,
                          capture_output=True, text=True, check=False, timeout=120)
    events = []
    with open(out) as lines:
        for line in lines:
            events.append(json.loads(line))
    return proc.returncode, events


def outcomes(events):
    return {e["id"].split(".")[-1]: e["outcome"] for e in events if e.get("event") == "result"}


with tempfile.TemporaryDirectory() as folder:
    os.mkdir(os.path.join(folder, "fakesuite"))
    with open(os.path.join(folder, "fakesuite", "__init__.py"), "w") as init:
        init.write("")
    with open(os.path.join(folder, "fakesuite", "test_cases.py"), "w") as cases:
        cases.write(TESTS)
    with open(os.path.join(folder, "broken.py"), "w") as broken:
        # As numba's load_tests does when cuda.is_available fails: print
        # the traceback, then exit.
        broken.write("import sys\n"
                     "print('Traceback (most recent call last):', file=sys.stderr)\n"
                     "print('CudaDriverError: no such thing 7', file=sys.stderr)\n"
                     "sys.exit(-1)\n")

    out = os.path.join(folder, "all.jsonl")
    status, events = run(folder, out, "fakesuite.test_cases", "--test-limit", "3")
    got = outcomes(events)
    check(status == 0, f"a package run to its end exits 0, got {status}")
    check(got.get("test_1_pass") == "passed", f"pass: {got}")
    check(got.get("test_2_fail") == "failed", f"fail: {got}")
    check(got.get("test_3_error") == "error", f"error: {got}")
    check(got.get("test_4_skip") == "skipped", f"skip: {got}")
    check(got.get("test_5_crash") == "crashed", f"crash: {got}")
    check(got.get("test_6_hang") == "hung", f"hang: {got}")
    check(got.get("test_7_xfail") == "xfailed", f"xfail: {got}")
    check(got.get("test_9_pass") == "passed", f"the tests after a crash and a hang run: {got}")
    subtests = [e for e in events if e.get("event") == "result" and "test_8" in e["id"]]
    check(len(subtests) == 1 and subtests[0]["outcome"] == "failed" and "(i=1)" in subtests[0]["id"],
          f"one failing subtest: {subtests}")
    messages = {e["id"].split(".")[-1]: e["message"] for e in events if e.get("event") == "result"}
    check(messages.get("test_3_error") == "RuntimeError: boom 42", f"message: {messages}")
    check("signal 11" in messages.get("test_5_crash", ""), f"crash message: {messages}")
    check(events[-1] == {"event": "end"}, f"ends with end: {events[-1]}")
    check(sum(1 for e in events if e.get("event") == "start" and "test_1_pass" in e["id"]) == 1,
          "no test runs twice")

    out = os.path.join(folder, "only.jsonl")
    status, events = run(folder, out, "fakesuite.test_cases", "--only", "test_[19]_pass$")
    check(sorted(outcomes(events)) == ["test_1_pass", "test_9_pass"] and status == 0,
          f"--only: {outcomes(events)} {status}")

    out = os.path.join(folder, "broken.jsonl")
    status, events = run(folder, out, "broken")
    results = [e for e in events if e.get("event") == "result"]
    check(status == 1 and len(results) == 1 and results[0]["outcome"] == "error"
          and results[0]["message"] == "CudaDriverError: no such thing 7" and "incomplete" in events[-1],
          f"a package that does not load: {status} {events}")

    out = os.path.join(folder, "limit.jsonl")
    status, events = run(folder, out, "fakesuite.test_cases", "--only", "hang",
                         "--limit", "2", "--test-limit", "100")
    check(status == 1 and outcomes(events).get("test_6_hang") == "hung"
          and "incomplete" in events[-1], f"--limit: {status} {events}")

for failure in failures:
    print("FAIL:", failure)
print(f"numba_suite: {len(failures)} failed checks")
sys.exit(1 if failures else 0)
