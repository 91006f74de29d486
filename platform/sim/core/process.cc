// kfdsim per-process ioctls that own no larger subsystem: GET_VERSION,
// SET_MEMORY_POLICY, GET_CLOCK_COUNTERS, the deprecated debugger calls,
// SET_SCRATCH_BACKING_VA, GET_TILE_CONFIG, SET_TRAP_HANDLER, SMI_EVENTS,
// SVM (a small attribute store), SET_XNACK_MODE, CRIU_OP, RUNTIME_ENABLE,
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
//  - SVM: start/size page aligned and nonzero, else EINVAL; attribute types
//    up to GRANULARITY and known gpu_ids (or SYSMEM/UNDEFINED where the
//    kernel allows them), else EINVAL. SET stores attributes per range
//    (ranges are split at the boundaries); GET folds them the kernel's way
//    (locations: common value or UNDEFINED; ACCESS*: per gpu; SET_FLAGS:
//    flags set everywhere; CLR_FLAGS: flags clear everywhere; GRANULARITY:
//    minimum). Pages never set report the defaults. No migration, no
//    residency, no check that the range is mapped.
//  - SET_XNACK_MODE: -1 queries; changing it with queues -> EBUSY; enabling
//    needs every SOC15 GPU to support per-process XNACK (gfx90a, gfx94x,
//    gfx950), else EPERM (the module default noretry=1 is assumed).
//  - CRIU_OP -> EACCES (the simulated process has no CAP_CHECKPOINT_RESTORE).
//  - RUNTIME_ENABLE: enable twice -> EBUSY, with queues -> EEXIST; disable
//    always succeeds; capabilities_mask is left as passed.
//  - DBG_TRAP (0x26) and the DKMS DBG_TRAP 0x82 -> EINVAL (no debugger is
//    simulated; Debian's 5.2.3 thunk and ROCR tolerate it).
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

// ---- SVM ----

