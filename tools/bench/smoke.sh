#!/usr/bin/env bash
# bench_smoke: hke-bench runs one iteration per library on the built-in
# apu-embedded board under the preload and prints a table row for each
# library. Checks the harness, never a time.
#   smoke.sh <libkfdsim-preload.so> <hke-bench>
set -euo pipefail
preload=$1
bench=$2
out=$(KFDSIM_BOARD=apu-embedded LD_PRELOAD=$preload "$bench" --iterations 1)
printf '%s\n' "$out"
status=0
for lib in ours debian; do
  # A row: | topology-cycle | apu-embedded | <lib> | iterations | ... |
  if ! grep -Eq "^\| topology-cycle \| apu-embedded \| $lib \| " <<<"$out"; then
    echo "bench_smoke: no table row for $lib" >&2
    status=1
  fi
done
# Debian's library must really have run (a number, not an error cell).
if ! grep -Eq '^\| topology-cycle \| apu-embedded \| debian \| 1 \| [0-9.]+ (µs|ms|s) \|' <<<"$out"; then
  echo "bench_smoke: Debian's row has no time" >&2
  status=1
fi
exit $status
