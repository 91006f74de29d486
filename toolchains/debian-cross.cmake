# Shared part of the Debian cross toolchain files. A board file sets
#   HKE_CROSS_TRIPLE        the GNU triple of Debian's g++-<triple> package
#   CMAKE_SYSTEM_PROCESSOR  the target processor
#   HKE_CROSS_QEMU          the qemu-user binary that runs target programs
# and includes this file.
set(CMAKE_SYSTEM_NAME Linux)

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

# ctest runs target programs under qemu-user with the sysroot as its root.
set(CMAKE_CROSSCOMPILING_EMULATOR ${HKE_CROSS_QEMU};-L;${HKE_CROSS_SYSROOT})
