// Snapshot getters: expand the compact records into the public structs
// with upstream's key -> field mapping.
#include <cstring>

#include "lib/topology/gfx.h"
#include "lib/topology/snapshot.h"

namespace hke::topology {
namespace {

// "GFX" + six lower-case hex digits of the packed version (upstream's
// AMDName for GPUs outside its device table).
void GfxName(uint32_t packed, HSAuint8* out, size_t capacity) {
  static const char kHex[] = "0123456789abcdef";
  char name[10] = {'G', 'F', 'X'};
  for (int i = 0; i < 6; ++i) name[3 + i] = kHex[(packed >> (4 * (5 - i))) & 0xf];
  name[9] = '\0';
  static_assert(sizeof(name) <= HSA_PUBLIC_NAME_SIZE, "fits AMDName");
  if (capacity >= sizeof(name)) std::memcpy(out, name, sizeof(name));
}

void CopyName(const char* src, HSAuint8* out, size_t capacity) {
  size_t n = 0;
  while (src[n] != '\0' && n + 1 < capacity) {
    out[n] = static_cast<HSAuint8>(src[n]);
    ++n;
  }
  out[n] = 0;
}

}  // namespace

Status Snapshot::FillSystemProperties(HsaSystemProperties* out) const {
  if (out == nullptr) return InvalidArgument();
  if (!valid_) return FailedPrecondition();
  HsaSystemProperties p;
  std::memset(&p, 0, sizeof(p));
  p.NumNodes = num_nodes_;
  p.PlatformOem = platform_oem_;
  p.PlatformId = platform_id_;
  p.PlatformRev = platform_rev_;
  *out = p;
  return Status::Ok();
}

Status Snapshot::FillNodeProperties(uint32_t user_node, HsaNodeProperties* out,
                                    const GfxOverride* gfx_override) const {
  if (out == nullptr) return InvalidArgument();
  if (!valid_) return FailedPrecondition();
  const NodeRecord* rp = node(user_node);
  if (rp == nullptr) return OutOfRange();
  const NodeRecord& r = *rp;

  HsaNodeProperties p;
  std::memset(&p, 0, sizeof(p));
  p.NumCPUCores = r.Get32(kCpuCoresCount);
  p.NumFComputeCores = r.Get32(kSimdCount);
  p.NumMemoryBanks = r.num_mem_banks;
  p.NumCaches = r.num_caches;
  p.NumIOLinks = r.num_links;
  p.CComputeIdLo = r.Get32(kCpuCoreIdBase);
  p.FComputeIdLo = r.Get32(kSimdIdBase);
  p.Capability.Value = r.Get32(kCapability);
  p.Capability2.Value = r.Get32(kCapability2);
  p.MaxWavesPerSIMD = r.Get32(kMaxWavesPerSimd);
  p.LDSSizeInKB = r.Get32(kLdsSizeInKb);
  p.GDSSizeInKB = r.Get32(kGdsSizeInKb);
  p.WaveFrontSize = r.Get32(kWaveFrontSize);
  p.NumArrays = r.Get32(kSimdArraysPerEngine);
  p.NumCUPerArray = r.Get32(kCuPerSimdArray);
  p.NumSIMDPerCU = r.Get32(kSimdPerCu);
  p.MaxSlotsScratchCU = r.Get32(kMaxSlotsScratchCu);
  p.EngineId.Value = r.Get32(kFwVersion) & 0x3ffu;  // uCode; the version is set below
  // The public fields are narrower than the kernel's; upstream truncates.
  p.VendorId = static_cast<HSAuint16>(r.Get32(kVendorId));
  p.DeviceId = static_cast<HSAuint16>(r.Get32(kDeviceId));
  p.LocationId = r.Get32(kLocationId);
  p.Domain = r.Get32(kDomain);
  p.MaxEngineClockMhzFCompute = r.Get32(kMaxEngineClkFcompute);
  p.MaxEngineClockMhzCCompute = r.Get32(kMaxEngineClkCcompute);
  p.LocalMemSize = r.Get64(kLocalMemSize);
  p.DrmRenderMinor = static_cast<HSAint32>(r.Get32(kDrmRenderMinor));
  p.uCodeEngineVersions.Value = r.Get32(kSdmaFwVersion) & 0x3ffu;
  p.DebugProperties.Value = r.Get64(kDebugProp);
  p.HiveID = r.Get64(kHiveId);
  p.UniqueID = r.Get64(kUniqueId);
  p.NumSdmaEngines = r.Get32(kNumSdmaEngines);
  p.NumSdmaXgmiEngines = r.Get32(kNumSdmaXgmiEngines);
  p.NumSdmaQueuesPerEngine = static_cast<HSAuint8>(r.Get32(kNumSdmaQueuesPerEngine));
  p.NumCpQueues = static_cast<HSAuint8>(r.Get32(kNumCpQueues));
  p.NumGws = static_cast<HSAuint8>(r.Get32(kNumGws));
  p.NumXcc = r.Get32(kNumXcc);
  p.FamilyID = r.Get32(kFamilyId);
  p.KFDGpuID = r.gpu_id;

  // Node names: a node with CPU cores carries the cpuinfo model name as
  // MarketingName, and as AMDName when it has no PCI device (upstream's
  // rule); for GPUs AMDName comes from the device table or the GFX version
  // below, and the API layer adds the GPU marketing name.
  if (p.NumCPUCores != 0 && r.has_model_name != 0) {
    size_t i = 0;
    for (; i + 1 < HSA_PUBLIC_NAME_SIZE && i < kModelNameCapacity && r.model_name[i] != '\0'; ++i) {
      p.MarketingName[i] = static_cast<unsigned char>(r.model_name[i]);
    }
    p.MarketingName[i] = 0;
    if (p.DeviceId == 0) CopyName(r.model_name, p.AMDName, sizeof(p.AMDName));
  }
  if (p.NumFComputeCores != 0) {  // upstream derives the rest only for SIMD nodes
    if (p.NumArrays != 0) p.NumShaderBanks = r.Get32(kArrayCount) / p.NumArrays;
    const uint32_t gfxv = r.Get32(kGfxTargetVersion);
    const GfxIpVersion v = DecodeGfxTargetVersion(gfxv);
    const GfxIpEntry* entry = FindGfxIpByDeviceId(p.DeviceId, v.major);
    if (entry != nullptr || gfxv != 0) {
      const uint32_t major = entry != nullptr ? entry->major : v.major;
      const uint32_t minor = entry != nullptr ? entry->minor : v.minor;
      const uint32_t step = entry != nullptr ? entry->stepping : v.stepping;
      p.EngineId.ui32.Major = major & 0x3fu;
      p.EngineId.ui32.Minor = minor & 0xffu;
      p.EngineId.ui32.Stepping = step & 0xffu;
      // The same nodes as GfxOverrideApplies: SIMDs and a version.
      if (gfx_override != nullptr && gfx_override->state == GfxOverride::kMalformed) {
        return InvalidArgument();
      }
      if (gfx_override != nullptr && gfx_override->state == GfxOverride::kValue) {
        p.OverrideEngineId.ui32.Major = gfx_override->major & 0x3fu;
        p.OverrideEngineId.ui32.Minor = gfx_override->minor;
        p.OverrideEngineId.ui32.Stepping = gfx_override->stepping;
      }
      const uint32_t packed = PackGfxVersion(major & 0x3fu, minor & 0xffu, step & 0xffu);
      if (entry != nullptr && entry->amd_name != nullptr) {
        CopyName(entry->amd_name, p.AMDName, sizeof(p.AMDName));
      } else {
        GfxName(packed, p.AMDName, sizeof(p.AMDName));
      }
      p.SGPRSizePerCU = kSgprSizePerCu;
      p.VGPRSizePerCU = VgprSizePerCu(packed);
    }
    if (p.NumXcc == 0) p.NumXcc = 1;  // kernels before num_xcc
  }
  *out = p;
  return Status::Ok();
}

Status Snapshot::FillMemoryProperties(uint32_t user_node, uint32_t count, HsaMemoryProperties* out,
                                      uint32_t* out_filled) const {
  if (out == nullptr || out_filled == nullptr) return InvalidArgument();
  if (!valid_) return FailedPrecondition();
  const NodeRecord* r = node(user_node);
  if (r == nullptr) return OutOfRange();
  const uint32_t n = count < r->num_mem_banks ? count : r->num_mem_banks;
  for (uint32_t i = 0; i < count; ++i) {
    HsaMemoryProperties m;
    std::memset(&m, 0, sizeof(m));
    if (i < n) {
      const MemBankRecord& b = *mem_bank(user_node, i);
      m.HeapType = static_cast<HSA_HEAPTYPE>(b.heap_type);
      m.SizeInBytes = b.size_in_bytes;
      m.Flags.MemoryProperty = b.flags;
      m.Width = b.width;
      m.MemoryClockMax = b.mem_clk_max;
    }
    out[i] = m;
  }
  *out_filled = n;
  return Status::Ok();
}

Status Snapshot::FillCacheProperties(uint32_t user_node, uint32_t count,
                                     HsaCacheProperties* out) const {
  if (out == nullptr) return InvalidArgument();
  if (!valid_) return FailedPrecondition();
  const NodeRecord* r = node(user_node);
  if (r == nullptr) return OutOfRange();
  if (count > r->num_caches) return InvalidArgument();
  for (uint32_t i = 0; i < count; ++i) {
    const CacheRecord& c = *cache(user_node, i);
    HsaCacheProperties& o = out[i];
    std::memset(&o, 0, sizeof(o));
    o.ProcessorIdLow = c.v[kProcessorIdLow];
    o.CacheLevel = c.v[kLevel];
    o.CacheSize = c.v[kCacheSize];
    o.CacheLineSize = c.v[kCacheLineSize];
    o.CacheLinesPerTag = c.v[kCacheLinesPerTag];
    o.CacheAssociativity = c.v[kAssociation];
    o.CacheLatency = c.v[kLatency];
    o.CacheType.Value = c.v[kCacheType];
    for (uint32_t b = 0; b < kSiblingBits && b < HSA_CPU_SIBLINGS; ++b) {
      o.SiblingMap[b] = (c.siblings[b / 32] >> (b % 32)) & 1u;
    }
  }
  return Status::Ok();
}

Status Snapshot::FillIoLinkProperties(uint32_t user_node, uint32_t count,
                                      HsaIoLinkProperties* out) const {
  if (out == nullptr) return InvalidArgument();
  if (!valid_) return FailedPrecondition();
  const NodeRecord* r = node(user_node);
  if (r == nullptr) return OutOfRange();
  if (count > r->num_links) return InvalidArgument();
  for (uint32_t i = 0; i < count; ++i) {
    const LinkRecord& l = *link(user_node, i);
    HsaIoLinkProperties p;
    std::memset(&p, 0, sizeof(p));
    p.IoLinkType = static_cast<HSA_IOLINKTYPE>(l.v[kLinkType]);
    p.VersionMajor = l.v[kVersionMajor];
    p.VersionMinor = l.v[kVersionMinor];
    p.NodeFrom = l.v[kNodeFrom];
    p.NodeTo = l.v[kNodeTo];
    p.Weight = l.v[kWeight];
    p.MinimumLatency = l.v[kMinLatency];
    p.MaximumLatency = l.v[kMaxLatency];
    p.MinimumBandwidth = l.v[kMinBandwidth];
    p.MaximumBandwidth = l.v[kMaxBandwidth];
    p.RecTransferSize = l.v[kRecTransferSize];
    p.RecSdmaEngIdMask = l.v[kRecSdmaEngIdMask];
    p.Flags.LinkProperty = l.v[kLinkFlags];
    out[i] = p;
  }
  return Status::Ok();
}

}  // namespace hke::topology
