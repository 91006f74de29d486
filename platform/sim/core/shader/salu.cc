// Scalar ALU and program control: SOP2, SOPK, SOP1, SOPC and SOPP (gfx9
// opcode numbers; semantics of the Vega/CDNA ISA manuals). SCC follows
// each instruction's rule (carry, borrow, signed overflow, result != 0,
// comparison). Unsupported: s_cbranch_g_fork/i_fork/join (removed from
// compilers), s_rfe_b64/s_rfe_restore_b64 (trap return), the VGPR indexing
// mode (s_set_gpr_idx_on/idx/mode), s_setvskip, s_setkill, s_sethalt 1,
// s_sendmsg other than MSG_INTERRUPT; they stop the wave as illegal.
#include <cstdint>

#include "platform/sim/core/shader/exec.h"

namespace kfdsim::shader::detail {

namespace {

uint32_t Sext16(uint32_t v) { return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v & 0xFFFF))); }

int32_t I32(uint32_t v) { return static_cast<int32_t>(v); }

uint32_t Popcount(uint64_t v) { return static_cast<uint32_t>(__builtin_popcountll(v)); }

// First set bit from the LSB, or ~0 when none.
uint32_t FirstOne(uint64_t v) { return v == 0 ? ~0u : static_cast<uint32_t>(__builtin_ctzll(v)); }

uint32_t Brev32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}

uint64_t Brev64(uint64_t v) { return uint64_t{Brev32(static_cast<uint32_t>(v))} << 32 | Brev32(static_cast<uint32_t>(v >> 32)); }

uint64_t Bfe(uint64_t v, uint32_t offset, uint32_t width, unsigned bits, bool sign) {
  if (width == 0) return 0;
  v >>= offset;
  if (width >= bits) return v;
  uint64_t r = v & ((uint64_t{1} << width) - 1);
  if (sign && ((r >> (width - 1)) & 1u) != 0) r |= ~uint64_t{0} << width;
  if (bits == 32) r &= 0xFFFFFFFFull;
  return r;
}

// HW register ids of s_getreg/s_setreg (gfx9).
enum : uint32_t {
  kHwMode = 1,
  kHwStatus = 2,
  kHwTrapsts = 3,
  kHwHwId = 4,
  kHwGprAlloc = 5,
  kHwLdsAlloc = 6,
  kHwIbSts = 7,
  kHwShMemBases = 15,
  kHwFlatScrLo = 20,
  kHwFlatScrHi = 21,
};

uint32_t ReadHwReg(Exec& x, uint32_t id) {
  Wave& w = x.w;
  switch (id) {
    case kHwMode: return w.mode;
    case kHwStatus:
      // SCC (bit 0), EXECZ (9), VCCZ (10), IN_TG (11).
      return (w.scc ? 1u : 0u) | (w.exec() == 0 ? 1u << 9 : 0u) | (w.vcc() == 0 ? 1u << 10 : 0u) |
             (1u << 11);
    case kHwTrapsts: return w.trapsts;
    case kHwHwId: return w.hw_id;
    case kHwGprAlloc:
      // VGPR_SIZE (bits 13:8, granules - 1), SGPR_SIZE (27:24, 16-register granules - 1).
      return ((w.vgpr_count == 0 ? 0 : (w.vgpr_count / 4 - 1)) & 0x3F) << 8 | (((112u / 16) - 1) << 24);
    case kHwLdsAlloc:
      // LDS_SIZE (bits 20:12) in 64-dword granules.
      return ((x.env.lds_size() / 256u) & 0x1FF) << 12;
    case kHwShMemBases:
      return (x.env.private_base_hi() >> 16) | ((x.env.shared_base_hi() >> 16) << 16);
    case kHwFlatScrLo: return w.sgpr[kFlatScratchLo];
    case kHwFlatScrHi: return w.sgpr[kFlatScratchHi];
    default: return 0;
  }
}

