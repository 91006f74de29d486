#!/usr/bin/env bash
# Oracle comparison: runs the props_dump oracle built against a reference
# thunk (Debian's libhsakmt 5.2.3, or upstream's current libhsakmt) and the
# one built against hsakmt-embedded, both under libkfdsim-preload.so on the
# same simulated board, and compares their key=value dumps key by key.
#
#   compare.sh <preload.so> <oracle_reference> <oracle_ours> <tree-dir | board-name>
#
# HKE_ORACLE_REFERENCE names the reference: `debian` (default) or
# `upstream`. It labels the output (`debian=`/`upstream=`, the kept files)
# and picks the default known-differences file.
#
# Before comparing:
#   - with the Debian reference, our dump loses the fields only the newer
#     header has (the `#ifndef HKE_ORACLE_DEBIAN` ones in props_dump.c,
#     listed in NEWER_NODE_FIELDS / NEWER_LINK_FIELDS below); upstream's
#     header has them all, so against upstream every field is compared;
#   - in both dumps the VirtualBaseAddress of an MMIO_REMAP bank (HeapType 7)
#     becomes `<mapped>` when nonzero: it is where this process mapped the
#     MMIO page, different in every run;
#   - each dump gets a last line `exit=<status>` of its program.
# A key whose values differ (or that only one side prints) is a difference.
# It is tolerated when the whole key matches a regex (POSIX ERE, anchored at
# both ends) in the known-differences file: one `key-regex<TAB>reason` per
# line, `#` comments and blank lines ignored. Default file beside this
# script: known_differences.txt (Debian) or known_differences_upstream.txt
# (upstream); HKE_ORACLE_KNOWN_DIFFERENCES overrides it. HKE_ORACLE_OUT=<dir>
# keeps <reference>.txt, ours.txt and differences.txt there.
#
# Exit status: 0 no unexplained difference, 1 unexplained differences (each
# printed), 2 usage error, bad known-differences file, or the reference
# oracle itself failed (nothing to compare with).
set -euo pipefail

NEWER_NODE_FIELDS='NumNeuralCores|Capability2|OverrideEngineId|Integrated|NumXcc|KFDGpuID|FamilyID'
NEWER_LINK_FIELDS='RecSdmaEngIdMask'

if [ $# -ne 4 ]; then
  echo "usage: $0 <preload.so> <oracle_reference> <oracle_ours> <tree-dir | board-name>" >&2
  exit 2
fi
preload=$1 reference=$2 ours=$3 target=$4
here=$(cd "$(dirname "$0")" && pwd)
ref=${HKE_ORACLE_REFERENCE:-debian}
case "$ref" in
  debian) default_known=$here/known_differences.txt ;;
  upstream) default_known=$here/known_differences_upstream.txt ;;
  *) echo "compare.sh: HKE_ORACLE_REFERENCE must be debian or upstream, not '$ref'" >&2; exit 2 ;;
esac
known=${HKE_ORACLE_KNOWN_DIFFERENCES:-$default_known}
for f in "$preload" "$reference" "$ours" "$known"; do
  [ -e "$f" ] || { echo "compare.sh: missing $f" >&2; exit 2; }
done

# The known-differences file must be well formed before anything runs.
if ! awk -F'\t' '/^[ \t]*(#|$)/ { next }
                 NF != 2 || $1 == "" || $2 == "" {
                   printf "%s:%d: expected key-regex<TAB>reason\n", FILENAME, NR > "/dev/stderr"; bad = 1 }
                 END { exit bad }' "$known"; then
  exit 2
fi

if [ -n "${HKE_ORACLE_OUT:-}" ]; then
  out=$HKE_ORACLE_OUT
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

board_env=()
# A target with a slash is a captured tree (it must exist), otherwise a built-in board.
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || { echo "FAIL: topology tree $target is missing (no nodes/)" >&2; exit 2; }
  board_env=(KFDSIM_TOPOLOGY="$target")
else
  board_env=(KFDSIM_BOARD="$target")
fi

