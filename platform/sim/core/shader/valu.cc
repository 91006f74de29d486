// Vector ALU encodings (VOP1, VOP2, VOPC, VOP3a/b, VOP3P) normalised into
// VInst, source rows with their modifiers, DPP lane permutations, SDWA
// byte/word selects, and the EXEC-masked writes (see valu.h).
//
// Rules: a 32-bit encoding's src0 of 255 is the literal dword that follows;
// 0xfa is DPP and 0xf9 SDWA (their control dword follows and src0 is its
// low byte). VOP3 has no literal on gfx9 (255 there is illegal). DPP: a
// lane whose source lane is outside the row/wave or inactive reads 0 with
// bound_ctrl set and is not written otherwise; row_mask and bank_mask
// leave lanes unwritten. SDWA: sources are the selected byte/word, zero-
// or sign-extended; the result goes to the selected field of vdst, the
// rest padded, sign-extended or preserved (dst_unused).
#include "platform/sim/core/shader/valu.h"

#include <cstring>

namespace kfdsim::shader::detail {

namespace {

constexpr uint16_t kInlineF16[9] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000,
                                    0xc000, 0x4400, 0xc400, 0x3118};

bool IsFloat(Kind k) { return k == Kind::kF16 || k == Kind::kF32 || k == Kind::kF64; }

// Source lane of lane `i` under DPP control `ctl`, or -1 when invalid.
int DppLane(uint32_t ctl, int i) {
  const int row = i & ~15, in_row = i & 15;
  if (ctl <= 0xFF) return (i & ~3) + static_cast<int>((ctl >> (2 * (i & 3))) & 3u);
  if (ctl >= 0x101 && ctl <= 0x10F) {
    const int s = in_row + static_cast<int>(ctl & 0xF);
    return s < 16 ? row + s : -1;
  }
  if (ctl >= 0x111 && ctl <= 0x11F) {
    const int s = in_row - static_cast<int>(ctl & 0xF);
    return s >= 0 ? row + s : -1;
  }
  if (ctl >= 0x121 && ctl <= 0x12F) return row + ((in_row - static_cast<int>(ctl & 0xF)) & 15);
  switch (ctl) {
    case 0x130: return i + 1 < 64 ? i + 1 : -1;  // wave_shl:1
    case 0x134: return (i + 1) & 63;              // wave_rol:1
    case 0x138: return i >= 1 ? i - 1 : -1;       // wave_shr:1
    case 0x13C: return (i - 1) & 63;              // wave_ror:1
    case 0x140: return row + 15 - in_row;         // row_mirror
    case 0x141: return (i & ~7) + 7 - (i & 7);    // row_half_mirror
    case 0x142: return row >= 16 ? row - 1 : -1;  // row_bcast:15
    case 0x143: return i >= 32 ? 31 : -1;         // row_bcast:31
    default: return -2;                           // reserved control
  }
}

uint32_t SdwaSelect(uint32_t v, uint32_t sel, bool sext) {
  uint32_t bits = 32, shift = 0;
  if (sel <= 3) {
    bits = 8;
    shift = 8 * sel;
  } else if (sel <= 5) {
    bits = 16;
    shift = 16 * (sel - 4);
  }
  if (bits == 32) return v;
  uint32_t r = (v >> shift) & ((1u << bits) - 1u);
  if (sext && ((r >> (bits - 1)) & 1u) != 0) r |= ~0u << bits;
  return r;
}

void ApplyMods32(uint32_t* row, unsigned n, Kind k, bool abs, bool neg) {
  uint32_t sign = 0x80000000u;
  if (k == Kind::kF16) sign = 0x8000u;
  if (abs) {
    for (unsigned i = 0; i < n; ++i) row[i] &= ~sign;
  }
  if (neg) {
    for (unsigned i = 0; i < n; ++i) row[i] ^= sign;
  }
}

}  // namespace

bool SrcScalar32(VCtx& c, unsigned i, uint32_t* v) {
  const unsigned e = c.in.src[i];
  if (e >= kVgprBase) return c.x.Illegal("a scalar operand is required");
  return c.x.S32(e, v);
}

