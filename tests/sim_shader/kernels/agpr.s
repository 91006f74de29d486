// agpr: accumulation registers on gfx908/gfx90a (v_accvgpr_write/read;
// on gfx90a also a global load into an AGPR and v_accvgpr_mov); the same
// values move through plain VGPRs on targets without AGPRs.
// 64 work-items. kernarg: in (u64), out (u64); out[tid * 2 + k].
.include "common.inc"

KERNEL agpr
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v2, 3, v0
  v_mul_u32_u24 v3, v0, 7
  s_waitcnt lgkmcnt(0)
.if IS_GFX90A || IS_GFX908
  v_accvgpr_write_b32 a3, v3
  v_accvgpr_read_b32 v4, a3                     // 0: tid * 7 through a3
.else
  v_mov_b32 v4, v3
.endif
.if IS_GFX90A
  global_load_dword a5, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_accvgpr_mov_b32 a6, a5
  v_accvgpr_read_b32 v5, a6                     // 1: in[tid] through a5, a6
.else
  global_load_dword v5, v1, s[4:5]
  s_waitcnt vmcnt(0)
.endif
  global_store_dword v2, v4, s[6:7]
  global_store_dword v2, v5, s[6:7] offset:4
  s_endpgm
KD agpr, 8, 8
