#!/usr/bin/env bash
# No-C++-runtime gate: the archive links into a C program with the C
# compiler driver and libc alone (plus libdrm_amdgpu when built with it).
#
#   no_cxx_runtime_gate.sh NM ARCHIVE
#
# Fails when any member of ARCHIVE (every object: lib/ and platform/)
# references a symbol that only the C++ runtime or libatomic provides:
#  - a mangled C++ name (_Z...) that no member of the archive defines:
#    libstdc++/libsupc++ functions (std::, operator new/delete, including
#    the sized delete a virtual destructor's deleting variant calls),
#    vtables and typeinfo of library classes;
#  - __cxa_* (guards of function-local statics, __cxa_pure_virtual,
#    __cxa_atexit of static objects with destructors, exceptions),
#    __gxx_personality_*, _Unwind_* and __dso_handle (the handle static
#    destructors are registered with);
#  - __atomic_* library calls (libatomic: atomics the target cannot inline).
# libgcc helpers (__popcountdi2, __aeabi_*, __aarch64_* outline atomics,
# __sync_*) and libc are allowed: the C driver links them.
# Prints every offending (member, symbol) pair.
set -euo pipefail
nm_tool=$1 archive=$2

[ -s "$archive" ] || { echo "gate: archive '$archive' is missing or empty"; exit 2; }

# nm -A prints "archive:member:<value> <type> <symbol>"; undefined symbols
# (U, and weak w/v such as a vtable's __cxa_pure_virtual) have no value.
listing=$("$nm_tool" -A "$archive" 2>/dev/null)
[ -n "$listing" ] || { echo "gate: $nm_tool printed nothing for $archive"; exit 2; }

bad=$(awk '
  {
    n = split($1, parts, ":"); member = parts[n - 1]; value = parts[n];
    sym = $NF;
    if (value == "") { undef[member " " sym] = sym } else { defined[sym] = 1 }
  }
  END {
    for (k in undef) {
      sym = undef[k];
      if (sym ~ /^_Z/ && !(sym in defined)) { print k; continue }
      if (sym ~ /^(__cxa_|__gxx_personality|_Unwind_|__atomic_)/ || sym == "__dso_handle") print k;
    }
  }' <<<"$listing" | LC_ALL=C sort)

members=$(awk '{ n = split($1, p, ":"); print p[n - 1] }' <<<"$listing" | sort -u | grep -c .)
if [ -n "$bad" ]; then
  echo "gate: FAILED: $(basename "$archive") needs the C++ runtime or libatomic:"
  sed 's/ / references /' <<<"$bad"
  exit 1
fi
echo "gate: passed: $members members of $(basename "$archive") need no C++ runtime and no libatomic"