const uint32_t* SrcRow32Slow(VCtx& c, unsigned i, Kind k, uint32_t* buf) {
  const VInst& in = c.in;
  const unsigned e = in.src[i];
  const bool abs = ((in.abs >> i) & 1u) != 0 && IsFloat(k);
  const bool neg = ((in.neg >> i) & 1u) != 0 && IsFloat(k);
  if (((in.abs | in.neg) >> i & 1u) != 0 && !IsFloat(k)) {
    c.x.Illegal("abs/neg modifier on an integer operand");
    return nullptr;
  }
  const bool hi = in.vop3 && ((in.opsel >> i) & 1u) != 0 && (k == Kind::kI16 || k == Kind::kF16);
  const uint32_t* row = nullptr;
  if (e >= kVgprBase) {
    const uint32_t* reg = c.w.v[e - kVgprBase];
    if (i == 0 && in.dpp) {
      const uint32_t ctl = (in.ctl >> 8) & 0x1FF;
      const bool bound_zero = ((in.ctl >> 19) & 1u) != 0;
      const uint64_t exec = c.w.exec();
      for (int l = 0; l < 64; ++l) {
        const int s = DppLane(ctl, l);
        if (s == -2) {
          c.x.Illegal("reserved DPP control " + std::to_string(ctl));
          return nullptr;
        }
        if (s >= 0 && ((exec >> s) & 1u) != 0) {
          buf[l] = reg[s];
        } else {
          buf[l] = 0;
          if (!bound_zero) c.write &= ~(uint64_t{1} << l);
        }
      }
      row = buf;
    } else if (in.sdwa && i <= 1) {
      const uint32_t sel = (in.ctl >> (i == 0 ? 16 : 24)) & 7u;
      const bool sext = ((in.ctl >> (i == 0 ? 19 : 27)) & 1u) != 0;
      for (unsigned l = 0; l < kLanes; ++l) buf[l] = SdwaSelect(reg[l], sel, sext);
      row = buf;
    } else if (hi) {
      for (unsigned l = 0; l < kLanes; ++l) buf[l] = reg[l] >> 16;
      row = buf;
    } else if (abs || neg) {
      std::memcpy(buf, reg, kLanes * 4);
      row = buf;
    } else {
      return reg;
    }
  } else {
    uint32_t v = 0;
    if (k == Kind::kF16 && e >= kFloatHalf && e <= kFloatHalf + 8) {
      v = kInlineF16[e - kFloatHalf];
    } else if (!c.x.S32(e, &v)) {
      return nullptr;
    }
    if (in.sdwa && i <= 1) {
      v = SdwaSelect(v, (in.ctl >> (i == 0 ? 16 : 24)) & 7u, ((in.ctl >> (i == 0 ? 19 : 27)) & 1u) != 0);
    } else if (hi) {
      v >>= 16;
    }
    for (unsigned l = 0; l < kLanes; ++l) buf[l] = v;
    row = buf;
  }
  if (abs || neg) ApplyMods32(buf, kLanes, k, abs, neg);
  return row;
}

bool SrcRow64(VCtx& c, unsigned i, Kind k, uint64_t* buf) {
  const VInst& in = c.in;
  const unsigned e = in.src[i];
  if (in.dpp || in.sdwa) return c.x.Illegal("DPP/SDWA on a 64-bit operand");
  if (((in.abs | in.neg) >> i & 1u) != 0 && k != Kind::kF64) {
    return c.x.Illegal("abs/neg modifier on an integer operand");
  }
  if (e >= kVgprBase) {
    const unsigned r = e - kVgprBase;
    if (r + 1 >= kVgprs) return c.x.Illegal("64-bit VGPR operand beyond v255");
    const uint32_t* lo = c.w.v[r];
    const uint32_t* hi = c.w.v[r + 1];
    for (unsigned l = 0; l < kLanes; ++l) buf[l] = lo[l] | uint64_t{hi[l]} << 32;
  } else {
    uint64_t v = 0;
    if (!c.x.S64(e, &v, k == Kind::kF64)) return false;
    for (unsigned l = 0; l < kLanes; ++l) buf[l] = v;
  }
  if (k == Kind::kF64) {
    const uint64_t sign = 0x8000000000000000ull;
    if ((in.abs >> i) & 1u) {
      for (unsigned l = 0; l < kLanes; ++l) buf[l] &= ~sign;
    }
    if ((in.neg >> i) & 1u) {
      for (unsigned l = 0; l < kLanes; ++l) buf[l] ^= sign;
    }
  }
  return true;
}

