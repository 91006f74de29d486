#!/usr/bin/env bash
# tools/bench/run.sh [--instructions] [--budget SECONDS] [build-dir]
#
# Builds hke-bench and the simulator's preload in a Release build directory
# (default build/release; configured here when it does not exist yet), runs
# every case on every built-in board and captured topology tree, ours and
# Debian's libhsakmt side by side, and writes <build-dir>/bench/results.md
# and results.png (plus records.jsonl, the raw numbers), and the simulator's
# own speed per front end (hke-sim-rate: ioctls per second; system calls per
# ioctl under strace, when strace is installed) into simulator.jsonl and
# results.md. Prints the summary.
#
#   --instructions   also count instructions per iteration with
#                    valgrind --tool=callgrind (slow: minutes)
#   --budget S       timed seconds per case and library, at least (default 2)
#
# Environment: HKE_SHARED_DIR (default <repo>/../shared) holds
# fixtures/topology/<tree>/nodes; HKE_BENCH_CG_ITERATIONS (default 3) timed
# iterations per callgrind run; HKE_BENCH_CG_SKIP (a regex, default
# 'query-pointer/(50000|100000)|event-set-wake|event-wake-parked|doorbell-latency/.*') cases
# callgrind does not run. worst-case counts each call on its own
# (scaling.py): HKE_BENCH_CG_CALLS (default 500) churn steps per variant,
# on the targets matching HKE_BENCH_CG_WORST_TARGETS (default the built-in
# boards), up to 10^4 live allocations (valgrind's own limit on mappings,
# VG_N_SEGMENTS, stops it before 10^5). The worst-case table and the
# scaling curves (scaling.png) come from scaling.py.
# HKE_BENCH_NO_FILES=1 skips counting the files and system calls of a
# cold topology cycle (topology_files.sh, needs strace).
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
    -h|--help) sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
# event-wake-parked, doorbell-latency) count spin instructions whose number depends on
# valgrind's thread scheduling, not on the library: skipped too.
cg_skip=${HKE_BENCH_CG_SKIP:-query-pointer/(50000|100000)|event-set-wake|event-wake-parked|doorbell-latency/.*}
cg_calls=${HKE_BENCH_CG_CALLS:-500}
cg_worst_targets=${HKE_BENCH_CG_WORST_TARGETS:-apu-embedded|datacenter-4gpu}

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
cmake --build "$build" --target hke-bench hke-sim-rate kfdsim-preload >&2
bench=$build/tools/bench/hke-bench
simrate=$build/tools/bench/hke-sim-rate
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
simulator=$out/simulator.jsonl
: >"$records"
: >"$instr"
: >"$simulator"

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