void WriteHwReg(Exec& x, uint32_t id, uint32_t value, uint32_t mask) {
  Wave& w = x.w;
  if (id == kHwMode) w.mode = (w.mode & ~mask) | (value & mask);
  if (id == kHwTrapsts) w.trapsts = (w.trapsts & ~mask) | (value & mask);
  // Other registers are read-only to a user wave (writes are dropped).
}

}  // namespace

bool ExecSop2(Exec& x) {
  Wave& w = x.w;
  const uint32_t op = (x.w0 >> 23) & 0x7F;
  const unsigned sdst = (x.w0 >> 16) & 0x7F;
  const unsigned s0e = x.w0 & 0xFF;
  const unsigned s1e = (x.w0 >> 8) & 0xFF;
  // 64-bit source operands per opcode.
  const bool b64_0 = op == 0x0b || op == 0x0d || op == 0x0f || op == 0x11 || op == 0x13 ||
                     op == 0x15 || op == 0x17 || op == 0x19 || op == 0x1b || op == 0x1d ||
                     op == 0x1f || op == 0x21 || op == 0x27 || op == 0x28;
  const bool b64_1 = op == 0x0b || op == 0x0d || op == 0x0f || op == 0x11 || op == 0x13 ||
                     op == 0x15 || op == 0x17 || op == 0x19 || op == 0x1b;
  uint64_t a = 0, b = 0;
  if (b64_0) {
    if (!x.S64(s0e, &a)) return false;
  } else {
    uint32_t v = 0;
    if (!x.S32(s0e, &v)) return false;
    a = v;
  }
  if (b64_1) {
    if (!x.S64(s1e, &b)) return false;
  } else {
    uint32_t v = 0;
    if (!x.S32(s1e, &v)) return false;
    b = v;
  }
  const uint32_t a32 = static_cast<uint32_t>(a), b32 = static_cast<uint32_t>(b);
  uint32_t d = 0;
  uint64_t d64 = 0;
  bool wide = false;
  switch (op) {
    case 0x00: {  // s_add_u32
      const uint64_t s = uint64_t{a32} + b32;
      d = static_cast<uint32_t>(s);
      w.scc = (s >> 32) != 0;
      break;
    }
    case 0x01:  // s_sub_u32
      d = a32 - b32;
      w.scc = b32 > a32;
      break;
    case 0x02: {  // s_add_i32
      d = a32 + b32;
      w.scc = ((~(a32 ^ b32) & (a32 ^ d)) >> 31) != 0;
      break;
    }
    case 0x03:  // s_sub_i32
      d = a32 - b32;
      w.scc = (((a32 ^ b32) & (a32 ^ d)) >> 31) != 0;
      break;
    case 0x04: {  // s_addc_u32
      const uint64_t s = uint64_t{a32} + b32 + (w.scc ? 1u : 0u);
      d = static_cast<uint32_t>(s);
      w.scc = (s >> 32) != 0;
      break;
    }
    case 0x05: {  // s_subb_u32
      const uint64_t borrow = w.scc ? 1u : 0u;
      d = static_cast<uint32_t>(uint64_t{a32} - b32 - borrow);
      w.scc = uint64_t{b32} + borrow > a32;
      break;
    }
    case 0x06: d = I32(a32) < I32(b32) ? a32 : b32; w.scc = I32(a32) < I32(b32); break;
    case 0x07: d = a32 < b32 ? a32 : b32; w.scc = a32 < b32; break;
    case 0x08: d = I32(a32) > I32(b32) ? a32 : b32; w.scc = I32(a32) > I32(b32); break;
    case 0x09: d = a32 > b32 ? a32 : b32; w.scc = a32 > b32; break;
    case 0x0a: d = w.scc ? a32 : b32; break;
    case 0x0b: d64 = w.scc ? a : b; wide = true; break;
    case 0x0c: d = a32 & b32; w.scc = d != 0; break;
    case 0x0d: d64 = a & b; wide = true; w.scc = d64 != 0; break;
    case 0x0e: d = a32 | b32; w.scc = d != 0; break;
    case 0x0f: d64 = a | b; wide = true; w.scc = d64 != 0; break;
    case 0x10: d = a32 ^ b32; w.scc = d != 0; break;
    case 0x11: d64 = a ^ b; wide = true; w.scc = d64 != 0; break;
    case 0x12: d = a32 & ~b32; w.scc = d != 0; break;
    case 0x13: d64 = a & ~b; wide = true; w.scc = d64 != 0; break;
    case 0x14: d = a32 | ~b32; w.scc = d != 0; break;
    case 0x15: d64 = a | ~b; wide = true; w.scc = d64 != 0; break;
    case 0x16: d = ~(a32 & b32); w.scc = d != 0; break;
    case 0x17: d64 = ~(a & b); wide = true; w.scc = d64 != 0; break;
    case 0x18: d = ~(a32 | b32); w.scc = d != 0; break;
    case 0x19: d64 = ~(a | b); wide = true; w.scc = d64 != 0; break;
    case 0x1a: d = ~(a32 ^ b32); w.scc = d != 0; break;
    case 0x1b: d64 = ~(a ^ b); wide = true; w.scc = d64 != 0; break;
    case 0x1c: d = a32 << (b32 & 31); w.scc = d != 0; break;
    case 0x1d: d64 = a << (b32 & 63); wide = true; w.scc = d64 != 0; break;
    case 0x1e: d = a32 >> (b32 & 31); w.scc = d != 0; break;
    case 0x1f: d64 = a >> (b32 & 63); wide = true; w.scc = d64 != 0; break;
    case 0x20: d = static_cast<uint32_t>(I32(a32) >> (b32 & 31)); w.scc = d != 0; break;
    case 0x21:
      d64 = static_cast<uint64_t>(static_cast<int64_t>(a) >> (b32 & 63));
      wide = true;
      w.scc = d64 != 0;
      break;
    case 0x22: d = ((1u << (a32 & 31)) - 1u) << (b32 & 31); break;  // s_bfm_b32
    case 0x23:  // s_bfm_b64
      d64 = ((uint64_t{1} << (a32 & 63)) - 1u) << (b32 & 63);
      wide = true;
      break;
    case 0x24: d = a32 * b32; break;  // s_mul_i32 (low bits are sign-agnostic)
    case 0x25:
    case 0x26:
      d = static_cast<uint32_t>(Bfe(a32, b32 & 31, (b32 >> 16) & 0x7F, 32, op == 0x26));
      w.scc = d != 0;
      break;
    case 0x27:
    case 0x28:
      d64 = Bfe(a, b32 & 63, (b32 >> 16) & 0x7F, 64, op == 0x28);
      wide = true;
      w.scc = d64 != 0;
      break;
    case 0x2a: {  // s_absdiff_i32
      const int64_t diff = int64_t{I32(a32)} - I32(b32);
      d = static_cast<uint32_t>(diff < 0 ? -diff : diff);
      w.scc = d != 0;
      break;
    }
    case 0x2c: d = static_cast<uint32_t>((uint64_t{a32} * b32) >> 32); break;
    case 0x2d: d = static_cast<uint32_t>(static_cast<uint64_t>(int64_t{I32(a32)} * I32(b32)) >> 32); break;
    case 0x2e:
    case 0x2f:
    case 0x30:
    case 0x31: {  // s_lshl<n>_add_u32
      const uint32_t n = op - 0x2d;
      const uint64_t s = (uint64_t{a32} << n) + b32;
      d = static_cast<uint32_t>(s);
      w.scc = (s >> 32) != 0;
      break;
    }
    case 0x32: d = (a32 & 0xFFFF) | (b32 << 16); break;
    case 0x33: d = (a32 & 0xFFFF) | (b32 & 0xFFFF0000u); break;
    case 0x34: d = (a32 >> 16) | (b32 & 0xFFFF0000u); break;
    default:
      return x.Illegal("SOP2 opcode " + std::to_string(op) + " is not supported");
  }
  return wide ? x.SetS64(sdst, d64) : x.SetS32(sdst, d);
}

