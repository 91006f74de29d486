// Checked arithmetic of lib/core/checked.h: a result that fits is written
// to *out; one that does not returns false and leaves *out as it was.
#include "lib/core/checked.h"

#include <doctest/doctest.h>

#include <cstdint>

namespace {

// Operands read at run time, so the results are computed by the helpers
// rather than folded away.
volatile uint64_t g_operands[] = {40000, 2345, UINT64_MAX, 3, 0x100000000ull};

uint64_t Operand(int i) { return g_operands[i]; }

}  // namespace

TEST_CASE("CheckedAdd, CheckedSub and CheckedMul write the result when it fits") {
  uint64_t out = 7;
  CHECK(hke::CheckedAdd<uint64_t>(Operand(0), Operand(1), &out));
  CHECK(out == 42345u);
  CHECK(hke::CheckedSub<uint64_t>(Operand(0), Operand(1), &out));
  CHECK(out == 37655u);
  CHECK(hke::CheckedMul<uint64_t>(Operand(0), Operand(3), &out));
  CHECK(out == 120000u);
  uint32_t narrow = 7;
  CHECK(hke::CheckedAdd<uint32_t>(static_cast<uint32_t>(Operand(0)),
                                  static_cast<uint32_t>(Operand(1)), &narrow));
  CHECK(narrow == 42345u);
}

TEST_CASE("an overflowing CheckedAdd, CheckedSub or CheckedMul leaves *out unchanged") {
  uint64_t out = 7;
  CHECK_FALSE(hke::CheckedAdd<uint64_t>(Operand(2), Operand(3), &out));
  CHECK(out == 7u);
  CHECK_FALSE(hke::CheckedSub<uint64_t>(Operand(1), Operand(0), &out));
  CHECK(out == 7u);
  CHECK_FALSE(hke::CheckedMul<uint64_t>(Operand(4), Operand(4), &out));
  CHECK(out == 7u);
}
