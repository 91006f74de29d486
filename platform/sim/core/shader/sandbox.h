// kfdsim shader cores: one wave run against a private memory image, outside
// any simulator (no KFD, no queues): what the fuzz harness, the encoding-
// oracle test and the interpreter benchmark use.
//
// Memory seen by the wave: a writable region of `bytes` at kBase (host
// memory; the code is copied to its start), a read-only page at kReadOnly,
// a writable page at kCopied served through VmBackend::Copy (the path user
// pages take in the simulator), and nothing else (everything else faults).
// The wave starts at kBase with every lane active, all registers 0 except
// what the caller sets between Load() and Run(). The LDS is 64 KiB; the
// scratch and shared apertures are those of a gfx9 dGPU (hi 0x20000 and
// 0x10000); FLAT_SCRATCH points at the middle of the main region.
//
// Threading: not thread-safe; one Sandbox per thread.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_SANDBOX_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_SANDBOX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "platform/sim/core/shader/gfx.h"
#include "platform/sim/core/shader/vm.h"
#include "platform/sim/core/shader/wave.h"

namespace kfdsim::shader {

class Sandbox final : public VmBackend, public WaveEnv {
 public:
  static constexpr uint64_t kBase = 0x100000000ull;
  static constexpr uint64_t kReadOnly = 0x200000000ull;
  static constexpr uint64_t kCopied = 0x300000000ull;
  static constexpr uint32_t kPage = 4096;

  // `traits` must outlive the sandbox (TraitsFor's table does).
  Sandbox(const GfxTraits* traits, size_t bytes);
  ~Sandbox() override;
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // Copies `code` to kBase (truncated to the region) and resets the wave.
  void Load(const void* code, size_t bytes);
  // Runs at most `budget` instructions; returns how many ran.
  uint64_t Run(uint64_t budget);

  Wave& wave() { return *wave_; }
  uint8_t* memory() { return mem_.data(); }
  size_t memory_size() const { return mem_.size(); }
  uint32_t interrupts() const { return interrupts_; }

  // VmBackend
  bool Resolve(uint64_t va, Region* out) override;
  bool Copy(const Region& r, uint64_t va, void* buf, size_t n, bool write) override;
  // WaveEnv
  Vm& vm() override { return vm_; }
  const GfxTraits& traits() const override { return *traits_; }
  uint8_t* lds() override { return lds_.data(); }
  uint32_t lds_size() const override { return static_cast<uint32_t>(lds_.size()); }
  uint32_t shared_base_hi() const override { return 0x10000; }
  uint32_t private_base_hi() const override { return 0x20000; }
  void Interrupt(uint32_t) override { ++interrupts_; }
  bool debug_trap_enabled() const override { return false; }
  uint64_t ShaderClock() override { return ++clock_; }
  uint64_t RealTime() override { return clock_ += 10; }

 private:
  const GfxTraits* traits_;
  std::vector<uint8_t> mem_;
  std::vector<uint8_t> read_only_;
  std::vector<uint8_t> copied_;
  std::vector<uint8_t> lds_;
  std::unique_ptr<Wave> wave_;
  Vm vm_;
  uint32_t interrupts_ = 0;
  uint64_t clock_ = 0;
};

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_SANDBOX_H_
