#!/usr/bin/env bash
# Queue oracle comparison: runs queue_sdma built against a reference thunk
# (Debian's libhsakmt 5.2.3, or upstream's current libhsakmt) and the one
# built against hsakmt-embedded, each under libkfdsim-preload.so (whose
# engine thread executes the SDMA packets) on the same simulated board, and
# requires:
#   - both runs to exit 0 with identical output (statuses, hashes);
#   - the copies to have happened on both sides: every "-bytes" line says
#     equal=1 and every "-wait" line status=0 rptr_caught_up=1.
#
#   queue_compare.sh <preload.so> <queue_sdma_reference> <queue_sdma_ours> <tree-dir | board-name>
#
# HKE_ORACLE_REFERENCE=debian (default) or upstream names the reference in
# the output. HKE_ORACLE_OUT=<dir> keeps {<reference>,ours}.out and .err there.
# Exit status: 0 equal and complete; 1 different or incomplete; 2 usage.
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 <preload.so> <queue_sdma_reference> <queue_sdma_ours> <tree-dir | board-name>" >&2
  exit 2
fi
preload=$1 reference=$2 ours=$3 target=$4
ref=${HKE_ORACLE_REFERENCE:-debian}
case "$ref" in
  debian) ref_name="Debian 5.2.3" ;;
  upstream) ref_name="upstream's libhsakmt" ;;
  *) echo "queue_compare.sh: HKE_ORACLE_REFERENCE must be debian or upstream, not '$ref'" >&2; exit 2 ;;
esac
for f in "$preload" "$reference" "$ours"; do
  [ -e "$f" ] || { echo "queue_compare.sh: missing $f" >&2; exit 2; }
done
if [ -n "${HKE_ORACLE_OUT:-}" ]; then
  out=$HKE_ORACLE_OUT
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || { echo "FAIL: topology tree $target is missing (no nodes/)" >&2; exit 2; }
  board_env=(KFDSIM_TOPOLOGY="$target")
else
  board_env=(KFDSIM_BOARD="$target")
fi

run() {
  local rc=0
  env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD -u KFDSIM_FAULTS -u KFDSIM_TRACE LD_PRELOAD="$preload" \
    "${board_env[@]}" HSA_USE_SVM=0 "$1" > "$out/$2.out" 2> "$out/$2.err" < /dev/null || rc=$?
  echo "exit=$rc" >> "$out/$2.out"
}
run "$reference" "$ref"
run "$ours" ours

status=0
if ! diff -u "$out/$ref.out" "$out/ours.out" > "$out/diff.txt"; then
  echo "FAIL: the two thunks printed different results on $target:"
  cat "$out/diff.txt"
  status=1
fi
for side in "$ref" ours; do
  f="$out/$side.out"
  if ! grep -q '^exit=0$' "$f"; then
    echo "FAIL: $side run did not exit 0"; cat "$f"; sed -n 1,20p "$out/$side.err"; status=1
  fi
  n_bytes=$(grep -c -- '-bytes ' "$f" || true)
  n_equal=$(grep -c -- '-bytes .* equal=1$' "$f" || true)
  n_wait=$(grep -c -- '-wait status=0 rptr_caught_up=1$' "$f" || true)
  if [ "$n_bytes" -ne 2 ] || [ "$n_equal" -ne 2 ] || [ "$n_wait" -ne 2 ]; then
    echo "FAIL: $side: the copies did not complete (bytes lines $n_bytes, equal $n_equal, waits ok $n_wait)"
    cat "$f"
    status=1
  fi
done
[ $status -eq 0 ] && echo "queue oracle: $ref_name and hsakmt-embedded copied the same bytes on $target"
exit $status
