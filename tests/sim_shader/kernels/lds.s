// lds: the workgroup's LDS, 256 work-items in 4 waves (one workgroup):
// ds_write/read across waves separated by s_barrier, ds_add_u32 from every
// work-item, ds_read2/write2, ds_write_b128/read_b128, ds_bpermute,
// ds_swizzle, and FLAT access to LDS through the shared aperture.
// kernarg: out (u64); out[tid * 8 + k].
.include "common.inc"

KERNEL lds
  s_load_dwordx2 s[4:5], s[0:1], 0
  v_lshlrev_b32 v1, 2, v0                     // tid * 4
  v_lshlrev_b32 v2, 5, v0                     // tid * 32: output row
  ds_write_b32 v1, v0                         // lds[tid] = tid
  v_mov_b32 v3, 0
  v_mov_b32 v4, 1
  ds_add_u32 v3, v4 offset:2048               // lds[512] += 1 by everyone
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_sub_u32 v5, 255, v0
  v_lshlrev_b32 v5, 2, v5
  ds_read_b32 v6, v5                          // 0: lds[255 - tid]
  ds_read_b32 v7, v3 offset:2048              // 1: 256
  ds_read2_b32 v[8:9], v1 offset0:1 offset1:4 // 2, 3: lds[tid + 1], lds[tid + 4] (0 past the end)
  s_waitcnt lgkmcnt(0)
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v6, s[4:5]
  global_store_dword v2, v7, s[4:5] offset:4
  global_store_dword v2, v8, s[4:5] offset:8
  global_store_dword v2, v9, s[4:5] offset:12
  v_add_u32 v10, 1, v0                        // 4: bpermute: the value of lane (tid + 1) % 64
  v_lshlrev_b32 v10, 2, v10
  ds_bpermute_b32 v11, v10, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v11, s[4:5] offset:16
  ds_swizzle_b32 v12, v0 offset:swizzle(SWAP, 1)   // 5: the value of lane tid ^ 1
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v12, s[4:5] offset:20
  // 6: a 16-byte record per work-item at 4096 + tid * 16, written and read back
  v_lshlrev_b32 v13, 4, v0
  v_mov_b32 v14, v0
  v_add_u32 v15, 1000, v0
  v_add_u32 v16, 2000, v0
  v_add_u32 v17, 3000, v0
  ds_write_b128 v13, v[14:17] offset:4096
  s_waitcnt lgkmcnt(0)
  ds_read_b128 v[18:21], v13 offset:4096
  s_waitcnt lgkmcnt(0)
  v_add3_u32 v18, v18, v19, v20
  v_add_u32 v18, v18, v21
  global_store_dword v2, v18, s[4:5] offset:24
  // 7: FLAT store into LDS through the shared aperture, read back with DS
  s_mov_b64 s[6:7], src_shared_base
  v_add_u32 v22, 8192, v1                      // LDS offset 8192 + tid * 4
  v_mov_b32 v23, s7
  v_mul_u32_u24 v24, v0, 3
  flat_store_dword v[22:23], v24
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_read_b32 v25, v1 offset:8192
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v25, s[4:5] offset:28
  s_endpgm
KD lds, 28, 10, lds=9216
