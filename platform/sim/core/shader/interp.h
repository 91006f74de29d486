// kfdsim shader cores: the wave64 interpreter for GFX9-family ISA.
//
// RunWave executes one wave's instructions from its pc: scalar ALU
// (SOP1/SOP2/SOPC/SOPK/SOPP), scalar memory (SMEM), vector ALU
// (VOP1/VOP2/VOPC/VOP3/VOP3P with DPP and SDWA), vector memory
// (FLAT/GLOBAL/SCRATCH, MUBUF) and LDS (DS). Vector instructions run as
// plain loops over the 64 lanes, masked by EXEC. An encoding the
// interpreter does not know or does not support stops the wave with
// WaveError::kIllegalInstruction and a reason naming it; a memory access
// the VM refuses stops it with kMemoryViolation. Nothing a wave does can
// crash the simulator: every register index and memory access is checked.
//
// Threading: runs on the caller's thread; touches only the wave and what
// the WaveEnv gives it.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_INTERP_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_INTERP_H_

#include <cstdint>

#include "platform/sim/core/shader/wave.h"

namespace kfdsim::shader {

// Runs `w` until it leaves WaveState::kRunning (barrier, end, error) or
// `budget` instructions ran. Returns the instructions executed.
uint64_t RunWave(Wave& w, WaveEnv& env, uint64_t budget);

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_INTERP_H_
