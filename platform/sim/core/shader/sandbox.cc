// A wave against a private memory image (see sandbox.h).
#include "platform/sim/core/shader/sandbox.h"

#include <cstring>

#include "platform/sim/core/shader/interp.h"

namespace kfdsim::shader {

Sandbox::Sandbox(const GfxTraits* traits, size_t bytes)
    : traits_(traits),
      mem_(bytes < kPage ? kPage : bytes, 0),
      read_only_(kPage, 0x5A),
      copied_(kPage, 0),
      lds_(65536, 0),
      wave_(std::make_unique<Wave>()),
      vm_(this) {}

Sandbox::~Sandbox() = default;

void Sandbox::Load(const void* code, size_t bytes) {
  std::memset(mem_.data(), 0, mem_.size());
  std::memcpy(mem_.data(), code, bytes < mem_.size() ? bytes : mem_.size());
  std::memset(copied_.data(), 0, copied_.size());
  std::memset(lds_.data(), 0, lds_.size());
  Wave& w = *wave_;
  std::memset(w.v, 0, sizeof(w.v));
  std::memset(w.acc, 0, sizeof(w.acc));
  std::memset(w.sgpr, 0, sizeof(w.sgpr));
  w.pc = kBase;
  w.scc = false;
  w.mode = w.trapsts = 0;
  w.vgpr_count = kVgprs;
  w.state = WaveState::kRunning;
  w.error = WaveError::kNone;
  w.fault_kind = Fault::kNone;
  w.fault_va = 0;
  w.reason.clear();
  w.instructions = 0;
  w.set_exec(~0ull);
  const uint64_t scratch = kBase + mem_.size() / 2;
  w.sgpr[kFlatScratchLo] = static_cast<uint32_t>(scratch);
  w.sgpr[kFlatScratchHi] = static_cast<uint32_t>(scratch >> 32);
  vm_.Reset();
  interrupts_ = 0;
}

uint64_t Sandbox::Run(uint64_t budget) {
  uint64_t n = 0;
  while (n < budget && wave_->state != WaveState::kError && wave_->state != WaveState::kDone) {
    if (wave_->state == WaveState::kBarrier) wave_->state = WaveState::kRunning;  // alone in its group
    n += RunWave(*wave_, *this, budget - n);
  }
  return n;
}

bool Sandbox::Resolve(uint64_t va, Region* out) {
  if (va >= kBase && va - kBase < mem_.size()) {
    *out = Region{kBase, kBase + mem_.size(), mem_.data(), true};
    return true;
  }
  if (va >= kReadOnly && va - kReadOnly < kPage) {
    *out = Region{kReadOnly, kReadOnly + kPage, read_only_.data(), false};
    return true;
  }
  if (va >= kCopied && va - kCopied < kPage) {
    *out = Region{kCopied, kCopied + kPage, nullptr, true};
    return true;
  }
  return false;
}

bool Sandbox::Copy(const Region& r, uint64_t va, void* buf, size_t n, bool write) {
  if (r.lo != kCopied || va < kCopied || va - kCopied > kPage || n > kPage - (va - kCopied)) return false;
  uint8_t* p = copied_.data() + (va - kCopied);
  if (write) {
    std::memcpy(p, buf, n);
  } else {
    std::memcpy(buf, p, n);
  }
  return true;
}

}  // namespace kfdsim::shader
