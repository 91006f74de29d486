#!/usr/bin/env bash
# tools/bench/run.sh [--instructions] [--budget SECONDS] [build-dir]
#
# Builds hke-bench and the simulator's preload in a Release build directory
# (default build/release; configured here when it does not exist yet), runs
# every case on every built-in board and captured topology tree, ours and
# Debian's libhsakmt side by side, and writes <build-dir>/bench/results.md
# and results.png (plus records.jsonl, the raw numbers). Prints the summary.
#
#   --instructions   also count instructions per iteration with
#                    valgrind --tool=callgrind (slow: minutes)
#   --budget S       timed seconds per case and library, at least (default 2)
#
# Environment: HKE_SHARED_DIR (default <repo>/../shared) holds
# fixtures/topology/<tree>/nodes; HKE_BENCH_CG_ITERATIONS (default 3) timed
# iterations per callgrind run; HKE_BENCH_CG_SKIP (a regex, default
# 'query-pointer/(50000|100000)|event-set-wake|doorbell-latency/.*') cases
# callgrind does not run; HKE_BENCH_NO_FILES=1 skips counting the files and
# system calls of a cold topology cycle (topology_files.sh, needs strace).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
instructions=0
budget=2
build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --instructions) instructions=1 ;;
    --budget) budget=${2:?--budget needs seconds}; shift ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
build=${build:-$repo/build/release}
shared=${HKE_SHARED_DIR:-$repo/../shared}
cg_iterations=${HKE_BENCH_CG_ITERATIONS:-3}
# Populating tens of thousands of allocations under callgrind takes minutes.
# The cases that spin on another thread's progress (event-set-wake,
# doorbell-latency) count spin instructions whose number depends on
# valgrind's thread scheduling, not on the library: skipped too.
cg_skip=${HKE_BENCH_CG_SKIP:-query-pointer/(50000|100000)|event-set-wake|doorbell-latency/.*}

# A Python with matplotlib for the plot: Debian's (python3-matplotlib) first.
python=""
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import matplotlib' 2>/dev/null; then python=$p; break; fi
done
if [ -z "$python" ]; then
  echo "run.sh: no python3 with matplotlib: install the Debian package python3-matplotlib" >&2
  exit 1
fi
if [ "$instructions" = 1 ] && ! command -v valgrind >/dev/null; then
  echo "run.sh: --instructions needs valgrind (Debian package valgrind)" >&2
  exit 1
fi

# ---- build -----------------------------------------------------------------------
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ "$build_type" != Release ]; then
  echo "run.sh: $build is a '${build_type:-no type}' build; benchmarks need a Release build" \
       "(give a new directory and run.sh configures one)" >&2
  exit 2
fi
cmake --build "$build" --target hke-bench kfdsim-preload >&2
bench=$build/tools/bench/hke-bench
preload=$build/platform/sim/preload/libkfdsim-preload.so
if [ ! -x "$bench" ]; then
  echo "run.sh: $bench was not built (tools/bench builds only natively on x86_64 without sanitizers)" >&2
  exit 1
fi

