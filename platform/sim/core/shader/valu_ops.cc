// The vector ALU operations (VOP3 opcode space, gfx9): every op is a lane
// loop over source rows (SrcRow32/64) into a result row, written under
// EXEC (Out32/Out64) or packed into a lane mask (compares, carries).
//
// Float semantics are the host's IEEE single/double arithmetic (round to
// nearest even; the MODE register's rounding and denormal controls are not
// modelled); v_rcp/v_rsq/v_sqrt/v_exp/v_log/v_sin/v_cos are computed
// exactly rather than to the hardware's 1 ULP; v_div_scale never scales
// (v_div_fmas then is a plain fma), so divisions whose intermediate values
// leave the normal range may differ from hardware in the last bits.
// Not executed (illegal): cube/interp/legacy-f16 ops, v_trig_preop_f64,
// v_mad_mix/fma_mix, v_qsad/mqsad, SAD-accumulate packs, MFMA.
#include <cmath>
#include <cstring>
#include <limits>

#include "platform/sim/core/shader/valu.h"

namespace kfdsim::shader::detail {

namespace {

using I = Kind;

int32_t S(uint32_t v) { return static_cast<int32_t>(v); }
uint32_t Sext24(uint32_t v) { return static_cast<uint32_t>(S(v << 8) >> 8); }
float F16(uint32_t v) { return F16ToF32(static_cast<uint16_t>(v)); }
uint32_t H(float f) { return F32ToF16(f); }

// Round-toward-zero f32 -> f16 (v_cvt_pkrtz_f16_f32).
uint32_t HRtz(float f) {
  uint32_t h = F32ToF16(f);
  const float back = F16ToF32(static_cast<uint16_t>(h));
  if (std::isfinite(f) && std::fabs(back) > std::fabs(f)) --h;
  return h & 0xFFFFu;
}

template <typename T>
T Med3(T a, T b, T c) {
  const T mx = a > b ? a : b;
  const T mn = a > b ? b : a;
  return c > mx ? mx : (c < mn ? mn : c);
}

// IEEE minNum/maxNum (a NaN operand yields the other), inline so lane
// loops vectorise (std::fmin/fmax are library calls on x86-64).
float FMin(float a, float b) { return a != a ? b : (b != b ? a : (b < a ? b : a)); }
float FMax(float a, float b) { return a != a ? b : (b != b ? a : (b > a ? b : a)); }

// float -> integer conversions saturate; NaN -> 0.
uint32_t CvtU32(double d) {
  if (!(d > 0.0)) return 0;
  if (d >= 4294967295.0) return 0xFFFFFFFFu;
  return static_cast<uint32_t>(d);
}
uint32_t CvtI32(double d) {
  if (d != d) return 0;
  if (d <= -2147483648.0) return 0x80000000u;
  if (d >= 2147483647.0) return 0x7FFFFFFFu;
  return static_cast<uint32_t>(static_cast<int32_t>(d));
}

float Fract(float f) {
  if (!std::isfinite(f)) return f != f ? f : std::numeric_limits<float>::quiet_NaN();
  const float r = f - std::floor(f);
  return r < 0.99999994f ? r : 0.99999994f;
}
double Fract(double d) {
  if (!std::isfinite(d)) return d != d ? d : std::numeric_limits<double>::quiet_NaN();
  const double r = d - std::floor(d);
  return r < 0.99999999999999989 ? r : 0.99999999999999989;
}

// v_cmp_class: bit 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0,
// 6 +0, 7 +denormal, 8 +normal, 9 +inf.
bool ClassF32(uint32_t v, uint32_t mask) {
  const bool neg = (v >> 31) != 0;
  const uint32_t exp = (v >> 23) & 0xFF, man = v & 0x7FFFFF;
  unsigned bit;
  if (exp == 0xFF) {
    bit = man == 0 ? (neg ? 2 : 9) : ((man >> 22) != 0 ? 1 : 0);
  } else if (exp == 0) {
    bit = man == 0 ? (neg ? 5 : 6) : (neg ? 4 : 7);
  } else {
    bit = neg ? 3 : 8;
  }
  return ((mask >> bit) & 1u) != 0;
}
bool ClassF64(uint64_t v, uint32_t mask) {
  const bool neg = (v >> 63) != 0;
  const uint64_t exp = (v >> 52) & 0x7FF, man = v & 0xFFFFFFFFFFFFFull;
  unsigned bit;
  if (exp == 0x7FF) {
    bit = man == 0 ? (neg ? 2 : 9) : ((man >> 51) != 0 ? 1 : 0);
  } else if (exp == 0) {
    bit = man == 0 ? (neg ? 5 : 6) : (neg ? 4 : 7);
  } else {
    bit = neg ? 3 : 8;
  }
  return ((mask >> bit) & 1u) != 0;
}
bool ClassF16(uint32_t v, uint32_t mask) {
  const bool neg = ((v >> 15) & 1u) != 0;
  const uint32_t exp = (v >> 10) & 0x1F, man = v & 0x3FF;
  unsigned bit;
  if (exp == 0x1F) {
    bit = man == 0 ? (neg ? 2 : 9) : ((man >> 9) != 0 ? 1 : 0);
  } else if (exp == 0) {
    bit = man == 0 ? (neg ? 5 : 6) : (neg ? 4 : 7);
  } else {
    bit = neg ? 3 : 8;
  }
  return ((mask >> bit) & 1u) != 0;
}

// ---- lane-loop templates ----

template <typename F>
bool V1(VCtx& c, Kind k0, Kind kd, F f) {
  uint32_t b0[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, k0, b0);
  if (a == nullptr) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l]);
  return Out32(c, r, kd);
}

template <typename F>
bool V2(VCtx& c, Kind k0, Kind k1, Kind kd, F f) {
  uint32_t b0[kLanes], b1[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, k0, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, k1, b1);
  if (b == nullptr) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l]);
  return Out32(c, r, kd);
}

template <typename F>
bool V3(VCtx& c, Kind k, F f) {
  uint32_t b0[kLanes], b1[kLanes], b2[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, k, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, k, b1);
  if (b == nullptr) return false;
  const uint32_t* d = SrcRow32(c, 2, k, b2);
  if (d == nullptr) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l], d[l]);
  return Out32(c, r, k);
}

// VOP2 accumulate forms (v_mac/v_fmac): the destination is the third source.
template <typename F>
bool Mac(VCtx& c, Kind k, F f) {
  uint32_t b0[kLanes], b1[kLanes], r[kLanes];
  if (c.in.vdst >= kVgprs) return c.x.Illegal("VGPR destination beyond v255");
  const uint32_t* a = SrcRow32(c, 0, k, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, k, b1);
  if (b == nullptr) return false;
  const uint32_t* d = c.w.v[c.in.vdst];
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l], d[l]);
  return Out32(c, r, k);
}

template <typename F>
bool D1(VCtx& c, Kind k0, F f) {  // 64-bit source -> 64-bit result
  uint64_t a[kLanes], r[kLanes];
  if (!SrcRow64(c, 0, k0, a)) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l]);
  return Out64(c, r, Kind::kF64 == k0 ? Kind::kF64 : Kind::kI64);
}

template <typename F>
bool D2(VCtx& c, Kind k, F f) {
  uint64_t a[kLanes], b[kLanes], r[kLanes];
  if (!SrcRow64(c, 0, k, a) || !SrcRow64(c, 1, k, b)) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l]);
  return Out64(c, r, k);
}

template <typename F>
bool D3(VCtx& c, Kind k, F f) {
  uint64_t a[kLanes], b[kLanes], d[kLanes], r[kLanes];
  if (!SrcRow64(c, 0, k, a) || !SrcRow64(c, 1, k, b) || !SrcRow64(c, 2, k, d)) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l], d[l]);
  return Out64(c, r, k);
}

// f64 op with a 32-bit second source (ldexp).
template <typename F>
bool D64x32(VCtx& c, F f) {
  uint64_t a[kLanes], r[kLanes];
  uint32_t b1[kLanes];
  if (!SrcRow64(c, 0, Kind::kF64, a)) return false;
  const uint32_t* b = SrcRow32(c, 1, Kind::kI32, b1);
  if (b == nullptr) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l]);
  return Out64(c, r, Kind::kF64);
}

