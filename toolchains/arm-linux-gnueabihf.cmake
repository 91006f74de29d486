# Cross toolchain: arm-linux-gnueabihf (Debian's g++-arm-linux-gnueabihf), for armhf Linux boards.
#   cmake -S . -B build/armhf -G Ninja --toolchain toolchains/arm-linux-gnueabihf.cmake
# or the "armhf" preset. Tests run under qemu-arm. For a custom board, copy
# this file and change the triple (or set the compilers and sysroot yourself).
set(HKE_CROSS_TRIPLE arm-linux-gnueabihf)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(HKE_CROSS_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