int Simulator::IocSvm(IoctlCtx& c, void* d) {
  auto* a = static_cast<k::SvmArgs*>(d);
  const uint64_t need = sizeof(k::SvmArgs) + uint64_t{a->nattr} * sizeof(k::SvmAttribute);
  if (need > std::max<uint64_t>(c.user_size, sizeof(k::SvmArgs))) return EINVAL;
  if ((a->start_addr & (page_size_ - 1)) != 0 || (a->size & (page_size_ - 1)) != 0) return EINVAL;
  if (a->start_addr == 0 || a->size == 0 || a->start_addr + a->size < a->start_addr) return EINVAL;
  if (a->op != k::kSvmOpSetAttr && a->op != k::kSvmOpGetAttr) return EINVAL;
  auto* attrs = reinterpret_cast<k::SvmAttribute*>(static_cast<uint8_t*>(d) + sizeof(k::SvmArgs));
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto known = [this](uint32_t v) { return GpuIndex(v) >= 0; };
  for (uint32_t i = 0; i < a->nattr; ++i) {
    const uint32_t t = attrs[i].type, v = attrs[i].value;
    switch (t) {
      case k::kSvmAttrPreferredLoc:
        if (a->op == k::kSvmOpSetAttr && v != k::kSvmLocationSysmem &&
            v != k::kSvmLocationUndefined && !known(v)) {
          return EINVAL;
        }
        break;
      case k::kSvmAttrPrefetchLoc:
        if (a->op == k::kSvmOpSetAttr && v != k::kSvmLocationSysmem && !known(v)) return EINVAL;
        break;
      case k::kSvmAttrAccess:
      case k::kSvmAttrAccessInPlace:
      case k::kSvmAttrNoAccess:
        if (!known(v)) return EINVAL;
        break;
      case k::kSvmAttrSetFlags:
      case k::kSvmAttrClrFlags:
      case k::kSvmAttrGranularity:
        break;
      default:
        return EINVAL;
    }
  }
  const uint64_t start = a->start_addr, end = a->start_addr + a->size;
  SvmRange defaults;
  if (xnack_enabled_) {
    for (const GpuDesc& g : board_.desc.gpus) defaults.access[g.gpu_id] = k::kSvmAttrAccess;
  }
  if (a->op == k::kSvmOpSetAttr) {
    // Split the ranges straddling the boundaries, then fill the gaps.
    auto split = [this](uint64_t at) {
      auto it = svm_.upper_bound(at);
      if (it == svm_.begin()) return;
      --it;
      if (it->first < at && it->second.end > at) {
        SvmRange tail = it->second;
        it->second.end = at;
        svm_.emplace(at, tail);
      }
    };
    split(start);
    split(end);
    uint64_t cursor = start;
    for (auto it = svm_.lower_bound(start); cursor < end;) {
      const uint64_t next = (it == svm_.end() || it->first >= end) ? end : it->first;
      if (cursor < next) {
        SvmRange r = defaults;
        r.end = next;
        svm_.emplace(cursor, r);
      }
      if (it == svm_.end() || it->first >= end) break;
      cursor = it->second.end;
      ++it;
    }
    for (auto it = svm_.lower_bound(start); it != svm_.end() && it->first < end; ++it) {
      SvmRange& r = it->second;
      for (uint32_t i = 0; i < a->nattr; ++i) {
        const uint32_t t = attrs[i].type, v = attrs[i].value;
        switch (t) {
          case k::kSvmAttrPreferredLoc: r.preferred = v; break;
          case k::kSvmAttrPrefetchLoc: r.prefetch = v; break;
          case k::kSvmAttrAccess:
          case k::kSvmAttrAccessInPlace:
          case k::kSvmAttrNoAccess: r.access[v] = t; break;
          case k::kSvmAttrSetFlags: r.flags |= v; break;
          case k::kSvmAttrClrFlags: r.flags &= ~v; break;
          case k::kSvmAttrGranularity: r.granularity = std::min(v, 0x3Fu); break;
          default: break;
        }
      }
    }
    return 0;
  }
  // GET: fold over the covered ranges and the uncovered gaps (defaults).
  std::vector<const SvmRange*> parts;
  uint64_t cursor = start;
  bool gap = false;
  auto it = svm_.upper_bound(start);
  if (it != svm_.begin() && std::prev(it)->second.end > start) --it;
  for (; it != svm_.end() && it->first < end; ++it) {
    if (it->first > cursor) gap = true;
    parts.push_back(&it->second);
    cursor = it->second.end;
  }
  if (cursor < end) gap = true;
  if (gap) parts.push_back(&defaults);
  for (uint32_t i = 0; i < a->nattr; ++i) {
    k::SvmAttribute& at = attrs[i];
    switch (at.type) {
      case k::kSvmAttrPreferredLoc:
      case k::kSvmAttrPrefetchLoc: {
        const bool pref = at.type == k::kSvmAttrPreferredLoc;
        uint32_t v = pref ? parts[0]->preferred : parts[0]->prefetch;
        for (const SvmRange* r : parts) {
          if ((pref ? r->preferred : r->prefetch) != v) v = k::kSvmLocationUndefined;
        }
        at.value = v;
        break;
      }
      case k::kSvmAttrAccess:
      case k::kSvmAttrAccessInPlace:
      case k::kSvmAttrNoAccess: {
        bool all_access = true, all_in_place = true;
        for (const SvmRange* r : parts) {
          auto f = r->access.find(at.value);
          const uint32_t t = f == r->access.end() ? k::kSvmAttrNoAccess : f->second;
          if (t != k::kSvmAttrAccess) all_access = false;
          if (t != k::kSvmAttrAccessInPlace) all_in_place = false;
        }
        at.type = all_access ? k::kSvmAttrAccess
                             : (all_in_place ? k::kSvmAttrAccessInPlace : k::kSvmAttrNoAccess);
        break;
      }
      case k::kSvmAttrSetFlags: {
        uint32_t v = k::kSvmFlagKnownMask;
        for (const SvmRange* r : parts) v &= r->flags;
        at.value = v;
        break;
      }
      case k::kSvmAttrClrFlags: {
        uint32_t v = k::kSvmFlagKnownMask;
        for (const SvmRange* r : parts) v &= ~r->flags;
        at.value = v;
        break;
      }
      case k::kSvmAttrGranularity: {
        uint32_t v = 0x3F;
        for (const SvmRange* r : parts) v = std::min(v, r->granularity);
        at.value = v;
        break;
      }
      default: break;
    }
  }
  return 0;
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
  if (a->xnack_enabled != 0) {
    for (const GpuDesc& g : board_.desc.gpus) {
      const uint32_t v = g.gfx_target_version;
      if (v < 90000) continue;  // pre-SOC15 GPUs do not take part
      const bool per_process = v == 90010 || (v >= 90400 && v <= 90402) || v == 90500;
      if (!per_process) return EPERM;
    }
  }
  xnack_enabled_ = a->xnack_enabled != 0;
  return 0;
}

int Simulator::IocCriu(IoctlCtx&, void*) { return EACCES; }

int Simulator::IocRuntimeEnable(IoctlCtx&, void* d) {
  auto* a = static_cast<k::RuntimeEnableArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  if ((a->mode_mask & k::kRuntimeEnableModeEnable) == 0) {
    runtime_enabled_ = false;
    return 0;
  }
  if (runtime_enabled_) return EBUSY;
  if (!queues_.empty()) return EEXIST;
  runtime_enabled_ = true;
  return 0;
}

int Simulator::IocDbgTrap(IoctlCtx&, void*) { return EINVAL; }

int Simulator::IocCreateProcess(IoctlCtx&, void*) { return EINVAL; }

int Simulator::IocDkmsDebug(IoctlCtx&, void*) { return EINVAL; }

}  // namespace kfdsim
