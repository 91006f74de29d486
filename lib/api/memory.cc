// The memory entry points of hsakmt.h, on the default context, and their
// hsakmtctx.h twins (hsaKmt<Name>Ctx), on the given context: one body per
// call, taking the context (lib/memory/memory.h has the semantics). Also
// hke_memory_stats_get and hke_memory_check (hsakmt_embedded.h).
//
// A Ctx call on a NULL or dead context is INVALID_PARAMETER before
// anything else; after that it checks what the plain call checks, in the
// same order.
//
// Status rules: a NULL output is INVALID_PARAMETER before anything else;
// then the open check (KERNEL_IO_CHANNEL_NOT_OPENED), before any input is
// looked at (a NULL address included); the core's statuses map through
// lib/api/status_map.cc (NOT_FOUND -> INVALID_PARAMETER, ALREADY_EXISTS ->
// MEMORY_ALREADY_REGISTERED, INVALID_NODE -> INVALID_NODE_UNIT,
// INVALID_HANDLE -> INVALID_HANDLE: an address of a buffer the library
// owns), except where upstream answers an unknown address differently:
// Unmap and SetMemoryUserData say ERROR, Deregister MEMORY_NOT_REGISTERED,
// and QueryPointerInfo fills the structure with HSA_POINTER_UNKNOWN and
// returns ERROR; SetXNACKMode refused because queues exist (EBUSY) is
// ERROR.
#include "lib/memory/memory.h"

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/device/kfd_device.h"

