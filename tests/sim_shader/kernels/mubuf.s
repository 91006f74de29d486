// mubuf: buffer loads, stores and atomics through V#s the kernel builds on
// a GTT buffer: raw (offset range-checked against num_records), with an
// SGPR offset, structured (index * stride, range-checked by index).
// 64 work-items. kernarg: buf (u64, 1024 dwords), out (u64); out[tid * 8 + k].
.include "common.inc"

KERNEL mubuf
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v1, 2, v0                       // tid * 4
  v_lshlrev_b32 v2, 5, v0                       // output row
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s4                              // raw V#: 256 bytes
  s_and_b32 s9, s5, 0xffff
  s_movk_i32 s10, 256
  s_mov_b32 s11, 0
  buffer_load_dword v3, v1, s[8:11], 0 offen offset:4   // 0: buf[tid + 1], 0 past 256 bytes
  s_mov_b32 s12, 16
  buffer_load_dword v4, off, s[8:11], s12 offset:8      // 1: buf[6]
  v_add_u32 v5, 0x1000, v0
  buffer_store_dword v5, v1, s[8:11], 0 offen offset:512   // dropped: beyond num_records
  s_mov_b32 s16, s4                             // structured V#: stride 8, 32 records
  s_and_b32 s17, s5, 0xffff
  s_or_b32 s17, s17, 8 << 16
  s_mov_b32 s18, 32
  s_mov_b32 s19, 0
  buffer_load_dword v6, v0, s[16:19], 0 idxen offset:4  // 2: buf[tid * 2 + 1], 0 from index 32
  s_movk_i32 s10, 4096                          // the whole buffer
  v_mov_b32 v7, 1
  s_movk_i32 s13, 800
  buffer_atomic_add v7, off, s[8:11], s13 glc    // 3: old value of buf[200] (+= 1 by each)
  v_add_u32 v8, 0x2000, v0
  buffer_store_dword v8, v1, s[8:11], 0 offen offset:1024  // buf[256 + tid] = 0x2000 + tid
  s_waitcnt vmcnt(0)
  global_store_dword v2, v3, s[6:7]
  global_store_dword v2, v4, s[6:7] offset:4
  global_store_dword v2, v6, s[6:7] offset:8
  global_store_dword v2, v7, s[6:7] offset:12
  s_endpgm
KD mubuf, 10, 20
