// kfdsim shader cores: one kernel dispatch in progress. A Dispatch walks the
// grid's workgroups in order (x fastest), assigns each to a simulated CU
// round-robin, starts its waves with the initial register state the
// hardware gives (user SGPRs as the CP loads them, then the system SGPRs
// and work-item VGPRs compute_pgm_rsrc2 enables), and runs them: waves of
// a workgroup run one after another until each ends or reaches s_barrier,
// then the barrier releases them (sequential execution; no timing).
//
// The engine (the AQL and PM4 packet processors, through bridge.cc) builds
// a KernelSetup from the packet or the SH registers, then calls Run with a
// budget of wave-instructions until it returns kDone or kError; between
// calls the dispatch keeps its place, so a long kernel never holds the
// engine for long.
//
// Ownership and threading: owned by the queue that dispatched it; used on
// the engine thread with the simulator's proc_mu_ held.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_DISPATCH_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_DISPATCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/sim/core/shader/gfx.h"
#include "platform/sim/core/shader/vm.h"
#include "platform/sim/core/shader/wave.h"

namespace kfdsim::shader {

// compute_pgm_rsrc1/2 fields the dispatcher reads.
struct Rsrc2 {
  explicit Rsrc2(uint32_t v) : raw(v) {}
  uint32_t raw;
  bool scratch_en() const { return (raw & 1u) != 0; }
  uint32_t user_sgprs() const { return (raw >> 1) & 0x1F; }
  bool tgid_x() const { return ((raw >> 7) & 1u) != 0; }
  bool tgid_y() const { return ((raw >> 8) & 1u) != 0; }
  bool tgid_z() const { return ((raw >> 9) & 1u) != 0; }
  bool tg_size() const { return ((raw >> 10) & 1u) != 0; }
  uint32_t workitem_vgprs() const { return (raw >> 11) & 3u; }  // 0: x, 1: x,y, 2: x,y,z
  uint32_t lds_granules() const { return (raw >> 15) & 0x1FF; }  // 128-dword units
};

struct KernelSetup {
  const GfxTraits* traits = nullptr;
  uint64_t entry = 0;  // address of the first instruction
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint32_t user_sgpr[32] = {};  // the CP's user data, s0.. (rsrc2 USER_SGPR of them)
  uint32_t grid[3] = {1, 1, 1};     // work-items per dimension
  uint32_t wg[3] = {1, 1, 1};       // workgroup size per dimension
  uint32_t lds_bytes = 0;           // group segment: static + dynamic
  uint32_t private_bytes = 0;       // private segment per work-item
  uint64_t scratch_base = 0;        // the queue's scratch backing (0: none)
  uint32_t shared_base_hi = 0;      // upper halves of the LDS / scratch apertures
  uint32_t private_base_hi = 0;
  uint32_t cu_count = 1;
};

// What a dispatch needs from the simulator while it runs.
class DispatchHooks {
 public:
  virtual ~DispatchHooks() = default;
  // s_sendmsg MSG_INTERRUPT data (24 bits) for the KFD's interrupt path.
  virtual void Interrupt(uint32_t data) = 0;
  virtual bool debug_trap_enabled() const = 0;
  virtual uint64_t ShaderClock() = 0;
  virtual uint64_t RealTime() = 0;
};

class Dispatch final : public WaveEnv {
 public:
  explicit Dispatch(const KernelSetup& setup);
  ~Dispatch() override;
  Dispatch(const Dispatch&) = delete;
  Dispatch& operator=(const Dispatch&) = delete;

  enum class Status { kRunning, kDone, kError };
  // Runs at most about `budget` wave-instructions through `backend`'s GPU
  // page table. kError: a wave stopped with an exception (error_wave()).
  Status Run(VmBackend* backend, DispatchHooks* hooks, uint64_t budget);

  // The wave that stopped the dispatch (valid after kError).
  const Wave& error_wave() const { return *waves_[error_wave_]; }
  uint64_t wave_instructions() const { return instructions_; }
  uint64_t workgroups_done() const { return workgroups_done_; }
  uint64_t workgroup_count() const;

  // WaveEnv
  Vm& vm() override { return *vm_; }
  const GfxTraits& traits() const override { return *setup_.traits; }
  uint8_t* lds() override { return lds_.empty() ? nullptr : lds_.data(); }
  uint32_t lds_size() const override { return lds_size_; }
  uint32_t shared_base_hi() const override { return setup_.shared_base_hi; }
  uint32_t private_base_hi() const override { return setup_.private_base_hi; }
  void Interrupt(uint32_t data) override { hooks_->Interrupt(data); }
  bool debug_trap_enabled() const override { return hooks_->debug_trap_enabled(); }
  uint64_t ShaderClock() override { return hooks_->ShaderClock(); }
  uint64_t RealTime() override { return hooks_->RealTime(); }

 private:
  void StartWorkgroup();
  void InitWave(Wave& w, unsigned index, unsigned lanes, const uint32_t size[3]);

  KernelSetup setup_;
  uint32_t groups_[3] = {1, 1, 1};  // workgroups per dimension
  uint32_t next_[3] = {0, 0, 0};    // id of the next workgroup to start
  uint32_t current_[3] = {0, 0, 0};
  bool active_ = false;             // a workgroup is running
  bool finished_ = false;
  unsigned wave_count_ = 0;
  unsigned error_wave_ = 0;
  uint32_t lds_size_ = 0;
  uint32_t wave_scratch_ = 0;       // scratch bytes per wave
  uint64_t workgroups_done_ = 0;
  uint64_t instructions_ = 0;
  std::vector<std::unique_ptr<Wave>> waves_;
  std::vector<uint8_t> lds_;
  Vm* vm_ = nullptr;
  DispatchHooks* hooks_ = nullptr;
};

// The KFD exception code (hke::kfd::kEc*) a stopped wave reports.
uint32_t WaveExceptionCode(const Wave& w);

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_DISPATCH_H_
