#!/usr/bin/env bash
# bench_smoke: hke-bench runs one iteration per library of topology-cycle,
# topology-cycle-cold, every alloc-map-free size class, query-pointer/1000,
# worst-case/kernel-100 (its smallest variant) and event-wake-parked (a case
# with an untimed Prepare step) on the built-in apu-embedded board under
# the preload, and prints a table row for each library. Checks the harness (rows, Debian's times, no error in ours: a
# time or "not implemented"), never a time.
#   smoke.sh <libkfdsim-preload.so> <hke-bench>
set -euo pipefail
preload=$1
bench=$2
out=""
status=0
for c in topology-cycle topology-cycle-cold alloc-map-free query-pointer/1000 worst-case/kernel-100 \
    event-wake-parked; do
  rc=0
  part=$(KFDSIM_BOARD=apu-embedded LD_PRELOAD=$preload "$bench" --iterations 1 --case "$c") || rc=$?
  printf '%s\n' "$part"
  out+="$part"$'\n'
  if [ "$rc" -ne 0 ]; then
    echo "bench_smoke: hke-bench --case $c exited $rc" >&2
    status=1
  fi
done
time_re='[0-9.]+ (ns|µs|ms|s)'
for c in topology-cycle topology-cycle-cold alloc-map-free/sys-4K alloc-map-free/vram-64M query-pointer/1000 \
    worst-case/kernel-100 event-wake-parked; do
  for lib in ours debian; do
    # A row: | <case> | apu-embedded | <lib> | iterations | ... |
    if ! grep -Fq "| $c | apu-embedded | $lib | " <<<"$out"; then
      echo "bench_smoke: no table row for $c, $lib" >&2
      status=1
    fi
  done
  # Debian's library must really have run (a number, not an error cell).
  if ! grep -Eq "^\| ${c//\//\\/} \| apu-embedded \| debian \| 1 \| $time_re \|" <<<"$out"; then
    echo "bench_smoke: Debian's $c row has no time" >&2
    status=1
  fi
done
# Ours: a time or "not implemented" (while the API grows), never an error.
if grep -Eq '^\| [^|]+ \| apu-embedded \| ours \| — \| error:' <<<"$out"; then
  echo "bench_smoke: a case failed in ours" >&2
  status=1
fi
exit $status
