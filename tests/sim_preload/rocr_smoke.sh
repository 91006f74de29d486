#!/usr/bin/env bash
# Runs rocr_smoke (ROCR 5.2.3: init, agents, VRAM pool allocation, queue,
# signal waits, shutdown) under libkfdsim-preload.so on one board, with the
# simulator's trace on, and checks that the run really went through the
# simulator: rocr_smoke exits 0 and the trace shows at least one successful
# CREATE_QUEUE, as many successful DESTROY_QUEUE, and successful WAIT_EVENTS
# calls (the blocked signal waits).
#
#   rocr_smoke.sh <preload.so> <rocr_smoke> <tree-dir | board-name>
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 <preload.so> <rocr_smoke> <tree|board>" >&2; exit 2; }
preload=$1 smoke=$2 target=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

board_env=()
# A target with a slash is a captured tree (it must exist), otherwise a built-in board.
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || { echo "FAIL: topology tree $target is missing (no nodes/)" >&2; exit 1; }
  board_env=(KFDSIM_TOPOLOGY="$target")
else
  board_env=(KFDSIM_BOARD="$target")
fi
rc=0
env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD LD_PRELOAD="$preload" "${board_env[@]}" \
  KFDSIM_TRACE="$work/trace" "$smoke" < /dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "rocr_smoke exited $rc on $target"

cat "$work"/trace.* > "$work/all" 2> /dev/null || fail "no trace file was written"
count_ok() { grep -cE "^[0-9]+ ioctl .* name=$1 .* -> ok( |$)" "$work/all" || true; }
created=$(count_ok AMDKFD_IOC_CREATE_QUEUE)
destroyed=$(count_ok AMDKFD_IOC_DESTROY_QUEUE)
waits=$(count_ok AMDKFD_IOC_WAIT_EVENTS)
echo "trace: CREATE_QUEUE ok x$created, DESTROY_QUEUE ok x$destroyed, WAIT_EVENTS ok x$waits"
[ "$created" -ge 1 ] || fail "no successful CREATE_QUEUE reached the simulator"
[ "$destroyed" -eq "$created" ] || fail "$created queues created but $destroyed destroyed"
[ "$waits" -ge 1 ] || fail "no WAIT_EVENTS reached the simulator (the signal waits did not block in the KFD)"
echo "PASS: rocr_smoke on $target"
