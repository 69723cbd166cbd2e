#!/bin/sh
# Runs COMMAND with Debian's numba (python3-numba 0.56, python3-llvmlite)
# over gpuguard's simulated driver, as numba runs over a real CUDA 11.x
# driver:
#   PYTHONPATH         python3-numba and python3-llvmlite as
#                      scripts/fetch-referees.sh unpacked them in REFEREE_DIR
#   NUMBA_CUDA_DRIVER  SIM_LIBRARY, the simulator's 11.x face
#                      (libgpuguard_sim_cuda11.so): numba binds the driver's
#                      _v2 names first, and cuCtxGetDevice_v2 changed in 13.0
#   CUDA_HOME          WORK_DIR/cuda_home, laid out as numba 0.56 searches a
#                      toolkit (numba/cuda/cuda_paths.py): lib64/ the stand-in
#                      runtime (CUDART_DIR, libcudart.so.11.0, cudart_standin.c),
#                      nvvm/lib64/ non-free's libnvvm4 (11.8: the CUDA 13
#                      toolkit's libnvvm refuses numba's NVVM IR 1.6),
#                      nvvm/libdevice/ libdevice.10.bc: the toolkit's
#                      (GG_LIBDEVICE, default /usr/local/cuda/nvvm/libdevice/,
#                      scripts/common.sh) when present, else Debian's
#                      nvidia-cuda-toolkit's
#   GPUGUARD_SIM_CONFIG two compute devices (no watchdog), unless set; kernels
#                      may touch an allocation up to 256 bytes, as on a GPU
#                      (allocations are 256-byte aligned there: numba's
#                      test_localmem overruns a 4-byte array by 36 bytes)
#   NUMBA_CACHE_DIR    left unset, as numba's own test runs leave it: its
#                      caching tests look for the cache beside their
#                      modules, in temporary folders of their own
# When a package is missing it says why and exits 77 (ctest: skipped).
# Usage: with_numba.sh REFEREE_DIR SIM_LIBRARY CUDART_DIR WORK_DIR COMMAND [ARGS...]
[ $# -ge 5 ] || { sed -n '20,20s/^# \{0,1\}//p' "$0" >&2; exit 2; }
referees="$1" sim="$2" cudart="$3" work="$4"
shift 4
# Absolute: numba follows the links made below from another folder.
absolute() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
referees="$(absolute "$referees")" sim="$(absolute "$sim")"
cudart="$(absolute "$cudart")" work="$(absolute "$work")"
skip() { echo "skipped: $*"; exit 77; }
for pkg in python3-numba python3-llvmlite libnvvm4; do
    if [ ! -d "$referees/$pkg" ]; then
        [ -f "$referees/$pkg.skip" ] &&
            skip "Debian's $pkg could not be fetched: $(cat "$referees/$pkg.skip")"
        skip "Debian's $pkg is not in $referees (scripts/test.sh fetches it;" \
             "or run scripts/fetch-referees.sh $pkg)"
    fi
done
[ -f "$sim" ] || skip "no $sim (build the target gpuguard_sim_cuda11)"
[ -f "$cudart/libcudart.so.11.0" ] || skip "no $cudart/libcudart.so.11.0 (build the target gg_numba_cudart)"
numba_site="$referees/python3-numba/usr/lib/python3/dist-packages"
llvmlite_site="$referees/python3-llvmlite/usr/lib/python3/dist-packages"
[ -d "$numba_site/numba/cuda" ] || skip "no numba package under $numba_site"
[ -d "$llvmlite_site/llvmlite" ] || skip "no llvmlite package under $llvmlite_site"
# shellcheck disable=SC2012 # the name is Debian's, without odd characters
nvvm="$(ls "$referees"/libnvvm4/usr/lib/*/libnvvm.so.4 2>/dev/null | head -n 1)"
[ -n "$nvvm" ] || skip "no libnvvm.so.4 under $referees/libnvvm4"
libdevice="${GG_LIBDEVICE:-/usr/local/cuda/nvvm/libdevice/libdevice.10.bc}"
if [ ! -f "$libdevice" ]; then
    libdevice="$referees/nvidia-cuda-toolkit/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"
    if [ ! -f "$libdevice" ]; then
        [ -f "$referees/nvidia-cuda-toolkit.skip" ] &&
            skip "no CUDA toolkit libdevice, and Debian's nvidia-cuda-toolkit could not be" \
                 "fetched: $(cat "$referees/nvidia-cuda-toolkit.skip")"
        skip "no libdevice.10.bc: neither a CUDA toolkit's (/usr/local/cuda, or set" \
             "GG_LIBDEVICE) nor Debian's nvidia-cuda-toolkit in $referees" \
             "(scripts/fetch-referees.sh nvidia-cuda-toolkit)"
    fi
fi
# numba's own dependencies from Debian's main (scripts/common.sh installs
# them); numba imports scipy only where a test needs it (those skip).
/usr/bin/python3 -c 'import numpy' 2>/dev/null ||
    skip "numba's Python dependencies are missing: apt-get install python3-numpy"
ldconfig -p 2>/dev/null | grep -q 'libLLVM-14\.so' ||
    skip "llvmlite's LLVM is missing: apt-get install libllvm14"

home="$work/cuda_home"
mkdir -p "$home/nvvm/lib64" "$home/nvvm/libdevice" || exit 1
ln -sfn "$cudart" "$home/lib64" &&
    ln -sf "$nvvm" "$home/nvvm/lib64/libnvvm.so.4" &&
    ln -sf "$libdevice" "$home/nvvm/libdevice/libdevice.10.bc" || exit 1
PYTHONPATH="$numba_site:$llvmlite_site${PYTHONPATH:+:$PYTHONPATH}"
CUDA_HOME="$home"
NUMBA_CUDA_DRIVER="$sim"
# numba's tests select device 0 and some run kernels for seconds: no
# watchdog on either device (the simulator's default device 0 has one).
# shellcheck disable=SC2089,SC2090 # JSON text: its quotes are meant literally
[ -n "${GPUGUARD_SIM_CONFIG:-}" ] ||
    GPUGUARD_SIM_CONFIG='{"devices": [{"name": "gpuguard sim compute GPU 0", "allocation_granularity": 256}, {"name": "gpuguard sim compute GPU 1", "allocation_granularity": 256}]}'
# shellcheck disable=SC2090 # see above
export PYTHONPATH CUDA_HOME NUMBA_CUDA_DRIVER GPUGUARD_SIM_CONFIG
unset CUDA_PATH NUMBA_CACHE_DIR
exec "$@"
