#include "lib/memory/range_btree.h"

namespace hke::memory {

namespace {

using Node = RangeBTreeNode;

constexpr uint64_t kPad = UINT64_MAX;  // key value past a node's count


// How many of the node's keys are <= x, branch-free. The keys are sorted
// and padded with UINT64_MAX (which counts only when x == UINT64_MAX; the
// callers clamp that case to the real count). Keys 7, 15 and 23 (the last
// of the first three 8-key groups, one per cache line of an aligned node)
// pick the group that holds the boundary; 7 compares within that group
// finish the count (its 8th key is the pivot already known to be > x, or
// past the array for the last group). Two dependent loads, ten compares.
inline uint32_t CountKeysAtOrBelow(const Node& n, uint64_t x) {
  const uint64_t* k = n.keys;
  const uint32_t group = (k[7] <= x ? 1u : 0u) + (k[15] <= x ? 1u : 0u) + (k[23] <= x ? 1u : 0u);
  const uint64_t* g = k + 8 * group;
  uint32_t c0 = 0, c1 = 0;  // two chains, so the compares overlap
  c0 += g[0] <= x ? 1u : 0u;
  c1 += g[1] <= x ? 1u : 0u;
  c0 += g[2] <= x ? 1u : 0u;
  c1 += g[3] <= x ? 1u : 0u;
  c0 += g[4] <= x ? 1u : 0u;
  c1 += g[5] <= x ? 1u : 0u;
  c0 += g[6] <= x ? 1u : 0u;
  return 8 * group + c0 + c1;
}
static_assert(Node::kKeys == 31, "CountKeysAtOrBelow assumes four groups of 8 keys, the last of 7");

// Lookups ask for every cache line of a node they will read as soon as they
// reach it, so the misses of the key groups, the child slot and a leaf's
// size and value overlap instead of following each other. (A hint: no
// effect on results; a no-op where the target has no prefetch.)
// Keys and slots: an internal node, or a leaf read by key and value only
// (FindAtOrBelow, which keeps the sizes' lines out).
inline void PrefetchKeysAndSlots(const Node& n) {
  for (uint32_t j = 0; j < Node::kKeys; j += 8) __builtin_prefetch(&n.keys[j]);
  __builtin_prefetch(&n.slots[0]);
  __builtin_prefetch(&n.slots[16]);
}
inline void PrefetchLeaf(const Node& n) {
  PrefetchKeysAndSlots(n);
  for (uint32_t j = 0; j < Node::kKeys; j += 8) __builtin_prefetch(&n.sizes[j]);
}

// The child of internal node `n` whose key range holds x.
inline uint32_t ChildFor(const Node& n, uint64_t x) {
  const uint32_t c = CountKeysAtOrBelow(n, x);
  const uint32_t last = n.count - 1;
  return c < last ? c : last;
}

// In leaf `n`: the number of entries whose start is <= x.
inline uint32_t EntriesAtOrBelow(const Node& n, uint64_t x) {
  const uint32_t c = CountKeysAtOrBelow(n, x);
  return c < n.count ? c : n.count;
}

// Leaf entry moves.
inline void CopyEntry(Node& to, uint32_t ti, const Node& from, uint32_t fi) {
  to.keys[ti] = from.keys[fi];
  to.sizes[ti] = from.sizes[fi];
  to.slots[ti] = from.slots[fi];
}

// Opens a hole at leaf position i (count < kKeys).
void LeafOpen(Node& n, uint32_t i) {
  for (uint32_t j = n.count; j > i; --j) CopyEntry(n, j, n, j - 1);
  ++n.count;
}

// Closes leaf position i and pads the freed key.
void LeafClose(Node& n, uint32_t i) {
  for (uint32_t j = i; j + 1 < n.count; ++j) CopyEntry(n, j, n, j + 1);
  --n.count;
  n.keys[n.count] = kPad;
}

// Inserts (key, child) into internal node `n` (count < kSlots) so that
// `child` becomes child number ci + 1 and `key` separator number ci.
void InternalInsertAfter(Node& n, uint32_t ci, uint64_t key, uint32_t child) {
  for (uint32_t j = n.count; j > ci + 1; --j) {
    n.slots[j] = n.slots[j - 1];
    n.keys[j - 1] = n.keys[j - 2];
  }
  n.slots[ci + 1] = child;
  n.keys[ci] = key;
  ++n.count;
}

// Removes separator number ki and child number ki + 1 from internal node n.
void InternalRemove(Node& n, uint32_t ki) {
  for (uint32_t j = ki; j + 2 < n.count; ++j) {
    n.keys[j] = n.keys[j + 1];
    n.slots[j + 1] = n.slots[j + 2];
  }
  --n.count;
  n.keys[n.count - 1] = kPad;
}

}  // namespace

//===----------------------------------------------------------------------===//
// Node pool
//===----------------------------------------------------------------------===//

uint32_t RangeBTree::Allocate(uint32_t tag) {
  uint32_t index;
  if (free_head_ != kNoNode) {
    index = free_head_;
    free_head_ = nodes_[index].next_free;
  } else {
    index = high_water_++;
  }
  Node& n = nodes_[index];
  for (uint32_t j = 0; j < Node::kKeys; ++j) n.keys[j] = kPad;
  n.count = 0;
  n.tag = tag;
  n.next_free = kNoNode;
  n.reserved = 0;
  ++used_;
  return index;
}

void RangeBTree::Release(uint32_t index) {
  Node& n = nodes_[index];
  n.tag = Node::kTagFree;
  n.count = 0;
  n.next_free = free_head_;
  free_head_ = index;
  --used_;
}

void RangeBTree::Clear() {
  high_water_ = 0;
  free_head_ = kNoNode;
  used_ = 0;
  root_ = kNoNode;
  depth_ = 0;
  count_ = 0;
}

//===----------------------------------------------------------------------===//
// Lookups
//===----------------------------------------------------------------------===//

uint32_t RangeBTree::LeafFor(uint64_t x) const {
  uint32_t node = root_;
  for (uint32_t d = 1; d < depth_; ++d) {
    const Node& n = nodes_[node];
    PrefetchKeysAndSlots(n);
    node = n.slots[ChildFor(n, x)];
  }
  return node;
}

const RangeBTree::Node* RangeBTree::LeafAtOrBelow(uint64_t x, bool sizes, uint32_t* below) const {
  if (root_ == kNoNode) return nullptr;
  const Node& leaf = nodes_[LeafFor(x)];
  if (sizes) {
    PrefetchLeaf(leaf);
  } else {
    PrefetchKeysAndSlots(leaf);
  }
  *below = EntriesAtOrBelow(leaf, x);
  return &leaf;
}

bool RangeBTree::FindContaining(uint64_t addr, Entry* out) const {
  uint32_t i = 0;
  const Node* leaf = LeafAtOrBelow(addr, true, &i);
  if (leaf == nullptr || i == 0) return false;
  const uint64_t start = leaf->keys[i - 1];
  const uint64_t size = leaf->sizes[i - 1];
  if (addr - start >= RangeExtent(size)) return false;
  if (out != nullptr) *out = Entry{start, size, leaf->slots[i - 1]};
  return true;
}

bool RangeBTree::FindAtOrBelow(uint64_t addr, uint64_t* out_start, uint32_t* out_value) const {
  uint32_t i = 0;
  const Node* leaf = LeafAtOrBelow(addr, false, &i);
  if (leaf == nullptr || i == 0) return false;
  *out_start = leaf->keys[i - 1];
  *out_value = leaf->slots[i - 1];
  return true;
}

bool RangeBTree::FindExact(uint64_t start, Entry* out) const {
  uint32_t i = 0;
  const Node* leaf = LeafAtOrBelow(start, true, &i);
  if (leaf == nullptr || i == 0 || leaf->keys[i - 1] != start) return false;
  if (out != nullptr) *out = Entry{start, leaf->sizes[i - 1], leaf->slots[i - 1]};
  return true;
}

//===----------------------------------------------------------------------===//
// Insert
//===----------------------------------------------------------------------===//

// The leaf at `step` (child step.child of internal node step.node) is full
// and a new entry goes to its position i. Moves entries to the left
// sibling (the leaf's first ones, all before position i) or, failing that,
// to the right sibling (its last ones, all from position i on), as many as
// the sibling has room for, and fixes the separator of the sibling or leaf
// whose minimum changed. Returns false, changing nothing, when neither
// sibling exists with room or no entry may move. Both leaves keep at least
// kRangeBTreeLeafMin entries (the full leaf keeps >= 31 - 15 = 16).
bool RangeBTree::ShiftToSibling(const Step& step, uint32_t i) {
  Node& parent = nodes_[step.node];
  const uint32_t ci = step.child;
  Node& leaf = nodes_[parent.slots[ci]];
  if (ci > 0 && i > 0) {
    Node& left = nodes_[parent.slots[ci - 1]];
    uint32_t m = Node::kKeys - left.count;
    if (m > i) m = i;
    if (m > 0) {
      for (uint32_t j = 0; j < m; ++j) CopyEntry(left, left.count + j, leaf, j);
      left.count += m;
      for (uint32_t j = m; j < Node::kKeys; ++j) CopyEntry(leaf, j - m, leaf, j);
      leaf.count = Node::kKeys - m;
      for (uint32_t j = leaf.count; j < Node::kKeys; ++j) leaf.keys[j] = kPad;
      parent.keys[ci - 1] = leaf.keys[0];
      return true;
    }
  }
  if (ci + 1 < parent.count && i < Node::kKeys) {
    Node& right = nodes_[parent.slots[ci + 1]];
    uint32_t m = Node::kKeys - right.count;
    if (m > Node::kKeys - i) m = Node::kKeys - i;
    if (m > 0) {
      for (uint32_t j = right.count; j-- > 0;) CopyEntry(right, j + m, right, j);
      for (uint32_t j = 0; j < m; ++j) CopyEntry(right, j, leaf, Node::kKeys - m + j);
      right.count += m;
      leaf.count = Node::kKeys - m;
      for (uint32_t j = leaf.count; j < Node::kKeys; ++j) leaf.keys[j] = kPad;
      parent.keys[ci] = right.keys[0];
      return true;
    }
  }
  return false;
}

Status RangeBTree::Insert(uint64_t start, uint64_t size, uint32_t value) {
  if (size > UINT64_MAX - start) return InvalidArgument();
  if (count_ == UINT32_MAX) return Exhausted();

  if (root_ == kNoNode) {
    if (nodes_available() == 0) return Exhausted();
    root_ = Allocate(Node::kTagLeaf);
    depth_ = 1;
    Node& leaf = nodes_[root_];
    leaf.keys[0] = start;
    leaf.sizes[0] = size;
    leaf.slots[0] = value;
    leaf.count = 1;
    count_ = 1;
    return Status::Ok();
  }

  // Descend, remembering the path and the nearest separator to the right
  // of it: with tight separators that is the start of the entry that
  // follows the reached leaf's last one.
  Step path[kMaxDepth];
  uint32_t levels = 0;  // internal nodes on the path (depth_ - 1)
  uint64_t next_start = 0;
  bool has_next = false;
  uint32_t node = root_;
  for (uint32_t d = 1; d < depth_; ++d) {
    const Node& n = nodes_[node];
    const uint32_t ci = ChildFor(n, start);
    if (ci + 1 < n.count) {
      next_start = n.keys[ci];
      has_next = true;
    }
    path[levels++] = Step{node, ci};
    node = n.slots[ci];
  }
  const uint32_t leaf_index = node;
  Node& leaf = nodes_[leaf_index];
  uint32_t i = EntriesAtOrBelow(leaf, start);

  // Overlap with the predecessor (in this leaf, if it exists at all) and
  // with the successor (in this leaf, or the separator found above).
  if (i > 0) {
    const uint64_t prev = leaf.keys[i - 1];
    if (start - prev < RangeExtent(leaf.sizes[i - 1])) return AlreadyExists();
  }
  if (i < leaf.count) {
    next_start = leaf.keys[i];
    has_next = true;
  }
  if (has_next && next_start - start < RangeExtent(size)) return AlreadyExists();

  // A full leaf first passes entries to a neighbour with room (B*-tree
  // style), so runs of ascending or descending starts - the common pattern
  // of an address arena - fill leaves to 31 instead of leaving every split
  // half full. That halves the leaves a lookup working set spans; it needs
  // no node, so it is tried before the split path is reserved, and the
  // leaf then takes the entry like any leaf with room.
  const bool moved =
      leaf.count == Node::kKeys && levels > 0 && ShiftToSibling(path[levels - 1], i);
  if (moved) i = EntriesAtOrBelow(leaf, start);

  // Reserve the split path: every full node from the leaf up splits, and a
  // full root adds a level.
  uint32_t need = 0;
  if (leaf.count == Node::kKeys) {
    need = 1;
    uint32_t k = levels;
    while (k > 0 && nodes_[path[k - 1].node].count == Node::kSlots) {
      ++need;
      --k;
    }
    if (k == 0) {
      if (depth_ == kMaxDepth) return Exhausted();
      ++need;
    }
  }
  if (need > nodes_available()) return Exhausted();

  // From here on nothing fails. A new entry at position 0 of a leaf is the
  // tree's new minimum (a leaf reached through any child other than the
  // first holds a smaller start), so no separator changes - except after
  // a move to the left sibling emptied the positions before it: then the
  // entry is the leaf's new minimum, its separator in the parent.
  ++count_;
  if (leaf.count < Node::kKeys) {
    LeafOpen(leaf, i);
    leaf.keys[i] = start;
    leaf.sizes[i] = size;
    leaf.slots[i] = value;
    if (moved && i == 0 && path[levels - 1].child > 0) {
      nodes_[path[levels - 1].node].keys[path[levels - 1].child - 1] = start;
    }
    return Status::Ok();
  }

  // Split the leaf: the 32 entries (31 + the new one) go 16 / 16.
  const uint32_t right_index = Allocate(Node::kTagLeaf);
  Node& right = nodes_[right_index];
  constexpr uint32_t kLeftKeep = (Node::kKeys + 1) / 2;  // 16
  {
    // Walk the virtual 32-entry sequence from the end, so each node is
    // filled in place without a scratch copy.
    uint32_t src = Node::kKeys;  // entries of `leaf` not yet placed: [0, src)
    bool placed = false;
    for (uint32_t v = Node::kKeys + 1; v-- > 0;) {
      Node& dst = v >= kLeftKeep ? right : leaf;
      const uint32_t di = v >= kLeftKeep ? v - kLeftKeep : v;
      if (!placed && v == i) {
        dst.keys[di] = start;
        dst.sizes[di] = size;
        dst.slots[di] = value;
        placed = true;
      } else {
        --src;
        CopyEntry(dst, di, leaf, src);
      }
    }
    right.count = Node::kKeys + 1 - kLeftKeep;
    leaf.count = kLeftKeep;
    for (uint32_t j = kLeftKeep; j < Node::kKeys; ++j) leaf.keys[j] = kPad;
  }

  // Carry (separator, new right node) up the path.
  uint64_t sep = right.keys[0];
  uint32_t new_child = right_index;
  for (uint32_t k = levels; k > 0; --k) {
    Node& parent = nodes_[path[k - 1].node];
    const uint32_t ci = path[k - 1].child;
    if (parent.count < Node::kSlots) {
      InternalInsertAfter(parent, ci, sep, new_child);
      return Status::Ok();
    }
    // Split a full internal node: 33 children / 32 separators virtually;
    // the left keeps 17 children, separator 16 moves up, the right takes
    // 16 children.
    constexpr uint32_t kChildren = Node::kSlots + 1;  // 33
    constexpr uint32_t kLeftChildren = (kChildren + 1) / 2;  // 17
    uint64_t vkeys[Node::kSlots];    // 32 separators
    uint32_t vkids[kChildren];
    for (uint32_t j = 0, s = 0; j < kChildren; ++j) {
      vkids[j] = j == ci + 1 ? new_child : parent.slots[s++];
    }
    for (uint32_t j = 0, s = 0; j < Node::kSlots; ++j) {
      vkeys[j] = j == ci ? sep : parent.keys[s++];
    }
    const uint32_t sib_index = Allocate(Node::kTagInternal);
    Node& sib = nodes_[sib_index];
    for (uint32_t j = 0; j < kLeftChildren; ++j) parent.slots[j] = vkids[j];
    for (uint32_t j = 0; j + 1 < kLeftChildren; ++j) parent.keys[j] = vkeys[j];
    for (uint32_t j = kLeftChildren - 1; j < Node::kKeys; ++j) parent.keys[j] = kPad;
    parent.count = kLeftChildren;
    for (uint32_t j = kLeftChildren; j < kChildren; ++j) sib.slots[j - kLeftChildren] = vkids[j];
    for (uint32_t j = kLeftChildren; j < Node::kSlots; ++j) sib.keys[j - kLeftChildren] = vkeys[j];
    sib.count = kChildren - kLeftChildren;
    sep = vkeys[kLeftChildren - 1];
    new_child = sib_index;
  }

  // The root split: a new root with two children.
  const uint32_t old_root = root_;
  root_ = Allocate(Node::kTagInternal);
  Node& r = nodes_[root_];
  r.slots[0] = old_root;
  r.slots[1] = new_child;
  r.keys[0] = sep;
  r.count = 2;
  ++depth_;
  return Status::Ok();
}

//===----------------------------------------------------------------------===//
// Erase and rebalancing
//===----------------------------------------------------------------------===//

// Child ci of `parent` is below the minimum; its left sibling has more than
// the minimum: move the sibling's last entry (or child) to the front of
// child ci.
void RangeBTree::BorrowFromLeft(Node& parent, uint32_t ci, bool leaf) {
  Node& x = nodes_[parent.slots[ci]];
  Node& l = nodes_[parent.slots[ci - 1]];
  if (leaf) {
    LeafOpen(x, 0);
    CopyEntry(x, 0, l, l.count - 1);
    LeafClose(l, l.count - 1);
    parent.keys[ci - 1] = x.keys[0];
    return;
  }
  for (uint32_t j = x.count; j > 0; --j) x.slots[j] = x.slots[j - 1];
  for (uint32_t j = x.count - 1; j > 0; --j) x.keys[j] = x.keys[j - 1];
  x.slots[0] = l.slots[l.count - 1];
  x.keys[0] = parent.keys[ci - 1];
  ++x.count;
  parent.keys[ci - 1] = l.keys[l.count - 2];
  l.keys[l.count - 2] = kPad;
  --l.count;
}

// Child ci is below the minimum; its right sibling has more than the
// minimum: move the sibling's first entry (or child) to the end of child ci.
void RangeBTree::BorrowFromRight(Node& parent, uint32_t ci, bool leaf) {
  Node& x = nodes_[parent.slots[ci]];
  Node& r = nodes_[parent.slots[ci + 1]];
  if (leaf) {
    CopyEntry(x, x.count, r, 0);
    ++x.count;
    LeafClose(r, 0);
    parent.keys[ci] = r.keys[0];
    return;
  }
  x.keys[x.count - 1] = parent.keys[ci];
  x.slots[x.count] = r.slots[0];
  ++x.count;
  parent.keys[ci] = r.keys[0];
  for (uint32_t j = 0; j + 2 < r.count; ++j) r.keys[j] = r.keys[j + 1];
  for (uint32_t j = 0; j + 1 < r.count; ++j) r.slots[j] = r.slots[j + 1];
  --r.count;
  r.keys[r.count - 1] = kPad;
}

// Appends child left_ci + 1 of `parent` to child left_ci, releases it and
// removes it and its separator from `parent`.
void RangeBTree::MergeChildren(Node& parent, uint32_t left_ci, bool leaf) {
  const uint32_t right_index = parent.slots[left_ci + 1];
  Node& l = nodes_[parent.slots[left_ci]];
  const Node& r = nodes_[right_index];
  if (leaf) {
    for (uint32_t j = 0; j < r.count; ++j) CopyEntry(l, l.count + j, r, j);
    l.count += r.count;
  } else {
    l.keys[l.count - 1] = parent.keys[left_ci];
    for (uint32_t j = 0; j + 1 < r.count; ++j) l.keys[l.count + j] = r.keys[j];
    for (uint32_t j = 0; j < r.count; ++j) l.slots[l.count + j] = r.slots[j];
    l.count += r.count;
  }
  InternalRemove(parent, left_ci);
  Release(right_index);
}

Status RangeBTree::Erase(uint64_t start) {
  if (root_ == kNoNode) return NotFound();
  Step path[kMaxDepth];
  uint32_t levels = 0;
  uint32_t node = root_;
  for (uint32_t d = 1; d < depth_; ++d) {
    const Node& n = nodes_[node];
    const uint32_t ci = ChildFor(n, start);
    path[levels++] = Step{node, ci};
    node = n.slots[ci];
  }
  Node& leaf = nodes_[node];
  const uint32_t i = EntriesAtOrBelow(leaf, start);
  if (i == 0 || leaf.keys[i - 1] != start) return NotFound();
  const uint32_t pos = i - 1;

  LeafClose(leaf, pos);
  --count_;
  if (levels == 0) {
    if (leaf.count == 0) {
      Release(root_);
      root_ = kNoNode;
      depth_ = 0;
    }
    return Status::Ok();
  }

  // The leaf's minimum changed: the one separator equal to it sits at the
  // nearest ancestor the path enters through a child other than the first.
  // (A non-root leaf keeps >= 15 entries here, so keys[0] exists.)
  if (pos == 0) {
    for (uint32_t k = levels; k > 0; --k) {
      const Step& s = path[k - 1];
      if (s.child > 0) {
        nodes_[s.node].keys[s.child - 1] = leaf.keys[0];
        break;
      }
    }
  }

  // Restore the fill bounds from the leaf up: borrow from a sibling with
  // spare entries, else merge with one (which may leave the parent short).
  uint32_t cur = node;
  for (uint32_t k = levels; k > 0; --k) {
    const bool is_leaf = k == levels;
    const uint32_t min = is_leaf ? kRangeBTreeLeafMin : kRangeBTreeFanoutMin;
    if (nodes_[cur].count >= min) break;
    Node& parent = nodes_[path[k - 1].node];
    const uint32_t ci = path[k - 1].child;
    if (ci > 0 && nodes_[parent.slots[ci - 1]].count > min) {
      BorrowFromLeft(parent, ci, is_leaf);
      break;
    }
    if (ci + 1 < parent.count && nodes_[parent.slots[ci + 1]].count > min) {
      BorrowFromRight(parent, ci, is_leaf);
      break;
    }
    MergeChildren(parent, ci > 0 ? ci - 1 : ci, is_leaf);
    cur = path[k - 1].node;
  }

  // A root left with one child hands the root role to it.
  Node& r = nodes_[root_];
  if (depth_ > 1 && r.count == 1) {
    const uint32_t old_root = root_;
    root_ = r.slots[0];
    --depth_;
    Release(old_root);
  }
  return Status::Ok();
}

//===----------------------------------------------------------------------===//
// Invariant checker
//===----------------------------------------------------------------------===//

Status RangeBTree::CheckInvariants(const char** reason) const {
  InvariantReport report;
  auto fail = [&report](const char* why) { return report.Fail(why); };

  auto check = [&]() -> bool {
    if (capacity_ >= kNoNode) return fail("capacity out of range");
    if (high_water_ > capacity_) return fail("high_water beyond capacity");
    if (used_ > high_water_) return fail("more nodes used than ever handed out");

    // The free stack: exactly high_water - used free-tagged nodes, no cycle.
    {
      const uint32_t expected = high_water_ - used_;
      uint32_t seen = 0;
      for (uint32_t f = free_head_; f != kNoNode; f = nodes_[f].next_free) {
        if (seen == expected) return fail("free stack longer than high_water - used");
        if (f >= high_water_) return fail("free stack names a node beyond high_water");
        if (nodes_[f].tag != Node::kTagFree) return fail("free stack node is not tagged free");
        ++seen;
      }
      if (seen != expected) return fail("free stack shorter than high_water - used");
    }

    if (root_ == kNoNode) {
      if (count_ != 0) return fail("count is nonzero but the tree is empty");
      if (depth_ != 0) return fail("empty tree with nonzero depth");
      if (used_ != 0) return fail("empty tree holds nodes");
      return true;
    }
    if (depth_ == 0 || depth_ > kMaxDepth) return fail("depth out of range");

    struct Frame {
      uint32_t node;
      uint32_t next;  // next child to visit
      uint64_t lo;    // every key in the subtree is >= lo (== lo for its minimum if has_lo)
      uint64_t hi;    // every key in the subtree is < hi (if has_hi)
      bool has_lo;
      bool has_hi;
    };
    Frame stack[kMaxDepth];
    uint32_t top = 0;
    uint64_t entries = 0;
    uint32_t reached = 0;
    bool have_prev = false;
    uint64_t prev_start = 0, prev_size = 0;

    // Checks one node when it is first reached at level `level` (0 = root).
    auto enter = [&](uint32_t index, uint32_t level, uint64_t lo, bool has_lo, uint64_t hi,
                     bool has_hi) -> bool {
      if (index >= high_water_) return fail("node index beyond high_water");
      if (++reached > used_) return fail("more nodes reachable than used");
      const Node& n = nodes_[index];
      const bool is_leaf = level + 1 == depth_;
      const bool is_root = level == 0;
      if (n.tag != (is_leaf ? Node::kTagLeaf : Node::kTagInternal)) {
        return fail(n.tag == Node::kTagFree ? "a free node is reachable"
                                            : "node tag does not match its level");
      }
      const uint32_t nkeys = is_leaf ? n.count : n.count - 1;
      if (is_leaf) {
        if (n.count > kRangeBTreeLeafMax) return fail("leaf over capacity");
        if (n.count < (is_root ? 1u : kRangeBTreeLeafMin)) return fail("leaf under the minimum fill");
      } else {
        if (n.count > kRangeBTreeFanoutMax) return fail("internal node over capacity");
        if (n.count < (is_root ? 2u : kRangeBTreeFanoutMin)) {
          return fail("internal node under the minimum fill");
        }
      }
      for (uint32_t j = 0; j < Node::kKeys; ++j) {
        if (j >= nkeys) {
          if (n.keys[j] != kPad) return fail("key padding is not UINT64_MAX");
          continue;
        }
        if (j > 0 && n.keys[j] <= n.keys[j - 1]) return fail("keys not increasing in a node");
      }
      if (is_leaf) {
        if (has_lo && n.keys[0] != lo) return fail("separator is not the minimum of its subtree");
      } else if (has_lo && n.keys[0] <= lo) {
        return fail("separator at or below its subtree's lower bound");
      }
      if (has_hi && n.keys[nkeys - 1] >= hi) return fail("key at or above its subtree's upper bound");
      if (is_leaf) {
        for (uint32_t j = 0; j < n.count; ++j) {
          const uint64_t s = n.keys[j], z = n.sizes[j];
          if (z > UINT64_MAX - s) return fail("start + size overflows");
          if (have_prev && s <= prev_start) return fail("starts not increasing across leaves");
          if (have_prev && s - prev_start < RangeExtent(prev_size)) return fail("entries overlap");
          have_prev = true;
          prev_start = s;
          prev_size = z;
        }
        entries += n.count;
        return true;
      }
      if (top == kMaxDepth) return fail("tree deeper than kMaxDepth");
      stack[top++] = Frame{index, 0, lo, hi, has_lo, has_hi};
      return true;
    };

    if (!enter(root_, 0, 0, false, 0, false)) return false;
    while (top > 0) {
      Frame& f = stack[top - 1];
      const Node& n = nodes_[f.node];
      if (f.next == n.count) {
        --top;
        continue;
      }
      const uint32_t c = f.next++;
      const bool clo = c > 0 || f.has_lo;
      const uint64_t lo = c > 0 ? n.keys[c - 1] : f.lo;
      const bool chi = c + 1 < n.count || f.has_hi;
      const uint64_t hi = c + 1 < n.count ? n.keys[c] : f.hi;
      if (!enter(n.slots[c], top, lo, clo, hi, chi)) return false;
    }
    if (reached != used_) return fail("fewer nodes reachable than used");
    if (entries != count_) return fail("entry count disagrees with count()");
    return true;
  };

  return report.Result(check(), reason);
}

}  // namespace hke::memory
