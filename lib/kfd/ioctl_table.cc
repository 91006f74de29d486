// Constant table of every known request, the KFD ones derived from the
// list in ioctl_list.h; see ioctl_table.h.
#include "lib/kfd/ioctl_table.h"

#include "lib/kfd/abi.h"
#include "lib/kfd/drm_abi.h"

namespace hke::kfd {
namespace {

constexpr IoctlInfo Entry(uint32_t request, const char* name, bool variable = false) {
  return IoctlInfo{request, name, IocNr(request), IocSize(request), IocDir(request), variable};
}

// The KFD requests come from their list (ioctl_list.h), in its order, then
// the DRM ones from theirs (drm_abi.h).
#define HKE_KFD_ENTRY(nr, Name, NAME, dir, Args, kind, major, minor) \
  Entry(kIoc##Name, "AMDKFD_IOC_" #NAME, (kind) == kVariableSize),
#define HKE_DRM_ENTRY(nr, Name, NAME, dir, Args) Entry(drm::kIoc##Name, "DRM_IOCTL_" #NAME),

constexpr IoctlInfo kTable[] = {
    HKE_KFD_IOCTL_LIST(HKE_KFD_ENTRY)
    HKE_DRM_IOCTL_LIST(HKE_DRM_ENTRY)
};

#undef HKE_KFD_ENTRY
#undef HKE_DRM_ENTRY

constexpr size_t kTableSize = sizeof(kTable) / sizeof(kTable[0]);

// Request numbers must be unique, or FindIoctl would be ambiguous.
constexpr bool AllDistinct() {
  for (size_t i = 0; i < kTableSize; ++i) {
    for (size_t j = i + 1; j < kTableSize; ++j) {
      if (kTable[i].request == kTable[j].request) return false;
    }
  }
  return true;
}
static_assert(AllDistinct(), "duplicate request number in the ioctl table");

constexpr uint32_t kNoSizeMask = ~(kIocMaxSize << kIocSizeShift);

}  // namespace

const IoctlInfo* FindIoctl(uint32_t request) {
  for (const IoctlInfo& e : kTable) {
    if (e.request == request) return &e;
  }
  for (const IoctlInfo& e : kTable) {
    if (e.variable_size && (e.request & kNoSizeMask) == (request & kNoSizeMask) &&
        IocSize(request) >= e.size) {
      return &e;
    }
  }
  return nullptr;
}

const char* RequestName(uint32_t request) {
  const IoctlInfo* e = FindIoctl(request);
  return e != nullptr ? e->name : nullptr;
}

const IoctlInfo* IoctlTable(size_t* count) {
  if (count != nullptr) *count = kTableSize;
  return kTable;
}

}  // namespace hke::kfd
