#!/usr/bin/env bash
# The whole test suite: native debug build and tests (unit tests, ABI
# cross-check, no-heap gate, install-and-consume, Debian's stack on the
# simulator, the oracle), the consumer stage (current ROCR and rocminfo
# built from source on this library and on upstream's thunk, native only),
# the same unit tests under ASan+UBSan and under TSan, the cross builds with their tests under qemu-user (aarch64, armhf,
# riscv64), the fuzz smoke runs, and the footprint report.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh

failed=()
passed=()
run() {
  local name=$1; shift
  echo "=== $name: $*"
  if "$@"; then passed+=("$name"); else failed+=("$name"); fi
}

run native cmake --workflow --preset dev
# ROCR and rocminfo built from ../shared/external on this library and on
# upstream's thunk, run on simulated boards (tests/consumers; native only).
run consumers ctest --preset consumers
run asan cmake --workflow --preset asan
run tsan cmake --workflow --preset tsan
for target in aarch64 armhf riscv64; do
  run "$target" cmake --workflow --preset "$target"
done
run fuzz cmake --workflow --preset fuzz
run footprint tools/footprint.sh

echo "=== summary: passed: ${passed[*]:-none}; failed: ${failed[*]:-none}"
echo "${#passed[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
