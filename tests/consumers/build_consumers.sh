#!/usr/bin/env bash
# The consumer build: current ROCR and rocminfo, built from the external
# source archive, once on this library and once on upstream's bundled
# libhsakmt (the control). Run by the CTest test `consumers_build`.
#
#   build_consumers.sh OUT PROJECT_SOURCE_DIR ARCHIVE C_COMPILER CXX_COMPILER
#
# Everything is written under OUT (a folder of the build tree); the archive
# is unpacked there, never into the source tree. Layout:
#   OUT/src-ours, OUT/src-control   two unpacked copies of the archive; the
#                                   only edits are the scripted ones below
#   OUT/hsakmt-release              Release build of this project
#   OUT/prefix-hsakmt               its `cmake --install` (the hsakmt::hsakmt package)
#   OUT/rocr-ours, OUT/prefix-ours  ROCR on that package (libhsakmt.a linked in)
#   OUT/rocr-control, OUT/prefix-control  ROCR with its bundled libhsakmt
#   OUT/upstream-hsakmt             upstream's libhsakmt as a shared library
#                                   (lib/libhsakmt.so.1, include/hsakmt/) for
#                                   tests that load a thunk directly
#   OUT/rocminfo/rocminfo           rocminfo from the same archive
#   OUT/bin/rocr_steps              tests/consumers/rocr_steps.c on the new ROCR headers
#   OUT/logs/<stage>.log            each stage's output (the tail is shown on failure)
#
# Edits (checked: the script fails if the archive no longer matches them):
#   - ROCR's top-level CMakeLists (src-ours only): `add_rocm_subdir(libhsakmt
#     ...)` becomes `find_package(hsakmt CONFIG REQUIRED)`; the output
#     directories set on the bundled `hsakmt` target and
#     `add_dependencies(hsa-runtime64 hsakmt)` go. runtime/hsa-runtime already
#     links hsakmt::hsakmt.
#   - the trap-handler and blit-shader CMakeLists (both copies): their
#     find_package(Clang)/find_package(LLVM) become an include of
#     llvm14_tools.cmake (Debian's clang-14 through amdgcn_as.sh).
#
# Re-running is incremental: the archive is unpacked again only when it
# changed, each build directory is configured once and rebuilt by ninja (a
# change of this library rebuilds the Release archive and relinks the ROCR on
# it; the control stays up to date).
set -euo pipefail
out=$1 src=$2 archive=$3 cc=$4 cxx=$5
here=$(cd "$(dirname "$0")" && pwd)
jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
mkdir -p "$out/logs" "$out/bin"
out=$(cd "$out" && pwd)
# ROCR's and rocminfo's version probes run git in their source folders: they
# must not find this project's repository around the build tree.
export GIT_CEILING_DIRECTORIES=$out

stage() {  # stage NAME COMMAND...: runs with the output in logs/NAME.log
  local name=$1; shift
  local t0=$SECONDS rc=0
  # A subshell outside any condition, so that errexit holds inside it.
  set +e
  (set -e; "$@") >"$out/logs/$name.log" 2>&1
  rc=$?
  set -e
  if [ $rc -ne 0 ]; then
    echo "consumers: stage $name failed; last lines of logs/$name.log:"
    tail -n 40 "$out/logs/$name.log"
    exit 1
  fi
  echo "consumers: $name ok ($((SECONDS - t0)) s)"
}

rocr_rel=rocm-systems/projects/rocr-runtime
shader_dirs=(runtime/hsa-runtime/core/runtime/trap_handler runtime/hsa-runtime/core/runtime/blit_shaders)

edit_shaders() {  # edit_shaders ROCR_DIR
  local d f
  for d in "${shader_dirs[@]}"; do
    f=$1/$d/CMakeLists.txt
    grep -q '^find_package(Clang REQUIRED' "$f" && grep -q '^find_package(LLVM REQUIRED' "$f" ||
      { echo "consumers: $f has no find_package(Clang/LLVM) line to replace"; return 1; }
    sed -i -e 's|^find_package(Clang REQUIRED.*$|include(${HKE_LLVM_TOOLS})|' \
           -e '/^find_package(LLVM REQUIRED/d' "$f"
  done
}

edit_toplevel() {  # edit_toplevel ROCR_DIR: ROCR on the installed hsakmt package
  local f=$1/CMakeLists.txt
  grep -q '^add_rocm_subdir(libhsakmt "${THUNK_DEFINITIONS}")$' "$f" &&
    grep -q '^set_target_properties(hsakmt PROPERTIES$' "$f" &&
    grep -q '^ *add_dependencies(hsa-runtime64 hsakmt)$' "$f" ||
    { echo "consumers: $f does not have the libhsakmt lines the edit expects"; return 1; }
  sed -i -e 's|^add_rocm_subdir(libhsakmt "${THUNK_DEFINITIONS}")$|find_package(hsakmt CONFIG REQUIRED)|' \
         -e '/^set_target_properties(hsakmt PROPERTIES$/,/)$/d' \
         -e '/^ *add_dependencies(hsa-runtime64 hsakmt)$/d' "$f"
  ! grep -q 'hsakmt PROPERTIES\|add_dependencies(hsa-runtime64 hsakmt)' "$f" ||
    { echo "consumers: the edit of $f left libhsakmt lines"; return 1; }
}

