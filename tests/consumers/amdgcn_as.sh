#!/usr/bin/env bash
# Stands in for ROCm's clang in ROCR's trap-handler and blit-shader
# subfolders (the consumer build points their imported `clang` target here).
#
#   amdgcn_as.sh -x assembler -target amdgcn-amd-amdhsa [...] -mcpu=<gfx> -o <out> <in.s>
#
# Debian's clang-14 assembles the gfx9 and gfx10.x variants ROCR asks for;
# it does not know gfx942, gfx950, gfx11 or gfx12. For those the code object
# holds one `s_endpgm` (assembled for the nearest target clang-14 knows), so
# ROCR builds, and a note says so: a runtime built this way has no working
# trap handler or blit kernels on those GPUs (tests/consumers/README.md).
# clang-14 knows code object versions up to 4: `-mcode-object-version=5`
# is dropped (ROCR keeps only the .text section, the instructions, which the
# version does not change).
set -euo pipefail
clang=${HKE_CLANG:-clang-14}
args=()
cpu=""
for a in "$@"; do
  case $a in
    -mcpu=*) cpu=${a#-mcpu=}; args+=("$a") ;;
    -mcode-object-version=*) ;;
    *) args+=("$a") ;;
  esac
done
case $cpu in
  gfx942|gfx950) stub_cpu=gfx90a ;;
  gfx11*|gfx12*) stub_cpu=gfx1030 ;;
  *) exec "$clang" "${args[@]}" ;;
esac
out=""
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "-o" ] && out=${args[$((i + 1))]}
done
[ -n "$out" ] || { echo "amdgcn_as.sh: no -o in: $*" >&2; exit 2; }
stub="$out.stub.s"
printf '.text\n  s_endpgm\n' >"$stub"
echo "amdgcn_as.sh: $clang does not know $cpu: $out is a one-instruction stub (s_endpgm for $stub_cpu)" >&2
exec "$clang" -x assembler -target amdgcn-amd-amdhsa -mcpu="$stub_cpu" -o "$out" "$stub"
