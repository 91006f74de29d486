#!/usr/bin/env bash
# Self-test of compare.sh, so the comparison is known to work before our
# topology is implemented and switched on. "Ours" is played by wrappers
# around the Debian oracle that edit its output in controlled ways (and the
# same with HKE_ORACLE_REFERENCE=upstream, the Debian oracle standing in for
# upstream's):
#   identical               -> exit 0, no difference
#   + newer-header fields   -> exit 0 (those fields are ignored)
#   + an unknown field      -> exit 1, the field named
#   one value changed       -> exit 1, the key named with both values
#   the same, listed in a known-differences file -> exit 0, counted as known
#   one key missing         -> exit 1, reported as <absent>
#   a malformed known-differences file -> exit 2
#   upstream reference: identical -> 0; newer-header fields -> exit 1 (they
#   are compared), the output says upstream=; an unknown reference -> exit 2
#
#   compare_selftest.sh <compare.sh> <preload.so> <oracle_debian> <tree-dir | board-name>
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 <compare.sh> <preload.so> <oracle_debian> <tree|board>" >&2; exit 2; }
compare=$1 preload=$2 debian=$3 target=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# make_ours <name> <awk program applied to the Debian oracle's output>
make_ours() {
  printf '%s\n' '#!/usr/bin/env bash' \
    "out=\$('$debian'); rc=\$?" \
    "printf '%s\\n' \"\$out\" | awk '$2'" \
    'exit $rc' > "$work/$1"
  chmod +x "$work/$1"
}
make_ours same '{ print }'
make_ours newer '{ print }
  /^node\.[0-9]+\.SGPRSizePerCU=/ { sub(/SGPRSizePerCU=.*/, ""); print $0 "NumXcc=1"; print $0 "FamilyID=141" }
  /^node\.[0-9]+\.link\.[0-9]+\.Flags=/ { sub(/Flags=.*/, ""); print $0 "RecSdmaEngIdMask=3" }'
make_ours extra '{ print } /^node\.0\.SGPRSizePerCU=/ { print "node.0.SomethingNew=1" }'
make_ours changed '/^node\.1\.DeviceId=/ { print "node.1.DeviceId=4660"; next } { print }'
make_ours missing '/^node\.0\.NumCaches=/ { next } { print }'

failures=0
# expect <name> <ours> <expected exit> <grep pattern expected in the output> [known file]
# (REFERENCE=<name> in the environment sets HKE_ORACLE_REFERENCE)
expect() {
  local name=$1 ours=$2 want=$3 pattern=$4 known=${5:-}
  local rc=0 env=(HKE_ORACLE_REFERENCE="${REFERENCE:-debian}")
  [ -z "$known" ] || env+=(HKE_ORACLE_KNOWN_DIFFERENCES="$known")
  env "${env[@]}" bash "$compare" "$preload" "$debian" "$work/$ours" "$target" \
    > "$work/$name.out" 2>&1 || rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pattern" "$work/$name.out"; then
    echo "FAIL: $name: exit $rc (want $want), pattern '$pattern'; output:" >&2
    head -n 20 "$work/$name.out" >&2
    failures=$((failures + 1))
  else
    echo "ok: $name: exit $rc; $(tail -n 1 "$work/$name.out")"
  fi
}

expect identical same 0 ' 0 unexplained difference\(s\), 0 known$'
expect newer-fields-ignored newer 0 ' 0 unexplained difference\(s\), 0 known$'
expect unknown-field-reported extra 1 '^DIFF  node\.0\.SomethingNew: debian=<absent> ours=1$'
expect changed-value-reported changed 1 '^DIFF  node\.1\.DeviceId: debian=[0-9]+ ours=4660$'
printf '# test list\n\nnode\\.1\\.Device(Id|Name)\tchanged on purpose by the self-test\n' > "$work/known.txt"
expect known-difference-tolerated changed 0 '^known 1 key\(s\): changed on purpose by the self-test$' \
  "$work/known.txt"
printf 'node\\.1\\.Device\tpartial regex must not match DeviceId\n' > "$work/partial.txt"
expect known-regex-is-anchored changed 1 '^DIFF  node\.1\.DeviceId' "$work/partial.txt"
expect missing-key-reported missing 1 '^DIFF  node\.0\.NumCaches: debian=[0-9]+ ours=<absent>$'
printf 'no tab on this line\n' > "$work/bad.txt"
expect malformed-known-file same 2 'expected key-regex<TAB>reason' "$work/bad.txt"
# With the upstream reference (the Debian oracle stands in for it here) the
# newer-header fields are compared, not dropped, and the output says upstream.
REFERENCE=upstream expect upstream-identical same 0 ' 0 unexplained difference\(s\), 0 known$'
REFERENCE=upstream expect upstream-compares-newer-fields newer 1 '^DIFF  node\.[0-9]+\.NumXcc: upstream=<absent> ours=1$'
REFERENCE=upstream expect upstream-changed-value changed 1 '^DIFF  node\.1\.DeviceId: upstream=[0-9]+ ours=4660$'
REFERENCE=nobody expect unknown-reference-refused same 2 'HKE_ORACLE_REFERENCE must be debian or upstream'

if [ "$failures" -ne 0 ]; then
  echo "FAIL: $failures compare.sh self-test case(s) failed" >&2
  exit 1
fi
echo "PASS: compare.sh behaves as documented"
