// kfdsim core contracts that fuzz/kfdsim_ioctl_fuzz.cc found broken; each
// test reproduces the fuzzer's input in plain ioctl form.
#include <doctest/doctest.h>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

alignas(8) uint64_t g_rptr, g_wptr;

TEST_CASE("sim CREATE_QUEUE refuses an SDMA_BY_ENG_ID engine id whose +1 wraps to 0") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::CreateQueueArgs q{};
  q.ring_base_address = 0x7f100000ull;  // inside a 32-bit address space too
  q.ring_size = 0x1000;
  q.gpu_id = kGpuA;  // 2 SDMA + 3 XGMI engines: ids 0..4
  q.queue_type = k::kQueueTypeSdmaByEngId;
  q.queue_percentage = 100;
  q.read_pointer_address = reinterpret_cast<uintptr_t>(&g_rptr);
  q.write_pointer_address = reinterpret_cast<uintptr_t>(&g_wptr);
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
