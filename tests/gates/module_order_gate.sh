#!/usr/bin/env bash
# lib/'s modules call only downward: a file of lib/<m>/ includes headers of
# <m> itself and of the modules listed before <m> in lib/README.md's
# "Module order" line. lib/context/ is the composition root, outside the
# order: any module may include it (every function takes the Context), and
# its files include lib/core/, lib/context/ and, of the modules, only the
# headers listed in lib/README.md's "Composition root" line (each module's
# state header and the teardown functions hke_context_deinit calls).
#
#   module_order_gate.sh SOURCE_DIR
set -euo pipefail
src=$1
line=$(grep -m1 '^\*\*Module order\*\*' "$src/lib/README.md" || true)
[ -n "$line" ] || { echo "gate: no '**Module order**' line in lib/README.md"; exit 2; }
# The backquoted names after the colon, in order.
order=$(sed -E 's/^[^:]*://' <<<"$line" | grep -oE '`[a-z_]+`' | tr -d '`')
declare -A rank
i=0
for m in $order; do rank[$m]=$i; i=$((i + 1)); done
[ "$i" -gt 1 ] || { echo "gate: the module order names fewer than two modules"; exit 2; }
root_line=$(grep -m1 '^\*\*Composition root\*\*' "$src/lib/README.md" || true)
[ -n "$root_line" ] || { echo "gate: no '**Composition root**' line in lib/README.md"; exit 2; }
# The backquoted module headers after the colon.
declare -A root_ok
for h in $(sed -E 's/^[^:]*://' <<<"$root_line" | grep -oE '`[a-z0-9_]+/[a-z0-9_]+\.h`' | tr -d '`'); do
  root_ok[$h]=1
done
[ "${#root_ok[@]}" -gt 0 ] || { echo "gate: the composition root line names no header"; exit 2; }
bad=0
count=0
for dir in "$src"/lib/*/; do
  m=$(basename "$dir")
  if [ "$m" = context ]; then
    while IFS= read -r -d '' f; do
      count=$((count + 1))
      while IFS= read -r inc; do
        case "$inc" in core/* | context/*) continue ;; esac
        if [ -z "${root_ok[$inc]+x}" ]; then
          echo "${f#$src/}: includes lib/$inc, which is not in lib/README.md's composition root line"
          bad=1
        fi
      done < <(grep -hoE '^\s*#\s*include\s*"lib/[a-z0-9_]+/[a-z0-9_]+\.h"' "$f" | sed -E 's|.*"lib/||; s|"$||' | sort -u)
    done < <(find "$dir" -type f \( -name '*.h' -o -name '*.cc' \) -print0)
    continue
  fi
  if [ -z "${rank[$m]+x}" ]; then
    echo "lib/$m/: not in lib/README.md's module order"
    bad=1
    continue
  fi
  while IFS= read -r -d '' f; do
    count=$((count + 1))
    while IFS= read -r dep; do
      [ "$dep" = "$m" ] || [ "$dep" = context ] && continue
      if [ -z "${rank[$dep]+x}" ]; then
        echo "${f#$src/}: includes lib/$dep/, which is not in the module order"
        bad=1
      elif [ "${rank[$dep]}" -gt "${rank[$m]}" ]; then
        echo "${f#$src/}: includes lib/$dep/, which comes after $m in the module order"
        bad=1
      fi
    done < <(grep -hoE '^\s*#\s*include\s*"lib/[a-z_]+/' "$f" | sed -E 's|.*"lib/||; s|/$||' | sort -u)
  done < <(find "$dir" -type f \( -name '*.h' -o -name '*.cc' \) -print0)
done
[ "$count" -gt 0 ] || { echo "gate: no lib/ sources found under $src/lib"; exit 2; }
if [ "$bad" -ne 0 ]; then echo "gate: FAILED"; exit 1; fi
echo "gate: passed: $count files of $i modules include only modules below them; context/ only the ${#root_ok[@]} composition-root headers"
