# Shared by tests/sim_preload and tests/oracle: whether the tests that run
# Debian's ROCm 5.2.3 binaries under libkfdsim-preload.so can exist in this
# build, and the boards they run on.
#
# HKE_PRELOAD_TESTS: TRUE on a native x86_64 build without sanitizers.
# Debian's binaries are x86_64 (no cross build, no other host); a sanitizer
# build's preload carries a sanitizer runtime that cannot be loaded into
# uninstrumented programs through LD_PRELOAD.
# HKE_PRELOAD_TARGETS: every built-in board and captured tree (absolute
# path; a missing tree fails its tests, it is never skipped).
set(HKE_PRELOAD_TESTS TRUE)
if(CMAKE_CROSSCOMPILING OR NOT CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$"
   OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  set(HKE_PRELOAD_TESTS FALSE)
elseif(HKE_SANITIZE)
  set(HKE_PRELOAD_TESTS FALSE)
  message(STATUS "${CMAKE_CURRENT_SOURCE_DIR}: preload tests not built with "
    "HKE_SANITIZE=${HKE_SANITIZE} (Debian's uninstrumented binaries cannot host the sanitizer runtime)")
endif()

set(HKE_TOPOLOGY_FIXTURES ${HKE_SHARED_DIR}/fixtures/topology)
set(HKE_PRELOAD_BOARDS apu-embedded datacenter-4gpu)
set(HKE_PRELOAD_TREES
  ${HKE_TOPOLOGY_FIXTURES}/mi210-8gpu-xgmi
  ${HKE_TOPOLOGY_FIXTURES}/mi300x-8gpu-cpx
  ${HKE_TOPOLOGY_FIXTURES}/mi308x-8gpu-cpx
  ${HKE_TOPOLOGY_FIXTURES}/mixed-gfx906-gfx1102-gfx1032)
set(HKE_PRELOAD_TARGETS ${HKE_PRELOAD_BOARDS} ${HKE_PRELOAD_TREES})

# Where tests/consumers' build (the test consumers_build) writes. Its
# upstream-hsakmt/ folder holds upstream's current libhsakmt as a shared
# library, the second reference of tests/oracle.
set(HKE_CONSUMERS_OUT ${PROJECT_BINARY_DIR}/tests/consumers/build)

# Debian's thunk (libhsakmt-dev, which brings libhsakmt1): header and library.
function(hke_find_debian_hsakmt)
  find_path(HKE_DEBIAN_HSAKMT_INCLUDE_DIR hsakmt.h PATHS /usr/include NO_DEFAULT_PATH)
  find_library(HKE_DEBIAN_HSAKMT_LIBRARY NAMES libhsakmt.so
    PATHS /usr/lib/x86_64-linux-gnu NO_DEFAULT_PATH)
  if(NOT HKE_DEBIAN_HSAKMT_INCLUDE_DIR OR NOT HKE_DEBIAN_HSAKMT_LIBRARY)
    message(FATAL_ERROR "The preload and oracle tests need Debian's libhsakmt 5.2.3: install the "
      "Debian package 'libhsakmt-dev' (/usr/include/hsakmt.h, "
      "/usr/lib/x86_64-linux-gnu/libhsakmt.so; tools/install-deps.sh does)")
  endif()
endfunction()
