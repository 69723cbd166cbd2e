#!/usr/bin/python3
"""Runs one of numba's own CUDA test packages, unmodified, and writes one
JSON line per event, so that a crash or a hang of one test loses nothing.

  numba_suite.py run OUT.jsonl PACKAGE [--limit S] [--test-limit S]
                 [--only REGEX]...
      Runs PACKAGE (e.g. numba.cuda.tests.cudadrv) in child processes. A
      child that dies (a signal, an exit in the middle of the suite) or
      that spends more than --test-limit seconds (default 300) in one test
      is ended; that test is recorded as "crashed" or "hung", and a new
      child goes on with the tests not yet run, until all have run or
      --limit seconds (default 1800) have passed. --only keeps the tests
      whose id matches one of the regular expressions (re.search).
  numba_suite.py child OUT.jsonl PACKAGE DONE.txt [--only REGEX]...
      (internal) runs the tests of PACKAGE whose ids are not in DONE.txt.

The lines of OUT.jsonl:
  {"event": "start", "id": ID}
  {"event": "result", "id": ID, "outcome": OUTCOME, "message": TEXT,
   "seconds": S, "driver_errors": [[CALL, ERROR, DETAIL], ...]}
  {"event": "end"}   when the package ran to its end; with "incomplete":
                     REASON when it could not (not loaded, out of time)
with OUTCOME one of passed, failed, error, skipped, xfailed, xpassed,
crashed, hung. message is the exception's last line (for failures and
errors), the skip reason, or what ended the child. driver_errors are the
driver calls that returned an error during the test, each with the
simulator's explanation (gg_sim_last_error_detail, read at once, as the
driver returned), which numba itself never asks for: the hook that reads it
wraps numba's error check and changes no result.

Run it under with_numba.sh, which points numba at the simulator
(NUMBA_CUDA_DRIVER) and the rest of its toolkit.
"""
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback
import unittest

DEFAULT_LIMIT = 1800
DEFAULT_TEST_LIMIT = 300


def write_line(out, record):
    out.write(json.dumps(record) + "\n")
    out.flush()


