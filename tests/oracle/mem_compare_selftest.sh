#!/usr/bin/env bash
# Self-test of the memory oracle's comparison (mem_compare.sh and
# mem_compare.py), so that it is known to work before our memory API exists.
# The Debian program is run twice through mem_compare.sh (Debian vs Debian);
# then "ours" is played by doctored copies of the second run's output and
# trace, compared with mem_compare.py directly:
#   two separate Debian runs          -> exit 0; their raw traces differ
#                                        (addresses, fds), so masking did work
#   an ALLOC flag changed             -> exit 1, that scenario's ioctl named
#   a masked pointer / fd changed     -> exit 0 (device_ids_array_ptr, drm_fd)
#   an ALLOC's va no longer equal to its userptr (identity of masked values)
#                                     -> exit 1
#   FREE of another handle than the one ALLOC returned -> exit 1
#   an ioctl line missing             -> exit 1, the line shown with "-"
#   an API status changed             -> exit 1, the scenario's api named
#   the changed ALLOC listed in a known-differences file -> exit 0, counted
#   a regex matching only part of the line -> still 1
#   a malformed known-differences file -> exit 2
#   a scenario Debian skips (newer API) with lines from ours -> exit 0, listed
#                                        as unreferenced
#   ours' trace without one scenario's marker -> exit 1
#   the Debian run failed (exit=1)    -> exit 2
#   the same with --reference upstream -> the upstream label, the same exits
#   the argument layouts agree with lib/kfd/abi.h and drm_abi.h (check-layouts)
#
#   mem_compare_selftest.sh <mem_compare.sh> <preload.so> <oracle_mem_debian> <repo-root> <board>
set -euo pipefail
[ $# -eq 5 ] || {
  echo "usage: $0 <mem_compare.sh> <preload.so> <oracle_mem_debian> <repo-root> <board>" >&2
  exit 2
}
compare_sh=$1 preload=$2 debian=$3 repo=$4 target=$5
here=$(cd "$(dirname "$compare_sh")" && pwd)
py="$here/mem_compare.py"
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
pass() { echo "ok: $1"; }
fail() { echo "FAIL: $1" >&2; failures=$((failures + 1)); }

# ---- 1. Debian vs Debian through the script --------------------------------------
rc=0
HKE_ORACLE_OUT="$work/base" bash "$compare_sh" "$preload" "$debian" "$debian" "$target" \
  > "$work/base.txt" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -qE ' 0 unexplained difference\(s\)' "$work/base.txt"; then
  pass "debian-vs-debian: $(tail -n 1 "$work/base.txt")"
else
  fail "debian-vs-debian: exit $rc"
  cat "$work/base.txt" >&2
  exit 1  # nothing else can be tested without a reference
fi
if cmp -s "$work/base/debian.trace" "$work/base/ours.trace"; then
  fail "the two runs' raw traces are identical: masking was not exercised"
else
  pass "the two runs' raw traces differ ($(wc -l < "$work/base/debian.trace") lines each side)"
fi
grep -q '^path access /dev/hke-oracle-mem/sys-gtt -> host$' "$work/base/debian.trace" ||
  fail "the trace has no marker line for scenario sys-gtt"