bool ExecSopk(Exec& x) {
  Wave& w = x.w;
  const uint32_t op = (x.w0 >> 23) & 0x1F;
  const unsigned sdst = (x.w0 >> 16) & 0x7F;
  const uint32_t imm = x.w0 & 0xFFFF;
  const uint32_t simm = Sext16(imm);
  auto reg = [&](uint32_t* v) { return x.S32(sdst, v); };
  uint32_t s = 0;
  switch (op) {
    case 0x00: return x.SetS32(sdst, simm);
    case 0x01: return w.scc ? x.SetS32(sdst, simm) : true;
    case 0x02: case 0x03: case 0x04: case 0x05: case 0x06: case 0x07: {
      if (!reg(&s)) return false;
      const int32_t a = I32(s), b = I32(simm);
      const bool r[6] = {a == b, a != b, a > b, a >= b, a < b, a <= b};
      w.scc = r[op - 2];
      return true;
    }
    case 0x08: case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: {
      if (!reg(&s)) return false;
      const bool r[6] = {s == imm, s != imm, s > imm, s >= imm, s < imm, s <= imm};
      w.scc = r[op - 8];
      return true;
    }
    case 0x0e: {  // s_addk_i32
      if (!reg(&s)) return false;
      const uint32_t d = s + simm;
      w.scc = ((~(s ^ simm) & (s ^ d)) >> 31) != 0;
      return x.SetS32(sdst, d);
    }
    case 0x0f:  // s_mulk_i32
      if (!reg(&s)) return false;
      return x.SetS32(sdst, s * simm);
    case 0x11: {  // s_getreg_b32
      const uint32_t id = imm & 0x3F, offset = (imm >> 6) & 0x1F, size = ((imm >> 11) & 0x1F) + 1;
      const uint32_t mask = size >= 32 ? ~0u : (1u << size) - 1u;
      return x.SetS32(sdst, (ReadHwReg(x, id) >> offset) & mask);
    }
    case 0x12:
    case 0x14: {  // s_setreg_b32, s_setreg_imm32_b32
      const uint32_t id = imm & 0x3F, offset = (imm >> 6) & 0x1F, size = ((imm >> 11) & 0x1F) + 1;
      const uint32_t mask = (size >= 32 ? ~0u : (1u << size) - 1u) << offset;
      uint32_t v = 0;
      if (op == 0x12) {
        if (!reg(&v)) return false;
      } else {
        if (!x.Word1(&v)) return false;
        x.size = 8;
      }
      WriteHwReg(x, id, v << offset, mask);
      return true;
    }
    case 0x15: {  // s_call_b64
      if (!x.SetS64(sdst, w.pc + 4)) return false;
      x.branched = true;
      x.next_pc = w.pc + 4 + static_cast<uint64_t>(static_cast<int64_t>(I32(simm)) * 4);
      return true;
    }
    default:
      return x.Illegal("SOPK opcode " + std::to_string(op) + " is not supported");
  }
}

