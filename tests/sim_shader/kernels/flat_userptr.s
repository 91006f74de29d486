// flat_userptr: FLAT loads and stores of every width (bytes sign- and
// zero-extended, shorts, dwordx2/x3/x4, d16 halves) on user memory the
// test registered (hsaKmtRegisterMemory) and mapped: GPU VA = host address.
// 64 work-items; each reads its 16-byte record in[gid] and writes a
// 96-byte record out[gid]. kernarg: in (u64), out (u64).
.include "common.inc"

KERNEL flat_userptr
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v1, 4, v0                  // 16 bytes per input record
  v_mul_u32_u24 v2, 0x60, v0               // 96 bytes per output record
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v5, s5
  v_add_co_u32 v4, vcc, s4, v1
  v_addc_co_u32 v5, vcc, v5, 0, vcc        // v[4:5] = &in[gid]
  v_mov_b32 v7, s7
  v_add_co_u32 v6, vcc, s6, v2
  v_addc_co_u32 v7, vcc, v7, 0, vcc        // v[6:7] = &out[gid]
  flat_load_dwordx4 v[10:13], v[4:5]
  flat_load_ubyte v14, v[4:5] offset:1
  flat_load_sbyte v15, v[4:5] offset:2
  flat_load_ushort v16, v[4:5] offset:4
  flat_load_sshort v17, v[4:5] offset:6
  flat_load_dwordx3 v[18:20], v[4:5] offset:4
  v_mov_b32 v21, 0x11112222
  flat_load_short_d16_hi v21, v[4:5] offset:8   // high half from memory, low half kept
  v_mov_b32 v22, 0x33334444
  flat_load_ubyte_d16 v22, v[4:5] offset:3      // low half = zero-extended byte, high kept
  s_waitcnt vmcnt(0) lgkmcnt(0)
  flat_store_dwordx4 v[6:7], v[10:13]            // out +0: the record
  flat_store_dword v[6:7], v14 offset:16
  flat_store_dword v[6:7], v15 offset:20
  flat_store_dword v[6:7], v16 offset:24
  flat_store_dword v[6:7], v17 offset:28
  flat_store_dwordx3 v[6:7], v[18:20] offset:32
  flat_store_dword v[6:7], v21 offset:44
  flat_store_dword v[6:7], v22 offset:48
  flat_store_byte v[6:7], v10 offset:52          // low byte
  flat_store_short v[6:7], v11 offset:54         // low short
  flat_store_short_d16_hi v[6:7], v12 offset:56  // high short
  flat_store_dwordx2 v[6:7], v[12:13] offset:58  // unaligned 8 bytes
  s_endpgm
KD flat_userptr, 24, 10
