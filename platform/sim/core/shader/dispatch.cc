// Workgroup scheduling and the initial wave state (see dispatch.h).
//
// Initial state of a wave (LLVM AMDGPUUsage, "Initial Kernel Execution
// State"): s0.. hold the rsrc2 USER_SGPR count of user-data dwords; the
// next SGPRs hold, in this order and only when enabled in rsrc2, the
// workgroup id x, y, z, the workgroup info (waves in the workgroup) and
// the private segment wave byte offset (SCRATCH_EN). EXEC has a bit per
// work-item of the wave; v0 (v1, v2) hold the work-item ids x (y, z), or
// all three packed in v0 on targets with packed_tid. On gfx940+
// (architected flat scratch) FLAT_SCRATCH holds the wave's scratch base.
// The wave's scratch is the queue's scratch backing + wave slot *
// align(private_bytes * 64, 1 KiB); workgroups run one at a time, so the
// slot is the wave's index in its workgroup. The last workgroup of a
// dimension that the grid does not fill is partial.
#include "platform/sim/core/shader/dispatch.h"

#include <cstring>

#include "lib/kfd/abi.h"
#include "platform/sim/core/shader/interp.h"

namespace kfdsim::shader {

namespace k = hke::kfd;

namespace {

// Waves of a workgroup get a slice this long before the next one runs, so
// that busy-waiting on each other (without s_barrier) still progresses.
constexpr uint64_t kWaveSlice = 4096;

uint32_t CeilDiv(uint32_t a, uint32_t b) { return a / b + (a % b != 0 ? 1u : 0u); }

}  // namespace

uint32_t WaveExceptionCode(const Wave& w) {
  switch (w.error) {
    case WaveError::kIllegalInstruction: return k::kEcQueueWaveIllegalInstruction;
    case WaveError::kMemoryViolation: return k::kEcQueueWaveMemoryViolation;
    case WaveError::kAbort: return k::kEcQueueWaveAbort;
    case WaveError::kDebugTrap: return k::kEcQueueWaveTrap;
    case WaveError::kNone: break;
  }
  return k::kEcNone;
}

Dispatch::Dispatch(const KernelSetup& setup) : setup_(setup) {
  for (int d = 0; d < 3; ++d) {
    if (setup_.wg[d] == 0) setup_.wg[d] = 1;
    groups_[d] = CeilDiv(setup_.grid[d], setup_.wg[d]);
  }
  const uint32_t wg_items = setup_.wg[0] * setup_.wg[1] * setup_.wg[2];
  wave_count_ = CeilDiv(wg_items, kLanes);
  waves_.resize(wave_count_);
  for (auto& w : waves_) w = std::make_unique<Wave>();
  lds_size_ = (setup_.lds_bytes + 3u) & ~3u;
  if (lds_size_ != 0) lds_.assign(lds_size_, 0);
  const uint64_t per_wave = (uint64_t{setup_.private_bytes} * kLanes + 1023u) & ~uint64_t{1023};
  wave_scratch_ = per_wave > 0xFFFFFFFFull ? 0xFFFFFC00u : static_cast<uint32_t>(per_wave);
  finished_ = groups_[0] == 0 || groups_[1] == 0 || groups_[2] == 0;
}

Dispatch::~Dispatch() = default;

uint64_t Dispatch::workgroup_count() const {
  return uint64_t{groups_[0]} * groups_[1] * groups_[2];
}

void Dispatch::InitWave(Wave& w, unsigned index, unsigned lanes, const uint32_t size[3]) {
  const GfxTraits& t = *setup_.traits;
  const Rsrc2 rsrc2(setup_.rsrc2);
  std::memset(w.sgpr, 0, sizeof(w.sgpr));
  w.pc = setup_.entry;
  w.scc = false;
  w.mode = 0;
  w.trapsts = 0;
  w.state = WaveState::kRunning;
  w.error = WaveError::kNone;
  w.fault_kind = Fault::kNone;
  w.fault_va = 0;
  w.reason.clear();
  w.instructions = 0;
  // VGPRs the kernel allocated start at 0 (hardware leaves them undefined).
  const uint32_t granules = (setup_.rsrc1 & 0x3F) + 1;
  w.vgpr_count = granules * t.vgpr_granule > kVgprs ? kVgprs : granules * t.vgpr_granule;
  for (uint32_t r = 0; r < w.vgpr_count; ++r) std::memset(w.v[r], 0, sizeof(w.v[r]));
  unsigned s = rsrc2.user_sgprs();
  for (unsigned i = 0; i < s; ++i) w.sgpr[i] = setup_.user_sgpr[i];
  if (rsrc2.tgid_x()) w.sgpr[s++] = current_[0];
  if (rsrc2.tgid_y()) w.sgpr[s++] = current_[1];
  if (rsrc2.tgid_z()) w.sgpr[s++] = current_[2];
  if (rsrc2.tg_size()) w.sgpr[s++] = wave_count_;
  const uint64_t wave_offset = uint64_t{index} * wave_scratch_;
  if (rsrc2.scratch_en()) w.sgpr[s++] = static_cast<uint32_t>(wave_offset);
  if (t.gfx940_insts && setup_.scratch_base != 0) {
    const uint64_t fs = setup_.scratch_base + wave_offset;
    w.sgpr[kFlatScratchLo] = static_cast<uint32_t>(fs);
    w.sgpr[kFlatScratchHi] = static_cast<uint32_t>(fs >> 32);
  }
  w.set_exec(lanes >= 64 ? ~0ull : (uint64_t{1} << lanes) - 1u);
  const uint32_t sx = size[0], sy = size[1];
  const unsigned id_vgprs = rsrc2.workitem_vgprs();
  for (unsigned l = 0; l < kLanes; ++l) {
    const uint32_t flat = index * kLanes + l;
    const uint32_t x = l < lanes ? flat % sx : 0;
    const uint32_t y = l < lanes ? (flat / sx) % sy : 0;
    const uint32_t z = l < lanes ? flat / (sx * sy) : 0;
    if (t.packed_tid) {
      w.v[0][l] = x | (id_vgprs >= 1 ? y << 10 : 0u) | (id_vgprs >= 2 ? z << 20 : 0u);
    } else {
      w.v[0][l] = x;
      if (id_vgprs >= 1) w.v[1][l] = y;
      if (id_vgprs >= 2) w.v[2][l] = z;
    }
  }
  const uint32_t cu = static_cast<uint32_t>(workgroups_done_ % (setup_.cu_count == 0 ? 1 : setup_.cu_count));
  // HW_ID: wave slot (3:0), SIMD (5:4), CU (11:8), SH (12), SE (14:13).
  w.hw_id = (index & 0xF) | ((index & 3u) << 4) | ((cu & 0xF) << 8) | (((cu >> 4) & 3u) << 13);
}

void Dispatch::StartWorkgroup() {
  for (int d = 0; d < 3; ++d) current_[d] = next_[d];
  uint32_t size[3];
  for (int d = 0; d < 3; ++d) {
    const uint32_t start = current_[d] * setup_.wg[d];
    const uint32_t left = setup_.grid[d] - start;
    size[d] = left < setup_.wg[d] ? left : setup_.wg[d];
  }
  const uint32_t items = size[0] * size[1] * size[2];
  const unsigned waves = CeilDiv(items, kLanes);
  for (unsigned i = 0; i < wave_count_; ++i) {
    Wave& w = *waves_[i];
    if (i < waves) {
      const uint32_t lanes = items - i * kLanes;
      InitWave(w, i, lanes > kLanes ? kLanes : lanes, size);
    } else {
      w.state = WaveState::kDone;  // a partial workgroup has fewer waves
    }
  }
  if (!lds_.empty()) std::memset(lds_.data(), 0, lds_.size());
  active_ = true;
  // Next workgroup id (x fastest).
  if (++next_[0] == groups_[0]) {
    next_[0] = 0;
    if (++next_[1] == groups_[1]) {
      next_[1] = 0;
      ++next_[2];
    }
  }
}

Dispatch::Status Dispatch::Run(VmBackend* backend, DispatchHooks* hooks, uint64_t budget) {
  Vm vm(backend);
  vm_ = &vm;
  hooks_ = hooks;
  Status status = Status::kRunning;
  while (budget > 0) {
    if (!active_) {
      if (finished_ || next_[2] >= groups_[2]) {
        finished_ = true;
        status = Status::kDone;
        break;
      }
      StartWorkgroup();
    }
    bool running = false, at_barrier = false, error = false;
    for (unsigned i = 0; i < wave_count_ && budget > 0; ++i) {
      Wave& w = *waves_[i];
      if (w.state == WaveState::kRunning) {
        const uint64_t n = RunWave(w, *this, budget < kWaveSlice ? budget : kWaveSlice);
        budget -= n < budget ? n : budget;
        instructions_ += n;
      }
      if (w.state == WaveState::kError) {
        error_wave_ = i;
        error = true;
        break;
      }
      if (w.state == WaveState::kRunning) running = true;
      if (w.state == WaveState::kBarrier) at_barrier = true;
    }
    if (error) {
      status = Status::kError;
      break;
    }
    if (running) continue;
    if (at_barrier) {  // every live wave arrived: release them
      for (unsigned i = 0; i < wave_count_; ++i) {
        if (waves_[i]->state == WaveState::kBarrier) waves_[i]->state = WaveState::kRunning;
      }
      continue;
    }
    active_ = false;  // every wave ended
    ++workgroups_done_;
  }
  vm_ = nullptr;
  hooks_ = nullptr;
  return status;
}

}  // namespace kfdsim::shader
