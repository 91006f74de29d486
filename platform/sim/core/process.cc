// kfdsim per-process ioctls that own no larger subsystem: GET_VERSION,
// SET_MEMORY_POLICY, GET_CLOCK_COUNTERS, the deprecated debugger calls,
// SET_SCRATCH_BACKING_VA, GET_TILE_CONFIG, SET_TRAP_HANDLER, SMI_EVENTS,
// SET_XNACK_MODE, CRIU_OP, RUNTIME_ENABLE,
// DBG_TRAP (upstream 0x26 and the DKMS 0x82), CREATE_PROCESS.
//
// Decisions (kernel behaviour unless stated):
//  - SET_MEMORY_POLICY: each policy 0 or 1, else EINVAL; unknown gpu EINVAL;
//    no VM -> ESRCH. Same gpu/bind rules for SCRATCH_BACKING_VA and
//    SET_TRAP_HANDLER.
//  - GET_CLOCK_COUNTERS: CPU = CLOCK_MONOTONIC_RAW ns, system =
//    CLOCK_BOOTTIME ns, frequency 1e9; the GPU counter runs at 100 MHz
//    (MONOTONIC_RAW / 10), 0 for an unknown gpu (still success).
//  - GET_TILE_CONFIG: 32 tile and 16 macro-tile words, all zero (what gfx9+
//    reports); counts clamped; gb_addr_config from the board.
//  - SMI_EVENTS: see smi.cc.
//  - SVM: see svm.cc.
//  - SET_XNACK_MODE: -1 queries; changing it with queues -> EBUSY; enabling
//    needs every SOC15 GPU to support per-process XNACK (gfx90a, gfx94x,
//    gfx950) or to run with retry faults on (noretry 0) and be older than
//    GC 10.1.1, else EPERM (kfd_process_xnack_mode). A new process starts
//    with XNACK on when every SOC15 GPU runs with retry faults and is older
//    than GC 10.1.1 (GpuDesc::noretry: the amdgpu noretry parameter, -1 the
//    GPU's default).
//  - CRIU_OP -> EACCES (the simulated process has no CAP_CHECKPOINT_RESTORE).
//  - RUNTIME_ENABLE: enable twice -> EBUSY, with queues -> EEXIST; disable
//    always succeeds; capabilities_mask is left as passed. r_debug and the
//    TTMP bit are kept for DBG_TRAP ENABLE's runtime info.
//  - DBG_TRAP (0x26), the kernel's order: a pid other than the caller's ->
//    ESRCH (the simulator serves one process and has no ptrace parent);
//    any op but ENABLE before ENABLE -> EINVAL; wave-launch, suspend,
//    resume, address-watch and set-flags ops without RUNTIME_ENABLE ->
//    EPERM. ENABLE: twice -> EALREADY, a pre-SOC15 GPU -> ENODEV, dbg_fd
//    not an open descriptor -> EBADF (any open file is the debugger's
//    event descriptor: debug_events.cc), the runtime info (r_debug, state,
//    ttmp) copied up to rinfo_size (EFAULT on a bad pointer) and rinfo_size
//    set to 16. DISABLE clears it and every raised status.
//    SET_EXCEPTIONS_ENABLED and QUERY_DEBUG_EVENT (EAGAIN when nothing is
//    raised) as in debug_events.cc; the snapshots report each queue's and
//    GPU's exception status and clear the bits their exception_mask names. GET_QUEUE_SNAPSHOT / GET_DEVICE_SNAPSHOT:
//    entry_size 0 -> EINVAL; entry_size clamped to the kernel's entry
//    (64 / 120 bytes) and that many bytes written per entry, at the
//    caller's stride, for min(count asked, count present) entries (EFAULT);
//    the count present returned. SUSPEND_QUEUES /
//    RESUME_QUEUES: at most 1024 ids read (EFAULT); an unknown id gets the
//    INVALID bit (1 << 30) written back, a queue already in the asked state
//    the ERROR bit (1 << 31); other queues change state. Other ops ->
//    EINVAL (not simulated). Positive return values (the kernel's count of
//    queues changed) cannot cross the platform table; the call returns 0.
//  - The DKMS DBG_TRAP 0x82 -> EINVAL (Debian's 5.2.3 thunk tolerates it).
//  - CREATE_PROCESS -> EINVAL (secondary processes are not simulated).
//
// Threading: state under proc_mu_.
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

