// The memory tests' names for the shared simulated-board fixture.
#ifndef HKE_TESTS_MEMORY_SUPPORT_H_
#define HKE_TESTS_MEMORY_SUPPORT_H_

#include "tests/support/sim_board.h"

namespace memtest {
using hketest::Flags;
using hketest::SimBoard;
}  // namespace memtest

#endif  // HKE_TESTS_MEMORY_SUPPORT_H_