unpack() {
  local sum
  sum=$(sha256sum "$archive" | cut -d' ' -f1)
  if [ "$(cat "$out/unpacked.stamp" 2>/dev/null)" = "$sum" ]; then
    echo "archive $sum already unpacked"
    return 0
  fi
  rm -rf "$out/src-ours" "$out/src-control" "$out/unpacked.stamp"
  local t
  for t in ours control; do
    mkdir -p "$out/src-$t"
    tar -xJf "$archive" -C "$out/src-$t" --exclude="$rocr_rel/rocrtst" --exclude="$rocr_rel/samples"
    edit_shaders "$out/src-$t/$rocr_rel"
  done
  edit_toplevel "$out/src-ours/$rocr_rel"
  echo "$sum" >"$out/unpacked.stamp"
}

configure_once() {  # configure_once BUILD_DIR cmake-args...: configure unless done
  local dir=$1; shift
  [ -f "$dir/build.ninja" ] || cmake -B "$dir" -G Ninja "$@"
}

hsakmt_release() {
  configure_once "$out/hsakmt-release" -S "$src" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DHKE_BUILD_TESTS=OFF -DHKE_BUILD_TOOLS=OFF
  cmake --build "$out/hsakmt-release" --target hsakmt -j "$jobs"
  cmake --install "$out/hsakmt-release" --prefix "$out/prefix-hsakmt"
}

rocr_args=(-DCMAKE_BUILD_TYPE=Release -DIMAGE_SUPPORT=OFF -DCMAKE_C_COMPILER="$cc"
  -DCMAKE_CXX_COMPILER="$cxx" -DHKE_LLVM_TOOLS="$here/llvm14_tools.cmake"
  -DHKE_AMDGCN_AS="$here/amdgcn_as.sh" -DHKE_LLVM_OBJCOPY="$(command -v llvm-objcopy-14)"
  -DCMAKE_INSTALL_LIBDIR=lib)

rocr() {  # rocr ours|control
  local t=$1 extra=()
  [ "$t" = ours ] && extra=(-DCMAKE_PREFIX_PATH="$out/prefix-hsakmt")
  configure_once "$out/rocr-$t" -S "$out/src-$t/$rocr_rel" "${rocr_args[@]}" "${extra[@]}" \
    -DCMAKE_INSTALL_PREFIX="$out/prefix-$t"
  cmake --build "$out/rocr-$t" -j "$jobs"
  cmake --install "$out/rocr-$t" --component binary
  cmake --install "$out/rocr-$t" --component dev
}

# Upstream's libhsakmt as a shared library, from the control build's
# position-independent archive, with upstream's own version script and
# soname (its CMakeLists builds only the static archive).
upstream_shared() {
  local lib=$out/rocr-control/libhsakmt/archive/libhsakmt.a u=$out/upstream-hsakmt
  local thunk=$out/src-control/$rocr_rel/libhsakmt
  rm -rf "$u"
  mkdir -p "$u/lib" "$u/include"
  "$cc" -shared -o "$u/lib/libhsakmt.so.1" -Wl,--whole-archive "$lib" -Wl,--no-whole-archive \
    -Wl,--version-script="$thunk/src/libhsakmt.ver" -Wl,-soname=libhsakmt.so.1 -Wl,-z,nodelete \
    -Wl,--no-undefined $(pkg-config --libs libdrm libdrm_amdgpu) -lnuma -lpthread -lrt -ldl
  ln -s libhsakmt.so.1 "$u/lib/libhsakmt.so"
  cp -r "$thunk/include/hsakmt" "$u/include/"
}

rocminfo() {
  configure_once "$out/rocminfo" -S "$out/src-ours/rocm-systems/projects/rocminfo" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$out/prefix-ours" -DCMAKE_SKIP_RPATH=ON
  cmake --build "$out/rocminfo" -j "$jobs"
}

# The ROCR-level test program: one binary, run on either runtime through
# LD_LIBRARY_PATH (no rpath), so both runs execute the same code.
steps() {
  "$cc" -std=gnu11 -O2 -g -Wall -Wextra -Werror -pthread -I"$out/prefix-ours/include" \
    -o "$out/bin/rocr_steps" "$here/rocr_steps.c" -L"$out/prefix-ours/lib" -lhsa-runtime64
}

t_all=$SECONDS
stage unpack unpack
stage hsakmt-release hsakmt_release
stage rocr-ours rocr ours
stage rocr-control rocr control
stage upstream-hsakmt upstream_shared
stage rocminfo rocminfo
stage rocr-steps steps
echo "consumers: all stages ok ($((SECONDS - t_all)) s)"
