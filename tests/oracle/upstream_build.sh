#!/usr/bin/env bash
# Builds the oracle programs a third time, against upstream's current
# libhsakmt: the shared library and headers the consumer build
# (tests/consumers/build_consumers.sh, stage upstream-hsakmt) made from the
# external archive. Run by the CTest test `oracle_upstream_build`, after
# `consumers_build`.
#
#   upstream_build.sh <c-compiler> <upstream-hsakmt dir> <tests/oracle dir> <out dir>
#
# Writes <out>/oracle_upstream (props_dump.c), <out>/oracle_mem_upstream
# (mem_sequences.c) and <out>/oracle_queue_upstream (queue_sdma.c). Each is
# compiled with upstream's <hsakmt/hsakmt.h> (the non-Debian branch of the
# sources: every newer field and entry point) and linked with
# <upstream-hsakmt>/lib/libhsakmt.so, found at run time through its
# RUNPATH, the way Debian's programs find /usr/lib's libhsakmt.so.1: a plain
# dynamic link, loaded by ld.so before the preload intercepts anything.
set -euo pipefail
[ $# -eq 4 ] || {
  echo "usage: $0 <c-compiler> <upstream-hsakmt dir> <tests/oracle dir> <out dir>" >&2
  exit 2
}
cc=$1 upstream=$2 src=$3 out=$4
for f in "$upstream/lib/libhsakmt.so.1" "$upstream/include/hsakmt/hsakmt.h"; do
  [ -e "$f" ] || { echo "upstream_build.sh: missing $f (did consumers_build run?)" >&2; exit 2; }
done
mkdir -p "$out"
upstream=$(cd "$upstream" && pwd)
for pair in oracle_upstream:props_dump.c oracle_mem_upstream:mem_sequences.c \
            oracle_queue_upstream:queue_sdma.c; do
  name=${pair%%:*} file=${pair#*:}
  "$cc" -std=gnu11 -O1 -g -Wall -Wextra -I"$upstream/include" -o "$out/$name" \
    "$src/$file" -L"$upstream/lib" -lhsakmt -Wl,-rpath,"$upstream/lib"
  echo "upstream_build.sh: $out/$name"
done
