#!/usr/bin/env bash
# Memory oracle comparison: runs mem_sequences built against a reference
# thunk (Debian's libhsakmt 5.2.3, or upstream's current libhsakmt) and the
# one built against hsakmt-embedded, each under libkfdsim-preload.so with
# KFDSIM_TRACE on the same simulated board, and compares them scenario by
# scenario (mem_compare.py does the work):
#   - the API lines each program printed (call, status, non-address outputs);
#   - the KFD and DRM ioctls of the trace, decoded with the argument layouts
#     of lib/kfd/abi.h, addresses/handles/fds masked (mem_compare.py's
#     header says how), in order.
#
#   mem_compare.sh <preload.so> <oracle_mem_reference> <oracle_mem_ours> <tree-dir | board-name>
#
# HKE_ORACLE_REFERENCE names the reference: `debian` (default) or `upstream`;
# it labels the output and the kept files and picks the default
# known-differences file.
# A scenario Debian 5.2.3 cannot run (an entry point or flag newer than its
# header) has no reference: it is listed as "unreferenced", never failed.
# Lines that differ on purpose are dropped from both sides before the diff
# when they match an entry of the known-differences file
# (mem_known_differences.txt or, for upstream,
# mem_known_differences_upstream.txt beside this script, or
# HKE_ORACLE_MEM_KNOWN_DIFFERENCES=<file>): one
#   scenario-regex<TAB>api|ioctl|any<TAB>line-regex<TAB>reason
# per line (Python regexes matched against the whole scenario name and the
# whole normalised line; # comments and blank lines ignored), or a rewrite
#   scenario-regex<TAB>rewrite-api|rewrite-ioctl|rewrite-any<TAB>pattern<TAB>replacement<TAB>reason
# applied (re.sub) to the lines of both sides before they are compared, for
# a difference inside a line that must not hide the rest of it.
# Both programs run with HSA_USE_SVM=0 (see run()).
# HKE_ORACLE_MEM_WITH_MMAP=1 also compares the mmap calls on device files.
# HKE_ORACLE_OUT=<dir> keeps {<reference>,ours}.out (what the programs
# printed), .trace (raw traces), .norm (normalised per scenario) and
# differences.txt there.
#
# Exit status: 0 no unexplained difference; 1 unexplained differences (each
# printed as - Debian / + ours lines); 2 usage error, bad known-differences
# file, or the reference run is not usable (it failed, or its trace
# lacks the scenario markers).
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 <preload.so> <oracle_mem_reference> <oracle_mem_ours> <tree-dir | board-name>" >&2
  exit 2
fi
preload=$1 reference=$2 ours=$3 target=$4
here=$(cd "$(dirname "$0")" && pwd)
ref=${HKE_ORACLE_REFERENCE:-debian}
case "$ref" in
  debian) default_known=$here/mem_known_differences.txt ;;
  upstream) default_known=$here/mem_known_differences_upstream.txt ;;
  *) echo "mem_compare.sh: HKE_ORACLE_REFERENCE must be debian or upstream, not '$ref'" >&2; exit 2 ;;
esac
known=${HKE_ORACLE_MEM_KNOWN_DIFFERENCES:-$default_known}
python=${PYTHON:-python3}
for f in "$preload" "$reference" "$ours" "$known"; do
  [ -e "$f" ] || { echo "mem_compare.sh: missing $f" >&2; exit 2; }
done

if [ -n "${HKE_ORACLE_OUT:-}" ]; then
  out=$HKE_ORACLE_OUT
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

# A target with a slash is a captured tree (it must exist), otherwise a built-in board.
if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || { echo "FAIL: topology tree $target is missing (no nodes/)" >&2; exit 2; }
  board_env=(KFDSIM_TOPOLOGY="$target")
else
  board_env=(KFDSIM_BOARD="$target")
fi

# run <program> <label>: <label>.out gets the program's lines and exit=<status>,
# <label>.trace the simulator's trace of that process.
run() {
  local rc=0 label=$2
  rm -rf "$out/$label.tracedir"
  mkdir -p "$out/$label.tracedir"
  # HSA_USE_SVM=0: 5.2.3 registers user memory as userptr BOs; ours and
  # upstream do so too with it (the SVM path is compared by the unit tests).
  env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD -u KFDSIM_FAULTS LD_PRELOAD="$preload" \
    "${board_env[@]}" HSA_USE_SVM=0 KFDSIM_TRACE="$out/$label.tracedir/trace" "$1" \
    > "$out/$label.out" 2> "$out/$label.err" < /dev/null || rc=$?
  echo "exit=$rc" >> "$out/$label.out"
  # One trace file per process (trace.<pid>); the program's is the one with
  # the scenario markers (a wrapper script or helper process may leave others).
  local files=() f
  for f in "$out/$label.tracedir"/trace.*; do
    [ -e "$f" ] && grep -q '^path access /dev/hke-oracle-mem/' "$f" && files+=("$f")
  done
  if [ ${#files[@]} -eq 1 ]; then
    mv "${files[0]}" "$out/$label.trace"
  else
    [ ${#files[@]} -eq 0 ] || echo "mem_compare.sh: $label: ${#files[@]} processes traced scenario markers; using none" >&2
    : > "$out/$label.trace"
  fi
  rm -rf "$out/$label.tracedir"
}

run "$reference" "$ref"
run "$ours" ours

mmap=()
[ "${HKE_ORACLE_MEM_WITH_MMAP:-0}" = 1 ] && mmap=(--with-mmap)
rc=0
"$python" "$here/mem_compare.py" compare --target "$target" --known "$known" \
  --reference "$ref" --reference-out "$out/$ref.out" --reference-trace "$out/$ref.trace" \
  --ours-out "$out/ours.out" --ours-trace "$out/ours.trace" --keep "$out" "${mmap[@]}" || rc=$?
if [ "$rc" -eq 2 ] && [ -s "$out/$ref.err" ]; then
  echo "mem_compare.sh: the $ref run's stderr:" >&2
  tail -n 20 "$out/$ref.err" >&2
fi
exit "$rc"
