#!/usr/bin/env bash
# Runs Debian's rocminfo on a simulated board under libkfdsim-preload.so and
# checks that ROCR lists exactly the GPU agents the board implies.
#
#   rocminfo_check.sh <preload.so> <kfdsim_board_gpus> <libhsa-runtime64.so> <rocminfo>
#                     <tree-dir | board-name> [override]
#
# Expected agents are derived, not written down:
#   - the GPU nodes and their gfx names come from kfdsim_board_gpus (the
#     simulator's own board loader, the one the preload uses);
#   - the ISAs this ROCR knows are the gfx names in its string table
#     (ROCR 5.2.3 has no gfx94x and no gfx11xx; it skips such nodes with
#     "The GPU node has an unrecognized id.").
# Without `override`: rocminfo exits 0, prints "ROCk module is loaded" (its
# lsmod child ran on the simulated /proc/modules), lists one GPU agent per
# known-ISA GPU node with that node's gfx name and no other GPU agent, prints
# the "unrecognized id" warning once per unknown-ISA node, and lists at least
# one CPU agent.
# With `override`: HSA_OVERRIDE_GFX_VERSION=9.0.10 is set, the board must have
# at least one unknown-ISA node (otherwise the run proves nothing), and every
# GPU node must be listed, as gfx90a, with no "unrecognized id" warning.
set -euo pipefail

if [ $# -lt 5 ] || [ $# -gt 6 ]; then
  echo "usage: $0 <preload.so> <kfdsim_board_gpus> <libhsa-runtime64.so> <rocminfo> <tree|board> [override]" >&2
  exit 2
fi
preload=$1 board_gpus=$2 rocr_lib=$3 rocminfo=$4 target=$5 mode=${6:-plain}
[ "$mode" = plain ] || [ "$mode" = override ] || { echo "bad mode '$mode'" >&2; exit 2; }

fail() { echo "FAIL: $*" >&2; exit 1; }
for f in "$preload" "$board_gpus" "$rocr_lib" "$rocminfo"; do
  [ -e "$f" ] || fail "missing $f"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- what the board contains
"$board_gpus" "$target" > "$work/board.txt" 2> "$work/board.log" ||
  { cat "$work/board.log" >&2; fail "cannot load board $target"; }
awk '$1 == "gpu" { sub("node=", "", $2); sub("gfx=", "", $3); print $2, $3 }' \
  "$work/board.txt" > "$work/gpus.txt"
gpu_count=$(wc -l < "$work/gpus.txt")
[ "$gpu_count" -ge 1 ] || fail "board $target has no GPU node"

# --- the ISAs this ROCR build registers (its string table)
LC_ALL=C grep -aoE 'gfx[0-9]{1,2}[0-9a-f]{2}' "$rocr_lib" | sort -u > "$work/known_isas.txt"
grep -qx gfx90a "$work/known_isas.txt" ||
  fail "could not read the ISA list from $rocr_lib (gfx90a not found)"

# --- expected GPU agents: "<node> <gfx>", sorted
override_version=9.0.10
override_gfx=gfx90a   # 9.0.10: major 9, minor 0, stepping 10 (a)
: > "$work/expected.txt"
unknown=0
while read -r node gfx; do
  known=1
  grep -qx "$gfx" "$work/known_isas.txt" || { known=0; unknown=$((unknown + 1)); }
  if [ "$mode" = override ]; then
    echo "$node $override_gfx" >> "$work/expected.txt"
  elif [ "$known" -eq 1 ]; then
    echo "$node $gfx" >> "$work/expected.txt"
  fi
done < "$work/gpus.txt"
sort -n -o "$work/expected.txt" "$work/expected.txt"
if [ "$mode" = override ] && [ "$unknown" -eq 0 ]; then
  fail "board $target has no GPU node this ROCR does not know; the override run would prove nothing"
fi
expected_warnings=$unknown
if [ "$mode" = override ]; then expected_warnings=0; fi

# --- run rocminfo on the simulated board
env_args=(LD_PRELOAD="$preload")
# A target with a slash is a captured tree (it must exist), otherwise a built-in board.
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || { echo "FAIL: topology tree $target is missing (no nodes/)" >&2; exit 1; }
  env_args+=(KFDSIM_TOPOLOGY="$target")
else
  env_args+=(KFDSIM_BOARD="$target")
fi
if [ "$mode" = override ]; then env_args+=(HSA_OVERRIDE_GFX_VERSION="$override_version"); fi
echo "running: ${env_args[*]} $rocminfo"
rc=0
env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD -u HSA_OVERRIDE_GFX_VERSION "${env_args[@]}" \
  "$rocminfo" > "$work/out.txt" 2> "$work/err.txt" < /dev/null || rc=$?
cat "$work/out.txt" "$work/err.txt" > "$work/all.txt"
if [ "$rc" -ne 0 ]; then
  tail -n 40 "$work/all.txt" >&2
  fail "rocminfo exited $rc"
fi

# --- what rocminfo listed: one "<node> <type> <name>" line per agent.
# Agent-level keys have a two-space indent; ISA sub-entries are indented more.
awk '
  function flush() { if (in_agent) print node, type, name; in_agent = 0 }
  /^Agent [0-9]+/ { flush(); in_agent = 1; node = "?"; type = "?"; name = "?"; next }
  /^\*\*\* Done \*\*\*/ { flush(); next }
  in_agent && /^  Name:/ { sub(/^  Name:[ \t]*/, ""); sub(/[ \t]+$/, ""); name = $0 }
  in_agent && /^  Node:/ { node = $2 }
  in_agent && /^  Device Type:/ { type = $3 }
  END { flush() }' "$work/out.txt" > "$work/agents.txt"
awk '$2 == "GPU" { print $1, $3 }' "$work/agents.txt" | sort -n > "$work/listed.txt"
cpu_agents=$(awk '$2 == "CPU"' "$work/agents.txt" | wc -l)
warnings=$(grep -c "The GPU node has an unrecognized id" "$work/all.txt" || true)

echo "board: $(head -n 1 "$work/board.txt"); unknown-ISA GPU nodes: $unknown"
echo "agents: $(wc -l < "$work/agents.txt") ($cpu_agents CPU, $(wc -l < "$work/listed.txt") GPU);" \
  "unrecognized-id warnings: $warnings"

status=0
if ! diff -u "$work/expected.txt" "$work/listed.txt" > "$work/diff.txt"; then
  echo "FAIL: GPU agents differ from the board (--- expected '<node> <gfx>', +++ listed by rocminfo):" >&2
  cat "$work/diff.txt" >&2
  status=1
fi
if [ "$warnings" -ne "$expected_warnings" ]; then
  echo "FAIL: $warnings 'unrecognized id' warnings, expected $expected_warnings" >&2
  status=1
fi
if [ "$cpu_agents" -lt 1 ]; then
  echo "FAIL: no CPU agent listed" >&2
  status=1
fi
if ! grep -q "ROCk module is loaded" "$work/out.txt"; then
  echo "FAIL: rocminfo did not find the amdgpu module (its lsmod child saw no simulated /proc/modules)" >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "--- rocminfo output (last 60 lines):" >&2
  tail -n 60 "$work/all.txt" >&2
  exit 1
fi
echo "PASS: $(wc -l < "$work/listed.txt") GPU agents match the board"
