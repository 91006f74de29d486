// The sysfs keys the snapshot reads, one table per file kind. Key ids are
// the enum values; the tables (keys.cc) list the names in the same order.
// Widths follow the kernel fields: values above them are malformed.
#ifndef HKE_LIB_TOPOLOGY_KEYS_H_
#define HKE_LIB_TOPOLOGY_KEYS_H_

#include <cstdint>

#include "lib/topology/properties.h"

namespace hke::topology {

// nodes/N/properties. The 32-bit keys come first, then the 64-bit ones
// (kFirst64BitNodeKey..), so a node record stores two dense arrays.
enum NodeKey : uint32_t {
  kCpuCoresCount,
  kSimdCount,
  kMemBanksCount,
  kCachesCount,
  kIoLinksCount,
  kP2pLinksCount,
  kCpuCoreIdBase,
  kSimdIdBase,
  kCapability,
  kCapability2,
  kMaxWavesPerSimd,
  kLdsSizeInKb,
  kGdsSizeInKb,
  kWaveFrontSize,
  kArrayCount,
  kSimdArraysPerEngine,
  kCuPerSimdArray,
  kSimdPerCu,
  kMaxSlotsScratchCu,
  kFwVersion,
  kVendorId,
  kDeviceId,
  kLocationId,
  kDomain,
  kMaxEngineClkFcompute,
  kMaxEngineClkCcompute,
  kDrmRenderMinor,
  kSdmaFwVersion,
  kNumSdmaEngines,
  kNumSdmaXgmiEngines,
  kNumGws,
  kNumSdmaQueuesPerEngine,
  kNumCpQueues,
  kNumXcc,
  kFamilyId,
  kGfxTargetVersion,
  kFirst64BitNodeKey,
  kDebugProp = kFirst64BitNodeKey,
  kLocalMemSize,
  kHiveId,
  kUniqueId,
  kNodeKeyCount
};
inline constexpr uint32_t kNode32Count = kFirst64BitNodeKey;
inline constexpr uint32_t kNode64Count = kNodeKeyCount - kFirst64BitNodeKey;

enum SystemKey : uint32_t { kPlatformOem, kPlatformId, kPlatformRev, kSystemKeyCount };

enum MemKey : uint32_t { kHeapType, kSizeInBytes, kMemFlags, kWidth, kMemClkMax, kMemKeyCount };

enum CacheKey : uint32_t {
  kProcessorIdLow,
  kLevel,
  kCacheSize,
  kCacheLineSize,
  kCacheLinesPerTag,
  kAssociation,
  kLatency,
  kCacheType,
  kCacheKeyCount
};

enum LinkKey : uint32_t {
  kLinkType,
  kVersionMajor,
  kVersionMinor,
  kNodeFrom,
  kNodeTo,
  kWeight,
  kMinLatency,
  kMaxLatency,
  kMinBandwidth,
  kMaxBandwidth,
  kRecTransferSize,
  kRecSdmaEngIdMask,
  kLinkFlags,
  kLinkKeyCount
};

// The list-valued cache key.
inline constexpr const char* kSiblingMapKey = "sibling_map";

const KeyTable& NodeKeys();
const KeyTable& SystemKeys();
const KeyTable& MemKeys();
const KeyTable& CacheKeys();
const KeyTable& LinkKeys();

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_KEYS_H_
