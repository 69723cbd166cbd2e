"""What the referee scripts (compare_sticky_probe.py, compare_memory_probe.py)
share: running a tools/driver-facts probe over the simulator, grouping its
"scenario | step | answer" lines by scenario, and aligning the simulator's
steps with the driver's by name, so that a step answered differently (and the
steps that follow from it) shows as itself, not as a shifted tail.
"""
import difflib
import os
import subprocess
import sys


def grouped(text, line_pattern, fields):
    """(order, by_scenario): the lines of text that line_pattern (a compiled
    regex with a "scenario" group) matches, by scenario in order of first
    appearance, each as the tuple of its groups named in fields (each one
    stripped, or passed through convert: fields holds (name, convert) pairs)."""
    by_scenario = {}
    order = []
    for line in text.splitlines():
        m = line_pattern.match(line)
        if not m:
            continue
        scenario = m.group("scenario").strip()
        if scenario not in by_scenario:
            by_scenario[scenario] = []
            order.append(scenario)
        by_scenario[scenario].append(tuple(convert(m.group(name).strip()) for name, convert in fields))
    return order, by_scenario


def run_probe(name, probe, ptx, timeout, unset=("GPUGUARD_SIM_CONFIG",)):
    """The probe's completed run over the simulator's defaults (the variables
    in unset removed), or None after printing why it could not run."""
    env = dict(os.environ)
    for variable in unset:
        env.pop(variable, None)
    try:
        return subprocess.run([probe, ptx], capture_output=True, text=True, timeout=timeout, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"{name}: cannot run {probe}: {e}", file=sys.stderr)
        return None


def aligned(want, got):
    """Yields (kind, driver_entry, simulator_entry) for one scenario's entries
    (tuples whose first item is the step), aligned by step: kind "both" for a
    step both runs took, "driver" for one only the driver's run took (the
    simulator's entry None), "simulator" for one only the simulator's took."""
    match = difflib.SequenceMatcher(None, [a[0] for a in want], [a[0] for a in got], autojunk=False)
    for op, w0, w1, g0, g1 in match.get_opcodes():
        if op == "equal":
            for w, g in zip(want[w0:w1], got[g0:g1]):
                yield "both", w, g
            continue
        for w in want[w0:w1]:
            yield "driver", w, None
        for g in got[g0:g1]:
            yield "simulator", None, g