// 32-bit source -> 64-bit result (conversions to f64).
template <typename F>
bool W1(VCtx& c, Kind k0, F f) {
  uint32_t b0[kLanes];
  uint64_t r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, k0, b0);
  if (a == nullptr) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l]);
  return Out64(c, r, Kind::kF64);
}

// 64-bit source -> 32-bit result.
template <typename F>
bool N1(VCtx& c, Kind k0, Kind kd, F f) {
  uint64_t a[kLanes];
  uint32_t r[kLanes];
  if (!SrcRow64(c, 0, k0, a)) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l]);
  return Out32(c, r, kd);
}

// Shifts of a 64-bit row by a 32-bit amount (v_lshlrev_b64 and friends).
template <typename F>
bool Shift64(VCtx& c, F f) {
  uint32_t b0[kLanes];
  uint64_t b[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, Kind::kI32, b0);
  if (a == nullptr) return false;
  if (!SrcRow64(c, 1, Kind::kI64, b)) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l]);
  return Out64(c, r, Kind::kI64);
}

// Byte b -> eight 0/1 bytes, bit i of b in byte i.
struct SpreadTable {
  uint64_t v[256];
  constexpr SpreadTable() : v() {
    for (unsigned b = 0; b < 256; ++b) {
      uint64_t x = 0;
      for (unsigned i = 0; i < 8; ++i) x |= uint64_t{(b >> i) & 1u} << (8 * i);
      v[b] = x;
    }
  }
};
constexpr SpreadTable kSpread;

// A lane mask as 64 0/1 values (the inverse of PackBits).
inline void UnpackBits(uint64_t m, uint32_t* t) {
  uint8_t bytes[kLanes];
  for (unsigned g = 0; g < kLanes / 8; ++g) {
    const uint64_t x = kSpread.v[(m >> (8 * g)) & 0xFF];
    std::memcpy(bytes + 8 * g, &x, 8);
  }
  for (unsigned l = 0; l < kLanes; ++l) t[l] = bytes[l];
}

// Packs 64 0/1 bytes into a lane mask (8 lanes per multiply).
inline uint64_t PackBits(const uint8_t* t) {
  uint64_t bits = 0;
  for (unsigned g = 0; g < kLanes / 8; ++g) {
    uint64_t x;
    std::memcpy(&x, t + 8 * g, 8);
    bits |= ((x * 0x0102040810204080ull) >> 56) << (8 * g);
  }
  return bits;
}

template <typename F>
bool Cmp32(VCtx& c, Kind k, bool exec_too, F f) {
  uint32_t b0[kLanes], b1[kLanes];
  const uint32_t* a = SrcRow32(c, 0, k, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, k, b1);
  if (b == nullptr) return false;
  uint8_t t[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) t[l] = f(a[l], b[l]) ? 1 : 0;
  uint64_t bits = PackBits(t);
  bits &= c.w.exec();
  if (!OutMask(c, c.in.sdst, bits)) return false;
  if (exec_too) c.w.set_exec(bits);
  return true;
}

template <typename F>
bool Cmp64(VCtx& c, Kind k, bool exec_too, F f) {
  uint64_t a[kLanes], b[kLanes];
  if (!SrcRow64(c, 0, k, a) || !SrcRow64(c, 1, k, b)) return false;
  uint8_t t[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) t[l] = f(a[l], b[l]) ? 1 : 0;
  uint64_t bits = PackBits(t);
  bits &= c.w.exec();
  if (!OutMask(c, c.in.sdst, bits)) return false;
  if (exec_too) c.w.set_exec(bits);
  return true;
}

bool ClassCmp64(VCtx& c, bool exec_too) {
  uint64_t a[kLanes];
  uint32_t b1[kLanes];
  if (!SrcRow64(c, 0, Kind::kF64, a)) return false;
  const uint32_t* b = SrcRow32(c, 1, Kind::kI32, b1);
  if (b == nullptr) return false;
  uint64_t bits = 0;
  for (unsigned l = 0; l < kLanes; ++l) bits |= uint64_t{ClassF64(a[l], b[l]) ? 1u : 0u} << l;
  bits &= c.w.exec();
  if (!OutMask(c, c.in.sdst, bits)) return false;
  if (exec_too) c.w.set_exec(bits);
  return true;
}

// One compare group: the predicate is chosen once, outside the lane loop.
// `T` is the compared type, `conv` turns raw lane bits into it.
template <typename T, bool Float, typename Raw, typename Conv>
bool CmpGroup(VCtx& c, Kind k, bool x, unsigned pred, Conv conv) {
  auto run = [&](auto p) {
    if constexpr (sizeof(Raw) == 8) {
      return Cmp64(c, k, x, [&](uint64_t a, uint64_t b) { return p(conv(a), conv(b)); });
    } else {
      return Cmp32(c, k, x, [&](uint32_t a, uint32_t b) { return p(conv(a), conv(b)); });
    }
  };
  if (Float) {
    switch (pred & 15) {
      case 0: return run([](T, T) { return false; });
      case 1: return run([](T a, T b) { return a < b; });
      case 2: return run([](T a, T b) { return a == b; });
      case 3: return run([](T a, T b) { return a <= b; });
      case 4: return run([](T a, T b) { return a > b; });
      case 5: return run([](T a, T b) { return a < b || a > b; });
      case 6: return run([](T a, T b) { return a >= b; });
      case 7: return run([](T a, T b) { return a == a && b == b; });
      case 8: return run([](T a, T b) { return a != a || b != b; });
      case 9: return run([](T a, T b) { return !(a >= b); });
      case 10: return run([](T a, T b) { return !(a < b || a > b); });
      case 11: return run([](T a, T b) { return !(a > b); });
      case 12: return run([](T a, T b) { return !(a <= b); });
      case 13: return run([](T a, T b) { return !(a == b); });
      case 14: return run([](T a, T b) { return !(a < b); });
      default: return run([](T, T) { return true; });
    }
  }
  switch (pred & 7) {
    case 0: return run([](T, T) { return false; });
    case 1: return run([](T a, T b) { return a < b; });
    case 2: return run([](T a, T b) { return a == b; });
    case 3: return run([](T a, T b) { return a <= b; });
    case 4: return run([](T a, T b) { return a > b; });
    case 5: return run([](T a, T b) { return a != b; });
    case 6: return run([](T a, T b) { return a >= b; });
    default: return run([](T, T) { return true; });
  }
}

bool Compare(VCtx& c) {
  const unsigned op = c.in.op;
  const unsigned pred = op & 15;
  const bool x16 = ((op >> 4) & 1u) != 0;  // cmpx for the f16/f32/f64 groups
  switch (op >> 4) {
    case 0x1:
      switch (op) {
        case 0x10:
        case 0x11:
          return Cmp32(c, I::kF32, op == 0x11, [](uint32_t a, uint32_t b) { return ClassF32(a, b); });
        case 0x12:
        case 0x13:
          return ClassCmp64(c, op == 0x13);
        case 0x14:
        case 0x15:
          return Cmp32(c, I::kF16, op == 0x15, [](uint32_t a, uint32_t b) { return ClassF16(a, b); });
        default:
          break;
      }
      break;
    case 0x2:
    case 0x3:
      return CmpGroup<float, true, uint32_t>(c, I::kF16, x16, pred, [](uint32_t v) { return F16(v); });
    case 0x4:
    case 0x5:
      return CmpGroup<float, true, uint32_t>(c, I::kF32, x16, pred, [](uint32_t v) { return F32(v); });
    case 0x6:
    case 0x7:
      return CmpGroup<double, true, uint64_t>(c, I::kF64, x16, pred, [](uint64_t v) { return F64(v); });
    case 0xA:
    case 0xB: {
      const bool x = op >= 0xB0;
      if (op & 8) return CmpGroup<uint32_t, false, uint32_t>(c, I::kI16, x, pred, [](uint32_t v) { return v & 0xFFFFu; });
      return CmpGroup<int32_t, false, uint32_t>(c, I::kI16, x, pred,
                                                [](uint32_t v) { return int32_t{static_cast<int16_t>(v)}; });
    }
    case 0xC:
    case 0xD: {
      const bool x = op >= 0xD0;
      if (op & 8) return CmpGroup<uint32_t, false, uint32_t>(c, I::kI32, x, pred, [](uint32_t v) { return v; });
      return CmpGroup<int32_t, false, uint32_t>(c, I::kI32, x, pred, [](uint32_t v) { return S(v); });
    }
    case 0xE:
    case 0xF: {
      const bool x = op >= 0xF0;
      if (op & 8) return CmpGroup<uint64_t, false, uint64_t>(c, I::kI64, x, pred, [](uint64_t v) { return v; });
      return CmpGroup<int64_t, false, uint64_t>(c, I::kI64, x, pred,
                                                [](uint64_t v) { return static_cast<int64_t>(v); });
    }
    default:
      break;
  }
  return c.x.Illegal("VOPC opcode " + std::to_string(op) + " is not supported");
}

