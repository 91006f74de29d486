// Helpers shared by the encoder/decoder translation units. Internal to
// lib/kfd.
#ifndef HKE_LIB_KFD_ENCODE_INTERNAL_H_
#define HKE_LIB_KFD_ENCODE_INTERNAL_H_

#include <cstdint>

#include "lib/core/checked.h"

namespace hke::kfd::internal {

// `align` is a power of two.
constexpr bool IsAligned(uint64_t v, uint64_t align) { return (v & (align - 1)) == 0; }

// True when the exclusive end start + size is representable in 64 bits.
constexpr bool RangeFits(uint64_t start, uint64_t size) { return size <= UINT64_MAX - start; }

// True when [start, start + count * elem) is computable without wrapping.
inline bool ArrayFits(uint64_t start, uint64_t count, uint64_t elem) {
  uint64_t bytes = 0;
  if (!CheckedMul(count, elem, &bytes)) return false;
  return RangeFits(start, bytes);
}

constexpr int PopCount(uint32_t v) { return __builtin_popcount(v); }

}  // namespace hke::kfd::internal

#endif  // HKE_LIB_KFD_ENCODE_INTERNAL_H_
