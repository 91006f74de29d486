// The memory tests' names for the shared simulated-board fixture.
#ifndef HKE_TESTS_MEMORY_SUPPORT_H_
#define HKE_TESTS_MEMORY_SUPPORT_H_

#include "tests/support/sim_board.h"

namespace memtest {
using hketest::Flags;
using hketest::SimBoard;

// hsaKmtOpenKFD and the topology (which brings the VM up), then an empty trace.
inline void OpenAcquire(SimBoard& b) {
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
}
}  // namespace memtest

#endif  // HKE_TESTS_MEMORY_SUPPORT_H_