// Packs 64 0/1 dwords into a lane mask (narrowed to bytes first: both
// loops vectorise).
[[gnu::noinline]] uint64_t PackBits32(const uint32_t* w) {
  uint8_t t[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) t[l] = static_cast<uint8_t>(w[l]);
  return PackBits(t);
}

// Carry-out and carry-in adds/subs (VOP2 0x19-0x1e and their VOP3b forms):
// `f(a, b, carry_in, carry_out)` per lane, in 32-bit arithmetic so the
// lane loop vectorises.
template <typename F>
bool CarryOp(VCtx& c, bool uses_cin, F f) {
  uint32_t b0[kLanes], b1[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, I::kI32, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, I::kI32, b1);
  if (b == nullptr) return false;
  uint64_t cin = 0;
  if (uses_cin && !MaskIn(c, c.in.cin, &cin)) return false;
  uint32_t ci[kLanes], cw[kLanes];
  UnpackBits(cin, ci);
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(a[l], b[l], ci[l], cw[l]);
  const uint64_t out = PackBits32(cw);
  if (!Out32(c, r, I::kI32)) return false;
  return OutMask(c, c.in.sdst, out & c.write);
}

bool Carry(VCtx& c, unsigned kind) {
  using U = uint32_t;
  switch (kind) {
    case 0:  // v_add_co_u32
      return CarryOp(c, false, [](U a, U b, U, U& co) {
        const U r = a + b;
        co = r < a ? 1u : 0u;
        return r;
      });
    case 1:  // v_sub_co_u32
      return CarryOp(c, false, [](U a, U b, U, U& co) {
        co = b > a ? 1u : 0u;
        return a - b;
      });
    case 2:  // v_subrev_co_u32
      return CarryOp(c, false, [](U a, U b, U, U& co) {
        co = a > b ? 1u : 0u;
        return b - a;
      });
    case 3:  // v_addc_co_u32
      return CarryOp(c, true, [](U a, U b, U ci, U& co) {
        const U t = a + b;
        const U r = t + ci;
        co = (t < a ? 1u : 0u) | (r < t ? 1u : 0u);
        return r;
      });
    case 4:  // v_subb_co_u32: a - b - ci, borrow when b + ci > a
      return CarryOp(c, true, [](U a, U b, U ci, U& co) {
        const U t = a - b;
        co = (b > a ? 1u : 0u) | (ci > t ? 1u : 0u);
        return t - ci;
      });
    default:  // v_subbrev_co_u32: b - a - ci
      return CarryOp(c, true, [](U a, U b, U ci, U& co) {
        const U t = b - a;
        co = (a > b ? 1u : 0u) | (ci > t ? 1u : 0u);
        return t - ci;
      });
  }
}

bool Cndmask(VCtx& c) {
  uint32_t b0[kLanes], b1[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, I::kF32, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, I::kF32, b1);
  if (b == nullptr) return false;
  uint64_t m = 0;
  if (!MaskIn(c, c.in.cin, &m)) return false;
  for (unsigned l = 0; l < kLanes; ++l) r[l] = ((m >> l) & 1u) != 0 ? b[l] : a[l];
  return Out32(c, r, I::kI32);
}

bool MadU64(VCtx& c, bool sign) {
  uint32_t b0[kLanes], b1[kLanes];
  uint64_t d[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, I::kI32, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, I::kI32, b1);
  if (b == nullptr) return false;
  if (!SrcRow64(c, 2, I::kI64, d)) return false;
  uint64_t carry = 0;
  for (unsigned l = 0; l < kLanes; ++l) {
    // A 32x32-bit product fits 64 bits; the carry is the overflow of the add.
    if (sign) {
      int64_t sum = 0;
      const bool ovf = __builtin_add_overflow(int64_t{S(a[l])} * S(b[l]), static_cast<int64_t>(d[l]), &sum);
      r[l] = static_cast<uint64_t>(sum);
      carry |= uint64_t{ovf ? 1u : 0u} << l;
    } else {
      const uint64_t sum = uint64_t{a[l]} * b[l] + d[l];
      r[l] = sum;
      carry |= uint64_t{sum < d[l] ? 1u : 0u} << l;
    }
  }
  if (!Out64(c, r, I::kI64)) return false;
  return OutMask(c, c.in.sdst, carry & c.write);
}

bool DivScale(VCtx& c, bool f64) {
  // No scaling: D = S0, VCC = 0 (see the file comment).
  if (f64) {
    uint64_t a[kLanes];
    if (!SrcRow64(c, 0, I::kF64, a)) return false;
    if (!Out64(c, a, I::kF64)) return false;
  } else {
    uint32_t b0[kLanes], r[kLanes];
    const uint32_t* a = SrcRow32(c, 0, I::kF32, b0);
    if (a == nullptr) return false;
    std::memcpy(r, a, sizeof(r));
    if (!Out32(c, r, I::kF32)) return false;
  }
  return OutMask(c, c.in.sdst, 0);
}

float DivFixup(float q, float den, float num) {
  if (num != num || den != den) return std::numeric_limits<float>::quiet_NaN();
  if (den == 0.0f && num == 0.0f) return std::numeric_limits<float>::quiet_NaN();
  if (std::isinf(den) && std::isinf(num)) return std::numeric_limits<float>::quiet_NaN();
  const bool neg = std::signbit(den) != std::signbit(num);
  if (den == 0.0f || std::isinf(num)) return neg ? -INFINITY : INFINITY;
  if (std::isinf(den)) return neg ? -0.0f : 0.0f;
  return q;
}
double DivFixup(double q, double den, double num) {
  if (num != num || den != den) return std::numeric_limits<double>::quiet_NaN();
  if (den == 0.0 && num == 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(den) && std::isinf(num)) return std::numeric_limits<double>::quiet_NaN();
  const bool neg = std::signbit(den) != std::signbit(num);
  if (den == 0.0 || std::isinf(num)) return neg ? -INFINITY : INFINITY;
  if (std::isinf(den)) return neg ? -0.0 : 0.0;
  return q;
}

uint32_t Sad8(uint32_t a, uint32_t b, bool masked) {
  uint32_t s = 0;
  for (unsigned i = 0; i < 32; i += 8) {
    const uint32_t x = (a >> i) & 0xFF, y = (b >> i) & 0xFF;
    if (masked && x == 0) continue;
    s += x > y ? x - y : y - x;
  }
  return s;
}

uint32_t Perm(uint32_t a, uint32_t b, uint32_t sel) {
  const uint64_t v = uint64_t{a} << 32 | b;
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const uint32_t s = (sel >> (8 * i)) & 0xFF;
    uint32_t byte;
    if (s < 8) {
      byte = static_cast<uint32_t>(v >> (8 * s)) & 0xFF;
    } else if (s < 12) {
      const uint32_t src = 2 * (s - 8) + 1;  // sign of bytes 1, 3, 5, 7
      byte = ((v >> (8 * src + 7)) & 1u) != 0 ? 0xFF : 0x00;
    } else if (s == 12) {
      byte = 0x00;
    } else {
      byte = 0xFF;
    }
    r |= byte << (8 * i);
  }
  return r;
}

uint32_t Ffbh(uint32_t v) { return v == 0 ? ~0u : static_cast<uint32_t>(__builtin_clz(v)); }
uint32_t Ffbl(uint32_t v) { return v == 0 ? ~0u : static_cast<uint32_t>(__builtin_ctz(v)); }
uint32_t FfbhI(uint32_t v) {  // leading bits equal to the sign bit
  const uint32_t x = S(v) < 0 ? ~v : v;
  return x == 0 ? ~0u : static_cast<uint32_t>(__builtin_clz(x));
}
uint32_t Brev(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}
uint32_t Sat16U(uint32_t v) { return v > 0xFFFF ? 0xFFFF : v; }
uint32_t Sat16I(uint32_t v) {
  const int32_t s = S(v);
  return static_cast<uint32_t>(s > 32767 ? 32767 : (s < -32768 ? -32768 : s)) & 0xFFFFu;
}
uint32_t Snorm16(float f) {
  if (f != f) return 0;
  const float x = f < -1.0f ? -1.0f : (f > 1.0f ? 1.0f : f);
  return static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(x * 32767.0f))) & 0xFFFFu;
}
uint32_t Unorm16(float f) {
  if (!(f > 0.0f)) return 0;
  const float x = f > 1.0f ? 1.0f : f;
  return static_cast<uint32_t>(std::nearbyint(x * 65535.0f));
}

