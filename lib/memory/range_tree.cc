#include "lib/memory/range_tree.h"

namespace hke::memory {

namespace {

// Three-way comparison of keys (start, size, value).
int CompareKey(uint64_t s1, uint64_t z1, uint32_t v1, uint64_t s2, uint64_t z2, uint32_t v2) {
  if (s1 != s2) return s1 < s2 ? -1 : 1;
  if (z1 != z2) return z1 < z2 ? -1 : 1;
  if (v1 != v2) return v1 < v2 ? -1 : 1;
  return 0;
}

int CompareNodes(const RangeNode& a, const RangeNode& b) {
  return CompareKey(a.start, a.size, a.value, b.start, b.size, b.value);
}

uint64_t Max3(uint64_t a, uint64_t b, uint64_t c) {
  const uint64_t ab = a > b ? a : b;
  return ab > c ? ab : c;
}

}  // namespace

//===----------------------------------------------------------------------===//
// RangeNodePool
//===----------------------------------------------------------------------===//

Status RangeNodePool::Allocate(uint32_t* out) {
  uint32_t index;
  if (free_head_ != kNil) {
    index = free_head_;
    free_head_ = nodes_[index].parent;
  } else if (high_water_ < capacity_) {
    index = high_water_++;
  } else {
    return Exhausted();
  }
  // A node handed out but not (yet) linked into a tree has no links, so
  // Erase's walk to the root can tell it is in no tree.
  nodes_[index].height = 0;
  nodes_[index].parent = kNil;
  nodes_[index].left = kNil;
  nodes_[index].right = kNil;
  ++used_;
  *out = index;
  return Status::Ok();
}

Status RangeNodePool::Release(uint32_t index) {
  if (!IsAllocated(index)) return InvalidHandle();
  RangeNode& n = nodes_[index];
  n.height = kFreeHeight;
  n.parent = free_head_;
  free_head_ = index;
  --used_;
  return Status::Ok();
}

//===----------------------------------------------------------------------===//
// RangeTree: structure maintenance
//===----------------------------------------------------------------------===//

Status RangeTree::Init(RangeNodePool* pool) {
  if (pool == nullptr) return InvalidArgument();
  if (count_ != 0) return FailedPrecondition();
  pool_ = pool;
  root_ = kNil;
  return Status::Ok();
}

// Recomputes height and max_end of `i` from its children.
void RangeTree::Update(uint32_t i) {
  RangeNode& n = N(i);
  const int hl = Height(n.left);
  const int hr = Height(n.right);
  n.height = static_cast<int8_t>(1 + (hl > hr ? hl : hr));
  const uint64_t el = n.left == kNil ? 0 : N(n.left).max_end;
  const uint64_t er = n.right == kNil ? 0 : N(n.right).max_end;
  n.max_end = Max3(RangeEnd(n.start, n.size), el, er);
}

void RangeTree::ReplaceChild(uint32_t parent, uint32_t old_child, uint32_t new_child) {
  if (parent == kNil) {
    root_ = new_child;
  } else if (N(parent).left == old_child) {
    N(parent).left = new_child;
  } else {
    N(parent).right = new_child;
  }
  if (new_child != kNil) N(new_child).parent = parent;
}

// Rotation of x: a left rotation when `left` (x's right child y becomes the
// subtree root, x becomes y's left child and y's old left subtree becomes
// x's right subtree), else its mirror. Returns y.
uint32_t RangeTree::Rotate(uint32_t x, bool left) {
  uint32_t RangeNode::*const rise = left ? &RangeNode::right : &RangeNode::left;
  uint32_t RangeNode::*const sink = left ? &RangeNode::left : &RangeNode::right;
  const uint32_t y = N(x).*rise;
  const uint32_t b = N(y).*sink;
  ReplaceChild(N(x).parent, x, y);
  N(x).*rise = b;
  if (b != kNil) N(b).parent = x;
  N(y).*sink = x;
  N(x).parent = y;
  Update(x);
  Update(y);
  return y;
}

// Walks from `i` to the root, refreshing height and max_end and restoring
// the AVL balance. The walk always reaches the root because max_end of
// every ancestor may depend on the change: O(log n).
void RangeTree::RebalanceFrom(uint32_t i) {
  while (i != kNil) {
    Update(i);
    const RangeNode& n = N(i);
    const int balance = Height(n.left) - Height(n.right);
    if (balance > 1) {
      const uint32_t l = n.left;
      if (Height(N(l).left) < Height(N(l).right)) Rotate(l, /*left=*/true);
      i = Rotate(i, /*left=*/false);
    } else if (balance < -1) {
      const uint32_t r = n.right;
      if (Height(N(r).right) < Height(N(r).left)) Rotate(r, /*left=*/false);
      i = Rotate(i, /*left=*/true);
    }
    i = N(i).parent;
  }
}

uint32_t RangeTree::MinOf(uint32_t i) const {
  while (N(i).left != kNil) i = N(i).left;
  return i;
}

uint32_t RangeTree::MaxOf(uint32_t i) const {
  while (N(i).right != kNil) i = N(i).right;
  return i;
}

//===----------------------------------------------------------------------===//
// RangeTree: updates
//===----------------------------------------------------------------------===//

Status RangeTree::Insert(uint64_t start, uint64_t size, uint32_t value, uint32_t* out_node) {
  if (pool_ == nullptr) return InvalidArgument();
  if (size > UINT64_MAX - start) return InvalidArgument();

  uint32_t parent = kNil;
  int side = 0;
  for (uint32_t cur = root_; cur != kNil;) {
    const RangeNode& c = N(cur);
    side = CompareKey(start, size, value, c.start, c.size, c.value);
    if (side == 0) return AlreadyExists();
    parent = cur;
    cur = side < 0 ? c.left : c.right;
  }

  uint32_t index;
  HKE_RETURN_IF_ERROR(pool_->Allocate(&index));
  RangeNode& n = N(index);
  n.start = start;
  n.size = size;
  n.value = value;
  n.max_end = start + size;
  n.left = kNil;
  n.right = kNil;
  n.parent = parent;
  n.height = 1;
  if (parent == kNil) {
    root_ = index;
  } else if (side < 0) {
    N(parent).left = index;
  } else {
    N(parent).right = index;
  }
  ++count_;
  RebalanceFrom(parent);
  if (out_node != nullptr) *out_node = index;
  return Status::Ok();
}

Status RangeTree::Erase(uint32_t z) {
  if (pool_ == nullptr || !pool_->IsAllocated(z)) return InvalidHandle();
  // The node must hang under this tree's root: O(log n) climb, bounded so
  // a node of a corrupted or foreign structure cannot loop.
  {
    uint32_t top = z;
    uint32_t steps = 0;
    while (N(top).parent != kNil && steps <= kMaxHeight) {
      top = N(top).parent;
      if (!pool_->IsAllocated(top)) return InvalidHandle();
      ++steps;
    }
    if (top != root_ || N(top).parent != kNil) return InvalidHandle();
  }

  uint32_t fix;  // lowest node whose subtree changed
  const uint32_t zl = N(z).left;
  const uint32_t zr = N(z).right;
  if (zl == kNil || zr == kNil) {
    fix = N(z).parent;
    ReplaceChild(N(z).parent, z, zl != kNil ? zl : zr);
  } else {
    // Two children: the successor y (leftmost of the right subtree) takes
    // z's place; keys stay in their nodes so indices remain valid.
    const uint32_t y = MinOf(zr);
    if (N(y).parent != z) {
      fix = N(y).parent;
      ReplaceChild(N(y).parent, y, N(y).right);
      N(y).right = zr;
      N(zr).parent = y;
    } else {
      fix = y;
    }
    ReplaceChild(N(z).parent, z, y);
    N(y).left = zl;
    N(zl).parent = y;
  }
  --count_;
  (void)pool_->Release(z);
  RebalanceFrom(fix);
  return Status::Ok();
}

void RangeTree::Clear() {
  // Post-order release without a stack: descend to a leaf, detach it from
  // its parent, release it, continue from the parent.
  uint32_t cur = root_;
  while (cur != kNil) {
    RangeNode& n = N(cur);
    if (n.left != kNil) {
      cur = n.left;
    } else if (n.right != kNil) {
      cur = n.right;
    } else {
      const uint32_t parent = n.parent;
      if (parent != kNil) {
        if (N(parent).left == cur) {
          N(parent).left = kNil;
        } else {
          N(parent).right = kNil;
        }
      }
      (void)pool_->Release(cur);
      cur = parent;
    }
  }
  root_ = kNil;
  count_ = 0;
}

//===----------------------------------------------------------------------===//
// RangeTree: lookups
//===----------------------------------------------------------------------===//

uint32_t RangeTree::FindExact(uint64_t start, uint64_t size, uint32_t value) const {
  uint32_t cur = root_;
  while (cur != kNil) {
    const RangeNode& c = N(cur);
    const int cmp = CompareKey(start, size, value, c.start, c.size, c.value);
    if (cmp == 0) return cur;
    cur = cmp < 0 ? c.left : c.right;
  }
  return kNil;
}

template <typename Take>
uint32_t RangeTree::LastTaken(Take take, bool left_after_take) const {
  uint32_t best = kNil;
  uint32_t cur = root_;
  while (cur != kNil) {
    const RangeNode& c = N(cur);
    const bool taken = take(c);
    if (taken) best = cur;
    cur = taken == left_after_take ? c.left : c.right;
  }
  return best;
}

uint32_t RangeTree::LowerBound(uint64_t start, uint64_t size) const {
  return LastTaken(
      [&](const RangeNode& c) { return CompareKey(c.start, c.size, c.value, start, size, 0) >= 0; },
      /*left_after_take=*/true);
}

uint32_t RangeTree::FindAtOrBelow(uint64_t addr) const {
  return LastTaken([addr](const RangeNode& c) { return c.start <= addr; },
                   /*left_after_take=*/false);
}

// A node contains addr when start < addr < end, or when start == addr
// (whatever its size). Nodes with start < addr sort before those with
// start == addr, so the answer is the first node with start < addr < end if
// there is one, else the first node starting at addr.
//
// First part, one root-to-leaf path: at a node starting at or after addr
// the answer can only be on the left. At a node starting before addr, every
// node of its left subtree also starts before addr, so a left max_end above
// addr proves the answer is there; otherwise the node itself, otherwise the
// right subtree. (A size-0 node starting before addr never contains it and
// its end, equal to its start, never exceeds addr: max_end stays exact.)
uint32_t RangeTree::FindContaining(uint64_t addr) const {
  uint32_t cur = root_;
  while (cur != kNil) {
    const RangeNode& c = N(cur);
    if (c.start >= addr) {
      cur = c.left;
      continue;
    }
    if (c.left != kNil && N(c.left).max_end > addr) {
      cur = c.left;
      continue;
    }
    if (RangeEnd(c.start, c.size) > addr) return cur;
    cur = c.right;
  }
  const uint32_t at = LowerBound(addr, 0);
  return at != kNil && N(at).start == addr ? at : kNil;
}

// The nodes starting before addr, greatest key first, are found along the
// search path of addr: a path node starting before addr is followed (in
// descending key order) by its own left subtree, and path nodes further
// down hold greater keys than those above them. So the path's such nodes go
// on a stack (at most the tree's height); popping one, the node itself is
// tried, then its left subtree, whose every node starts before addr: when
// that subtree's max_end exceeds addr it holds an answer, and the greatest
// one is reached by one descent (right child while its max_end exceeds
// addr, else the node if it contains addr, else the left child).
uint32_t RangeTree::FindNearestContaining(uint64_t addr) const {
  const uint32_t at = LowerBound(addr, 0);
  if (at != kNil && N(at).start == addr) return at;
  uint32_t stack[kMaxHeight];
  uint32_t depth = 0;
  for (uint32_t cur = root_; cur != kNil;) {
    const RangeNode& c = N(cur);
    if (c.start < addr) {
      if (depth < kMaxHeight) stack[depth++] = cur;
      cur = c.right;
    } else {
      cur = c.left;
    }
  }
  while (depth > 0) {
    const uint32_t x = stack[--depth];
    if (RangeEnd(N(x).start, N(x).size) > addr) return x;
    uint32_t y = N(x).left;
    if (y == kNil || N(y).max_end <= addr) continue;
    while (y != kNil) {
      const RangeNode& c = N(y);
      if (c.right != kNil && N(c.right).max_end > addr) {
        y = c.right;
      } else if (RangeEnd(c.start, c.size) > addr) {
        return y;
      } else {
        y = c.left;  // max_end(y) > addr, so the left subtree holds it
      }
    }
  }
  return kNil;
}

uint32_t RangeTree::First() const { return root_ == kNil ? kNil : MinOf(root_); }

uint32_t RangeTree::Last() const { return root_ == kNil ? kNil : MaxOf(root_); }

// The in-order neighbour: down the `ahead` side when it has a subtree, else
// up to the first ancestor that i is not on the `ahead` side of.
uint32_t RangeTree::Neighbour(uint32_t i, bool next) const {
  uint32_t RangeNode::*const ahead = next ? &RangeNode::right : &RangeNode::left;
  const uint32_t sub = N(i).*ahead;
  if (sub != kNil) return next ? MinOf(sub) : MaxOf(sub);
  uint32_t p = N(i).parent;
  while (p != kNil && N(p).*ahead == i) {
    i = p;
    p = N(p).parent;
  }
  return p;
}

uint32_t RangeTree::Successor(uint32_t i) const { return Neighbour(i, /*next=*/true); }

uint32_t RangeTree::Predecessor(uint32_t i) const { return Neighbour(i, /*next=*/false); }

//===----------------------------------------------------------------------===//
// RangeTree: invariant checker
//===----------------------------------------------------------------------===//

Status RangeTree::CheckInvariants(const char** reason) const {
  InvariantReport report;
  auto fail = [&report](const char* why) { return report.Fail(why); };

  // In-order walk over child links only, with an explicit stack bounded by
  // the AVL height limit. Each node is checked against its children's
  // stored fields, which by induction checks every stored height and
  // max_end.
  auto walk = [&]() -> bool {
    if (root_ == kNil) return count_ == 0 ? true : fail("count is nonzero but the tree is empty");
    if (pool_ == nullptr) return fail("tree has nodes but no pool");
    if (!pool_->IsAllocated(root_)) return fail("root is not an allocated pool node");
    if (N(root_).parent != kNil) return fail("root has a parent");

    uint32_t stack[kMaxHeight + 1];
    uint32_t depth = 0;
    uint32_t visited = 0;
    uint32_t prev = kNil;
    uint32_t cur = root_;
    while (cur != kNil || depth > 0) {
      while (cur != kNil) {
        if (depth > kMaxHeight) return fail("tree deeper than the AVL bound");
        stack[depth++] = cur;
        cur = N(cur).left;
      }
      cur = stack[--depth];
      if (++visited > count_) return fail("more nodes reachable than count");
      const RangeNode& n = N(cur);
      const uint32_t children[2] = {n.left, n.right};
      for (const uint32_t child : children) {
        if (child == kNil) continue;
        if (!pool_->IsAllocated(child)) return fail("child is not an allocated pool node");
        if (N(child).parent != cur) return fail("child's parent link is wrong");
      }
      if (n.size > UINT64_MAX - n.start) return fail("start + size overflows");
      const int hl = Height(n.left);
      const int hr = Height(n.right);
      if (n.height != 1 + (hl > hr ? hl : hr)) return fail("stored height is wrong");
      if (hl - hr > 1 || hr - hl > 1) return fail("AVL balance violated");
      const uint64_t el = n.left == kNil ? 0 : N(n.left).max_end;
      const uint64_t er = n.right == kNil ? 0 : N(n.right).max_end;
      if (n.max_end != Max3(n.start + n.size, el, er)) return fail("max_end is wrong");
      if (prev != kNil && CompareNodes(N(prev), n) >= 0) {
        return fail("keys are not strictly increasing");
      }
      prev = cur;
      cur = n.right;
    }
    if (visited != count_) return fail("fewer nodes reachable than count");
    return true;
  };

  return report.Result(walk(), reason);
}

}  // namespace hke::memory
