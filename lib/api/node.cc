// Per-node entry points of hsakmt.h on the default context
// (lib/node/node.h has the semantics): hsaKmtGetClockCounters,
// hsaKmtGetTileConfig, hsaKmtSetTrapHandler, hsaKmtSetMemoryPolicy,
// hsaKmtGetAMDGPUDeviceHandle (NOT_SUPPORTED where the platform has no
// libdrm devices).
//
// Status rules: a NULL output is INVALID_PARAMETER before anything else;
// then the open device (KERNEL_IO_CHANNEL_NOT_OPENED), then the node
// (INVALID_NODE_UNIT for an id outside the topology, and for a CPU node
// where the call needs a GPU), then the arguments (INVALID_PARAMETER). A
// kernel refusal is ERROR, upstream's answer (the errno is in the
// diagnostics report). SetMemoryPolicy is NOT_IMPLEMENTED on every node
// but a Kaveri, as upstream.
#include "lib/api/entry.h"
#include "lib/node/node.h"

#include "hsakmt/hsakmt.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"

using hke::api::Default;
using hke::api::KernelCallStatus;
using hke::api::Addr;
using hke::api::kNoContext;

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCounters(HSAuint32 NodeId, HsaClockCounters* Counters) {
  if (Counters == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::node::GetClockCounters(*ctx, NodeId, Counters));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetTileConfig(HSAuint32 NodeId, HsaGpuTileConfig* config) {
  if (config == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::node::GetTileConfig(*ctx, NodeId, config));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetTrapHandler(HSAuint32 NodeId, void* TrapHandlerBaseAddress,
                                             HSAuint64 /*TrapHandlerSizeInBytes*/,
                                             void* TrapBufferBaseAddress,
                                             HSAuint64 /*TrapBufferSizeInBytes*/) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::node::SetTrapHandler(*ctx, NodeId, Addr(TrapHandlerBaseAddress),
                                                    Addr(TrapBufferBaseAddress)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryPolicy(HSAuint32 Node, HSAuint32 DefaultPolicy,
                                              HSAuint32 AlternatePolicy,
                                              void* MemoryAddressAlternate,
                                              HSAuint64 MemorySizeInBytes) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::node::SetMemoryPolicy(
      *ctx, Node, DefaultPolicy, AlternatePolicy, Addr(MemoryAddressAlternate), MemorySizeInBytes));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetAMDGPUDeviceHandle(HSAuint32 NodeId,
                                                    HsaAMDGPUDeviceHandle* DeviceHandle) {
  if (DeviceHandle == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  void* h = nullptr;
  const HSAKMT_STATUS st = KernelCallStatus(hke::node::GetAmdgpuDeviceHandle(*ctx, NodeId, &h));
  if (st == HSAKMT_STATUS_SUCCESS) *DeviceHandle = h;
  return st;
}

}  // extern "C"
