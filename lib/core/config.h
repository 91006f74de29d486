// Compile-time capacities of a context. The build selects one configuration
// (CMake HKE_CONFIGURATION): "default" fits the largest captured machines
// (8x MI300X in CPX mode: 65 nodes, 63 GPU partitions, ~64 links per node);
// "small-board" fits a single-APU embedded board in a few kilobytes.
#ifndef HKE_LIB_CORE_CONFIG_H_
#define HKE_LIB_CORE_CONFIG_H_

#include <cstdint>

namespace hke::config {

#if defined(HKE_CONFIG_SMALL_BOARD)
inline constexpr const char* kName = "small-board";
inline constexpr uint32_t kMaxNodes = 2;
inline constexpr uint32_t kMaxGpus = 1;
inline constexpr uint32_t kMaxMemBanksPerNode = 4;
inline constexpr uint32_t kMaxCachesPerNode = 64;
inline constexpr uint32_t kMaxLinksPerNode = 4;
inline constexpr uint32_t kMaxMemBanksTotal = 8;
inline constexpr uint32_t kMaxCachesTotal = 96;
inline constexpr uint32_t kMaxLinksTotal = 8;
inline constexpr uint32_t kMaxEvents = 256;
inline constexpr uint32_t kMaxQueues = 16;
inline constexpr uint32_t kMaxPcSamplingTraces = 4;
inline constexpr uint32_t kMaxPmcBlobs = 1;
inline constexpr uint32_t kMaxPmcTraces = 4;
inline constexpr uint32_t kMaxPmcTraceCounters = 8;
inline constexpr uint32_t kMaxVaObjects = 1024;
inline constexpr uint32_t kMaxSecondaryContexts = 1;
inline constexpr uint32_t kMaxGraphicsMetadata = 2;
#else
inline constexpr const char* kName = "default";
inline constexpr uint32_t kMaxNodes = 128;
inline constexpr uint32_t kMaxGpus = 128;  // render minors 128..255
inline constexpr uint32_t kMaxMemBanksPerNode = 8;
inline constexpr uint32_t kMaxCachesPerNode = 512;  // 337 on the MI308X CPU node, 217 per MI210 GPU
inline constexpr uint32_t kMaxLinksPerNode = 128;
// Pools shared by all nodes: a node may use up to its per-node limit, the
// whole topology up to these totals (MI300X CPX: 5040 caches, 4034 links).
inline constexpr uint32_t kMaxMemBanksTotal = 1024;
inline constexpr uint32_t kMaxCachesTotal = 8192;
inline constexpr uint32_t kMaxLinksTotal = 8192;
inline constexpr uint32_t kMaxEvents = 4096;  // the KFD signal-slot limit
inline constexpr uint32_t kMaxQueues = 1024;  // the KFD per-process queue limit
// PC-sampling sessions a context tracks at once (the kernel allows one
// configuration per method and GPU, shared by any number of sessions).
inline constexpr uint32_t kMaxPcSamplingTraces = 64;
// hsaKmtPmcGetCounterProperties blobs a context holds (about 115 KiB each,
// touched when built): one per counter table in use, and every GPU of one
// table shares its blob, so 7 (every table) never runs out.
inline constexpr uint32_t kMaxPmcBlobs = 7;
// Registered PMC traces, and privileged (IOMMU) counters per trace: each
// holds a perf_event descriptor while the trace has access.
inline constexpr uint32_t kMaxPmcTraces = 64;
inline constexpr uint32_t kMaxPmcTraceCounters = 16;
inline constexpr uint32_t kMaxVaObjects = 131072;
// Slots of hsaKmtOpenSecondaryKFDCtx, each a whole context in static
// storage (lib/api/secondary_contexts.cc, an archive member of its own: a static link
// that never opens a secondary context does not carry them).
inline constexpr uint32_t kMaxSecondaryContexts = 2;
// Graphics imports (hsaKmtRegisterGraphicsHandleToNodes) whose dma-buf
// carries metadata, alive at once: each keeps its blob (at most 256 bytes,
// amdgpu's limit) in the context until it is deregistered.
inline constexpr uint32_t kMaxGraphicsMetadata = 64;
#endif

static_assert(kMaxGpus <= kMaxNodes, "every GPU is a node");
static_assert(kMaxPcSamplingTraces >= 1 && kMaxPcSamplingTraces <= 256,
              "a PC-sampling trace id keeps the slot in 8 bits");
static_assert(kMaxPmcTraces >= 1 && kMaxPmcTraces <= 256,
              "a PMC trace id keeps the slot in 8 bits");
static_assert(kMaxPmcBlobs >= 1 && kMaxPmcTraceCounters >= 1, "PMC capacities");
static_assert(kMaxGraphicsMetadata >= 1 && kMaxGraphicsMetadata < 0xffff,
              "a graphics import keeps its metadata slot + 1 in 16 bits");
static_assert(kMaxMemBanksPerNode <= kMaxMemBanksTotal && kMaxCachesPerNode <= kMaxCachesTotal &&
                  kMaxLinksPerNode <= kMaxLinksTotal,
              "a pool holds at least one full node");

}  // namespace hke::config

#endif  // HKE_LIB_CORE_CONFIG_H_
