#!/usr/bin/env bash
# Debian's libhsakmt 5.2.3 (OpenKFD + AcquireSystemProperties + every
# Get*Properties, through the props_dump oracle) on a captured tree under
# libkfdsim-preload.so with KFDSIM_TRACE set, then checks the dump and the
# trace.
#
#   thunk_trace_check.sh <preload.so> <oracle_debian> <kfdsim_board_gpus>
#                        <python3> <check_dump.py> <tree-dir>
#
# Expected counts are taken twice, independently: from the raw tree (node
# directories; GPU nodes = nonzero simd_count, what the thunk itself uses)
# and from the simulator's board loader (kfdsim_board_gpus); both must agree
# with each other and with the dump.
# Checks: exit 0; the dump is well formed (check_dump.py) with
# system.NumNodes and the GPU node set as expected; exactly one trace file
# <dir>/trace.<pid> (one process), non-empty, plain text; every numbered
# line is a core record `<seq> ioctl|mmap|munmap|open|close ... -> ok|E...`
# numbered 1, 2, 3... in order, every other line a shim record
# `path <op> <path> -> sim|host`; GET_VERSION succeeded exactly once and ACQUIRE_VM succeeded once
# per GPU node; no ioctl failed.
set -euo pipefail
[ $# -eq 6 ] || {
  echo "usage: $0 <preload.so> <oracle_debian> <kfdsim_board_gpus> <python3> <check_dump.py> <tree>" >&2
  exit 2
}
preload=$1 oracle=$2 board_gpus=$3 python=$4 check_dump=$5 tree=$6
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -d "$tree/nodes" ] || fail "$tree is not a topology tree (no nodes/)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- expectations from the raw tree
tree_nodes=$(find "$tree/nodes" -mindepth 1 -maxdepth 1 -type d | wc -l)
tree_gpus=$(cat "$tree"/nodes/*/properties | awk '$1 == "simd_count" && $2 != 0' | wc -l)
# --- and from the simulator's loader
"$board_gpus" "$tree" > "$work/board.txt" 2> "$work/board.log" ||
  { cat "$work/board.log" >&2; fail "kfdsim_board_gpus cannot load $tree"; }
board_nodes=$(awk '$1 == "board" { sub("nodes=", "", $3); print $3 }' "$work/board.txt")
board_gpus_n=$(awk '$1 == "gpu"' "$work/board.txt" | wc -l)
echo "tree: $tree_nodes nodes, $tree_gpus GPU nodes; board loader: $board_nodes nodes, $board_gpus_n GPUs"
[ "$tree_nodes" -ge 1 ] && [ "$tree_gpus" -ge 1 ] || fail "tree has no nodes or no GPU node"
[ "$tree_nodes" = "$board_nodes" ] && [ "$tree_gpus" = "$board_gpus_n" ] ||
  fail "the board loader disagrees with the tree"

# --- run the Debian thunk
rc=0
env -u KFDSIM_BOARD LD_PRELOAD="$preload" KFDSIM_TOPOLOGY="$tree" KFDSIM_TRACE="$work/trace" \
  "$oracle" > "$work/dump.txt" 2> "$work/stderr.txt" < /dev/null || rc=$?
if [ "$rc" -ne 0 ]; then
  tail -n 20 "$work/dump.txt" "$work/stderr.txt" >&2
  fail "oracle_debian exited $rc"
fi
"$python" "$check_dump" "$work/dump.txt" --board "$work/board.txt" \
  --nodes "$tree_nodes" --gpus "$tree_gpus" || fail "the dump is not what the tree describes"

# --- the trace
traces=("$work"/trace.*)
[ -e "${traces[0]}" ] || fail "no trace file $work/trace.<pid> was written"
[ "${#traces[@]}" -eq 1 ] || fail "${#traces[@]} trace files for one process: ${traces[*]}"
trace=${traces[0]}
[[ "$(basename "$trace")" =~ ^trace\.[0-9]+$ ]] || fail "trace file name $(basename "$trace") is not trace.<pid>"
[ -s "$trace" ] || fail "trace file $trace is empty"
if LC_ALL=C grep -q '[^[:print:]]' "$trace"; then
  fail "trace file has non-printable bytes"
fi
LC_ALL=C awk '
  /^[0-9]+ / {
    if ($1 != ++seq) { printf "line %d: sequence %s, expected %d\n", NR, $1, seq; bad = 1 }
    if ($0 !~ /^[0-9]+ (ioctl|mmap|munmap|open|close) .* -> (ok|E[A-Z0-9]+)( |$)/) {
      printf "line %d: not a core record: %s\n", NR, $0; bad = 1 }
    next
  }
  /^path [a-z0-9_]+ [^ ]+ -> [a-z]+$/ { next }
  { printf "line %d: unknown record: %s\n", NR, $0; bad = 1 }
  END { if (seq == 0) { print "no core record"; bad = 1 } exit bad }' "$trace" > "$work/grammar.txt" ||
  { head -n 20 "$work/grammar.txt" >&2; fail "trace lines do not follow the documented format"; }

count_ok() { grep -cE "^[0-9]+ ioctl .* name=$1 .* -> ok( |$)" "$trace" || true; }
get_version=$(count_ok AMDKFD_IOC_GET_VERSION)
acquire_vm=$(count_ok AMDKFD_IOC_ACQUIRE_VM)
failed=$(grep -cE '^[0-9]+ ioctl .* -> E' "$trace" || true)
echo "trace: $(wc -l < "$trace") lines, $(grep -c '^[0-9]' "$trace") core records;" \
  "GET_VERSION ok x$get_version, ACQUIRE_VM ok x$acquire_vm, failed ioctls: $failed"
[ "$get_version" -eq 1 ] || fail "expected one successful AMDKFD_IOC_GET_VERSION, found $get_version"
[ "$acquire_vm" -eq "$tree_gpus" ] ||
  fail "expected one successful AMDKFD_IOC_ACQUIRE_VM per GPU node ($tree_gpus), found $acquire_vm"
if [ "$failed" -ne 0 ]; then
  grep -E '^[0-9]+ ioctl .* -> E' "$trace" | head -n 5 >&2
  fail "$failed ioctls failed"
fi
echo "PASS: Debian thunk on $(basename "$tree"): $tree_nodes nodes, $tree_gpus GPU nodes, trace ok"
