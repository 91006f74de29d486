// The interpreter's fetch/decode loop and the operand rules shared by every
// encoding (see interp.h and exec.h).
//
// Encoding families (first dword, gfx9): bit 31 clear: VOP2, except bits
// 31:25 = 0x3f (VOP1) and 0x3e (VOPC); bits 31:30 = 10: SOPK when bits
// 31:28 = 1011, except bits 31:23 = 0x17d (SOP1), 0x17e (SOPC), 0x17f
// (SOPP), else SOP2; bits 31:26: 0x30 SMEM, 0x34 VOP3/VOP3P, 0x36 DS,
// 0x37 FLAT/GLOBAL/SCRATCH, 0x38 MUBUF. MTBUF (0x3a), MIMG (0x3c), EXP
// (0x31) and VINTRP (0x35) are graphics or image encodings the simulator
// does not execute: they stop the wave as illegal, like any unknown bits.
#include "platform/sim/core/shader/interp.h"

#include <cstdio>

#include "platform/sim/core/shader/exec.h"

namespace kfdsim::shader {

namespace detail {

uint16_t F32ToF16(float f) {
  const uint32_t x = U32(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xFF);
  uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) {
    if (mant != 0) return static_cast<uint16_t>(sign | 0x7E00u | (mant >> 13));
    return static_cast<uint16_t>(sign | 0x7C00u);
  }
  int32_t e = exp - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u) != 0)) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0)) ++h;  // may carry into inf
  return static_cast<uint16_t>(sign | h);
}

float F16ToF32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return F32(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return F32(sign);
    int32_t e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    return F32(sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13));
  }
  return F32(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

namespace {

constexpr uint32_t kInlineF32[9] = {0x3f000000u, 0xbf000000u, 0x3f800000u,
                                    0xbf800000u, 0x40000000u, 0xc0000000u,
                                    0x40800000u, 0xc0800000u, 0x3e22f983u};
constexpr uint64_t kInlineF64[9] = {
    0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff0000000000000ull,
    0xbff0000000000000ull, 0x4000000000000000ull, 0xc000000000000000ull,
    0x4010000000000000ull, 0xc010000000000000ull, 0x3fc45f306dc9c882ull};

std::string Hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof(b), "0x%08x", v);
  return b;
}

}  // namespace

bool Exec::Word1(uint32_t* out) {
  if (have_w1) {
    *out = w1;
    return true;
  }
  Fault f = Fault::kNone;
  uint64_t at = w.pc + 4;
  if (!env.vm().Read(w.pc + 4, out, 4, &f, &at)) return MemFault(at, f, false);
  return true;
}

bool Exec::Illegal(const std::string& why) {
  w.state = WaveState::kError;
  w.error = WaveError::kIllegalInstruction;
  w.fault_pc = w.pc;
  w.bad_word[0] = w0;
  w.bad_word[1] = 0;
  if (size >= 8) {
    uint32_t second = 0;
    if (have_w1) {
      w.bad_word[1] = w1;
    } else {
      Fault f = Fault::kNone;
      uint64_t at = 0;
      if (env.vm().Read(w.pc + 4, &second, 4, &f, &at)) w.bad_word[1] = second;
    }
  }
  char pc[32];
  std::snprintf(pc, sizeof(pc), "0x%llx", static_cast<unsigned long long>(w.pc));
  w.reason = "illegal instruction " + Hex32(w0) + " at pc " + pc + ": " + why;
  return false;
}

bool Exec::MemFault(uint64_t va, Fault f, bool write) {
  w.state = WaveState::kError;
  w.error = WaveError::kMemoryViolation;
  w.fault_kind = f == Fault::kNone ? Fault::kNotPresent : f;
  w.fault_write = write;
  w.fault_va = va;
  w.fault_pc = w.pc;
  char b[96];
  std::snprintf(b, sizeof(b), "%s %s page at 0x%llx (pc 0x%llx)", write ? "write to" : "read from",
                w.fault_kind == Fault::kReadOnly ? "a read-only" : "an unmapped",
                static_cast<unsigned long long>(va), static_cast<unsigned long long>(w.pc));
  w.reason = b;
  return false;
}

