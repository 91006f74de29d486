#include "lib/memory/va_arena.h"

#include "lib/core/checked.h"

namespace hke::memory {

namespace {

// A step that the preceding checks proved cannot fail did fail: a bug.
constexpr Status Internal() { return Status::Api(HKE_STATUS_INTERNAL); }

}  // namespace

Status VaArena::Init(RangeNodePool* pool, uint64_t base, uint64_t size, uint64_t granule) {
  if (pool_ != nullptr) return FailedPrecondition();
  if (pool == nullptr || granule < kMinGranule || !IsPowerOfTwo(granule) || size == 0 ||
      (base & (granule - 1)) != 0 || (size & (granule - 1)) != 0 || size > UINT64_MAX - base) {
    return InvalidArgument();
  }
  if (pool->available() < kNodesPerFreeRange) return Exhausted();
  // Both trees are empty here (constructed empty, or emptied by Reset).
  if (!by_addr_.Init(pool).ok() || !by_size_.Init(pool).ok()) return Internal();
  pool_ = pool;
  base_ = base;
  size_ = size;
  granule_ = granule;
  if (!InsertFree(base, size).ok()) {
    Reset();
    return Internal();
  }
  free_bytes_ = size;
  return Status::Ok();
}

void VaArena::Reset() {
  if (pool_ != nullptr) {
    by_addr_.Clear();
    by_size_.Clear();
  }
  pool_ = nullptr;
  base_ = 0;
  size_ = 0;
  granule_ = 0;
  free_bytes_ = 0;
}

// Validates a caller range: granule-aligned nonzero start and size, inside
// the aperture. Writes the size rounded up to the granule.
Status VaArena::CheckRange(uint64_t addr, uint64_t size, uint64_t* out_rounded) const {
  if (size == 0 || (addr & (granule_ - 1)) != 0) return InvalidArgument();
  uint64_t rounded;
  if (!CheckedAlignUp(size, granule_, &rounded)) return OutOfRange();
  const uint64_t end = base_ + size_;
  if (addr < base_ || addr >= end || rounded > end - addr) return OutOfRange();
  *out_rounded = rounded;
  return Status::Ok();
}

Status VaArena::InsertFree(uint64_t start, uint64_t size) {
  HKE_RETURN_IF_ERROR(by_addr_.Insert(start, size, 0, nullptr));
  return by_size_.Insert(size, start, 0, nullptr);
}

Status VaArena::EraseFree(uint32_t node) {
  const RangeNode& n = by_addr_.node(node);
  const uint32_t twin = by_size_.FindExact(n.size, n.start, 0);
  if (twin == kNil) return Internal();
  HKE_RETURN_IF_ERROR(by_size_.Erase(twin));
  return by_addr_.Erase(node);
}

// Whether the free range at by-size node `size_node` holds `size` bytes at
// a multiple of `align`; the lowest such address goes to *out_addr.
bool VaArena::FitsAligned(uint32_t size_node, uint64_t size, uint64_t align,
                          uint64_t* out_addr) const {
  const RangeNode& n = by_size_.node(size_node);
  const uint64_t r_start = n.size;  // by-size keys are (size, start)
  const uint64_t r_size = n.start;
  uint64_t a;
  if (!CheckedAlignUp(r_start, align, &a)) return false;
  const uint64_t pad = a - r_start;
  if (pad > r_size || size > r_size - pad) return false;
  *out_addr = a;
  return true;
}

Status VaArena::Carve(uint32_t node, uint64_t addr, uint64_t size) {
  const RangeNode& n = by_addr_.node(node);
  const uint64_t r_start = n.start;
  const uint64_t r_end = n.start + n.size;
  const uint64_t left = addr - r_start;
  const uint64_t right = r_end - (addr + size);
  // Net cost: erase one range, insert up to two.
  if (left != 0 && right != 0 && pool_->available() < kNodesPerFreeRange) return Exhausted();
  if (!EraseFree(node).ok()) return Internal();
  if (left != 0 && !InsertFree(r_start, left).ok()) return Internal();
  if (right != 0 && !InsertFree(addr + size, right).ok()) return Internal();
  free_bytes_ -= size;
  return Status::Ok();
}

Status VaArena::Allocate(uint64_t size, uint64_t align, uint64_t* out_addr) {
  if (pool_ == nullptr) return FailedPrecondition();
  if (out_addr == nullptr || size == 0) return InvalidArgument();
  if (align == 0) align = granule_;
  if (!IsPowerOfTwo(align) || align < granule_) return InvalidArgument();
  uint64_t rounded;
  if (!CheckedAlignUp(size, granule_, &rounded) || rounded > size_) return OutOfRange();
  // Requests no state of this aperture could satisfy.
  const uint64_t end = base_ + size_;
  uint64_t first_aligned;
  if (!CheckedAlignUp(base_, align, &first_aligned) || first_aligned >= end ||
      rounded > end - first_aligned) {
    return OutOfRange();
  }

  uint64_t addr = 0;
  uint32_t pick = kNil;
  uint32_t cand = by_size_.LowerBound(rounded, 0);
  for (uint32_t probe = 0; probe < kBestFitProbes && cand != kNil; ++probe) {
    if (FitsAligned(cand, rounded, align, &addr)) {
      pick = cand;
      break;
    }
    cand = by_size_.Successor(cand);
  }
  if (pick == kNil) {
    uint64_t slack;
    if (!CheckedAdd(rounded, align - granule_, &slack)) return Status::Api(HKE_STATUS_UNAVAILABLE);
    cand = by_size_.LowerBound(slack, 0);
    if (cand == kNil) return Status::Api(HKE_STATUS_UNAVAILABLE);
    if (!FitsAligned(cand, rounded, align, &addr)) return Internal();
    pick = cand;
  }
  const RangeNode& chosen = by_size_.node(pick);
  const uint32_t addr_node = by_addr_.FindExact(chosen.size, chosen.start, 0);
  if (addr_node == kNil) return Internal();
  HKE_RETURN_IF_ERROR(Carve(addr_node, addr, rounded));
  *out_addr = addr;
  return Status::Ok();
}

Status VaArena::AllocateAt(uint64_t addr, uint64_t size) {
  if (pool_ == nullptr) return FailedPrecondition();
  uint64_t rounded;
  HKE_RETURN_IF_ERROR(CheckRange(addr, size, &rounded));
  const uint32_t p = by_addr_.FindAtOrBelow(addr);
  if (p == kNil) return AlreadyExists();
  const RangeNode& n = by_addr_.node(p);
  if (n.start + n.size < addr + rounded) return AlreadyExists();
  return Carve(p, addr, rounded);
}

Status VaArena::Free(uint64_t addr, uint64_t size) {
  if (pool_ == nullptr) return FailedPrecondition();
  uint64_t rounded;
  HKE_RETURN_IF_ERROR(CheckRange(addr, size, &rounded));
  const uint64_t end = addr + rounded;

  // Free ranges are disjoint and sorted, so the last one starting before
  // `end` has the largest end among those that could overlap.
  const uint32_t p = by_addr_.FindAtOrBelow(end - 1);
  uint64_t p_end = 0;
  if (p != kNil) {
    p_end = by_addr_.node(p).start + by_addr_.node(p).size;
    if (p_end > addr) return NotFound();
  }
  const uint32_t left = (p != kNil && p_end == addr) ? p : kNil;
  const uint32_t next = p != kNil ? by_addr_.Successor(p) : by_addr_.First();
  const uint32_t right = (next != kNil && by_addr_.node(next).start == end) ? next : kNil;

  const uint64_t new_start = left != kNil ? by_addr_.node(left).start : addr;
  const uint64_t new_end = right != kNil ? by_addr_.node(right).start + by_addr_.node(right).size : end;
  if (left == kNil && right == kNil && pool_->available() < kNodesPerFreeRange) return Exhausted();
  if (left != kNil && !EraseFree(left).ok()) return Internal();
  if (right != kNil && !EraseFree(right).ok()) return Internal();
  if (!InsertFree(new_start, new_end - new_start).ok()) return Internal();
  free_bytes_ += rounded;
  return Status::Ok();
}

uint64_t VaArena::LargestFree() const {
  const uint32_t n = by_size_.Last();
  return n == kNil ? 0 : by_size_.node(n).start;
}

bool VaArena::IsFree(uint64_t addr, uint64_t size) const {
  if (pool_ == nullptr || size == 0 || size > UINT64_MAX - addr) return false;
  const uint32_t p = by_addr_.FindAtOrBelow(addr);
  if (p == kNil) return false;
  const RangeNode& n = by_addr_.node(p);
  return n.start + n.size >= addr + size;
}

Status VaArena::CheckInvariants(const char** reason) const {
  const char* why = nullptr;
  auto check = [&]() -> bool {
    if (pool_ == nullptr) {
      if (!by_addr_.empty() || !by_size_.empty()) {
        why = "uninitialised arena holds free ranges";
        return false;
      }
      return true;
    }
    if (!by_addr_.CheckInvariants(&why).ok() || !by_size_.CheckInvariants(&why).ok()) return false;
    if (by_addr_.pool() != pool_ || by_size_.pool() != pool_) {
      why = "a tree uses another pool";
      return false;
    }
    if (by_addr_.count() != by_size_.count()) {
      why = "the two trees hold different numbers of ranges";
      return false;
    }
    const uint64_t end = base_ + size_;
    uint64_t sum = 0;
    uint64_t prev_end = 0;
    bool have_prev = false;
    for (uint32_t i = by_addr_.First(); i != kNil; i = by_addr_.Successor(i)) {
      const RangeNode& n = by_addr_.node(i);
      if (n.size == 0 || n.value != 0) {
        why = "a free range is empty or carries a value";
        return false;
      }
      if (((n.start | n.size) & (granule_ - 1)) != 0) {
        why = "a free range is not granule-aligned";
        return false;
      }
      if (n.start < base_ || n.start >= end || n.size > end - n.start) {
        why = "a free range lies outside the aperture";
        return false;
      }
      if (have_prev && n.start <= prev_end) {
        why = have_prev && n.start == prev_end ? "adjacent free ranges were not coalesced"
                                               : "free ranges overlap";
        return false;
      }
      if (by_size_.FindExact(n.size, n.start, 0) == kNil) {
        why = "a free range is missing from the by-size tree";
        return false;
      }
      sum += n.size;  // ranges are disjoint inside the aperture: no overflow
      prev_end = n.start + n.size;
      have_prev = true;
    }
    if (sum != free_bytes_) {
      why = "the free-bytes counter differs from the sum of free ranges";
      return false;
    }
    return true;
  };
  if (check()) return Status::Ok();
  if (reason != nullptr) *reason = why;
  return Internal();
}

}  // namespace hke::memory