def last_line(text):
    """The exception line of a formatted traceback: its last non-blank line
    that does not start with whitespace, else its last non-blank line."""
    lines = [line for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if not line[0].isspace() and not line.startswith("Traceback"):
            return line.strip()
    return lines[-1].strip() if lines else ""


class DriverErrorHook:
    """Records each error a numba driver call returns, with the simulator's
    detail, by wrapping numba's Driver._check_ctypes_error (which raises
    the CudaAPIError: the wrapper calls it unchanged)."""

    def __init__(self):
        self.errors = []
        self.detail = None
        sim = os.environ.get("NUMBA_CUDA_DRIVER")
        if sim:
            import ctypes
            try:
                lib = ctypes.CDLL(sim)
                self.detail = lib.gg_sim_last_error_detail
                self.detail.restype = ctypes.c_char_p
                self.detail.argtypes = []
                self.sentinel_call = lib.cuDeviceGet
            except (OSError, AttributeError):
                self.detail = None
        self.sentinel = ""
        try:
            from numba.cuda.cudadrv import driver
        except ImportError:
            self.detail = None  # not numba's tests (test_numba_suite.py)
            return
        original = driver.Driver._check_ctypes_error
        hook = self

        def checked(drv, fname, retcode):
            if retcode != 0:
                detail = hook.read_detail()
                if detail == hook.sentinel:
                    detail = ""  # the call recorded no reason of its own
                name = driver.ERROR_MAP.get(retcode, "UNKNOWN_CUDA_ERROR")
                hook.errors.append([fname, name, detail])
                hook.mark()
            return original(drv, fname, retcode)

        driver.Driver._check_ctypes_error = checked

    def read_detail(self):
        if self.detail is None:
            return ""
        raw = self.detail()
        return raw.decode("utf-8", "replace") if raw else ""

    def mark(self):
        """Overwrites the thread's detail with a known one. The simulator
        keeps the latest reason until another error records one, so an
        error that records none would otherwise show an older call's
        reason: one equal to this mark is no reason at all. cuDeviceGet of
        an ordinal no simulator has fails without side effects."""
        if self.detail is None:
            return
        import ctypes
        self.sentinel_call(ctypes.byref(ctypes.c_int()), 0x7fffffff)
        self.sentinel = self.read_detail()

    def take(self):
        errors, self.errors = self.errors, []
        self.mark()
        return errors[:20]


class JsonResult(unittest.TestResult):
    """A unittest result that writes each test's start and outcome."""

    def __init__(self, out, hook):
        super().__init__()
        self.out = out
        self.hook = hook
        self.started = time.monotonic()

    def startTest(self, test):
        super().startTest(test)
        self.hook.take()
        self.started = time.monotonic()
        write_line(self.out, {"event": "start", "id": test.id()})

    def _result(self, test, outcome, message):
        write_line(self.out, {"event": "result", "id": test.id(), "outcome": outcome,
                              "message": message[:2000],
                              "seconds": round(time.monotonic() - self.started, 3),
                              "driver_errors": self.hook.take()})

    def addSuccess(self, test):
        super().addSuccess(test)
        self._result(test, "passed", "")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._result(test, "failed", last_line("".join(traceback.format_exception(*err))))

    def addError(self, test, err):
        super().addError(test, err)
        # A class or module fixture's error arrives with an _ErrorHolder,
        # never started: it counts as one error, under its description.
        self._result(test, "error", last_line("".join(traceback.format_exception(*err))))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._result(test, "skipped", str(reason))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._result(test, "xfailed", last_line("".join(traceback.format_exception(*err))))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._result(test, "xpassed", "expected to fail, passed")

    def addSubTest(self, test, subtest, err):
        # A failing subtest fails its test; unittest reports it here only.
        super().addSubTest(test, subtest, err)
        if err is not None:
            outcome = "failed" if issubclass(err[0], test.failureException) else "error"
            self._result(subtest, outcome,
                         last_line("".join(traceback.format_exception(*err))))


def flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def selected(test_id, only):
    return not only or any(re.search(pattern, test_id) for pattern in only)


def load(out, package):
    """PACKAGE's tests as numba's own runner loads them (its loader knows
    numba's top-level folder); None, with an error result for "load
    PACKAGE", when loading fails (numba's load_tests prints the traceback
    and exits, at cuda.is_available's first driver error)."""
    try:
        from numba.testing.loader import TestLoader
    except ImportError:
        TestLoader = unittest.TestLoader  # not numba's tests (test_numba_suite.py)
    captured = io.StringIO()
    saved, sys.stderr = sys.stderr, captured
    try:
        return TestLoader().loadTestsFromName(package)
    except BaseException as err:  # numba's load_testsuite calls sys.exit
        text = captured.getvalue() or "".join(traceback.format_exception(err))
        write_line(out, {"event": "start", "id": f"load {package}"})
        write_line(out, {"event": "result", "id": f"load {package}", "outcome": "error",
                         "message": last_line(text)[:2000], "driver_errors": []})
        write_line(out, {"event": "end", "incomplete": "the tests could not be loaded"})
        return None
    finally:
        sys.stderr = saved
        sys.stderr.write(captured.getvalue())


def child(out_path, package, done_path, only):
    with open(done_path) as done_file:
        done = set(line.strip() for line in done_file)
    with open(out_path, "a") as out:
        hook = DriverErrorHook()
        loaded = load(out, package)
        if loaded is None:
            return 1
        # One suite keeps unittest's class fixtures (setUpClass) working.
        suite = unittest.TestSuite(
            test for test in flatten(loaded)
            if test.id() not in done and selected(test.id(), only))
        suite.run(JsonResult(out, hook))
        write_line(out, {"event": "end"})
    return 0


def read_events(path):
    events = []
    try:
        with open(path) as lines:
            for line in lines:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass  # a line cut short by the end of a child
    except FileNotFoundError:
        pass
    return events


def run(out_path, package, limit, test_limit, only):
    open(out_path, "w").close()
    done_path = out_path + ".done"
    started = time.monotonic()
    attempts = 0
    while True:
        events = read_events(out_path)
        done = set(e["id"] for e in events if e.get("event") in ("start", "result"))
        with open(done_path, "w") as done_file:
            done_file.write("".join(test_id + "\n" for test_id in sorted(done)))
        attempts += 1
        args = [sys.executable, os.path.abspath(__file__), "child", out_path, package, done_path]
        for pattern in only:
            args += ["--only", pattern]
        proc = subprocess.Popen(args, start_new_session=True)
        ended_by = None
        seen, since = len(events), time.monotonic()
        while proc.poll() is None:
            time.sleep(1)
            now = time.monotonic()
            events = read_events(out_path)
            if len(events) != seen:
                seen, since = len(events), now
            if now - since > test_limit:
                ended_by = f"hung: no result after {test_limit} s"
            elif now - started > limit:
                ended_by = f"stopped: the suite's {limit} s were up"
            if ended_by:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
        events = read_events(out_path)
        if events and events[-1].get("event") == "end":
            return 1 if "incomplete" in events[-1] else 0
        results = set(e["id"] for e in events if e.get("event") == "result")
        running = [e["id"] for e in events
                   if e.get("event") == "start" and e["id"] not in results]
        if not ended_by:
            status = proc.returncode
            ended_by = (f"crashed: killed by signal {-status}" if status < 0
                        else f"crashed: the process exited with status {status}")
        with open(out_path, "a") as out:
            for test_id in running[-1:]:
                outcome = ended_by.split(":")[0]
                if outcome == "stopped":
                    outcome = "hung"
                write_line(out, {"event": "result", "id": test_id, "outcome": outcome,
                                 "message": ended_by, "driver_errors": []})
            if ended_by.startswith("stopped") or not running:
                # Out of time, or a child that died before its first test
                # (an import error): going on would repeat it.
                write_line(out, {"event": "end", "incomplete": ended_by})
                return 1
        print(f"numba_suite: {running[-1]} {ended_by}; going on with the rest "
              f"(attempt {attempts + 1})", file=sys.stderr, flush=True)


def parse(argv):
    positional, only, options = [], [], {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--only", "--limit", "--test-limit"):
            if i + 1 >= len(argv):
                raise SystemExit(f"numba_suite: {arg} needs a value")
            if arg == "--only":
                only.append(argv[i + 1])
            else:
                options[arg] = float(argv[i + 1])
            i += 2
        else:
            positional.append(arg)
            i += 1
    return positional, only, options


def main(argv):
    positional, only, options = parse(argv)
    if len(positional) == 3 and positional[0] == "run":
        return run(positional[1], positional[2],
                   options.get("--limit", DEFAULT_LIMIT),
                   options.get("--test-limit", DEFAULT_TEST_LIMIT), only)
    if len(positional) == 4 and positional[0] == "child":
        return child(positional[1], positional[2], positional[3], only)
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