bool ReadLane(VCtx& c) {
  const unsigned e = c.in.src[0];
  if (e < kVgprBase) return c.x.Illegal("v_readlane source must be a VGPR");
  uint32_t sel = 0;
  if (!SrcScalar32(c, 1, &sel)) return false;
  return c.x.SetS32(c.in.vdst, c.w.v[e - kVgprBase][sel & 63]);
}

bool ReadFirstLane(VCtx& c) {
  const uint64_t exec = c.w.exec();
  const unsigned lane = exec == 0 ? 0 : static_cast<unsigned>(__builtin_ctzll(exec));
  uint32_t b0[kLanes];
  const uint32_t* a = SrcRow32(c, 0, I::kI32, b0);
  if (a == nullptr) return false;
  return c.x.SetS32(c.in.vdst, a[lane]);
}

bool WriteLane(VCtx& c) {
  uint32_t v = 0, sel = 0;
  if (!SrcScalar32(c, 0, &v) || !SrcScalar32(c, 1, &sel)) return false;
  if (c.in.vdst >= kVgprs) return c.x.Illegal("VGPR destination beyond v255");
  c.w.v[c.in.vdst][sel & 63] = v;
  return true;
}

bool Mbcnt(VCtx& c, bool hi) {
  uint32_t b0[kLanes], b1[kLanes], r[kLanes];
  const uint32_t* a = SrcRow32(c, 0, I::kI32, b0);
  if (a == nullptr) return false;
  const uint32_t* b = SrcRow32(c, 1, I::kI32, b1);
  if (b == nullptr) return false;
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t mask;
    if (hi) {
      mask = l <= 32 ? 0u : (l >= 64 ? ~0u : (1u << (l - 32)) - 1u);
    } else {
      mask = l >= 32 ? ~0u : (1u << l) - 1u;
    }
    r[l] = static_cast<uint32_t>(__builtin_popcount(a[l] & mask)) + b[l];
  }
  return Out32(c, r, I::kI32);
}

bool Swap(VCtx& c) {
  const unsigned e = c.in.src[0];
  if (e < kVgprBase || c.in.vdst >= kVgprs) return c.x.Illegal("v_swap_b32 needs two VGPRs");
  uint32_t* a = c.w.v[c.in.vdst];
  uint32_t* b = c.w.v[e - kVgprBase];
  const uint64_t m = c.w.exec();
  for (unsigned l = 0; l < kLanes; ++l) {
    if ((m >> l) & 1u) {
      const uint32_t t = a[l];
      a[l] = b[l];
      b[l] = t;
    }
  }
  return true;
}

bool AccMov(VCtx& c) {  // v_accvgpr_mov_b32 (gfx90a): acc[vdst] = acc[src0]
  const unsigned e = c.in.src[0];
  if (e < kVgprBase || c.in.vdst >= kVgprs) return c.x.Illegal("v_accvgpr_mov_b32 operands");
  uint32_t r[kLanes];
  std::memcpy(r, c.w.acc[e - kVgprBase], sizeof(r));
  Commit32(c.w.acc[c.in.vdst], r, c.w.exec());
  return true;
}

}  // namespace

