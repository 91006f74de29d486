// kfdsim DKMS profiling ioctls: RLC_SPM (0x84) and PC_SAMPLE (0x85, served
// from KFD 1.16 on). Upstream kernels have neither and answer ENOTTY; the
// simulator behaves as a ROCm DKMS kernel.
//
// Decisions (the DKMS kfd_spm.c / kfd_pc_sampling.c behaviour unless stated):
//  - Both: an unknown gpu_id -> EINVAL. No ACQUIRE_VM is needed (the kernel
//    finds the process-device data it creates with the process).
//  - RLC_SPM op other than ACQUIRE(0)/RELEASE(1)/SET_DEST_BUF(2) -> EINVAL.
//    ACQUIRE twice in the process -> EINVAL (the kernel's answer for a
//    process that holds it already). Another process holding the GPU's SPM
//    is not simulated (one process per simulator; the kernel's answer for
//    that case, in amdgpu's RLC code, was not found, so no errno is
//    invented). RELEASE or SET_DEST_BUF without ACQUIRE -> EINVAL.
//  - SET_DEST_BUF: buf_size is not validated (the kernel does not either).
//    When a previous buffer exists the simulated RLC streams into it: a
//    nonzero timeout fills it to the end (the wait completes at once; no
//    simulated time passes, so timeout comes back unchanged), a zero
//    timeout copies one period of 256 bytes (less if the buffer is
//    fuller); bytes_copied is that buffer's fill and has_data_loss its loss
//    flag (set only when writing to the buffer faults, as the kernel does;
//    a real ring overflow needs real time and is not simulated). Without a
//    previous buffer both fields are left as sent. The stream is 32-bit
//    words counting up from 0 since ACQUIRE. dest_buf 0 stops streaming.
//  - PC_SAMPLE capabilities per GPU, by gfx_target_version (the DKMS table
//    by GC IP version): gfx90a (GC 9.4.2) host trap; gfx940/941/942 (taken
//    as GC 9.4.3; parts with GC 9.4.4 report gfx942 too and are not in that
//    table, which the simulator cannot tell apart) host trap and stochastic;
//    gfx950 (GC 9.5.0) host trap; every other GPU none. Host trap: interval
//    1..2^64-1 microseconds; stochastic: 256..2^31 clock cycles, a power
//    of two.
//  - PC_SAMPLE op above STOP -> EINVAL; DESTROY/START/STOP with a trace id
//    that is not a session of that GPU -> EINVAL; QUERY/CREATE while
//    DBG_TRAP is enabled -> EBUSY.
//  - QUERY: a GPU without methods -> EOPNOTSUPP. Without the FULL flag and
//    with sessions running, the count is the methods in use and their
//    configurations are written while they fit (stochastic first; the
//    kernel then advances sample_info_ptr by one record in the reply); no
//    ENOSPC on that path. Otherwise the count is the GPU's methods: NULL
//    pointer or zero capacity -> the count only; capacity below it ->
//    ENOSPC (with the count); else the records (EFAULT on a bad pointer).
//    The reserved word carries the PC-sampling interface version (1.1),
//    as the DKMS kernel writes it.
//  - CREATE: num_sample_info other than 1 -> EINVAL; the record is read
//    (EFAULT); a method/type/interval the GPU does not offer -> EOPNOTSUPP;
//    a power-of-two method with another interval -> EINVAL; a running
//    configuration of the same method that differs in any byte -> the
//    running one written back into the record and EEXIST. Trace ids are
//    per GPU, handed out cyclically from 1.
//  - DESTROY of a started session -> EBUSY; START of a started one and
//    STOP of a stopped one -> EALREADY.
//  - Process teardown (close, fork) drops SPM and every session.
//
// Threading: state under proc_mu_.
#include <errno.h>

#include <cstring>
#include <vector>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint32_t kSpmPeriodBytes = 256;
constexpr uint32_t kPcsInterfaceVersion = (1u << 16) | 1u;

const k::PcSampleInfo kHostTrap = {0, 1, ~0ull, 0, k::kPcsMethodHostTrap, k::kPcsTypeTimeUs};
const k::PcSampleInfo kStochastic = {0, 256, 1ull << 31, k::kPcsFlagPowerOf2,
                                     k::kPcsMethodStochastic, k::kPcsTypeClockCycles};

// The methods a GPU offers, in the kernel's table order.
std::vector<k::PcSampleInfo> Methods(uint32_t gfx_target_version) {
  switch (gfx_target_version) {
    case 90010:
    case 90500:
      return {kHostTrap};
    case 90400:
    case 90401:
    case 90402:
      return {kHostTrap, kStochastic};
    default:
      return {};
  }
}

// Index into GpuProc::pcs_config / pcs_users.
size_t MethodSlot(uint32_t method) { return method == k::kPcsMethodStochastic ? 1 : 0; }

}  // namespace