# ---- doctoring ----------------------------------------------------------------------
# doctor <name> <python code>: copies the second run's output and trace to
# <name>.out/<name>.trace; the code edits `out` and `trace` (lists of lines).
# Helpers: seg(name) = (first, end) line indexes of a scenario's trace segment;
# find(name, text, nth=0) = index of the nth line of that segment containing text;
# field(line, io, offset, size, value) rewrites bytes of the in=/out= hex.
doctor() {
  local name=$1 code=$2
  "$python" - "$work/base/ours.out" "$work/base/ours.trace" "$work/$name" <<EOF
import re, sys
out = open(sys.argv[1]).read().splitlines()
trace = open(sys.argv[2]).read().splitlines()
def seg(name):
    start = trace.index("path access /dev/hke-oracle-mem/%s -> host" % name)
    end = start + 1
    while end < len(trace) and not trace[end].startswith("path access /dev/hke-oracle-mem/"):
        end += 1
    return start, end
def find(name, text, nth=0):
    s, e = seg(name)
    hits = [i for i in range(s, e) if text in trace[i]]
    return hits[nth]
def field(i, io, offset, size, value):
    m = re.search(r" %s=([0-9a-f]*)" % io, trace[i])
    data = bytearray(bytes.fromhex(m.group(1)))
    data[offset:offset + size] = value.to_bytes(size, "little")
    trace[i] = trace[i][:m.start(1)] + data.hex() + trace[i][m.end(1):]
def get(i, io, offset, size):
    m = re.search(r" %s=([0-9a-f]*)" % io, trace[i])
    return int.from_bytes(bytes.fromhex(m.group(1))[offset:offset + size], "little")
$code
open(sys.argv[3] + ".out", "w").write("\n".join(out) + "\n")
open(sys.argv[3] + ".trace", "w").write("\n".join(trace) + "\n")
EOF
}

# expect <case> <doctored name> <expected exit> <pattern> [known file] [debian name]
expect() {
  local case=$1 name=$2 want=$3 pattern=$4 known=${5:-$here/mem_known_differences.txt}
  local deb=${6:-$work/base/debian}
  local rc=0
  "$python" "$py" compare --target selftest --known "$known" --reference "${REFERENCE:-debian}" \
    --debian-out "$deb.out" --debian-trace "$deb.trace" \
    --ours-out "$work/$name.out" --ours-trace "$work/$name.trace" > "$work/$case.log" 2>&1 || rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pattern" "$work/$case.log"; then
    fail "$case: exit $rc (want $want), pattern '$pattern'; output:"
    head -n 30 "$work/$case.log" >&2
  else
    pass "$case: exit $rc; $(grep -E -- "$pattern" "$work/$case.log" | head -n 1)"
  fi
}

ALLOC='AMDKFD_IOC_ALLOC_MEMORY_OF_GPU'

doctor same 'pass'
expect unchanged-copy same 0 ' 0 unexplained difference\(s\)'

# The ALLOC of vram-host: clear PUBLIC (bit 29) in the flags, in and out.
doctor flags "i = find('vram-host', '$ALLOC')
f = get(i, 'in', 36, 4) & ~(1 << 29)
field(i, 'in', 36, 4, f); field(i, 'out', 36, 4, f)"
# (The EXECUTABLE rewrite of mem_known_differences.txt drops the hex value;
# the decoded flag list still shows the change.)
expect alloc-flag-changed flags 1 '^ +\+ ioctl kfd AMDKFD_IOC_ALLOC_MEMORY_OF_GPU .*flags=\(WRITABLE\|NO_SUBSTITUTE\|COHERENT\|VRAM\)'
grep -q '^DIFF  vram-host ioctl:' "$work/alloc-flag-changed.log" ||
  fail "alloc-flag-changed: the DIFF does not name vram-host's ioctl stream"

# Masked values: another device-id array pointer in a MAP, another render fd
# in ACQUIRE_VM, another pid in GET_CLIENT.
doctor masked "i = find('sys-gtt', 'MAP_MEMORY_TO_GPU')
field(i, 'in', 8, 8, 0x1234560); field(i, 'out', 8, 8, 0x1234560)
i = find('init', 'ACQUIRE_VM')
field(i, 'in', 0, 4, 99)
trace[:] = [re.sub(r' fd=\d+ ', ' fd=77 ', l) if ' ioctl ' in l else l for l in trace]"
expect masked-values-ignored masked 0 ' 0 unexplained difference\(s\)'

