#!/usr/bin/env bash
# Installs the Debian 12 packages the build, the tests and the cross builds
# need. Idempotent: installs only what is missing. Needs root (or sudo).
set -euo pipefail

packages=(
  cmake ninja-build g++ binutils pkgconf      # build
  doctest-dev                                 # unit tests
  libdrm-dev                                  # optional libdrm in the Linux platform
  linux-libc-dev                              # <linux/kfd_ioctl.h> for the ABI cross-check
  libhsakmt-dev                               # Debian's thunk headers, compared in tests
  clang-14 libclang-rt-14-dev                 # libFuzzer harnesses
  lld-14 llvm-14                              # test kernels: clang-14 assembles and links them, llvm-mc-14 is the encoding oracle
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf g++-riscv64-linux-gnu
  qemu-user                                   # runs the cross-compiled tests
  python3 python3-matplotlib                  # test scripts (JSON checks), the benchmark plot
  valgrind                                    # instruction counts in the benchmark (--instructions)
  rocminfo libhsa-runtime-dev libhsakmt1      # Debian's ROCm 5.2.3 stack, run on the simulator
  libelf-dev libnuma-dev xxd llvm-14          # ROCR and upstream libhsakmt from source (tests/consumers)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo for: ${missing[*]}"; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
