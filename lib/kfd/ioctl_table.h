// Table of every ioctl request the library knows: all KFD requests (upstream
// 0x01..0x27 and the DKMS-only 0x80..0x85, derived from the one list in
// ioctl_list.h) and the DRM requests the library issues on render nodes.
// Used by the trace and fault decorators to name requests and by tests to
// cross-check the ABI.
//
// The table is constant data; lookups are pure and thread-safe.
#ifndef HKE_LIB_KFD_IOCTL_TABLE_H_
#define HKE_LIB_KFD_IOCTL_TABLE_H_

#include <cstddef>
#include <cstdint>

#include "lib/kfd/ioc.h"

namespace hke::kfd {

struct IoctlInfo {
  uint32_t request;  // full request number, with this build's struct size
  const char* name;  // "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", "DRM_IOCTL_VERSION"
  uint32_t nr;       // _IOC nr field
  uint32_t size;     // _IOC size field (base size for variable-size requests)
  uint8_t dir;       // kIocNone / kIocWrite / kIocRead / kIocReadWrite
  bool variable_size;  // size field carries a payload length (AMDKFD_IOC_SVM)
};

// Looks a request up. A fixed-size request matches only on the exact
// number; a variable-size one (SVM) matches on dir+type+nr with any size
// field not smaller than its base size. nullptr when unknown.
const IoctlInfo* FindIoctl(uint32_t request);

// Name of a request as FindIoctl resolves it, or nullptr.
const char* RequestName(uint32_t request);

// The whole table, for iteration (tests, tools). Never null.
const IoctlInfo* IoctlTable(size_t* count);

}  // namespace hke::kfd

#endif  // HKE_LIB_KFD_IOCTL_TABLE_H_
