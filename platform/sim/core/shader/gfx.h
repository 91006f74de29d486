// kfdsim shader cores: the GFX9-family targets the interpreter executes and
// the one table of their differences (encodings, register files, memory
// features). Everything target-dependent in the interpreter reads a
// GfxTraits; no other file compares gfx versions.
//
// Stateless; safe from any thread.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_GFX_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_GFX_H_

#include <cstdint>

namespace kfdsim::shader {

struct GfxTraits {
  const char* name;          // "gfx900", ...
  uint32_t first_version;    // gfx_target_version range served (MMmmss)
  uint32_t last_version;
  // v_fmac_f32 (VOP2 0x3b), v_xnor_b32 (VOP2 0x3d), v_dot* (VOP3P 0x3a0+).
  bool dot_insts;
  // Accumulation registers and v_accvgpr_read/write_b32 (VOP3P 0x3d8/0x3d9).
  bool agprs;
  // VOP2 0x04 is v_fmac_f64 instead of v_mul_legacy_f32; v_accvgpr_mov_b32
  // (VOP1 0x52); v_pk_fma/mul/add/mov_b32 on register pairs (VOP3P
  // 0x3b0-0x3b3); FLAT/DS/MUBUF data may be AGPRs (the acc bit); f64
  // global/flat atomics (0x4f-0x51) and DS f64 add.
  bool gfx90a_insts;
  // global_atomic_add_f32 / global_atomic_pk_add_f16 (0x4d/0x4e).
  bool fp_atomics;
  // The CP initialises FLAT_SCRATCH with the wave's scratch base
  // (architected flat scratch); v_mov_b64 (VOP1 0x38).
  bool gfx940_insts;
  // Work-item IDs arrive packed in v0 (x bits 9:0, y 19:10, z 29:20)
  // instead of v0/v1/v2.
  bool packed_tid;
  // compute_pgm_rsrc1 VGPR count granule (registers per step).
  uint32_t vgpr_granule;
};

// The traits of a gfx_target_version (e.g. 90010), or null for targets the
// interpreter does not execute (gfx7/8, RDNA).
const GfxTraits* TraitsFor(uint32_t gfx_target_version);

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_GFX_H_