# Identity: sys-paged-host's ALLOC passes the same address as va_addr and as
# the userptr (mmap_offset); moving only va_addr must show.
doctor identity "i = find('sys-paged-host', '$ALLOC')
field(i, 'in', 0, 8, get(i, 'in', 0, 8) + 0x200000)
field(i, 'out', 0, 8, get(i, 'out', 0, 8) + 0x200000)"
expect masked-identity-kept identity 1 '^ +\+ ioctl kfd AMDKFD_IOC_ALLOC_MEMORY_OF_GPU .*va_addr=va1 .*mmap_offset=va2'

# Handles: FREE of a handle ALLOC did not return.
doctor handle "i = find('sys-gtt', 'FREE_MEMORY_OF_GPU')
field(i, 'in', 0, 4, get(i, 'in', 0, 4) + 7)"
expect free-of-other-handle handle 1 '^ +\+ ioctl kfd AMDKFD_IOC_FREE_MEMORY_OF_GPU .*handle=h2@'

doctor missing "del trace[find('vram-nohost', 'UNMAP_MEMORY_FROM_GPU')]"
expect missing-ioctl-reported missing 1 '^ +- ioctl kfd AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU '

doctor status "i = out.index([l for l in out if l.startswith('vram-host FreeMemory status=0')][0])
out[i] = 'vram-host FreeMemory status=10'"
expect api-status-reported status 1 '^ +\+ FreeMemory status=10$'
grep -q '^DIFF  vram-host api:' "$work/api-status-reported.log" ||
  fail "api-status-reported: the DIFF does not name vram-host's api stream"

printf '# test list\n\nvram-host\tioctl\tioctl kfd %s .*\tchanged on purpose by the self-test\n' "$ALLOC" \
  > "$work/known.txt"
expect known-difference-tolerated flags 0 '^known 2 line\(s\): changed on purpose by the self-test$' \
  "$work/known.txt"
printf 'vram-host\tioctl\tioctl kfd %s\tpartial regex must not match\n' "$ALLOC" > "$work/partial.txt"
expect known-regex-is-anchored flags 1 '^DIFF  vram-host ioctl:' "$work/partial.txt"
printf 'vram-host\tioctl only three fields\n' > "$work/bad.txt"
expect malformed-known-file same 2 'expected scenario-regex<TAB>api\|ioctl\|any<TAB>' "$work/bad.txt"

# A scenario Debian 5.2.3 cannot run, with lines from "ours".
doctor unreferenced "i = out.index('vram-align-64k skipped reason=not-in-5.2.3')
out[i] = 'vram-align-64k AllocMemoryAlign status=0 node=1'
s, e = seg('vram-align-64k')
trace.insert(s + 1, trace[find('vram-host', '$ALLOC')])"
expect unreferenced-listed unreferenced 0 '^unreferenced vram-align-64k: .*ours: 1 API line\(s\), 1 ioctl line\(s\)'

doctor nomarker "s, e = seg('xnack'); del trace[s]"
expect missing-marker-reported nomarker 1 '^ +\+ <no marker>$'

# The same changed ALLOC with --reference upstream (the Debian run stands in
# for upstream's): reported with the upstream label.
REFERENCE=upstream expect upstream-label flags 1 '^DIFF  vram-host ioctl: [0-9]+ line\(s\) \(- upstream, \+ ours\)$'

# The Debian run failed: no reference.
doctor debfail "out[-1] = 'exit=1'"
expect debian-failure-refused same 2 'the Debian run failed' "$here/mem_known_differences.txt" \
  "$work/debfail"
REFERENCE=upstream expect upstream-failure-refused same 2 'the upstream run failed' \
  "$here/mem_known_differences.txt" "$work/debfail"

rc=0
"$python" "$py" check-layouts --abi "$repo/lib/kfd/abi.h" --drm-abi "$repo/lib/kfd/drm_abi.h" \
  > "$work/layouts.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then pass "$(tail -n 1 "$work/layouts.log")"; else
  fail "check-layouts:"; cat "$work/layouts.log" >&2; fi

if [ "$failures" -ne 0 ]; then
  echo "FAIL: $failures memory-oracle self-test case(s) failed" >&2
  exit 1
fi
echo "PASS: mem_compare behaves as documented"
