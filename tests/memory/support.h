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

// Opens the KFD and acquires the topology (bringing the VM up), then clears
// the board's trace so a test sees only its own calls.
struct Open {
  explicit Open(SimBoard& b) {
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    nodes = sys.NumNodes;
    b.ClearTrace();
  }
  uint32_t nodes = 0;
};
}  // namespace memtest

#endif  // HKE_TESTS_MEMORY_SUPPORT_H_
