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
#include "lib/api/entry.h"
#include "lib/debug/debug.h"

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"

using hke::Context;
using hke::api::Addr;
using hke::api::Default;
using hke::api::KernelCallStatus;
using hke::api::kNoContext;
using hke::api::OnCtx;
using hke::api::OnDefault;

namespace {

// The bodies: `ctx` is the context the call runs on, nullptr when there is
// none (kNoContext, after the checks that come before it).

HSAKMT_STATUS CheckRuntimeDebugSupport(Context* ctx) {
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::debug::CheckRuntimeDebugSupport(*ctx));
}

HSAKMT_STATUS RuntimeEnable(Context* ctx, void* rDebug, bool setupTtmp) {
  if (ctx == nullptr) return kNoContext;
  const hke::Status s = hke::debug::RuntimeEnable(*ctx, Addr(rDebug), setupTtmp);
  if (s.is_errno(hke::err::kEBUSY)) return HSAKMT_STATUS_UNAVAILABLE;
  return KernelCallStatus(s);
}

HSAKMT_STATUS RuntimeDisable(Context* ctx) {
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::debug::RuntimeDisable(*ctx));
}

HSAKMT_STATUS GetRuntimeCapabilities(Context* ctx, HSAuint32* caps_mask) {
  if (caps_mask == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::debug::RuntimeCapabilities(*ctx, caps_mask));
}

HSAKMT_STATUS DbgEnable(Context* ctx, void** runtime_info, HSAuint32* data_size) {
  if (runtime_info == nullptr || data_size == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::debug::DbgEnable(*ctx, runtime_info, data_size));
}

HSAKMT_STATUS DbgDisable(Context* ctx) {
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::debug::DbgDisable(*ctx));
}

HSAKMT_STATUS DbgGetDeviceData(Context* ctx, void** data, HSAuint32* n_entries,
                               HSAuint32* entry_size) {
  if (data == nullptr || n_entries == nullptr || entry_size == nullptr) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(hke::debug::DeviceSnapshot(*ctx, data, n_entries, entry_size));
}

HSAKMT_STATUS DbgGetQueueData(Context* ctx, void** data, HSAuint32* n_entries,
                              HSAuint32* entry_size, bool suspend_queues) {
  if (data == nullptr || n_entries == nullptr || entry_size == nullptr) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  if (ctx == nullptr) return kNoContext;
  return KernelCallStatus(
      hke::debug::QueueSnapshot(*ctx, data, n_entries, entry_size, suspend_queues));
}

HSAKMT_STATUS DebugTrapIoctl(Context* ctx, struct kfd_ioctl_dbg_trap_args* arg,
                             HSA_QUEUEID* Queues, HSAuint64* DebugReturn) {
  if (arg == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (ctx == nullptr) return kNoContext;
  static_assert(sizeof(HSA_QUEUEID) == sizeof(uint64_t), "HSA_QUEUEID is 64-bit");
  return KernelCallStatus(
      hke::debug::TrapIoctl(*ctx, arg, reinterpret_cast<const uint64_t*>(Queues), DebugReturn));
}

}  // namespace

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_DEBUG_API(X)                                                                          \
  X(CheckRuntimeDebugSupport, CheckRuntimeDebugSupport, (), ())                                   \
  X(RuntimeEnable, RuntimeEnable, (void* rDebug, bool setupTtmp), (rDebug, setupTtmp))            \
  X(RuntimeDisable, RuntimeDisable, (), ())                                                       \
  X(GetRuntimeCapabilities, GetRuntimeCapabilities, (HSAuint32* caps_mask), (caps_mask))          \
  X(DbgEnable, DbgEnable, (void** runtime_info, HSAuint32* data_size), (runtime_info, data_size)) \
  X(DbgDisable, DbgDisable, (), ())                                                               \
  X(DbgGetDeviceData, DbgGetDeviceData,                                                           \
    (void** data, HSAuint32* n_entries, HSAuint32* entry_size),                                   \
    (data, n_entries, entry_size))                                                                \
  X(DbgGetQueueData, DbgGetQueueData,                                                             \
    (void** data, HSAuint32* n_entries, HSAuint32* entry_size, bool suspend_queues),              \
    (data, n_entries, entry_size, suspend_queues))                                                \
  X(DebugTrapIoctl, DebugTrapIoctl,                                                               \
    (struct kfd_ioctl_dbg_trap_args* arg, HSA_QUEUEID* Queues, HSAuint64* DebugReturn),           \
    (arg, Queues, DebugReturn))

HKE_DEBUG_API(HKE_API_TWINS)

// The deprecated debugger calls (default context only).

HSAKMT_STATUS HSAKMTAPI hsaKmtDbgRegister(HSAuint32 NodeId) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  hke::SharedGate g(ctx->open_gate());
  return KernelCallStatus(hke::debug::LegacyRegister(*ctx, NodeId, true));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDbgUnregister(HSAuint32 NodeId) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  hke::SharedGate g(ctx->open_gate());
  return KernelCallStatus(hke::debug::LegacyRegister(*ctx, NodeId, false));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDbgWavefrontControl(HSAuint32 NodeId, HSA_DBG_WAVEOP Operand,
                                                  HSA_DBG_WAVEMODE Mode, HSAuint32 TrapId,
                                                  HsaDbgWaveMessage* DbgWaveMsgRing) {
  if (DbgWaveMsgRing == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  hke::SharedGate g(ctx->open_gate());
  uint64_t message = 0;
  static_assert(sizeof(DbgWaveMsgRing->DbgWaveMsg) == sizeof(message), "8-byte wave message");
  const auto* src = reinterpret_cast<const unsigned char*>(&DbgWaveMsgRing->DbgWaveMsg);
  auto* dst = reinterpret_cast<unsigned char*>(&message);
  for (size_t i = 0; i < sizeof(message); ++i) dst[i] = src[i];
  return KernelCallStatus(hke::debug::LegacyWaveControl(
      *ctx, NodeId, static_cast<uint32_t>(Operand), static_cast<uint32_t>(Mode), TrapId, message,
      Addr(DbgWaveMsgRing->MemoryVA)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDbgAddressWatch(HSAuint32 NodeId, HSAuint32 NumWatchPoints,
                                              HSA_DBG_WATCH_MODE WatchMode[], void* WatchAddress[],
                                              HSAuint64 WatchMask[], HsaEvent* WatchEvent[]) {
  if (NumWatchPoints == 0 || WatchMode == nullptr || WatchAddress == nullptr ||
      WatchMask == nullptr) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  if (NumWatchPoints > hke::kfd::kLegacyMaxWatchPoints) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return kNoContext;
  hke::SharedGate g(ctx->open_gate());
  uint32_t modes[hke::kfd::kLegacyMaxWatchPoints];
  uint64_t addresses[hke::kfd::kLegacyMaxWatchPoints];
  uint64_t events[hke::kfd::kLegacyMaxWatchPoints];
  for (uint32_t i = 0; i < NumWatchPoints; ++i) {
    modes[i] = static_cast<uint32_t>(WatchMode[i]);
    addresses[i] = Addr(WatchAddress[i]);
    events[i] = WatchEvent != nullptr ? Addr(WatchEvent[i]) : 0;
  }
  return KernelCallStatus(hke::debug::LegacyAddressWatch(*ctx, NodeId, NumWatchPoints, modes,
                                                         addresses, WatchMask,
                                                         WatchEvent != nullptr ? events : nullptr));
}

}  // extern "C"
