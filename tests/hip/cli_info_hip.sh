#!/bin/sh
# GPUGUARD_BACKEND=hip gpuguard info, where the HIP runtime finds no AMD GPU
# (or is not installed): exit status 1, nothing on stdout, and stderr names
# the reason and the library. Usage: cli_info_hip.sh GPUGUARD_BINARY
tool="$1"
err="$(mktemp)"
out="$("$tool" info 2>"$err")"
status=$?
reason="$(cat "$err")"
rm -f "$err"

if [ "$status" -eq 0 ]; then
    echo "skipped: a HIP device opened on this machine"
    exit 77
fi
fail() { echo "FAIL: $*"; echo "--- stdout:"; echo "$out"; echo "--- stderr:"; echo "$reason"; exit 1; }
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
[ -z "$out" ] || fail "stdout is not empty"
case "$reason" in
    *"GG_NO_DEVICE"*"sees no AMD GPU"*) ;;          # the runtime is there, no GPU
    *"GG_NO_DRIVER"*"cannot load the HIP runtime"*) ;; # no runtime installed
    *) fail "stderr does not give the reason" ;;
esac
case "$reason" in
    *libamdhip64*) ;;
    *) fail "stderr does not name the library" ;;
esac
echo "ok: $reason"