bool ExecSop1(Exec& x) {
  Wave& w = x.w;
  const uint32_t op = (x.w0 >> 8) & 0xFF;
  const unsigned sdst = (x.w0 >> 16) & 0x7F;
  const unsigned s0e = x.w0 & 0xFF;
  // Opcodes with a 64-bit source.
  const bool src64 = op == 0x01 || op == 0x03 || op == 0x05 || op == 0x07 || op == 0x09 ||
                     op == 0x0b || op == 0x0d || op == 0x0f || op == 0x11 || op == 0x13 ||
                     op == 0x15 || op == 0x1d || op == 0x1e || (op >= 0x20 && op <= 0x27) ||
                     op == 0x29 || op == 0x2b || op == 0x2d || (op >= 0x33 && op <= 0x36);
  uint64_t a = 0;
  if (op == 0x1c) {
    // s_getpc_b64 has no source.
  } else if (src64) {
    if (!x.S64(s0e, &a)) return false;
  } else if (op != 0x2a && op != 0x2b) {
    uint32_t v = 0;
    if (!x.S32(s0e, &v)) return false;
    a = v;
  }
  const uint32_t a32 = static_cast<uint32_t>(a);
  auto saveexec = [&](uint64_t new_exec, bool write_new) {
    const uint64_t old = w.exec();
    w.set_exec(new_exec);
    w.scc = new_exec != 0;
    return x.SetS64(sdst, write_new ? new_exec : old);
  };
  const uint64_t exec = w.exec();
  switch (op) {
    case 0x00: return x.SetS32(sdst, a32);
    case 0x01: return x.SetS64(sdst, a);
    case 0x02: return w.scc ? x.SetS32(sdst, a32) : true;
    case 0x03: return w.scc ? x.SetS64(sdst, a) : true;
    case 0x04: w.scc = ~a32 != 0; return x.SetS32(sdst, ~a32);
    case 0x05: w.scc = ~a != 0; return x.SetS64(sdst, ~a);
    case 0x06:
    case 0x07: {  // s_wqm: every nibble with a set bit becomes all ones
      uint64_t r = 0;
      for (unsigned i = 0; i < 64; i += 4) {
        if (((a >> i) & 0xF) != 0) r |= uint64_t{0xF} << i;
      }
      if (op == 0x06) r &= 0xFFFFFFFFull;
      w.scc = r != 0;
      return op == 0x06 ? x.SetS32(sdst, static_cast<uint32_t>(r)) : x.SetS64(sdst, r);
    }
    case 0x08: return x.SetS32(sdst, Brev32(a32));
    case 0x09: return x.SetS64(sdst, Brev64(a));
    case 0x0a: { const uint32_t d = 32 - Popcount(a32); w.scc = d != 0; return x.SetS32(sdst, d); }
    case 0x0b: { const uint32_t d = 64 - Popcount(a); w.scc = d != 0; return x.SetS32(sdst, d); }
    case 0x0c: { const uint32_t d = Popcount(a32); w.scc = d != 0; return x.SetS32(sdst, d); }
    case 0x0d: { const uint32_t d = Popcount(a); w.scc = d != 0; return x.SetS32(sdst, d); }
    case 0x0e: return x.SetS32(sdst, FirstOne(~a32 & 0xFFFFFFFFull));
    case 0x0f: return x.SetS32(sdst, FirstOne(~a));
    case 0x10: return x.SetS32(sdst, FirstOne(a32));
    case 0x11: return x.SetS32(sdst, FirstOne(a));
    case 0x12: return x.SetS32(sdst, a32 == 0 ? ~0u : static_cast<uint32_t>(__builtin_clz(a32)));
    case 0x13: return x.SetS32(sdst, a == 0 ? ~0u : static_cast<uint32_t>(__builtin_clzll(a)));
    case 0x14: {  // s_flbit_i32: first bit differing from the sign
      const uint32_t v = I32(a32) < 0 ? ~a32 : a32;
      return x.SetS32(sdst, v == 0 ? ~0u : static_cast<uint32_t>(__builtin_clz(v)));
    }
    case 0x15: {
      const uint64_t v = static_cast<int64_t>(a) < 0 ? ~a : a;
      return x.SetS32(sdst, v == 0 ? ~0u : static_cast<uint32_t>(__builtin_clzll(v)));
    }
    case 0x16: return x.SetS32(sdst, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(a32 & 0xFF))));
    case 0x17: return x.SetS32(sdst, Sext16(a32));
    case 0x18:
    case 0x1a: {  // s_bitset0/1_b32: D[S0[4:0]] = 0/1
      uint32_t d = 0;
      if (!x.S32(sdst, &d)) return false;
      const uint32_t bit = 1u << (a32 & 31);
      return x.SetS32(sdst, op == 0x18 ? (d & ~bit) : (d | bit));
    }
    case 0x19:
    case 0x1b: {
      uint64_t d = 0;
      if (!x.S64(sdst, &d)) return false;
      const uint64_t bit = uint64_t{1} << (a32 & 63);
      return x.SetS64(sdst, op == 0x19 ? (d & ~bit) : (d | bit));
    }
    case 0x1c: return x.SetS64(sdst, w.pc + 4);  // s_getpc_b64
    case 0x1d:  // s_setpc_b64
      x.branched = true;
      x.next_pc = a & ~uint64_t{3};
      return true;
    case 0x1e:  // s_swappc_b64
      if (!x.SetS64(sdst, w.pc + 4)) return false;
      x.branched = true;
      x.next_pc = a & ~uint64_t{3};
      return true;
    case 0x20: return saveexec(a & exec, false);
    case 0x21: return saveexec(a | exec, false);
    case 0x22: return saveexec(a ^ exec, false);
    case 0x23: return saveexec(a & ~exec, false);
    case 0x24: return saveexec(a | ~exec, false);
    case 0x25: return saveexec(~(a & exec), false);
    case 0x26: return saveexec(~(a | exec), false);
    case 0x27: return saveexec(~(a ^ exec), false);
    case 0x33: return saveexec(~a & exec, false);
    case 0x34: return saveexec(~a | exec, false);
    case 0x35: return saveexec(~a & exec, true);
    case 0x36: return saveexec(a & ~exec, true);
    case 0x28:
    case 0x29: {  // s_quadmask
      uint64_t r = 0;
      for (unsigned i = 0; i < 16; ++i) {
        if (((a >> (4 * i)) & 0xF) != 0) r |= uint64_t{1} << i;
      }
      w.scc = r != 0;
      return op == 0x28 ? x.SetS32(sdst, static_cast<uint32_t>(r)) : x.SetS64(sdst, r);
    }
    case 0x2a:
    case 0x2b:
    case 0x2c:
    case 0x2d: {  // s_movrels / s_movreld: M0-relative SGPR moves
      const uint32_t m0 = w.sgpr[kM0];
      const bool wide = op == 0x2b || op == 0x2d;
      const bool rel_src = op <= 0x2b;
      const uint64_t idx = uint64_t{rel_src ? s0e : sdst} + m0;
      if (idx + (wide ? 2 : 1) > kSgprs) return x.Illegal("s_movrel index beyond the SGPRs");
      const unsigned i = static_cast<unsigned>(idx);
      if (rel_src) {
        if (s0e >= kSgprs) return x.Illegal("s_movrels source is not an SGPR");
        return wide ? x.SetS64(sdst, w.sgpr[i] | uint64_t{w.sgpr[i + 1]} << 32) : x.SetS32(sdst, w.sgpr[i]);
      }
      if (sdst >= kSgprs) return x.Illegal("s_movreld destination is not an SGPR");
      w.sgpr[i] = a32;
      if (wide) w.sgpr[i + 1] = static_cast<uint32_t>(a >> 32);
      return true;
    }
    case 0x30: {  // s_abs_i32
      const uint32_t d = I32(a32) < 0 ? 0u - a32 : a32;
      w.scc = d != 0;
      return x.SetS32(sdst, d);
    }
    case 0x37: {  // s_bitreplicate_b64_b32
      uint64_t r = 0;
      for (unsigned i = 0; i < 32; ++i) {
        if ((a32 >> i) & 1u) r |= uint64_t{3} << (2 * i);
      }
      return x.SetS64(sdst, r);
    }
    default:
      return x.Illegal("SOP1 opcode " + std::to_string(op) + " is not supported");
  }
}