bool RunVop(VCtx& c) {
  const unsigned op = c.in.op;
  const GfxTraits& t = c.x.t;
  if (op < 0x100) return Compare(c);
  switch (op) {
    // ---- VOP2 (0x100 + op) ----
    case 0x100: return Cndmask(c);
    case 0x101: return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) { return U32(F32(a) + F32(b)); });
    case 0x102: return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) { return U32(F32(a) - F32(b)); });
    case 0x103: return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) { return U32(F32(b) - F32(a)); });
    case 0x104:
      if (t.gfx90a_insts) {  // v_fmac_f64
        if (c.in.vdst + 1 >= kVgprs) return c.x.Illegal("64-bit VGPR destination beyond v255");
        uint64_t a[kLanes], b[kLanes], r[kLanes];
        if (!SrcRow64(c, 0, I::kF64, a) || !SrcRow64(c, 1, I::kF64, b)) return false;
        for (unsigned l = 0; l < kLanes; ++l) {
          const uint64_t d = c.w.v[c.in.vdst][l] | uint64_t{c.w.v[c.in.vdst + 1][l]} << 32;
          r[l] = U64(std::fma(F64(a[l]), F64(b[l]), F64(d)));
        }
        return Out64(c, r, I::kF64);
      }
      return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) {  // v_mul_legacy_f32: 0 * x = 0
        const float x = F32(a), y = F32(b);
        return (x == 0.0f || y == 0.0f) ? 0u : U32(x * y);
      });
    case 0x105: return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) { return U32(F32(a) * F32(b)); });
    case 0x106: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return Sext24(a) * Sext24(b); });
    case 0x107: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) {
        return static_cast<uint32_t>(static_cast<uint64_t>(int64_t{S(Sext24(a))} * S(Sext24(b))) >> 32);
      });
    case 0x108: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); });
    case 0x109: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) {
        return static_cast<uint32_t>((uint64_t{a & 0xFFFFFFu} * (b & 0xFFFFFFu)) >> 32);
      });
    case 0x10a: return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) { return U32(FMin(F32(a), F32(b))); });
    case 0x10b: return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) { return U32(FMax(F32(a), F32(b))); });
    case 0x10c: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return S(a) < S(b) ? a : b; });
    case 0x10d: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return S(a) > S(b) ? a : b; });
    case 0x10e: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a < b ? a : b; });
    case 0x10f: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a > b ? a : b; });
    case 0x110: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return b >> (a & 31); });
    case 0x111: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return static_cast<uint32_t>(S(b) >> (a & 31)); });
    case 0x112: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return b << (a & 31); });
    case 0x113: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a & b; });
    case 0x114: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a | b; });
    case 0x115: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a ^ b; });
    case 0x116:  // v_mac_f32
      return Mac(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(F32(a) * F32(b) + F32(d)); });
    case 0x117:  // v_madmk_f32 (normalised to S0 * K + S1)
    case 0x118:  // v_madak_f32
      return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(F32(a) * F32(b) + F32(d)); });
    case 0x119: return Carry(c, 0);
    case 0x11a: return Carry(c, 1);
    case 0x11b: return Carry(c, 2);
    case 0x11c: return Carry(c, 3);
    case 0x11d: return Carry(c, 4);
    case 0x11e: return Carry(c, 5);
    case 0x11f: return V2(c, I::kF16, I::kF16, I::kF16, [](uint32_t a, uint32_t b) { return H(F16(a) + F16(b)); });
    case 0x120: return V2(c, I::kF16, I::kF16, I::kF16, [](uint32_t a, uint32_t b) { return H(F16(a) - F16(b)); });
    case 0x121: return V2(c, I::kF16, I::kF16, I::kF16, [](uint32_t a, uint32_t b) { return H(F16(b) - F16(a)); });
    case 0x122: return V2(c, I::kF16, I::kF16, I::kF16, [](uint32_t a, uint32_t b) { return H(F16(a) * F16(b)); });
    case 0x123:  // v_mac_f16
      return Mac(c, I::kF16, [](uint32_t a, uint32_t b, uint32_t d) { return H(F16(a) * F16(b) + F16(d)); });
    case 0x124:
    case 0x125:  // v_madmk_f16 / v_madak_f16
      return V3(c, I::kF16, [](uint32_t a, uint32_t b, uint32_t d) { return H(F16(a) * F16(b) + F16(d)); });
    case 0x126: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return a + b; });
    case 0x127: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return a - b; });
    case 0x128: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return b - a; });
    case 0x129: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return a * b; });
    case 0x12a: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return (b & 0xFFFFu) << (a & 15); });
    case 0x12b: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return (b & 0xFFFFu) >> (a & 15); });
    case 0x12c: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) {
        return static_cast<uint32_t>(static_cast<int16_t>(b) >> (a & 15));
      });
    case 0x12d: return V2(c, I::kF16, I::kF16, I::kF16, [](uint32_t a, uint32_t b) { return H(FMax(F16(a), F16(b))); });
    case 0x12e: return V2(c, I::kF16, I::kF16, I::kF16, [](uint32_t a, uint32_t b) { return H(FMin(F16(a), F16(b))); });
    case 0x12f: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return (a & 0xFFFFu) > (b & 0xFFFFu) ? a : b; });
    case 0x130: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return static_cast<int16_t>(a) > static_cast<int16_t>(b) ? a : b; });
    case 0x131: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return (a & 0xFFFFu) < (b & 0xFFFFu) ? a : b; });
    case 0x132: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return static_cast<int16_t>(a) < static_cast<int16_t>(b) ? a : b; });
    case 0x133: return V2(c, I::kF16, I::kI16, I::kF16, [](uint32_t a, uint32_t b) {
        return H(std::ldexp(F16(a), static_cast<int16_t>(b)));
      });
    case 0x134: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a + b; });
    case 0x135: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a - b; });
    case 0x136: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return b - a; });
    case 0x13b:  // v_fmac_f32
      if (!t.dot_insts) break;
      return Mac(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(std::fma(F32(a), F32(b), F32(d))); });
    case 0x13d:  // v_xnor_b32
      if (!t.dot_insts) break;
      return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return ~(a ^ b); });

    // ---- VOP1 (0x140 + op) ----
    case 0x140: return true;  // v_nop
    case 0x141: return V1(c, I::kI32, I::kI32, [](uint32_t a) { return a; });
    case 0x142: return ReadFirstLane(c);
    case 0x143: return N1(c, I::kF64, I::kI32, [](uint64_t a) { return CvtI32(F64(a)); });
    case 0x144: return W1(c, I::kI32, [](uint32_t a) { return U64(static_cast<double>(S(a))); });
    case 0x145: return V1(c, I::kI32, I::kF32, [](uint32_t a) { return U32(static_cast<float>(S(a))); });
    case 0x146: return V1(c, I::kI32, I::kF32, [](uint32_t a) { return U32(static_cast<float>(a)); });
    case 0x147: return V1(c, I::kF32, I::kI32, [](uint32_t a) { return CvtU32(F32(a)); });
    case 0x148: return V1(c, I::kF32, I::kI32, [](uint32_t a) { return CvtI32(F32(a)); });
    case 0x14a: return V1(c, I::kF32, I::kF16, [](uint32_t a) { return H(F32(a)); });
    case 0x14b: return V1(c, I::kF16, I::kF32, [](uint32_t a) { return U32(F16(a)); });
    case 0x14c: return V1(c, I::kF32, I::kI32, [](uint32_t a) { return CvtI32(std::floor(F32(a) + 0.5f)); });
    case 0x14d: return V1(c, I::kF32, I::kI32, [](uint32_t a) { return CvtI32(std::floor(F32(a))); });
    case 0x14e: return V1(c, I::kI32, I::kF32, [](uint32_t a) {  // v_cvt_off_f32_i4
        return U32(static_cast<float>(static_cast<int32_t>(a << 28) >> 28) / 16.0f);
      });
    case 0x14f: return N1(c, I::kF64, I::kF32, [](uint64_t a) { return U32(static_cast<float>(F64(a))); });
    case 0x150: return W1(c, I::kF32, [](uint32_t a) { return U64(static_cast<double>(F32(a))); });
    case 0x151: return V1(c, I::kI32, I::kF32, [](uint32_t a) { return U32(static_cast<float>(a & 0xFF)); });
    case 0x152: return V1(c, I::kI32, I::kF32, [](uint32_t a) { return U32(static_cast<float>((a >> 8) & 0xFF)); });
    case 0x153: return V1(c, I::kI32, I::kF32, [](uint32_t a) { return U32(static_cast<float>((a >> 16) & 0xFF)); });
    case 0x154: return V1(c, I::kI32, I::kF32, [](uint32_t a) { return U32(static_cast<float>(a >> 24)); });
    case 0x155: return N1(c, I::kF64, I::kI32, [](uint64_t a) { return CvtU32(F64(a)); });
    case 0x156: return W1(c, I::kI32, [](uint32_t a) { return U64(static_cast<double>(a)); });
    case 0x157: return D1(c, I::kF64, [](uint64_t a) { return U64(std::trunc(F64(a))); });
    case 0x158: return D1(c, I::kF64, [](uint64_t a) { return U64(std::ceil(F64(a))); });
    case 0x159: return D1(c, I::kF64, [](uint64_t a) { return U64(std::nearbyint(F64(a))); });
    case 0x15a: return D1(c, I::kF64, [](uint64_t a) { return U64(std::floor(F64(a))); });
    case 0x15b: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(Fract(F32(a))); });
    case 0x15c: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(std::trunc(F32(a))); });
    case 0x15d: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(std::ceil(F32(a))); });
    case 0x15e: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(std::nearbyint(F32(a))); });
    case 0x15f: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(std::floor(F32(a))); });
    case 0x160: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(std::exp2(F32(a))); });
    case 0x161: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(std::log2(F32(a))); });
    case 0x162:
    case 0x163: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(1.0f / F32(a)); });
    case 0x164: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(1.0f / std::sqrt(F32(a))); });
    case 0x165: return D1(c, I::kF64, [](uint64_t a) { return U64(1.0 / F64(a)); });
    case 0x166: return D1(c, I::kF64, [](uint64_t a) { return U64(1.0 / std::sqrt(F64(a))); });
    case 0x167: return V1(c, I::kF32, I::kF32, [](uint32_t a) { return U32(std::sqrt(F32(a))); });
    case 0x168: return D1(c, I::kF64, [](uint64_t a) { return U64(std::sqrt(F64(a))); });
    case 0x169: return V1(c, I::kF32, I::kF32, [](uint32_t a) {  // input in revolutions
        return U32(static_cast<float>(std::sin(static_cast<double>(F32(a)) * 6.283185307179586)));
      });
    case 0x16a: return V1(c, I::kF32, I::kF32, [](uint32_t a) {
        return U32(static_cast<float>(std::cos(static_cast<double>(F32(a)) * 6.283185307179586)));
      });
    case 0x16b: return V1(c, I::kI32, I::kI32, [](uint32_t a) { return ~a; });
    case 0x16c: return V1(c, I::kI32, I::kI32, [](uint32_t a) { return Brev(a); });
    case 0x16d: return V1(c, I::kI32, I::kI32, [](uint32_t a) { return Ffbh(a); });
    case 0x16e: return V1(c, I::kI32, I::kI32, [](uint32_t a) { return Ffbl(a); });
    case 0x16f: return V1(c, I::kI32, I::kI32, [](uint32_t a) { return FfbhI(a); });
    case 0x170: return N1(c, I::kF64, I::kI32, [](uint64_t a) {
        int e = 0;
        const double d = F64(a);
        if (!std::isfinite(d)) return 0u;
        std::frexp(d, &e);
        return static_cast<uint32_t>(e);
      });
    case 0x171: return D1(c, I::kF64, [](uint64_t a) {
        int e = 0;
        const double d = F64(a);
        return std::isfinite(d) ? U64(std::frexp(d, &e)) : a;
      });
    case 0x172: return D1(c, I::kF64, [](uint64_t a) { return U64(Fract(F64(a))); });
    case 0x173: return V1(c, I::kF32, I::kI32, [](uint32_t a) {
        int e = 0;
        const float f = F32(a);
        if (!std::isfinite(f)) return 0u;
        std::frexp(f, &e);
        return static_cast<uint32_t>(e);
      });
    case 0x174: return V1(c, I::kF32, I::kF32, [](uint32_t a) {
        int e = 0;
        const float f = F32(a);
        return std::isfinite(f) ? U32(std::frexp(f, &e)) : a;
      });
    case 0x175: return true;  // v_clrexcp
    case 0x178:               // v_mov_b64 (gfx940)
      if (!t.gfx940_insts) break;
      return D1(c, I::kI64, [](uint64_t a) { return a; });
    case 0x179: return V1(c, I::kI16, I::kF16, [](uint32_t a) { return H(static_cast<float>(a & 0xFFFFu)); });
    case 0x17a: return V1(c, I::kI16, I::kF16, [](uint32_t a) { return H(static_cast<float>(static_cast<int16_t>(a))); });
    case 0x17b: return V1(c, I::kF16, I::kI16, [](uint32_t a) {
        const float f = F16(a);
        return f != f || f <= 0.0f ? 0u : (f >= 65535.0f ? 0xFFFFu : static_cast<uint32_t>(f));
      });
    case 0x17c: return V1(c, I::kF16, I::kI16, [](uint32_t a) {
        const float f = F16(a);
        if (f != f) return 0u;
        const float x = f < -32768.0f ? -32768.0f : (f > 32767.0f ? 32767.0f : f);
        return static_cast<uint32_t>(static_cast<int32_t>(x)) & 0xFFFFu;
      });
    case 0x17d: return V1(c, I::kF16, I::kF16, [](uint32_t a) { return H(1.0f / F16(a)); });
    case 0x17e: return V1(c, I::kF16, I::kF16, [](uint32_t a) { return H(std::sqrt(F16(a))); });
    case 0x17f: return V1(c, I::kF16, I::kF16, [](uint32_t a) { return H(1.0f / std::sqrt(F16(a))); });
    case 0x184: return V1(c, I::kF16, I::kF16, [](uint32_t a) { return H(std::floor(F16(a))); });
    case 0x185: return V1(c, I::kF16, I::kF16, [](uint32_t a) { return H(std::ceil(F16(a))); });
    case 0x186: return V1(c, I::kF16, I::kF16, [](uint32_t a) { return H(std::trunc(F16(a))); });
    case 0x187: return V1(c, I::kF16, I::kF16, [](uint32_t a) { return H(std::nearbyint(F16(a))); });
    case 0x191: return Swap(c);
    case 0x192:
      if (!t.gfx90a_insts) break;
      return AccMov(c);

    // ---- VOP3 only ----
    case 0x1c1: return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(F32(a) * F32(b) + F32(d)); });
    case 0x1c2: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return Sext24(a) * Sext24(b) + d; });
    case 0x1c3: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu) + d; });
    case 0x1c8: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        const uint32_t off = b & 31, width = d & 31;
        return width == 0 ? 0u : (a >> off) & ((1u << width) - 1u);
      });
    case 0x1c9: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        const uint32_t off = b & 31, width = d & 31;
        if (width == 0) return 0u;
        uint32_t r = (a >> off) & ((1u << width) - 1u);
        if (((r >> (width - 1)) & 1u) != 0) r |= ~0u << width;
        return r;
      });
    case 0x1ca: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a & b) | (~a & d); });
    case 0x1cb: return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(std::fma(F32(a), F32(b), F32(d))); });
    case 0x1cc: return D3(c, I::kF64, [](uint64_t a, uint64_t b, uint64_t d) { return U64(std::fma(F64(a), F64(b), F64(d))); });
    case 0x1ce: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        return static_cast<uint32_t>((uint64_t{a} << 32 | b) >> (d & 31));
      });
    case 0x1cf: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        return static_cast<uint32_t>((uint64_t{a} << 32 | b) >> (8 * (d & 3)));
      });
    case 0x1d0: return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(FMin(FMin(F32(a), F32(b)), F32(d))); });
    case 0x1d1: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        const int32_t m = S(a) < S(b) ? S(a) : S(b);
        return static_cast<uint32_t>(m < S(d) ? m : S(d));
      });
    case 0x1d2: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        const uint32_t m = a < b ? a : b;
        return m < d ? m : d;
      });
    case 0x1d3: return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(FMax(FMax(F32(a), F32(b)), F32(d))); });
    case 0x1d4: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        const int32_t m = S(a) > S(b) ? S(a) : S(b);
        return static_cast<uint32_t>(m > S(d) ? m : S(d));
      });
    case 0x1d5: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        const uint32_t m = a > b ? a : b;
        return m > d ? m : d;
      });
    case 0x1d6: return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) {
        const float x = F32(a), y = F32(b), z = F32(d);
        if (x != x || y != y || z != z) return U32(FMin(FMin(x, y), z));
        return U32(Med3(x, y, z));
      });
    case 0x1d7: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return static_cast<uint32_t>(Med3(S(a), S(b), S(d))); });
    case 0x1d8: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return Med3(a, b, d); });
    case 0x1d9: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return Sad8(a, b, false) + d; });
    case 0x1da: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (Sad8(a, b, false) << 16) + d; });
    case 0x1db: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        uint32_t s = 0;
        for (unsigned i = 0; i < 32; i += 16) {
          const uint32_t x = (a >> i) & 0xFFFF, y = (b >> i) & 0xFFFF;
          s += x > y ? x - y : y - x;
        }
        return s + d;
      });
    case 0x1dc: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a > b ? a - b : b - a) + d; });
    case 0x1dd: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {  // v_cvt_pk_u8_f32
        const float f = F32(a);
        const uint32_t byte = f != f || f <= 0.0f ? 0u : (f >= 255.0f ? 255u : static_cast<uint32_t>(std::nearbyint(f)));
        const uint32_t shift = 8 * (b & 3);
        return (d & ~(0xFFu << shift)) | (byte << shift);
      });
    case 0x1de: return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(DivFixup(F32(a), F32(b), F32(d))); });
    case 0x1df: return D3(c, I::kF64, [](uint64_t a, uint64_t b, uint64_t d) { return U64(DivFixup(F64(a), F64(b), F64(d))); });
    case 0x1e0: return DivScale(c, false);
    case 0x1e1: return DivScale(c, true);
    case 0x1e2: return V3(c, I::kF32, [](uint32_t a, uint32_t b, uint32_t d) { return U32(std::fma(F32(a), F32(b), F32(d))); });
    case 0x1e3: return D3(c, I::kF64, [](uint64_t a, uint64_t b, uint64_t d) { return U64(std::fma(F64(a), F64(b), F64(d))); });
    case 0x1e4: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return Sad8(a, b, true) + d; });
    case 0x1e8: return MadU64(c, false);
    case 0x1e9: return MadU64(c, true);
    case 0x1ed: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return Perm(a, b, d); });
    case 0x1f1: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a & 0xFFFFu) * (b & 0xFFFFu) + d; });
    case 0x1f2: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) {
        return static_cast<uint32_t>(int32_t{static_cast<int16_t>(a)} * static_cast<int16_t>(b)) + d;
      });
    case 0x1f3: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a ^ b) + d; });
    case 0x1f4: return V3(c, I::kF16, [](uint32_t a, uint32_t b, uint32_t d) { return H(FMin(FMin(F16(a), F16(b)), F16(d))); });
    case 0x1f5: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) {
        const int16_t x = static_cast<int16_t>(a), y = static_cast<int16_t>(b), z = static_cast<int16_t>(d);
        const int16_t m = x < y ? x : y;
        return static_cast<uint32_t>(m < z ? m : z);
      });
    case 0x1f6: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) {
        const uint32_t x = a & 0xFFFF, y = b & 0xFFFF, z = d & 0xFFFF;
        const uint32_t m = x < y ? x : y;
        return m < z ? m : z;
      });
    case 0x1f7: return V3(c, I::kF16, [](uint32_t a, uint32_t b, uint32_t d) { return H(FMax(FMax(F16(a), F16(b)), F16(d))); });
    case 0x1f8: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) {
        const int16_t x = static_cast<int16_t>(a), y = static_cast<int16_t>(b), z = static_cast<int16_t>(d);
        const int16_t m = x > y ? x : y;
        return static_cast<uint32_t>(m > z ? m : z);
      });
    case 0x1f9: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) {
        const uint32_t x = a & 0xFFFF, y = b & 0xFFFF, z = d & 0xFFFF;
        const uint32_t m = x > y ? x : y;
        return m > z ? m : z;
      });
    case 0x1fa: return V3(c, I::kF16, [](uint32_t a, uint32_t b, uint32_t d) { return H(Med3(F16(a), F16(b), F16(d))); });
    case 0x1fb: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) {
        return static_cast<uint32_t>(Med3(static_cast<int16_t>(a), static_cast<int16_t>(b), static_cast<int16_t>(d)));
      });
    case 0x1fc: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) { return Med3(a & 0xFFFFu, b & 0xFFFFu, d & 0xFFFFu); });
    case 0x1fd: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) + d; });
    case 0x1fe: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a + b) << (d & 31); });
    case 0x1ff: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return a + b + d; });
    case 0x200: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) | d; });
    case 0x201: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return (a & b) | d; });
    case 0x202: return V3(c, I::kI32, [](uint32_t a, uint32_t b, uint32_t d) { return a | b | d; });
    case 0x203: return V3(c, I::kF16, [](uint32_t a, uint32_t b, uint32_t d) { return H(F16(a) * F16(b) + F16(d)); });
    case 0x204: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) { return a * b + d; });
    case 0x205: return V3(c, I::kI16, [](uint32_t a, uint32_t b, uint32_t d) {
        return static_cast<uint32_t>(static_cast<int16_t>(a) * static_cast<int16_t>(b) + static_cast<int16_t>(d));
      });
    case 0x206: return V3(c, I::kF16, [](uint32_t a, uint32_t b, uint32_t d) { return H(std::fma(F16(a), F16(b), F16(d))); });
    case 0x280: return D2(c, I::kF64, [](uint64_t a, uint64_t b) { return U64(F64(a) + F64(b)); });
    case 0x281: return D2(c, I::kF64, [](uint64_t a, uint64_t b) { return U64(F64(a) * F64(b)); });
    case 0x282: return D2(c, I::kF64, [](uint64_t a, uint64_t b) { return U64(std::fmin(F64(a), F64(b))); });
    case 0x283: return D2(c, I::kF64, [](uint64_t a, uint64_t b) { return U64(std::fmax(F64(a), F64(b))); });
    case 0x284: return D64x32(c, [](uint64_t a, uint32_t b) { return U64(std::ldexp(F64(a), S(b))); });
    case 0x285: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a * b; });
    case 0x286: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return static_cast<uint32_t>((uint64_t{a} * b) >> 32); });
    case 0x287: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) {
        return static_cast<uint32_t>(static_cast<uint64_t>(int64_t{S(a)} * S(b)) >> 32);
      });
    case 0x288: return V2(c, I::kF32, I::kI32, I::kF32, [](uint32_t a, uint32_t b) { return U32(std::ldexp(F32(a), S(b))); });
    case 0x289: return ReadLane(c);
    case 0x28a: return WriteLane(c);
    case 0x28b: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) {
        return static_cast<uint32_t>(__builtin_popcount(a)) + b;
      });
    case 0x28c: return Mbcnt(c, false);
    case 0x28d: return Mbcnt(c, true);
    case 0x28f: return Shift64(c, [](uint32_t a, uint64_t b) { return b << (a & 63); });
    case 0x290: return Shift64(c, [](uint32_t a, uint64_t b) { return b >> (a & 63); });
    case 0x291: return Shift64(c, [](uint32_t a, uint64_t b) {
        return static_cast<uint64_t>(static_cast<int64_t>(b) >> (a & 63));
      });
    case 0x293: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) {
        return ((1u << (a & 31)) - 1u) << (b & 31);
      });
    case 0x294: return V2(c, I::kF32, I::kF32, I::kI32, [](uint32_t a, uint32_t b) { return Snorm16(F32(a)) | (Snorm16(F32(b)) << 16); });
    case 0x295: return V2(c, I::kF32, I::kF32, I::kI32, [](uint32_t a, uint32_t b) { return Unorm16(F32(a)) | (Unorm16(F32(b)) << 16); });
    case 0x296: return V2(c, I::kF32, I::kF32, I::kI32, [](uint32_t a, uint32_t b) { return HRtz(F32(a)) | (HRtz(F32(b)) << 16); });
    case 0x297: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return Sat16U(a) | (Sat16U(b) << 16); });
    case 0x298: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return Sat16I(a) | (Sat16I(b) << 16); });
    case 0x29c: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a + b; });
    case 0x29d: return V2(c, I::kI32, I::kI32, I::kI32, [](uint32_t a, uint32_t b) { return a - b; });
    case 0x29e: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return a + b; });
    case 0x29f: return V2(c, I::kI16, I::kI16, I::kI16, [](uint32_t a, uint32_t b) { return a - b; });
    case 0x2a1:  // v_mul_legacy_f32 keeps a VOP3-only encoding where VOP2 0x04 is v_fmac_f64
      if (!t.gfx90a_insts) break;
      return V2(c, I::kF32, I::kF32, I::kF32, [](uint32_t a, uint32_t b) {
        const float x = F32(a), y = F32(b);
        return (x == 0.0f || y == 0.0f) ? 0u : U32(x * y);
      });
    case 0x2a0: {  // v_pack_b32_f16: {S1.f16, S0.f16}; op_sel picks the halves
      uint32_t b0[kLanes], b1[kLanes], r[kLanes];
      const uint32_t* a = SrcRow32(c, 0, I::kF16, b0);
      if (a == nullptr) return false;
      const uint32_t* b = SrcRow32(c, 1, I::kF16, b1);
      if (b == nullptr) return false;
      for (unsigned l = 0; l < kLanes; ++l) r[l] = (a[l] & 0xFFFFu) | (b[l] << 16);
      return Out32(c, r, I::kI32);
    }
    default:
      break;
  }
  return c.x.Illegal("VALU opcode " + std::to_string(op) + " is not supported on " + t.name);
}

