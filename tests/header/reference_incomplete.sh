#!/bin/sh
# The generated reference must be refused when the header declares what it
# lacks: a copy of gpuguard.h with one more status, enum value and struct
# field (each documented) is checked against the reference built from the
# real header (tests/header: docs_reference_checker_fails).
#   reference_incomplete.sh HTML_DIR GPUGUARD_H CHECKER
set -u
html=$1 header=$2 checker=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The status list's last entry is the one X(...) line of the header without
# a continuation backslash: the fixture status goes after it.
sed -e 's/^\( *X([A-Z_]*, [0-9]*, "[^"]*")\)$/\1 \\\n    X(FIXTURE_STATUS, 999, "a status the reference lacks")/' \
    -e 's/^\( *GG_STATE_FORKED = 3\)\( *\/\*\*<.*\)$/\1, \2\n    GG_STATE_FIXTURE = 4 \/**< a value the reference lacks *\//' \
    -e 's/^\( *unsigned flags; *\/\*\*< none defined yet: must be 0 \*\/\)$/\1\n    int fixture_field; \/**< a field the reference lacks *\//' \
    "$header" > "$work/gpuguard.h"
for added in FIXTURE_STATUS GG_STATE_FIXTURE fixture_field; do
    grep -q "$added" "$work/gpuguard.h" || { echo "FAIL: the fixture did not add $added (gpuguard.h changed?)"; exit 1; }
done
/usr/bin/python3 "$checker" --html "$html" "$work/gpuguard.h" > "$work/out" 2>&1
rc=$?
cat "$work/out"
[ "$rc" -ne 0 ] || { echo "FAIL: the checker passed a header declaring what the reference lacks"; exit 1; }
for missing in "gg_status value GG_FIXTURE_STATUS is not in the reference" \
               "gg_state value GG_STATE_FIXTURE is not in the reference" \
               "gg_wait_desc.fixture_field is not in the reference"; do
    grep -qF "$missing" "$work/out" || { echo "FAIL: not said: $missing"; exit 1; }
done
echo "reference checker refuses what the reference lacks"
