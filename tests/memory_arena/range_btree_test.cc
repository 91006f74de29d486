// Contracts of the fixed-capacity B+tree of disjoint ranges
// (lib/memory/range_btree.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "lib/memory/range_btree.h"

namespace {

using hke::Status;
using namespace hke::memory;
using Entry = RangeBTree::Entry;

void RequireValid(const RangeBTree& t) {
  const char* why = "";
  const Status s = t.CheckInvariants(&why);
  INFO("reason: " << std::string(why));
  REQUIRE(s.ok());
}

// REQUIRE that counts as an assertion only when it fails: the model stream
// below checks millions of conditions, and doctest's per-assertion cost
// would dominate its run time under the sanitizers.
#define REQUIRE_CHEAP(...)      \
  do {                          \
    if (!(__VA_ARGS__)) {       \
      REQUIRE(__VA_ARGS__);     \
    }                           \
  } while (0)

void RequireValidCheap(const RangeBTree& t) {
  const char* why = "";
  if (!t.CheckInvariants(&why).ok()) {
    INFO("reason: " << std::string(why));
    FAIL("CheckInvariants failed");
  }
}

// Addresses an entry covers (a size-0 entry covers its start).
uint64_t Extent(uint64_t size) { return size == 0 ? 1 : size; }

// A std::map model: start -> (size, value).
using Model = std::map<uint64_t, std::pair<uint64_t, uint32_t>>;

bool ModelOverlaps(const Model& m, uint64_t start, uint64_t size) {
  auto it = m.upper_bound(start);
  if (it != m.end() && it->first - start < Extent(size)) return true;
  if (it != m.begin()) {
    --it;
    if (start - it->first < Extent(it->second.first)) return true;
  }
  return false;
}

bool ModelContaining(const Model& m, uint64_t addr, Entry* out) {
  auto it = m.upper_bound(addr);
  if (it == m.begin()) return false;
  --it;
  if (addr - it->first >= Extent(it->second.first)) return false;
  *out = Entry{it->first, it->second.first, it->second.second};
  return true;
}

bool Same(const Entry& a, const Entry& b) {
  return a.start == b.start && a.size == b.size && a.value == b.value;
}

// Everything a refused call must leave unchanged: the node bytes and the
// tree's counters.
struct Snapshot {
  std::vector<unsigned char> bytes;
  uint32_t count, used, high_water, depth;
};

Snapshot Take(const RangeBTree& t, const RangeBTreeNode* nodes, uint32_t capacity) {
  Snapshot s;
  const auto* p = reinterpret_cast<const unsigned char*>(nodes);
  s.bytes.assign(p, p + sizeof(RangeBTreeNode) * capacity);
  s.count = t.count();
  s.used = t.nodes_used();
  s.high_water = t.high_water();
  s.depth = t.depth();
  return s;
}

bool Unchanged(const Snapshot& a, const Snapshot& b) {
  return a.bytes == b.bytes && a.count == b.count && a.used == b.used &&
         a.high_water == b.high_water && a.depth == b.depth;
}

// The deepest tree of n entries the fill bounds allow: a root with two
// children and every other node half full, i.e. n >= 2 * 16^(depth - 1).
uint32_t MaxDepthFor(uint64_t n) {
  uint32_t d = 1;
  uint64_t need = 2 * 16;  // entries a depth-2 tree holds at least
  while (need <= n) {
    ++d;
    need *= 16;
  }
  return d;
}

TEST_CASE("RangeBTreeNode is 640 bytes with keys, sizes and values/children in arrays of their own") {
  CHECK(sizeof(RangeBTreeNode) == 640);
  CHECK(offsetof(RangeBTreeNode, keys) == 0);
  CHECK(offsetof(RangeBTreeNode, count) == 248);  // shares the last key cache line
  CHECK(offsetof(RangeBTreeNode, sizes) == 256);
  CHECK(offsetof(RangeBTreeNode, slots) == 512);
  CHECK(kRangeBTreeLeafMax == 31);
  CHECK(kRangeBTreeFanoutMax == 32);
  // A merge of a node one below the minimum with a minimal sibling fits.
  CHECK(kRangeBTreeLeafMin - 1 + kRangeBTreeLeafMin <= kRangeBTreeLeafMax);
  CHECK(kRangeBTreeFanoutMin - 1 + kRangeBTreeFanoutMin <= kRangeBTreeFanoutMax);
}

TEST_CASE("the sizing rule RangeBTreeNodesFor gives the documented values and never decreases") {
  CHECK(RangeBTreeNodesFor(0) == 1);
  CHECK(RangeBTreeNodesFor(31) == 1);
  CHECK(RangeBTreeNodesFor(32) == 3);  // two leaves of 16 and a root
  CHECK(RangeBTreeNodesFor(1024) == 69);
  CHECK(RangeBTreeNodesFor(131072) == 8739);
  CHECK(RangeBTreeNodesFor(131072) * sizeof(RangeBTreeNode) == 5592960u);
  static_assert(RangeBTreeNodesFor(1024) == 69, "usable in constant expressions");
  uint32_t prev = 0;
  for (uint32_t n = 0; n < 200000; n += 7) {
    const uint32_t v = RangeBTreeNodesFor(n);
    REQUIRE(v >= prev);
    prev = v;
  }
}

// Fills a tree sized by the rule in the given order; no insert may run out
// of nodes, and the invariants hold at the end.
void FillToTheRule(uint32_t n, int order) {
  const uint32_t cap = RangeBTreeNodesFor(n);
  std::vector<RangeBTreeNode> buf(cap);
  RangeBTree t(buf.data(), cap);
  std::vector<uint64_t> starts(n);
  for (uint32_t i = 0; i < n; ++i) starts[i] = (uint64_t{i} + 1) << 12;
  if (order == 1) std::reverse(starts.begin(), starts.end());
  if (order == 2) std::shuffle(starts.begin(), starts.end(), std::mt19937_64(42));
  if (order == 3) {
    // Alternate from both ends towards the middle.
    std::vector<uint64_t> alt;
    for (uint32_t lo = 0, hi = n; lo < hi;) {
      alt.push_back(starts[lo++]);
      if (lo < hi) alt.push_back(starts[--hi]);
    }
    starts = alt;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const Status s = t.Insert(starts[i], 4096, i);
    if (!s.ok()) {
      INFO("n=" << n << " order=" << order << " insert #" << i << " used=" << t.nodes_used());
      REQUIRE(s.ok());
    }
  }
  RequireValid(t);
  CHECK(t.count() == n);
  CHECK(t.nodes_used() <= cap);
  CHECK(t.depth() <= MaxDepthFor(n));
  MESSAGE("n=" << n << " order=" << order << ": " << t.nodes_used() << " of " << cap
                << " nodes, depth " << t.depth());
}

TEST_CASE("a pool of RangeBTreeNodesFor(n) nodes takes n entries in any insertion order") {
  for (const uint32_t n : {1u, 31u, 32u, 100u, 1024u, 5000u}) {
    for (int order = 0; order < 4; ++order) FillToTheRule(n, order);
  }
  // The default configuration's object capacity (config::kMaxVaObjects).
  FillToTheRule(131072, 0);  // ascending: every leaf but the last half full
  FillToTheRule(131072, 2);
}

// Leaves of a tree: every node tagged leaf among the first nodes_used()
// handed out (no erases here, so no node was released).
std::vector<uint32_t> LeafCounts(const RangeBTree& t, const RangeBTreeNode* nodes) {
  std::vector<uint32_t> counts;
  for (uint32_t i = 0; i < t.high_water(); ++i) {
    if (nodes[i].tag == RangeBTreeNode::kTagLeaf) counts.push_back(nodes[i].count);
  }
  return counts;
}

TEST_CASE("ascending and descending runs fill leaves to 31: a full leaf passes entries to a sibling before it splits") {
  constexpr uint32_t kN = 4096;
  for (const bool ascending : {true, false}) {
    CAPTURE(ascending);
    std::vector<RangeBTreeNode> buf(RangeBTreeNodesFor(kN));
    RangeBTree t(buf.data(), static_cast<uint32_t>(buf.size()));
    for (uint32_t i = 0; i < kN; ++i) {
      const uint32_t k = ascending ? i : kN - 1 - i;
      REQUIRE(t.Insert(uint64_t{k} * 8, 8, k).ok());
      if (i % 97 == 0) RequireValid(t);
    }
    RequireValid(t);
    // Every leaf but the last two of the run is full (a split leaves 16 and
    // 16; the next fill of the newer leaf tops the older one up to 31).
    const std::vector<uint32_t> leaves = LeafCounts(t, buf.data());
    uint32_t full = 0;
    for (const uint32_t c : leaves) full += c == RangeBTreeNode::kKeys ? 1u : 0u;
    CHECK(full + 2 >= leaves.size());
    CHECK(leaves.size() <= kN / RangeBTreeNode::kKeys + 2);  // 134, where 16-entry leaves made 256
    // A lookup finds every entry, through FindContaining and FindAtOrBelow.
    for (uint32_t k = 0; k < kN; k += 37) {
      Entry e{};
      REQUIRE(t.FindContaining(uint64_t{k} * 8 + 7, &e));
      CHECK(e.value == k);
      uint64_t start = 0;
      uint32_t value = 0;
      REQUIRE(t.FindAtOrBelow(uint64_t{k} * 8 + 7, &start, &value));
      CHECK(start == uint64_t{k} * 8);
      CHECK(value == k);
    }
  }
}

TEST_CASE("FindAtOrBelow reports the entry with the largest start <= the address, covering it or not") {
  std::vector<RangeBTreeNode> buf(16);
  RangeBTree t(buf.data(), 16);
  uint64_t start = 77;
  uint32_t value = 78;
  CHECK_FALSE(t.FindAtOrBelow(100, &start, &value));  // empty tree
  for (uint32_t k = 1; k <= 200; ++k) REQUIRE(t.Insert(uint64_t{k} * 100, 10, k).ok());
  CHECK_FALSE(t.FindAtOrBelow(99, &start, &value));  // below every start: outputs untouched
  CHECK(start == 77);
  CHECK(value == 78);
  REQUIRE(t.FindAtOrBelow(100, &start, &value));
  CHECK(start == 100);
  CHECK(value == 1);
  REQUIRE(t.FindAtOrBelow(5055, &start, &value));  // in the gap after entry 50
  CHECK(start == 5000);
  CHECK(value == 50);
  Entry e{};
  CHECK_FALSE(t.FindContaining(5055, &e));
  REQUIRE(t.FindAtOrBelow(UINT64_MAX, &start, &value));
  CHECK(start == 20000);
  CHECK(value == 200);
}

TEST_CASE("random insert/erase/lookup streams agree with a std::map model; invariants hold after every op") {
  constexpr uint32_t kOps = 100000;
  constexpr uint32_t kMaxEntries = 3000;
  const uint32_t cap = RangeBTreeNodesFor(kMaxEntries);
  std::vector<RangeBTreeNode> buf(cap);
  RangeBTree t(buf.data(), cap);
  Model model;
  std::mt19937_64 rng(0x5eed);
  auto rnd = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };

