// Fuzzes the event codecs. Invariants: a decoded signal/debug event has
// 1 <= slot < 4096 with id == slot == trigger and an EVENTS mmap offset;
// other events have ids >= 4096; a wait request names 1..4096 events whose
// array does not wrap; a decoded wait result is known and its remaining
// time did not grow. Nothing is written on failure.
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  k::EventRequest r{in.U8() % 10u, in.Bool(), in.U32(), in.Bool() ? 0 : in.U64()};
  Poisoned<k::CreateEventArgs> out;
  if (k::EncodeCreateEvent(r, &out.v).ok()) {
    HKE_FUZZ_ASSERT(out.v.event_type <= k::kEventTypeLast && out.v.auto_reset <= 1);
    k::CreateEventArgs reply = out.v;
    const uint32_t id = in.Bool() ? in.U32() : in.U32() % 4200;
    reply.event_id = id;
    reply.event_slot_index = in.Bool() ? id : in.U32();
    reply.event_trigger_data = in.Bool() ? id : in.U32();
    reply.event_page_offset = in.Bool() ? (2ull << 62) : in.U64();
    Poisoned<k::CreateEventResult> res;
    if (k::DecodeCreateEvent(out.v, reply, &res.v).ok()) {
      if (r.event_type == k::kEventSignal || r.event_type == k::kEventDebugEvent) {
        HKE_FUZZ_ASSERT(res.v.slot_index < k::kSignalEventLimit);  // slot 0 valid (kernels < 5.18)
        HKE_FUZZ_ASSERT(res.v.event_id == res.v.slot_index && res.v.trigger_data == res.v.event_id);
        HKE_FUZZ_ASSERT((res.v.events_mmap_offset >> 62) == k::kMmapTypeEvents);
      } else {
        HKE_FUZZ_ASSERT(res.v.event_id >= k::kSignalEventLimit && res.v.slot_index == 0);
      }
    } else {
      HKE_FUZZ_ASSERT(res.untouched());
    }
  } else {
    HKE_FUZZ_ASSERT(out.untouched());
  }

  const uint32_t count = in.Bool() ? in.U32() : in.U32() % 4100;
  Poisoned<k::WaitEventsArgs> w;
  if (k::EncodeWaitEvents(in.Addr(), count, in.Bool(), in.U32(), &w.v).ok()) {
    HKE_FUZZ_ASSERT(w.v.num_events >= 1 && w.v.num_events <= k::kMaxWaitEvents);
    HKE_FUZZ_ASSERT(w.v.events_ptr != 0 &&
                    w.v.events_ptr + uint64_t{w.v.num_events} * sizeof(k::EventData) >
                        w.v.events_ptr);
    k::WaitEventsArgs reply = w.v;
    reply.wait_result = in.U8() % 5;
    reply.timeout = in.Bool() ? in.U32() : w.v.timeout / 2;
    if (in.U8() == 0x5A) reply.num_events ^= 1;
    Poisoned<k::WaitResult> res;
    if (k::DecodeWaitEvents(w.v, reply, &res.v).ok()) {
      HKE_FUZZ_ASSERT(res.v.result <= k::kWaitResultFail);
      HKE_FUZZ_ASSERT(w.v.timeout == k::kWaitInfinite || res.v.remaining_ms <= w.v.timeout);
    } else {
      HKE_FUZZ_ASSERT(res.untouched());
    }
  } else {
    HKE_FUZZ_ASSERT(w.untouched());
  }

  Poisoned<k::SetEventArgs> s;
  const uint32_t eid = in.U32() % 3;
  if (k::EncodeSetEvent(eid, &s.v).ok()) HKE_FUZZ_ASSERT(s.v.event_id == eid);  // id 0 is valid (kernels < 5.18)
  else HKE_FUZZ_ASSERT(s.untouched());
  return 0;
}
