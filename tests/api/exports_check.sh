#!/usr/bin/env bash
# The API is exported: every hsaKmt* function declared in hsakmt.h and
# hsakmtctx.h is defined in libhsakmt.a as a global function with default
# visibility (lib/ is compiled with -fvisibility=hidden; HSAKMTAPI on the
# declaration is what exports a definition, so a definition that does not
# see its declaration would be hidden and a shared consumer could not
# re-export it).
#
#   exports_check.sh READELF ARCHIVE SOURCE_DIR
#
# Prints every offending name.
set -euo pipefail
readelf_tool=$1 archive=$2 src=$3

[ -s "$archive" ] || { echo "exports: archive '$archive' is missing or empty"; exit 2; }

# Declared names: `HSAKMTAPI hsaKmtName` outside comments, both headers.
declared=$(cat "$src/include/hsakmt/hsakmt.h" "$src/include/hsakmt/hsakmtctx.h" | tr '\n' ' ' |
  sed -e 's#/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/# #g' |
  grep -oE 'HSAKMTAPI[[:space:]]+hsaKmt[A-Za-z0-9_]+' | awk '{print $2}' | sort -u)
n_declared=$(wc -l <<<"$declared")
# hsakmt.h has 92 and hsakmtctx.h 72 at the time of writing.
if [ "$n_declared" -lt 164 ]; then
  echo "exports: only $n_declared declarations found: the header parse is broken"
  exit 2
fi

# "Num: Value Size Type Bind Vis Ndx Name" for every defined global function.
defined=$("$readelf_tool" -sW "$archive" |
  awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" && $8 ~ /^hsaKmt/ {print $8, $6}' | sort -u)

bad=0
while IFS= read -r name; do
  vis=$(awk -v n="$name" '$1 == n {print $2}' <<<"$defined" | sort -u | tr '\n' ' ')
  if [ -z "$vis" ]; then
    echo "exports: $name is declared but not defined in $(basename "$archive")"
    bad=1
  elif [ "$vis" != "DEFAULT " ]; then
    echo "exports: $name is defined with visibility ${vis% }, not DEFAULT"
    bad=1
  fi
done <<<"$declared"

[ "$bad" -eq 0 ] || { echo "exports: FAILED"; exit 1; }
echo "exports: passed: $n_declared declared hsaKmt functions, all defined and exported"
