// Version, aperture, memory, mmap-offset and tile-config codecs.
#include "lib/core/checked.h"
#include "lib/kfd/encode.h"
#include "lib/kfd/encode_internal.h"

namespace hke::kfd {

using internal::ArrayFits;
using internal::IsAligned;
using internal::PopCount;
using internal::RangeFits;

// ---------------------------------------------------------------------------
// GET_VERSION
// ---------------------------------------------------------------------------

Status DecodeGetVersion(const GetVersionArgs& reply, KfdVersion* out) {
  if (out == nullptr) return InvalidArgument();
  if (reply.major_version != kKfdMajorVersion) return Status::Api(HKE_STATUS_VERSION_MISMATCH);
  *out = KfdVersion{reply.major_version, reply.minor_version};
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// GET_PROCESS_APERTURES_NEW
// ---------------------------------------------------------------------------

Status EncodeGetProcessAperturesNew(uint64_t buffer, uint32_t capacity,
                                    GetProcessAperturesNewArgs* out) {
  if (out == nullptr) return InvalidArgument();
  if (capacity > kMaxApertureNodes) return OutOfRange();
  if ((capacity == 0) != (buffer == 0)) return InvalidArgument();
  if (!ArrayFits(buffer, capacity, sizeof(ProcessDeviceApertures))) return Overflow();
  GetProcessAperturesNewArgs a{};
  a.kfd_process_device_apertures_ptr = buffer;
  a.num_of_nodes = capacity;
  *out = a;
  return Status::Ok();
}

Status DecodeApertureCount(const GetProcessAperturesNewArgs& reply, uint32_t max_nodes,
                           uint32_t* out_count) {
  if (out_count == nullptr) return InvalidArgument();
  if (reply.num_of_nodes == 0 || reply.num_of_nodes > max_nodes ||
      reply.num_of_nodes > kMaxApertureNodes) {
    return Protocol();
  }
  *out_count = reply.num_of_nodes;
  return Status::Ok();
}

namespace {

bool Absent(const AddressRange& r) { return r.base == 0 && r.limit == 0; }

bool Overlap(const AddressRange& a, const AddressRange& b) {
  if (Absent(a) || Absent(b)) return false;
  return a.base <= b.limit && b.base <= a.limit;
}

// LDS and scratch: absent, or a window of at most 4 GiB starting on a
// 4 GiB boundary.
bool ValidPrivateAperture(const AddressRange& r) {
  if (Absent(r)) return true;
  if (r.limit < r.base) return false;
  if (!IsAligned(r.base, kPrivateApertureMaxSpan)) return false;
  return r.limit - r.base < kPrivateApertureMaxSpan;
}

// GPUVM: absent, or page-granular (base aligned, limit ends a page) and
// inside the 57-bit GPU address space.
bool ValidGpuvmAperture(const AddressRange& r) {
  if (Absent(r)) return true;
  if (r.limit < r.base) return false;
  if (r.limit >= kMaxGpuVaExclusive) return false;
  return IsAligned(r.base, kDefaultPageSize) && IsAligned(r.limit + 1, kDefaultPageSize);
}

}  // namespace

Status DecodeGetProcessAperturesNew(const GetProcessAperturesNewArgs& sent,
                                    const GetProcessAperturesNewArgs& reply,
                                    const ProcessDeviceApertures* entries, NodeApertures* out,
                                    uint32_t out_capacity, uint32_t* out_count) {
  if (out_count == nullptr || (sent.num_of_nodes > 0 && entries == nullptr)) {
    return InvalidArgument();
  }
  if (sent.num_of_nodes > kMaxApertureNodes) return InvalidArgument();
  if (reply.kfd_process_device_apertures_ptr != sent.kfd_process_device_apertures_ptr) {
    return Protocol();
  }
  const uint32_t n = reply.num_of_nodes;
  if (n > sent.num_of_nodes) return Protocol();
  if (n > out_capacity) return BufferTooSmall();
  if (n > 0 && out == nullptr) return InvalidArgument();

  // Validate everything before writing anything.
  for (uint32_t i = 0; i < n; ++i) {
    const ProcessDeviceApertures& e = entries[i];
    if (e.gpu_id == 0) return Protocol();
    for (uint32_t j = 0; j < i; ++j) {
      if (entries[j].gpu_id == e.gpu_id) return Protocol();
    }
    const AddressRange lds{e.lds_base, e.lds_limit};
    const AddressRange scratch{e.scratch_base, e.scratch_limit};
    const AddressRange gpuvm{e.gpuvm_base, e.gpuvm_limit};
    if (!ValidPrivateAperture(lds) || !ValidPrivateAperture(scratch) ||
        !ValidGpuvmAperture(gpuvm)) {
      return Protocol();
    }
    if (Overlap(lds, scratch) || Overlap(lds, gpuvm) || Overlap(scratch, gpuvm)) {
      return Protocol();
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    const ProcessDeviceApertures& e = entries[i];
    out[i] = NodeApertures{e.gpu_id,
                           {e.lds_base, e.lds_limit},
                           {e.scratch_base, e.scratch_limit},
                           {e.gpuvm_base, e.gpuvm_limit}};
  }
  *out_count = n;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// ALLOC / FREE / MAP / UNMAP / AVAILABLE_MEMORY
// ---------------------------------------------------------------------------

Status EncodeAllocMemoryOfGpu(const AllocRequest& req, AllocMemoryOfGpuArgs* out) {
  if (out == nullptr) return InvalidArgument();
  if (!ValidPageSize(req.page_size)) return InvalidArgument();
  if (req.gpu_id == 0) return InvalidArgument();
  if (req.size == 0 || !IsAligned(req.size, req.page_size)) return InvalidArgument();
  if (!IsAligned(req.va_addr, req.page_size)) return InvalidArgument();
  if (!RangeFits(req.va_addr, req.size)) return Overflow();
  if ((req.flags & ~kAllocMemKnownMask) != 0) return InvalidArgument();
  const uint32_t domain = req.flags & kAllocMemDomainMask;
  if (PopCount(domain) != 1) return InvalidArgument();
  if (domain == kAllocMemUserptr) {
    if (req.userptr == 0 || !IsAligned(req.userptr, req.page_size)) return InvalidArgument();
    if (!RangeFits(req.userptr, req.size)) return Overflow();
  } else if (req.userptr != 0) {
    return InvalidArgument();
  }
  if (domain == kAllocMemMmioRemap &&
      (req.size != kDefaultPageSize || req.page_size != kDefaultPageSize)) {
    return InvalidArgument();
  }
  if ((req.flags & kAllocMemContiguous) != 0 && domain != kAllocMemVram) {
    return InvalidArgument();
  }
  AllocMemoryOfGpuArgs a{};
  a.va_addr = req.va_addr;
  a.size = req.size;
  a.mmap_offset = req.userptr;
  a.gpu_id = req.gpu_id;
  a.flags = req.flags;
  *out = a;
  return Status::Ok();
}

Status DecodeAllocMemoryOfGpu(const AllocMemoryOfGpuArgs& sent, const AllocMemoryOfGpuArgs& reply,
                              AllocResult* out) {
  if (out == nullptr) return InvalidArgument();
  if (sent.gpu_id == 0) return InvalidArgument();
  if (HandleGpuId(reply.handle) != sent.gpu_id) return Protocol();
  if ((sent.flags & kAllocMemMmioRemap) != 0) {
    MmapOffset m{};
    if (!DecodeMmapOffset(reply.mmap_offset, &m).ok()) return Protocol();
    if (m.type != kMmapTypeMmio || m.gpu_id != (sent.gpu_id & 0xFFFFu)) return Protocol();
  } else if (!IsAligned(reply.mmap_offset, kDefaultPageSize)) {
    return Protocol();
  }
  *out = AllocResult{reply.handle, reply.mmap_offset};
  return Status::Ok();
}

Status EncodeFreeMemoryOfGpu(uint64_t handle, FreeMemoryOfGpuArgs* out) {
  if (out == nullptr) return InvalidArgument();
  if (HandleGpuId(handle) == 0) return InvalidArgument();
  *out = FreeMemoryOfGpuArgs{handle};
  return Status::Ok();
}

namespace {

template <typename Args>
Status EncodeMapLike(const MapRequest& req, Args* out) {
  if (out == nullptr) return InvalidArgument();
  if (req.handle == 0 || req.device_ids == 0) return InvalidArgument();
  if (req.n_devices == 0 || req.n_devices > kMaxMapDevices) return InvalidArgument();
  if (req.already_done > req.n_devices) return InvalidArgument();
  if (!ArrayFits(req.device_ids, req.n_devices, sizeof(uint32_t))) return Overflow();
  Args a{};
  a.handle = req.handle;
  a.device_ids_array_ptr = req.device_ids;
  a.n_devices = req.n_devices;
  a.n_success = req.already_done;
  *out = a;
  return Status::Ok();
}

template <typename Args>
Status DecodeMapLike(const Args& sent, const Args& reply, bool call_succeeded,
                     uint32_t* out_done) {
  if (out_done == nullptr) return InvalidArgument();
  if (sent.n_devices == 0 || sent.n_success > sent.n_devices) return InvalidArgument();
  if (reply.handle != sent.handle || reply.n_devices != sent.n_devices ||
      reply.device_ids_array_ptr != sent.device_ids_array_ptr) {
    return Protocol();
  }
  if (reply.n_success < sent.n_success || reply.n_success > sent.n_devices) return Protocol();
  if (call_succeeded && reply.n_success != sent.n_devices) return Protocol();
  *out_done = reply.n_success;
  return Status::Ok();
}

}  // namespace

Status EncodeMapMemoryToGpu(const MapRequest& req, MapMemoryToGpuArgs* out) {
  return EncodeMapLike(req, out);
}

Status EncodeUnmapMemoryFromGpu(const MapRequest& req, UnmapMemoryFromGpuArgs* out) {
  return EncodeMapLike(req, out);
}

Status DecodeMapProgress(const MapMemoryToGpuArgs& sent, const MapMemoryToGpuArgs& reply,
                         bool call_succeeded, uint32_t* out_done) {
  return DecodeMapLike(sent, reply, call_succeeded, out_done);
}

Status DecodeUnmapProgress(const UnmapMemoryFromGpuArgs& sent,
                           const UnmapMemoryFromGpuArgs& reply, bool call_succeeded,
                           uint32_t* out_done) {
  return DecodeMapLike(sent, reply, call_succeeded, out_done);
}

Status EncodeAvailableMemory(uint32_t gpu_id, GetAvailableMemoryArgs* out) {
  if (out == nullptr || gpu_id == 0) return InvalidArgument();
  GetAvailableMemoryArgs a{};
  a.gpu_id = gpu_id;
  *out = a;
  return Status::Ok();
}

Status DecodeAvailableMemory(const GetAvailableMemoryArgs& sent,
                             const GetAvailableMemoryArgs& reply, uint64_t* out_bytes) {
  if (out_bytes == nullptr) return InvalidArgument();
  if (reply.gpu_id != sent.gpu_id) return Protocol();
  *out_bytes = reply.available;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// mmap offsets
// ---------------------------------------------------------------------------

namespace {

bool MmapFieldsValid(const MmapOffset& m) {
  if (m.type > kMmapTypeDoorbell) return false;
  if (m.gpu_id >= (1u << kMmapGpuIdBits)) return false;
  if (m.value > kMmapValueMask) return false;
  if (m.type == kMmapTypeEvents && (m.gpu_id != 0 || m.value != 0)) return false;
  if (m.type == kMmapTypeMmio && m.value != 0) return false;
  return true;
}

}  // namespace

Status EncodeMmapOffset(const MmapOffset& in, uint64_t* out) {
  if (out == nullptr || !MmapFieldsValid(in)) return InvalidArgument();
  *out = (uint64_t{in.type} << kMmapTypeShift) | (uint64_t{in.gpu_id} << kMmapGpuIdShift) |
         in.value;
  return Status::Ok();
}

Status DecodeMmapOffset(uint64_t offset, MmapOffset* out) {
  if (out == nullptr) return InvalidArgument();
  MmapOffset m{};
  m.type = static_cast<uint32_t>(offset >> kMmapTypeShift);
  m.gpu_id = static_cast<uint32_t>((offset & kMmapGpuIdMask) >> kMmapGpuIdShift);
  m.value = offset & kMmapValueMask;
  if (!MmapFieldsValid(m)) return Protocol();
  *out = m;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// GET_TILE_CONFIG
// ---------------------------------------------------------------------------

// Tile tables are small (a few dozen registers); anything larger is a bug.
constexpr uint32_t kMaxTileConfigs = 4096;

Status EncodeGetTileConfig(const TileConfigRequest& req, GetTileConfigArgs* out) {
  if (out == nullptr || req.gpu_id == 0) return InvalidArgument();
  if (req.tile_capacity > kMaxTileConfigs || req.macro_capacity > kMaxTileConfigs) {
    return OutOfRange();
  }
  if ((req.tile_capacity == 0) != (req.tile_config == 0)) return InvalidArgument();
  if ((req.macro_capacity == 0) != (req.macro_tile_config == 0)) return InvalidArgument();
  if (!ArrayFits(req.tile_config, req.tile_capacity, sizeof(uint32_t)) ||
      !ArrayFits(req.macro_tile_config, req.macro_capacity, sizeof(uint32_t))) {
    return Overflow();
  }
  GetTileConfigArgs a{};
  a.tile_config_ptr = req.tile_config;
  a.macro_tile_config_ptr = req.macro_tile_config;
  a.num_tile_configs = req.tile_capacity;
  a.num_macro_tile_configs = req.macro_capacity;
  a.gpu_id = req.gpu_id;
  *out = a;
  return Status::Ok();
}

Status DecodeGetTileConfig(const GetTileConfigArgs& sent, const GetTileConfigArgs& reply,
                           TileConfigResult* out) {
  if (out == nullptr) return InvalidArgument();
  if (reply.gpu_id != sent.gpu_id || reply.tile_config_ptr != sent.tile_config_ptr ||
      reply.macro_tile_config_ptr != sent.macro_tile_config_ptr) {
    return Protocol();
  }
  if (reply.num_tile_configs > sent.num_tile_configs ||
      reply.num_macro_tile_configs > sent.num_macro_tile_configs) {
    return Protocol();
  }
  *out = TileConfigResult{reply.num_tile_configs, reply.num_macro_tile_configs,
                          reply.gb_addr_config, reply.num_banks, reply.num_ranks};
  return Status::Ok();
}

}  // namespace hke::kfd
