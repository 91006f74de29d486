// valu_float: f32/f64/f16 vector arithmetic, conversions, compares, VOP3
// modifiers (neg, abs, clamp, omod) and packed f16. 1-D grid of 128 in
// workgroups of 64; x = a[gid], y = b[gid] (f32); 26 results to
// out[gid * 32 + k], all through FLAT on system (GTT) memory.
// kernarg: a (u64), b (u64), out (u64).
.include "common.inc"

.macro OUT vreg, k
  flat_store_dword v[10:11], \vreg offset:(\k * 4)
.endm

KERNEL valu_float
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_load_dwordx2 s[8:9], s[0:1], 16
  v_lshl_add_u32 v1, s2, 6, v0            // gid
  v_lshlrev_b32 v2, 2, v1
  v_lshlrev_b32 v3, 7, v1
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v5, s5
  v_add_co_u32 v4, vcc, s4, v2
  v_addc_co_u32 v5, vcc, v5, 0, vcc
  flat_load_dword v6, v[4:5]              // x
  v_mov_b32 v5, s7
  v_add_co_u32 v4, vcc, s6, v2
  v_addc_co_u32 v5, vcc, v5, 0, vcc
  flat_load_dword v7, v[4:5]              // y
  v_mov_b32 v11, s9
  v_add_co_u32 v10, vcc, s8, v3
  v_addc_co_u32 v11, vcc, v11, 0, vcc     // v[10:11]: this work-item's output row
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_add_f32 v8, v6, v7
  OUT v8, 0
  v_mul_f32 v8, v6, v7
  OUT v8, 1
  v_fma_f32 v8, v6, v7, 1.0
  OUT v8, 2
  v_mov_b32 v8, 2.0
  v_mac_f32 v8, v6, v7                    // x * y + 2 (two roundings)
  OUT v8, 3
  v_min_f32 v8, v6, v7
  OUT v8, 4
  v_max_f32 v8, v6, v7
  OUT v8, 5
  v_mul_f32 v8, 0x42c80000, v6            // x * 100 -> i32
  v_cvt_i32_f32 v8, v8
  OUT v8, 6
  v_subrev_u32 v8, 0x80, v1               // gid - 128 -> f32
  v_cvt_f32_i32 v8, v8
  OUT v8, 7
  v_floor_f32 v8, v6
  OUT v8, 8
  v_fract_f32 v8, v6
  OUT v8, 9
  v_rndne_f32 v8, v6
  OUT v8, 10
  v_ldexp_f32 v8, v6, 5
  OUT v8, 11
  v_frexp_mant_f32 v8, v6
  OUT v8, 12
  v_frexp_exp_i32_f32 v8, v6
  OUT v8, 13
  v_mov_b32 v9, 0x8                       // class: negative normal
  v_cmp_class_f32 vcc, v6, v9
  v_cndmask_b32 v8, 0, 1, vcc
  OUT v8, 14
  v_cmp_lt_f32 vcc, v6, v7
  v_cndmask_b32 v8, 2, 3, vcc
  OUT v8, 15
  v_cvt_f64_f32 v[12:13], v6
  v_cvt_f64_f32 v[14:15], v7
  v_fma_f64 v[16:17], v[12:13], v[14:15], v[12:13]   // 16: f32(fma(x, y, x)) in f64
  v_cvt_f32_f64 v8, v[16:17]
  OUT v8, 16
  v_add_f64 v[16:17], v[12:13], v[14:15]  // 17, 18: x + y in f64
  OUT v16, 17
  OUT v17, 18
  v_cvt_f16_f32 v8, v6                    // 19: through f16 and back
  v_cvt_f32_f16 v8, v8
  OUT v8, 19
  v_cvt_f16_f32 v8, v6                    // 20: packed f16 {y, x} + {x, y}
  v_cvt_f16_f32 v9, v7
  v_lshl_or_b32 v18, v9, 16, v8           // {y, x}
  v_lshl_or_b32 v19, v8, 16, v9           // {x, y}
  v_pk_add_f16 v8, v18, v19
  OUT v8, 20
  v_and_b32 v8, 0x7fffffff, v6            // 21: sqrt |x|
  v_sqrt_f32 v8, v8
  OUT v8, 21
  v_med3_f32 v8, v6, v7, 0.5              // 22
  OUT v8, 22
  v_add_f32 v8, -|v6|, v7 clamp           // 23: clamp(y - |x|)
  OUT v8, 23
  v_mul_f32 v8, v6, v7 mul:2              // 24: omod * 2
  OUT v8, 24
  v_cvt_u32_f32 v8, -4.0                  // 25: negative -> 0 (saturating)
  OUT v8, 25
  s_endpgm
KD valu_float, 20, 12, tgx=1