  // The model's size is steered towards a target that changes every 10k
  // ops, so the tree grows to depth 3 (more than 32 leaves) and shrinks
  // back to empty; the sizes stay small enough that checking every
  // invariant after every op stays cheap under the sanitizers.
  const uint32_t targets[] = {1500, 100, 2000, 0, 1200, 30, 1800, 300, 0, 1500};
  uint32_t inserts_ok = 0, inserts_refused = 0, erases_ok = 0, erases_missing = 0;
  uint32_t max_depth = 0, max_count = 0, hits = 0;
  // Starts on a 16-byte grid of 64 Ki slots; sizes 0 (1 in 8) or 1..96.
  auto random_start = [&]() { return rnd(65536) * 16 + (rnd(8) == 0 ? rnd(16) : 0); };
  auto random_size = [&]() { return rnd(8) == 0 ? 0 : 1 + rnd(96); };

  for (uint32_t op = 0; op < kOps; ++op) {
    const uint32_t target = targets[op / 10000];
    const bool grow = model.size() < target;
    const uint64_t dice = rnd(100);
    if (dice < (grow ? 65u : 25u) && model.size() < kMaxEntries) {
      const uint64_t start = random_start();
      const uint64_t size = random_size();
      const uint32_t value = static_cast<uint32_t>(rng());
      const bool refuse = ModelOverlaps(model, start, size);
      const Status s = t.Insert(start, size, value);
      if (refuse) {
        REQUIRE_CHEAP(s.is_api(HKE_STATUS_ALREADY_EXISTS));
        ++inserts_refused;
      } else {
        REQUIRE_CHEAP(s.ok());
        model.emplace(start, std::make_pair(size, value));
        ++inserts_ok;
      }
    } else if (dice < 90) {
      // Erase: mostly a present start, sometimes an address that is not one.
      uint64_t start = random_start();
      if (rnd(4) != 0 && !model.empty()) {
        auto it = model.lower_bound(start);
        if (it == model.end()) it = model.begin();
        start = it->first;
      } else if (rnd(2) == 0 && !model.empty()) {
        start = model.begin()->first + 1;  // inside or after the first entry
      }
      const bool present = model.count(start) != 0;
      const Status s = t.Erase(start);
      if (present) {
        REQUIRE_CHEAP(s.ok());
        model.erase(start);
        ++erases_ok;
      } else {
        REQUIRE_CHEAP(s.is_api(HKE_STATUS_NOT_FOUND));
        ++erases_missing;
      }
    } else if (dice < 91 && model.size() < 100) {
      t.Clear();
      model.clear();
    }

    REQUIRE_CHEAP(t.count() == model.size());
    RequireValidCheap(t);
    max_depth = std::max(max_depth, t.depth());
    max_count = std::max<uint32_t>(max_count, t.count());
    REQUIRE_CHEAP(t.depth() <= MaxDepthFor(t.count()));

    // Lookups: a random address and the neighbourhood of a random entry.
    for (int probe = 0; probe < 4; ++probe) {
      uint64_t addr = random_start() + rnd(24);
      if (probe >= 2 && !model.empty()) {
        auto it = model.lower_bound(addr);
        if (it == model.end()) it = model.begin();
        addr = it->first + rnd(Extent(it->second.first) + 1);  // inside, or just past the end
      }
      Entry want{}, got{0xdead, 0xbeef, 7};
      const bool m = ModelContaining(model, addr, &want);
      const bool f = t.FindContaining(addr, &got);
      REQUIRE_CHEAP(m == f);
      if (m) {
        REQUIRE_CHEAP(Same(want, got));
        ++hits;
      } else {
        REQUIRE_CHEAP(got.start == 0xdead);  // untouched on a miss
      }
      Entry exact{1, 2, 3};
      auto it = model.find(addr);
      REQUIRE_CHEAP(t.FindExact(addr, &exact) == (it != model.end()));
      if (it != model.end()) {
        REQUIRE_CHEAP(exact.start == addr);
        REQUIRE_CHEAP(exact.size == it->second.first);
        REQUIRE_CHEAP(exact.value == it->second.second);
      } else {
        REQUIRE_CHEAP(exact.start == 1);
      }
    }
  }
  MESSAGE("inserts ok " << inserts_ok << ", refused " << inserts_refused << "; erases ok "
                        << erases_ok << ", missing " << erases_missing << "; containing hits "
                        << hits << "; max entries " << max_count << ", max depth " << max_depth);
  CHECK(max_depth >= 3);
  CHECK(inserts_refused > 1000);
  CHECK(erases_missing > 1000);

