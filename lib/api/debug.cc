// The debugger entry points of hsakmt.h, on the default context, and the
// hsakmtctx.h twins (hsaKmt<Name>Ctx) of the current ones, on the given
// context, one body per call taking the context (lib/debug/debug.h has
// the semantics and the ownership of the blocks handed out: the runtime
// info and snapshot blocks are the context's, so a Ctx call hands out the
// blocks of the context it was given). The deprecated calls have no twin.
//
// A Ctx call on a NULL or dead context is INVALID_PARAMETER before
// anything else; after that it checks what the plain call checks, in the
// same order.
//
// Status rules (upstream's, with the errno in the diagnostics report):
// NULL outputs are INVALID_PARAMETER first; then the open device
// (KERNEL_IO_CHANNEL_NOT_OPENED); a kernel older than KFD 1.13 or a GPU
// without debug-capable firmware is NOT_SUPPORTED (RuntimeEnable/Disable
// check both, the DBG_TRAP calls the version); RUNTIME_ENABLE refused with
// EBUSY is UNAVAILABLE; any other kernel refusal is ERROR. A snapshot
// larger than the context can hold is OUT_OF_RESOURCES; a second
// concurrent call of a snapshot function is UNAVAILABLE. In
// hsaKmtDebugTrapIoctl a stale or forged HSA_QUEUEID is INVALID_HANDLE.
// The legacy calls (DbgRegister, DbgUnregister, DbgWavefrontControl,
// DbgAddressWatch) still issue their deprecated ioctls as upstream does;
// current kernels answer EPERM, which is ERROR here as there.
#include "lib/debug/debug.h"

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"

