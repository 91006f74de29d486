// Constant table of every known request; see ioctl_table.h.
#include "lib/kfd/ioctl_table.h"

#include "lib/kfd/abi.h"
#include "lib/kfd/drm_abi.h"

namespace hke::kfd {
namespace {

constexpr IoctlInfo Entry(uint32_t request, const char* name, bool variable = false) {
  return IoctlInfo{request, name, IocNr(request), IocSize(request), IocDir(request), variable};
}

#define HKE_KFD_ENTRY(code, name) Entry(code, "AMDKFD_IOC_" name)

constexpr IoctlInfo kTable[] = {
    HKE_KFD_ENTRY(kIocGetVersion, "GET_VERSION"),
    HKE_KFD_ENTRY(kIocCreateQueue, "CREATE_QUEUE"),
    HKE_KFD_ENTRY(kIocDestroyQueue, "DESTROY_QUEUE"),
    HKE_KFD_ENTRY(kIocSetMemoryPolicy, "SET_MEMORY_POLICY"),
    HKE_KFD_ENTRY(kIocGetClockCounters, "GET_CLOCK_COUNTERS"),
    HKE_KFD_ENTRY(kIocGetProcessApertures, "GET_PROCESS_APERTURES"),
    HKE_KFD_ENTRY(kIocUpdateQueue, "UPDATE_QUEUE"),
    HKE_KFD_ENTRY(kIocCreateEvent, "CREATE_EVENT"),
    HKE_KFD_ENTRY(kIocDestroyEvent, "DESTROY_EVENT"),
    HKE_KFD_ENTRY(kIocSetEvent, "SET_EVENT"),
    HKE_KFD_ENTRY(kIocResetEvent, "RESET_EVENT"),
    HKE_KFD_ENTRY(kIocWaitEvents, "WAIT_EVENTS"),
    HKE_KFD_ENTRY(kIocDbgRegisterDeprecated, "DBG_REGISTER_DEPRECATED"),
    HKE_KFD_ENTRY(kIocDbgUnregisterDeprecated, "DBG_UNREGISTER_DEPRECATED"),
    HKE_KFD_ENTRY(kIocDbgAddressWatchDeprecated, "DBG_ADDRESS_WATCH_DEPRECATED"),
    HKE_KFD_ENTRY(kIocDbgWaveControlDeprecated, "DBG_WAVE_CONTROL_DEPRECATED"),
    HKE_KFD_ENTRY(kIocSetScratchBackingVa, "SET_SCRATCH_BACKING_VA"),
    HKE_KFD_ENTRY(kIocGetTileConfig, "GET_TILE_CONFIG"),
    HKE_KFD_ENTRY(kIocSetTrapHandler, "SET_TRAP_HANDLER"),
    HKE_KFD_ENTRY(kIocGetProcessAperturesNew, "GET_PROCESS_APERTURES_NEW"),
    HKE_KFD_ENTRY(kIocAcquireVm, "ACQUIRE_VM"),
    HKE_KFD_ENTRY(kIocAllocMemoryOfGpu, "ALLOC_MEMORY_OF_GPU"),
    HKE_KFD_ENTRY(kIocFreeMemoryOfGpu, "FREE_MEMORY_OF_GPU"),
    HKE_KFD_ENTRY(kIocMapMemoryToGpu, "MAP_MEMORY_TO_GPU"),
    HKE_KFD_ENTRY(kIocUnmapMemoryFromGpu, "UNMAP_MEMORY_FROM_GPU"),
    HKE_KFD_ENTRY(kIocSetCuMask, "SET_CU_MASK"),
    HKE_KFD_ENTRY(kIocGetQueueWaveState, "GET_QUEUE_WAVE_STATE"),
    HKE_KFD_ENTRY(kIocGetDmabufInfo, "GET_DMABUF_INFO"),
    HKE_KFD_ENTRY(kIocImportDmabuf, "IMPORT_DMABUF"),
    HKE_KFD_ENTRY(kIocAllocQueueGws, "ALLOC_QUEUE_GWS"),
    HKE_KFD_ENTRY(kIocSmiEvents, "SMI_EVENTS"),
    Entry(kIocSvm, "AMDKFD_IOC_SVM", /*variable=*/true),
    HKE_KFD_ENTRY(kIocSetXnackMode, "SET_XNACK_MODE"),
    HKE_KFD_ENTRY(kIocCriuOp, "CRIU_OP"),
    HKE_KFD_ENTRY(kIocAvailableMemory, "AVAILABLE_MEMORY"),
    HKE_KFD_ENTRY(kIocExportDmabuf, "EXPORT_DMABUF"),
    HKE_KFD_ENTRY(kIocRuntimeEnable, "RUNTIME_ENABLE"),
    HKE_KFD_ENTRY(kIocDbgTrap, "DBG_TRAP"),
    HKE_KFD_ENTRY(kIocCreateProcess, "CREATE_PROCESS"),
    HKE_KFD_ENTRY(kIocIpcImportHandle, "IPC_IMPORT_HANDLE"),
    HKE_KFD_ENTRY(kIocIpcExportHandle, "IPC_EXPORT_HANDLE"),
    HKE_KFD_ENTRY(kIocCrossMemoryCopy, "CROSS_MEMORY_COPY"),
    HKE_KFD_ENTRY(kIocRlcSpm, "RLC_SPM"),
    HKE_KFD_ENTRY(kIocPcSample, "PC_SAMPLE"),
    Entry(drm::kIocVersion, "DRM_IOCTL_VERSION"),
    Entry(drm::kIocGetClient, "DRM_IOCTL_GET_CLIENT"),
    Entry(drm::kIocAmdgpuInfo, "DRM_IOCTL_AMDGPU_INFO"),
};

#undef HKE_KFD_ENTRY

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