  // Draining the tree returns every node.
  while (!model.empty()) {
    REQUIRE_CHEAP(t.Erase(model.begin()->first).ok());
    model.erase(model.begin());
  }
  RequireValid(t);
  CHECK(t.nodes_used() == 0);
  CHECK(t.depth() == 0);
}

TEST_CASE("Insert refuses a range that shares an address with an entry, in the leaf or across a leaf boundary") {
  std::vector<RangeBTreeNode> buf(64);
  RangeBTree t(buf.data(), 64);
  // 200 ranges [k*0x1000, k*0x1000 + 0x800): several leaves, so some
  // successors and predecessors sit in another leaf.
  for (uint32_t k = 0; k < 200; ++k) REQUIRE(t.Insert(uint64_t{k} * 0x1000, 0x800, k).ok());
  REQUIRE(t.depth() == 2);
  RequireValid(t);
  const Snapshot before = Take(t, buf.data(), 64);

  for (uint32_t k = 0; k < 200; ++k) {
    const uint64_t s = uint64_t{k} * 0x1000;
    CAPTURE(k);
    CHECK(t.Insert(s, 0x800, 1).is_api(HKE_STATUS_ALREADY_EXISTS));          // same range
    CHECK(t.Insert(s, 0, 1).is_api(HKE_STATUS_ALREADY_EXISTS));              // same start, size 0
    CHECK(t.Insert(s + 0x7ff, 1, 1).is_api(HKE_STATUS_ALREADY_EXISTS));      // last byte
    CHECK(t.Insert(s + 0x400, 0, 1).is_api(HKE_STATUS_ALREADY_EXISTS));      // point inside
    if (k + 1 < 200) {
      // Starts in the gap, runs into the next entry (which may be the
      // first entry of the next leaf).
      CHECK(t.Insert(s + 0x800, 0x801, 1).is_api(HKE_STATUS_ALREADY_EXISTS));
      CHECK(t.Insert(s + 0xfff, 2, 1).is_api(HKE_STATUS_ALREADY_EXISTS));
      // Covers the next entry entirely.
      CHECK(t.Insert(s + 0x900, 0x2000, 1).is_api(HKE_STATUS_ALREADY_EXISTS));
    }
    if (k > 0) {
      // Starts inside the previous entry's gap and covers this one.
      CHECK(t.Insert(s - 0x10, 0x20, 1).is_api(HKE_STATUS_ALREADY_EXISTS));
    }
  }
  CHECK(Unchanged(before, Take(t, buf.data(), 64)));

  // Touching ranges are not overlapping: the gap [s + 0x800, s + 0x1000)
  // takes exactly one range that fills it, and a size-0 entry at an end.
  REQUIRE(t.Insert(0x800, 0x800, 1000).ok());
  REQUIRE(t.Insert(0x1800, 0, 1001).ok());
  CHECK(t.Insert(0x1801, 0x7ff, 1002).ok());
  CHECK(t.Insert(0x1801, 1, 1003).is_api(HKE_STATUS_ALREADY_EXISTS));
  RequireValid(t);
}

