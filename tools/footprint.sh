#!/usr/bin/env bash
# Footprint of libhsakmt.a: code (.text), initialised data (.data) and
# zero-initialised data (.bss, which holds the default context) of the
# objects from lib/ and of the whole archive, for every build directory
# given (default: the presets that exist under build/).
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  for d in build/dev build/release build/small-board build/aarch64 build/armhf build/riscv64; do
    [ -f "$d/libhsakmt.a" ] && dirs+=("$d")
  done
fi
[ ${#dirs[@]} -gt 0 ] || { echo "footprint: no build with libhsakmt.a found"; exit 1; }

printf '%-20s %-12s %10s %10s %10s\n' build config text data bss
for d in "${dirs[@]}"; do
  # The toolchain's own size(1): the nm CMake found, renamed.
  nm_tool=$(sed -n 's/^CMAKE_NM:FILEPATH=//p' "$d/CMakeCache.txt")
  size_tool=${nm_tool%nm}size
  [ -x "$size_tool" ] || size_tool=size
  config=$(sed -n 's/^HKE_CONFIGURATION:STRING=//p' "$d/CMakeCache.txt")
  read -r text data bss < <("$size_tool" -t "$d/libhsakmt.a" | tail -1 | awk '{print $1, $2, $3}')
  printf '%-20s %-12s %10s %10s %10s\n' "$(basename "$d")" "$config" "$text" "$data" "$bss"
done