// ---- VOP3P ----

namespace {

// The 16-bit half of `v` that op_sel bit `i` of `sel` picks.
uint32_t Half(uint32_t v, uint8_t sel, unsigned i) { return ((sel >> i) & 1u) ? v >> 16 : v & 0xFFFFu; }

template <typename F>
bool Packed16(VCtx& c, unsigned nsrc, bool is_float, F f) {
  const VInst& in = c.in;
  uint32_t r[kLanes];
  const uint32_t* s[3] = {nullptr, nullptr, nullptr};
  uint32_t buf[3][kLanes];
  for (unsigned i = 0; i < nsrc; ++i) {
    const unsigned e = in.src[i];
    if (e >= kVgprBase) {
      s[i] = c.w.v[e - kVgprBase];
    } else {
      uint32_t v = 0;
      if (!c.x.S32(e, &v)) return false;
      for (unsigned l = 0; l < kLanes; ++l) buf[i][l] = v;
      s[i] = buf[i];
    }
  }
  if (!is_float && (in.neg | in.neg_hi) != 0) return c.x.Illegal("neg on an integer packed op");
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (unsigned i = 0; i < nsrc; ++i) {
      lo[i] = Half(s[i][l], in.opsel, i);
      hi[i] = Half(s[i][l], in.opsel_hi, i);
      if ((in.neg >> i) & 1u) lo[i] ^= 0x8000u;
      if ((in.neg_hi >> i) & 1u) hi[i] ^= 0x8000u;
    }
    r[l] = (f(lo[0], lo[1], lo[2]) & 0xFFFFu) | (f(hi[0], hi[1], hi[2]) << 16);
  }
  if (in.clamp) return c.x.Illegal("clamp on a packed op");
  if (in.vdst >= kVgprs) return c.x.Illegal("VGPR destination beyond v255");
  Commit32(c.w.v[in.vdst], r, c.w.exec());
  return true;
}

