#!/usr/bin/env bash
# lib/ may include only the project's own headers and the standard headers
# listed in allowed_lib_headers.txt: no OS headers (<sys/...>, <unistd.h>,
# <linux/...>, <pthread.h>, ...) and nothing that allocates (<vector>,
# <string>, <memory>, <functional>, ...).
#
#   lib_headers_gate.sh SOURCE_DIR
set -euo pipefail
src=$1
allowed=$(grep -v '^#' "$src/tests/gates/allowed_lib_headers.txt" | tr -s ' \n' ' ')
bad=0
count=0
while IFS= read -r -d '' f; do
  count=$((count + 1))
  while IFS= read -r inc; do
    h=${inc#*<}; h=${h%%>*}
    if ! grep -qw -- "$h" <<<" $allowed "; then
      echo "${f#$src/}: includes <$h>, which lib/ may not use"
      bad=1
    fi
  done < <(grep -E '^\s*#\s*include\s*<' "$f" || true)
  if grep -nE '^\s*#\s*include\s*"platform/' "$f"; then echo "${f#$src/}: lib/ may not include platform/ headers"; bad=1; fi
done < <(find "$src/lib" -type f \( -name '*.h' -o -name '*.cc' \) -print0)
[ "$count" -gt 0 ] || { echo "gate: no lib/ sources found under $src/lib"; exit 2; }
if [ "$bad" -ne 0 ]; then echo "gate: FAILED"; exit 1; fi
echo "gate: passed: $count lib/ files include only allowed headers"
