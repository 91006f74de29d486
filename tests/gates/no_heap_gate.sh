#!/usr/bin/env bash
# No-heap / no-exception gate.
#
#   no_heap_gate.sh NM AR ARCHIVE OBJECT_LIST
#
# Fails when any member of ARCHIVE whose name appears in OBJECT_LIST (the
# objects compiled from lib/) references a heap or exception symbol:
# malloc, calloc, realloc, free, aligned/posix_memalign, strdup, operator
# new/delete in every allocating variant (placement new is allowed), __cxa_allocate_exception, __cxa_throw,
# __cxa_begin_catch, __gxx_personality_v0, or RTTI typeinfo objects.
# Prints every offending (member, symbol) pair.
set -euo pipefail
nm_tool=$1 ar_tool=$2 archive=$3 list=$4

[ -s "$archive" ] || { echo "gate: archive '$archive' is missing or empty"; exit 2; }
[ -s "$list" ] || { echo "gate: object list '$list' is missing or empty"; exit 2; }

# Member names as the archiver stores them: basenames of the object files.
declare -A core=()
while IFS= read -r obj; do
  [ -n "$obj" ] && core[$(basename "$obj")]=1
done < "$list"

members=$("$ar_tool" t "$archive")
checked=0
for m in "${!core[@]}"; do
  if ! grep -qxF "$m" <<<"$members"; then
    echo "gate: lib/ object $m is not in $archive"
    exit 2
  fi
  checked=$((checked + 1))
done

forbidden='^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|valloc|pvalloc|strdup|strndup|__cxa_allocate_exception|__cxa_free_exception|__cxa_throw|__cxa_rethrow|__cxa_begin_catch|__gxx_personality_v0|_Zn[wa][jmy].*|_Zd[la]Pv.*|_ZTI.*|_ZTS.*)$'

# nm -A prints "archive:member: <value> <type> <symbol>"; undefined symbols
# carry type U. RTTI objects are also flagged when defined (type V/R/D).
bad=$("$nm_tool" -A "$archive" 2>/dev/null | awk -v pat="$forbidden" '
  {
    split($1, parts, ":"); member = parts[2];
    sym = $NF; type = (NF >= 3) ? $(NF-1) : "";
    # Placement new/delete (operator new(size_t, void*)) allocate nothing.
    if (sym ~ /^_Zn[wa][jmy]Pv$/ || sym ~ /^_Zd[la]PvS_$/) next;
    if (sym ~ pat) print member " " type " " sym;
  }' | while read -r member type sym; do
    if [ -n "${core[$member]:-}" ]; then echo "$member references $sym ($type)"; fi
  done)

if [ -n "$bad" ]; then
  echo "gate: FAILED: lib/ objects use the heap, exceptions or RTTI:"
  echo "$bad"
  exit 1
fi
echo "gate: passed: $checked lib/ objects in $(basename "$archive") reference no heap, exception or RTTI symbol"
