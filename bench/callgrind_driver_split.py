#!/usr/bin/python3
"""Split each loop's callgrind count into the driver's part and the rest.

    callgrind_driver_split.py DRIVER_OBJECT CALLGRIND_OUT...

Each CALLGRIND_OUT is one dump of a run under
    valgrind --tool=callgrind --toggle-collect=LOOP... --dump-after=LOOP...
so that it holds exactly one loop, the one its trigger names ("desc:
Trigger: --dump-after=LOOP"); files with another trigger are skipped. For
each, prints

    LOOP inclusive loop_self driver

inclusive: the loop function's inclusive instruction count; loop_self: the
loop function's own (its counter, the call's arguments); driver: the
inclusive count of every call made from outside DRIVER_OBJECT (a path's
ending, e.g. libgpuguard_sim_cuda.so) into a function of DRIVER_OBJECT, the
driver's whole work including what it calls in libc. So inclusive -
loop_self - driver is what the code under test spent itself, without
assuming that the driver does the same work as in another loop.

Why a script: callgrind_annotate prints a function's inclusive cost summed
over all its callers, not the cost of one object's calls into another; the
out file has it per call edge (valgrind's "Callgrind Format
Specification": fn=/cfn= blocks, a calls= line followed by the call's
inclusive cost line).
"""
import sys


def parse_names(value, table):
    """A compressed name "(id) name" or "(id)": returns the name."""
    value = value.strip()
    if value.startswith("("):
        close = value.index(")")
        key = value[1:close]
        rest = value[close + 1:].strip()
        if rest:
            table[key] = rest
        return table.get(key, rest)
    return value


def cost_of(line):
    """The last number of a cost line ("pos Ir"); 0 for a line without."""
    fields = line.split()
    if len(fields) < 2:
        return 0
    return int(fields[-1])


def split(path, driver_object, loop):
    objects, functions = {}, {}
    ob = fn = None
    call_ob = None
    pending_call = False
    loop_self = loop_calls = driver = 0
    found = False
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line or line[0] == "#":
                continue
            if pending_call:
                # The line after calls= is the call's inclusive cost.
                pending_call = False
                cost = cost_of(line)
                callee_ob = call_ob if call_ob is not None else ob
                if fn == loop:
                    loop_calls += cost
                if (callee_ob or "").endswith(driver_object) and not (ob or "").endswith(driver_object):
                    driver += cost
                call_ob = None
                continue
            key, sep, value = line.partition("=")
            if sep and key.isalpha():
                if key == "ob":
                    ob = parse_names(value, objects)
                elif key == "fn":
                    fn = parse_names(value, functions)
                    call_ob = None
                    if fn == loop:
                        found = True
                elif key == "cob":
                    call_ob = parse_names(value, objects)
                elif key == "cfn":
                    parse_names(value, functions)
                elif key == "calls":
                    pending_call = True
                # fl= fi= fe= cfi= cfl= and the header's keys: not needed.
                continue
            if line[0].isdigit() or line[0] in "+-*":
                if fn == loop:
                    loop_self += cost_of(line)
    if not found:
        sys.exit(f"{path}: no function {loop}")
    return loop_self + loop_calls, loop_self, driver


def trigger(path):
    """The loop a dump was made after, or None."""
    prefix = "desc: Trigger: --dump-after="
    with open(path) as f:
        for line in f:
            if line.startswith(prefix):
                return line[len(prefix):].strip()
            if line.startswith("fn="):
                return None
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    driver_object = sys.argv[1]
    for path in sys.argv[2:]:
        loop = trigger(path)
        if loop is None:
            continue
        inclusive, loop_self, driver = split(path, driver_object, loop)
        print(loop, inclusive, loop_self, driver)


if __name__ == "__main__":
    main()