namespace hke::api {
namespace {

// The bodies: `ctx` is the context the call runs on; the checks before
// the device (the list's last column) are made.

HSAKMT_STATUS CheckRuntimeDebugSupport(Context& ctx) {
  return KernelCallStatus(debug::CheckRuntimeDebugSupport(ctx));
}

HSAKMT_STATUS RuntimeEnable(Context& ctx, void* rDebug, bool setupTtmp) {
  const Status s = debug::RuntimeEnable(ctx, Addr(rDebug), setupTtmp);
  if (s.is_errno(err::kEBUSY)) return HSAKMT_STATUS_UNAVAILABLE;
  return KernelCallStatus(s);
}

HSAKMT_STATUS RuntimeDisable(Context& ctx) { return KernelCallStatus(debug::RuntimeDisable(ctx)); }

HSAKMT_STATUS GetRuntimeCapabilities(Context& ctx, HSAuint32* caps_mask) {
  return KernelCallStatus(debug::RuntimeCapabilities(ctx, caps_mask));
}

HSAKMT_STATUS DbgEnable(Context& ctx, void** runtime_info, HSAuint32* data_size) {
  return KernelCallStatus(debug::DbgEnable(ctx, runtime_info, data_size));
}

HSAKMT_STATUS DbgDisable(Context& ctx) { return KernelCallStatus(debug::DbgDisable(ctx)); }

HSAKMT_STATUS DbgGetDeviceData(Context& ctx, void** data, HSAuint32* n_entries,
                               HSAuint32* entry_size) {
  return KernelCallStatus(debug::DeviceSnapshot(ctx, data, n_entries, entry_size));
}

HSAKMT_STATUS DbgGetQueueData(Context& ctx, void** data, HSAuint32* n_entries,
                              HSAuint32* entry_size, bool suspend_queues) {
  return KernelCallStatus(debug::QueueSnapshot(ctx, data, n_entries, entry_size, suspend_queues));
}

HSAKMT_STATUS DebugTrapIoctl(Context& ctx, struct kfd_ioctl_dbg_trap_args* arg, HSA_QUEUEID* Queues,
                             HSAuint64* DebugReturn) {
  static_assert(sizeof(HSA_QUEUEID) == sizeof(uint64_t), "HSA_QUEUEID is 64-bit");
  return KernelCallStatus(
      debug::TrapIoctl(ctx, arg, reinterpret_cast<const uint64_t*>(Queues), DebugReturn));
}

// The deprecated debugger calls' bodies (default context only).

HSAKMT_STATUS DbgRegister(Context& ctx, HSAuint32 NodeId) {
  return KernelCallStatus(debug::LegacyRegister(ctx, NodeId, true));
}

HSAKMT_STATUS DbgUnregister(Context& ctx, HSAuint32 NodeId) {
  return KernelCallStatus(debug::LegacyRegister(ctx, NodeId, false));
}

HSAKMT_STATUS DbgWavefrontControl(Context& ctx, HSAuint32 NodeId, HSA_DBG_WAVEOP Operand,
                                  HSA_DBG_WAVEMODE Mode, HSAuint32 TrapId,
                                  HsaDbgWaveMessage* DbgWaveMsgRing) {
  uint64_t message = 0;
  static_assert(sizeof(DbgWaveMsgRing->DbgWaveMsg) == sizeof(message), "8-byte wave message");
  const auto* src = reinterpret_cast<const unsigned char*>(&DbgWaveMsgRing->DbgWaveMsg);
  auto* dst = reinterpret_cast<unsigned char*>(&message);
  for (size_t i = 0; i < sizeof(message); ++i) dst[i] = src[i];
  return KernelCallStatus(debug::LegacyWaveControl(ctx, NodeId, static_cast<uint32_t>(Operand),
                                                   static_cast<uint32_t>(Mode), TrapId, message,
                                                   Addr(DbgWaveMsgRing->MemoryVA)));
}

// DbgAddressWatch's checks before the device: a count of 0 or above the
// legacy limit, or a NULL mode, address or mask array, is INVALID_PARAMETER.
HSAKMT_STATUS AddressWatchFirst(HSAuint32 NumWatchPoints, const HSA_DBG_WATCH_MODE* WatchMode,
                                void* const* WatchAddress, const HSAuint64* WatchMask) {
  if (NumWatchPoints > kfd::kLegacyMaxWatchPoints) return HSAKMT_STATUS_INVALID_PARAMETER;
  return Required(NumWatchPoints, WatchMode, WatchAddress, WatchMask);
}

HSAKMT_STATUS DbgAddressWatch(Context& ctx, HSAuint32 NodeId, HSAuint32 NumWatchPoints,
                              HSA_DBG_WATCH_MODE* WatchMode, void** WatchAddress,
                              HSAuint64* WatchMask, HsaEvent** WatchEvent) {
  uint32_t modes[kfd::kLegacyMaxWatchPoints];
  uint64_t addresses[kfd::kLegacyMaxWatchPoints];
  uint64_t events[kfd::kLegacyMaxWatchPoints];
  for (uint32_t i = 0; i < NumWatchPoints; ++i) {
    modes[i] = static_cast<uint32_t>(WatchMode[i]);
    addresses[i] = Addr(WatchAddress[i]);
    events[i] = WatchEvent != nullptr ? Addr(WatchEvent[i]) : 0;
  }
  return KernelCallStatus(debug::LegacyAddressWatch(ctx, NodeId, NumWatchPoints, modes, addresses,
                                                    WatchMask,
                                                    WatchEvent != nullptr ? events : nullptr));
}

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_DEBUG_API(X)                                                                           \
  X(CheckRuntimeDebugSupport, CheckRuntimeDebugSupport, (), (), Required())                        \
  X(RuntimeEnable, RuntimeEnable, (void* rDebug, bool setupTtmp), (rDebug, setupTtmp), Required()) \
  X(RuntimeDisable, RuntimeDisable, (), (), Required())                                            \
  X(GetRuntimeCapabilities, GetRuntimeCapabilities, (HSAuint32 * caps_mask), (caps_mask),          \
    Required(caps_mask))                                                                           \
  X(DbgEnable, DbgEnable, (void** runtime_info, HSAuint32* data_size), (runtime_info, data_size),  \
    Required(runtime_info, data_size))                                                             \
  X(DbgDisable, DbgDisable, (), (), Required())                                                    \
  X(DbgGetDeviceData, DbgGetDeviceData,                                                            \
    (void** data, HSAuint32* n_entries, HSAuint32* entry_size), (data, n_entries, entry_size),     \
    Required(data, n_entries, entry_size))                                                         \
  X(DbgGetQueueData, DbgGetQueueData,                                                              \
    (void** data, HSAuint32* n_entries, HSAuint32* entry_size, bool suspend_queues),               \
    (data, n_entries, entry_size, suspend_queues), Required(data, n_entries, entry_size))          \
  X(DebugTrapIoctl, DebugTrapIoctl,                                                                \
    (struct kfd_ioctl_dbg_trap_args * arg, HSA_QUEUEID * Queues, HSAuint64 * DebugReturn),         \
    (arg, Queues, DebugReturn), Required(arg))

HKE_DEBUG_API(HKE_API_TWINS)

// The deprecated debugger calls (default context only), one line each
// (lib/api/entry.h: HKE_API_DEFAULT_ONLY).
#define HKE_LEGACY_DEBUG_API(X)                                                         \
  X(DbgRegister, DbgRegister, (HSAuint32 NodeId), (NodeId), Required())                 \
  X(DbgUnregister, DbgUnregister, (HSAuint32 NodeId), (NodeId), Required())             \
  X(DbgWavefrontControl, DbgWavefrontControl,                                           \
    (HSAuint32 NodeId, HSA_DBG_WAVEOP Operand, HSA_DBG_WAVEMODE Mode, HSAuint32 TrapId, \
     HsaDbgWaveMessage * DbgWaveMsgRing),                                               \
    (NodeId, Operand, Mode, TrapId, DbgWaveMsgRing), Required(DbgWaveMsgRing))          \
  X(DbgAddressWatch, DbgAddressWatch,                                                   \
    (HSAuint32 NodeId, HSAuint32 NumWatchPoints, HSA_DBG_WATCH_MODE WatchMode[],        \
     void* WatchAddress[], HSAuint64 WatchMask[], HsaEvent* WatchEvent[]),              \
    (NodeId, NumWatchPoints, WatchMode, WatchAddress, WatchMask, WatchEvent),           \
    AddressWatchFirst(NumWatchPoints, WatchMode, WatchAddress, WatchMask))

HKE_LEGACY_DEBUG_API(HKE_API_DEFAULT_ONLY)

}  // extern "C"