int Simulator::IocGetVersion(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetVersionArgs*>(d);
  a->major_version = board_.desc.kfd_major;
  a->minor_version = board_.desc.kfd_minor;
  return 0;
}

int Simulator::IocSetMemoryPolicy(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SetMemoryPolicyArgs*>(d);
  if (a->default_policy > k::kCachePolicyNonCoherent ||
      a->alternate_policy > k::kCachePolicyNonCoherent) {
    return EINVAL;
  }
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  if (Bind(gpu) != 0) return ESRCH;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  g.default_policy = a->default_policy;
  g.alt_policy = a->alternate_policy;
  g.alt_base = a->alternate_aperture_base;
  g.alt_size = a->alternate_aperture_size;
  return 0;
}

int Simulator::IocGetClockCounters(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetClockCountersArgs*>(d);
  const uint64_t raw = MonotonicRawNs();
  a->gpu_clock_counter = GpuIndex(a->gpu_id) >= 0 ? raw / 10 : 0;
  a->cpu_clock_counter = raw;
  a->system_clock_counter = BoottimeNs();
  a->system_clock_freq = 1000000000ull;
  return 0;
}

int Simulator::IocDeprecatedDebug(IoctlCtx&, void*) { return EPERM; }

int Simulator::IocSetScratchBackingVa(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SetScratchBackingVaArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  if (Bind(gpu) != 0) return ESRCH;
  gpus_[static_cast<size_t>(gpu)].scratch_va = a->va_addr;
  return 0;
}

int Simulator::IocGetTileConfig(IoctlCtx&, void* d) {
  auto* a = static_cast<k::GetTileConfigArgs*>(d);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  constexpr uint32_t kTile = 32, kMacro = 16;
  const uint32_t zeros[kTile] = {};
  a->gb_addr_config = board_.desc.gpus[static_cast<size_t>(gpu)].gb_addr_config;
  a->num_banks = 0;
  a->num_ranks = 0;
  a->num_tile_configs = std::min(a->num_tile_configs, kTile);
  if (UserWrite(a->tile_config_ptr, zeros, a->num_tile_configs * sizeof(uint32_t)) != 0) {
    a->num_tile_configs = 0;
    return EFAULT;
  }
  a->num_macro_tile_configs = std::min(a->num_macro_tile_configs, kMacro);
  if (UserWrite(a->macro_tile_config_ptr, zeros, a->num_macro_tile_configs * sizeof(uint32_t)) !=
      0) {
    a->num_macro_tile_configs = 0;
    return EFAULT;
  }
  return 0;
}

int Simulator::IocSetTrapHandler(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SetTrapHandlerArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  if (Bind(gpu) != 0) return ESRCH;
  gpus_[static_cast<size_t>(gpu)].tba = a->tba_addr;
  gpus_[static_cast<size_t>(gpu)].tma = a->tma_addr;
  return 0;
}

bool Simulator::XnackModeOk(bool supported) const {
  for (const GpuDesc& g : board_.desc.gpus) {
    const uint32_t v = g.gfx_target_version;
    if (v < 90000) continue;  // pre-SOC15 GPUs do not take part
    const bool per_process = v == 90010 || (v >= 90400 && v <= 90402) || v == 90500;
    if (supported && per_process) continue;
    if (v >= 100100) return false;  // GC 10.1.1 and later: no preemption in a fault
    if (g.noretry) return false;
  }
  return true;
}