bool Out32Slow(VCtx& c, uint32_t* res, Kind k) {
  const VInst& in = c.in;
  if (in.omod != 0 || in.clamp) {
    if (k == Kind::kF32) {
      for (unsigned l = 0; l < kLanes; ++l) {
        float f = F32(res[l]);
        if (in.omod == 1) f *= 2.0f;
        if (in.omod == 2) f *= 4.0f;
        if (in.omod == 3) f *= 0.5f;
        if (in.clamp) f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : (f != f ? 0.0f : f));
        res[l] = U32(f);
      }
    } else if (k == Kind::kF16) {
      for (unsigned l = 0; l < kLanes; ++l) {
        float f = F16ToF32(static_cast<uint16_t>(res[l]));
        if (in.omod == 1) f *= 2.0f;
        if (in.omod == 2) f *= 4.0f;
        if (in.omod == 3) f *= 0.5f;
        if (in.clamp) f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : (f != f ? 0.0f : f));
        res[l] = F32ToF16(f);
      }
    } else {
      return c.x.Illegal("clamp/omod on an integer result");
    }
  }
  if (in.vdst >= kVgprs) return c.x.Illegal("VGPR destination beyond v255");
  uint32_t* dst = c.w.v[in.vdst];
  if (k == Kind::kI16 || k == Kind::kF16) {
    if (in.vop3 && ((in.opsel >> 3) & 1u) != 0) {
      // op_sel[3]: the result goes to the high half, the low half is kept.
      for (unsigned l = 0; l < kLanes; ++l) res[l] = (dst[l] & 0xFFFFu) | (res[l] << 16);
    } else if (!in.sdwa) {
      for (unsigned l = 0; l < kLanes; ++l) res[l] &= 0xFFFFu;  // gfx9 zeroes the high half
    }
  }
  if (in.sdwa) {
    const uint32_t sel = (in.ctl >> 8) & 7u;
    const uint32_t unused = (in.ctl >> 11) & 3u;
    if (sel > 6 || unused > 2) return c.x.Illegal("reserved SDWA destination select");
    if (sel != 6) {
      const uint32_t bits = sel <= 3 ? 8 : 16;
      const uint32_t shift = sel <= 3 ? 8 * sel : 16 * (sel - 4);
      const uint32_t field = ((1u << bits) - 1u) << shift;
      for (unsigned l = 0; l < kLanes; ++l) {
        const uint32_t v = (res[l] << shift) & field;
        uint32_t rest = 0;
        if (unused == 1) {
          const bool sign = ((res[l] >> (bits - 1)) & 1u) != 0;
          rest = sign ? (~0u << (shift + bits)) : 0u;  // sign-extend above, zero below
        } else if (unused == 2) {
          rest = dst[l] & ~field;
        }
        res[l] = v | rest;
      }
    }
  }
  Commit32(dst, res, c.write);
  return true;
}

bool Out64(VCtx& c, uint64_t* res, Kind k) {
  const VInst& in = c.in;
  if (in.omod != 0 || in.clamp) {
    if (k != Kind::kF64) return c.x.Illegal("clamp/omod on an integer result");
    for (unsigned l = 0; l < kLanes; ++l) {
      double d = F64(res[l]);
      if (in.omod == 1) d *= 2.0;
      if (in.omod == 2) d *= 4.0;
      if (in.omod == 3) d *= 0.5;
      if (in.clamp) d = d < 0.0 ? 0.0 : (d > 1.0 ? 1.0 : (d != d ? 0.0 : d));
      res[l] = U64(d);
    }
  }
  if (in.vdst + 1 >= kVgprs) return c.x.Illegal("64-bit VGPR destination beyond v255");
  uint32_t lo[kLanes], hi[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) {
    lo[l] = static_cast<uint32_t>(res[l]);
    hi[l] = static_cast<uint32_t>(res[l] >> 32);
  }
  Commit32(c.w.v[in.vdst], lo, c.write);
  Commit32(c.w.v[in.vdst + 1], hi, c.write);
  return true;
}