bool ExecSopc(Exec& x) {
  Wave& w = x.w;
  const uint32_t op = (x.w0 >> 16) & 0x7F;
  const unsigned s0e = x.w0 & 0xFF;
  const unsigned s1e = (x.w0 >> 8) & 0xFF;
  if (op <= 0x0d) {
    uint32_t a = 0, b = 0;
    if (!x.S32(s0e, &a) || !x.S32(s1e, &b)) return false;
    const int32_t sa = I32(a), sb = I32(b);
    switch (op) {
      case 0x00: w.scc = sa == sb; break;
      case 0x01: w.scc = sa != sb; break;
      case 0x02: w.scc = sa > sb; break;
      case 0x03: w.scc = sa >= sb; break;
      case 0x04: w.scc = sa < sb; break;
      case 0x05: w.scc = sa <= sb; break;
      case 0x06: w.scc = a == b; break;
      case 0x07: w.scc = a != b; break;
      case 0x08: w.scc = a > b; break;
      case 0x09: w.scc = a >= b; break;
      case 0x0a: w.scc = a < b; break;
      case 0x0b: w.scc = a <= b; break;
      case 0x0c: w.scc = ((a >> (b & 31)) & 1u) == 0; break;
      default: w.scc = ((a >> (b & 31)) & 1u) != 0; break;
    }
    return true;
  }
  if (op == 0x0e || op == 0x0f) {
    uint64_t a = 0;
    uint32_t b = 0;
    if (!x.S64(s0e, &a) || !x.S32(s1e, &b)) return false;
    const bool bit = ((a >> (b & 63)) & 1u) != 0;
    w.scc = op == 0x0e ? !bit : bit;
    return true;
  }
  if (op == 0x12 || op == 0x13) {
    uint64_t a = 0, b = 0;
    if (!x.S64(s0e, &a) || !x.S64(s1e, &b)) return false;
    w.scc = op == 0x12 ? a == b : a != b;
    return true;
  }
  return x.Illegal("SOPC opcode " + std::to_string(op) + " is not supported");
}

