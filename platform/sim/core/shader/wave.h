// kfdsim shader cores: the architectural state of one wave64 and what it
// may ask of its surroundings (WaveEnv).
//
// Register files: `sgpr` is indexed by the scalar operand encoding, so an
// operand field selects its register directly: s0-s101 (0-101),
// FLAT_SCRATCH lo/hi (102/103), XNACK_MASK (104/105), VCC (106/107),
// TTMP0-15 (108-123), M0 (124), EXEC lo/hi (126/127). `v` holds 256 VGPRs
// and `acc` 256 accumulation registers (gfx908+), each 64 lanes wide, laid
// out lane-contiguous so that lane loops vectorise.
//
// Ownership and threading: a Wave belongs to the dispatch that runs it on
// the engine thread; nothing in it is shared.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_WAVE_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_WAVE_H_

#include <cstdint>
#include <string>

#include "platform/sim/core/shader/gfx.h"
#include "platform/sim/core/shader/vm.h"

namespace kfdsim::shader {

constexpr unsigned kLanes = 64;
constexpr unsigned kSgprs = 102;    // s0-s101 on gfx9
constexpr unsigned kVgprs = 256;

// Scalar operand encodings (gfx9).
enum : unsigned {
  kFlatScratchLo = 102,
  kFlatScratchHi = 103,
  kXnackMaskLo = 104,
  kVccLo = 106,
  kVccHi = 107,
  kTtmp0 = 108,
  kM0 = 124,
  kExecLo = 126,
  kExecHi = 127,
  kConstZero = 128,      // 128: 0, 129-192: 1..64, 193-208: -1..-16
  kSharedBase = 235,
  kSharedLimit = 236,
  kPrivateBase = 237,
  kPrivateLimit = 238,
  kPopsExitingWaveId = 239,
  kFloatHalf = 240,      // 240-248: 0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2*pi)
  kSdwa = 249,
  kDpp = 250,
  kVccz = 251,
  kExecz = 252,
  kScc = 253,
  kLdsDirect = 254,
  kLiteral = 255,
  kVgprBase = 256,
};

enum class WaveState : uint8_t {
  kRunning,
  kBarrier,    // waiting at s_barrier for the rest of its workgroup
  kDone,       // s_endpgm
  kError,      // stopped with an exception (WaveError)
};

// Why a wave stopped with kError; maps to a KFD exception code.
enum class WaveError : uint8_t {
  kNone,
  kIllegalInstruction,  // unknown or unsupported encoding
  kMemoryViolation,     // GPU page fault (fault_va, fault_kind)
  kAbort,               // s_trap 2 (llvm.trap)
  kDebugTrap,           // another s_trap with the debugger enabled
};

struct Wave {
  alignas(64) uint32_t v[kVgprs][kLanes];
  alignas(64) uint32_t acc[kVgprs][kLanes];
  uint32_t sgpr[128];
  uint64_t pc = 0;
  bool scc = false;
  uint32_t mode = 0;         // HW_REG_MODE as s_setreg wrote it (rounding/denormals not modelled)
  uint32_t trapsts = 0;
  uint32_t hw_id = 0;        // HW_REG_HW_ID: wave, SIMD, CU
  uint32_t lds_base = 0;     // this wave's workgroup LDS is env-wide; kept for HW_REG_LDS_ALLOC
  uint32_t vgpr_count = 0;   // allocated by compute_pgm_rsrc1
  WaveState state = WaveState::kRunning;
  WaveError error = WaveError::kNone;
  Fault fault_kind = Fault::kNone;
  bool fault_write = false;
  uint64_t fault_va = 0;
  uint64_t fault_pc = 0;
  uint32_t bad_word[2] = {0, 0};  // the illegal instruction's first dwords
  std::string reason;             // what stopped it (illegal instructions, traps)
  uint64_t instructions = 0;      // executed so far

  uint64_t exec() const { return sgpr[kExecLo] | uint64_t{sgpr[kExecHi]} << 32; }
  void set_exec(uint64_t m) {
    sgpr[kExecLo] = static_cast<uint32_t>(m);
    sgpr[kExecHi] = static_cast<uint32_t>(m >> 32);
  }
  uint64_t vcc() const { return sgpr[kVccLo] | uint64_t{sgpr[kVccHi]} << 32; }
  void set_vcc(uint64_t m) {
    sgpr[kVccLo] = static_cast<uint32_t>(m);
    sgpr[kVccHi] = static_cast<uint32_t>(m >> 32);
  }
  uint64_t flat_scratch() const {
    return sgpr[kFlatScratchLo] | uint64_t{sgpr[kFlatScratchHi]} << 32;
  }
};

// What a wave asks of the dispatch that runs it. Implemented by the
// dispatch (dispatch.cc); the fuzz harness has its own.
class WaveEnv {
 public:
  virtual ~WaveEnv() = default;
  virtual Vm& vm() = 0;
  virtual const GfxTraits& traits() const = 0;
  // The workgroup's LDS (null with size 0 when it has none).
  virtual uint8_t* lds() = 0;
  virtual uint32_t lds_size() const = 0;
  // Upper 32 bits of the LDS (shared) and scratch (private) apertures of
  // the flat address space (each 4 GiB).
  virtual uint32_t shared_base_hi() const = 0;
  virtual uint32_t private_base_hi() const = 0;
  // s_sendmsg MSG_INTERRUPT: the 24-bit data the SQ sends to the KFD.
  virtual void Interrupt(uint32_t data) = 0;
  // True when the debugger enabled trapping (s_trap other than abort stops
  // the wave then; without it the trap returns at once).
  virtual bool debug_trap_enabled() const = 0;
  // s_memtime (shader clock) and s_memrealtime (100 MHz real-time clock).
  virtual uint64_t ShaderClock() = 0;
  virtual uint64_t RealTime() = 0;
};

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_WAVE_H_
