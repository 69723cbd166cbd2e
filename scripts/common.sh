# shellcheck shell=bash
# Shared set-up for scripts/demo.sh and scripts/test.sh: install what the
# build needs on a fresh Debian 12 machine, configure with CMake, build.
# Sourced, not run: it only defines functions and variables.

GG_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# What a build and a full test run need. valgrind is optional: nothing in the
# default run uses it, so it is not installed here. libzstd-dev and
# liblz4-dev: the simulator decompresses the PTX in nvcc's fatbins
# (src/sim/ptx/ptx_fatbin.c). doxygen: the reference and its completeness
# check (scripts/docs.sh, ctest docs_reference). abigail-tools: the ABI check
# (ctest abi_check, tools/abi/README.md) dumps and compares libgpuguard.so's
# ABI with its abidw and abidiff.
# shellcheck disable=SC2034 # used by the scripts that source this file
# The python3-* and libboost lines are what Debian's python3-pycuda (a
# referee, below) needs from main: its Python dependencies and the Boost
# libraries its extension links; ordinary main packages, installed like the
# rest (python3-pycuda itself is not installed: it would pull in
# nvidia-cuda-toolkit and libcuda1). libllvm14: the LLVM that
# Debian's python3-llvmlite (numba's, a referee below) links; numba needs
# python3-numpy too.
GG_PACKAGES=(cmake gcc g++ clang make pkg-config libcjson-dev libcriterion-dev
             libzstd-dev liblz4-dev libpng-dev python3 python3-dev libamdhip64-dev
             python3-numpy python3-pytools python3-mako python3-appdirs python3-decorator
             libboost-python1.74.0 libboost-thread1.74.0 doxygen
             libllvm14 abigail-tools)

# What scripts/demo.sh needs: the library, the simulated driver (with the
# fatbin decompressors: without them its configure warns) and the render
# example (libpng); no test framework, no Python, no HIP headers.
# shellcheck disable=SC2034 # used by the scripts that source this file
GG_DEMO_PACKAGES=(cmake gcc make pkg-config libcjson-dev libzstd-dev liblz4-dev libpng-dev)

# Debian packages the tests use as referees: real libraries we did not
# write, fetched by scripts/fetch-referees.sh into build/referees (never
# installed; see there). libcuda1 is NVIDIA's driver library (non-free);
# python3-pycuda (contrib) is PyCUDA, a real client of the simulated driver
# (tests/pycuda), and libcurand10 (non-free) a library its extension links.
# shellcheck disable=SC2034 # used by the scripts that source this file
GG_REFEREE_PACKAGES=(libcuda1 python3-pycuda libcurand10)

# numba's CUDA target, a second real client with its own test suites
# (tests/numba): python3-numba (main) and the python3-llvmlite it compiles
# with, and non-free's libnvvm4 (NVVM 11.8: the CUDA 13 toolkit's libnvvm
# refuses numba 0.56's NVVM IR). numba also needs libdevice.10.bc: a CUDA
# toolkit's when there is one (GG_NUMBA_TOOLKIT_LIBDEVICE), else the
# smallest Debian package that holds it, GG_NUMBA_LIBDEVICE_PACKAGE (84 MB),
# which scripts/test.sh fetches only then.
# shellcheck disable=SC2034 # used by the scripts that source this file
GG_NUMBA_REFEREE_PACKAGES=(python3-numba python3-llvmlite libnvvm4)
# shellcheck disable=SC2034 # used by the scripts that source this file
GG_NUMBA_TOOLKIT_LIBDEVICE=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
# shellcheck disable=SC2034 # used by the scripts that source this file
GG_NUMBA_LIBDEVICE_PACKAGE=nvidia-cuda-toolkit

gg_log() { printf '==> %s\n' "$*"; }
gg_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# gg_ensure_packages PKG...: installs the Debian packages not yet installed.
# apt-get update runs only when something is missing, so a machine that has
# everything makes no network access at all.
gg_ensure_packages() {
    local missing=() pkg status
    for pkg in "$@"; do
        status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
        [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
    done
    ((${#missing[@]} == 0)) && return 0

    command -v apt-get >/dev/null 2>&1 ||
        gg_die "missing packages (${missing[*]}) and no apt-get to install them"
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null 2>&1 ||
            gg_die "missing packages (${missing[*]}): run as root or install them"
        sudo=(sudo)
    fi
    gg_log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# gg_configure BUILD_DIR [CMAKE_ARGS...]: configures the project into
# BUILD_DIR (relative to the repository root) with warnings as errors.
# RelWithDebInfo rather than Release: optimised like a user's build, but a
# crash in CI still gives a usable stack trace.
gg_configure() {
    local dir="$1"; shift
    gg_log "configuring $dir"
    cmake -S "$GG_ROOT" -B "$GG_ROOT/$dir" \
        -DCMAKE_BUILD_TYPE="${GG_BUILD_TYPE:-RelWithDebInfo}" \
        -DGG_WERROR=ON "$@"
}

# gg_build BUILD_DIR [ARGS...]: builds on all cores; ARGS go to cmake
# --build (e.g. --target NAME: that target and what it needs).
gg_build() {
    local dir="$1"; shift
    gg_log "building $dir on $(nproc) cores"
    cmake --build "$GG_ROOT/$dir" -j"$(nproc)" "$@"
}
