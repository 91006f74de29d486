# Cross toolchain: aarch64-linux-gnu (Debian's g++-aarch64-linux-gnu), for aarch64 Linux boards.
#   cmake -S . -B build/aarch64 -G Ninja --toolchain toolchains/aarch64-linux-gnu.cmake
# or the "aarch64" preset. Tests run under qemu-aarch64. For a custom board, copy
# this file and change the triple (or set the compilers and sysroot yourself).
set(HKE_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(HKE_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