run_oracle() {  # <program> <output>
  local rc=0
  env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD LD_PRELOAD="$preload" "${board_env[@]}" "$1" \
    > "$2.raw" 2> "$2.err" < /dev/null || rc=$?
  echo "exit=$rc" >> "$2.raw"
  return 0
}

# normalise <side> <raw> <out>: side `strip` drops the newer-header fields
normalise() {
  awk -v side="$1" \
      -v newer_node="^node\\.[0-9]+\\.($NEWER_NODE_FIELDS)=" \
      -v newer_link="^node\\.[0-9]+\\.link\\.[0-9]+\\.($NEWER_LINK_FIELDS)=" '
    FNR == NR {
      if ($0 ~ /^node\.[0-9]+\.mem\.[0-9]+\.HeapType=7$/) {
        k = $0; sub(/HeapType=7$/, "VirtualBaseAddress", k); mmio[k] = 1
      }
      next
    }
    side == "strip" && ($0 ~ newer_node || $0 ~ newer_link) { next }
    {
      eq = index($0, "="); key = substr($0, 1, eq - 1); value = substr($0, eq + 1)
      if ((key in mmio) && value != "0x0") value = "<mapped>"
      print key "=" value
    }' "$2" "$2" > "$3"
}

run_oracle "$reference" "$out/$ref"
run_oracle "$ours" "$out/ours"
normalise keep "$out/$ref.raw" "$out/$ref.txt"
if [ "$ref" = debian ]; then
  normalise strip "$out/ours.raw" "$out/ours.txt"
else
  normalise keep "$out/ours.raw" "$out/ours.txt"
fi

if ! grep -qx 'exit=0' "$out/$ref.txt"; then
  echo "compare.sh: the $ref oracle failed on $target; nothing to compare with:" >&2
  tail -n 20 "$out/$ref.txt" "$out/$ref.err" >&2
  exit 2
fi

# One line per differing key: key<TAB>reference-value<TAB>ours-value<TAB>reason
# (reason empty when no known difference covers it), the reference's key order.
awk -F'\t' -v OFS='\t' '
  FILENAME == ARGV[1] { if ($0 !~ /^[ \t]*(#|$)/) { n++; re[n] = "^(" $1 ")$"; why[n] = $2 } next }
  FILENAME == ARGV[2] { eq = index($0, "="); k = substr($0, 1, eq - 1); deb[k] = substr($0, eq + 1); order[++m] = k; next }
  { eq = index($0, "="); k = substr($0, 1, eq - 1); our[k] = substr($0, eq + 1); if (!(k in deb)) order[++m] = k }
  END {
    for (i = 1; i <= m; i++) {
      k = order[i]
      if (k in seen) continue
      seen[k] = 1
      d = (k in deb) ? deb[k] : "<absent>"
      o = (k in our) ? our[k] : "<absent>"
      if (d == o) continue
      reason = ""
      for (j = 1; j <= n; j++) if (k ~ re[j]) { reason = why[j]; break }
      print k, d, o, reason
    }
  }' "$known" "$out/$ref.txt" "$out/ours.txt" > "$out/differences.txt"

total=$(wc -l < "$out/differences.txt")
unexplained=$(awk -F'\t' '$4 == ""' "$out/differences.txt" | wc -l)
explained=$((total - unexplained))
awk -F'\t' -v ref="$ref" '$4 == "" { printf "DIFF  %s: %s=%s ours=%s\n", $1, ref, $2, $3 }' \
  "$out/differences.txt" | head -n 200
[ "$unexplained" -le 200 ] || echo "DIFF  ... $((unexplained - 200)) more"
awk -F'\t' '$4 != "" { n[$4]++ } END { for (r in n) printf "known %d key(s): %s\n", n[r], r }' \
  "$out/differences.txt"
echo "compare.sh: $target: $(wc -l < "$out/$ref.txt") $ref keys, $(wc -l < "$out/ours.txt") ours;" \
  "$unexplained unexplained difference(s), $explained known"
[ "$unexplained" -eq 0 ]
