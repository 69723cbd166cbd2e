#!/bin/sh
# gpuguard_py and numba in one process (interop_numba.py; issue 31, item
# 5), run by with_numba.sh over the simulator's 11.x face: gpuguard is told
# to load the library numba loads (GPUGUARD_CUDA_LIBRARY = the same file),
# so the two share the driver and device 0's primary context. Exits 77
# (skipped) when numba is missing, as with_numba.sh does.
# Usage: interop_numba.sh REFEREE_DIR SIM_CUDA11 CUDART_DIR WORK_DIR PYTHON_DIR
set -u
[ $# -eq 5 ] || { echo "usage: $0 REFEREE_DIR SIM_CUDA11 CUDART_DIR WORK_DIR PYTHON_DIR" >&2; exit 2; }
referees=$1 sim=$2 cudart=$3 work=$4 pydir=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work" || exit 1
exec sh "$here/with_numba.sh" "$referees" "$sim" "$cudart" "$work" sh -c '
    export GPUGUARD_BACKEND=sim GPUGUARD_CUDA_LIBRARY="$NUMBA_CUDA_DRIVER"
    export PYTHONPATH="$1${PYTHONPATH:+:$PYTHONPATH}"
    exec /usr/bin/python3 "$2"' sh "$pydir" "$here/interop_numba.py"
