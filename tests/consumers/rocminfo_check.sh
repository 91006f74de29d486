#!/usr/bin/env bash
# rocminfo, built from the external archive, on one simulated board with one
# of the consumer build's ROCRs.
#
#   rocminfo_check.sh OUT PRELOAD control|ours TARGET BOARD_GPUS
#
# control: rocminfo exits 0 and lists one GPU agent per GPU node the
#   simulator's loader reports (kfdsim_board_gpus), on that node.
# ours: the same, and the same agents (Name, Marketing Name, Node, Device
#   Type, in order) as the control's run (the CTest dependency orders them).
set -uo pipefail
[ $# -eq 5 ] || { echo "usage: $0 OUT PRELOAD control|ours TARGET BOARD_GPUS" >&2; exit 2; }
out=$1 preload=$2 runtime=$3 target=$4 board_gpus=$5
name=$(basename "$target")
board_env=(KFDSIM_BOARD="$target")
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || { echo "FAIL: topology tree $target is missing (no nodes/)"; exit 1; }
  board_env=(KFDSIM_TOPOLOGY="$target")
fi
mkdir -p "$out/results"
log=$out/results/rocminfo-$runtime-$name.txt
env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD LD_LIBRARY_PATH="$out/prefix-$runtime/lib" \
  LD_PRELOAD="$preload" "${board_env[@]}" timeout 300 "$out/rocminfo/rocminfo" </dev/null >"$log" 2>&1
rc=$?
[ $rc -eq 0 ] || { tail -n 20 "$log"; echo "FAIL: rocminfo exited $rc with $runtime on $name"; exit 1; }
agents=$out/results/rocminfo-$runtime-$name.agents
grep -E '^ *(Name|Marketing Name|Node|Device Type):' "$log" | sed 's/  */ /g; s/ *$//' >"$agents"
want=$("$board_gpus" "$target" 2>/dev/null | awk '/^gpu /{split($2, n, "="); print n[2]}' | sort -n | tr '\n' ' ')
got=$(awk '/^ Node:/{node=$2} /^ Device Type: GPU/{print node}' "$agents" | sort -n | tr '\n' ' ')
echo "GPU nodes: board [$want] rocminfo [$got]"
[ -n "$want" ] && [ "$want" = "$got" ] || { echo "FAIL: rocminfo's GPU agents are not the board's GPU nodes"; exit 1; }
if [ "$runtime" = ours ]; then
  ref=$out/results/rocminfo-control-$name.agents
  [ -s "$ref" ] || { echo "FAIL: no control run ($ref)"; exit 1; }
  diff "$ref" "$agents" || { echo "FAIL: the agents differ from the control's"; exit 1; }
fi
echo "PASS: rocminfo with $runtime on $name"
