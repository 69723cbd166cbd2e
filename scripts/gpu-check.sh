#!/usr/bin/env bash
# gpuguard's acceptance suite on the first GPU it meets (tests/gpu/README.md).
#
#   scripts/gpu-check.sh [--build-dir DIR] [--deps DIR] [--no-build] [--verbose] [-- RUNNER_ARGS...]
#   scripts/gpu-check.sh --fetch-deps DIR
#
# Builds gpuguard and build/bin/gg_gpu_check into build-gpu/ (no Criterion,
# no network, no package manager needed: cJSON may come as Debian packages
# unpacked in place) and runs every check on the real driver. With no GPU it
# prints one line, "gpu-check: no GPU found: ...", and exits 0. Exit status:
# 0 when no check failed, 1 when one did, 2 for a bad command line.
#
#   --build-dir DIR  where to build (default build-gpu, under the checkout)
#   --deps DIR       .deb files of cJSON (libcjson1, libcjson-dev), unpacked
#                    with dpkg -x (or ar + tar) under BUILD/deps and used
#                    instead of the system's; default ../gpuguard-deps next
#                    to the checkout, when that folder exists
#   --no-build       run what BUILD already has
#   --verbose        show the build's output (else it goes to BUILD/build.log)
#   --fetch-deps DIR download those .deb files into DIR with apt-get
#                    download, on a machine with network, to carry them over
#   RUNNER_ARGS      for build/bin/gg_gpu_check: --only, --device, --quick,
#                    --timeout, --python, --json (default BUILD/gpu-check-report.json)
set -euo pipefail

GG_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEB_PACKAGES=(libcjson1 libcjson-dev)

usage() { sed -n '2,24s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
die() { printf 'gpu-check: %s\n' "$*" >&2; exit 1; }

fetch_deps() {
    local dir="$1"
    command -v apt-get >/dev/null 2>&1 || die "--fetch-deps needs apt-get (a Debian machine with network)"
    mkdir -p "$dir"
    # apt-get download writes into the current folder, as the calling user.
    if ! (cd "$dir" && apt-get download "${DEB_PACKAGES[@]}"); then
        die "apt-get download failed (no package lists yet? run apt-get update first)"
    fi
    printf 'gpu-check: in %s:\n' "$dir"
    ls -1 "$dir"/*.deb
    printf 'Copy that folder next to the checkout as gpuguard-deps/ (or pass --deps DIR).\n'
}

# unpack_deb DEB DEST: the package's files under DEST, as dpkg -x does; with
# ar and tar where dpkg is missing (a .deb is an ar archive of data.tar.*).
unpack_deb() {
    local deb="$1" dest="$2"
    if command -v dpkg >/dev/null 2>&1; then
        dpkg -x "$deb" "$dest"
        return
    fi
    command -v ar >/dev/null 2>&1 || die "cannot unpack $deb: neither dpkg nor ar is installed"
    local tmp member
    tmp="$(mktemp -d)"
    (cd "$tmp" && ar x "$deb")
    member="$(cd "$tmp" && ls data.tar.* 2>/dev/null | head -n1)"
    [[ -n "$member" ]] || die "$deb has no data.tar.* member"
    tar -xf "$tmp/$member" -C "$dest"
    rm -rf "$tmp"
}

build_dir=build-gpu deps_dir="" build=1 verbose=0 runner_args=() json_given=0
while (($#)); do
    case "$1" in
        --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift ;;
        --deps) deps_dir="${2:?--deps needs a folder}"; shift ;;
        --no-build) build=0 ;;
        --verbose) verbose=1 ;;
        --fetch-deps) fetch_deps "${2:?--fetch-deps needs a folder}"; exit 0 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; runner_args=("$@"); break ;;
        *) printf 'gpu-check: unknown option: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
python_given=""
for ((i = 0; i < ${#runner_args[@]}; i++)); do
    [[ "${runner_args[i]}" == --json ]] && json_given=1
    [[ "${runner_args[i]}" == --python ]] && python_given="${runner_args[i + 1]:-}"
done
[[ "$build_dir" = /* ]] || build_dir="$GG_ROOT/$build_dir"

if ((build)); then
    if [[ -z "$deps_dir" && -d "$GG_ROOT/../gpuguard-deps" ]]; then
        deps_dir="$GG_ROOT/../gpuguard-deps"
    fi
    cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGG_BUILD_TESTS=OFF -DGG_BUILD_GPU_CHECK=ON
                -DGG_WERROR=OFF)
    # gpuguard_py is built for the interpreter the Python checks will run
    # (on the first GPU machine CMake chose /usr/bin/python3 while the one
    # with PyTorch was a virtual environment's).
    [[ -n "$python_given" ]] && cmake_args+=(-DPython3_EXECUTABLE="$python_given")
    mkdir -p "$build_dir"
    if [[ -n "$deps_dir" ]]; then
        compgen -G "$deps_dir/*.deb" >/dev/null || die "no .deb files in $deps_dir"
        rm -rf "$build_dir/deps"
        mkdir -p "$build_dir/deps"
        for deb in "$deps_dir"/*.deb; do
            unpack_deb "$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")" "$build_dir/deps"
        done
        cmake_args+=(-DGG_CJSON_PREFIX="$build_dir/deps/usr")
    fi
    # Only the runner's line may reach the terminal when there is no GPU:
    # the build goes to a log, shown when it fails (--verbose shows it all).
    log="$build_dir/build.log"
    build_steps() {
        cmake -S "$GG_ROOT" -B "$build_dir" "${cmake_args[@]}" || return 1
        cmake --build "$build_dir" -j"$(nproc)" --target gg_gpu_check || return 1
        # The Python checks need gpuguard_py, built when Python's headers exist.
        # The target list is read whole first: under pipefail, grep -q leaving
        # early made the pipeline fail with SIGPIPE on a long list (seen on the
        # first GPU run, where gpuguard_py was then never built).
        local targets
        targets="$(cmake --build "$build_dir" --target help)" || return 1
        if [[ "$targets" == *gpuguard_py* ]]; then
            cmake --build "$build_dir" -j"$(nproc)" --target gpuguard_py
        fi
    }
    if ((verbose)); then
        build_steps
    elif ! build_steps >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        die "the build failed (log: $log)"
    fi
fi

runner="$build_dir/bin/gg_gpu_check"
[[ -x "$runner" ]] || die "$runner is missing: run without --no-build"
((json_given)) || runner_args=(--json "$build_dir/gpu-check-report.json" "${runner_args[@]}")
exec "$runner" "${runner_args[@]}"
