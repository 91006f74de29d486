// Fixed-capacity interval trees for the memory subsystem: a node pool and an
// AVL tree of [start, start+size) ranges whose nodes come from that pool.
//
// Storage. `RangeNodePool` is the logic over caller storage (a RangeNode
// array and its capacity); `FixedRangeNodePool<N>` owns an array of N nodes.
// Several `RangeTree`s may draw from one pool (the VA free-space index of
// every arena, by address and by size, and the objects' user-range and
// owned-range indexes), so one capacity bounds them together. Nothing here
// allocates from the heap.
//
// Which tree for which job: a RangeTree where ranges may overlap or repeat
// a start (registrations), or where the key is not an address (the
// by-size multimap of free space: the "start" field holds the size); the
// B+tree of range_btree.h (disjoint ranges only, fewer cache misses) for
// the object address index and the handle index. lib/README.md lists every
// index of the memory subsystem. The lookups share one vocabulary:
// FindExact, FindContaining and FindAtOrBelow mean the same in both.
//
// Lazy first touch. Constructing a pool writes only the pool object itself,
// never the node array: free nodes are handed out from a bump index
// (`high_water`) first and from an intrusive free stack (threaded through
// released nodes) after that. A pool in multi-megabyte zero-initialised
// static storage therefore costs no page until its nodes are used.
//
// Keys. A tree orders its nodes by (start, size, value) lexicographically.
// Keys are unique; starts may repeat (overlapping userptr registrations of
// one address with different sizes, or one range registered under several
// values). Every node also keeps `max_end`, the largest end (start + size;
// a size-0 node ends at its start) in its subtree, which answers "which
// range contains this address" among overlapping ranges in O(log n).
// start + size must not overflow 64 bits.
//
// Cost. Pool Allocate/Release: O(1). Tree Insert, Erase, FindExact,
// LowerBound, FindAtOrBelow, FindContaining,
// FindNearestContaining, First, Last: O(log n) worst case (the AVL height is below 1.45 log2(n + 2)).
// Predecessor/Successor: O(log n) worst case, O(1) amortised over a walk.
// Clear and CheckInvariants: O(n).
//
// Node indices are stable: a node keeps its index from Insert until Erase
// (rebalancing relinks nodes, it never moves keys between them), so callers
// may store the index as a handle.
//
// Threading: thread-compatible. A pool and every tree that uses it must be
// serialised by the caller (one lock around the memory subsystem).
#ifndef HKE_LIB_MEMORY_RANGE_TREE_H_
#define HKE_LIB_MEMORY_RANGE_TREE_H_

#include <cstddef>
#include <cstdint>

#include "lib/core/status.h"

namespace hke::memory {

// The "no node" index used for links and for lookups that find nothing.
inline constexpr uint32_t kNil = 0xffffffffu;

// One tree node. Index links keep it at 48 bytes on every target.
struct RangeNode {
  uint64_t start;    // first address of the range (key, first part)
  uint64_t size;     // bytes; 0 is allowed (key, second part)
  uint64_t max_end;  // max(start + size) over this node's subtree
  uint32_t left;     // smaller keys, or kNil
  uint32_t right;    // larger keys, or kNil
  uint32_t parent;   // kNil at the root; a free node's next free index
  uint32_t value;    // caller's payload (key, third part)
  int8_t height;     // 1 for a leaf; kFreeHeight while in the pool's free stack
};
static_assert(sizeof(RangeNode) <= 48, "RangeNode must stay within 48 bytes");

// The height a released node carries, so a second Release is caught.
inline constexpr int8_t kFreeHeight = -1;

// The node allocator shared by several trees. Logic over caller storage;
// the storage must outlive the pool and every tree using it.
class RangeNodePool {
 public:
  // Does not touch `nodes` (see the file comment). capacity must be < kNil.
  RangeNodePool(RangeNode* nodes, uint32_t capacity)
      : nodes_(nodes), capacity_(capacity < kNil ? capacity : kNil - 1) {}
  RangeNodePool(const RangeNodePool&) = delete;
  RangeNodePool& operator=(const RangeNodePool&) = delete;

  // Hands out one node (its height set to 0, every other field
  // unspecified). RESOURCE_EXHAUSTED when every node is in use; *out is
  // written only on success.
  Status Allocate(uint32_t* out);
  // Returns a node to the pool. INVALID_HANDLE (and no change) for an index
  // that was never handed out or is already free.
  Status Release(uint32_t index);

  uint32_t used() const { return used_; }
  uint32_t capacity() const { return capacity_; }
  uint32_t available() const { return capacity_ - used_; }
  // Nodes ever touched: indices [0, high_water) may have been written.
  uint32_t high_water() const { return high_water_; }
  // True when `index` is handed out (not free, not beyond high_water).
  bool IsAllocated(uint32_t index) const {
    return index < high_water_ && nodes_[index].height != kFreeHeight;
  }

  RangeNode& at(uint32_t index) { return nodes_[index]; }
  const RangeNode& at(uint32_t index) const { return nodes_[index]; }