bool OutMask(VCtx& c, unsigned enc, uint64_t bits) {
  return c.x.SetS64(enc, bits & c.w.exec());
}

bool MaskIn(VCtx& c, unsigned enc, uint64_t* bits) {
  if (enc >= kVgprBase) return c.x.Illegal("a lane mask must be an SGPR pair");
  return c.x.S64(enc, bits);
}

// ---- encodings ----

namespace {

// The DPP/SDWA/literal dword of a 32-bit VALU encoding whose src0 is `src0`.
bool Extended(Exec& x, VInst& in) {
  if (in.src[0] == kDpp || in.src[0] == kSdwa) {
    uint32_t ctl = 0;
    if (!x.Word1(&ctl)) return false;
    x.size = 8;
    in.ctl = ctl;
    if (in.src[0] == kDpp) {
      in.dpp = true;
      in.src[0] = kVgprBase + (ctl & 0xFF);
      if ((ctl >> 21) & 1u) in.abs |= 1;
      if ((ctl >> 20) & 1u) in.neg |= 1;
      if ((ctl >> 23) & 1u) in.abs |= 2;
      if ((ctl >> 22) & 1u) in.neg |= 2;
      const uint32_t row_mask = ctl >> 28, bank_mask = (ctl >> 24) & 0xF;
      in.ctl = ctl;
      (void)row_mask;
      (void)bank_mask;
    } else {
      in.sdwa = true;
      in.src[0] = ((ctl >> 23) & 1u) ? (ctl & 0xFF) : kVgprBase + (ctl & 0xFF);
      if (in.nsrc > 1 && ((ctl >> 31) & 1u) != 0) in.src[1] -= kVgprBase;  // s1: src1 is scalar
      if ((ctl >> 21) & 1u) in.abs |= 1;
      if ((ctl >> 20) & 1u) in.neg |= 1;
      if ((ctl >> 29) & 1u) in.abs |= 2;
      if ((ctl >> 28) & 1u) in.neg |= 2;
      in.clamp = ((ctl >> 13) & 1u) != 0;
      in.omod = static_cast<uint8_t>((ctl >> 14) & 3u);
    }
  }
  return true;
}

bool Run(Exec& x, const VInst& in) {
  VCtx c(x, in);
  if (in.dpp) {
    const uint32_t row_mask = in.ctl >> 28, bank_mask = (in.ctl >> 24) & 0xF;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (((row_mask >> (l / 16)) & 1u) == 0 || ((bank_mask >> ((l / 4) & 3)) & 1u) == 0) {
        c.write &= ~(uint64_t{1} << l);
      }
    }
  }
  return RunVop(c);
}

}  // namespace

bool ExecVop2(Exec& x) {
  VInst in;
  const uint32_t op = (x.w0 >> 25) & 0x3F;
  in.op = 0x100 + op;
  in.src[0] = x.w0 & 0x1FF;
  in.src[1] = kVgprBase + ((x.w0 >> 9) & 0xFF);
  in.nsrc = 2;
  in.vdst = (x.w0 >> 17) & 0xFF;
  if (op == 0x17 || op == 0x18 || op == 0x24 || op == 0x25) {
    // v_madmk/madak (f32, f16): a literal is the third operand.
    uint32_t k = 0;
    if (in.src[0] == kDpp || in.src[0] == kSdwa) return x.Illegal("DPP/SDWA on madmk/madak");
    if (!x.Word1(&k)) return false;
    x.size = 8;
    x.literal = k;
    x.have_literal = true;
    in.nsrc = 3;
    if (op == 0x17 || op == 0x24) {  // madmk: D = S0 * K + S1
      in.src[2] = in.src[1];
      in.src[1] = kLiteral;
    } else {  // madak: D = S0 * S1 + K
      in.src[2] = kLiteral;
    }
    if (in.src[0] == kLiteral) return x.Illegal("two literals");
  }
  if (!Extended(x, in)) return false;
  return Run(x, in);
}

bool ExecVop1(Exec& x) {
  VInst in;
  const uint32_t op = (x.w0 >> 9) & 0xFF;
  if (op >= 0x80) return x.Illegal("VOP1 opcode " + std::to_string(op) + " does not exist");
  in.op = 0x140 + op;
  in.src[0] = x.w0 & 0x1FF;
  in.nsrc = 1;
  in.vdst = (x.w0 >> 17) & 0xFF;
  if (!Extended(x, in)) return false;
  return Run(x, in);
}

