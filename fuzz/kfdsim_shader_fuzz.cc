// Fuzzes the simulator's shader interpreter (platform/sim/core/shader) with
// arbitrary instruction words: no input may crash it, read or write outside
// the memory its Vm maps, or stop a wave without saying why.
//
// Input: byte 0 picks the target (gfx900, gfx906, gfx908, gfx90a, gfx90c,
// gfx942); bytes 1..128 seed s0-s31 (a few are then pointed into the
// mapped regions so memory instructions reach real memory); bytes 129..256
// seed v0-v31 lane 0 (lanes get the value plus their lane number * 4); the
// rest is the code, copied to the start of a 64 KiB region (sandbox.h) and
// run for at most 20,000 instructions.
//
// Invariants (a broken one traps):
//  - a wave stopped by a memory violation names an address that is not
//    mapped, or a read-only page it wrote;
//  - an illegal instruction has a reason and its pc lies inside mapped
//    memory (it was fetched);
//  - s_endpgm, an error or the budget end every run; instructions counted
//    never exceed the budget.
#include <cstdint>
#include <cstring>

#include "platform/sim/core/shader/gfx.h"
#include "platform/sim/core/shader/sandbox.h"

namespace {

using kfdsim::shader::Fault;
using kfdsim::shader::Region;
using kfdsim::shader::Sandbox;
using kfdsim::shader::WaveError;
using kfdsim::shader::WaveState;

constexpr uint32_t kTargets[] = {90000, 90006, 90008, 90010, 90012, 90402};
constexpr uint64_t kBudget = 20000;
constexpr size_t kHeader = 1 + 128 + 128;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096 || size < kHeader + 4) return 0;
  const uint32_t gfx = kTargets[data[0] % (sizeof(kTargets) / sizeof(kTargets[0]))];
  const kfdsim::shader::GfxTraits* traits = kfdsim::shader::TraitsFor(gfx);
  Check(traits != nullptr);
  static Sandbox* boxes[sizeof(kTargets) / sizeof(kTargets[0])] = {};
  Sandbox*& box = boxes[data[0] % (sizeof(kTargets) / sizeof(kTargets[0]))];
  if (box == nullptr) box = new Sandbox(traits, 65536);
  box->Load(data + kHeader, size - kHeader);
  kfdsim::shader::Wave& w = box->wave();
  std::memcpy(w.sgpr, data + 1, 128);
  // Point a few SGPR pairs into the mapped regions (and keep EXEC from the seed).
  const uint64_t ptrs[3] = {Sandbox::kBase + 2048, Sandbox::kReadOnly, Sandbox::kCopied};
  for (int i = 0; i < 3; ++i) {
    w.sgpr[2 * i] = static_cast<uint32_t>(ptrs[i]) + (data[1 + 2 * i] & 0xFC);
    w.sgpr[2 * i + 1] = static_cast<uint32_t>(ptrs[i] >> 32);
  }
  for (unsigned r = 0; r < 32; ++r) {
    uint32_t v;
    std::memcpy(&v, data + 129 + 4 * r, 4);
    for (unsigned l = 0; l < kfdsim::shader::kLanes; ++l) w.v[r][l] = v + 4 * l;
  }
  const uint64_t n = box->Run(kBudget);
  Check(n <= kBudget);
  Check(w.instructions <= n);
  if (w.state == WaveState::kError) {
    Check(!w.reason.empty());
    if (w.error == WaveError::kMemoryViolation) {
      Region r;
      const bool mapped = box->Resolve(w.fault_va, &r);
      Check(!mapped || (w.fault_kind == Fault::kReadOnly && !r.writable && w.fault_write));
    }
    if (w.error == WaveError::kIllegalInstruction) {
      Region r;
      Check(box->Resolve(w.fault_pc, &r));
    }
  } else {
    Check(w.state == WaveState::kDone || n == kBudget || w.state == WaveState::kRunning);
  }
  return 0;
}
