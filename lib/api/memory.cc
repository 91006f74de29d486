// The memory entry points of hsakmt.h on the default context
// (lib/memory/memory.h has the semantics).
//
// Status rules: a NULL output is INVALID_PARAMETER before anything else;
// then the open check (KERNEL_IO_CHANNEL_NOT_OPENED); the core's statuses
// map through lib/api/status_map.cc (NOT_FOUND -> INVALID_PARAMETER,
// ALREADY_EXISTS -> MEMORY_ALREADY_REGISTERED, INVALID_NODE ->
// INVALID_NODE_UNIT), except where upstream answers an unknown address
// differently: Unmap and SetMemoryUserData say ERROR, Deregister
// MEMORY_NOT_REGISTERED, and QueryPointerInfo fills the structure with
// HSA_POINTER_UNKNOWN and returns ERROR.
#include "hsakmt/hsakmt.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/memory/memory.h"

using hke::api::Default;
using hke::api::Addr;
using hke::api::kNoContext;

namespace {

// An address the library does not know is reported per call as upstream
// does: `unknown` for NOT_FOUND, the usual mapping otherwise.
HSAKMT_STATUS Unknown(hke::Status s, HSAKMT_STATUS unknown) {
  return s.is_api(HKE_STATUS_NOT_FOUND) ? unknown : hke::api::ToHsakmt(s);
}

HSAKMT_STATUS Alloc(HSAuint32 node, HSAuint64 size, HSAuint64 align, HsaMemFlags flags,
                    void** address) {
  if (address == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  hke::memory::AllocArgs a{};
  a.node = node;
  a.size = size;
  a.align = align;
  a.flags = flags.Value;
  a.address = flags.ui32.FixedAddress ? Addr(*address) : 0;
  uint64_t va = 0;
  const hke::Status s = hke::memory::Alloc(*ctx, a, &va);
  // No room for the VA (taken fixed address, no free range) is upstream's
  // NO_MEMORY, like a failed BO allocation.
  if (s.is_api(HKE_STATUS_ALREADY_EXISTS) || s.is_api(HKE_STATUS_UNAVAILABLE)) {
    return HSAKMT_STATUS_NO_MEMORY;
  }
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *address = reinterpret_cast<void*>(static_cast<uintptr_t>(va));
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS Register(void* address, HSAuint64 size, const HSAuint32* nodes, HSAuint64 n,
                       bool has_flags, HsaMemFlags flags) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  if (n > 0xffffffffu) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::memory::RegisterArgs a{};
  a.addr = Addr(address);
  a.size = size;
  a.nodes = nodes;
  a.num_nodes = static_cast<uint32_t>(n);
  a.has_flags = has_flags;
  a.flags = flags.Value;
  return hke::api::ToHsakmt(hke::memory::Register(*ctx, a));
}

}  // namespace

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                                          HsaMemFlags MemFlags, void** MemoryAddress) {
  return Alloc(PreferredNode, SizeInBytes, 0, MemFlags, MemoryAddress);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemoryAlign(HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                                               HSAuint64 Alignment, HsaMemFlags MemFlags,
                                               void** MemoryAddress) {
  return Alloc(PreferredNode, SizeInBytes, Alignment, MemFlags, MemoryAddress);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void* MemoryAddress, HSAuint64 /*SizeInBytes*/) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  return hke::api::ToHsakmt(hke::memory::Free(*ctx, Addr(MemoryAddress)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAvailableMemory(HSAuint32 Node, HSAuint64* AvailableBytes) {
  if (AvailableBytes == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  uint64_t bytes = 0;
  const hke::Status s = hke::memory::Available(*ctx, Node, &bytes);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *AvailableBytes = bytes;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemory(void* MemoryAddress, HSAuint64 MemorySizeInBytes) {
  return Register(MemoryAddress, MemorySizeInBytes, nullptr, 0, false, HsaMemFlags{});
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryToNodes(void* MemoryAddress,
                                                    HSAuint64 MemorySizeInBytes,
                                                    HSAuint64 NumberOfNodes,
                                                    HSAuint32* NodeArray) {
  if (NodeArray == nullptr || NumberOfNodes == 0) return HSAKMT_STATUS_INVALID_PARAMETER;
  return Register(MemoryAddress, MemorySizeInBytes, NodeArray, NumberOfNodes, false,
                  HsaMemFlags{});
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlags(void* MemoryAddress,
                                                      HSAuint64 MemorySizeInBytes,
                                                      HsaMemFlags MemFlags) {
  return Register(MemoryAddress, MemorySizeInBytes, nullptr, 0, true, MemFlags);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void* MemoryAddress) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return Unknown(hke::memory::Deregister(*ctx, Addr(MemoryAddress)),
                 HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                             HSAuint64* AlternateVAGPU) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  uint64_t alt = 0;
  const hke::Status s =
      hke::memory::Map(*ctx, Addr(MemoryAddress), MemorySizeInBytes, nullptr, 0, &alt);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  if (AlternateVAGPU != nullptr) *AlternateVAGPU = alt;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void* MemoryAddress,
                                                  HSAuint64 MemorySizeInBytes,
                                                  HSAuint64* AlternateVAGPU,
                                                  HsaMemMapFlags /*MemMapFlags*/,
                                                  HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  if (MemoryAddress == nullptr || NodeArray == nullptr || NumberOfNodes == 0 ||
      NumberOfNodes > 0xffffffffu) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  uint64_t alt = 0;
  const hke::Status s =
      hke::memory::Map(*ctx, Addr(MemoryAddress), MemorySizeInBytes, NodeArray,
                       static_cast<uint32_t>(NumberOfNodes), &alt);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  if (AlternateVAGPU != nullptr) *AlternateVAGPU = alt;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void* MemoryAddress) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return Unknown(hke::memory::Unmap(*ctx, Addr(MemoryAddress)), HSAKMT_STATUS_ERROR);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapGraphicHandle(HSAuint32 /*NodeId*/,
                                                 HSAuint64 FlatMemoryAddress,
                                                 HSAuint64 /*SizeInBytes*/) {
  return hsaKmtUnmapMemoryToGPU(reinterpret_cast<void*>(static_cast<uintptr_t>(FlatMemoryAddress)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void* Pointer, HsaPointerInfo* PointerInfo) {
  if (PointerInfo == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  HsaPointerInfo info{};
  const hke::Status s = hke::memory::QueryPointer(*ctx, Addr(Pointer), &info);
  if (s.is_api(HKE_STATUS_NOT_FOUND)) {
    // Upstream's answer for an unknown pointer.
    *PointerInfo = HsaPointerInfo{};
    PointerInfo->Type = HSA_POINTER_UNKNOWN;
    return HSAKMT_STATUS_ERROR;
  }
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *PointerInfo = info;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserData(const void* Pointer, void* UserData) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return Unknown(hke::memory::SetUserData(*ctx, Addr(Pointer), Addr(UserData)),
                 HSAKMT_STATUS_ERROR);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSVMSetAttr(void* start_addr, HSAuint64 size, unsigned int nattr,
                                         HSA_SVM_ATTRIBUTE* attrs) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return hke::api::ToHsakmt(hke::memory::SvmSetAttr(*ctx, Addr(start_addr), size, nattr, attrs));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSVMGetAttr(void* start_addr, HSAuint64 size, unsigned int nattr,
                                         HSA_SVM_ATTRIBUTE* attrs) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return hke::api::ToHsakmt(hke::memory::SvmGetAttr(*ctx, Addr(start_addr), size, nattr, attrs));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetXNACKMode(HSAint32 enable) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return hke::api::ToHsakmt(hke::memory::SetXnack(*ctx, enable));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetXNACKMode(HSAint32* enable) {
  if (enable == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  int32_t v = 0;
  const hke::Status s = hke::memory::GetXnack(*ctx, &v);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *enable = v;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtExportDMABufHandle(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                                 int* DMABufFd, HSAuint64* Offset) {
  if (DMABufFd == nullptr || Offset == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  int fd = -1;
  uint64_t off = 0;
  const hke::Status s =
      hke::memory::ExportDmabuf(*ctx, Addr(MemoryAddress), MemorySizeInBytes, 0, &fd, &off);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *DMABufFd = fd;
  *Offset = off;
  return HSAKMT_STATUS_SUCCESS;
}

hke_status_t hke_memory_stats_get(hke_context* context, hke_memory_stats* out) {
  if (context == nullptr || !context->impl.valid() || out == nullptr ||
      out->struct_size != sizeof(hke_memory_stats)) {
    return hke::InvalidArgument().raw();
  }
  hke::memory::Stats st{};
  const hke::Status s = hke::memory::GetStats(context->impl, &st);
  if (!s.ok()) return s.raw();
  hke_memory_stats r{};
  r.struct_size = sizeof(r);
  r.live_objects = st.live_objects;
  r.object_capacity = st.object_capacity;
  r.range_nodes_used = st.range_nodes_used;
  r.range_nodes_capacity = st.range_nodes_capacity;
  r.handle_aperture_free = st.handle_free_bytes;
  *out = r;
  return HKE_OK;
}

hke_status_t hke_memory_check(hke_context* context) {
  if (context == nullptr || !context->impl.valid()) return hke::InvalidArgument().raw();
  return hke::memory::CheckInvariants(context->impl).raw();
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodesExt(
    HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo* GraphicsResourceInfo,
    HSAuint64 NumberOfNodes, HSAuint32* NodeArray, HSA_REGISTER_MEM_FLAGS RegisterFlags) {
  if (GraphicsResourceInfo == nullptr || NumberOfNodes > 0xffffffffu ||
      (NodeArray == nullptr && NumberOfNodes != 0)) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  hke::memory::GraphicsArgs a{};
  a.dmabuf_fd = GraphicsResourceHandle;
  a.nodes = NumberOfNodes != 0 ? NodeArray : nullptr;
  a.num_nodes = static_cast<uint32_t>(NumberOfNodes);
  a.requires_va = RegisterFlags.ui32.requiresVAddr != 0;
  HsaGraphicsResourceInfo info{};
  const hke::Status s = hke::memory::RegisterGraphics(*ctx, a, &info);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *GraphicsResourceInfo = info;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodes(
    HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo* GraphicsResourceInfo,
    HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  HSA_REGISTER_MEM_FLAGS flags;
  flags.Value = 0;
  return hsaKmtRegisterGraphicsHandleToNodesExt(GraphicsResourceHandle, GraphicsResourceInfo,
                                                NumberOfNodes, NodeArray, flags);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtShareMemory(void* MemoryAddress, HSAuint64 SizeInBytes,
                                          HsaSharedMemoryHandle* SharedMemoryHandle) {
  if (SharedMemoryHandle == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  HsaSharedMemoryHandle h;
  const hke::Status s = hke::memory::ShareMemory(*ctx, Addr(MemoryAddress), SizeInBytes, &h);
  // A kernel without the DKMS IPC ioctls (ENOTTY), like every other kernel
  // failure here, is upstream's ERROR.
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_ERROR;
  if (!s.ok()) return Unknown(s, HSAKMT_STATUS_INVALID_PARAMETER);
  for (int i = 0; i < 8; ++i) (*SharedMemoryHandle)[i] = h[i];
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleToNodes(
    const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress, HSAuint64* SizeInBytes,
    HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  if (SharedMemoryHandle == nullptr || MemoryAddress == nullptr || SizeInBytes == nullptr ||
      NumberOfNodes > 0xffffffffu || (NodeArray == nullptr && NumberOfNodes != 0)) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  uint64_t addr = 0, size = 0;
  const hke::Status s = hke::memory::RegisterShared(
      *ctx, SharedMemoryHandle, NumberOfNodes != 0 ? NodeArray : nullptr,
      static_cast<uint32_t>(NumberOfNodes), &addr, &size);
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_ERROR;
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *MemoryAddress = reinterpret_cast<void*>(static_cast<uintptr_t>(addr));
  *SizeInBytes = size;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandle(const HsaSharedMemoryHandle* SharedMemoryHandle,
                                                   void** MemoryAddress, HSAuint64* SizeInBytes) {
  return hsaKmtRegisterSharedHandleToNodes(SharedMemoryHandle, MemoryAddress, SizeInBytes, 0,
                                           nullptr);
}

// ASAN header-page swapping needs a library built for ASAN (upstream too).
HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPage(void*) { return HSAKMT_STATUS_NOT_SUPPORTED; }
HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPage(void*) { return HSAKMT_STATUS_NOT_SUPPORTED; }

}  // extern "C"
