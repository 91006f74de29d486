// Fault sweep: hsaKmtCreateEvent (the first one of an open brings the
// dGPU signal page: ALLOC, mmap, MAP, CREATE_EVENT), Set, Wait, Reset,
// Query, Destroy.
#include <cstring>

#include "doctest/doctest.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

class Events : public sweep::Body {
 public:
  void Act(Run& r) override {
    HsaEventDescriptor d;
    std::memset(&d, 0, sizeof(d));
    d.EventType = HSA_EVENTTYPE_SIGNAL;
    HsaEvent* e = nullptr;
    if (r.Step("hsaKmtCreateEvent", [&] { return hsaKmtCreateEvent(&d, true, false, &e); },
               {{&e, sizeof(e)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    if (r.Step("hsaKmtSetEvent", [&] { return hsaKmtSetEvent(e); }) == HSAKMT_STATUS_SUCCESS) {
      r.Step("hsaKmtWaitOnEvent", [&] { return hsaKmtWaitOnEvent(e, 0); });
    }
    r.Step("hsaKmtResetEvent", [&] { return hsaKmtResetEvent(e); });
    r.Step("hsaKmtQueryEventState", [&] { return hsaKmtQueryEventState(e); });
    r.MustRecover("hsaKmtDestroyEvent", [&] { return hsaKmtDestroyEvent(e); });
  }
};

}  // namespace

TEST_CASE(
    "fault sweep: CreateEvent (with the dGPU signal page)/Set/Wait/Reset/Query/DestroyEvent fail "
    "cleanly at every platform call") {
  sweep::Scenario s;
  s.name = "events";
  s.make = [] { return std::make_unique<Events>(); };
  sweep::Report(s, sweep::Sweep(s));
}
