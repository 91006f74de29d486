# Included by ROCR's trap-handler and blit-shader CMakeLists in place of
# their find_package(Clang) / find_package(LLVM) (the consumer build edits
# them so; build_consumers.sh): the imported executables `clang` and
# `llvm-objcopy` they call, here Debian's LLVM 14 through amdgcn_as.sh.
# HKE_AMDGCN_AS and HKE_LLVM_OBJCOPY come from the configure command line.
if(NOT TARGET clang)
  add_executable(clang IMPORTED GLOBAL)
  set_target_properties(clang PROPERTIES IMPORTED_LOCATION "${HKE_AMDGCN_AS}")
endif()
if(NOT TARGET llvm-objcopy)
  add_executable(llvm-objcopy IMPORTED GLOBAL)
  set_target_properties(llvm-objcopy PROPERTIES IMPORTED_LOCATION "${HKE_LLVM_OBJCOPY}")
endif()
