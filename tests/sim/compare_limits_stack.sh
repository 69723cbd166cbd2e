#!/bin/sh
# The stack scenarios of tools/driver-facts/limits_probe (default limit,
# overflow, raised limit), built against the simulated driver, must answer
# what the H100 answered (driver 580.159.04). Only the "stack/" lines are
# compared: the probe's other scenarios are other features' referees.
# usage: compare_limits_stack.sh PROBE KERNELS_PTX H100_RESULTS
set -u
probe=$1 ptx=$2 want=$3
got=$("$probe" "$ptx" | grep '^stack/')
expected=$(grep '^stack/' "$want")
if [ -z "$expected" ]; then
    echo "no stack/ lines in $want" >&2
    exit 1
fi
if [ "$got" != "$expected" ]; then
    echo "the simulator's answers differ from the H100's:" >&2
    printf '%s\n' "$expected" >/tmp/limits_stack_want.$$
    printf '%s\n' "$got" | diff /tmp/limits_stack_want.$$ - >&2
    rm -f /tmp/limits_stack_want.$$
    exit 1
fi
echo "$(printf '%s\n' "$got" | wc -l) stack/ answers as the H100's"
