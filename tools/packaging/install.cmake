# Install rules: lib/libhsakmt.a, include/hsakmt/*.h, a CMake package
# (find_package(hsakmt) -> hsakmt::hsakmt) and libhsakmt.pc whose --static
# link line is complete.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS hsakmt EXPORT hsakmtTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hsakmt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

set(HKE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hsakmt)
set(HKE_HAVE_LIBDRM_VALUE ${HKE_HAVE_LIBDRM})
install(EXPORT hsakmtTargets NAMESPACE hsakmt:: DESTINATION ${HKE_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hsakmtConfig.cmake.in
  ${CMAKE_BINARY_DIR}/packaging/hsakmtConfig.cmake
  INSTALL_DESTINATION ${HKE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/packaging/hsakmtConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/packaging/hsakmtConfig.cmake
  ${CMAKE_BINARY_DIR}/packaging/hsakmtConfigVersion.cmake DESTINATION ${HKE_CMAKE_DIR})

# pkg-config: the archive is C++ compiled without exceptions, RTTI, heap or
# any other C++-runtime use (tests/gates/no_cxx_runtime_gate.sh), so a C
# program links it with the C driver and libc; the static line adds only
# libdrm_amdgpu when the Linux backend was built with it.
set(HKE_PC_REQUIRES_PRIVATE "")
if(HKE_HAVE_LIBDRM)
  set(HKE_PC_REQUIRES_PRIVATE "libdrm_amdgpu")
endif()
file(RELATIVE_PATH HKE_PC_PREFIX_REL "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${CMAKE_CURRENT_LIST_DIR}/libhsakmt.pc.in ${CMAKE_BINARY_DIR}/packaging/libhsakmt.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/packaging/libhsakmt.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