bool Exec::S32(unsigned enc, uint32_t* v) {
  if (enc < 128) {
    if (enc == 125) return Illegal("reserved scalar operand 125");
    *v = w.sgpr[enc];
    return true;
  }
  if (enc <= 192) {
    *v = enc - 128;
    return true;
  }
  if (enc <= 208) {
    *v = 0u - (enc - 192);
    return true;
  }
  if (enc >= kFloatHalf && enc <= kFloatHalf + 8) {
    *v = kInlineF32[enc - kFloatHalf];
    return true;
  }
  switch (enc) {
    case kSharedBase:
    case kSharedLimit:
      *v = env.shared_base_hi();
      return true;
    case kPrivateBase:
    case kPrivateLimit:
      *v = env.private_base_hi();
      return true;
    case kPopsExitingWaveId:
      *v = 0;
      return true;
    case kVccz:
      *v = w.vcc() == 0 ? 1u : 0u;
      return true;
    case kExecz:
      *v = w.exec() == 0 ? 1u : 0u;
      return true;
    case kScc:
      *v = w.scc ? 1u : 0u;
      return true;
    case kLiteral:
      if (!have_literal) {
        if (!Word1(&literal)) return false;
        have_literal = true;
        size = 8;
      }
      *v = literal;
      return true;
    default:
      break;
  }
  return Illegal("scalar operand " + std::to_string(enc) + " is not supported");
}

bool Exec::S64(unsigned enc, uint64_t* v, bool f64) {
  if (enc < 127) {
    if (enc == 125 || enc == 124) return Illegal("no 64-bit register at operand " + std::to_string(enc));
    *v = w.sgpr[enc] | uint64_t{w.sgpr[enc + 1]} << 32;
    return true;
  }
  if (enc == 127) return Illegal("64-bit operand at exec_hi");
  if (enc <= 192) {
    *v = enc - 128;
    return true;
  }
  if (enc <= 208) {
    *v = 0ull - (enc - 192);
    return true;
  }
  if (enc >= kFloatHalf && enc <= kFloatHalf + 8) {
    *v = kInlineF64[enc - kFloatHalf];
    return true;
  }
  switch (enc) {
    case kSharedBase:
      *v = uint64_t{env.shared_base_hi()} << 32;
      return true;
    case kSharedLimit:
      *v = uint64_t{env.shared_base_hi()} << 32 | 0xFFFFFFFFu;
      return true;
    case kPrivateBase:
      *v = uint64_t{env.private_base_hi()} << 32;
      return true;
    case kPrivateLimit:
      *v = uint64_t{env.private_base_hi()} << 32 | 0xFFFFFFFFu;
      return true;
    case kLiteral: {
      uint32_t lit = 0;
      if (!S32(enc, &lit)) return false;
      *v = f64 ? uint64_t{lit} << 32 : uint64_t{lit};
      return true;
    }
    default: {
      uint32_t lo = 0;
      if (!S32(enc, &lo)) return false;
      *v = lo;
      return true;
    }
  }
}

bool Exec::SetS32(unsigned enc, uint32_t v) {
  if (enc >= 128 || enc == 125) return Illegal("scalar destination " + std::to_string(enc));
  w.sgpr[enc] = v;
  return true;
}

bool Exec::SetS64(unsigned enc, uint64_t v) {
  if (enc >= 127 || enc == 125 || enc == 124) {
    return Illegal("64-bit scalar destination " + std::to_string(enc));
  }
  w.sgpr[enc] = static_cast<uint32_t>(v);
  w.sgpr[enc + 1] = static_cast<uint32_t>(v >> 32);
  return true;
}

}  // namespace detail

