#!/usr/bin/python3
"""Referee of the simulator's sticky errors: runs tools/driver-facts/sticky_probe
(built against the simulated driver) and compares every answer it prints with
what a real driver answered (tools/driver-facts/results/*-sticky.txt).

    compare_sticky_probe.py PROBE KERNELS.ptx EXPECTED.txt

Only the probe's answer lines, "scenario | step | code NAME", are compared,
in order, scenario by scenario; other lines (a device's printed assertion
message, the trailing "sticky_probe exit N") are not answers. Steps are
aligned by name within each scenario; each one that differs, that only one
of the runs took, is printed with both answers. Exit status 0 when every
answer matches (or differs only as a named EXCEPTIONS entry, or is a step
the driver's run predates, a named NOT_MEASURED entry), 1 otherwise, 2 for
bad usage or a probe that could not be run.
"""
import re
import sys

import probe_lines

ANSWER = re.compile(r"^(?P<scenario>[^|]+?) \| (?P<step>[^|]+?) \| (?P<code>-?\d+) (?P<name>.+)$")

# Answers the simulator gives differently for a reason that is not the
# sticky scope, each named and explained. Key: (step, driver's code,
# simulator's code); the step is matched in every scenario.
#
# stale_primary_handle: the probe sets current a primary context's handle
# after that context was released or reset (a failed cuDevicePrimaryCtxRetain
# leaves its old handle in the variable). The driver keeps one handle per
# device's primary context for the life of the process, so cuCtxSetCurrent
# accepts it (and the next call answers CONTEXT_IS_DESTROYED 709, which the
# simulator matches); the simulator gives each retained primary context a
# new handle and refuses a destroyed one with INVALID_CONTEXT 201. Not a
# sticky-error matter: the context that ends current is the same stale one
# either way, so every later answer is compared as usual.
EXCEPTIONS = {
    ("cuCtxSetCurrent P2", 0, 201): "stale_primary_handle",
}

# Steps the probe gained after the driver's run was recorded, which that
# run therefore has no answer for: the simulator's answers are printed as
# NOT MEASURED and not compared. None now: the H100 run of 2026-11-26 was
# repeated with every step (results/h100-driver-580.159.04-sticky.txt).
NOT_MEASURED = {}


def not_measured(step):
    """The name of the NOT_MEASURED entry that step is, or None."""
    for name, pattern in NOT_MEASURED.items():
        if pattern.match(step):
            return name
    return None


def answers(text):
    """The answer lines of a probe's output, grouped by scenario, in order:
    (step, code, name) each."""
    return probe_lines.grouped(text, ANSWER, (("step", str), ("code", int), ("name", str)))


def main(argv):
    if len(argv) != 4:
        print("usage: compare_sticky_probe.py PROBE KERNELS.ptx EXPECTED.txt", file=sys.stderr)
        return 2
    probe, ptx, expected_path = argv[1:]
    with open(expected_path, encoding="utf-8") as f:
        want_order, want = answers(f.read())
    run = probe_lines.run_probe("compare_sticky_probe", probe, ptx, 600)
    if run is None:
        return 2
    got_order, got = answers(run.stdout)
    differ = missing = extra = excused = unmeasured = 0
    for scenario in want_order:
        for kind, wl, gl in probe_lines.aligned(want[scenario], got.get(scenario, [])):
            if kind == "both":
                if wl[1] == gl[1]:
                    continue
                why = EXCEPTIONS.get((wl[0], wl[1], gl[1]))
                if why:
                    excused += 1
                    print(f"EXCEPTION {why}: {scenario} | {wl[0]} | "
                          f"driver {wl[1]} {wl[2]}, simulator {gl[1]} {gl[2]}")
                else:
                    differ += 1
                    print(f"DIFFERS {scenario} | {wl[0]} | driver {wl[1]} {wl[2]}, "
                          f"simulator {gl[1]} {gl[2]}")
            elif kind == "driver":
                missing += 1
                print(f"DIFFERS {scenario} | {wl[0]} | driver {wl[1]} {wl[2]}, simulator: no such step")
            else:
                why = not_measured(gl[0])
                if why:
                    unmeasured += 1
                    print(f"NOT MEASURED {why}: {scenario} | {gl[0]} | simulator {gl[1]} {gl[2]}")
                    continue
                extra += 1
                print(f"DIFFERS {scenario} | {gl[0]} | driver: no such step, simulator {gl[1]} {gl[2]}")
    for scenario in got_order:
        if scenario not in want:
            extra += len(got[scenario])
            print(f"DIFFERS {scenario}: the driver ran no such scenario")
    print(f"{sum(len(v) for v in want.values())} driver answers: {differ} answered differently, "
          f"{missing} steps the simulator's run did not reach, {extra} steps only the simulator's "
          f"run took, {excused} differences named as exceptions, {unmeasured} steps not measured; "
          f"probe exit {run.returncode}")
    if run.stderr:
        print("probe stderr:\n" + run.stderr, end="")
    return 1 if differ or missing or extra or run.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