bool ExecSopp(Exec& x) {
  Wave& w = x.w;
  const uint32_t op = (x.w0 >> 16) & 0x7F;
  const uint32_t imm = x.w0 & 0xFFFF;
  auto branch = [&](bool taken) {
    if (taken) {
      x.branched = true;
      x.next_pc = w.pc + 4 + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(imm)) * 4);
    }
    return true;
  };
  switch (op) {
    case 0x00: return true;  // s_nop
    case 0x01:               // s_endpgm
      w.state = WaveState::kDone;
      return true;
    case 0x02: return branch(true);
    case 0x04: return branch(!w.scc);
    case 0x05: return branch(w.scc);
    case 0x06: return branch(w.vcc() == 0);
    case 0x07: return branch(w.vcc() != 0);
    case 0x08: return branch(w.exec() == 0);
    case 0x09: return branch(w.exec() != 0);
    case 0x0a:  // s_barrier: the dispatch resumes the wave once its workgroup arrived
      w.state = WaveState::kBarrier;
      return true;
    case 0x0c:  // s_waitcnt: every memory operation completed when it issued
    case 0x0e:  // s_sleep
    case 0x0f:  // s_setprio
    case 0x13:  // s_icache_inv
    case 0x14:  // s_incperflevel
    case 0x15:  // s_decperflevel
    case 0x16:  // s_ttracedata
    case 0x03:  // s_wakeup
    case 0x1c:  // s_set_gpr_idx_off
      return true;
    case 0x17:  // s_cbranch_cdbgsys*/cdbguser: no debugger flags are ever set
    case 0x18:
    case 0x19:
    case 0x1a:
      return true;
    case 0x0d:  // s_sethalt
      if ((imm & 1u) == 0) return true;
      return x.Illegal("s_sethalt 1 (halting a wave) is not supported");
    case 0x10: {  // s_sendmsg
      const uint32_t msg = imm & 0xF;
      if (msg == 1) {  // MSG_INTERRUPT: M0 carries the data to the KFD
        x.env.Interrupt(w.sgpr[kM0] & 0xFFFFFFu);
        return true;
      }
      return x.Illegal("s_sendmsg message " + std::to_string(msg) + " is not supported");
    }
    case 0x12: {  // s_trap
      const uint32_t id = imm & 0xFF;
      if (id == 2) {
        w.state = WaveState::kError;
        w.error = WaveError::kAbort;
        w.fault_pc = w.pc;
        w.reason = "s_trap 2 (abort)";
        return false;
      }
      if (x.env.debug_trap_enabled()) {
        w.state = WaveState::kError;
        w.error = WaveError::kDebugTrap;
        w.fault_pc = w.pc;
        w.reason = "s_trap " + std::to_string(id) + " with the debugger enabled";
        return false;
      }
      return true;  // no debugger: the trap handler returns at once
    }
    default:
      return x.Illegal("SOPP opcode " + std::to_string(op) + " is not supported");
  }
}

}  // namespace kfdsim::shader::detail