TEST_CASE("a size-0 entry covers only its start") {
  std::vector<RangeBTreeNode> buf(4);
  RangeBTree t(buf.data(), 4);
  REQUIRE(t.Insert(100, 0, 1).ok());
  REQUIRE(t.Insert(101, 0, 2).ok());  // adjacent points are disjoint
  REQUIRE(t.Insert(102, 10, 3).ok());
  CHECK(t.Insert(100, 1, 9).is_api(HKE_STATUS_ALREADY_EXISTS));
  CHECK(t.Insert(99, 2, 9).is_api(HKE_STATUS_ALREADY_EXISTS));
  CHECK(t.Insert(99, 1, 9).ok());
  Entry e{};
  REQUIRE(t.FindContaining(100, &e));
  CHECK((e.start == 100 && e.size == 0 && e.value == 1));
  REQUIRE(t.FindContaining(101, &e));
  CHECK(e.value == 2);
  REQUIRE(t.FindContaining(111, &e));
  CHECK(e.value == 3);
  CHECK_FALSE(t.FindContaining(112, &e));
  CHECK_FALSE(t.FindContaining(98, &e));
  REQUIRE(t.FindExact(101, &e));
  CHECK(e.size == 0);
  RequireValid(t);
}

TEST_CASE("ranges up to the top of the address space: overflow is refused, UINT64_MAX is found") {
  std::vector<RangeBTreeNode> buf(8);
  RangeBTree t(buf.data(), 8);
  CHECK(t.Insert(UINT64_MAX, 1, 0).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(t.Insert(1, UINT64_MAX, 0).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(t.count() == 0);
  CHECK(t.nodes_used() == 0);
  // Enough entries below to fill the root leaf: the key padding of a full
  // node and of a partly full one must not be mistaken for UINT64_MAX.
  REQUIRE(t.Insert(UINT64_MAX, 0, 7).ok());
  Entry e{};
  REQUIRE(t.FindContaining(UINT64_MAX, &e));
  CHECK(e.value == 7);
  REQUIRE(t.FindExact(UINT64_MAX, &e));
  CHECK(t.Insert(UINT64_MAX, 0, 9).is_api(HKE_STATUS_ALREADY_EXISTS));
  CHECK(t.Insert(UINT64_MAX - 10, 11, 8).is_api(HKE_STATUS_INVALID_ARGUMENT));
  REQUIRE(t.Insert(UINT64_MAX - 10, 10, 8).ok());  // ends exactly at UINT64_MAX (exclusive)
  REQUIRE(t.FindContaining(UINT64_MAX - 1, &e));
  CHECK(e.value == 8);
  for (uint32_t k = 0; k < 60; ++k) REQUIRE(t.Insert(uint64_t{k} << 20, 16, 100 + k).ok());
  REQUIRE(t.depth() == 2);
  REQUIRE(t.FindContaining(UINT64_MAX, &e));
  CHECK(e.value == 7);
  REQUIRE(t.Erase(UINT64_MAX).ok());
  CHECK_FALSE(t.FindContaining(UINT64_MAX, &e));
  CHECK_FALSE(t.FindExact(UINT64_MAX, &e));
  REQUIRE(t.FindContaining(UINT64_MAX - 10, &e));
  CHECK(e.value == 8);
  RequireValid(t);
}

TEST_CASE("Insert out of nodes fails with RESOURCE_EXHAUSTED before changing anything") {
  SUBCASE("no nodes at all") {
    RangeBTreeNode one;
    RangeBTree t(&one, 0);
    CHECK(t.Insert(0, 1, 0).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
    CHECK(t.count() == 0);
    RequireValid(t);
  }
  SUBCASE("a full root leaf with no node to split into; inserts that need no node still succeed") {
    std::vector<RangeBTreeNode> buf(1);
    std::memset(static_cast<void*>(buf.data()), 0xAB, sizeof(RangeBTreeNode));
    RangeBTree t(buf.data(), 1);
    for (uint32_t k = 0; k < 30; ++k) REQUIRE(t.Insert(uint64_t{k} * 10, 5, k).ok());
    const Snapshot before = Take(t, buf.data(), 1);
    REQUIRE(t.Insert(1000, 5, 99).ok());  // the 31st fits without a node
    CHECK(t.count() == 31);
    const Snapshot full = Take(t, buf.data(), 1);
    CHECK_FALSE(Unchanged(before, full));
    CHECK(t.Insert(2000, 5, 100).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
    CHECK(Unchanged(full, Take(t, buf.data(), 1)));
    // Overlap is reported before exhaustion: no node would be needed.
    CHECK(t.Insert(0, 1, 100).is_api(HKE_STATUS_ALREADY_EXISTS));
    // After an erase the same insert fits again.
    REQUIRE(t.Erase(0).ok());
    CHECK(t.Insert(2000, 5, 100).ok());
    RequireValid(t);
  }
  SUBCASE("a split that cascades to a new root needs three nodes; two free nodes are not enough") {
    // Ascending inserts until the root has 32 leaves: they fill to 31
    // (entries pass to the left sibling before a split), so the first two
    // leaves are full and an insert into the first one can only split it,
    // which splits the full root and adds a root.
    for (const uint32_t spare : {2u, 3u}) {
      CAPTURE(spare);
      std::vector<RangeBTreeNode> buf(33 + spare);
      std::memset(static_cast<void*>(buf.data()), 0xAB, sizeof(RangeBTreeNode) * buf.size());
      RangeBTree t(buf.data(), static_cast<uint32_t>(buf.size()));
      // The loop stops right after the split that made the 32nd leaf, so
      // the last leaf holds 16 entries and has room.
      uint32_t n = 0;
      while (!(t.depth() == 2 && t.nodes_used() == 33)) {
        REQUIRE(t.Insert(uint64_t{n} * 100, 10, n).ok());
        ++n;
      }
      REQUIRE(t.nodes_available() == spare);
      RequireValid(t);
      // The first leaf (starts 0 .. 3000) and its right neighbour are full.
      Entry e{};
      REQUIRE(t.FindExact(3000, &e));
      REQUIRE(t.FindExact(3100, &e));
      const Snapshot before = Take(t, buf.data(), static_cast<uint32_t>(buf.size()));
      const Status s = t.Insert(1550, 10, 9999);
      if (spare == 2) {
        CHECK(s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
        CHECK(Unchanged(before, Take(t, buf.data(), static_cast<uint32_t>(buf.size()))));
        CHECK_FALSE(t.FindExact(1550, &e));
        // A leaf with room still takes entries.
        CHECK(t.Insert(uint64_t{n} * 100, 10, n).ok());
      } else {
        CHECK(s.ok());
        CHECK(t.depth() == 3);
        CHECK(t.nodes_used() == 36);
        CHECK(t.FindExact(1550, &e));
      }
      RequireValid(t);
    }
  }
}

TEST_CASE("Erase of a start that no entry has fails with NOT_FOUND and changes nothing") {
  std::vector<RangeBTreeNode> buf(16);
  RangeBTree t(buf.data(), 16);
  CHECK(t.Erase(0).is_api(HKE_STATUS_NOT_FOUND));  // empty tree
  for (uint32_t k = 1; k <= 100; ++k) REQUIRE(t.Insert(uint64_t{k} * 64, 32, k).ok());
  const Snapshot before = Take(t, buf.data(), 16);
  CHECK(t.Erase(0).is_api(HKE_STATUS_NOT_FOUND));
  CHECK(t.Erase(64 + 1).is_api(HKE_STATUS_NOT_FOUND));   // inside an entry
  CHECK(t.Erase(64 + 40).is_api(HKE_STATUS_NOT_FOUND));  // in a gap
  CHECK(t.Erase(UINT64_MAX).is_api(HKE_STATUS_NOT_FOUND));
  CHECK(Unchanged(before, Take(t, buf.data(), 16)));
  REQUIRE(t.Erase(64).ok());
  CHECK(t.Erase(64).is_api(HKE_STATUS_NOT_FOUND));  // twice
  RequireValid(t);
}

TEST_CASE("lookups write their output only when they find an entry; a null output is allowed") {
  std::vector<RangeBTreeNode> buf(2);
  RangeBTree t(buf.data(), 2);
  Entry e{11, 22, 33};
  CHECK_FALSE(t.FindContaining(5, &e));
  CHECK_FALSE(t.FindExact(5, &e));
  REQUIRE(t.Insert(10, 10, 4).ok());
  CHECK_FALSE(t.FindContaining(20, &e));
  CHECK_FALSE(t.FindContaining(9, &e));
  CHECK_FALSE(t.FindExact(11, &e));
  CHECK((e.start == 11 && e.size == 22 && e.value == 33));
  CHECK(t.FindContaining(19, nullptr));
  CHECK(t.FindExact(10, nullptr));
}

TEST_CASE("constructing a tree does not touch the node array; growth touches only the nodes handed out") {
  constexpr uint32_t kCap = 64;
  std::vector<RangeBTreeNode> buf(kCap);
  std::memset(static_cast<void*>(buf.data()), 0xAB, sizeof(RangeBTreeNode) * kCap);
  const std::vector<RangeBTreeNode> pristine = buf;
  auto untouched = [&](uint32_t i) {
    return std::memcmp(&buf[i], &pristine[i], sizeof(RangeBTreeNode)) == 0;
  };
  auto untouched_from = [&](uint32_t first) {
    for (uint32_t i = first; i < kCap; ++i) {
      if (!untouched(i)) return false;
    }
    return true;
  };

  RangeBTree t(buf.data(), kCap);
  CHECK(t.high_water() == 0);
  CHECK(t.nodes_used() == 0);
  CHECK(untouched_from(0));
  RequireValid(t);  // reads no node of an empty tree
  CHECK(untouched_from(0));

  for (uint32_t k = 0; k < 5; ++k) REQUIRE(t.Insert(uint64_t{k} * 100, 10, k).ok());
  CHECK(t.high_water() == 1);
  CHECK(untouched_from(1));

  for (uint32_t k = 5; k < 200; ++k) REQUIRE(t.Insert(uint64_t{k} * 100, 10, k).ok());
  RequireValid(t);
  const uint32_t hw = t.high_water();
  CHECK(hw == t.nodes_used());
  CHECK(hw < kCap);
  CHECK(untouched_from(hw));

  // Erasing frees nodes; inserting again reuses them before new ones.
  for (uint32_t k = 0; k < 150; ++k) REQUIRE(t.Erase(uint64_t{k} * 100).ok());
  RequireValid(t);
  CHECK(t.nodes_used() < hw);
  CHECK(t.high_water() == hw);
  // high_water grows only once the freed nodes are all in use again.
  uint32_t peak = t.nodes_used();
  for (uint32_t k = 0; k < 150; ++k) {
    REQUIRE(t.Insert(uint64_t{k} * 100, 10, k).ok());
    peak = std::max(peak, t.nodes_used());
    REQUIRE(t.high_water() == std::max(hw, peak));
  }
  RequireValid(t);
  CHECK(untouched_from(t.high_water()));
}

TEST_CASE("a FixedRangeBTree in static storage stays zero past its high-water mark") {
  static FixedRangeBTree<RangeBTreeNodesFor(131072)> tree;  // 5.6 MB of .bss
  static const RangeBTreeNode kZero{};
  CHECK(tree.capacity() == 8739);
  for (uint32_t k = 0; k < 1000; ++k) REQUIRE(tree.Insert((uint64_t{k} + 1) << 12, 4096, k).ok());
  RequireValid(tree);
  const uint32_t hw = tree.high_water();
  CHECK(hw == tree.nodes_used());
  const RangeBTreeNode* storage = tree.node_storage();
  for (uint32_t i = hw; i < 8739; ++i) {
    REQUIRE(std::memcmp(&storage[i], &kZero, sizeof(RangeBTreeNode)) == 0);
  }
  tree.Clear();
}

TEST_CASE("Clear empties the tree in O(1) without touching a node, and the tree is reusable") {
  constexpr uint32_t kCap = 128;
  std::vector<RangeBTreeNode> buf(kCap);
  RangeBTree t(buf.data(), kCap);
  for (uint32_t k = 0; k < 1500; ++k) REQUIRE(t.Insert(uint64_t{k} * 0x2000, 0x1000, k).ok());
  REQUIRE(t.depth() == 3);
  const Snapshot before = Take(t, buf.data(), kCap);
  t.Clear();
  CHECK(std::vector<unsigned char>(before.bytes) == Take(t, buf.data(), kCap).bytes);
  CHECK(t.count() == 0);
  CHECK(t.empty());
  CHECK(t.depth() == 0);
  CHECK(t.nodes_used() == 0);
  CHECK(t.high_water() == 0);
  CHECK(t.nodes_available() == kCap);
  Entry e{};
  CHECK_FALSE(t.FindContaining(0x1000, &e));
  CHECK_FALSE(t.FindExact(0, &e));
  CHECK(t.Erase(0).is_api(HKE_STATUS_NOT_FOUND));
  RequireValid(t);
  // Reuse: the same entries go back in, from node 0 again.
  for (uint32_t k = 0; k < 1500; ++k) REQUIRE(t.Insert(uint64_t{k} * 0x2000, 0x1000, k).ok());
  CHECK(t.count() == 1500);
  RequireValid(t);
}

TEST_CASE("deletions rebalance: the depth follows the entry count down") {
  constexpr uint32_t kN = 100000;
  std::vector<RangeBTreeNode> buf(RangeBTreeNodesFor(kN));
  RangeBTree t(buf.data(), static_cast<uint32_t>(buf.size()));
  std::vector<uint64_t> starts(kN);
  for (uint32_t i = 0; i < kN; ++i) starts[i] = uint64_t{i} << 12;
  std::shuffle(starts.begin(), starts.end(), std::mt19937_64(7));
  for (uint32_t i = 0; i < kN; ++i) REQUIRE(t.Insert(starts[i], 4096, i).ok());
  RequireValid(t);
  CHECK(t.depth() <= MaxDepthFor(kN));  // 4
  CHECK(t.depth() >= 4);                // 31 * 32 * 32 < 100000
  // Erase all but 400 in another random order, checking as the count falls.
  std::shuffle(starts.begin(), starts.end(), std::mt19937_64(8));
  for (uint32_t i = 0; i + 400 < kN; ++i) {
    REQUIRE(t.Erase(starts[i]).ok());
    if (i % 997 == 0) {
      RequireValid(t);
      REQUIRE(t.depth() <= MaxDepthFor(t.count()));
      REQUIRE(t.nodes_used() <= RangeBTreeNodesFor(t.count()));
    }
  }
  RequireValid(t);
  CHECK(t.count() == 400);
  CHECK(t.depth() <= 2);
  CHECK(t.nodes_used() <= RangeBTreeNodesFor(400));
  for (uint32_t i = kN - 400; i < kN; ++i) {
    Entry e{};
    REQUIRE(t.FindContaining(starts[i] + 4095, &e));
    REQUIRE(e.start == starts[i]);
  }
}

TEST_CASE("CheckInvariants reports corrupted nodes with a reason") {
  std::vector<RangeBTreeNode> buf(16);
  RangeBTree t(buf.data(), 16);
  for (uint32_t k = 0; k < 100; ++k) REQUIRE(t.Insert(uint64_t{k} * 10, 5, k).ok());
  RequireValid(t);
  auto expect_broken = [&](const char* expected) {
    const char* why = nullptr;
    CHECK(t.CheckInvariants(&why).is_api(HKE_STATUS_INTERNAL));
    REQUIRE(why != nullptr);
    CHECK(std::string(why) == std::string(expected));
  };
  // Find a leaf (tag) and break it in several ways, restoring each time.
  // (one with room: the padding check writes past its count).
  uint32_t leaf = 0;
  while (buf[leaf].tag != RangeBTreeNode::kTagLeaf || buf[leaf].count == RangeBTreeNode::kKeys) ++leaf;
  const RangeBTreeNode saved = buf[leaf];
  buf[leaf].sizes[0] = 50;  // now overlaps its successor
  expect_broken("entries overlap");
  buf[leaf] = saved;
  std::swap(buf[leaf].keys[0], buf[leaf].keys[1]);  // unsorted
  expect_broken("keys not increasing in a node");
  buf[leaf] = saved;
  buf[leaf].keys[buf[leaf].count] = 12345;  // padding
  expect_broken("key padding is not UINT64_MAX");
  buf[leaf] = saved;
  buf[leaf].tag = RangeBTreeNode::kTagFree;
  expect_broken("a free node is reachable");
  buf[leaf] = saved;
  buf[leaf].count = 40;
  expect_broken("leaf over capacity");
  buf[leaf] = saved;
  buf[leaf].count = kRangeBTreeLeafMin - 1;
  expect_broken("leaf under the minimum fill");
  buf[leaf] = saved;
  RequireValid(t);
  // A separator that is no longer the minimum of its subtree.
  uint32_t inner = 0;
  while (buf[inner].tag != RangeBTreeNode::kTagInternal) ++inner;
  const RangeBTreeNode saved_inner = buf[inner];
  buf[inner].keys[0] -= 1;
  expect_broken("separator is not the minimum of its subtree");
  buf[inner] = saved_inner;
  RequireValid(t);
}

}  // namespace
