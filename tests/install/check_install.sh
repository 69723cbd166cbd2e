#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds a consumer
# against it twice: with find_package(gpuguard) and with pkg-config. Both
# consumers must run over the installed simulator.
#   check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
libdir=$(dirname "$(find "$work/prefix" -name libgpuguard.so | head -1)")

cmake -S "$src/consumer" -B "$work/cmake-consumer" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/cmake-consumer" > "$work/build.log"
LD_LIBRARY_PATH="$libdir" "$work/cmake-consumer/consumer"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc -o "$work/pc-consumer" "$src/consumer/main.c" $(pkg-config --cflags --libs gpuguard)
LD_LIBRARY_PATH="$libdir" "$work/pc-consumer"
echo "install check passed"
