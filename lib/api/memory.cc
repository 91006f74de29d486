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
#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory.h"

using hke::Context;
using hke::api::Addr;
using hke::api::Default;
using hke::api::kNoContext;
using hke::api::OnCtx;
using hke::api::OnDefault;

namespace {

// An address the library does not know is reported per call as upstream
// does: `unknown` for NOT_FOUND, the usual mapping otherwise.
HSAKMT_STATUS Unknown(hke::Status s, HSAKMT_STATUS unknown) {
  return s.is_api(HKE_STATUS_NOT_FOUND) ? unknown : hke::api::ToHsakmt(s);
}

// The open check of a call whose inputs the API layer looks at itself.
HSAKMT_STATUS OpenCheck(Context& ctx) { return hke::api::ToHsakmt(hke::device::CheckOpen(ctx)); }

// The bodies: `ctx` is the context the call runs on, nullptr when there is
// none (kNoContext, after the checks that come before it).

HSAKMT_STATUS Alloc(Context* ctx, HSAuint32 node, HSAuint64 size, HSAuint64 align,
                    HsaMemFlags flags, void** address) {
  if (address == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
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

HSAKMT_STATUS AllocMemory(Context* ctx, HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                          HsaMemFlags MemFlags, void** MemoryAddress) {
  return Alloc(ctx, PreferredNode, SizeInBytes, 0, MemFlags, MemoryAddress);
}

HSAKMT_STATUS AllocMemoryAlign(Context* ctx, HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                               HSAuint64 Alignment, HsaMemFlags MemFlags, void** MemoryAddress) {
  return Alloc(ctx, PreferredNode, SizeInBytes, Alignment, MemFlags, MemoryAddress);
}

HSAKMT_STATUS FreeMemory(Context* ctx, void* MemoryAddress, HSAuint64 /*SizeInBytes*/) {
  if (ctx == nullptr) return kNoContext;
  if (const HSAKMT_STATUS open = OpenCheck(*ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  return hke::api::ToHsakmt(hke::memory::Free(*ctx, Addr(MemoryAddress)));
}

HSAKMT_STATUS AvailableMemory(Context* ctx, HSAuint32 Node, HSAuint64* AvailableBytes) {
  if (AvailableBytes == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (ctx == nullptr) return kNoContext;
  uint64_t bytes = 0;
  const hke::Status s = hke::memory::Available(*ctx, Node, &bytes);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *AvailableBytes = bytes;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS Register(Context* ctx, void* address, HSAuint64 size, const HSAuint32* nodes,
                       HSAuint64 n, bool has_flags, HsaMemFlags flags) {
  if (ctx == nullptr) return kNoContext;
  if (const HSAKMT_STATUS open = OpenCheck(*ctx); open != HSAKMT_STATUS_SUCCESS) return open;
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

HSAKMT_STATUS RegisterMemory(Context* ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes) {
  return Register(ctx, MemoryAddress, MemorySizeInBytes, nullptr, 0, false, HsaMemFlags{});
}

HSAKMT_STATUS RegisterMemoryToNodes(Context* ctx, void* MemoryAddress,
                                    HSAuint64 MemorySizeInBytes, HSAuint64 NumberOfNodes,
                                    HSAuint32* NodeArray) {
  if (NodeArray == nullptr || NumberOfNodes == 0) {
    if (ctx == nullptr) return kNoContext;
    if (const HSAKMT_STATUS open = OpenCheck(*ctx); open != HSAKMT_STATUS_SUCCESS) return open;
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  return Register(ctx, MemoryAddress, MemorySizeInBytes, NodeArray, NumberOfNodes, false,
                  HsaMemFlags{});
}

HSAKMT_STATUS RegisterMemoryWithFlags(Context* ctx, void* MemoryAddress,
                                      HSAuint64 MemorySizeInBytes, HsaMemFlags MemFlags) {
  return Register(ctx, MemoryAddress, MemorySizeInBytes, nullptr, 0, true, MemFlags);
}

HSAKMT_STATUS DeregisterMemory(Context* ctx, void* MemoryAddress) {
  if (ctx == nullptr) return kNoContext;
  return Unknown(hke::memory::Deregister(*ctx, Addr(MemoryAddress)),
                 HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}

HSAKMT_STATUS MapMemoryToGpu(Context* ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                             HSAuint64* AlternateVAGPU) {
  if (ctx == nullptr) return kNoContext;
  if (const HSAKMT_STATUS open = OpenCheck(*ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  uint64_t alt = 0;
  const hke::Status s =
      hke::memory::Map(*ctx, Addr(MemoryAddress), MemorySizeInBytes, nullptr, 0, &alt);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  if (AlternateVAGPU != nullptr) *AlternateVAGPU = alt;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS MapMemoryToGpuNodes(Context* ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                  HSAuint64* AlternateVAGPU, HsaMemMapFlags /*MemMapFlags*/,
                                  HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  if (ctx == nullptr) return kNoContext;
  if (const HSAKMT_STATUS open = OpenCheck(*ctx); open != HSAKMT_STATUS_SUCCESS) return open;
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

HSAKMT_STATUS UnmapMemoryToGpu(Context* ctx, void* MemoryAddress) {
  if (ctx == nullptr) return kNoContext;
  return Unknown(hke::memory::Unmap(*ctx, Addr(MemoryAddress)), HSAKMT_STATUS_ERROR);
}

// Upstream's definition: the open check, then UnmapMemoryToGPU of the address.
HSAKMT_STATUS UnmapGraphicHandle(Context* ctx, HSAuint32 /*NodeId*/, HSAuint64 FlatMemoryAddress,
                                 HSAuint64 /*SizeInBytes*/) {
  return UnmapMemoryToGpu(ctx, reinterpret_cast<void*>(static_cast<uintptr_t>(FlatMemoryAddress)));
}

HSAKMT_STATUS QueryPointerInfo(Context* ctx, const void* Pointer, HsaPointerInfo* PointerInfo) {
  if (PointerInfo == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
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

HSAKMT_STATUS SetMemoryUserData(Context* ctx, const void* Pointer, void* UserData) {
  if (ctx == nullptr) return kNoContext;
  return Unknown(hke::memory::SetUserData(*ctx, Addr(Pointer), Addr(UserData)),
                 HSAKMT_STATUS_ERROR);
}

HSAKMT_STATUS SvmSetAttr(Context* ctx, void* start_addr, HSAuint64 size, unsigned int nattr,
                         HSA_SVM_ATTRIBUTE* attrs) {
  if (ctx == nullptr) return kNoContext;
  return hke::api::ToHsakmt(hke::memory::SvmSetAttr(*ctx, Addr(start_addr), size, nattr, attrs));
}

HSAKMT_STATUS SvmGetAttr(Context* ctx, void* start_addr, HSAuint64 size, unsigned int nattr,
                         HSA_SVM_ATTRIBUTE* attrs) {
  if (ctx == nullptr) return kNoContext;
  return hke::api::ToHsakmt(hke::memory::SvmGetAttr(*ctx, Addr(start_addr), size, nattr, attrs));
}

HSAKMT_STATUS SetXnackMode(Context* ctx, HSAint32 enable) {
  if (ctx == nullptr) return kNoContext;
  const hke::Status s = hke::memory::SetXnack(*ctx, enable);
  // The kernel refuses a change while the process has queues (EBUSY);
  // upstream answers ERROR there, and so do we (the diagnostic keeps EBUSY).
  if (s.is_errno(hke::err::kEBUSY)) return HSAKMT_STATUS_ERROR;
  return hke::api::ToHsakmt(s);
}

HSAKMT_STATUS GetXnackMode(Context* ctx, HSAint32* enable) {
  if (enable == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (ctx == nullptr) return kNoContext;
  int32_t v = 0;
  const hke::Status s = hke::memory::GetXnack(*ctx, &v);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  *enable = v;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS ExportDmaBufHandle(Context* ctx, void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                 int* DMABufFd, HSAuint64* Offset) {
  if (DMABufFd == nullptr || Offset == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
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

HSAKMT_STATUS RegisterGraphicsHandleToNodesExt(Context* ctx, HSAuint64 GraphicsResourceHandle,
                                               HsaGraphicsResourceInfo* GraphicsResourceInfo,
                                               HSAuint64 NumberOfNodes, HSAuint32* NodeArray,
                                               HSA_REGISTER_MEM_FLAGS RegisterFlags) {
  if (GraphicsResourceInfo == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (ctx == nullptr) return kNoContext;
  if (const HSAKMT_STATUS open = OpenCheck(*ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (NumberOfNodes > 0xffffffffu || (NodeArray == nullptr && NumberOfNodes != 0)) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
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

HSAKMT_STATUS RegisterGraphicsHandleToNodes(Context* ctx, HSAuint64 GraphicsResourceHandle,
                                            HsaGraphicsResourceInfo* GraphicsResourceInfo,
                                            HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  HSA_REGISTER_MEM_FLAGS flags;
  flags.Value = 0;
  return RegisterGraphicsHandleToNodesExt(ctx, GraphicsResourceHandle, GraphicsResourceInfo,
                                          NumberOfNodes, NodeArray, flags);
}

HSAKMT_STATUS ShareMemory(Context* ctx, void* MemoryAddress, HSAuint64 SizeInBytes,
                          HsaSharedMemoryHandle* SharedMemoryHandle) {
  if (SharedMemoryHandle == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
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

HSAKMT_STATUS RegisterSharedHandleToNodes(Context* ctx,
                                          const HsaSharedMemoryHandle* SharedMemoryHandle,
                                          void** MemoryAddress, HSAuint64* SizeInBytes,
                                          HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  if (MemoryAddress == nullptr || SizeInBytes == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (ctx == nullptr) return kNoContext;
  if (const HSAKMT_STATUS open = OpenCheck(*ctx); open != HSAKMT_STATUS_SUCCESS) return open;
  if (SharedMemoryHandle == nullptr || NumberOfNodes > 0xffffffffu ||
      (NodeArray == nullptr && NumberOfNodes != 0)) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
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

HSAKMT_STATUS RegisterSharedHandle(Context* ctx, const HsaSharedMemoryHandle* SharedMemoryHandle,
                                   void** MemoryAddress, HSAuint64* SizeInBytes) {
  return RegisterSharedHandleToNodes(ctx, SharedMemoryHandle, MemoryAddress, SizeInBytes, 0,
                                     nullptr);
}

// ASAN header-page swapping needs a library built for ASAN (upstream too):
// NOT_SUPPORTED whatever the context. The plain calls pass no context, so
// they neither need nor initialise the default one.
HSAKMT_STATUS ReplaceAsanHeaderPage(Context*, void*) { return HSAKMT_STATUS_NOT_SUPPORTED; }
HSAKMT_STATUS ReturnAsanHeaderPage(Context*, void*) { return HSAKMT_STATUS_NOT_SUPPORTED; }

}  // namespace

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_MEMORY_API(X)                                                                         \
  X(AllocMemory, AllocMemory,                                                                     \
    (HSAuint32 PreferredNode, HSAuint64 SizeInBytes, HsaMemFlags MemFlags, void** MemoryAddress), \
    (PreferredNode, SizeInBytes, MemFlags, MemoryAddress))                                        \
  X(AllocMemoryAlign, AllocMemoryAlign,                                                           \
    (HSAuint32 PreferredNode, HSAuint64 SizeInBytes, HSAuint64 Alignment, HsaMemFlags MemFlags,   \
     void** MemoryAddress),                                                                       \
    (PreferredNode, SizeInBytes, Alignment, MemFlags, MemoryAddress))                             \
  X(FreeMemory, FreeMemory,                                                                       \
    (void* MemoryAddress, HSAuint64 SizeInBytes),                                                 \
    (MemoryAddress, SizeInBytes))                                                                 \
  X(AvailableMemory, AvailableMemory,                                                             \
    (HSAuint32 Node, HSAuint64* AvailableBytes),                                                  \
    (Node, AvailableBytes))                                                                       \
  X(RegisterMemory, RegisterMemory,                                                               \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes),                                           \
    (MemoryAddress, MemorySizeInBytes))                                                           \
  X(RegisterMemoryToNodes, RegisterMemoryToNodes,                                                 \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HSAuint64 NumberOfNodes,                   \
     HSAuint32* NodeArray),                                                                       \
    (MemoryAddress, MemorySizeInBytes, NumberOfNodes, NodeArray))                                 \
  X(RegisterMemoryWithFlags, RegisterMemoryWithFlags,                                             \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HsaMemFlags MemFlags),                     \
    (MemoryAddress, MemorySizeInBytes, MemFlags))                                                 \
  X(DeregisterMemory, DeregisterMemory, (void* MemoryAddress), (MemoryAddress))                   \
  X(MapMemoryToGPU, MapMemoryToGpu,                                                               \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HSAuint64* AlternateVAGPU),                \
    (MemoryAddress, MemorySizeInBytes, AlternateVAGPU))                                           \
  X(MapMemoryToGPUNodes, MapMemoryToGpuNodes,                                                     \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, HSAuint64* AlternateVAGPU,                 \
     HsaMemMapFlags MemMapFlags, HSAuint64 NumberOfNodes, HSAuint32* NodeArray),                  \
    (MemoryAddress, MemorySizeInBytes, AlternateVAGPU, MemMapFlags, NumberOfNodes, NodeArray))    \
  X(UnmapMemoryToGPU, UnmapMemoryToGpu, (void* MemoryAddress), (MemoryAddress))                   \
  X(UnmapGraphicHandle, UnmapGraphicHandle,                                                       \
    (HSAuint32 NodeId, HSAuint64 FlatMemoryAddress, HSAuint64 SizeInBytes),                       \
    (NodeId, FlatMemoryAddress, SizeInBytes))                                                     \
  X(QueryPointerInfo, QueryPointerInfo,                                                           \
    (const void* Pointer, HsaPointerInfo* PointerInfo),                                           \
    (Pointer, PointerInfo))                                                                       \
  X(SetMemoryUserData, SetMemoryUserData,                                                         \
    (const void* Pointer, void* UserData),                                                        \
    (Pointer, UserData))                                                                          \
  X(SVMSetAttr, SvmSetAttr,                                                                       \
    (void* start_addr, HSAuint64 size, unsigned int nattr, HSA_SVM_ATTRIBUTE* attrs),             \
    (start_addr, size, nattr, attrs))                                                             \
  X(SVMGetAttr, SvmGetAttr,                                                                       \
    (void* start_addr, HSAuint64 size, unsigned int nattr, HSA_SVM_ATTRIBUTE* attrs),             \
    (start_addr, size, nattr, attrs))                                                             \
  X(SetXNACKMode, SetXnackMode, (HSAint32 enable), (enable))                                      \
  X(GetXNACKMode, GetXnackMode, (HSAint32* enable), (enable))                                     \
  X(ExportDMABufHandle, ExportDmaBufHandle,                                                       \
    (void* MemoryAddress, HSAuint64 MemorySizeInBytes, int* DMABufFd, HSAuint64* Offset),         \
    (MemoryAddress, MemorySizeInBytes, DMABufFd, Offset))                                         \
  X(RegisterGraphicsHandleToNodesExt, RegisterGraphicsHandleToNodesExt,                           \
    (HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo* GraphicsResourceInfo,             \
     HSAuint64 NumberOfNodes, HSAuint32* NodeArray, HSA_REGISTER_MEM_FLAGS RegisterFlags),        \
    (GraphicsResourceHandle, GraphicsResourceInfo, NumberOfNodes, NodeArray, RegisterFlags))      \
  X(RegisterGraphicsHandleToNodes, RegisterGraphicsHandleToNodes,                                 \
    (HSAuint64 GraphicsResourceHandle, HsaGraphicsResourceInfo* GraphicsResourceInfo,             \
     HSAuint64 NumberOfNodes, HSAuint32* NodeArray),                                              \
    (GraphicsResourceHandle, GraphicsResourceInfo, NumberOfNodes, NodeArray))                     \
  X(ShareMemory, ShareMemory,                                                                     \
    (void* MemoryAddress, HSAuint64 SizeInBytes, HsaSharedMemoryHandle* SharedMemoryHandle),      \
    (MemoryAddress, SizeInBytes, SharedMemoryHandle))                                             \
  X(RegisterSharedHandleToNodes, RegisterSharedHandleToNodes,                                     \
    (const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress,                       \
     HSAuint64* SizeInBytes, HSAuint64 NumberOfNodes, HSAuint32* NodeArray),                      \
    (SharedMemoryHandle, MemoryAddress, SizeInBytes, NumberOfNodes, NodeArray))                   \
  X(RegisterSharedHandle, RegisterSharedHandle,                                                   \
    (const HsaSharedMemoryHandle* SharedMemoryHandle, void** MemoryAddress,                       \
     HSAuint64* SizeInBytes),                                                                     \
    (SharedMemoryHandle, MemoryAddress, SizeInBytes))

HKE_MEMORY_API(HKE_API_TWINS)

HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPage(void* addr) {
  return ReplaceAsanHeaderPage(nullptr, addr);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPageCtx(HsaKFDContext* ctx, void* addr) {
  return OnCtx(ctx, ReplaceAsanHeaderPage, addr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPage(void* addr) {
  return ReturnAsanHeaderPage(nullptr, addr);
}
HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPageCtx(HsaKFDContext* ctx, void* addr) {
  return OnCtx(ctx, ReturnAsanHeaderPage, addr);
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
