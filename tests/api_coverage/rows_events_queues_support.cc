// Coverage rows: events, waits, SMI, and the queue API.
#include <unistd.h>

#include <cstring>

#include "lib/kfd/abi.h"
#include "tests/api_coverage/coverage.h"

namespace covtest {
namespace {

// A pointer that looks like an event but was never created.
HsaEvent* Forged() {
  static HsaEvent fake{};
  fake.EventId = 7;
  return &fake;
}

// A destroyed event.
HsaEvent* Stale(Env& e) {
  HsaEvent* ev = e.Event();
  REQUIRE(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
  return ev;
}

// A refusal of an event handle: INVALID_HANDLE, no ioctl.
template <typename Call>
Outcome BadEvent(Env& e, HsaEvent* ev, Call call) {
  e.Mark();
  const HSAKMT_STATUS s = call(ev);
  return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE, e.Quiet(), "no ioctl");
}

// An auto-reset event that the wait consumed no longer completes a wait.
bool Consumed(HsaEvent* ev) { return hsaKmtWaitOnEvent(ev, 0) == HSAKMT_STATUS_WAIT_TIMEOUT; }

// A queue handle refusal: INVALID_HANDLE, no ioctl.
template <typename Call>
Outcome BadQueue(Env& e, Call call) {
  const HSA_QUEUEID q = e.StaleQueue();
  e.Mark();
  const HSAKMT_STATUS s = call(q);
  return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE, e.Quiet(), "a destroyed queue, no ioctl");
}

// hsaKmtCreateQueue(Ext) of an SDMA queue on Gpu().
Outcome CreateSdma(Env& e, bool ext) {
  void* ring = e.Gtt(4096);
  const uint32_t n = e.Gpu();
  HsaQueueResource r{};
  e.Mark();
  const HSAKMT_STATUS s =
      ext ? hsaKmtCreateQueueExt(n, HSA_QUEUE_SDMA_BY_ENG_ID, 100, HSA_QUEUE_PRIORITY_NORMAL, 0,
                                 ring, 4096, nullptr, &r)
          : hsaKmtCreateQueue(n, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                              nullptr, &r);
  return e.Ok(s, e.Saw("CREATE_QUEUE") && r.QueueId != 0 && r.Queue_DoorBell != nullptr,
              "CREATE_QUEUE; a queue id and a doorbell");
}

}  // namespace