namespace {

using detail::Exec;

// Instruction fetch window: the code region last fetched from, or, for code
// in memory without a host mapping (user pages: one backend copy per read),
// a copy of the aligned block around the PC, as the instruction cache holds
// it (code is not re-read while a wave runs its slice).
struct FetchWindow {
  static constexpr uint64_t kBlock = 256;
  uint64_t lo = 0, hi = 0;
  const uint8_t* host = nullptr;
  uint8_t block[kBlock];
};

// Fills the window from region `r` (no host mapping) with the block around
// `pc`; false when the block cannot be read (the caller reads one word).
bool FillBlock(WaveEnv& env, const Region& r, uint64_t pc, FetchWindow& win) {
  uint64_t start = pc & ~(FetchWindow::kBlock - 1);
  if (start < r.lo) start = r.lo;
  const uint64_t end = r.hi - start < FetchWindow::kBlock ? r.hi : start + FetchWindow::kBlock;
  if (end < pc + 4 || end <= pc) return false;
  Fault f = Fault::kNone;
  uint64_t at = start;
  if (!env.vm().Read(start, win.block, static_cast<uint32_t>(end - start), &f, &at)) return false;
  win.lo = start;
  win.hi = end;
  win.host = win.block;
  return true;
}

bool Step(Wave& w, WaveEnv& env, const GfxTraits& traits, FetchWindow& win) {
  Exec x(w, env, traits);
  bool in_window = w.pc >= win.lo && w.pc + 4 <= win.hi && win.host != nullptr;
  if (!in_window) {
    Fault f = Fault::kNone;
    const Region* r = env.vm().Lookup(w.pc, false, &f);
    if (r == nullptr) return x.MemFault(w.pc, f, false);
    if (r->host != nullptr && w.pc + 4 <= r->hi) {
      win.lo = r->lo;
      win.hi = r->hi;
      win.host = r->host;
      in_window = true;
    } else if (r->host == nullptr && FillBlock(env, *r, w.pc, win)) {
      in_window = true;
    } else {
      uint64_t at = w.pc;
      if (!env.vm().Read(w.pc, &x.w0, 4, &f, &at)) return x.MemFault(at, f, false);
    }
  }
  if (in_window) {
    const uint8_t* p = win.host + (w.pc - win.lo);
    std::memcpy(&x.w0, p, 4);
    if (w.pc + 8 <= win.hi) {
      std::memcpy(&x.w1, p + 4, 4);
      x.have_w1 = true;
    }
  }
  const uint32_t w0 = x.w0;
  bool ok = false;
  if ((w0 >> 31) == 0) {
    const uint32_t top7 = w0 >> 25;
    if (top7 == 0x3F) {
      ok = detail::ExecVop1(x);
    } else if (top7 == 0x3E) {
      ok = detail::ExecVopc(x);
    } else {
      ok = detail::ExecVop2(x);
    }
  } else if ((w0 >> 30) == 2) {
    const uint32_t top9 = w0 >> 23;
    if (top9 == 0x17D) {
      ok = detail::ExecSop1(x);
    } else if (top9 == 0x17E) {
      ok = detail::ExecSopc(x);
    } else if (top9 == 0x17F) {
      ok = detail::ExecSopp(x);
    } else if ((w0 >> 28) == 0xB) {
      ok = detail::ExecSopk(x);
    } else {
      ok = detail::ExecSop2(x);
    }
  } else {
    switch (w0 >> 26) {
      case 0x30: ok = detail::ExecSmem(x); break;
      case 0x34: ok = detail::ExecVop3(x); break;
      case 0x36: ok = detail::ExecDs(x); break;
      case 0x37: ok = detail::ExecFlat(x); break;
      case 0x38: ok = detail::ExecMubuf(x); break;
      case 0x31: return x.Illegal("EXP (export) is a graphics encoding");
      case 0x35: return x.Illegal("VINTRP (interpolation) is a graphics encoding");
      case 0x3A: return x.Illegal("MTBUF (typed buffer) is not supported");
      case 0x3C: return x.Illegal("MIMG (image) is not supported");
      default: return x.Illegal("unknown encoding");
    }
  }
  if (!ok) return false;
  ++w.instructions;
  if (x.branched) {
    w.pc = x.next_pc;
  } else {
    w.pc += x.size;
  }
  return true;
}

}  // namespace

uint64_t RunWave(Wave& w, WaveEnv& env, uint64_t budget) {
  FetchWindow win;
  const GfxTraits& traits = env.traits();
  uint64_t n = 0;
  while (n < budget && w.state == WaveState::kRunning) {
    if (!Step(w, env, traits, win)) {
      ++n;
      break;
    }
    ++n;
  }
  return n;
}

}  // namespace kfdsim::shader
