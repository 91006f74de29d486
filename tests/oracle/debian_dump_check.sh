#!/usr/bin/env bash
# Runs the Debian-built oracle (props_dump against libhsakmt 5.2.3) under
# libkfdsim-preload.so on one board and checks its dump with check_dump.py:
# exit 0, every status 0, every node with every key, entry counts equal to
# the mem/cache/link entries printed, and the node and GPU-node sets equal to
# what the simulator's board loader (kfdsim_board_gpus) says.
#
#   debian_dump_check.sh <preload.so> <oracle_debian> <kfdsim_board_gpus>
#                        <python3> <check_dump.py> <tree-dir | board-name>
set -euo pipefail
[ $# -eq 6 ] || {
  echo "usage: $0 <preload.so> <oracle_debian> <kfdsim_board_gpus> <python3> <check_dump.py> <tree|board>" >&2
  exit 2
}
preload=$1 oracle=$2 board_gpus=$3 python=$4 check_dump=$5 target=$6
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A target with a slash is a captured tree (it must exist), otherwise a built-in board.
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || fail "topology tree $target is missing (no nodes/)"
  board_env=(KFDSIM_TOPOLOGY="$target")
else
  board_env=(KFDSIM_BOARD="$target")
fi
"$board_gpus" "$target" > "$work/board.txt" 2> "$work/board.log" ||
  { cat "$work/board.log" >&2; fail "kfdsim_board_gpus cannot load $target"; }

rc=0
env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD LD_PRELOAD="$preload" "${board_env[@]}" "$oracle" \
  > "$work/dump.txt" 2> "$work/stderr.txt" < /dev/null || rc=$?
if [ "$rc" -ne 0 ]; then
  tail -n 20 "$work/dump.txt" "$work/stderr.txt" >&2
  fail "oracle_debian exited $rc on $target"
fi
"$python" "$check_dump" "$work/dump.txt" --board "$work/board.txt" ||
  fail "the Debian oracle's dump on $target is not well formed"