// gfx90a packed f32 on register pairs: op_sel/op_sel_hi pick each source's
// dword for the low and high results.
template <typename F>
bool Packed32(VCtx& c, unsigned nsrc, F f) {
  const VInst& in = c.in;
  uint64_t s[3][kLanes];
  VInst raw = in;  // neg/neg_hi apply per dword below
  raw.neg = raw.abs = 0;
  VCtx rc(c.x, raw);
  for (unsigned i = 0; i < nsrc; ++i) {
    if (!SrcRow64(rc, i, Kind::kI64, s[i])) return false;
  }
  uint64_t r[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (unsigned i = 0; i < nsrc; ++i) {
      lo[i] = static_cast<uint32_t>(((in.opsel >> i) & 1u) ? s[i][l] >> 32 : s[i][l]);
      hi[i] = static_cast<uint32_t>(((in.opsel_hi >> i) & 1u) ? s[i][l] >> 32 : s[i][l]);
      if ((in.neg >> i) & 1u) lo[i] ^= 0x80000000u;
      if ((in.neg_hi >> i) & 1u) hi[i] ^= 0x80000000u;
    }
    r[l] = f(lo[0], lo[1], lo[2]) | uint64_t{f(hi[0], hi[1], hi[2])} << 32;
  }
  if (in.clamp) return c.x.Illegal("clamp on a packed op");
  VInst plain = in;
  plain.clamp = false;
  plain.omod = 0;
  VCtx out(c.x, plain);
  return Out64(out, r, Kind::kI64);
}

