// A fixed-capacity B+tree index of DISJOINT address ranges, laid out for few
// cache misses per lookup: the object address index (va_index, behind
// QueryPointerInfo and every call by address) and the handle index. Ranges
// that overlap, or keys that are not addresses, go to range_tree.h's AVL
// RangeTree; the lookups (FindExact, FindContaining, FindAtOrBelow) mean
// the same in both.
//
// Entries. Each entry is (start, size, value); `start` is the key and is
// unique. A range covers [start, start + size); a size-0 entry covers only
// its start, so for overlap and containment every entry covers
// max(size, 1) addresses from its start. Covered sets never overlap: Insert
// of a range that shares an address with an entry (or has the same start)
// fails with ALREADY_EXISTS. start + size must not exceed UINT64_MAX.
//
// Shape. Every entry lives in a leaf; leaves hold 16..31 entries (the root
// leaf 1..31), internal nodes 16..32 children (the root 2..32), and every
// leaf is at the same depth. An internal node's separator i is exactly the
// smallest start in child i + 1 ("tight" separators, kept exact by Erase
// and rebalancing), so the leaf a descent reaches always holds the entry
// with the largest start <= the address searched, and the nearest separator
// to the right of the descent is the start of the next entry: neither a
// lookup nor the overlap check of Insert ever visits a second leaf. There
// are no sibling links. Insert into a full leaf first moves entries to a
// sibling with room (through the parent) and splits only when neither has
// any, so ascending or descending runs of starts (how an address arena
// hands out ranges) fill leaves to 31 rather than 16.
//
// Node layout (RangeBTreeNode, 640 bytes = 10 cache lines): the 31 keys
// (starts in a leaf, separators in an internal node) are contiguous and
// padded with UINT64_MAX past the count; sizes and the 32-slot
// value/child array follow in arrays of their own, so an internal node's
// sizes are never read. A node search is branch-free: keys 7, 15 and 23
// pick one 8-key group (one cache line when the array is 64-byte aligned)
// and 7 compares in it finish the count of keys <= the address. Lookups
// prefetch the lines of a node they will read as soon as they reach it
// (keys and child slots of an internal node, the whole of a leaf), so its
// misses overlap. At 10^5 entries a lookup visits 4 nodes, of which the
// top two (at most 33 nodes) are usually still cached.
//
// Cost. Insert, Erase, FindExact, FindContaining, FindAtOrBelow: O(log n)
// node visits in the worst case (Erase borrows from or merges with a
// sibling whenever a node falls below half full, so the depth never exceeds
// the bound below; Insert's move to a sibling copies at most 31 entries).
// Clear: O(1). CheckInvariants: O(n). No recursion anywhere.
//
// Storage. `RangeBTree` is the logic over caller storage: an array of
// `capacity` nodes that must outlive the tree and is used by this tree
// alone. `FixedRangeBTree<N>` owns an array of N nodes. Nodes are handed
// out from a free stack of released nodes first, then from a bump index
// (`high_water`): constructing a tree writes only the tree object, never the
// node array, and a node is first written when it is handed out, so a
// multi-megabyte array in zero-initialised static storage costs no page
// until the tree grows into it. Nothing here allocates from the heap.
//
// Pool sizing. A tree of n entries uses at most RangeBTreeNodesFor(n)
// nodes: at most max(1, n / 16) leaves, and above every level of c >= 2
// nodes a level of at most max(1, c / 16) nodes. Examples:
// RangeBTreeNodesFor(1024) = 69 (44,160 bytes), RangeBTreeNodesFor(131072)
// = 8,739 (5,592,960 bytes). With capacity >= RangeBTreeNodesFor(m), Insert
// never fails with RESOURCE_EXHAUSTED while fewer than m entries are
// present. Insert computes the exact number of nodes its split path needs
// (the run of full nodes from the leaf up, plus one for a new root) before
// it changes anything, and fails with RESOURCE_EXHAUSTED if fewer are free;
// Erase never needs a node.
//
// Threading: thread-compatible. Lookups are const and may run concurrently
// with each other; anything that changes the tree must be serialised with
// every other call by the caller (the memory subsystem's lock).
#ifndef HKE_LIB_MEMORY_RANGE_BTREE_H_
#define HKE_LIB_MEMORY_RANGE_BTREE_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#include "lib/core/status.h"

