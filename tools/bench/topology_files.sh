#!/usr/bin/env bash
# tools/bench/topology_files.sh BENCH PRELOAD TARGET
#
# Files and system calls of one topology-cycle-cold iteration, per library,
# on one target ("board:NAME" or "tree:DIR"): hke-bench runs the case under
# `strace -f` twice, with 1 and with 3 timed iterations, and the difference
# of the two traces, halved, is one cycle (setup and warm-up cancel out).
# Prints one JSON line per library (topology_files.py `cycle`): system calls
# per cycle by name, opens per cycle, the distinct files opened and those
# opened more than once, and the files the served tree holds
# (topology_files.py `tree`, run under the preload). Needs strace. With
# HKE_BENCH_FILES_DIR set, the files one cycle opened go to
# <dir>/<target>.<library>.files (topology_files.py --files-out).
set -euo pipefail
bench=$(realpath "$1") preload=$(realpath "$2") target=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
label=$(basename "${target#*:}")
tmp=$(mktemp -d /tmp/hke-topology-files.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# The target's simulator settings; the preload itself goes only to the
# program traced (strace -E), never to strace.
sim_env() {
  case "$target" in
    board:*) env -u KFDSIM_TOPOLOGY KFDSIM_BOARD="${target#board:}" "$@" ;;
    tree:*) env -u KFDSIM_BOARD KFDSIM_TOPOLOGY="${target#tree:}" "$@" ;;
  esac
}
calls=openat,open,read,pread64,close,fstat,newfstatat,statx,stat,lstat,getdents64,lseek,access,readlink
sim_env env LD_PRELOAD="$preload" python3 "$here/topology_files.py" tree >"$tmp/tree.json"
for lib in ours debian; do
  for n in 1 3; do
    sim_env strace -f -qq -E LD_PRELOAD="$preload" -e trace="$calls" -o "$tmp/$lib.$n" \
      "$bench" --only "$lib" --case topology-cycle-cold --iterations "$n" --no-header >/dev/null
  done
  python3 "$here/topology_files.py" cycle --target "$label" --library "$lib" \
    --tree "$tmp/tree.json" --one "$tmp/$lib.1" --three "$tmp/$lib.3" \
    ${HKE_BENCH_FILES_DIR:+--files-out "$HKE_BENCH_FILES_DIR/$label.$lib.files"}
done
