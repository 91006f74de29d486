// The debugger interface of the KFD (KFD >= 1.13): runtime enable/disable
// (RUNTIME_ENABLE), debug trapping of this process (DBG_TRAP ENABLE /
// DISABLE), the device and queue snapshots a debugger reads, the raw
// DBG_TRAP pass-through, and the legacy register/unregister calls that
// current kernels refuse.
//
// Ownership: the blocks hsaKmtDbgEnable, hsaKmtDbgGetDeviceData and
// hsaKmtDbgGetQueueData hand out live in the context (DebugState below),
// not on a heap. A block stays valid, and keeps its contents, until the
// next call of the same function on the context, or until the last
// hsaKmtCloseKFD; it must not be freed. (Upstream returns malloc'd blocks
// the caller frees.) Two concurrent calls of the same snapshot function
// cannot share the block: the second one fails with UNAVAILABLE.
//
// Sizes: every byte count derived from a count (entries x entry size) is
// computed with checked arithmetic; a kernel that reports more entries
// than the context can hold (config::kMaxGpus devices, config::kMaxQueues
// queues) is RESOURCE_EXHAUSTED, never a wrapped allocation (upstream
// computes 120 x UINT32_MAX in 32 bits).
//
// Threading: any thread. The runtime capabilities are read and written
// under debug_lock(); no lock is held across an ioctl.
#ifndef HKE_LIB_DEBUG_DEBUG_H_
#define HKE_LIB_DEBUG_DEBUG_H_

#include <atomic>
#include <cstdint>

#include "lib/core/config.h"
#include "lib/core/status.h"
#include "lib/kfd/abi.h"

namespace hke {
class Context;
}

namespace hke::debug {

// Per-context debugger state. Only the small members are initialised; the
// snapshot arrays are written only by a snapshot call (touched lazily).
struct DebugState {
  // Capabilities the last successful RUNTIME_ENABLE reported, valid while
  // `caps_epoch` equals the context's open epoch (a reopen forgets them).
  uint32_t runtime_caps = 0;
  uint32_t caps_epoch = 0;
  bool caps_valid = false;
  // hsaKmtDbgEnable's block (the kernel's kfd_runtime_info).
  kfd::RuntimeInfo runtime_info;
  // Busy flags are 32-bit: a byte-sized atomic exchange needs libatomic on
  // some targets (riscv64), which a static firmware link may not have.
  std::atomic<uint32_t> enable_busy{0};
  // hsaKmtDbgGetDeviceData's block.
  std::atomic<uint32_t> devices_busy{0};
  kfd::DbgDeviceInfoEntry devices[config::kMaxGpus];
  // hsaKmtDbgGetQueueData's block and the ids SUSPEND_QUEUES reads.
  std::atomic<uint32_t> queues_busy{0};
  kfd::QueueSnapshotEntry queues[config::kMaxQueues];
  uint32_t queue_ids[config::kMaxQueues];
};

// SUCCESS when the device is open, the KFD is at least 1.13 and every GPU
// node reports DebugSupportedFirmware (CPU-only nodes are skipped);
// UNSUPPORTED (with the reason in the diagnostics) otherwise. Takes the
// topology like hsaKmtAcquireSystemProperties.
Status CheckRuntimeDebugSupport(Context& ctx);

// RUNTIME_ENABLE with the enable bit (and TTMP_SAVE when `setup_ttmp`),
// after CheckRuntimeDebugSupport. The kernel's errno is kept: EBUSY (the
// runtime is already enabled), EEXIST (queues were created before).
// The capabilities are stored for RuntimeCapabilities.
Status RuntimeEnable(Context& ctx, uint64_t r_debug, bool setup_ttmp);
// RUNTIME_ENABLE with mode 0, after CheckRuntimeDebugSupport; forgets the
// stored capabilities.
Status RuntimeDisable(Context& ctx);
// The capabilities of the last RuntimeEnable of this open (0 before one).
Status RuntimeCapabilities(Context& ctx, uint32_t* out);

// DBG_TRAP ENABLE for this process (pid of the open, dbg_fd = the KFD
// descriptor). *out_info points at DebugState::runtime_info, *out_size
// is the number of bytes the kernel filled. UNSUPPORTED below KFD 1.13.
Status DbgEnable(Context& ctx, void** out_info, uint32_t* out_size);
Status DbgDisable(Context& ctx);

// GET_DEVICE_SNAPSHOT into DebugState::devices. *out_count is the number of
// entries, *out_entry_size the stride (sizeof(kfd_dbg_device_info_entry)).
Status DeviceSnapshot(Context& ctx, void** out_data, uint32_t* out_count, uint32_t* out_entry_size);
// GET_QUEUE_SNAPSHOT (count, then entries) into DebugState::queues; with
// `suspend`, SUSPEND_QUEUES on every queue found and a fresh snapshot.
// No queue is a successful empty snapshot (upstream fails then).
Status QueueSnapshot(Context& ctx, void** out_data, uint32_t* out_count, uint32_t* out_entry_size,
                     bool suspend);

// Raw DBG_TRAP with the caller's 32-byte argument block. With `queues`
// (SUSPEND_QUEUES and RESUME_QUEUES only) the library first writes the
// KFD ids of those HSA_QUEUEIDs into the op's queue array (all handles are
// checked before anything is written). The reply is copied back into
// `args` only on success. `*out_return` is the ioctl's result, 0 on
// success (the platform table carries no positive ioctl results; the
// per-queue outcome of SUSPEND/RESUME is in the status bits the kernel
// writes into the queue array).
Status TrapIoctl(Context& ctx, void* args, const uint64_t* queues, uint64_t* out_return);

// The deprecated DBG_REGISTER / DBG_UNREGISTER ioctls (0x0D / 0x0E) for a
// node (a CPU node sends gpu_id 0, as upstream). Current kernels keep
// these request numbers only to answer EPERM (the old debugger interface
// was removed); the errno is kept.
Status LegacyRegister(Context& ctx, uint32_t node, bool register_node);

// The deprecated DBG_WAVE_CONTROL / DBG_ADDRESS_WATCH ioctls (0x10 /
// 0x0F) with upstream's packed buffers (lib/kfd/encode.h), built on the
// stack (at most kfd::kLegacyAddressWatchMaxBytes, 2820 bytes). Argument
// checks come first (INVALID_ARGUMENT / OUT_OF_RANGE); current kernels
// then answer EPERM.
Status LegacyWaveControl(Context& ctx, uint32_t node, uint32_t operand, uint32_t mode,
                         uint32_t trap_id, uint64_t message, uint64_t memory_va);
// `masks` holds `count` entries when masks[0] is nonzero, else one (as
// upstream reads it); `events` is optional (count entries when given).
Status LegacyAddressWatch(Context& ctx, uint32_t node, uint32_t count, const uint32_t* modes,
                          const uint64_t* addresses, const uint64_t* masks, const uint64_t* events);

}  // namespace hke::debug

#endif  // HKE_LIB_DEBUG_DEBUG_H_