int Simulator::IocRlcSpm(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SpmArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  switch (a->op) {
    case k::kSpmOpAcquire:
      if (g.spm_acquired) return EINVAL;
      g.spm_acquired = true;
      g.spm_buf = 0;
      g.spm_buf_size = 0;
      g.spm_filled = 0;
      g.spm_records = 0;
      return 0;
    case k::kSpmOpRelease:
      if (!g.spm_acquired) return EINVAL;
      g.spm_acquired = false;
      g.spm_buf = 0;
      g.spm_buf_size = 0;
      return 0;
    case k::kSpmOpSetDestBuf:
      break;
    default:
      return EINVAL;
  }
  if (!g.spm_acquired) return EINVAL;
  if (g.spm_buf != 0) {
    const uint32_t room = g.spm_buf_size - g.spm_filled;
    const uint32_t n = a->timeout != 0 ? room : std::min(room, kSpmPeriodBytes);
    bool lost = false;
    if (n != 0) {
      std::vector<uint8_t> bytes(n);
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t word = g.spm_records + (g.spm_filled + i) / 4;
        bytes[i] = static_cast<uint8_t>(word >> (8 * ((g.spm_filled + i) % 4)));
      }
      if (UserWrite(g.spm_buf + g.spm_filled, bytes.data(), n) != 0) lost = true;
      g.spm_filled += n;
    }
    a->bytes_copied = g.spm_filled;
    a->has_data_loss = lost ? 1u : 0u;
    g.spm_records += g.spm_filled / 4;
  }
  g.spm_buf = a->dest_buf;
  g.spm_buf_size = a->dest_buf != 0 ? a->buf_size : 0;
  g.spm_filled = 0;
  return 0;
}

int Simulator::IocPcSample(IoctlCtx&, void* d) {
  auto* a = static_cast<k::PcSampleArgs*>(d);
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(a->gpu_id);
  if (gpu < 0) return EINVAL;
  if (a->op > k::kPcsOpLast) return EINVAL;
  GpuProc& g = gpus_[static_cast<size_t>(gpu)];
  GpuProc::PcsTrace* trace = nullptr;
  if (a->op != k::kPcsOpQueryCapabilities && a->op != k::kPcsOpCreate) {
    auto it = g.pcs_traces.find(a->trace_id);
    if (it == g.pcs_traces.end()) return EINVAL;
    trace = &it->second;
  } else if (debug_trap_enabled_) {
    return EBUSY;
  }
  const std::vector<k::PcSampleInfo> methods =
      Methods(board_.desc.gpus[static_cast<size_t>(gpu)].gfx_target_version);
  switch (a->op) {
    case k::kPcsOpQueryCapabilities: {
      const uint32_t capacity = a->num_sample_info;
      a->reserved = kPcsInterfaceVersion;
      if (methods.empty()) return EOPNOTSUPP;
      if (a->flags != k::kPcsQueryTypeFull && (g.pcs_users[0] != 0 || g.pcs_users[1] != 0)) {
        uint32_t count = 0;
        bool fault = false;
        for (size_t m : {size_t{1}, size_t{0}}) {
          if (g.pcs_users[m] == 0) continue;
          ++count;
          if (a->sample_info_ptr != 0 && count <= capacity) {
            fault |= UserWrite(a->sample_info_ptr, &g.pcs_config[m], sizeof(k::PcSampleInfo)) != 0;
            if (m == 1) a->sample_info_ptr += sizeof(k::PcSampleInfo);
          }
        }
        a->num_sample_info = count;
        return fault ? EFAULT : 0;
      }
      a->num_sample_info = static_cast<uint32_t>(methods.size());
      if (a->sample_info_ptr == 0 || capacity == 0) return 0;
      if (capacity < methods.size()) return ENOSPC;
      if (UserWrite(a->sample_info_ptr, methods.data(), methods.size() * sizeof(k::PcSampleInfo)) !=
          0) {
        return EFAULT;
      }
      return 0;
    }
    case k::kPcsOpCreate: {
      if (a->num_sample_info != 1) return EINVAL;
      k::PcSampleInfo want{};
      if (UserRead(&want, a->sample_info_ptr, sizeof(want)) != 0) return EFAULT;
      const k::PcSampleInfo* format = nullptr;
      for (const k::PcSampleInfo& m : methods) {
        if (want.method == m.method && want.type == m.type && want.interval >= m.interval_min &&
            want.interval <= m.interval_max) {
          format = &m;
          break;
        }
      }
      if (format == nullptr) return EOPNOTSUPP;
      if (format->flags == k::kPcsFlagPowerOf2 && (want.interval & (want.interval - 1)) != 0) {
        return EINVAL;
      }
      const size_t m = MethodSlot(format->method);
      if (g.pcs_users[m] != 0 && std::memcmp(&g.pcs_config[m], &want, sizeof(want)) != 0) {
        if (UserWrite(a->sample_info_ptr, &g.pcs_config[m], sizeof(k::PcSampleInfo)) != 0) {
          return EFAULT;
        }
        return EEXIST;
      }
      uint32_t id = g.pcs_next_id;
      while (id == 0 || id > 0x7FFFFFFFu || g.pcs_traces.count(id) != 0) {
        id = id == 0 || id > 0x7FFFFFFFu ? 1 : id + 1;
      }
      g.pcs_next_id = id + 1;
      GpuProc::PcsTrace t;
      t.method = format->method;
      g.pcs_traces[id] = t;
      if (g.pcs_users[m]++ == 0) g.pcs_config[m] = want;
      a->trace_id = id;
      return 0;
    }
    case k::kPcsOpDestroy: {
      if (trace->enabled) return EBUSY;
      const size_t m = MethodSlot(trace->method);
      if (--g.pcs_users[m] == 0) g.pcs_config[m] = k::PcSampleInfo{};
      g.pcs_traces.erase(a->trace_id);
      return 0;
    }
    case k::kPcsOpStart:
      if (trace->enabled) return EALREADY;
      trace->enabled = true;
      return 0;
    case k::kPcsOpStop:
      if (!trace->enabled) return EALREADY;
      trace->enabled = false;
      return 0;
    default:
      return EINVAL;
  }
}

}  // namespace kfdsim
