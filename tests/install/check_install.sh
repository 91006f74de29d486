#!/usr/bin/env bash
# Installs the built tree into a scratch prefix and builds the C consumer
# against it twice: with find_package(hsakmt) and with
# `pkg-config --static libhsakmt`. Both binaries must link and run.
#
#   check_install.sh BUILD_DIR SOURCE_DIR C_COMPILER
set -euo pipefail
build=$1 src=$2 cc=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/hke-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in lib/libhsakmt.a include/hsakmt/hsakmt.h include/hsakmt/hsakmttypes.h \
         include/hsakmt/hsakmt_embedded.h include/hsakmt/hsakmt_platform.h \
         lib/cmake/hsakmt/hsakmtConfig.cmake lib/pkgconfig/libhsakmt.pc; do
  [ -f "$work/prefix/$f" ] || { echo "install: missing $f"; exit 1; }
done
echo "install: layout ok"

cmake -S "$src/tests/install/consumer" -B "$work/cmake-consumer" -G Ninja \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/cmake.log"
cmake --build "$work/cmake-consumer" >>"$work/cmake.log"
"$work/cmake-consumer/consumer"
echo "install: find_package consumer ok"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
# shellcheck disable=SC2046
"$cc" -o "$work/pc-consumer" "$src/tests/install/consumer/main.c" \
  $(pkg-config --cflags libhsakmt) $(pkg-config --static --libs libhsakmt)
"$work/pc-consumer"
echo "install: pkg-config --static consumer ok"