void AddEventQueueRows(std::vector<Row>* rows) {
  const std::vector<Row> r = {
      // --------------------------------------------------------- events
      {"hsaKmtCreateEvent", Kind::kReal,
       [](Env& e) {
         HsaEventDescriptor d{};
         d.EventType = HSA_EVENTTYPE_SIGNAL;
         d.NodeId = e.Gpu();
         HsaEvent* ev = nullptr;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtCreateEvent(&d, true, false, &ev);
         return e.Ok(s, ev != nullptr && e.Saw("CREATE_EVENT"), "CREATE_EVENT; an event");
       },
       [](Env& e) {
         e.Open();
         Poisoned<HsaEvent*> ev;
         const HSAKMT_STATUS s = hsaKmtCreateEvent(nullptr, true, false, &ev.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, ev.untouched(),
                         "NULL descriptor, event untouched");
       }},
      {"hsaKmtDestroyEvent", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev = e.Event();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtDestroyEvent(ev);
         return e.Ok(s,
                     e.Saw("DESTROY_EVENT") &&
                         hsaKmtQueryEventState(ev) == HSAKMT_STATUS_INVALID_HANDLE,
                     "DESTROY_EVENT; the handle is stale afterwards");
       },
       [](Env& e) { return BadEvent(e, Stale(e), hsaKmtDestroyEvent); }},
      {"hsaKmtSetEvent", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev = e.Event();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetEvent(ev);
         return e.Ok(s, e.Saw("SET_EVENT") && hsaKmtWaitOnEvent(ev, 0) == HSAKMT_STATUS_SUCCESS,
                     "SET_EVENT; a wait completes");
       },
       [](Env& e) {
         e.Open();
         return BadEvent(e, nullptr, hsaKmtSetEvent);
       }},
      {"hsaKmtResetEvent", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev = e.Event(true, true);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtResetEvent(ev);
         return e.Ok(s, e.Saw("RESET_EVENT") && Consumed(ev), "RESET_EVENT; a wait times out");
       },
       [](Env& e) {
         e.Open();
         return BadEvent(e, Forged(), hsaKmtResetEvent);
       }},
      {"hsaKmtQueryEventState", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev = e.Event(false, true);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtQueryEventState(ev);
         // Upstream's query is a stub; it must not consume an auto-reset signal.
         return e.Ok(s, e.Quiet() && hsaKmtWaitOnEvent(ev, 0) == HSAKMT_STATUS_SUCCESS,
                     "no ioctl; the signal is still there");
       },
       [](Env& e) { return BadEvent(e, Stale(e), hsaKmtQueryEventState); }},
      {"hsaKmtWaitOnEvent", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev = e.Event(false, true);
         const HSAKMT_STATUS s = hsaKmtWaitOnEvent(ev, 0);
         return e.Ok(s, Consumed(ev), "the auto-reset signal is consumed");
       },
       [](Env& e) {
         e.Open();
         return BadEvent(e, nullptr, [](HsaEvent* ev) { return hsaKmtWaitOnEvent(ev, 0); });
       }},
      {"hsaKmtWaitOnEvent_Ext", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev = e.Event(false, true);
         uint64_t age = 0;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtWaitOnEvent_Ext(ev, 0, &age);
         return e.Ok(s, e.Saw("WAIT_EVENTS") && Consumed(ev), "WAIT_EVENTS; consumed");
       },
       [](Env& e) {
         HsaEvent* ev = e.Event();
         uint64_t age = 0;
         const HSAKMT_STATUS s = hsaKmtWaitOnEvent_Ext(ev, 0, &age);
         return e.Expect(s, HSAKMT_STATUS_WAIT_TIMEOUT, true, "an unsignaled event, 0 ms");
       }},
      {"hsaKmtWaitOnMultipleEvents", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev[] = {e.Event(false, false), e.Event(false, true)};
         const HSAKMT_STATUS s = hsaKmtWaitOnMultipleEvents(ev, 2, false, 0);
         return e.Ok(s, Consumed(ev[1]), "any: the signaled one completes it");
       },
       [](Env& e) {
         HsaEvent* ev[] = {e.Event()};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtWaitOnMultipleEvents(ev, 0, true, 0);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(), "NumEvents 0, no ioctl");
       }},
      {"hsaKmtWaitOnMultipleEvents_Ext", Kind::kReal,
       [](Env& e) {
         HsaEvent* ev[] = {e.Event(false, true), e.Event(false, true)};
         uint64_t ages[2] = {0, 0};
         const HSAKMT_STATUS s = hsaKmtWaitOnMultipleEvents_Ext(ev, 2, true, 0, ages);
         return e.Ok(s, Consumed(ev[0]) && Consumed(ev[1]), "all: both consumed");
       },
       [](Env& e) {
         HsaEvent* ev[] = {e.Event(), Stale(e)};
         uint64_t ages[2] = {0, 0};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtWaitOnMultipleEvents_Ext(ev, 2, true, 0, ages);
         return e.Expect(s, HSAKMT_STATUS_INVALID_HANDLE, e.Quiet(), "a stale event, no ioctl");
       }},
      {"hsaKmtOpenSMI", Kind::kReal,
       [](Env& e) {
         const uint32_t n = e.Gpu();
         int fd = -1;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtOpenSMI(n, &fd);
         const bool seen = e.Saw("SMI_EVENTS") && fd >= 0;
         if (fd >= 0) close(fd);
         return e.Ok(s, seen, "SMI_EVENTS; a descriptor");
       },
       [](Env& e) {
         const uint32_t cpu = e.Cpu();
         Poisoned<int> fd;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtOpenSMI(cpu, &fd.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, fd.untouched() && e.Quiet(),
                         "CPU node, fd untouched, no ioctl");
       }},

      // --------------------------------------------------------- queues
      {"hsaKmtCreateQueue", Kind::kReal, [](Env& e) { return CreateSdma(e, false); },
       [](Env& e) {
         void* ring = e.Gtt(4096);
         const uint32_t cpu = e.Cpu();
         Poisoned<HsaQueueResource> r;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtCreateQueue(cpu, HSA_QUEUE_SDMA, 100,
                                                   HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, nullptr, &r.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_NODE_UNIT, r.untouched() && e.Quiet(),
                         "CPU node, resource untouched, no ioctl");
       }},
      {"hsaKmtCreateQueueExt", Kind::kReal, [](Env& e) { return CreateSdma(e, true); },
       [](Env& e) {
         void* ring = e.Gtt(4096);
         const uint32_t n = e.Gpu();
         Poisoned<HsaQueueResource> r;
         e.Mark();
         const HSAKMT_STATUS s =
             hsaKmtCreateQueueExt(n, HSA_QUEUE_SDMA_BY_ENG_ID, 100, HSA_QUEUE_PRIORITY_NORMAL,
                                  1000, ring, 4096, nullptr, &r.v);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, r.untouched() && e.Quiet(),
                         "an SDMA engine the node does not have, no ioctl");
       }},
      {"hsaKmtUpdateQueue", Kind::kReal,
       [](Env& e) {
         const HSA_QUEUEID q = e.Sdma();
         void* ring = e.Gtt(8192);
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtUpdateQueue(q, 50, HSA_QUEUE_PRIORITY_NORMAL, ring, 8192, nullptr);
         const auto a = e.board().Args("UPDATE_QUEUE");
         return e.Ok(
             s,
             a.size() == 1 &&
                 hketest::SimBoard::As<hke::kfd::UpdateQueueArgs>(a[0]).queue_percentage == 50,
             "UPDATE_QUEUE with the new percentage");
       },
       [](Env& e) {
         return BadQueue(e, [](HSA_QUEUEID q) {
           return hsaKmtUpdateQueue(q, 100, HSA_QUEUE_PRIORITY_NORMAL, nullptr, 0, nullptr);
         });
       }},
      {"hsaKmtDestroyQueue", Kind::kReal,
       [](Env& e) {
         const HSA_QUEUEID q = e.Sdma();
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtDestroyQueue(q);
         return e.Ok(s, e.Saw("DESTROY_QUEUE") && hsaKmtDestroyQueue(q) == HSAKMT_STATUS_INVALID_HANDLE,
                     "DESTROY_QUEUE; the handle is stale afterwards");
       },
       [](Env& e) { return BadQueue(e, hsaKmtDestroyQueue); }},
      {"hsaKmtSetQueueCUMask", Kind::kReal,
       [](Env& e) {
         const HSA_QUEUEID q = e.Aql();
         HSAuint32 mask[1] = {0xF};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetQueueCUMask(q, 32, mask);
         return e.Ok(s, e.Saw("SET_CU_MASK"), "SET_CU_MASK");
       },
       [](Env& e) {
         const HSA_QUEUEID q = e.Aql();
         HSAuint32 mask[2] = {0xF, 0xF};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtSetQueueCUMask(q, 33, mask);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, e.Quiet(),
                         "a bit count that is not a multiple of 32, no ioctl");
       }},
      {"hsaKmtGetQueueInfo", Kind::kReal,
       [](Env& e) {
         const HSA_QUEUEID q = e.Aql();
         HsaQueueInfo info{};
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtGetQueueInfo(q, &info);
         return e.Ok(s, e.Saw("GET_QUEUE_WAVE_STATE") && info.SaveAreaHeader != nullptr,
                     "GET_QUEUE_WAVE_STATE; the save area header");
       },
       [](Env& e) {
         Poisoned<HsaQueueInfo> info;
         const Outcome o = BadQueue(e, [&info](HSA_QUEUEID q) { return hsaKmtGetQueueInfo(q, &info.v); });
         return info.untouched() ? o : Outcome{false, "the info was written"};
       }},
      {"hsaKmtAllocQueueGWS", Kind::kReal,
       [](Env& e) {
         const HSA_QUEUEID q = e.Aql();
         HSAuint32 first = 99;
         e.Mark();
         const HSAKMT_STATUS s = hsaKmtAllocQueueGWS(q, 1, &first);
         return e.Ok(s, e.Saw("ALLOC_QUEUE_GWS") && first == 0, "ALLOC_QUEUE_GWS; the first GWS");
       },
       [](Env& e) {
         const HSA_QUEUEID q = e.Aql();
         const HSAKMT_STATUS s = hsaKmtAllocQueueGWS(q, 1, nullptr);
         return e.Expect(s, HSAKMT_STATUS_INVALID_PARAMETER, true, "NULL firstGWS");
       }},
  };
  rows->insert(rows->end(), r.begin(), r.end());
}

}  // namespace covtest