# ---- the simulator's own speed -------------------------------------------------
# Ioctls per second of a fixed mix through each front end (half a second
# each), then system calls per ioctl: strace -f -c of a short and a long run,
# whose difference is the extra iterations' calls alone.
sim_board=board:datacenter-4gpu
# Runs its arguments for front end $fe: under the preload, or as they are.
run_sim() { if [ "$fe" = preload ]; then run_on "$sim_board" "$@"; else "$@"; fi; }
for fe in preload inprocess; do
  for mix in memory cheap; do
    echo "run.sh: simulator $fe $mix" >&2
    sim_cmd=("$simrate" --front-end "$fe" --mix "$mix" --board "${sim_board#board:}")
    if ! run_sim "${sim_cmd[@]}" --seconds 0.5 >>"$simulator"; then
      echo "run.sh: hke-sim-rate failed ($fe, $mix)" >&2
      status=1
      continue
    fi
    if ! command -v strace >/dev/null; then
      echo "run.sh: strace is not installed: no system calls per ioctl" >&2
      continue
    fi
    n=()
    for iters in 500 2500; do
      st=$out/strace.$fe.$mix.$iters.txt
      line=$(run_sim strace -f -c -o "$st" "${sim_cmd[@]}" --iterations "$iters") || {
        echo "run.sh: hke-sim-rate under strace failed ($fe, $mix)" >&2; status=1; continue 2; }
      n+=("$(sed -n 's/.*"ioctls":\([0-9]*\).*/\1/p' <<<"$line")")
    done
    "$python" "$here/report.py" syscalls --small "$out/strace.$fe.$mix.500.txt" \
      --large "$out/strace.$fe.$mix.2500.txt" --ioctls-small "${n[0]}" --ioctls-large "${n[1]}" \
      --front-end "$fe" --mix "$mix" --out "$simulator" || status=1
  done
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
      if [[ "$c" == worst-case/* ]]; then continue; fi  # below, call by call
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
  # worst-case: one callgrind dump per timed call (scaling.py callgrind).
  : >"$out/worst-instructions.jsonl"
  dumps=(); for op in alloc free map unmap query; do dumps+=(--dump-after="hke_bench_call_$op"); done
  for t in "${targets[@]}"; do
    label=$(basename "${t#*:}")
    [[ "$label" =~ ^($cg_worst_targets)$ ]] || continue
    for c in "${cases[@]}"; do
      [[ "$c" == worst-case/* && "$c" != *-100000 ]] || continue
      for lib in ours debian; do
        echo "run.sh: callgrind $label $c $lib (per call)" >&2
        cg=$out/callgrind.$label.${c//\//_}.$lib.out
        if run_on "$t" valgrind --tool=callgrind --callgrind-out-file="$cg" --instr-atstart=no \
            --collect-atstart=no --toggle-collect='hke_bench_call_*' "${dumps[@]}" \
            --combine-dumps=yes "$bench" --only "$lib" --case "$c" --iterations "$cg_calls" \
            --no-header >/dev/null 2>"${cg%.out}.log"; then
          "$python" "$here/scaling.py" callgrind --file "$cg" --target "$label" --case "$c" \
            --library "$lib" --out "$out/worst-instructions.jsonl" || status=1
          rm -f "$cg"  # one part per call: ~30 MB per run
        else
          echo "run.sh: callgrind run failed (see ${cg%.out}.log)" >&2
          status=1
        fi
      done
    done
  done
fi

# ---- report ----------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$repo" status --porcelain 2>/dev/null | head -1)" ]; then rev="$rev (with local changes)"; fi
cmd="tools/bench/run.sh"
[ "$instructions" = 1 ] && cmd="$cmd --instructions"
[ "$budget" != 2 ] && cmd="$cmd --budget $budget"
# A failed render leaves no results.md for the appends below to extend.
rm -f "$out/results.md" "$out/results.png" "$out/scaling.png"
"$python" "$here/report.py" render --records "$records" \
  $([ "$instructions" = 1 ] && echo --instructions "$instr") \
  --simulator "$simulator" \
  --md "$out/results.md" --png "$out/results.png" \
  --meta "command=$cmd" \
  --meta "date=$(date -u +%Y-%m-%dT%H:%MZ)" \
  --meta "host=${cpu:-unknown CPU}, $(nproc) CPUs, $(uname -sr)" \
  --meta "source=$rev; build $build ($build_type, $(sed -n 's/^HKE_CONFIGURATION:[A-Z]*=//p' "$build/CMakeCache.txt") configuration)" \
  --meta "Debian=$(dpkg-query -W -f='libhsakmt1 ${Version}' libhsakmt1 2>/dev/null || echo 'libhsakmt1 (version unknown)')" \
  || status=1
if [ ! -s "$out/results.md" ]; then
  echo "run.sh: report.py render failed: no results.md" >&2
  exit 1
fi
# worst-case's per-call table (appended to results.md) and scaling curves.
"$python" "$here/scaling.py" render --records "$records" --png "$out/scaling.png" \
  --md-append "$out/results.md" \
  $([ "$instructions" = 1 ] && echo --instructions "$out/worst-instructions.jsonl") >/dev/null \
  || status=1
if [ -s "$files" ]; then
  "$python" "$here/topology_files.py" render "$files" | tee -a "$out/results.md" || status=1
fi
echo "run.sh: wrote $out/results.md, $out/results.png and $out/scaling.png" >&2
exit $status
