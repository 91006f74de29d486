// Per-node entry points of hsakmt.h, on the default context, and their
// hsakmtctx.h twins (hsaKmt<Name>Ctx), on the given context, one body per
// call taking the context (lib/node/node.h has the semantics): hsaKmtGetClockCounters,
// hsaKmtGetTileConfig, hsaKmtSetTrapHandler, hsaKmtSetMemoryPolicy,
// hsaKmtGetAMDGPUDeviceHandle (NOT_SUPPORTED where the platform has no
// libdrm devices).
//
// A Ctx call on a NULL or dead context is INVALID_PARAMETER before
// anything else; after that it checks what the plain call checks, in the
// same order.
//
// Status rules: a NULL output is INVALID_PARAMETER before anything else;
// then the open device (KERNEL_IO_CHANNEL_NOT_OPENED), then the node
// (INVALID_NODE_UNIT for an id outside the topology, and for a CPU node
// where the call needs a GPU), then the arguments (INVALID_PARAMETER). A
// kernel refusal is ERROR, upstream's answer (the errno is in the
// diagnostics report). SetMemoryPolicy is NOT_IMPLEMENTED on every node
// but a Kaveri, as upstream.
#include "lib/node/node.h"

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"

namespace hke::api {
namespace {

// The bodies: `ctx` is the context the call runs on; the checks before
// the device (the list's last column) are made.

HSAKMT_STATUS GetClockCounters(Context& ctx, HSAuint32 NodeId, HsaClockCounters* Counters) {
  return KernelCallStatus(node::GetClockCounters(ctx, NodeId, Counters));
}

HSAKMT_STATUS GetTileConfig(Context& ctx, HSAuint32 NodeId, HsaGpuTileConfig* config) {
  return KernelCallStatus(node::GetTileConfig(ctx, NodeId, config));
}

HSAKMT_STATUS SetTrapHandler(Context& ctx, HSAuint32 NodeId, void* TrapHandlerBaseAddress,
                             HSAuint64 /*TrapHandlerSizeInBytes*/, void* TrapBufferBaseAddress,
                             HSAuint64 /*TrapBufferSizeInBytes*/) {
  return KernelCallStatus(
      node::SetTrapHandler(ctx, NodeId, Addr(TrapHandlerBaseAddress), Addr(TrapBufferBaseAddress)));
}

HSAKMT_STATUS SetMemoryPolicy(Context& ctx, HSAuint32 Node, HSAuint32 DefaultPolicy,
                              HSAuint32 AlternatePolicy, void* MemoryAddressAlternate,
                              HSAuint64 MemorySizeInBytes) {
  return KernelCallStatus(node::SetMemoryPolicy(ctx, Node, DefaultPolicy, AlternatePolicy,
                                                Addr(MemoryAddressAlternate), MemorySizeInBytes));
}

HSAKMT_STATUS GetAmdgpuDeviceHandle(Context& ctx, HSAuint32 NodeId,
                                    HsaAMDGPUDeviceHandle* DeviceHandle) {
  void* h = nullptr;
  const HSAKMT_STATUS st = KernelCallStatus(node::GetAmdgpuDeviceHandle(ctx, NodeId, &h));
  if (st == HSAKMT_STATUS_SUCCESS) *DeviceHandle = h;
  return st;
}

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_NODE_API(X)                                                                            \
  X(GetClockCounters, GetClockCounters, (HSAuint32 NodeId, HsaClockCounters * Counters),           \
    (NodeId, Counters), Required(Counters))                                                        \
  X(GetTileConfig, GetTileConfig, (HSAuint32 NodeId, HsaGpuTileConfig * config), (NodeId, config), \
    Required(config))                                                                              \
  X(SetTrapHandler, SetTrapHandler,                                                                \
    (HSAuint32 NodeId, void* TrapHandlerBaseAddress, HSAuint64 TrapHandlerSizeInBytes,             \
     void* TrapBufferBaseAddress, HSAuint64 TrapBufferSizeInBytes),                                \
    (NodeId, TrapHandlerBaseAddress, TrapHandlerSizeInBytes, TrapBufferBaseAddress,                \
     TrapBufferSizeInBytes),                                                                       \
    Required())                                                                                    \
  X(SetMemoryPolicy, SetMemoryPolicy,                                                              \
    (HSAuint32 Node, HSAuint32 DefaultPolicy, HSAuint32 AlternatePolicy,                           \
     void* MemoryAddressAlternate, HSAuint64 MemorySizeInBytes),                                   \
    (Node, DefaultPolicy, AlternatePolicy, MemoryAddressAlternate, MemorySizeInBytes), Required()) \
  X(GetAMDGPUDeviceHandle, GetAmdgpuDeviceHandle,                                                  \
    (HSAuint32 NodeId, HsaAMDGPUDeviceHandle * DeviceHandle), (NodeId, DeviceHandle),              \
    Required(DeviceHandle))

HKE_NODE_API(HKE_API_TWINS)

}  // extern "C"
