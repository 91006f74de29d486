// kfdsim shader cores: the vector ALU's shared machinery (internal).
//
// Every VALU encoding (VOP1, VOP2, VOPC, VOP3, VOP3P) is first normalised
// into a VInst in the VOP3 opcode space (VOPC 0x000-0x0ff, VOP2 0x100 +
// op, VOP1 0x140 + op, VOP3-only 0x1c0+, VOP3P 0x380+), with its operand
// encodings, modifiers and any DPP/SDWA control word; valu_ops.cc then
// executes it with lane loops over source rows fetched by SrcRow*.
//
// Threading: as interp.h.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_VALU_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_VALU_H_

#include <cstdint>

#include "platform/sim/core/shader/exec.h"

namespace kfdsim::shader::detail {

// How an operand is read: integer or float (modifiers, inline constants),
// 16, 32 or 64 bits.
enum class Kind : uint8_t { kI16, kF16, kI32, kF32, kI64, kF64 };

struct VInst {
  unsigned op = 0;                  // VOP3 opcode space
  unsigned src[3] = {0, 0, 0};      // 9-bit operand encodings (VGPR = 256 + n)
  unsigned nsrc = 0;                // sources the encoding carries
  unsigned vdst = 0;                // VGPR index, or SGPR encoding (readlane, VOPC e64)
  unsigned sdst = kVccLo;           // carry-out / compare destination
  unsigned cin = kVccLo;            // carry-in / cndmask mask source
  uint8_t abs = 0, neg = 0;         // per source bit
  uint8_t opsel = 0;                // VOP3 op_sel (16-bit ops), VOP3P op_sel
  uint8_t opsel_hi = 0x7;           // VOP3P op_sel_hi
  uint8_t neg_hi = 0;               // VOP3P neg_hi
  uint8_t omod = 0;
  bool clamp = false;
  bool vop3 = false;
  bool dpp = false;
  bool sdwa = false;
  uint32_t ctl = 0;                 // DPP or SDWA control dword
};

// Execution context of one VALU instruction.
struct VCtx {
  VCtx(Exec& e, const VInst& i) : x(e), w(e.w), in(i), write(e.w.exec()) {}
  Exec& x;
  Wave& w;
  const VInst& in;
  uint64_t write;  // lanes written: EXEC, narrowed by DPP masks
};

// Source `i` as 64 lane values with modifiers applied (`buf` holds them
// unless the row is returned unmodified). Null after stopping the wave.
// The plain-VGPR case is inline; everything else is SrcRow32Slow.
const uint32_t* SrcRow32Slow(VCtx& c, unsigned i, Kind k, uint32_t* buf);
inline const uint32_t* SrcRow32(VCtx& c, unsigned i, Kind k, uint32_t* buf) {
  const VInst& in = c.in;
  const unsigned e = in.src[i];
  if (e >= kVgprBase && (((in.abs | in.neg) >> i) & 1u) == 0 && !in.dpp && !in.sdwa &&
      !(in.vop3 && ((in.opsel >> i) & 1u) != 0)) {
    return c.w.v[e - kVgprBase];
  }
  return SrcRow32Slow(c, i, k, buf);
}
// 64-bit source rows (register pairs); `buf` always receives the values.
bool SrcRow64(VCtx& c, unsigned i, Kind k, uint64_t* buf);
// A scalar source value (readlane lane select, writelane data, ...).
bool SrcScalar32(VCtx& c, unsigned i, uint32_t* v);

// Writes a 32-bit result row to vdst (output modifiers for float kinds,
// SDWA destination select, EXEC/DPP lane mask). False after stopping.
// The plain 32-bit case is inline; everything else is Out32Slow.
bool Out32Slow(VCtx& c, uint32_t* res, Kind k);
inline bool Out32(VCtx& c, uint32_t* res, Kind k) {
  const VInst& in = c.in;
  if (in.omod == 0 && !in.clamp && !in.sdwa && (k == Kind::kI32 || k == Kind::kF32) && in.vdst < kVgprs) {
    Commit32(c.w.v[in.vdst], res, c.write);
    return true;
  }
  return Out32Slow(c, res, k);
}
bool Out64(VCtx& c, uint64_t* res, Kind k);
// Writes a lane mask (compare result, carry-out) to the SGPR pair `enc`:
// lanes outside EXEC read 0.
bool OutMask(VCtx& c, unsigned enc, uint64_t bits);
// The 64-bit lane mask held by SGPR pair `enc` (carry-in, cndmask).
bool MaskIn(VCtx& c, unsigned enc, uint64_t* bits);

// Executes a normalised VALU instruction (valu_ops.cc).
bool RunVop(VCtx& c);
// Executes a VOP3P instruction (valu_ops.cc).
bool RunVop3p(VCtx& c);

}  // namespace kfdsim::shader::detail

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_VALU_H_
