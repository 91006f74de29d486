#!/usr/bin/env bash
# Runs rocr_steps (memory, copy, queue and blit phases, one process each) on
# one simulated board through libkfdsim-preload.so with one of the two ROCRs
# of the consumer build, with ROCR's default settings (no HSA_* overrides;
# the blit phase sets HSA_ENABLE_SDMA=0 itself).
#
#   run_steps.sh OUT PRELOAD control|ours TARGET KNOWN_FAILURES
#
# OUT is the consumer build folder (build_consumers.sh); the step lines go
# to OUT/results/<runtime>-<name>.txt. A phase that dies by a signal adds
# "step <phase> crashed : FAIL signal <n> after <last step>".
#   control: every step must print ok.
#   ours: every step must print the same line as in the control's results
#     (run first: the CTest dependency orders it), except the steps listed
#     for this target in KNOWN_FAILURES ("<target> <phase> <step glob>
#     <reason>"). Every entry must still match a step that fails or is never
#     reached (a crash): an entry matching only passing steps fails the
#     test, so the list shrinks as the library's gaps close.
set -uo pipefail
[ $# -eq 5 ] || { echo "usage: $0 OUT PRELOAD control|ours TARGET KNOWN_FAILURES" >&2; exit 2; }
out=$1 preload=$2 runtime=$3 target=$4 known=$5
name=$(basename "$target")
board_env=(KFDSIM_BOARD="$target")
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || { echo "FAIL: topology tree $target is missing (no nodes/)"; exit 1; }
  board_env=(KFDSIM_TOPOLOGY="$target")
fi
lib=$out/prefix-$runtime/lib
[ -e "$lib/libhsa-runtime64.so.1" ] || { echo "FAIL: $lib has no ROCR (consumers_build did not run?)"; exit 1; }
mkdir -p "$out/results"
result=$out/results/$runtime-$name.txt
: >"$result"
for phase in memory copy queue blit; do
  log=$out/results/$runtime-$name-$phase.log
  env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD LD_LIBRARY_PATH="$lib" LD_PRELOAD="$preload" \
    "${board_env[@]}" timeout 900 "$out/bin/rocr_steps" "$phase" </dev/null >"$log" 2>"$log.stderr"
  rc=$?
  grep '^step ' "$log" >>"$result"
  if [ $rc -gt 128 ] && [ $rc -ne 124 ]; then
    last=$(grep '^step ' "$log" | tail -n 1 | sed 's/^step [a-z]* \([^ ]*\) .*/\1/')
    echo "step $phase crashed : FAIL signal $((rc - 128)) after ${last:-nothing}" >>"$result"
  elif [ $rc -eq 124 ]; then
    echo "step $phase timeout : FAIL the phase did not end within 900 s" >>"$result"
  fi
done
steps=$(wc -l <"$result")
bad=$(grep -c ' : FAIL' "$result")
echo "$runtime on $name: $steps steps, $bad failed ($result)"
[ "$steps" -gt 0 ] || { echo "FAIL: no step ran"; exit 1; }

if [ "$runtime" = control ]; then
  if [ "$bad" -ne 0 ]; then
    grep ' : FAIL' "$result" | head -n 20
    echo "FAIL: the control (ROCR on upstream's thunk) failed $bad steps on $name"
    exit 1
  fi
  echo "PASS: every step ok with the control on $name"
  exit 0
fi

# ours: against the control and the known-failure list
reference=$out/results/control-$name.txt
[ -s "$reference" ] || { echo "FAIL: no control results ($reference)"; exit 1; }
patterns=()
while read -r t phase glob _; do
  [ -z "$t" ] || [ "${t:0:1}" = "#" ] && continue
  [ "$t" = "$name" ] && patterns+=("$phase $glob")
done <"$known"
used=()
for _ in "${patterns[@]}"; do used+=(0); done
listed() {  # listed "<phase> <step>" [failing]: matches an entry (marked used when failing)
  local i found=1
  for i in "${!patterns[@]}"; do
    # shellcheck disable=SC2053
    if [[ "$1" == ${patterns[$i]} ]]; then
      found=0
      [ -n "${2:-}" ] && used[$i]=1
    fi
  done
  return $found
}
# Each file's lines by "<phase> <step>" (the first line of a key counts).
declare -A ours_line=() ref_line=()
ours_keys=() ref_keys=()
load() {  # load FILE ARRAY KEYS
  local -n lines=$2 keys=$3
  local line rest phase step
  while IFS= read -r line; do
    rest=${line#step }
    phase=${rest%% *}
    rest=${rest#* }
    step=${rest%% *}
    [ -n "${lines["$phase $step"]+set}" ] && continue
    lines["$phase $step"]=$line
    keys+=("$phase $step")
  done <"$1"
}
load "$result" ours_line ours_keys
load "$reference" ref_line ref_keys
status=0
for key in "${ours_keys[@]}"; do
  line=${ours_line[$key]}
  ref=${ref_line[$key]:-}
  failing=""
  [ "$line" != "$ref" ] && failing=1
  if listed "$key" $failing; then
    continue
  fi
  if [ "$line" != "$ref" ]; then
    echo "FAIL: $line"
    echo "      control: ${ref:-<no such step>}"
    status=1
  fi
done
# steps the control ran that ours never reached (a crash), unless listed
for key in "${ref_keys[@]}"; do
  [ -n "${ours_line[$key]+set}" ] && continue
  listed "$key" missing && continue
  echo "FAIL: not reached with this library: $key"
  status=1
done
for i in "${!patterns[@]}"; do
  if [ "${used[$i]}" = 0 ]; then
    echo "FAIL: '$name ${patterns[$i]}' in $(basename "$known") matches no failing step: remove it"
    status=1
  fi
done
[ $status -eq 0 ] && echo "PASS: this library gives the control's results on $name (known failures: ${#patterns[@]} patterns)"
exit $status
