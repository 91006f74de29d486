// Fuzzes the CREATE_QUEUE / UPDATE_QUEUE / DESTROY_QUEUE / SET_CU_MASK
// codecs. Invariants: an encoded queue has a power-of-two ring of at least
// 1024 bytes that does not wrap, percentage <= 100 in the low byte and no
// bits above the XCC byte, priority <= 15, a known type; a CU mask is a
// nonzero multiple of 32 up to 1024 bits; a decoded queue has an id below
// 1024 and a DOORBELL offset of the requesting gpu. Nothing is written on
// failure.
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  k::QueueRequest q{};
  q.gpu_id = in.U8() % 3;
  q.queue_type = in.U8() % 7;
  q.ring_base = in.Addr();
  q.ring_size = in.Bool() ? (1u << (in.U8() % 32)) : in.U32();
  q.percentage = in.Bool() ? in.U8() : in.U32();
  q.priority = in.U8() % 20;
  q.sdma_engine_id = in.Bool() ? 0 : in.U8();
  q.read_ptr = in.Addr();
  q.write_ptr = in.Addr();
  q.eop_addr = in.Addr();
  q.eop_size = in.Addr();
  q.ctx_save_addr = in.Addr();
  q.ctx_save_size = in.U32();
  q.ctl_stack_size = in.U32();

  Poisoned<k::CreateQueueArgs> out;
  if (k::EncodeCreateQueue(q, &out.v).ok()) {
    const k::CreateQueueArgs& a = out.v;
    HKE_FUZZ_ASSERT(a.ring_size >= k::kMinQueueRingSize && (a.ring_size & (a.ring_size - 1)) == 0);
    HKE_FUZZ_ASSERT(a.ring_base_address + a.ring_size > a.ring_base_address);
    HKE_FUZZ_ASSERT((a.queue_percentage & 0xFF) <= 100 && (a.queue_percentage >> 16) == 0);
    HKE_FUZZ_ASSERT(a.queue_priority <= 15 && a.queue_type <= k::kQueueTypeLast);
    HKE_FUZZ_ASSERT(a.ctl_stack_size <= a.ctx_save_restore_size || a.ctx_save_restore_address == 0);
    k::CreateQueueArgs reply = a;
    reply.queue_id = in.Bool() ? in.U32() : in.U32() % 1024;
    reply.doorbell_offset = in.Bool() ? in.U64()
                                      : ((3ull << 62) | (uint64_t{a.gpu_id & 0xFFFF} << 46) |
                                         (in.U32() & 0x1FFFF));
    Poisoned<k::CreateQueueResult> res;
    if (k::DecodeCreateQueue(a, reply, &res.v).ok()) {
      HKE_FUZZ_ASSERT(res.v.queue_id < k::kMaxQueuesPerProcess);
      k::MmapOffset m{};
      HKE_FUZZ_ASSERT(k::DecodeMmapOffset(res.v.doorbell_offset, &m).ok());
      HKE_FUZZ_ASSERT(m.type == k::kMmapTypeDoorbell && m.gpu_id == (a.gpu_id & 0xFFFF));
    } else {
      HKE_FUZZ_ASSERT(res.untouched());
    }
  } else {
    HKE_FUZZ_ASSERT(out.untouched());
  }

  k::QueueUpdate u{in.U32() % 1100, in.Addr(), in.Bool() ? (1u << (in.U8() % 32)) : in.U32(),
                   in.U32() % 300, in.U8() % 20u};
  Poisoned<k::UpdateQueueArgs> uout;
  if (k::EncodeUpdateQueue(u, &uout.v).ok()) {
    HKE_FUZZ_ASSERT(uout.v.queue_priority <= 15 && (uout.v.queue_percentage & 0xFF) <= 100);
    HKE_FUZZ_ASSERT(uout.v.ring_base_address == 0 || uout.v.ring_size >= k::kMinQueueRingSize);
    HKE_FUZZ_ASSERT(uout.v.ring_base_address != 0 || uout.v.ring_size == 0);  // disable: no size
  } else {
    HKE_FUZZ_ASSERT(uout.untouched());
  }

  Poisoned<k::SetCuMaskArgs> cu;
  const uint32_t bits = in.Bool() ? in.U32() : 32u * (in.U8() % 40);
  if (k::EncodeSetCuMask(in.U32() % 1100, in.Addr(), bits, &cu.v).ok()) {
    HKE_FUZZ_ASSERT(cu.v.num_cu_mask != 0 && cu.v.num_cu_mask % 32 == 0 &&
                    cu.v.num_cu_mask <= k::kMaxCuMaskBits);
  } else {
    HKE_FUZZ_ASSERT(cu.untouched());
  }

  Poisoned<k::DestroyQueueArgs> d;
  if (!k::EncodeDestroyQueue(in.U32() % 1100, &d.v).ok()) HKE_FUZZ_ASSERT(d.untouched());
  return 0;
}
