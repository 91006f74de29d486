// kfdsim core contracts that fuzz/kfdsim_ioctl_fuzz.cc found broken; each
// test reproduces the fuzzer's input in plain ioctl form.
#include <doctest/doctest.h>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

TEST_CASE("sim CREATE_QUEUE refuses an SDMA_BY_ENG_ID engine id whose +1 wraps to 0") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  // GPU A: 2 SDMA + 3 XGMI engines, ids 0..4.
  k::CreateQueueArgs q = s.QueueArgs(kGpuA, k::kQueueTypeSdmaByEngId, 0x1000);
  q.sdma_engine_id = 0xFFFFFFFFu;
  CHECK(s.Io(k::kIocCreateQueue, &q) == EINVAL);
  CHECK(s.sim->QueueCount() == 0);
  q.sdma_engine_id = 0x80000000u;
  CHECK(s.Io(k::kIocCreateQueue, &q) == EINVAL);
  q.sdma_engine_id = 4;
  CHECK(s.Io(k::kIocCreateQueue, &q) == 0);
  CHECK(s.sim->QueueCount() == 1);
}

}  // namespace
