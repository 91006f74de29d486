// valu_int: vector integer ALU (VOP1/VOP2/VOPC/VOP3, literals, inline and
// SGPR operands, carries, 64-bit ops, DPP, SDWA, EXEC masking, lane
// reads/writes). 1-D grid, workgroups of 64; each work-item reads
// in[gid] and writes 32 results to out[gid * 32 + k] (VRAM).
// kernarg: in (u64), out (u64).
.include "common.inc"

.macro OUT vreg, k
  global_store_dword v3, \vreg, s[6:7] offset:(\k * 4)
.endm

KERNEL valu_int
  s_load_dwordx4 s[4:7], s[0:1], 0         // s[4:5] in, s[6:7] out
  v_lshl_add_u32 v1, s2, 6, v0             // v1 = gid
  v_lshlrev_b32 v2, 2, v1
  v_lshlrev_b32 v3, 7, v1                  // v3 = gid * 128: this work-item's output row
  s_waitcnt lgkmcnt(0)
  global_load_dword v4, v2, s[4:5]         // v4 = x
  s_mov_b32 s10, 0x9e3779b9
  s_mov_b32 s11, 0x00ff00ff
  s_mov_b32 s12, 0x0c050207
  s_mov_b32 s13, 0x40000000
  s_waitcnt vmcnt(0)
  v_add_u32 v5, 0x12345, v4                // 0: literal
  OUT v5, 0
  v_sub_u32 v5, v4, v1                     // 1
  OUT v5, 1
  v_mul_lo_u32 v5, v4, s10                 // 2
  OUT v5, 2
  v_mul_hi_u32 v5, v4, s10                 // 3
  OUT v5, 3
  v_mad_u32_u24 v5, v4, v1, 7              // 4
  OUT v5, 4
  v_mul_i32_i24 v5, -5, v4                 // 5
  OUT v5, 5
  v_bfe_u32 v5, v4, 5, 11                  // 6
  OUT v5, 6
  v_bfe_i32 v5, v4, 3, 17                  // 7
  OUT v5, 7
  v_bfi_b32 v5, s11, v4, v1                // 8
  OUT v5, 8
  v_lshlrev_b32 v5, v1, v4                 // 9: x << (gid & 31)
  OUT v5, 9
  v_ashrrev_i32 v5, 3, v4                  // 10
  OUT v5, 10
  v_alignbit_b32 v5, v4, v1, 13            // 11
  OUT v5, 11
  v_perm_b32 v5, v4, v1, s12               // 12
  OUT v5, 12
  v_lshl_add_u32 v5, v4, 3, v1             // 13
  OUT v5, 13
  v_add3_u32 v5, v4, v1, s10               // 14
  OUT v5, 14
  v_med3_i32 v5, v4, v1, s13               // 15
  OUT v5, 15
  v_cmp_gt_u32 vcc, v4, v1                 // 16: max through vcc
  v_cndmask_b32 v5, v1, v4, vcc
  OUT v5, 16
  v_ffbh_u32 v5, v4                        // 17
  OUT v5, 17
  v_bfrev_b32 v5, v4                       // 18
  OUT v5, 18
  v_bcnt_u32_b32 v5, v4, v1                // 19
  OUT v5, 19
  v_mbcnt_lo_u32_b32 v5, -1, 0             // 20: lane id
  v_mbcnt_hi_u32_b32 v5, -1, v5
  OUT v5, 20
  v_readfirstlane_b32 s14, v4              // 21: lane 0's x
  v_mov_b32 v5, s14
  OUT v5, 21
  v_readlane_b32 s14, v4, 5                // 22: lane 5's x
  v_mov_b32 v5, s14
  OUT v5, 22
  v_mov_b32 v6, 0
  v_mov_b32 v7, v4
  v_mad_u64_u32 v[8:9], s[14:15], v4, v1, v[6:7]   // 23, 24: x * gid + (x << 32)
  OUT v8, 23
  OUT v9, 24
  v_mov_b32 v6, v4
  v_mov_b32 v7, v1
  v_lshlrev_b64 v[8:9], 35, v[6:7]         // 25, 26: {gid:x} << 35
  OUT v8, 25
  OUT v9, 26
  v_mov_b32_dpp v5, v4 row_shr:1 bound_ctrl:0   // 27: x of lane - 1 in the row (0 at a row start)
  OUT v5, 27
  v_add_u32_sdwa v5, v4, v1 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_2 src1_sel:WORD_0  // 28
  OUT v5, 28
  v_mov_b32 v5, 88                         // 29: 77 in lanes below 10, else 88
  v_cmp_gt_u32 vcc, 10, v0
  s_and_saveexec_b64 s[14:15], vcc
  v_mov_b32 v5, 77
  s_mov_b64 exec, s[14:15]
  OUT v5, 29
  v_lshrrev_b32 v5, 8, v4                  // 30: (x >> 8) through f32 and back
  v_cvt_f32_u32 v5, v5
  v_cvt_u32_f32 v5, v5
  OUT v5, 30
  v_mov_b32 v5, 0                          // 31: 1234 in lane 3 only
  s_movk_i32 s16, 1234
  v_writelane_b32 v5, s16, 3
  OUT v5, 31
  s_endpgm
KD valu_int, 10, 20, tgx=1