 private:
  RangeNode* nodes_;
  uint32_t capacity_;
  uint32_t high_water_ = 0;  // next never-used index
  uint32_t free_head_ = kNil;  // top of the free stack (linked by `parent`)
  uint32_t used_ = 0;
};

// A pool that owns storage for N nodes. Placed in static storage it is
// zero-initialised by the loader and first touched node by node.
template <uint32_t N>
class FixedRangeNodePool : public RangeNodePool {
  static_assert(N > 0 && N < kNil, "capacity must be in 1..0xfffffffe");

 public:
  FixedRangeNodePool() : RangeNodePool(storage_, N) {}

 private:
  RangeNode storage_[N];
};

// An AVL tree of ranges over a shared pool (see the file comment). A tree
// does not release its nodes on destruction: call Clear() first when the
// pool outlives the tree.
class RangeTree {
 public:
  RangeTree() = default;
  explicit RangeTree(RangeNodePool* pool) : pool_(pool) {}
  RangeTree(const RangeTree&) = delete;
  RangeTree& operator=(const RangeTree&) = delete;

  // Attaches the tree to `pool`. FAILED_PRECONDITION when the tree still
  // holds nodes; INVALID_ARGUMENT for a null pool.
  Status Init(RangeNodePool* pool);

  // Adds the key (start, size, value) and writes the new node's index to
  // *out_node (may be null). INVALID_ARGUMENT when start + size overflows
  // or the tree has no pool, ALREADY_EXISTS for a key already present,
  // RESOURCE_EXHAUSTED when the pool is empty. On failure nothing changes.
  Status Insert(uint64_t start, uint64_t size, uint32_t value, uint32_t* out_node);
  // Removes one node and returns it to the pool. INVALID_HANDLE (and no
  // change) when `node_index` is not a node of this tree.
  Status Erase(uint32_t node_index);
  // Returns every node to the pool and empties the tree; O(n).
  void Clear();

  // Lookups return a node index or kNil.
  uint32_t FindExact(uint64_t start, uint64_t size, uint32_t value) const;
  // The first node whose key is >= (start, size, 0).
  uint32_t LowerBound(uint64_t start, uint64_t size) const;
  // The last node whose start is <= addr. For a set of disjoint ranges this
  // is the only range that can contain `addr`.
  uint32_t FindAtOrBelow(uint64_t addr) const;
  // Among possibly overlapping ranges: the node with the smallest key whose
  // range contains `addr` (start <= addr < start + size; a size-0 node
  // contains only its start).
  uint32_t FindContaining(uint64_t addr) const;
  // The innermost range around `addr`, as upstream's userptr lookup picks
  // it: the smallest key starting at `addr` if there is one, else among
  // the nodes starting before `addr` that contain it the greatest key (the
  // nearest start; of equal starts the largest size).
  uint32_t FindNearestContaining(uint64_t addr) const;
  uint32_t First() const;
  uint32_t Last() const;
  uint32_t Successor(uint32_t node_index) const;
  uint32_t Predecessor(uint32_t node_index) const;

  uint32_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  uint32_t root() const { return root_; }
  const RangeNodePool* pool() const { return pool_; }
  // The node at `node_index`, which must be a node of this tree.
  const RangeNode& node(uint32_t node_index) const { return pool_->at(node_index); }

  // Verifies BST order and key uniqueness, parent links, stored heights,
  // AVL balance, max_end, the node count and that every node is allocated
  // in the pool. Returns OK, or INTERNAL with *reason (may be null) set to
  // a short static description of the first violation. O(n), no recursion.
  Status CheckInvariants(const char** reason) const;

  // Deepest tree a valid AVL tree of at most 2^32 nodes can have.
  static constexpr uint32_t kMaxHeight = 48;

 private:
  RangeNode& N(uint32_t i) { return pool_->at(i); }
  const RangeNode& N(uint32_t i) const { return pool_->at(i); }
  int Height(uint32_t i) const { return i == kNil ? 0 : N(i).height; }
  void Update(uint32_t i);
  void ReplaceChild(uint32_t parent, uint32_t old_child, uint32_t new_child);
  uint32_t Rotate(uint32_t x, bool left);  // left rotation when `left`, else right
  uint32_t Neighbour(uint32_t i, bool next) const;  // Successor when `next`, else Predecessor
  // The last node on one root-to-leaf path for which take(node) holds; the
  // path goes left after a taken node when `left_after_take`, else right
  // (and the other way after a node not taken). O(log n).
  template <typename Take>
  uint32_t LastTaken(Take take, bool left_after_take) const;
  void RebalanceFrom(uint32_t i);
  uint32_t MinOf(uint32_t i) const;
  uint32_t MaxOf(uint32_t i) const;

  RangeNodePool* pool_ = nullptr;
  uint32_t root_ = kNil;
  uint32_t count_ = 0;
};

// End of a range for max_end: start + size, saturated at UINT64_MAX (Insert
// refuses overflowing ranges, so saturation only guards corrupted nodes).
inline uint64_t RangeEnd(uint64_t start, uint64_t size) {
  return size > UINT64_MAX - start ? UINT64_MAX : start + size;
}

}  // namespace hke::memory

#endif  // HKE_LIB_MEMORY_RANGE_TREE_H_
