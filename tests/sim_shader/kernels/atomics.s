// atomics: GLOBAL atomics on GTT from 256 work-items (4 workgroups):
// add with return (every work-item gets a distinct old value), umax, or,
// inc with wrap, cmpswap (each work-item claims a slot), 64-bit add, and an
// atomic without return. kernarg: counters (u64), olds (u64), slots (u64).
.include "common.inc"

KERNEL atomics
  s_load_dwordx4 s[4:7], s[0:1], 0          // s[4:5] counters, s[6:7] olds
  s_load_dwordx2 s[8:9], s[0:1], 16         // s[8:9] slots
  v_lshl_add_u32 v1, s2, 6, v0               // gid
  v_lshlrev_b32 v2, 2, v1
  v_mov_b32 v3, 0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v4, 1
  global_atomic_add v5, v3, v4, s[4:5] glc   // counters[0] += 1, old -> olds[gid]
  global_atomic_umax v3, v1, s[4:5] offset:4 // counters[1] = max gid
  v_lshlrev_b32 v6, v0, 1
  global_atomic_or v3, v6, s[4:5] offset:8   // counters[2] |= 1 << (tid & 31)
  v_mov_b32 v7, 9
  global_atomic_inc v3, v7, s[4:5] offset:12 // counters[3]: wraps at 9 -> ends at 256 % 10
  v_mov_b32 v8, 1
  v_mov_b32 v9, 0
  global_atomic_add_x2 v3, v[8:9], s[4:5] offset:16   // counters[4:5] += 1 (64-bit)
  s_waitcnt vmcnt(0)
  global_store_dword v2, v5, s[6:7]
  // cmpswap: claim slots[gid ^ 1] from 0 to gid + 1; return the old value.
  v_xor_b32 v10, 1, v1
  v_lshlrev_b32 v10, 2, v10
  v_add_u32 v12, 1, v1                       // src
  v_mov_b32 v13, 0                           // cmp
  global_atomic_cmpswap v13, v10, v[12:13], s[8:9] glc
  s_waitcnt vmcnt(0)
  global_store_dword v2, v13, s[6:7] offset:1024
  s_endpgm
KD atomics, 14, 12, tgx=1
