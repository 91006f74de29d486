// exceptions: kernels that stop their queue or talk to the KFD.
//   fault_store:  a store to the address in kernarg (unmapped or read-only).
//   illegal:      an encoding no gfx9 target has.
//   trap_abort:   s_trap 2 (llvm.trap).
//   debugtrap:    s_trap 3 without a debugger returns; then writes 1.
//   sendmsg:      stores the event id into the event's mailbox slot and
//                 sends MSG_INTERRUPT with M0 = event id, then writes 1.
// kernarg: addr (u64), id (u32).
.include "common.inc"

KERNEL fault_store
  s_load_dwordx2 s[4:5], s[0:1], 0
  v_mov_b32 v0, 0
  v_mov_b32 v1, 0xdead
  s_waitcnt lgkmcnt(0)
  global_store_dword v0, v1, s[4:5]
  s_endpgm
KD fault_store, 2, 8

KERNEL illegal
  s_nop 0
  .long 0xffffffff
  s_endpgm
KD illegal, 2, 8

KERNEL trap_abort
  s_trap 2
  s_endpgm
KD trap_abort, 2, 8

KERNEL debugtrap
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_trap 3
  v_mov_b32 v0, 0
  v_mov_b32 v1, 1
  s_waitcnt lgkmcnt(0)
  global_store_dword v0, v1, s[4:5]
  s_endpgm
KD debugtrap, 2, 8

KERNEL sendmsg
  s_load_dwordx2 s[4:5], s[0:1], 0              // the event's slot
  s_load_dword s6, s[0:1], 8                    // the event id
  s_load_dwordx2 s[8:9], s[0:1], 16             // a flag to set afterwards
  v_mov_b32 v0, 0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, s6
  v_mov_b32 v3, 0
  global_store_dwordx2 v0, v[2:3], s[4:5]
  s_waitcnt vmcnt(0)
  s_mov_b32 m0, s6
  s_sendmsg sendmsg(MSG_INTERRUPT)
  v_mov_b32 v1, 1
  global_store_dword v0, v1, s[8:9]
  s_endpgm
KD sendmsg, 4, 12
