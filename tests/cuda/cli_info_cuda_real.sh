#!/bin/sh
# gpuguard info --backend cuda over Debian's real libcuda.so.1
# (GPUGUARD_CUDA_LIBRARY=$GG_REAL_LIBCUDA) on a machine without the NVIDIA
# kernel module: exit status 1, nothing on stdout, and stderr gives
# GG_NO_DEVICE with the driver's code, the library, the driver's version and
# why; --json gives the same status and code. The version expected is asked
# of the library itself (python3's ctypes), not of gpuguard.
# Usage (through real_libcuda.sh): cli_info_cuda_real.sh GPUGUARD_BINARY
tool="$1"
lib="$GG_REAL_LIBCUDA"
if [ -e /proc/driver/nvidia ]; then
    echo "skipped: an NVIDIA kernel module is loaded here (/proc/driver/nvidia)"
    exit 77
fi
version="$(/usr/bin/python3 -c '
import ctypes, sys
v = ctypes.c_int(0)
rc = ctypes.CDLL(sys.argv[1]).cuDriverGetVersion(ctypes.byref(v))
print("%d.%d (%d)" % (v.value // 1000, v.value % 1000 // 10, v.value) if rc == 0 else "rc %d" % rc)
' "$lib")" || { echo "FAIL: cannot ask $lib for its version"; exit 1; }

err="$(mktemp)"
unset GPUGUARD_BACKEND GPUGUARD_LOG
out="$(GPUGUARD_CUDA_LIBRARY="$lib" "$tool" info --backend cuda 2>"$err")"
status=$?
reason="$(cat "$err")"
json="$(GPUGUARD_CUDA_LIBRARY="$lib" "$tool" info --backend cuda --json 2>"$err")"
json_status=$?
json_err="$(cat "$err")"
rm -f "$err"

fail() {
    echo "FAIL: $*"
    echo "--- stdout:"; echo "$out"; echo "--- stderr:"; echo "$reason"
    echo "--- --json stdout:"; echo "$json"; echo "--- --json stderr:"; echo "$json_err"
    exit 1
}
expect() { # expect TEXT WHAT: stderr contains TEXT
    case "$reason" in *"$1"*) ;; *) fail "stderr does not give $2 ($1)" ;; esac
}
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
[ -z "$out" ] || fail "stdout is not empty"
expect "GG_NO_DEVICE" "the status"
expect "CUDA_ERROR_NO_DEVICE (100)" "the driver's code"
expect "$lib" "the library"
expect "CUDA $version" "the driver version"
expect "the NVIDIA kernel module is not loaded" "why"

[ "$json_status" -eq 1 ] || fail "--json: exit status $json_status, expected 1"
[ -z "$json_err" ] || fail "--json: stderr is not empty"
printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
e = json.load(sys.stdin)["error"]
sys.exit(0 if e["status"] == "GG_NO_DEVICE" and e["native_code"] == 100
         and sys.argv[1] in e["message"] else 1)
' "$lib" || fail "--json does not give GG_NO_DEVICE, native_code 100 and the library"
echo "ok: $reason"
