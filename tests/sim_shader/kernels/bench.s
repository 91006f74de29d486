// bench: the kernels the shader benchmark (tools/bench/shader_bench.cc)
// times, tested in ../bench_kernels_test.cc.
//
// copy16: dst[j] = src[j] for 16-byte chunks j = gid, gid + total, ... < n
//   (a grid-stride loop of dwordx4 GLOBAL loads and stores with per-lane
//   pointers and a 64-bit end compare: the loop of a runtime's aligned
//   blit copy). Workgroups of 256.
//   kernarg: src (u64), dst (u64), n (u32, chunks), total (u32, work-items).
// alu_loop: `iterations` rounds of 8 VALU and 3 SALU instructions on
//   per-lane integers and floats; writes the integer result to out[gid].
//   kernarg: out (u64), iterations (u32). Workgroups of 256.
.include "common.inc"

KERNEL copy16
  s_load_dwordx4 s[4:7], s[0:1], 0          // s[4:5] src, s[6:7] dst
  s_load_dwordx2 s[8:9], s[0:1], 16         // s8 n, s9 total
  v_lshl_add_u32 v1, s2, 8, v0              // j = gid
  s_waitcnt lgkmcnt(0)
  s_lshl_b32 s10, s9, 4                     // stride: total * 16 bytes
  s_lshr_b32 s11, s8, 28                    // end = src + n * 16
  s_lshl_b32 s12, s8, 4
  s_add_u32 s12, s4, s12
  s_addc_u32 s13, s5, s11
  v_lshlrev_b32 v2, 4, v1                   // per-lane src and dst pointers
  v_lshrrev_b32 v3, 28, v1
  v_mov_b32 v5, s5
  v_add_co_u32 v4, vcc, s4, v2
  v_addc_co_u32 v5, vcc, v5, v3, vcc        // v[4:5] src
  v_mov_b32 v7, s7
  v_add_co_u32 v6, vcc, s6, v2
  v_addc_co_u32 v7, vcc, v7, v3, vcc        // v[6:7] dst
.Lcopy:                                     // the loop of a runtime's aligned copy
  v_cmp_lt_u64 vcc, v[4:5], s[12:13]
  s_and_b64 exec, exec, vcc
  s_cbranch_execz .Lcopy_done
  global_load_dwordx4 v[8:11], v[4:5], off
  v_add_co_u32 v4, vcc, v4, s10
  v_addc_co_u32 v5, vcc, 0, v5, vcc
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v[6:7], v[8:11], off
  v_add_co_u32 v6, vcc, v6, s10
  v_addc_co_u32 v7, vcc, 0, v7, vcc
  s_branch .Lcopy
.Lcopy_done:
  s_endpgm
KD copy16, 12, 16, tgx=1

KERNEL alu_loop
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_load_dword s6, s[0:1], 8
  v_lshl_add_u32 v1, s2, 8, v0              // gid
  v_mov_b32 v2, 1.0
  v_cvt_f32_u32 v3, v1
  v_mov_b32 v4, 0.5
  v_mov_b32 v5, v1
  v_add_u32 v6, 0x9e37, v1
  s_waitcnt lgkmcnt(0)
.Lalu:
  v_fma_f32 v2, v2, v4, v3                  // 8 VALU
  v_add_u32 v5, v5, v6
  v_xor_b32 v6, v6, v5
  v_lshlrev_b32 v7, 3, v5
  v_mad_u32_u24 v5, v5, 7, v7
  v_max_f32 v3, v3, v2
  v_alignbit_b32 v6, v6, v6, 7
  v_sub_u32 v5, v5, v1
  s_sub_u32 s6, s6, 1                       // 3 SALU
  s_cmp_lg_u32 s6, 0
  s_cbranch_scc1 .Lalu
  v_lshlrev_b32 v1, 2, v1
  global_store_dword v1, v5, s[4:5]
  s_endpgm
KD alu_loop, 8, 10, tgx=1
