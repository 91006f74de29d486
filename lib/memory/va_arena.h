// The virtual-address manager of one aperture: which parts of
// [base, base + size) are free, with best-fit allocation, fixed-address
// allocation and coalescing free, all in O(log n) worst case (n = free
// ranges) and without heap memory.
//
// Model. The arena tracks only FREE space, as maximal ranges (disjoint,
// never adjacent, granule-aligned, inside the aperture), each held twice in
// two RangeTrees drawing from one shared RangeNodePool:
//   by address: key (start, size, 0), for neighbours, overlap checks and
//               fixed-address allocation;
//   by size:    key (size, start, 0) (the tree's "start" field holds the
//               size), for best fit.
// Allocated ranges are not recorded here: the caller's object index knows
// them. The arena still refuses a Free that overlaps free space (a double
// free, or a range that was never allocated) with NOT_FOUND.
//
// Sizes passed to Allocate, AllocateAt and Free are rounded up to the
// granule, so the caller may free with the size it asked for. Addresses
// must be granule-aligned. An alignment is absolute (the address is a
// multiple of it), a power of two >= the granule; 0 means the granule.
//
// Best fit, in bounded time. Allocate(size, align) first looks at the
// smallest free ranges of at least `size` bytes (up to kBestFitProbes of
// them, ascending by size then address) and takes the first that can hold
// an aligned block; failing that it takes the smallest range of at least
// size + align - granule bytes, which always can (a granule-aligned start
// needs at most align - granule bytes of padding). So the result is the
// exact best fit whenever align == granule, and otherwise may skip a
// smaller range that only fits after alignment. Inside the chosen range the
// block is placed at the lowest aligned address.
//
// Node cost (nodes taken from the pool; each free range uses 2 nodes):
//   Init                           +2 (one free range)
//   Allocate / AllocateAt          +2 when the block lies strictly inside a
//                                     free range (it splits in two),
//                                   0 when it touches one end of the range,
//                                  -2 when it takes the whole range
//   Free                           +2 when neither neighbour is free,
//                                   0 when one is (it grows),
//                                  -2 when both are (three become one)
//   Reset                          returns every node
// An operation checks pool.available() against its net need before it
// changes anything, so pool exhaustion (RESOURCE_EXHAUSTED) leaves the
// arena and the pool exactly as they were. (It erases before it inserts, so
// the peak use of an operation never exceeds its final use.)
//
// Pool sizing. Free ranges are separated by allocated runs, so an arena
// with k live allocations has at most k + 1 free ranges and uses at most
// 2(k + 1) nodes. A pool shared by arenas with at most k_i live allocations
// each (plus whatever other trees take from it) needs sum 2(k_i + 1) nodes;
// sized that way, Free never fails for lack of nodes (freeing lowers k).
//
// Statuses (every failure leaves the arena, the pool and *out_addr as they
// were):
//   INVALID_ARGUMENT     size 0, misaligned address, bad alignment, bad Init
//   FAILED_PRECONDITION  not initialised / initialised twice
//   OUT_OF_RANGE         the range lies (partly) outside the aperture, or
//                        the request can never fit this aperture
//   ALREADY_EXISTS       AllocateAt: part of the range is not free
//   NOT_FOUND            Free: part of the range is already free
//   UNAVAILABLE          Allocate: no free range can hold the block now
//                        (freeing may help; the API maps it to NO_MEMORY)
//   RESOURCE_EXHAUSTED   the node pool cannot hold the result (see sizing)
//
// Threading: thread-compatible; the arena, its pool and every other tree
// on that pool must be serialised by the caller.
#ifndef HKE_LIB_MEMORY_VA_ARENA_H_
#define HKE_LIB_MEMORY_VA_ARENA_H_

#include <cstdint>

#include "lib/core/status.h"
#include "lib/memory/range_tree.h"

namespace hke::memory {

class VaArena {
 public:
  // Smallest granule accepted by Init.
  static constexpr uint64_t kMinGranule = 4096;
  // Free ranges Allocate examines before falling back to a range that
  // holds any alignment (see the file comment).
  static constexpr uint32_t kBestFitProbes = 4;
  // Nodes one free range takes from the pool.
  static constexpr uint32_t kNodesPerFreeRange = 2;

  VaArena() = default;
  VaArena(const VaArena&) = delete;
  VaArena& operator=(const VaArena&) = delete;

  // Manages [base, base + size), all free. granule: a power of two >=
  // kMinGranule; base and size multiples of it; size > 0; base + size must
  // not overflow. Takes 2 nodes from `pool`, which must outlive the arena.
  Status Init(RangeNodePool* pool, uint64_t base, uint64_t size, uint64_t granule);
  // Returns every node to the pool (O(n)) and makes the arena
  // uninitialised. The destructor does not do this: Reset an arena whose
  // pool lives on after it.
  void Reset();

  // Best-fit allocation of `size` (rounded up to the granule) bytes at a
  // multiple of `align`; writes the address to *out_addr on success.
  Status Allocate(uint64_t size, uint64_t align, uint64_t* out_addr);
  // Allocates exactly [addr, addr + size) (size rounded up).
  Status AllocateAt(uint64_t addr, uint64_t size);
  // Returns [addr, addr + size) (size rounded up) to the free space,
  // merging it with free neighbours.
  Status Free(uint64_t addr, uint64_t size);

  bool initialized() const { return pool_ != nullptr; }
  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }
  uint64_t granule() const { return granule_; }
  uint64_t FreeBytes() const { return free_bytes_; }
  // Size of the largest free range; 0 when nothing is free. O(log n).
  uint64_t LargestFree() const;
  uint32_t FreeRanges() const { return by_addr_.count(); }
  // True when every byte of [addr, addr + size) (not rounded) is free; size
  // 0 or a range outside the aperture is false. O(log n).
  bool IsFree(uint64_t addr, uint64_t size) const;
  // Free ranges in address order: walk with First/Successor, read
  // node(i).start and node(i).size.
  const RangeTree& free_by_address() const { return by_addr_; }

  // Verifies both trees (RangeTree::CheckInvariants) and that the free
  // ranges are nonempty, granule-aligned, inside the aperture, disjoint and
  // not adjacent, that both trees hold the same set, and that FreeBytes()
  // is their sum. OK, or INTERNAL with *reason (may be null) set to a short
  // static description. O(n log n).
  Status CheckInvariants(const char** reason) const;

 private:
  Status CheckRange(uint64_t addr, uint64_t size, uint64_t* out_rounded) const;
  // Erases the free range held by by-address node `node`, from both trees.
  Status EraseFree(uint32_t node);
  Status InsertFree(uint64_t start, uint64_t size);
  // Takes [addr, addr + size) out of the free range at by-address node
  // `node`, which contains it. Checks the pool before changing anything.
  Status Carve(uint32_t node, uint64_t addr, uint64_t size);
  bool FitsAligned(uint32_t size_node, uint64_t size, uint64_t align, uint64_t* out_addr) const;

  RangeNodePool* pool_ = nullptr;
  RangeTree by_addr_;
  RangeTree by_size_;
  uint64_t base_ = 0;
  uint64_t size_ = 0;
  uint64_t granule_ = 0;
  uint64_t free_bytes_ = 0;
};

}  // namespace hke::memory

#endif  // HKE_LIB_MEMORY_VA_ARENA_H_
