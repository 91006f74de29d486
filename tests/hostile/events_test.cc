// Hostile replies to the event ioctls: CREATE_EVENT (slots, ids, the
// events mmap offset) and WAIT_EVENTS (result, timeout, echoed fields,
// exception data).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "tests/hostile/support.h"

using hostile::Case;
using hostile::Env;
using hostile::Fill;
using hostile::Hit;
using hostile::Outcome;
using hostile::Untouched;
namespace k = hke::kfd;

namespace {

constexpr HSAKMT_STATUS kKce = HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR;
constexpr const char* kDgpu = "datacenter-4gpu";

HsaEventDescriptor Desc(HSA_EVENTTYPE type) {
  HsaEventDescriptor d;
  std::memset(&d, 0, sizeof(d));
  d.EventType = type;
  return d;
}

HsaEvent* NewEvent(HSA_EVENTTYPE type = HSA_EVENTTYPE_SIGNAL) {
  HsaEventDescriptor d = Desc(type);
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, /*ManualReset=*/false, /*IsSignaled=*/false, &e) ==
          HSAKMT_STATUS_SUCCESS);
  REQUIRE(e != nullptr);
  return e;
}

// Two live signal events (the first brings the events page up); a hostile
// id names the second.
void WithEvents(Env& e) {
  hostile::OpenAcquire(e);
  e.event2 = NewEvent();
  e.event = NewEvent();
}

// The live event still works in the kernel: set, then a wait consumes it.
void EventIntact(Env& e) {
  REQUIRE(e.event != nullptr);
  CHECK(hsaKmtSetEvent(e.event) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtWaitOnEvent(e.event, 0) == HSAKMT_STATUS_SUCCESS);
}

void EventsWork(Env& e) {
  EventIntact(e);
  HsaEvent* n = NewEvent();
  CHECK(hsaKmtSetEvent(n) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtWaitOnEvent(n, 0) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(n) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e.event) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e.event2) == HSAKMT_STATUS_SUCCESS);
  hostile::MemoryWorks(e);
}

std::function<Outcome(Env&)> CreateCall(HSA_EVENTTYPE type) {
  return [type](Env&) {
    HsaEventDescriptor d = Desc(type);
    HsaEvent* ev;
    Fill(&ev);
    const HSAKMT_STATUS st = hsaKmtCreateEvent(&d, false, false, &ev);
    return Outcome{st, Untouched(ev)};
  };
}

// Edits a successful CREATE_EVENT reply, after recording the real id.
std::function<int(Hit&, Env&)> EditCreate(std::function<void(k::CreateEventArgs&, Env&)> edit) {
  return [edit](Hit& h, Env& e) {
    auto* a = h.As<k::CreateEventArgs>();
    if (h.result != 0 || a == nullptr) return h.result;
    e.hidden_id = a->event_id;
    edit(*a, e);
    h.applied = true;
    return 0;
  };
}

// The kernel event the corrupted reply described was destroyed again.
void RealEventDestroyed(Env& e) {
  bool found = false;
  const std::string id = "in=" + [](uint32_t v) {
    char b[9];
    for (int i = 0; i < 4; ++i) std::snprintf(b + 2 * i, 3, "%02x", (v >> (8 * i)) & 0xFFu);
    return std::string(b);
  }(e.hidden_id);
  for (const std::string& l : e.b.Lines("DESTROY_EVENT")) {
    if (l.find(id) != std::string::npos && l.find("-> ok") != std::string::npos) found = true;
  }
  CHECK_MESSAGE(found, "no successful DESTROY_EVENT of the real id " << e.hidden_id);
}

Case CreateCase(const char* name, HSA_EVENTTYPE type,
                std::function<void(k::CreateEventArgs&, Env&)> edit) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocCreateEvent;
  c.corrupt = EditCreate(std::move(edit));
  c.setup = WithEvents;
  c.trigger = CreateCall(type);
  c.expect = kKce;
  c.diag = "CREATE_EVENT reply is malformed";
  c.verify = RealEventDestroyed;
  c.after = EventsWork;
  return c;
}

// ---- WAIT_EVENTS ----

// The signalled live event, waited on with ages.
void WithSetEvent(Env& e) {
  WithEvents(e);
  REQUIRE(hsaKmtSetEvent(e.event) == HSAKMT_STATUS_SUCCESS);
}

Outcome WaitCall(Env& e) {
  HsaEvent* evs[] = {e.event};
  uint64_t ages[1];
  Fill(&ages);
  HsaEvent before;
  std::memcpy(&before, e.event, sizeof(before));
  const HSAKMT_STATUS st = hsaKmtWaitOnMultipleEvents_Ext(evs, 1, true, 0, ages);
  return Outcome{st, Untouched(ages) && std::memcmp(&before, e.event, sizeof(before)) == 0};
}

Case WaitCase(const char* name, std::function<void(k::WaitEventsArgs&)> edit) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocWaitEvents;
  c.corrupt = [edit](Hit& h, Env&) {
    auto* a = h.As<k::WaitEventsArgs>();
    if (h.result != 0 || a == nullptr) return h.result;
    edit(*a);
    h.applied = true;
    return 0;
  };
  c.setup = WithSetEvent;
  c.trigger = WaitCall;
  c.expect = kKce;
  c.diag = "WAIT_EVENTS reply is malformed";
  c.after = EventsWork;
  return c;
}

}  // namespace

