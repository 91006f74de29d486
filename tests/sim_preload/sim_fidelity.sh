#!/usr/bin/env bash
# Runs one part of sim_fidelity (graphics | svm) under libkfdsim-preload.so
# with the simulator's trace on, and checks that the run went through the
# simulator: the program passes every step, and the trace shows the
# requests the part must reach the kernel with, each successful, and no
# request the simulator did not know.
#
#   sim_fidelity.sh <preload.so> <sim_fidelity> <graphics|svm> <tree-dir | board-name>
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 <preload.so> <sim_fidelity> <graphics|svm> <tree|board>" >&2; exit 2; }
preload=$1 prog=$2 part=$3 target=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ "$target" == */* ]]; then
  [ -d "$target/nodes" ] || fail "topology tree $target is missing (no nodes/)"
  board_env=(KFDSIM_TOPOLOGY="$target")
else
  board_env=(KFDSIM_BOARD="$target")
fi
rc=0
env -u KFDSIM_TOPOLOGY -u KFDSIM_BOARD LD_PRELOAD="$preload" "${board_env[@]}" \
  KFDSIM_TRACE="$work/trace" "$prog" "$part" < /dev/null > "$work/out" 2>&1 || rc=$?
cat "$work/out"
[ "$rc" -eq 0 ] || fail "sim_fidelity $part exited $rc on $target"
grep -q '^FAIL' "$work/out" && fail "a step failed"
grep -q '^ok ' "$work/out" || fail "no step ran"

cat "$work"/trace.* > "$work/all" 2> /dev/null || fail "no trace file was written"
! grep -qE '^[0-9]+ ioctl .* unknown$' "$work/all" || fail "a request the simulator does not know: $(grep -E ' unknown$' "$work/all" | head -1)"
need_ok() {
  grep -qE "^[0-9]+ ioctl .* name=$1 .* -> ok( |$)" "$work/all" || fail "no successful $1 in the trace"
}
case "$part" in
  graphics)
    for r in DRM_IOCTL_AMDGPU_GEM_CREATE DRM_IOCTL_AMDGPU_GEM_METADATA DRM_IOCTL_AMDGPU_GEM_MMAP \
             DRM_IOCTL_PRIME_HANDLE_TO_FD DRM_IOCTL_PRIME_FD_TO_HANDLE DRM_IOCTL_GEM_CLOSE \
             AMDKFD_IOC_GET_DMABUF_INFO AMDKFD_IOC_IMPORT_DMABUF AMDKFD_IOC_FREE_MEMORY_OF_GPU; do
      need_ok "$r"
    done ;;
  svm)
    need_ok AMDKFD_IOC_SVM
    # The fixed-address allocation in the unmapped hole (this library's build).
    if grep -q '^ok AllocMemory(FixedAddress)' "$work/out"; then
      grep -qE "^[0-9]+ ioctl .* name=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU .* -> EADDRINUSE" "$work/all" &&
        fail "an ALLOC_MEMORY_OF_GPU met a stale SVM range"
    fi ;;
  *) fail "unknown part $part" ;;
esac
echo "PASS: sim_fidelity $part on $target"