namespace hke::memory {

// Addresses an entry of `size` bytes covers from its start: a size-0 entry
// covers its start alone.
constexpr uint64_t RangeExtent(uint64_t size) { return size == 0 ? 1 : size; }

// One node of a RangeBTree (leaf or internal), 640 bytes on every target.
// Trivial on purpose: an array of nodes is never initialised by its
// constructor. Fields past `count` are unspecified except the keys, which
// are UINT64_MAX there.
struct RangeBTreeNode {
  static constexpr uint32_t kKeys = 31;   // entries of a leaf, separators of an internal node
  static constexpr uint32_t kSlots = 32;  // values of a leaf, children of an internal node

  uint64_t keys[kKeys];   // leaf: entry starts; internal: key i = min start of child i + 1
  uint32_t count;         // leaf: entries; internal: children
  uint32_t tag;           // kTagLeaf, kTagInternal or kTagFree
  uint64_t sizes[kKeys];  // leaf: entry sizes; unused in an internal node
  uint32_t next_free;     // free node: the next free node's index (or kNoNode)
  uint32_t reserved;      // keeps `slots` 8-byte aligned; never read
  uint32_t slots[kSlots]; // leaf: entry values; internal: child node indices

  static constexpr uint32_t kTagLeaf = 0x4c656166u;      // "Leaf"
  static constexpr uint32_t kTagInternal = 0x496e6e72u;  // "Innr"
  static constexpr uint32_t kTagFree = 0x46726565u;      // "Free"
};
static_assert(sizeof(RangeBTreeNode) == 640, "RangeBTreeNode must be 10 cache lines");
static_assert(std::is_trivially_default_constructible<RangeBTreeNode>::value,
              "constructing a node array must not write it (lazy first touch)");

// Shape limits (see the file comment).
inline constexpr uint32_t kRangeBTreeLeafMax = RangeBTreeNode::kKeys;       // 31
inline constexpr uint32_t kRangeBTreeLeafMin = 16;
inline constexpr uint32_t kRangeBTreeFanoutMax = RangeBTreeNode::kSlots;    // 32
inline constexpr uint32_t kRangeBTreeFanoutMin = 16;

// The most nodes a tree of `max_entries` entries can use (the sizing rule in
// the file comment). Monotonic in max_entries; 1 for 0 entries.
constexpr uint32_t RangeBTreeNodesFor(uint32_t max_entries) {
  uint64_t level = max_entries / kRangeBTreeLeafMin;
  if (level < 1) level = 1;
  uint64_t total = level;
  while (level > 1) {
    level /= kRangeBTreeFanoutMin;
    if (level < 1) level = 1;
    total += level;
  }
  return static_cast<uint32_t>(total);
}

class RangeBTree {
 public:
  using Node = RangeBTreeNode;

  // One entry, as lookups report it.
  struct Entry {
    uint64_t start;  // first covered address (the key)
    uint64_t size;   // bytes; 0 covers only `start`
    uint32_t value;  // the caller's payload (an object slot)
  };

  // The "no node" index (empty root, end of the free stack).
  static constexpr uint32_t kNoNode = 0xffffffffu;
  // Deepest tree (levels, leaves included) of at most 2^32 - 1 entries:
  // 2 * 16^(depth - 1) <= entries.
  static constexpr uint32_t kMaxDepth = 8;

  // Does not touch `nodes` (see the file comment). `nodes` is used by this
  // tree alone and must outlive it; capacities >= kNoNode are clamped.
  RangeBTree(Node* nodes, uint32_t capacity)
      : nodes_(nodes), capacity_(capacity < kNoNode ? capacity : kNoNode - 1) {}
  RangeBTree(const RangeBTree&) = delete;
  RangeBTree& operator=(const RangeBTree&) = delete;

  // Adds the entry (start, size, value). INVALID_ARGUMENT when start + size
  // overflows 64 bits; ALREADY_EXISTS when an entry starts at `start` or
  // covers an address the new range covers; RESOURCE_EXHAUSTED when the
  // free nodes do not cover the split path (or count() is UINT32_MAX). On
  // failure nothing changes (neither the tree nor any node).
  Status Insert(uint64_t start, uint64_t size, uint32_t value);
  // Removes the entry that starts at `start`. NOT_FOUND (and no change)
  // when no entry starts there, even if one covers `start`.
  Status Erase(uint64_t start);
  // Forgets every entry and returns every node to the pool in O(1) without
  // reading or writing a node (the bump index restarts at 0).
  void Clear();

