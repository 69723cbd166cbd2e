#!/usr/bin/python3
"""Summarises numba's own CUDA test packages run over the simulated driver.

Reads the JSON lines numba_suite.py wrote (one file per package) and prints,
per package, how many tests passed, failed, raised errors, were skipped
(and expectedly failed, unexpectedly passed, crashed, hung), then the
failures and errors grouped by cause, most frequent first, each with one
test as an example, then the skip reasons grouped the same way.

A failure's cause, in this order:
  - "cuXxx missing from the driver": numba found no such symbol;
  - "cuXxx: CUDA_ERROR_YYY (detail)": the driver call the exception names,
    else the first driver call that returned an error during the test, with
    the simulator's explanation (gg_sim_last_error_detail; a PTX refusal
    names the reason) with its numbers written as N so that alike
    refusals group together;
  - else the exception line, numbers written as N.

Exit status: 0 when every test passed or was skipped (with --must-pass:
when every test named in FILE passed, whatever else failed), 1 otherwise,
2 on bad input.

Usage: summarize_numba.py [--must-pass FILE] RESULTS.jsonl [RESULTS.jsonl ...]
"""
import collections
import json
import re
import sys

OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed", "crashed", "hung")
BAD = ("failed", "error", "xpassed", "crashed", "hung")
MISSING = re.compile(r"Driver missing function: (\w+)")
CALL = re.compile(r"Call to (\w+) results in (\w+)")


def generalize(text):
    """TEXT with hexadecimal and decimal numbers written as N, the mangled
    names numba gives its functions as <symbol>, and spaces squeezed, so
    that one cause at different lines, sizes or functions counts once.
    Numbers inside names (.f16, %r1, u32) stay."""
    text = re.sub(r"(?<![\w.$%])_Z[\w$]+", "<symbol>", text)
    text = re.sub(r"(?<![\w.$%])0x[0-9a-fA-F]+", "N", text)
    text = re.sub(r"(?<![\w.$%])\d+(\.\d+)?(?![\w$])", "N", text)
    return re.sub(r"\s+", " ", text).strip()


def cause(result):
    """The cause a failing result is grouped under (see the module doc)."""
    message = result.get("message", "")
    errors = result.get("driver_errors") or []
    missing = MISSING.search(message)
    if missing:
        return f"{missing.group(1)} missing from the driver"
    named = CALL.search(message)
    chosen = None
    if named:
        chosen = next((e for e in errors if e[0] == named.group(1)), None)
        if chosen is None:
            return f"{named.group(1)}: {named.group(2)}"
    elif errors:
        chosen = errors[0]
    if message.startswith("subprocess.CalledProcessError"):
        # numba runs some tests as a python program of their own (under the
        # same environment): only its exit status comes back.
        return "a test program numba starts in a subprocess failed (" + \
            generalize(message.split("returned", 1)[-1])[:80] + ")"
    if chosen is not None:
        call, error, detail = chosen
        text = f"{call}: {error}"
        if detail:
            text += f" ({generalize(detail)[:240]})"
        return text
    return generalize(message)[:240] or "(no message)"


def read(path):
    """The results in PATH, and the reason the package did not run to its
    end (None when it did)."""
    results, incomplete = [], "the results end before the package did"
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            try:
                event = json.loads(line)
            except ValueError:
                if line.endswith("\n"):
                    raise ValueError(f"{path}:{number}: not JSON")
                continue  # the last line of a child ended mid-write
            if event.get("event") == "result":
                if event.get("outcome") not in OUTCOMES:
                    raise ValueError(f"{path}:{number}: unknown outcome {event.get('outcome')!r}")
                results.append(event)
            elif event.get("event") == "end":
                incomplete = event.get("incomplete")
    return results, incomplete


def parent_test(result_id):
    """The test a subtest's result belongs to ("pkg.mod.Class.test (i=1)",
    "pkg.mod.Class.test [message]" -> "pkg.mod.Class.test"); other ids
    unchanged."""
    match = re.match(r"^(\S+\.\w+) [\[(].*[\])]$", result_id)
    return match.group(1) if match else result_id