TEST_CASE("hostile CREATE_EVENT replies fail CreateEvent and destroy only the event the kernel made") {
  using C = k::CreateEventArgs;
  std::vector<Case> cases = {
      CreateCase("signal slot index beyond the page (4096)", HSA_EVENTTYPE_SIGNAL,
                 [](C& a, Env&) { a.event_slot_index = k::kSignalEventLimit; }),
      CreateCase("signal slot index 0xffffffff", HSA_EVENTTYPE_SIGNAL,
                 [](C& a, Env&) { a.event_slot_index = 0xFFFFFFFFu; }),
      CreateCase("trigger data not the event id", HSA_EVENTTYPE_SIGNAL,
                 [](C& a, Env&) { a.event_trigger_data = a.event_id + 1; }),
      CreateCase("events mmap offset of the doorbell type", HSA_EVENTTYPE_SIGNAL,
                 [](C& a, Env&) {
                   a.event_page_offset = uint64_t{k::kMmapTypeDoorbell} << k::kMmapTypeShift;
                 }),
      CreateCase("events mmap offset with gpu and value bits", HSA_EVENTTYPE_SIGNAL,
                 [](C& a, Env&) { a.event_page_offset |= (1ull << k::kMmapGpuIdShift) | 0x1000; }),
      CreateCase("event type changed in the reply", HSA_EVENTTYPE_SIGNAL,
                 [](C& a, Env&) { a.event_type = k::kEventMemory; }),
  };
  {
    // Consistent but beyond the page: the library cannot know the real id
    // (the kernel keeps that event) and must not crash on the clean-up.
    Case c = CreateCase("slot, id and trigger data all 4096", HSA_EVENTTYPE_SIGNAL, [](C& a, Env&) {
      a.event_slot_index = a.event_id = a.event_trigger_data = k::kSignalEventLimit;
    });
    c.verify = EventIntact;
    cases.push_back(c);
  }
  {
    // A well-formed reply reusing a live event's id: two handles would
    // drive one kernel event (destroying one kills the other).
    Case c = CreateCase("signal event id of a live event (id reused)", HSA_EVENTTYPE_SIGNAL,
                        [](C& a, Env& e) {
                          const uint32_t live = e.event->EventId;
                          a.event_slot_index = a.event_id = a.event_trigger_data = live;
                        });
    // The reply hid the kernel's real new event, so the library cannot name
    // it (it goes with the process); what matters is that the live event
    // it named is left intact.
    c.verify = EventIntact;
    cases.push_back(c);
  }
  {
    // A memory-exception event answered with a signal-range id that a live
    // event holds: the reply is refused, and the clean-up must not destroy
    // the live event it names.
    Case c = CreateCase("memory event answered with a live signal event's id", HSA_EVENTTYPE_MEMORY,
                        [](C& a, Env& e) { a.event_id = e.event->EventId; });
    c.verify = EventIntact;  // (the hidden real event cannot be named, as above)
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}

TEST_CASE("hostile WAIT_EVENTS replies fail the wait and write neither ages nor event data") {
  using W = k::WaitEventsArgs;
  std::vector<Case> cases = {
      WaitCase("wait_result unknown (7)", [](W& a) { a.wait_result = 7; }),
      WaitCase("wait_result 0xffffffff", [](W& a) { a.wait_result = 0xFFFFFFFFu; }),
      WaitCase("remaining timeout above the one sent", [](W& a) { a.timeout = 1000; }),
      WaitCase("num_events changed", [](W& a) { a.num_events = 4096; }),
      WaitCase("events pointer changed", [](W& a) { a.events_ptr += 48; }),
      WaitCase("wait_for_all changed", [](W& a) { a.wait_for_all = 0; }),
  };
  {
    // Exception data naming a GPU the process does not have: the wait
    // completes (the event did fire) and the unknown gpu_id is reported.
    Case c{};
    c.name = "memory exception data with an unknown gpu_id";
    c.board = kDgpu;
    c.request = k::kIocWaitEvents;
    c.corrupt = [](Hit& h, Env&) {
      auto* a = h.As<W>();
      if (h.result != 0 || a == nullptr || a->wait_result != k::kWaitResultComplete) return h.result;
      auto* d = reinterpret_cast<k::EventData*>(static_cast<uintptr_t>(a->events_ptr));
      d[0].memory_exception_data.gpu_id = 0x7777;
      h.applied = true;
      return 0;
    };
    c.setup = [](Env& e) {
      hostile::OpenAcquire(e);
      e.event = NewEvent();
      e.event2 = NewEvent(HSA_EVENTTYPE_MEMORY);
      REQUIRE(kfdsim_inject_memory_exception(e.b.sim(), e.gpu_ids.at(0), 0x5000, 1, 0) == 0);
    };
    c.trigger = [](Env& e) { return Outcome{hsaKmtWaitOnEvent(e.event2, 0), true}; };
    c.expect = HSAKMT_STATUS_SUCCESS;
    c.diag = "unknown gpu_id";
    c.verify = [](Env& e) {
      const HsaMemoryAccessFault& f = e.event2->EventData.EventData.MemoryAccessFault;
      CHECK(f.VirtualAddress == 0x5000);
      CHECK(f.NodeId != e.gpu_nodes.at(0));
    };
    c.after = [](Env& e) {
      EventIntact(e);
      CHECK(hsaKmtDestroyEvent(e.event2) == HSAKMT_STATUS_SUCCESS);
      CHECK(hsaKmtDestroyEvent(e.event) == HSAKMT_STATUS_SUCCESS);
      hostile::MemoryWorks(e);
    };
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}
