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

cp -r "$src/consumer" "$work/consumer-src"
cmake -S "$work/consumer-src" -B "$work/cmake-consumer" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake-consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$work/cmake-consumer/consumer"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc -o "$work/pc-consumer" "$work/consumer-src/main.c" $(pkg-config --cflags --libs gpuguard)
LD_LIBRARY_PATH="$libdir" "$work/pc-consumer"
echo "install check passed"
