#!/usr/bin/python3
"""Referee of the simulator's host, managed and mapped memory, register caps,
per-thread default stream entry points and limits: runs a probe of
tools/driver-facts (memory_probe or limits_probe, built against the
simulated driver) and compares every line it prints with what a real driver
printed for the same probe (tools/driver-facts/results/*-memory.txt,
*-limits.txt).

    compare_memory_probe.py PROBE KERNELS.ptx EXPECTED.txt

Every probe line "scenario | step | answer" is compared, the answer as text
(an error code and its name, or a value the driver handed out: an offset,
a size, a register count), aligned by step within each scenario. A line
that differs is a failure unless an EXCEPTIONS entry names it and says why
the simulator cannot or need not give the driver's answer. Exit status 0
when every line matches or is excused, 1 otherwise, 2 for bad usage or a
probe that could not be run.
"""
import re
import sys

import probe_lines

LINE = re.compile(r"^(?P<scenario>[^|]+?) \| (?P<step>[^|]+?) \| (?P<answer>.*)$")

REGS = re.compile(r"NUM_REGS (?P<regs>-?\d+) MAX_THREADS_PER_BLOCK (?P<threads>-?\d+)")


def register_bound(driver, simulator):
    """True when the simulator's register answer is an upper bound that the
    driver's allocation respects (at least the driver's NUM_REGS, at most
    255, the most a thread can have) and its thread limit is never stricter
    than the driver's: without a register allocator the simulator cannot
    know which blocks a GPU would refuse for want of registers, so it
    refuses none that the architecture's 1024 allows rather than refuse
    one that a GPU runs (src/sim/README.md, "NUM_REGS")."""
    d, s = REGS.search(driver), REGS.search(simulator)
    if not d or not s:
        return False
    return (int(d["regs"]) <= int(s["regs"]) <= 255
            and int(d["threads"]) <= int(s["threads"]) <= 1024)


# (scenario, step pattern, check, why): where the simulator's answer may
# differ from the driver's. The pattern is matched against the whole step;
# the check (None: any answer) must accept the pair of answers, so that an
# exception excuses only the difference it explains.
EXCEPTIONS = [
    ("managed", r"total memory", None,
     "device_size: the simulated device holds what its configuration says (1 GiB by default), "
     "not an H100's 80 GB"),
    ("managed", r"cuMemPrefetchAsync to (device|host)|cuMemAdvise SET_READ_MOSTLY",
     lambda driver, simulator: simulator == "missing from the driver",
     "prefetch_advise: the simulator does not export cuMemPrefetchAsync or cuMemAdvise (its managed "
     "memory is host memory that host and kernels share, so neither would change a byte; a program "
     "that calls them stops at the missing symbol, not at a wrong answer)"),
    ("per_thread", r"dlsym cuMemPrefetchAsync|cuGetProcAddress\(cuMemPrefetchAsync, .*",
     lambda driver, simulator: simulator.startswith("plain no, _ptds no, _ptsz no") or simulator.endswith("NULL"),
     "prefetch_advise: as above, cuMemPrefetchAsync is not exported, nor handed out by cuGetProcAddress"),
    ("registers", r"load, no cap: many_registers|load, MAX_REGISTERS (255|256|1000): many_registers|"
                  r"link, MAX_REGISTERS 256: many_registers|.*: fill_u32", register_bound,
     "register_allocation: where no cap binds, a real driver answers what ptxas allocated (102 "
     "or 103 registers for many_registers, 8 for fill_u32) and the threads that fit; the "
     "simulator has no register allocator and answers an upper bound that the driver's "
     "allocation respects (checked: at least the driver's count, at most 255; threads never fewer)"),
]


def excused(scenario, step, driver, simulator):
    """The name of the exception that excuses this difference, or None."""
    for exc_scenario, pattern, check, why in EXCEPTIONS:
        if exc_scenario == scenario and re.fullmatch(pattern, step) and (check is None or check(driver, simulator)):
            return why.split(":", 1)[0]
    return None


# Fields of an answer that are not compared anywhere, each with its reason.
# LOCAL_SIZE_BYTES: what ptxas spilled to local memory under a register cap
# (368 to 480 bytes here); the simulator allocates no registers, so spills
# nothing and answers 0. Only that field is left out: NUM_REGS and
# MAX_THREADS_PER_BLOCK on the same line are still compared.
UNCOMPARED_FIELDS = [re.compile(r" LOCAL_SIZE_BYTES -?\d+")]


def comparable(answer):
    """The answer without its UNCOMPARED_FIELDS."""
    for field in UNCOMPARED_FIELDS:
        answer = field.sub("", answer)
    return answer


def lines(text):
    """The probe's lines, grouped by scenario, in order: (step, answer) each."""
    return probe_lines.grouped(text, LINE, (("step", str), ("answer", str)))


def main(argv):
    if len(argv) != 4:
        print("usage: compare_memory_probe.py PROBE KERNELS.ptx EXPECTED.txt", file=sys.stderr)
        return 2
    probe, ptx, expected_path = argv[1:]
    with open(expected_path, encoding="utf-8") as f:
        want_order, want = lines(f.read())
    run = probe_lines.run_probe("compare_memory_probe", probe, ptx, 300,
                                unset=("GPUGUARD_SIM_CONFIG", "CUDA_VISIBLE_DEVICES"))
    if run is None:
        return 2
    got_order, got = lines(run.stdout)
    differ = missing = extra = n_excused = 0
    for scenario in want_order:
        for kind, w, g in probe_lines.aligned(want[scenario], got.get(scenario, [])):
            if kind == "both":
                step, want_answer, got_answer = w[0], w[1], g[1]
                if comparable(want_answer) == comparable(got_answer):
                    continue
                why = excused(scenario, step, want_answer, got_answer)
                if why:
                    n_excused += 1
                    print(f"EXCEPTION {why}: {scenario} | {step} | driver {want_answer}, "
                          f"simulator {got_answer}")
                else:
                    differ += 1
                    print(f"DIFFERS {scenario} | {step} | driver {want_answer}, simulator {got_answer}")
            elif kind == "driver":
                missing += 1
                print(f"DIFFERS {scenario} | {w[0]} | driver {w[1]}, simulator: no such step")
            else:
                extra += 1
                print(f"DIFFERS {scenario} | {g[0]} | driver: no such step, simulator {g[1]}")
    for scenario in got_order:
        if scenario not in want:
            extra += len(got[scenario])
            print(f"DIFFERS {scenario}: the driver ran no such scenario")
    total = sum(len(v) for v in want.values())
    print(f"{total} driver lines: {differ} answered differently, {missing} steps the simulator's run "
          f"did not reach, {extra} steps only the simulator's run took, {n_excused} differences named "
          f"as exceptions; probe exit {run.returncode}")
    if run.stderr:
        print("probe stderr:\n" + run.stderr, end="")
    return 1 if differ or missing or extra or run.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