  // The entry starting at `start`. Writes *out (may be null) and returns
  // true when there is one; returns false and leaves *out alone otherwise.
  bool FindExact(uint64_t start, Entry* out) const;
  // The entry covering `addr` (start <= addr < start + size, or
  // addr == start for a size-0 entry); there is at most one. Same output
  // rule as FindExact.
  bool FindContaining(uint64_t addr, Entry* out) const;
  // The entry with the largest start <= addr, whether or not it covers
  // addr: writes its start and value and returns true, or returns false
  // (outputs untouched) when every start is above addr. It never reads a
  // size, so a caller that keeps each entry's size next to its value (the
  // memory object table) checks containment there and the leaves' size
  // lines stay out of its working set: a lookup then touches the keys and
  // value lines of one leaf only (6 of its 10 cache lines).
  bool FindAtOrBelow(uint64_t addr, uint64_t* out_start, uint32_t* out_value) const;

  uint32_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Levels, leaves included; 0 when empty.
  uint32_t depth() const { return depth_; }
  uint32_t capacity() const { return capacity_; }
  uint32_t nodes_used() const { return used_; }
  uint32_t nodes_available() const { return capacity_ - used_; }
  // Nodes ever handed out since construction or the last Clear: indices
  // [0, high_water) may have been written, the rest never were.
  uint32_t high_water() const { return high_water_; }
  // The node array the tree was built over (for diagnostics and tests).
  const Node* node_storage() const { return nodes_; }

  // Verifies, over every reachable node and the free stack: node indices
  // below high_water and tags matching the level, uniform leaf depth within
  // kMaxDepth, fill bounds (root and non-root), keys strictly increasing
  // within a node and UINT64_MAX past the count, separators tight and
  // every key inside its subtree's bounds, no start + size overflow, no two
  // entries covering one address, entry count = count(), reachable nodes =
  // nodes_used(), and a free stack of exactly high_water - used free nodes.
  // Returns OK, or INTERNAL with *reason (may be null) set to a short
  // static description of the first violation. O(n), no recursion.
  Status CheckInvariants(const char** reason) const;

 private:
  struct Step {
    uint32_t node;   // internal node on the path
    uint32_t child;  // index of the child the path continues into
  };

  uint32_t LeafFor(uint64_t x) const;  // the leaf a lookup of x reaches (tree not empty)
  // The leaf a lookup of x reaches, prefetched (its sizes too when
  // `sizes`), and in *below the count of its keys <= x; nullptr when empty.
  const Node* LeafAtOrBelow(uint64_t x, bool sizes, uint32_t* below) const;
  bool ShiftToSibling(const Step& step, uint32_t i);  // Insert into a full leaf
  uint32_t Allocate(uint32_t tag);  // caller has checked nodes_available()
  void Release(uint32_t index);
  void BorrowFromLeft(Node& parent, uint32_t ci, bool leaf);
  void BorrowFromRight(Node& parent, uint32_t ci, bool leaf);
  void MergeChildren(Node& parent, uint32_t left_ci, bool leaf);

  Node* nodes_;
  uint32_t capacity_;
  uint32_t high_water_ = 0;      // next never-used node index
  uint32_t free_head_ = kNoNode; // top of the free stack (linked by next_free)
  uint32_t used_ = 0;
  uint32_t root_ = kNoNode;
  uint32_t depth_ = 0;
  uint32_t count_ = 0;
};

// A tree that owns storage for N nodes (size it with RangeBTreeNodesFor).
// In static storage the array is zero-initialised by the loader and first
// touched node by node as the tree grows. The nodes start on a 64-byte
// boundary inside the object (the search reads one 8-key group per cache
// line only when they do) without raising the object's own alignment, so
// a context embedding trees keeps the alignment callers already provide.
template <uint32_t N>
class FixedRangeBTree : public RangeBTree {
  static_assert(N > 0 && N < RangeBTree::kNoNode, "capacity must be in 1..0xfffffffe");
  static constexpr size_t kLine = 64;

 public:
  FixedRangeBTree() : RangeBTree(FirstNode(raw_), N) {}
  FixedRangeBTree(const FixedRangeBTree&) = delete;
  FixedRangeBTree& operator=(const FixedRangeBTree&) = delete;

 private:
  static RangeBTreeNode* FirstNode(unsigned char* raw) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(raw);
    // RangeBTreeNode is an implicit-lifetime type, so the byte buffer
    // provides the nodes (and the tree writes a node before reading it);
    // launder gives a pointer usable for them rather than for the bytes.
    return std::launder(reinterpret_cast<RangeBTreeNode*>(raw + ((kLine - p % kLine) % kLine)));
  }
  alignas(RangeBTreeNode) unsigned char raw_[sizeof(RangeBTreeNode) * N + kLine - alignof(RangeBTreeNode)];
};

}  // namespace hke::memory

#endif  // HKE_LIB_MEMORY_RANGE_BTREE_H_