namespace hke::api {
namespace {

// An address the library does not know is reported per call as upstream
// does: `unknown` for NOT_FOUND, the usual mapping otherwise.
HSAKMT_STATUS Unknown(Status s, HSAKMT_STATUS unknown) {
  return s.is_api(HKE_STATUS_NOT_FOUND) ? unknown : ToHsakmt(s);
}

// The open check of a call whose inputs the API layer looks at itself.
HSAKMT_STATUS OpenCheck(Context& ctx) { return ToHsakmt(device::CheckOpen(ctx)); }

// The bodies: `ctx` is the context the call runs on; the required
// arguments (the list's last column) are checked.

HSAKMT_STATUS Alloc(Context& ctx, HSAuint32 node, HSAuint64 size, HSAuint64 align,
                    HsaMemFlags flags, void** address) {
  memory::AllocArgs a{};
  a.node = node;
  a.size = size;
  a.align = align;
  a.flags = flags.Value;
  a.address = flags.ui32.FixedAddress ? Addr(*address) : 0;
  uint64_t va = 0;
  const Status s = memory::Alloc(ctx, a, &va);
  // No room for the VA (taken fixed address, no free range) is upstream's
  // NO_MEMORY, like a failed BO allocation.
  if (s.is_api(HKE_STATUS_ALREADY_EXISTS) || s.is_api(HKE_STATUS_UNAVAILABLE)) {
    return HSAKMT_STATUS_NO_MEMORY;
  }
  if (!s.ok()) return ToHsakmt(s);
  *address = reinterpret_cast<void*>(static_cast<uintptr_t>(va));
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS AllocMemory(Context& ctx, HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                          HsaMemFlags MemFlags, void** MemoryAddress) {
  return Alloc(ctx, PreferredNode, SizeInBytes, 0, MemFlags, MemoryAddress);
}

HSAKMT_STATUS AllocMemoryAlign(Context& ctx, HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                               HSAuint64 Alignment, HsaMemFlags MemFlags, void** MemoryAddress) {
  return Alloc(ctx, PreferredNode, SizeInBytes, Alignment, MemFlags, MemoryAddress);
}

HSAKMT_STATUS FreeMemory(Context& ctx, void* MemoryAddress, HSAuint64 /*SizeInBytes*/) {
  if (const HSAKMT_STATUS open = OpenCheck(ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  return ToHsakmt(memory::Free(ctx, Addr(MemoryAddress)));
}

HSAKMT_STATUS AvailableMemory(Context& ctx, HSAuint32 Node, HSAuint64* AvailableBytes) {
  uint64_t bytes = 0;
  const Status s = memory::Available(ctx, Node, &bytes);
  if (!s.ok()) return ToHsakmt(s);
  *AvailableBytes = bytes;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS Register(Context& ctx, void* address, HSAuint64 size, const HSAuint32* nodes,
                       HSAuint64 n, bool has_flags, HsaMemFlags flags) {
  if (const HSAKMT_STATUS open = OpenCheck(ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (n > 0xffffffffu) return HSAKMT_STATUS_INVALID_PARAMETER;
  memory::RegisterArgs a{};
  a.addr = Addr(address);
  a.size = size;
  a.nodes = nodes;
  a.num_nodes = static_cast<uint32_t>(n);
  a.has_flags = has_flags;
  a.flags = flags.Value;
  return ToHsakmt(memory::Register(ctx, a));
}

HSAKMT_STATUS RegisterMemory(Context& ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes) {
  return Register(ctx, MemoryAddress, MemorySizeInBytes, nullptr, 0, false, HsaMemFlags{});
}

HSAKMT_STATUS RegisterMemoryToNodes(Context& ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                    HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  if (NodeArray == nullptr || NumberOfNodes == 0) {
    if (const HSAKMT_STATUS open = OpenCheck(ctx); open != HSAKMT_STATUS_SUCCESS) return open;
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  return Register(ctx, MemoryAddress, MemorySizeInBytes, NodeArray, NumberOfNodes, false,
                  HsaMemFlags{});
}

HSAKMT_STATUS RegisterMemoryWithFlags(Context& ctx, void* MemoryAddress,
                                      HSAuint64 MemorySizeInBytes, HsaMemFlags MemFlags) {
  return Register(ctx, MemoryAddress, MemorySizeInBytes, nullptr, 0, true, MemFlags);
}

HSAKMT_STATUS DeregisterMemory(Context& ctx, void* MemoryAddress) {
  return Unknown(memory::Deregister(ctx, Addr(MemoryAddress)), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}

HSAKMT_STATUS MapMemoryToGpu(Context& ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                             HSAuint64* AlternateVAGPU) {
  if (const HSAKMT_STATUS open = OpenCheck(ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  uint64_t alt = 0;
  const Status s = memory::Map(ctx, Addr(MemoryAddress), MemorySizeInBytes, nullptr, 0, &alt);
  if (!s.ok()) return ToHsakmt(s);
  if (AlternateVAGPU != nullptr) *AlternateVAGPU = alt;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS MapMemoryToGpuNodes(Context& ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                  HSAuint64* AlternateVAGPU, HsaMemMapFlags /*MemMapFlags*/,
                                  HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  if (const HSAKMT_STATUS open = OpenCheck(ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (MemoryAddress == nullptr || NodeArray == nullptr || NumberOfNodes == 0 ||
      NumberOfNodes > 0xffffffffu) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  uint64_t alt = 0;
  const Status s = memory::Map(ctx, Addr(MemoryAddress), MemorySizeInBytes, NodeArray,
                               static_cast<uint32_t>(NumberOfNodes), &alt);
  if (!s.ok()) return ToHsakmt(s);
  if (AlternateVAGPU != nullptr) *AlternateVAGPU = alt;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS UnmapMemoryToGpu(Context& ctx, void* MemoryAddress) {
  return Unknown(memory::Unmap(ctx, Addr(MemoryAddress)), HSAKMT_STATUS_ERROR);
}

// Upstream's definition: the open check, then UnmapMemoryToGPU of the address.
HSAKMT_STATUS UnmapGraphicHandle(Context& ctx, HSAuint32 /*NodeId*/, HSAuint64 FlatMemoryAddress,
                                 HSAuint64 /*SizeInBytes*/) {
  return UnmapMemoryToGpu(ctx, reinterpret_cast<void*>(static_cast<uintptr_t>(FlatMemoryAddress)));
}

HSAKMT_STATUS QueryPointerInfo(Context& ctx, const void* Pointer, HsaPointerInfo* PointerInfo) {
  // memory::QueryPointer writes *PointerInfo only on success.
  const Status s = memory::QueryPointer(ctx, Addr(Pointer), PointerInfo);
  if (s.is_api(HKE_STATUS_NOT_FOUND)) {
    // Upstream's answer for an unknown pointer.
    *PointerInfo = HsaPointerInfo{};
    PointerInfo->Type = HSA_POINTER_UNKNOWN;
    return HSAKMT_STATUS_ERROR;
  }
  return ToHsakmt(s);
}

HSAKMT_STATUS SetMemoryUserData(Context& ctx, const void* Pointer, void* UserData) {
  return Unknown(memory::SetUserData(ctx, Addr(Pointer), Addr(UserData)), HSAKMT_STATUS_ERROR);
}

HSAKMT_STATUS SvmSetAttr(Context& ctx, void* start_addr, HSAuint64 size, unsigned int nattr,
                         HSA_SVM_ATTRIBUTE* attrs) {
  return ToHsakmt(memory::SvmSetAttr(ctx, Addr(start_addr), size, nattr, attrs));
}

HSAKMT_STATUS SvmGetAttr(Context& ctx, void* start_addr, HSAuint64 size, unsigned int nattr,
                         HSA_SVM_ATTRIBUTE* attrs) {
  return ToHsakmt(memory::SvmGetAttr(ctx, Addr(start_addr), size, nattr, attrs));
}

HSAKMT_STATUS SetXnackMode(Context& ctx, HSAint32 enable) {
  const Status s = memory::SetXnack(ctx, enable);
  // The kernel refuses a change while the process has queues (EBUSY);
  // upstream answers ERROR there, and so do we (the diagnostic keeps EBUSY).
  if (s.is_errno(err::kEBUSY)) return HSAKMT_STATUS_ERROR;
  return ToHsakmt(s);
}

HSAKMT_STATUS GetXnackMode(Context& ctx, HSAint32* enable) {
  int32_t v = 0;
  const Status s = memory::GetXnack(ctx, &v);
  if (!s.ok()) return ToHsakmt(s);
  *enable = v;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS ExportDmaBufHandle(Context& ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                 int* DMABufFd, HSAuint64* Offset) {
  int fd = -1;
  uint64_t off = 0;
  const Status s = memory::ExportDmabuf(ctx, Addr(MemoryAddress), MemorySizeInBytes, 0, &fd, &off);
  if (!s.ok()) return ToHsakmt(s);
  *DMABufFd = fd;
  *Offset = off;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS RegisterGraphicsHandleToNodesExt(Context& ctx, HSAuint64 GraphicsResourceHandle,
                                               HsaGraphicsResourceInfo* GraphicsResourceInfo,
                                               HSAuint64 NumberOfNodes, HSAuint32* NodeArray,
                                               HSA_REGISTER_MEM_FLAGS RegisterFlags) {
  if (const HSAKMT_STATUS open = OpenCheck(ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (NumberOfNodes > 0xffffffffu || (NodeArray == nullptr && NumberOfNodes != 0)) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  memory::GraphicsArgs a{};
  a.dmabuf_fd = GraphicsResourceHandle;
  a.nodes = NumberOfNodes != 0 ? NodeArray : nullptr;
  a.num_nodes = static_cast<uint32_t>(NumberOfNodes);
  a.requires_va = RegisterFlags.ui32.requiresVAddr != 0;
  HsaGraphicsResourceInfo info{};
  const Status s = memory::RegisterGraphics(ctx, a, &info);
  if (!s.ok()) return ToHsakmt(s);
  *GraphicsResourceInfo = info;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS RegisterGraphicsHandleToNodes(Context& ctx, HSAuint64 GraphicsResourceHandle,
                                            HsaGraphicsResourceInfo* GraphicsResourceInfo,
                                            HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  HSA_REGISTER_MEM_FLAGS flags;
  flags.Value = 0;
  return RegisterGraphicsHandleToNodesExt(ctx, GraphicsResourceHandle, GraphicsResourceInfo,
                                          NumberOfNodes, NodeArray, flags);
}

HSAKMT_STATUS ShareMemory(Context& ctx, void* MemoryAddress, HSAuint64 SizeInBytes,
                          HsaSharedMemoryHandle* SharedMemoryHandle) {
  HsaSharedMemoryHandle h;
  const Status s = memory::ShareMemory(ctx, Addr(MemoryAddress), SizeInBytes, &h);
  // A kernel without the DKMS IPC ioctls (ENOTTY), like every other kernel
  // failure here, is upstream's ERROR.
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_ERROR;
  if (!s.ok()) return Unknown(s, HSAKMT_STATUS_INVALID_PARAMETER);
  for (int i = 0; i < 8; ++i) (*SharedMemoryHandle)[i] = h[i];
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS RegisterSharedHandleToNodes(Context& ctx,
                                          const HsaSharedMemoryHandle* SharedMemoryHandle,
                                          void** MemoryAddress, HSAuint64* SizeInBytes,
                                          HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  if (const HSAKMT_STATUS open = OpenCheck(ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (SharedMemoryHandle == nullptr || NumberOfNodes > 0xffffffffu ||
      (NodeArray == nullptr && NumberOfNodes != 0)) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  uint64_t addr = 0, size = 0;
  const Status s =
      memory::RegisterShared(ctx, SharedMemoryHandle, NumberOfNodes != 0 ? NodeArray : nullptr,
                             static_cast<uint32_t>(NumberOfNodes), &addr, &size);
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_ERROR;
  if (!s.ok()) return ToHsakmt(s);
  *MemoryAddress = reinterpret_cast<void*>(static_cast<uintptr_t>(addr));
  *SizeInBytes = size;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS RegisterSharedHandle(Context& ctx, const HsaSharedMemoryHandle* SharedMemoryHandle,
                                   void** MemoryAddress, HSAuint64* SizeInBytes) {
  return RegisterSharedHandleToNodes(ctx, SharedMemoryHandle, MemoryAddress, SizeInBytes, 0,
                                     nullptr);
}

// ASAN header-page swapping needs a library built for ASAN (upstream too):
// NOT_SUPPORTED whatever the context. The plain calls answer without one,
// so they neither need nor initialise the default context.
HSAKMT_STATUS AsanHeaderPage(Context&, void*) { return HSAKMT_STATUS_NOT_SUPPORTED; }

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_MEMORY_API(X)                                                                         \
  X(AllocMemory, AllocMemory,                                                                     \
    (HSAuint32 PreferredNode, HSAuint64 SizeInBytes, HsaMemFlags MemFlags, void** MemoryAddress), \
    (PreferredNode, SizeInBytes, MemFlags, MemoryAddress), Required(MemoryAddress))               \
  X(AllocMemoryAlign, AllocMemoryAlign,                                                           \
    (HSAuint32 PreferredNode, HSAuint64 SizeInBytes, HSAuint64 Alignment, HsaMemFlags MemFlags,   \
     void** MemoryAddress),                                                                       \
    (PreferredNode, SizeInBytes, Alignment, MemFlags, MemoryAddress), Required(MemoryAddress))    \
  X(FreeMemory, FreeMemory, (void* MemoryAddress, HSAuint64 SizeInBytes),                         \
    (MemoryAddress, SizeInBytes), Required())                                                     \
  X(AvailableMemory, AvailableMemory, (HSAuint32 Node, HSAuint64 * AvailableBytes),               \
    (Node, AvailableBytes), Required(AvailableBytes))                                             \
  X(RegisterMemory, RegisterMemory, (void* MemoryAddress, HSAuint64 MemorySizeInBytes),           \
    (MemoryAddress, MemorySizeInBytes), Required())                                               \
  X(RegisterMemoryToNodes, RegisterMemoryToNodes,                                                 \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HSAuint64 NumberOfNodes,                   \
     HSAuint32* NodeArray),                                                                       \
    (MemoryAddress, MemorySizeInBytes, NumberOfNodes, NodeArray), Required())                     \
  X(RegisterMemoryWithFlags, RegisterMemoryWithFlags,                                             \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HsaMemFlags MemFlags),                     \
    (MemoryAddress, MemorySizeInBytes, MemFlags), Required())                                     \
  X(DeregisterMemory, DeregisterMemory, (void* MemoryAddress), (MemoryAddress), Required())       \
  X(MapMemoryToGPU, MapMemoryToGpu,                                                               \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HSAuint64* AlternateVAGPU),                \
    (MemoryAddress, MemorySizeInBytes, AlternateVAGPU), Required())                               \
  X(MapMemoryToGPUNodes, MapMemoryToGpuNodes,                                                     \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HSAuint64* AlternateVAGPU,                 \
     HsaMemMapFlags MemMapFlags, HSAuint64 NumberOfNodes, HSAuint32* NodeArray),                  \
    (MemoryAddress, MemorySizeInBytes, AlternateVAGPU, MemMapFlags, NumberOfNodes, NodeArray),    \
    Required())                                                                                   \
  X(UnmapMemoryToGPU, UnmapMemoryToGpu, (void* MemoryAddress), (MemoryAddress), Required())       \
  X(UnmapGraphicHandle, UnmapGraphicHandle,                                                       \
    (HSAuint32 NodeId, HSAuint64 FlatMemoryAddress, HSAuint64 SizeInBytes),                       \
    (NodeId, FlatMemoryAddress, SizeInBytes), Required())                                         \
  X(QueryPointerInfo, QueryPointerInfo, (const void* Pointer, HsaPointerInfo* PointerInfo),       \
    (Pointer, PointerInfo), Required(PointerInfo))                                                \
  X(SetMemoryUserData, SetMemoryUserData, (const void* Pointer, void* UserData),                  \
    (Pointer, UserData), Required())                                                              \
  X(SVMSetAttr, SvmSetAttr,                                                                       \
    (void* start_addr, HSAuint64 size, unsigned int nattr, HSA_SVM_ATTRIBUTE* attrs),             \
    (start_addr, size, nattr, attrs), Required())                                                 \
  X(SVMGetAttr, SvmGetAttr,                                                                       \
    (void* start_addr, HSAuint64 size, unsigned int nattr, HSA_SVM_ATTRIBUTE* attrs),             \
    (start_addr, size, nattr, attrs), Required())                                                 \
  X(SetXNACKMode, SetXnackMode, (HSAint32 enable), (enable), Required())                          \
  X(GetXNACKMode, GetXnackMode, (HSAint32 * enable), (enable), Required(enable))                  \
  X(ExportDMABufHandle, ExportDmaBufHandle,                                                       \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, int* DMABufFd, HSAuint64* Offset),         \
    (MemoryAddress, MemorySizeInBytes, DMABufFd, Offset), Required(DMABufFd, Offset))             \
  X(RegisterGraphicsHandleToNodesExt, RegisterGraphicsHandleToNodesExt,                           \
    (HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo * GraphicsResourceInfo,            \
     HSAuint64 NumberOfNodes, HSAuint32 * NodeArray, HSA_REGISTER_MEM_FLAGS RegisterFlags),       \
    (GraphicsResourceHandle, GraphicsResourceInfo, NumberOfNodes, NodeArray, RegisterFlags),      \
    Required(GraphicsResourceInfo))                                                               \
  X(RegisterGraphicsHandleToNodes, RegisterGraphicsHandleToNodes,                                 \
    (HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo * GraphicsResourceInfo,            \
     HSAuint64 NumberOfNodes, HSAuint32 * NodeArray),                                             \
    (GraphicsResourceHandle, GraphicsResourceInfo, NumberOfNodes, NodeArray),                     \
    Required(GraphicsResourceInfo))                                                               \
  X(ShareMemory, ShareMemory,                                                                     \
    (void* MemoryAddress, HSAuint64 SizeInBytes, HsaSharedMemoryHandle* SharedMemoryHandle),      \
    (MemoryAddress, SizeInBytes, SharedMemoryHandle), Required(SharedMemoryHandle))               \
  X(RegisterSharedHandleToNodes, RegisterSharedHandleToNodes,                                     \
    (const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress,                       \
     HSAuint64* SizeInBytes, HSAuint64 NumberOfNodes, HSAuint32* NodeArray),                      \
    (SharedMemoryHandle, MemoryAddress, SizeInBytes, NumberOfNodes, NodeArray),                   \
    Required(MemoryAddress, SizeInBytes))                                                         \
  X(RegisterSharedHandle, RegisterSharedHandle,                                                   \
    (const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress,                       \
     HSAuint64* SizeInBytes),                                                                     \
    (SharedMemoryHandle, MemoryAddress, SizeInBytes), Required(MemoryAddress, SizeInBytes))

HKE_MEMORY_API(HKE_API_TWINS)

HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPage(void*) { return HSAKMT_STATUS_NOT_SUPPORTED; }
HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPageCtx(HsaKFDContext* kfd_ctx, void* addr) {
  return hke::api::OnCtx(kfd_ctx, HSAKMT_STATUS_SUCCESS, hke::api::AsanHeaderPage, addr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPage(void*) { return HSAKMT_STATUS_NOT_SUPPORTED; }
HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPageCtx(HsaKFDContext* kfd_ctx, void* addr) {
  return hke::api::OnCtx(kfd_ctx, HSAKMT_STATUS_SUCCESS, hke::api::AsanHeaderPage, addr);
}

hke_status_t hke_memory_stats_get(hke_context* context, hke_memory_stats* out) {
  if (context == nullptr || !context->impl.valid() || out == nullptr ||
      out->struct_size != sizeof(hke_memory_stats)) {
    return hke::InvalidArgument().raw();
  }
  hke::SharedGate g(context->impl.open_gate());
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
  hke::SharedGate g(context->impl.open_gate());
  return hke::memory::CheckInvariants(context->impl).raw();
}

}  // extern "C"
