# Cross toolchain: aarch64-linux-gnu (Debian's g++-aarch64-linux-gnu), for aarch64 Linux boards.
# Tests run under qemu-user (qemu-aarch64) with the cross sysroot as its -L root.
#   cmake -S . -B build/aarch64 -G Ninja --toolchain toolchains/aarch64-linux-gnu.cmake
# or use the "aarch64" preset. A custom board toolchain can copy this file and
# change the compiler names, the sysroot and the target flags.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(HKE_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${HKE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${HKE_CROSS_TRIPLE}-g++)

# Debian installs the target's libc and headers under /usr/<triple>.
set(HKE_CROSS_SYSROOT /usr/${HKE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH ${HKE_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Host pkg-config must not hand host libraries (libdrm) to the target.
set(ENV{PKG_CONFIG_LIBDIR} ${HKE_CROSS_SYSROOT}/lib/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} /)

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;${HKE_CROSS_SYSROOT})
