#!/usr/bin/env bash
# Installs the built tree into a scratch prefix and builds the C consumer
# against it twice: with find_package(hsakmt) (in a project that enables
# C++ too, so CMake could pick either driver) and with the C compiler and
# `pkg-config --static libhsakmt` alone. Both binaries must link and run,
# with no C++ runtime: the archive needs only libc (and libdrm_amdgpu when
# built with it), so neither the .pc link line nor the CMake package may
# bring libstdc++ in, and no binary may list it as NEEDED. A third link
# takes the whole archive, so every member is held to that.
#
#   check_install.sh BUILD_DIR SOURCE_DIR C_COMPILER READELF
set -euo pipefail
build=$1 src=$2 cc=$3 readelf=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/hke-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "install: FAILED: $*"; exit 1; }
# No C++ runtime among the shared objects a binary needs.
no_cxx_runtime() {
  local needed
  needed=$("$readelf" -d "$1" | awk '/\(NEEDED\)/ { print $NF }')
  if grep -Eq 'libstdc\+\+|libsupc\+\+' <<<"$needed"; then
    fail "$(basename "$1") needs the C++ runtime: $(tr '\n' ' ' <<<"$needed")"
  fi
  echo "install: $(basename "$1") needs $(tr '\n' ' ' <<<"$needed")"
}

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in lib/libhsakmt.a include/hsakmt/hsakmt.h include/hsakmt/hsakmttypes.h \
         include/hsakmt/hsakmt_embedded.h include/hsakmt/hsakmt_platform.h \
         lib/cmake/hsakmt/hsakmtConfig.cmake lib/pkgconfig/libhsakmt.pc; do
  [ -f "$work/prefix/$f" ] || fail "missing $f"
done
echo "install: layout ok"

cmake -S "$src/tests/install/consumer" -B "$work/cmake-consumer" -G Ninja \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/cmake.log"
cmake --build "$work/cmake-consumer" >>"$work/cmake.log"
# The C program is linked by the C driver: the package does not ask for C++.
grep -q '^build consumer: C_EXECUTABLE_LINKER' "$work/cmake-consumer/build.ninja" ||
  fail "find_package(hsakmt) made CMake link a C program with the C++ driver: \
$(grep '^build consumer:' "$work/cmake-consumer/build.ninja")"
"$work/cmake-consumer/consumer"
no_cxx_runtime "$work/cmake-consumer/consumer"
echo "install: find_package consumer ok"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
libs=$(pkg-config --static --libs libhsakmt)
if grep -Eq 'stdc\+\+|supc\+\+' <<<"$libs"; then
  fail "pkg-config --static --libs libhsakmt names the C++ runtime: $libs"
fi
# shellcheck disable=SC2046,SC2086
"$cc" -o "$work/pc-consumer" "$src/tests/install/consumer/main.c" \
  $(pkg-config --cflags libhsakmt) $libs
"$work/pc-consumer"
no_cxx_runtime "$work/pc-consumer"
echo "install: pkg-config --static consumer ok"

# Every member of the archive, not only those main.c pulls in, links with
# the C driver and the same line.
# shellcheck disable=SC2046
"$cc" -o "$work/whole-consumer" "$src/tests/install/consumer/main.c" \
  $(pkg-config --cflags libhsakmt) -Wl,--whole-archive "$work/prefix/lib/libhsakmt.a" \
  -Wl,--no-whole-archive $(sed 's/-lhsakmt//' <<<"$libs")
"$work/whole-consumer"
no_cxx_runtime "$work/whole-consumer"
echo "install: whole-archive C consumer ok"