int Simulator::IocSetXnackMode(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SetXnackModeArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  if (a->xnack_enabled < 0) {
    a->xnack_enabled = xnack_enabled_ ? 1 : 0;
    return 0;
  }
  if (!queues_.empty()) return EBUSY;
  if ((a->xnack_enabled != 0) == xnack_enabled_) return 0;
  if (a->xnack_enabled != 0 && !XnackModeOk(true)) return EPERM;
  xnack_enabled_ = a->xnack_enabled != 0;
  return 0;
}

int Simulator::IocCriu(IoctlCtx&, void*) { return EACCES; }

int Simulator::IocRuntimeEnable(IoctlCtx&, void* d) {
  auto* a = static_cast<k::RuntimeEnableArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  if ((a->mode_mask & k::kRuntimeEnableModeEnable) == 0) {
    runtime_enabled_ = false;
    (void)DebugEventRaiseLocked(k::EcMask(k::kEcProcessRuntime), -1, 0);
    return 0;
  }
  if (runtime_enabled_) return EBUSY;
  if (!queues_.empty()) return EEXIST;
  runtime_enabled_ = true;
  runtime_r_debug_ = a->r_debug;
  runtime_ttmp_ = (a->mode_mask & k::kRuntimeEnableModeTtmpSave) != 0;
  (void)DebugEventRaiseLocked(k::EcMask(k::kEcProcessRuntime), -1, 0);
  return 0;
}

namespace {

constexpr uint32_t kQueueErrorBit = 1u << 31;    // KFD_DBG_QUEUE_ERROR_MASK
constexpr uint32_t kQueueInvalidBit = 1u << 30;  // KFD_DBG_QUEUE_INVALID_MASK

bool NeedsRuntime(uint32_t op) {
  return op == k::kDbgTrapSetWaveLaunchOverride || op == k::kDbgTrapSetWaveLaunchMode ||
         op == k::kDbgTrapSuspendQueues || op == k::kDbgTrapResumeQueues ||
         op == k::kDbgTrapSetNodeAddressWatch || op == k::kDbgTrapClearNodeAddressWatch ||
         op == k::kDbgTrapSetFlags;
}

}  // namespace