# ---- targets -------------------------------------------------------------------
targets=(board:apu-embedded board:datacenter-4gpu)
for d in "$shared"/fixtures/topology/*/; do
  [ -d "$d/nodes" ] && targets+=("tree:${d%/}")
done
if [ ${#targets[@]} -eq 2 ]; then
  echo "run.sh: no topology trees under $shared/fixtures/topology (set HKE_SHARED_DIR)" >&2
  exit 1
fi

out=$build/bench
mkdir -p "$out"
records=$out/records.jsonl
instr=$out/instructions.jsonl
: >"$records"
: >"$instr"

# Runs hke-bench with its arguments on one target ("board:NAME" or "tree:DIR").
run_on() {
  local target=$1
  shift
  case "$target" in
    board:*) env -u KFDSIM_TOPOLOGY KFDSIM_BOARD="${target#board:}" LD_PRELOAD="$preload" "$@" ;;
    tree:*) env -u KFDSIM_BOARD KFDSIM_TOPOLOGY="${target#tree:}" LD_PRELOAD="$preload" "$@" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  echo "run.sh: ${t#*:}" >&2
  if ! run_on "$t" "$bench" --budget "$budget" --records "$records" --no-header >&2; then
    echo "run.sh: hke-bench failed on ${t#*:}" >&2
    status=1
  fi
done

# Files and system calls of one cold topology cycle (topology_files.sh):
# strace runs, a few minutes on the large trees; HKE_BENCH_NO_FILES=1 skips.
files=$out/topology-files.jsonl
: >"$files"
if [ -z "${HKE_BENCH_NO_FILES:-}" ]; then
  if command -v strace >/dev/null; then
    for t in "${targets[@]}"; do
      echo "run.sh: files and system calls of topology-cycle-cold on ${t#*:}" >&2
      "$here/topology_files.sh" "$bench" "$preload" "$t" >>"$files" || status=1
    done
  else
    echo "run.sh: no strace (Debian package strace): opens per cold topology cycle not counted" >&2
  fi
fi

if [ "$instructions" = 1 ]; then
  mapfile -t cases < <("$bench" --list | cut -f1)
  for t in "${targets[@]}"; do
    label=$(basename "${t#*:}")
    for c in "${cases[@]}"; do
      if [[ "$c" =~ ^($cg_skip)$ ]]; then
        echo "run.sh: callgrind skips $c (HKE_BENCH_CG_SKIP)" >&2
        continue
      fi
      for lib in ours debian; do
        echo "run.sh: callgrind $label $c $lib" >&2
        # A variant's slash would name a directory: callgrind.<target>.<family>_<variant>...
        cg=$out/callgrind.$label.${c//\//_}.$lib.out
        tmp=$out/callgrind.records.tmp
        : >"$tmp"
        if ! run_on "$t" valgrind --tool=callgrind --callgrind-out-file="$cg" \
            --toggle-collect="hke_bench_measured_$lib" \
            "$bench" --only "$lib" --case "$c" --iterations "$cg_iterations" \
            --records "$tmp" --no-header >/dev/null 2>"${cg%.out}.log"; then
          echo "run.sh: callgrind run failed (see ${cg%.out}.log)" >&2
          status=1
          continue
        fi
        # Only runs that timed iterations have instructions to report.
        if grep -q '"state":"ok"' "$tmp"; then
          "$python" "$here/report.py" callgrind --file "$cg" --target "$label" --case "$c" \
            --library "$lib" --iterations "$cg_iterations" --out "$instr"
        fi
      done
    done
  done
  rm -f "$out/callgrind.records.tmp"
fi

# ---- report ----------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$repo" status --porcelain 2>/dev/null | head -1)" ]; then rev="$rev (with local changes)"; fi
cmd="tools/bench/run.sh"
[ "$instructions" = 1 ] && cmd="$cmd --instructions"
[ "$budget" != 2 ] && cmd="$cmd --budget $budget"
"$python" "$here/report.py" render --records "$records" \
  $([ "$instructions" = 1 ] && echo --instructions "$instr") \
  --md "$out/results.md" --png "$out/results.png" \
  --meta "command=$cmd" \
  --meta "date=$(date -u +%Y-%m-%dT%H:%MZ)" \
  --meta "host=${cpu:-unknown CPU}, $(nproc) CPUs, $(uname -sr)" \
  --meta "source=$rev; build $build ($build_type, $(sed -n 's/^HKE_CONFIGURATION:[A-Z]*=//p' "$build/CMakeCache.txt") configuration)" \
  --meta "Debian=$(dpkg-query -W -f='libhsakmt1 ${Version}' libhsakmt1 2>/dev/null || echo 'libhsakmt1 (version unknown)')" \
  || status=1
if [ -s "$files" ]; then
  "$python" "$here/topology_files.py" render "$files" | tee -a "$out/results.md" || status=1
fi
echo "run.sh: wrote $out/results.md and $out/results.png" >&2
exit $status
