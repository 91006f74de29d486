// smem: scalar memory on VRAM: s_load_dwordx16/x8/x1 with immediate, SGPR
// and negative offsets, s_buffer_load through a V# with its range check,
// s_store_dword, s_memtime/s_memrealtime. One work-item.
// kernarg: table (u64, 64 dwords), out (u64).
.include "common.inc"

.macro OUT sreg, i
  v_mov_b32 v1, \sreg
  global_store_dword v0, v1, s[6:7] offset:(\i * 4)
.endm

KERNEL smem
  s_load_dwordx4 s[4:7], s[0:1], 0         // s[4:5] table, s[6:7] out
  v_mov_b32 v0, 0
  s_waitcnt lgkmcnt(0)
  s_load_dwordx16 s[16:31], s[4:5], 0      // table[0..15]
  s_load_dwordx8 s[8:15], s[4:5], 0x40     // table[16..23]
  s_waitcnt lgkmcnt(0)
  OUT s16, 0
  OUT s17, 1
  OUT s22, 2
  OUT s31, 3
  OUT s8, 4
  OUT s15, 5
  // A raw V# over the first 128 bytes of the table.
  s_mov_b32 s32, s4
  s_and_b32 s33, s5, 0xffff
  s_movk_i32 s34, 128
  s_mov_b32 s35, 0
  s_buffer_load_dwordx4 s[36:39], s[32:35], 120   // bytes 120..135: the last two are out of range
  s_waitcnt lgkmcnt(0)
  OUT s36, 6
  OUT s37, 7
  OUT s38, 8
  OUT s39, 9
  s_mov_b32 s40, 8
  s_load_dword s41, s[4:5], s40             // SGPR offset: table[2]
  s_add_u32 s42, s4, 16
  s_addc_u32 s43, s5, 0
  s_load_dword s44, s[42:43], -8            // negative offset: table[2]
  s_waitcnt lgkmcnt(0)
  OUT s41, 10
  OUT s44, 11
  s_memrealtime s[46:47]
  s_memtime s[48:49]
  s_memrealtime s[50:51]
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, s46
  v_mov_b32 v3, s47
  v_mov_b32 v4, s50
  v_mov_b32 v5, s51
  v_cmp_le_u64 vcc, v[2:3], v[4:5]          // 12: real time does not go back
  v_cndmask_b32 v1, 0, 1, vcc
  global_store_dword v0, v1, s[6:7] offset:48
  s_or_b32 s48, s48, s49                    // 13: shader clock is nonzero
  s_cmp_lg_u32 s48, 0
  s_cselect_b32 s48, 1, 0
  OUT s48, 13
  s_movk_i32 s52, 0x5a5a
  s_store_dword s52, s[6:7], 56             // 14: scalar store
  s_dcache_wb
  s_endpgm
KD smem, 6, 56
