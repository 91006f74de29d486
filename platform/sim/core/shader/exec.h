// kfdsim shader cores: what the instruction handlers of the interpreter
// share (interp.cc fetches and dispatches; salu.cc, valu.cc, mem.cc
// execute). Internal to platform/sim/core/shader.
//
// An Exec is one instruction in flight: its dwords, the wave, the
// environment. Handlers return false after stopping the wave (an illegal
// encoding or a memory fault); they set `size` (bytes the instruction
// occupies) and, for taken branches, `next_pc`.
//
// Threading: as interp.h.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_EXEC_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_EXEC_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "platform/sim/core/shader/wave.h"

namespace kfdsim::shader::detail {

template <typename To, typename From>
inline To Bits(From v) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To t;
  std::memcpy(&t, &v, sizeof(t));
  return t;
}
inline float F32(uint32_t v) { return Bits<float>(v); }
inline uint32_t U32(float f) { return Bits<uint32_t>(f); }
inline double F64(uint64_t v) { return Bits<double>(v); }
inline uint64_t U64(double d) { return Bits<uint64_t>(d); }

// IEEE half <-> float (round to nearest even; NaN payloads kept quiet).
uint16_t F32ToF16(float f);
float F16ToF32(uint16_t h);

struct Exec {
  Exec(Wave& wave, WaveEnv& environment, const GfxTraits& traits)
      : w(wave), env(environment), t(traits) {}
  Wave& w;
  WaveEnv& env;
  const GfxTraits& t;
  uint32_t w0 = 0;
  uint32_t w1 = 0;          // the second dword, when fetched with the first
  bool have_w1 = false;
  unsigned size = 4;
  bool branched = false;
  uint64_t next_pc = 0;

  // The second dword (64-bit encodings, literals, DPP/SDWA words); false
  // after a fetch fault stopped the wave.
  bool Word1(uint32_t* out);
  // Stops the wave: illegal or unsupported encoding.
  bool Illegal(const std::string& why);
  // Stops the wave: GPU memory fault at `va`.
  bool MemFault(uint64_t va, Fault f, bool write);

  // Scalar sources (9-bit encodings below 256, or 255 for the literal that
  // follows a 32-bit encoding). Inline float constants are f32 patterns for
  // 32-bit reads and f64 patterns for 64-bit reads; a 64-bit literal is
  // zero-extended (integer operands) or the high half (f64 operands).
  bool S32(unsigned enc, uint32_t* v);
  bool S64(unsigned enc, uint64_t* v, bool f64 = false);
  // Scalar destinations (encodings 0-127 only).
  bool SetS32(unsigned enc, uint32_t v);
  bool SetS64(unsigned enc, uint64_t v);

  uint32_t literal = 0;
  bool have_literal = false;
};

// A 64-lane select mask: m[i] = all ones when lane i is in `exec`.
inline void LaneMask(uint64_t exec, uint32_t* m) {
  for (unsigned i = 0; i < kLanes; ++i) m[i] = 0u - static_cast<uint32_t>((exec >> i) & 1u);
}
// dst[i] = exec lane i ? res[i] : dst[i].
inline void Commit32(uint32_t* dst, const uint32_t* res, uint64_t exec) {
  if (exec == ~0ull) {
    std::memcpy(dst, res, kLanes * 4);
    return;
  }
  uint32_t m[kLanes];
  LaneMask(exec, m);
  for (unsigned i = 0; i < kLanes; ++i) dst[i] = (res[i] & m[i]) | (dst[i] & ~m[i]);
}

// Instruction handlers (one per encoding family).
bool ExecSop2(Exec& x);
bool ExecSopk(Exec& x);
bool ExecSop1(Exec& x);
bool ExecSopc(Exec& x);
bool ExecSopp(Exec& x);
bool ExecSmem(Exec& x);
bool ExecVop2(Exec& x);
bool ExecVop1(Exec& x);
bool ExecVopc(Exec& x);
bool ExecVop3(Exec& x);
bool ExecFlat(Exec& x);
bool ExecMubuf(Exec& x);
bool ExecDs(Exec& x);

}  // namespace kfdsim::shader::detail

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_EXEC_H_
