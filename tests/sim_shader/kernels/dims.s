// dims: a 3-D grid of 10 x 6 x 3 work-items in 4 x 4 x 2 workgroups (the
// last ones partial). Each work-item writes its workgroup id and its local
// id to ids[z][y][x] and locals[z][y][x]. Work-item ids arrive in v0, v1,
// v2, or packed in v0 on gfx90a. kernarg: ids (u64), locals (u64).
.include "common.inc"

KERNEL dims
  s_load_dwordx4 s[8:11], s[0:1], 0
.if IS_GFX90A
  v_bfe_u32 v2, v0, 20, 10
  v_bfe_u32 v1, v0, 10, 10
  v_and_b32 v0, 0x3ff, v0
.endif
  v_lshl_add_u32 v3, s2, 2, v0                  // x = tgid_x * 4 + lx
  v_lshl_add_u32 v4, s3, 2, v1                  // y
  v_lshl_add_u32 v5, s4, 1, v2                  // z
  v_mad_u32_u24 v6, v5, 6, v4                   // (z * 6 + y)
  v_mad_u32_u24 v6, v6, 10, v3                  // * 10 + x
  v_lshlrev_b32 v6, 2, v6
  s_lshl_b32 s5, s3, 8
  s_or_b32 s5, s5, s2
  s_lshl_b32 s6, s4, 16
  s_or_b32 s5, s5, s6                           // tgid_x | tgid_y << 8 | tgid_z << 16
  v_mov_b32 v7, s5
  v_lshlrev_b32 v8, 8, v1
  v_lshlrev_b32 v9, 16, v2
  v_or3_b32 v8, v0, v8, v9
  s_waitcnt lgkmcnt(0)
  global_store_dword v6, v7, s[8:9]
  global_store_dword v6, v8, s[10:11]
  s_endpgm
KD dims, 10, 12, tgx=1, tgy=1, tgz=1, wid=2

// spin: runs a scalar loop of `count` iterations (three instructions each,
// longer than one engine step), then adds its iterations to *out.
// kernarg: out (u64), count (u32).
KERNEL spin
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_load_dword s6, s[0:1], 8
  s_mov_b32 s7, 0
  s_waitcnt lgkmcnt(0)
.Lspin:
  s_add_u32 s7, s7, 1
  s_cmp_lt_u32 s7, s6
  s_cbranch_scc1 .Lspin
  v_mov_b32 v0, 0
  v_mov_b32 v1, s7
  global_atomic_add v0, v1, s[4:5]
  s_endpgm
KD spin, 2, 8
