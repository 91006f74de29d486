// scratch: private memory in the queue's scratch backing, 64 bytes per
// work-item, 128 work-items (2 waves): SCRATCH stores/loads through
// FLAT_SCRATCH (set up from flat_scratch_init + the wave offset), MUBUF
// through the private segment buffer V# (the same swizzled layout), and
// FLAT through the private aperture. kernarg: out (u64); out[tid * 8 + k].
// User SGPRs: s[0:3] private segment buffer, s[4:5] kernarg, s[6:7] flat
// scratch init; s8 the private segment wave offset.
.include "common.inc"

KERNEL scratch
  s_add_u32 flat_scratch_lo, s6, s8
  s_addc_u32 flat_scratch_hi, s7, 0
  s_load_dwordx2 s[10:11], s[4:5], 0
  v_lshlrev_b32 v1, 5, v0                        // output row: tid * 32
  // private[k] = tid * 100 + k for k = 0..15 through SCRATCH (VGPR offsets)
  v_mov_b32 v2, 0
  s_mov_b32 s12, 0
  s_movk_i32 s13, 100
.Lfill:
  v_mov_b32 v3, s12
  v_mad_u32_u24 v3, v0, s13, v3
  v_lshlrev_b32 v2, 2, s12
  scratch_store_dword v2, v3, off
  s_add_u32 s12, s12, 1
  s_cmp_lt_u32 s12, 16
  s_cbranch_scc1 .Lfill
  s_waitcnt vmcnt(0)
  v_mov_b32 v2, 60
  scratch_load_dword v4, v2, off                 // 0: private[15]
  s_movk_i32 s16, 16
  scratch_load_dwordx4 v[6:9], off, s16          // private[4..7] through an SGPR offset
  // MUBUF on the private segment buffer: private[3] and a store to private[12]
  buffer_load_dword v5, off, s[0:3], s8 offset:12   // 1: private[3]
  v_mov_b32 v10, 0x777
  buffer_store_dword v10, off, s[0:3], s8 offset:48
  s_waitcnt vmcnt(0)
  v_mov_b32 v2, 48
  scratch_load_dword v11, v2, off                // 3: private[12] as the MUBUF store left it
  // FLAT through the private aperture: private offset 8 -> private[2]
  s_mov_b64 s[14:15], src_private_base
  v_mov_b32 v12, 8
  v_mov_b32 v13, s15
  flat_load_dword v14, v[12:13]                  // 4: private[2]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_add3_u32 v6, v6, v7, v8                      // 2: private[4] + [5] + [6] + [7]
  v_add_u32 v6, v6, v9
  global_store_dword v1, v4, s[10:11]
  global_store_dword v1, v5, s[10:11] offset:4
  global_store_dword v1, v6, s[10:11] offset:8
  global_store_dword v1, v11, s[10:11] offset:12
  global_store_dword v1, v14, s[10:11] offset:16
  s_endpgm
KD scratch, 16, 18, priv=64, scratch=1