// v_dot*: sums of products of sub-dword elements, plus src2.
template <typename F>
bool Dot(VCtx& c, F f) {
  const VInst& in = c.in;
  uint32_t b[3][kLanes], r[kLanes];
  const uint32_t* s[3];
  for (unsigned i = 0; i < 3; ++i) {
    const unsigned e = in.src[i];
    if (e >= kVgprBase) {
      s[i] = c.w.v[e - kVgprBase];
    } else {
      uint32_t v = 0;
      if (!c.x.S32(e, &v)) return false;
      for (unsigned l = 0; l < kLanes; ++l) b[i][l] = v;
      s[i] = b[i];
    }
  }
  for (unsigned l = 0; l < kLanes; ++l) r[l] = f(s[0][l], s[1][l], s[2][l], in.clamp);
  if (in.vdst >= kVgprs) return c.x.Illegal("VGPR destination beyond v255");
  Commit32(c.w.v[in.vdst], r, c.w.exec());
  return true;
}

uint32_t DotInt(uint32_t a, uint32_t b, uint32_t acc, unsigned bits, bool sign, bool clamp) {
  int64_t s = sign ? int64_t{S(acc)} : int64_t{acc};
  for (unsigned i = 0; i < 32; i += bits) {
    const uint32_t mask = (1u << bits) - 1u;
    int64_t x = (a >> i) & mask, y = (b >> i) & mask;
    if (sign) {
      if (x >> (bits - 1)) x -= int64_t{1} << bits;
      if (y >> (bits - 1)) y -= int64_t{1} << bits;
    }
    s += x * y;
  }
  if (clamp) {
    if (sign) s = s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : s);
    else s = s > int64_t{UINT32_MAX} ? int64_t{UINT32_MAX} : s;
  }
  return static_cast<uint32_t>(s);
}

}  // namespace

bool RunVop3p(VCtx& c) {
  const unsigned op = c.in.op;
  const GfxTraits& t = c.x.t;
  using U = uint32_t;
  switch (op) {
    case 0x380: return Packed16(c, 3, false, [](U a, U b, U d) {
        return static_cast<U>(static_cast<int16_t>(a) * static_cast<int16_t>(b) + static_cast<int16_t>(d));
      });
    case 0x381: return Packed16(c, 2, false, [](U a, U b, U) { return a * b; });
    case 0x382: return Packed16(c, 2, false, [](U a, U b, U) { return a + b; });
    case 0x383: return Packed16(c, 2, false, [](U a, U b, U) { return a - b; });
    case 0x384: return Packed16(c, 2, false, [](U a, U b, U) { return b << (a & 15); });
    case 0x385: return Packed16(c, 2, false, [](U a, U b, U) { return b >> (a & 15); });
    case 0x386: return Packed16(c, 2, false, [](U a, U b, U) { return static_cast<U>(static_cast<int16_t>(b) >> (a & 15)); });
    case 0x387: return Packed16(c, 2, false, [](U a, U b, U) { return static_cast<int16_t>(a) > static_cast<int16_t>(b) ? a : b; });
    case 0x388: return Packed16(c, 2, false, [](U a, U b, U) { return static_cast<int16_t>(a) < static_cast<int16_t>(b) ? a : b; });
    case 0x389: return Packed16(c, 3, false, [](U a, U b, U d) { return a * b + d; });
    case 0x38a: return Packed16(c, 2, false, [](U a, U b, U) { return a + b; });
    case 0x38b: return Packed16(c, 2, false, [](U a, U b, U) { return a - b; });
    case 0x38c: return Packed16(c, 2, false, [](U a, U b, U) { return a > b ? a : b; });
    case 0x38d: return Packed16(c, 2, false, [](U a, U b, U) { return a < b ? a : b; });
    case 0x38e: return Packed16(c, 3, true, [](U a, U b, U d) { return H(std::fma(F16(a), F16(b), F16(d))); });
    case 0x38f: return Packed16(c, 2, true, [](U a, U b, U) { return H(F16(a) + F16(b)); });
    case 0x390: return Packed16(c, 2, true, [](U a, U b, U) { return H(F16(a) * F16(b)); });
    case 0x391: return Packed16(c, 2, true, [](U a, U b, U) { return H(FMin(F16(a), F16(b))); });
    case 0x392: return Packed16(c, 2, true, [](U a, U b, U) { return H(FMax(F16(a), F16(b))); });
    case 0x3a3:
      if (!t.dot_insts) break;
      return Dot(c, [](U a, U b, U d, bool) {
        return U32(F16(a & 0xFFFF) * F16(b & 0xFFFF) + F16(a >> 16) * F16(b >> 16) + F32(d));
      });
    case 0x3a6:
    case 0x3a7:
      if (!t.dot_insts) break;
      return Dot(c, [op](U a, U b, U d, bool cl) { return DotInt(a, b, d, 16, op == 0x3a6, cl); });
    case 0x3a8:
    case 0x3a9:
      if (!t.dot_insts) break;
      return Dot(c, [op](U a, U b, U d, bool cl) { return DotInt(a, b, d, 8, op == 0x3a8, cl); });
    case 0x3aa:
    case 0x3ab:
      if (!t.dot_insts) break;
      return Dot(c, [op](U a, U b, U d, bool cl) { return DotInt(a, b, d, 4, op == 0x3aa, cl); });
    case 0x3b0:
      if (!t.gfx90a_insts) break;
      return Packed32(c, 3, [](U a, U b, U d) { return U32(std::fma(F32(a), F32(b), F32(d))); });
    case 0x3b1:
      if (!t.gfx90a_insts) break;
      return Packed32(c, 2, [](U a, U b, U) { return U32(F32(a) * F32(b)); });
    case 0x3b2:
      if (!t.gfx90a_insts) break;
      return Packed32(c, 2, [](U a, U b, U) { return U32(F32(a) + F32(b)); });
    case 0x3b3: {  // v_pk_mov_b32: low dword from src0 (op_sel[0]), high from src1 (op_sel[1])
      if (!t.gfx90a_insts) break;
      uint64_t a[kLanes], b[kLanes], r[kLanes];
      if (!SrcRow64(c, 0, Kind::kI64, a) || !SrcRow64(c, 1, Kind::kI64, b)) return false;
      const bool s0 = (c.in.opsel & 1u) != 0, s1 = (c.in.opsel & 2u) != 0;
      for (unsigned l = 0; l < kLanes; ++l) {
        const uint32_t lo = static_cast<uint32_t>(s0 ? a[l] >> 32 : a[l]);
        const uint32_t hi = static_cast<uint32_t>(s1 ? b[l] >> 32 : b[l]);
        r[l] = lo | uint64_t{hi} << 32;
      }
      return Out64(c, r, Kind::kI64);
    }
    case 0x3d8: {  // v_accvgpr_read_b32: vdst = acc[src0]
      if (!t.agprs) break;
      const unsigned e = c.in.src[0];
      if (e < kVgprBase || c.in.vdst >= kVgprs) return c.x.Illegal("v_accvgpr_read_b32 operands");
      uint32_t r[kLanes];
      std::memcpy(r, c.w.acc[e - kVgprBase], sizeof(r));
      Commit32(c.w.v[c.in.vdst], r, c.w.exec());
      return true;
    }
    case 0x3d9: {  // v_accvgpr_write_b32: acc[vdst] = src0
      if (!t.agprs) break;
      if (c.in.vdst >= kVgprs) return c.x.Illegal("v_accvgpr_write_b32 destination");
      uint32_t b0[kLanes], r[kLanes];
      VInst plain = c.in;
      plain.vop3 = false;
      plain.abs = plain.neg = 0;
      VCtx pc(c.x, plain);
      const uint32_t* a = SrcRow32(pc, 0, Kind::kI32, b0);
      if (a == nullptr) return false;
      std::memcpy(r, a, sizeof(r));
      Commit32(c.w.acc[c.in.vdst], r, c.w.exec());
      return true;
    }
    default:
      break;
  }
  return c.x.Illegal("VOP3P opcode " + std::to_string(op) + " is not supported on " + t.name);
}

}  // namespace kfdsim::shader::detail
