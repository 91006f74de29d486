// salu: scalar ALU and program control, one work-item; every result goes to
// out[i] (GTT) through a one-lane global store. kernarg: out (u64), a, b.
.include "common.inc"

.macro OUT sreg, i
  v_mov_b32 v1, \sreg
  global_store_dword v0, v1, s[4:5] offset:(\i * 4)
.endm

KERNEL salu
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_load_dwordx2 s[6:7], s[0:1], 8        // s6 = a, s7 = b
  v_mov_b32 v0, 0
  s_waitcnt lgkmcnt(0)
  s_add_u32 s8, s6, s7                    // 0: a + b, scc = carry
  s_addc_u32 s9, s6, 0                    // 1: a + carry
  OUT s8, 0
  OUT s9, 1
  s_sub_u32 s8, s6, s7                    // 2: a - b, scc = borrow
  s_movk_i32 s9, 222
  s_cselect_b32 s9, 111, s9               // 3: borrow ? 111 : 222
  OUT s8, 2
  OUT s9, 3
  s_mul_i32 s8, s6, s7                    // 4
  s_mul_hi_u32 s9, s6, s7                 // 5
  OUT s8, 4
  OUT s9, 5
  s_mov_b32 s10, s6
  s_mov_b32 s11, s7
  s_lshl_b64 s[12:13], s[10:11], 7        // 6, 7: {b:a} << 7
  OUT s12, 6
  OUT s13, 7
  s_lshr_b32 s8, s6, 3                    // 8
  s_ashr_i32 s9, s7, 5                    // 9
  OUT s8, 8
  OUT s9, 9
  s_bfe_u32 s8, s6, (12 << 16) | 4        // 10: 12 bits from bit 4
  s_bfe_i32 s9, s7, (9 << 16) | 20        // 11: 9 bits from bit 20, signed
  OUT s8, 10
  OUT s9, 11
  s_bfm_b32 s8, 5, 9                      // 12
  s_xor_b32 s9, s6, s7                    // 13
  OUT s8, 12
  OUT s9, 13
  s_andn2_b32 s8, s6, s7                  // 14
  s_nor_b32 s9, s6, s7                    // 15
  OUT s8, 14
  OUT s9, 15
  s_brev_b32 s8, s6                       // 16
  s_bcnt1_i32_b32 s9, s7                  // 17
  OUT s8, 16
  OUT s9, 17
  s_ff1_i32_b32 s8, s7                    // 18
  s_flbit_i32_b32 s9, s6                  // 19
  OUT s8, 18
  OUT s9, 19
  s_sext_i32_i8 s8, s6                    // 20
  s_min_i32 s9, s6, s7                    // 21
  OUT s8, 20
  OUT s9, 21
  s_max_u32 s8, s6, s7                    // 22
  s_abs_i32 s9, s7                        // 23
  OUT s8, 22
  OUT s9, 23
  // 24: sum of 1..(a & 63) with a counted loop
  s_and_b32 s8, s6, 63
  s_mov_b32 s9, 0
.Lloop:
  s_cmp_eq_u32 s8, 0
  s_cbranch_scc1 .Ldone
  s_add_u32 s9, s9, s8
  s_sub_u32 s8, s8, 1
  s_branch .Lloop
.Ldone:
  OUT s9, 24
  s_movk_i32 s8, 0x8000                   // 25: sign-extended
  s_mov_b32 s9, s6
  s_addk_i32 s9, 0x1234                   // 26
  s_mulk_i32 s9, -3                       // 26: (a + 0x1234) * -3
  OUT s8, 25
  OUT s9, 26
  s_lshl2_add_u32 s8, s6, s7              // 27
  s_pack_lh_b32_b16 s9, s6, s7            // 28
  OUT s8, 27
  OUT s9, 28
  // 29: a call through s_swappc_b64 / s_setpc_b64 (the callee doubles s20)
  s_mov_b32 s20, s6
  s_getpc_b64 s[14:15]
.Lpc:
  s_add_u32 s14, s14, .Lcallee - .Lpc
  s_addc_u32 s15, s15, 0
  s_swappc_b64 s[16:17], s[14:15]
  OUT s20, 29
  // 30: M0-relative move s_movrels (s[21 + 2])
  s_mov_b32 s21, 0
  s_mov_b32 s22, 0
  s_mov_b32 s23, s7
  s_mov_b32 m0, 2
  s_movrels_b32 s8, s21
  OUT s8, 30
  // 31: s_bitset1 / s_bitcmp / s_cmp_eq_u64 / s_quadmask
  s_mov_b32 s8, 0
  s_bitset1_b32 s8, 13
  s_bitcmp1_b32 s8, 13
  s_cselect_b32 s9, 1, 0
  s_lshl_b32 s9, s9, 1
  s_cmp_eq_u64 s[10:11], s[10:11]
  s_cselect_b32 s24, 1, 0
  s_or_b32 s9, s9, s24
  s_or_b32 s8, s8, s9
  OUT s8, 31
  s_quadmask_b32 s8, s6                   // 32
  s_wqm_b32 s9, s7                        // 33
  OUT s8, 32
  OUT s9, 33
  s_endpgm
.Lcallee:
  s_lshl_b32 s20, s20, 1
  s_setpc_b64 s[16:17]
KD salu, 4, 28