def test_outcomes(results):
    """One outcome per test, as unittest counts them: a test with a failing
    subtest failed (its first bad outcome), whatever its other subtests did."""
    per_test = {}
    for result in results:
        per_test.setdefault(parent_test(result["id"]), []).append(result["outcome"])
    return [next((o for o in outcomes if o in BAD), outcomes[0])
            for outcomes in per_test.values()]


def ptx_reason(cause_text):
    """The simulator's reason in a PTX refusal cause, without the line, the
    instruction it quotes and the opcode it names; None for other causes."""
    match = re.search(r"PTX line N: (.*)\)$", cause_text)
    if not match:
        return None
    reason = match.group(1)
    if reason.count(": ") >= 1:
        reason = reason.rsplit(": ", 1)[0]
    return re.sub(r" in [\w.]+$", "", reason).rstrip(":")


def package_name(path, results):
    for result in results:
        match = re.match(r"(?:load )?numba\.cuda\.tests\.(\w+)", result["id"])
        if match:
            return match.group(1)
    return path


def grouped(pairs):
    """(key, example) pairs -> [(count, key, example)], most frequent first."""
    counts = collections.Counter(key for key, _ in pairs)
    examples = {}
    for key, example in pairs:
        examples.setdefault(key, example)
    return [(n, key, examples[key]) for key, n in
            sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def short_id(test_id):
    return re.sub(r"^numba\.cuda\.tests\.\w+\.", "", test_id)


def summarize(paths, must_pass):
    totals = dict.fromkeys(OUTCOMES, 0)
    passed_ids, bad = set(), 0
    for path in paths:
        results, incomplete = read(path)
        counts = dict.fromkeys(OUTCOMES, 0)
        for outcome in test_outcomes(results):
            counts[outcome] += 1
        for result in results:
            if result["outcome"] == "passed":
                passed_ids.add(result["id"])
        name = package_name(path, results)
        print(f"{name}: " + ", ".join(f"{v} {k}" for k, v in counts.items())
              + f" ({sum(counts.values())} tests)")
        if incomplete:
            print(f"  INCOMPLETE: {incomplete}")
        bad_results = [r for r in results if r["outcome"] in BAD]
        failures = grouped([(cause(r), short_id(r["id"])) for r in bad_results])
        if failures:
            print(f"  failing results by cause ({len(bad_results)}: a test's failing "
                  "subtests count one each; count, cause, e.g.):")
        for n, key, example in failures:
            print(f"    {n:5d}  {key}  [e.g. {example}]")
        refusals = grouped([(reason, short_id(r["id"])) for r in bad_results
                            for reason in [ptx_reason(cause(r))] if reason])
        if refusals:
            print("  of which PTX refusals by reason (count, reason, e.g.):")
        for n, key, example in refusals:
            print(f"    {n:5d}  {key}  [e.g. {example}]")
        skips = grouped([(generalize(r.get("message", ""))[:200], short_id(r["id"]))
                         for r in results if r["outcome"] == "skipped"])
        if skips:
            print("  skipped by reason (count, reason, e.g.):")
        for n, key, example in skips:
            print(f"    {n:5d}  {key}  [e.g. {example}]")
        for key in OUTCOMES:
            totals[key] += counts[key]
        bad += sum(counts[key] for key in BAD) + (1 if incomplete else 0)
    print("total: " + ", ".join(f"{v} {k}" for k, v in totals.items()))
    if must_pass is None:
        return 1 if bad else 0
    missing = [test_id for test_id in must_pass if test_id not in passed_ids]
    for test_id in missing:
        print(f"REGRESSION: {test_id} passed before and did not now")
    print(f"{len(must_pass) - len(missing)} of the {len(must_pass)} tests that must pass passed")
    return 1 if missing else 0


def main(argv):
    must_pass = None
    if argv[:1] == ["--must-pass"]:
        if len(argv) < 2:
            print(__doc__.strip().splitlines()[-1], file=sys.stderr)
            return 2
        try:
            with open(argv[1]) as listed:
                must_pass = [line.strip() for line in listed
                             if line.strip() and not line.startswith("#")]
        except OSError as err:
            print(f"cannot read {argv[1]}: {err}", file=sys.stderr)
            return 2
        argv = argv[2:]
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        return summarize(argv, must_pass)
    except (OSError, ValueError) as err:
        print(f"summarize_numba: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