bool ExecVopc(Exec& x) {
  VInst in;
  in.op = (x.w0 >> 17) & 0xFF;
  in.src[0] = x.w0 & 0x1FF;
  in.src[1] = kVgprBase + ((x.w0 >> 9) & 0xFF);
  in.nsrc = 2;
  if (!Extended(x, in)) return false;
  if (in.sdwa && ((in.ctl >> 15) & 1u) != 0) in.sdst = (in.ctl >> 8) & 0x7F;
  if (in.sdwa && (((in.ctl >> 8) & 0x7F) != 0) && ((in.ctl >> 15) & 1u) == 0) {
    return x.Illegal("SDWA VOPC destination without the sd bit");
  }
  if (in.sdwa) in.ctl &= ~(0xFFu << 8);  // VOPC has no destination select
  if (in.sdwa) in.ctl |= 6u << 8;
  return Run(x, in);
}

bool ExecVop3(Exec& x) {
  uint32_t w1 = 0;
  if (!x.Word1(&w1)) return false;
  x.size = 8;
  VInst in;
  in.vop3 = true;
  const unsigned op = (x.w0 >> 16) & 0x3FF;
  if (op == 0x117 || op == 0x118 || op == 0x124 || op == 0x125 || op == 0x142 || op == 0x191 ||
      op == 0x192 || (op >= 0x140 && op < 0x1c0 && ((op - 0x140) >= 0x80))) {
    // v_madmk/v_madak (their literal), v_readfirstlane, v_swap and
    // v_accvgpr_mov have no VOP3 form.
    return x.Illegal("VOP3 opcode " + std::to_string(op) + " has no VOP3 form");
  }
  in.op = op;
  in.vdst = x.w0 & 0xFF;
  in.clamp = ((x.w0 >> 15) & 1u) != 0;
  in.src[0] = w1 & 0x1FF;
  in.src[1] = (w1 >> 9) & 0x1FF;
  in.src[2] = (w1 >> 18) & 0x1FF;
  in.nsrc = 3;
  in.neg = static_cast<uint8_t>((w1 >> 29) & 7u);
  for (unsigned i = 0; i < 3; ++i) {
    if (in.src[i] == kLiteral) return x.Illegal("literal in a VOP3 encoding");
    if (in.src[i] == kDpp || in.src[i] == kSdwa || in.src[i] == kLdsDirect) {
      return x.Illegal("DPP/SDWA/LDS_DIRECT operand in a VOP3 encoding");
    }
  }
  if (op >= 0x380) {
    // VOP3P: op_sel (bits 13:11), op_sel_hi (59:60 and 14), neg_hi (10:8).
    in.opsel = static_cast<uint8_t>((x.w0 >> 11) & 7u);
    in.opsel_hi = static_cast<uint8_t>(((w1 >> 27) & 3u) | (((x.w0 >> 14) & 1u) << 2));
    in.neg_hi = static_cast<uint8_t>((x.w0 >> 8) & 7u);
    VCtx c(x, in);
    return RunVop3p(c);
  }
  in.omod = static_cast<uint8_t>((w1 >> 27) & 3u);
  // VOP3b (an SGPR destination in bits 14:8): carry ops and div_scale.
  const bool vop3b = (op >= 0x119 && op <= 0x11e) || op == 0x1e0 || op == 0x1e1 || op == 0x1e8 ||
                     op == 0x1e9;
  if (vop3b) {
    in.sdst = (x.w0 >> 8) & 0x7F;
    if (op >= 0x11c && op <= 0x11e) in.cin = in.src[2];
  } else {
    in.abs = static_cast<uint8_t>((x.w0 >> 8) & 7u);
    in.opsel = static_cast<uint8_t>((x.w0 >> 11) & 0xFu);
    if (op < 0x100) in.sdst = in.vdst;  // VOPC: vdst names the SGPR pair
    if (op == 0x100) in.cin = in.src[2];  // v_cndmask_b32: mask from src2
  }
  VCtx c(x, in);
  return RunVop(c);
}

}  // namespace kfdsim::shader::detail