int Simulator::IocDbgTrap(IoctlCtx&, void* d) {
  auto* a = static_cast<k::DbgTrapArgs*>(d);
  if (IsSecondary()) return EOPNOTSUPP;  // debug trap: primary process only
  if (a->pid != static_cast<uint32_t>(SelfPid())) return ESRCH;
  // The debugger's descriptor is checked before the process lock (the
  // device-file lookup takes the device lock). Any open descriptor will do.
  int dbg_fd_error = 0;
  bool dbg_fd_device = false;
  if (a->op == k::kDbgTrapEnable) {
    const int fd = a->enable.dbg_fd > 0x7fffffffu ? -1 : static_cast<int>(a->enable.dbg_fd);
    if (fd < 0 || fcntl(fd, F_GETFD) < 0) {
      dbg_fd_error = EBADF;
    } else {
      dbg_fd_device = IsSimulatedDeviceFd(fd);
    }
  }
  std::lock_guard<std::mutex> pl(proc_mu_);
  if (a->op != k::kDbgTrapEnable && !debug_trap_enabled_) return EINVAL;
  if (!runtime_enabled_ && NeedsRuntime(a->op)) return EPERM;
  switch (a->op) {
    case k::kDbgTrapEnable: {
      if (debug_trap_enabled_) return EALREADY;
      for (size_t g = 0; g < board_.desc.gpus.size(); ++g) {
        if (!IsSoc15(static_cast<int>(g))) return ENODEV;
      }
      if (dbg_fd_error != 0) return dbg_fd_error;
      k::RuntimeInfo info{};
      info.r_debug = runtime_r_debug_;
      info.runtime_state = runtime_enabled_ ? k::kRuntimeStateEnabled : k::kRuntimeStateDisabled;
      info.ttmp_setup = runtime_ttmp_ ? 1 : 0;
      const size_t n = std::min<size_t>(a->enable.rinfo_size, sizeof(info));
      if (n != 0 && UserWrite(a->enable.rinfo_ptr, &info, n) != 0) return EFAULT;
      DebugEventsResetLocked();
      if (int r = DebugEventFdTakeLocked(static_cast<int>(a->enable.dbg_fd), dbg_fd_device)) {
        return r;
      }
      a->enable.rinfo_size = static_cast<uint32_t>(sizeof(info));
      debug_trap_enabled_ = true;
      debug_exception_mask_ = a->enable.exception_mask;
      return 0;
    }
    case k::kDbgTrapDisable:
      debug_trap_enabled_ = false;
      debug_exception_mask_ = 0;
      suspended_queues_.clear();
      DebugEventsResetLocked();
      return 0;
    case k::kDbgTrapSetExceptionsEnabled: {
      // kfd_dbg_set_enabled_debug_exception_mask: a status already raised
      // that the new mask covers is announced at once.
      uint64_t found = process_exception_status_;
      for (const auto& [id, queue] : queues_) {
        (void)id;
        found |= queue.exception_status;
      }
      for (uint64_t status : device_exception_status_) found |= status;
      debug_exception_mask_ = a->set_exceptions_enabled.exception_mask;
      if (debug_exception_mask_ & found) DebugEventNotifyLocked();
      return 0;
    }
    case k::kDbgTrapQueryDebugEvent: {
      // kfd_dbg_ev_query_debug_event: the first queue, then GPU, then the
      // process with a subscribed status; the asked bits are cleared.
      k::DbgTrapQueryDebugEventArgs& q = a->query_debug_event;
      const uint64_t clear = q.exception_mask;
      q.exception_mask = 0;
      q.queue_id = 0;
      q.gpu_id = 0;
      for (auto& [id, queue] : queues_) {
        if ((queue.exception_status & debug_exception_mask_) == 0) continue;
        q.exception_mask = queue.exception_status;
        q.queue_id = id;
        q.gpu_id = queue.view.gpu_id;
        queue.exception_status &= ~clear;
        return 0;
      }
      for (size_t g = 0; g < device_exception_status_.size(); ++g) {
        if ((device_exception_status_[g] & debug_exception_mask_) == 0) continue;
        q.exception_mask = device_exception_status_[g];
        q.gpu_id = board_.desc.gpus[g].gpu_id;
        device_exception_status_[g] &= ~clear;
        return 0;
      }
      if (process_exception_status_ & debug_exception_mask_) {
        q.exception_mask = process_exception_status_;
        process_exception_status_ &= ~clear;
        return 0;
      }
      return EAGAIN;
    }
    case k::kDbgTrapSuspendQueues:
    case k::kDbgTrapResumeQueues: {
      const bool suspend = a->op == k::kDbgTrapSuspendQueues;
      const uint32_t n = suspend ? a->suspend_queues.num_queues : a->resume_queues.num_queues;
      const uint64_t ptr =
          suspend ? a->suspend_queues.queue_array_ptr : a->resume_queues.queue_array_ptr;
      if (n > 1024) return EINVAL;
      std::vector<uint32_t> ids(n);
      if (n != 0 && UserRead(ids.data(), ptr, n * sizeof(uint32_t)) != 0) return EFAULT;
      for (uint32_t& id : ids) {
        const uint32_t q = id & ~(kQueueErrorBit | kQueueInvalidBit);
        if (queues_.count(q) == 0) {
          id = q | kQueueInvalidBit;
          continue;
        }
        auto it = std::find(suspended_queues_.begin(), suspended_queues_.end(), q);
        const bool is_suspended = it != suspended_queues_.end();
        if (is_suspended == suspend) {
          id = q | kQueueErrorBit;
          continue;
        }
        if (suspend) suspended_queues_.push_back(q);
        else suspended_queues_.erase(it);
        id = q;
      }
      if (n != 0 && UserWrite(ptr, ids.data(), n * sizeof(uint32_t)) != 0) return EFAULT;
      return 0;
    }
    case k::kDbgTrapGetQueueSnapshot: {
      k::DbgTrapQueueSnapshotArgs& q = a->queue_snapshot;
      const uint32_t asked = q.num_queues;
      q.num_queues = 0;
      if (q.entry_size == 0) return EINVAL;
      const uint64_t stride = q.entry_size;  // the caller's, even when larger than ours
      q.entry_size = std::min<uint32_t>(q.entry_size, sizeof(k::QueueSnapshotEntry));
      for (auto& [id, queue] : queues_) {
        if (q.num_queues < asked) {
          k::QueueSnapshotEntry e{};
          e.ring_base_address = queue.view.ring_base_address;
          e.write_pointer_address = queue.view.write_pointer_address;
          e.read_pointer_address = queue.view.read_pointer_address;
          e.ctx_save_restore_address = queue.ctx_save_restore_address;
          e.queue_id = id;
          e.gpu_id = queue.view.gpu_id;
          e.ring_size = queue.view.ring_size;
          e.queue_type = queue.view.queue_type;
          e.ctx_save_restore_area_size = queue.ctx_save_restore_size;
          e.exception_status = queue.exception_status;
          const uint64_t dst = q.snapshot_buf_ptr + uint64_t{q.num_queues} * stride;
          if (UserWrite(dst, &e, q.entry_size) != 0) return EFAULT;
          queue.exception_status &= ~q.exception_mask;
        }
        q.num_queues += 1;
      }
      return 0;
    }
    case k::kDbgTrapGetDeviceSnapshot: {
      k::DbgTrapDeviceSnapshotArgs& s = a->device_snapshot;
      if (s.entry_size == 0) return EINVAL;
      const auto present = static_cast<uint32_t>(board_.desc.gpus.size());
      const uint32_t n = std::min(s.num_devices, present);
      s.num_devices = present;
      const uint64_t stride = s.entry_size;  // the caller's, even when larger than ours
      s.entry_size = std::min<uint32_t>(s.entry_size, sizeof(k::DbgDeviceInfoEntry));
      for (uint32_t i = 0; i < n; ++i) {
        const GpuDesc& g = board_.desc.gpus[i];
        k::ProcessDeviceApertures ap{};
        FillApertures(static_cast<int>(i), &ap);
        k::DbgDeviceInfoEntry e{};
        e.lds_base = ap.lds_base;
        e.lds_limit = ap.lds_limit;
        e.scratch_base = ap.scratch_base;
        e.scratch_limit = ap.scratch_limit;
        e.gpuvm_base = ap.gpuvm_base;
        e.gpuvm_limit = ap.gpuvm_limit;
        e.gpu_id = g.gpu_id;
        e.location_id = g.location_id;
        e.vendor_id = g.vendor_id;
        e.device_id = g.device_id;
        e.revision_id = g.pci_rev;
        e.gfx_target_version = g.gfx_target_version;
        e.simd_count = g.simd_count;
        e.max_waves_per_simd = g.max_waves_per_simd;
        e.array_count = g.array_count;
        e.simd_arrays_per_engine = g.simd_arrays_per_engine;
        e.num_xcc = g.num_xcc;
        e.capability = g.capability;
        e.debug_prop = g.debug_prop;
        if (i < device_exception_status_.size()) {
          e.exception_status = device_exception_status_[i];
          device_exception_status_[i] &= ~s.exception_mask;
        }
        if (UserWrite(s.snapshot_buf_ptr + uint64_t{i} * stride, &e, s.entry_size) != 0) {
          return EFAULT;
        }
      }
      return 0;
    }
    default:
      return EINVAL;
  }
}

int Simulator::IocDkmsDebug(IoctlCtx&, void*) { return EINVAL; }

}  // namespace kfdsim
