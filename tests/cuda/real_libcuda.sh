#!/bin/sh
# Runs COMMAND with GG_REAL_LIBCUDA set to Debian's libcuda.so.1 as
# scripts/fetch-referees.sh unpacked it under REFEREE_DIR; when it is not
# there, says why (the reason the fetch recorded) and exits 77, which ctest
# reports as skipped. A GG_REAL_LIBCUDA already set wins.
# Usage: real_libcuda.sh REFEREE_DIR COMMAND [ARGS...]
referees="$1"
shift
if [ -z "${GG_REAL_LIBCUDA:-}" ]; then
    # The package's own place: usr/lib/<multiarch>/nvidia/current.
    for lib in "$referees"/libcuda1/usr/lib/*/nvidia/current/libcuda.so.1; do
        [ -f "$lib" ] && GG_REAL_LIBCUDA="$lib" && break
    done
fi
if [ -z "${GG_REAL_LIBCUDA:-}" ]; then
    if [ -f "$referees/libcuda1.skip" ]; then
        echo "skipped: Debian's libcuda1 could not be fetched: $(cat "$referees/libcuda1.skip")"
    else
        echo "skipped: Debian's libcuda1 is not in $referees (scripts/test.sh fetches it;" \
             "or run scripts/fetch-referees.sh libcuda1)"
    fi
    exit 77
fi
export GG_REAL_LIBCUDA
exec "$@"
