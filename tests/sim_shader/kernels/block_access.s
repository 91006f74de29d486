// block_access: FLAT loads and stores whose lanes address one gap-free
// block (lane g at base + g * width), the shape of a runtime's blit copies:
// bytes and shorts (sign- and zero-extended) and dwords with every lane on,
// bytes with the active lanes one run starting at lane 0 or in the middle,
// and bytes with every other lane on (not a run: the inactive lanes' bytes
// are left alone). One wave of 64 work-items. kernarg: in (u64), out (u64).
// out layout (bytes): +0 dword(in[g]) | +256 dword(sext in[64+g]) |
// +512 dword(in16[64+g]) | +768 dword(sext in16[128+g]) | +1024 byte in[g] |
// +1088 short in16[64+g] | +1216 byte in[64+g] for g < 37 |
// +1280 byte in[200+g] for g > 20 | +1344 byte in[g] for even g.
.include "common.inc"

KERNEL block_access
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v1, 1, v0                  // 2 * gid
  v_lshlrev_b32 v2, 2, v0                  // 4 * gid
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v5, s5
  v_add_co_u32 v4, vcc, s4, v0
  v_addc_co_u32 v5, vcc, v5, 0, vcc        // v[4:5] = in + gid
  v_mov_b32 v7, s7
  v_add_co_u32 v6, vcc, s6, v0
  v_addc_co_u32 v7, vcc, v7, 0, vcc        // v[6:7] = out + gid
  v_mov_b32 v9, s5
  v_add_co_u32 v8, vcc, s4, v1
  v_addc_co_u32 v9, vcc, v9, 0, vcc        // v[8:9] = in + 2 * gid
  v_mov_b32 v15, s7
  v_add_co_u32 v14, vcc, s6, v2
  v_addc_co_u32 v15, vcc, v15, 0, vcc      // v[14:15] = out + 4 * gid
  v_mov_b32 v17, s7
  v_add_co_u32 v16, vcc, s6, v1
  v_addc_co_u32 v17, vcc, v17, 0, vcc      // v[16:17] = out + 2 * gid
  flat_load_ubyte v10, v[4:5]
  flat_load_sbyte v11, v[4:5] offset:64
  flat_load_ushort v12, v[8:9] offset:128
  flat_load_sshort v13, v[8:9] offset:256
  s_waitcnt vmcnt(0) lgkmcnt(0)
  flat_store_dword v[14:15], v10
  flat_store_dword v[14:15], v11 offset:256
  flat_store_dword v[14:15], v12 offset:512
  flat_store_dword v[14:15], v13 offset:768
  flat_store_byte v[6:7], v10 offset:1024
  flat_store_short v[16:17], v12 offset:1088
  v_cmp_gt_u32 vcc, 37, v0                 // lanes 0..36
  s_and_saveexec_b64 s[8:9], vcc
  flat_store_byte v[6:7], v11 offset:1216
  s_mov_b64 exec, s[8:9]
  v_cmp_lt_u32 vcc, 20, v0                 // lanes 21..63
  s_and_saveexec_b64 s[8:9], vcc
  flat_load_ubyte v18, v[4:5] offset:200
  s_waitcnt vmcnt(0) lgkmcnt(0)
  flat_store_byte v[6:7], v18 offset:1280
  s_mov_b64 exec, s[8:9]
  v_and_b32 v3, 1, v0
  v_cmp_eq_u32 vcc, 0, v3                  // even lanes
  s_and_saveexec_b64 s[8:9], vcc
  flat_store_byte v[6:7], v10 offset:1344
  s_mov_b64 exec, s[8:9]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
KD block_access, 20, 16
