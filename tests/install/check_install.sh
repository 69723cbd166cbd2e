#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds a consumer
# against it twice: with find_package(gpuguard) (which also builds a
# simulator kernel module with the installed gg_add_sim_module, and runs
# it) and with pkg-config. Both consumers must run over the installed
# simulator. Only the installed package is used: the consumer's folder is
# copied out of the source tree first.
#   check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
libdir=$(dirname "$(find "$work/prefix" -name libgpuguard.so | head -1)")
# Everything goes under --prefix (the interposer's links once went to the
# configured prefix instead, issue 29), and the links lead to the library.
if grep -E '^-- (Installing|Up-to-date): ' "$work/install.log" | grep -v -- "-- [A-Za-z-]*: $work/prefix/"; then
    echo "check_install: the lines above were installed outside --prefix $work/prefix" >&2
    exit 1
fi
for face in libcuda.so.1 libamdhip64.so.5; do
    if [[ ! -e "$libdir/gpuguard/intercept/$face" ]]; then
        ls -l "$libdir/gpuguard/intercept" >&2 || true
        echo "check_install: the installed interposer link $face does not lead to the library" >&2
        exit 1
    fi
done

cp -r "$src/consumer" "$work/consumer-src"
cmake -S "$work/consumer-src" -B "$work/cmake-consumer" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake-consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$work/cmake-consumer/consumer"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc -o "$work/pc-consumer" "$work/consumer-src/main.c" $(pkg-config --cflags --libs gpuguard)
LD_LIBRARY_PATH="$libdir" "$work/pc-consumer"
echo "install check passed"
