# Cross toolchain: arm-linux-gnueabihf (Debian's g++-arm-linux-gnueabihf), for armhf Linux boards.
# Tests run under qemu-user (qemu-arm) with the cross sysroot as its -L root.
#   cmake -S . -B build/armhf -G Ninja --toolchain toolchains/arm-linux-gnueabihf.cmake
# or use the "armhf" preset. A custom board toolchain can copy this file and
# change the compiler names, the sysroot and the target flags.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(HKE_CROSS_TRIPLE arm-linux-gnueabihf)
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

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm;-L;${HKE_CROSS_SYSROOT})
