# Cross toolchain: riscv64-linux-gnu (Debian's g++-riscv64-linux-gnu), for riscv64 Linux boards.
#   cmake -S . -B build/riscv64 -G Ninja --toolchain toolchains/riscv64-linux-gnu.cmake
# or the "riscv64" preset. Tests run under qemu-riscv64. For a custom board, copy
# this file and change the triple (or set the compilers and sysroot yourself).
set(HKE_CROSS_TRIPLE riscv64-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(HKE_CROSS_QEMU qemu-riscv64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
