// Contracts of the fixed-capacity node pool and the AVL range tree
// (lib/memory/range_tree.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "lib/memory/range_tree.h"

namespace {

using hke::Status;
using namespace hke::memory;

using Key = std::tuple<uint64_t, uint64_t, uint32_t>;

Key KeyOf(const RangeTree& t, uint32_t i) {
  const RangeNode& n = t.node(i);
  return Key{n.start, n.size, n.value};
}

void RequireValid(const RangeTree& t) {
  const char* why = "";
  const Status s = t.CheckInvariants(&why);
  INFO("reason: " << why);
  REQUIRE(s.ok());
}

// The tree's in-order keys, walked with First/Successor.
std::vector<Key> InOrder(const RangeTree& t) {
  std::vector<Key> out;
  for (uint32_t i = t.First(); i != kNil; i = t.Successor(i)) out.push_back(KeyOf(t, i));
  return out;
}

std::vector<Key> ReverseOrder(const RangeTree& t) {
  std::vector<Key> out;
  for (uint32_t i = t.Last(); i != kNil; i = t.Predecessor(i)) out.push_back(KeyOf(t, i));
  return out;
}

bool Contains(const Key& k, uint64_t addr) {
  const uint64_t s = std::get<0>(k), z = std::get<1>(k);
  return s == addr || (s < addr && addr - s < z);
}

// One round of overlapping ranges for the containment tests: 100 random
// inserts (nested, overlapping, repeated starts, zero sizes, in a universe
// [0, 3000) with gaps), then 30 random erases; tree and model stay equal.
void ChurnOverlapping(RangeTree& t, std::set<Key>& model, std::mt19937_64& rng, size_t cap) {
  for (int i = 0; i < 100; ++i) {
    const uint64_t start = rng() % 2500;
    const uint64_t size = (rng() % 4 == 0) ? 0 : rng() % ((rng() % 3 == 0) ? 400 : 20);
    const Key k{start, size, static_cast<uint32_t>(rng() % 3)};
    if (model.size() < cap && model.insert(k).second) {
      REQUIRE(t.Insert(start, size, std::get<2>(k), nullptr).ok());
    }
  }
  for (int i = 0; i < 30 && !model.empty(); ++i) {
    auto it = model.lower_bound(Key{rng() % 2500, 0, 0});
    if (it == model.end()) it = model.begin();
    REQUIRE(t.Erase(t.FindExact(std::get<0>(*it), std::get<1>(*it), std::get<2>(*it))).ok());
    model.erase(it);
  }
  RequireValid(t);
}

TEST_CASE("RangeNode fits in 48 bytes") {
  CHECK(sizeof(RangeNode) <= 48);
  MESSAGE("sizeof(RangeNode) = " << sizeof(RangeNode));
}

TEST_CASE("pool construction does not touch the node storage; allocation touches only the nodes it hands out") {
  constexpr uint32_t kCap = 64;
  std::vector<RangeNode> buf(kCap);
  std::memset(static_cast<void*>(buf.data()), 0xAB, sizeof(RangeNode) * kCap);
  const std::vector<RangeNode> before = buf;
  auto same = [&](uint32_t i) {
    return std::memcmp(&buf[i], &before[i], sizeof(RangeNode)) == 0;
  };

  RangeNodePool pool(buf.data(), kCap);
  CHECK(pool.capacity() == kCap);
  CHECK(pool.used() == 0);
  CHECK(pool.high_water() == 0);
  for (uint32_t i = 0; i < kCap; ++i) REQUIRE(same(i));

  RangeTree t(&pool);
  for (uint32_t i = 0; i < 5; ++i) REQUIRE(t.Insert(i * 100, 10, 0, nullptr).ok());
  CHECK(pool.high_water() == 5);
  CHECK(pool.used() == 5);
  for (uint32_t i = 5; i < kCap; ++i) REQUIRE(same(i));
  RequireValid(t);

  // Releasing and re-allocating reuses released nodes before new ones.
  t.Clear();
  CHECK(pool.used() == 0);
  CHECK(pool.high_water() == 5);
  for (uint32_t i = 0; i < 5; ++i) REQUIRE(t.Insert(i, 1, 0, nullptr).ok());
  CHECK(pool.high_water() == 5);
  for (uint32_t i = 5; i < kCap; ++i) REQUIRE(same(i));
}

TEST_CASE("a FixedRangeNodePool in static storage stays untouched past its high-water mark") {
  // Zero-initialised static storage: the nodes beyond the ones used must
  // still read as zero (no eager free-list initialisation).
  static FixedRangeNodePool<4096> pool;
  RangeTree t(&pool);
  for (uint32_t i = 0; i < 3; ++i) REQUIRE(t.Insert(i, 1, 0, nullptr).ok());
  CHECK(pool.high_water() == 3);
  static const RangeNode kZero{};
  for (uint32_t i = 3; i < 4096; ++i) {
    REQUIRE(std::memcmp(&pool.at(i), &kZero, sizeof(RangeNode)) == 0);
  }
  t.Clear();
  CHECK(pool.used() == 0);
}

TEST_CASE("pool Allocate is O(1) LIFO reuse, refuses when full and refuses bad or double releases") {
  RangeNode buf[3];
  RangeNodePool pool(buf, 3);
  uint32_t a = 99, b = 99, c = 99;
  REQUIRE(pool.Allocate(&a).ok());
  REQUIRE(pool.Allocate(&b).ok());
  REQUIRE(pool.Allocate(&c).ok());
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK(c == 2);
  CHECK(pool.available() == 0);

  uint32_t out = 12345;
  CHECK(pool.Allocate(&out).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  CHECK(out == 12345);
  CHECK(pool.used() == 3);

  REQUIRE(pool.Release(1).ok());
  CHECK(pool.Release(1).is_api(HKE_STATUS_INVALID_HANDLE));  // double release
  CHECK(pool.Release(3).is_api(HKE_STATUS_INVALID_HANDLE));  // beyond high water
  CHECK(pool.Release(kNil).is_api(HKE_STATUS_INVALID_HANDLE));
  CHECK(pool.used() == 2);
  CHECK_FALSE(pool.IsAllocated(1));
  CHECK(pool.IsAllocated(0));

  REQUIRE(pool.Allocate(&out).ok());
  CHECK(out == 1);
  CHECK(pool.used() == 3);
}

TEST_CASE("Insert refuses duplicates, overflowing ranges and an empty pool without changing anything") {
  RangeNode buf[4];
  RangeNodePool pool(buf, 4);
  RangeTree t(&pool);
  uint32_t out = 777;
  REQUIRE(t.Insert(10, 5, 1, &out).ok());
  CHECK(out != 777);
  const uint32_t first = out;

  out = 777;
  CHECK(t.Insert(10, 5, 1, &out).is_api(HKE_STATUS_ALREADY_EXISTS));
  CHECK(out == 777);
  CHECK(t.Insert(UINT64_MAX, 1, 0, &out).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(t.Insert(1, UINT64_MAX, 0, &out).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(out == 777);
  CHECK(t.count() == 1);
  CHECK(pool.used() == 1);

  // Same start, different size or value: distinct keys.
  REQUIRE(t.Insert(10, 6, 1, nullptr).ok());
  REQUIRE(t.Insert(10, 5, 2, nullptr).ok());
  REQUIRE(t.Insert(UINT64_MAX, 0, 0, nullptr).ok());  // ends exactly at UINT64_MAX
  CHECK(pool.available() == 0);
  const std::vector<Key> keys = InOrder(t);

  CHECK(t.Insert(0, 1, 0, &out).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  CHECK(out == 777);
  CHECK(InOrder(t) == keys);
  CHECK(t.count() == 4);
  CHECK(pool.used() == 4);
  CHECK(t.FindExact(10, 5, 1) == first);
  RequireValid(t);
}

TEST_CASE("Erase refuses nodes that are free, foreign or out of range") {
  RangeNode buf[8];
  RangeNodePool pool(buf, 8);
  RangeTree a(&pool), b(&pool);
  uint32_t na = 0, nb = 0;
  REQUIRE(a.Insert(1, 1, 0, &na).ok());
  REQUIRE(a.Insert(2, 1, 0, nullptr).ok());
  REQUIRE(b.Insert(1, 1, 0, &nb).ok());
  CHECK(a.Erase(nb).is_api(HKE_STATUS_INVALID_HANDLE));
  CHECK(b.Erase(na).is_api(HKE_STATUS_INVALID_HANDLE));
  CHECK(a.Erase(7).is_api(HKE_STATUS_INVALID_HANDLE));
  CHECK(a.Erase(kNil).is_api(HKE_STATUS_INVALID_HANDLE));
  // A node allocated from the pool but never inserted is no tree's node.
  uint32_t loose = 0;
  REQUIRE(pool.Allocate(&loose).ok());
  CHECK(a.Erase(loose).is_api(HKE_STATUS_INVALID_HANDLE));
  REQUIRE(pool.Release(loose).ok());
  CHECK(a.count() == 2);
  CHECK(b.count() == 1);
  REQUIRE(a.Erase(na).ok());
  CHECK(a.Erase(na).is_api(HKE_STATUS_INVALID_HANDLE));  // already erased
  RequireValid(a);
  RequireValid(b);
  CHECK(pool.used() == 2);
}

TEST_CASE("random insert/erase streams keep the AVL invariants and match a std::set model") {
  constexpr uint32_t kCap = 1500;
  std::vector<RangeNode> buf(kCap);
  RangeNodePool pool(buf.data(), kCap);
  RangeTree t(&pool);
  std::set<Key> model;
  std::mt19937_64 rng(0x5eed1234);
  uint32_t exhausted = 0;

  for (int step = 0; step < 20000; ++step) {
    const uint64_t op = rng() % 100;
    // Small key spaces force duplicate starts and exact duplicates.
    const uint64_t start = rng() % 300;
    const uint64_t size = rng() % 4;
    const uint32_t value = static_cast<uint32_t>(rng() % 3);
    // Grow to the pool capacity during the first half, then settle lower.
    const uint64_t insert_share = step < 10000 ? 70 : 60;
    if (op < insert_share) {
      uint32_t idx = kNil;
      const Status s = t.Insert(start, size, value, &idx);
      const Key k{start, size, value};
      if (model.count(k) != 0) {
        REQUIRE(s.is_api(HKE_STATUS_ALREADY_EXISTS));
      } else if (model.size() == kCap) {
        REQUIRE(s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
        ++exhausted;
      } else {
        REQUIRE(s.ok());
        REQUIRE(KeyOf(t, idx) == k);
        model.insert(k);
      }
    } else if (!model.empty()) {
      // Erase a model key looked up through the tree.
      auto it = model.lower_bound(Key{start, size, value});
      if (it == model.end()) it = model.begin();
      const uint32_t idx = t.FindExact(std::get<0>(*it), std::get<1>(*it), std::get<2>(*it));
      REQUIRE(idx != kNil);
      REQUIRE(t.Erase(idx).ok());
      model.erase(it);
    }
    RequireValid(t);
    REQUIRE(t.count() == model.size());
    REQUIRE(pool.used() == model.size());
    // AVL height bound: h < 1.4405 log2(n + 2).
    if (t.root() != kNil) {
      REQUIRE(t.node(t.root()).height <= 1.4405 * std::log2(double(model.size()) + 2.0));
    }
  }
  CHECK(InOrder(t) == std::vector<Key>(model.begin(), model.end()));
  CHECK(ReverseOrder(t) == std::vector<Key>(model.rbegin(), model.rend()));
  MESSAGE("final size " << model.size() << ", exhausted inserts " << exhausted);
  t.Clear();
  CHECK(pool.used() == 0);
  CHECK(t.count() == 0);
  RequireValid(t);
}

TEST_CASE("sequential inserts and erases from both ends stay balanced") {
  constexpr uint32_t kCap = 1 << 15;
  std::vector<RangeNode> buf(kCap);
  RangeNodePool pool(buf.data(), kCap);
  RangeTree t(&pool);
  for (uint32_t i = 0; i < kCap; ++i) REQUIRE(t.Insert(uint64_t{i} << 12, 4096, 0, nullptr).ok());
  RequireValid(t);
  CHECK(t.node(t.root()).height <= 1.4405 * std::log2(double(kCap) + 2.0));
  for (uint32_t i = 0; i < kCap / 2; ++i) {
    REQUIRE(t.Erase(t.First()).ok());
    REQUIRE(t.Erase(t.Last()).ok());
  }
  CHECK(t.count() == 0);
  CHECK(pool.used() == 0);
  RequireValid(t);
}

TEST_CASE("lookups agree with the model: FindExact, LowerBound, FindAtOrBelow, neighbours") {
  constexpr uint32_t kCap = 600;
  std::vector<RangeNode> buf(kCap);
  RangeNodePool pool(buf.data(), kCap);
  RangeTree t(&pool);
  std::set<Key> model;
  std::mt19937_64 rng(42);
  while (model.size() < 500) {
    const Key k{rng() % 2000, rng() % 50, static_cast<uint32_t>(rng() % 2)};
    if (model.insert(k).second) REQUIRE(t.Insert(std::get<0>(k), std::get<1>(k), std::get<2>(k), nullptr).ok());
  }
  RequireValid(t);
  CHECK(KeyOf(t, t.First()) == *model.begin());
  CHECK(KeyOf(t, t.Last()) == *model.rbegin());

  for (int q = 0; q < 5000; ++q) {
    const uint64_t s = rng() % 2100, z = rng() % 60;
    const uint32_t v = static_cast<uint32_t>(rng() % 2);
    const uint32_t exact = t.FindExact(s, z, v);
    REQUIRE((exact != kNil) == (model.count(Key{s, z, v}) != 0));

    const auto lb = model.lower_bound(Key{s, z, 0});
    const uint32_t tlb = t.LowerBound(s, z);
    if (lb == model.end()) {
      REQUIRE(tlb == kNil);
    } else {
      REQUIRE(tlb != kNil);
      REQUIRE(KeyOf(t, tlb) == *lb);
      // Neighbours of that node.
      const uint32_t succ = t.Successor(tlb), pred = t.Predecessor(tlb);
      auto next = std::next(lb);
      REQUIRE((succ == kNil) == (next == model.end()));
      if (succ != kNil) REQUIRE(KeyOf(t, succ) == *next);
      REQUIRE((pred == kNil) == (lb == model.begin()));
      if (pred != kNil) REQUIRE(KeyOf(t, pred) == *std::prev(lb));
    }

    // Last node whose start <= s: the last key < (s + 1, 0, 0).
    const auto ub = model.lower_bound(Key{s + 1, 0, 0});
    const uint32_t tle = t.FindAtOrBelow(s);
    if (ub == model.begin()) {
      REQUIRE(tle == kNil);
    } else {
      REQUIRE(tle != kNil);
      REQUIRE(KeyOf(t, tle) == *std::prev(ub));
    }
  }
  t.Clear();
  CHECK(pool.used() == 0);
}

TEST_CASE("FindContaining on overlapping intervals returns the smallest containing key, as brute force does") {
  constexpr uint32_t kCap = 800;
  std::vector<RangeNode> buf(kCap);
  RangeNodePool pool(buf.data(), kCap);
  RangeTree t(&pool);
  std::set<Key> model;
  std::mt19937_64 rng(7);
  int hits = 0, zero_size_hits = 0;

  auto brute = [&](uint64_t addr) -> const Key* {
    for (const Key& k : model) {
      if (Contains(k, addr)) return &k;
    }
    return nullptr;
  };
  auto check_all = [&](uint64_t lo, uint64_t hi) {
    for (uint64_t addr = lo; addr < hi; ++addr) {
      const Key* want = brute(addr);
      const uint32_t got = t.FindContaining(addr);
      if (want == nullptr) {
        REQUIRE(got == kNil);
      } else {
        REQUIRE(got != kNil);
        REQUIRE(KeyOf(t, got) == *want);
        ++hits;
        if (std::get<1>(*want) == 0) ++zero_size_hits;
      }
    }
  };

  for (int round = 0; round < 6; ++round) {
    ChurnOverlapping(t, model, rng, kCap);
    check_all(0, 3000);
  }
  // Extremes of the address space.
  REQUIRE(t.Insert(UINT64_MAX, 0, 0, nullptr).ok());
  REQUIRE(t.Insert(UINT64_MAX - 10, 10, 0, nullptr).ok());
  model.insert(Key{UINT64_MAX, 0, 0});
  model.insert(Key{UINT64_MAX - 10, 10, 0});
  check_all(UINT64_MAX - 20, UINT64_MAX);
  CHECK(t.FindContaining(UINT64_MAX) == t.FindExact(UINT64_MAX, 0, 0));
  CHECK(hits > 1000);
  CHECK(zero_size_hits > 0);
  MESSAGE("containing hits " << hits << " (zero-size " << zero_size_hits << ")");
  t.Clear();
}

TEST_CASE("FindContaining: ends are exclusive, a size-0 range contains only its start, the smallest key wins") {
  RangeNode buf[8];
  RangeNodePool pool(buf, 8);
  RangeTree t(&pool);
  uint32_t a = 0, z = 0, b = 0, c = 0, d = 0;
  REQUIRE(t.Insert(5, 5, 0, &a).ok());    // [5, 10)
  REQUIRE(t.Insert(10, 0, 0, &z).ok());   // {10}
  REQUIRE(t.Insert(10, 3, 0, &b).ok());   // [10, 13)
  REQUIRE(t.Insert(10, 3, 7, &c).ok());   // [10, 13), another value
  REQUIRE(t.Insert(2, 100, 0, &d).ok());  // [2, 102) encloses everything
  CHECK(t.FindContaining(1) == kNil);
  CHECK(t.FindContaining(2) == d);
  CHECK(t.FindContaining(50) == d);
  CHECK(t.FindContaining(102) == kNil);
  REQUIRE(t.Erase(d).ok());
  CHECK(t.FindContaining(4) == kNil);
  CHECK(t.FindContaining(5) == a);
  CHECK(t.FindContaining(9) == a);
  CHECK(t.FindContaining(10) == z);  // [5,10) ends before 10; {10} sorts first
  REQUIRE(t.Erase(z).ok());
  CHECK(t.FindContaining(10) == b);  // (10,3,0) before (10,3,7)
  CHECK(t.FindContaining(12) == b);
  REQUIRE(t.Erase(b).ok());
  CHECK(t.FindContaining(12) == c);
  CHECK(t.FindContaining(13) == kNil);
  RequireValid(t);
  t.Clear();
}

TEST_CASE("FindNearestContaining returns a range starting at the address, else the nearest enclosing start, as brute force does") {
  constexpr uint32_t kCap = 800;
  std::vector<RangeNode> buf(kCap);
  RangeNodePool pool(buf.data(), kCap);
  RangeTree t(&pool);
  std::set<Key> model;
  std::mt19937_64 rng(11);
  int at_start = 0, enclosing = 0;
  // Upstream's choice: the smallest key starting at addr; else the
  // greatest key starting before addr whose range contains it.
  auto brute = [&](uint64_t addr) -> const Key* {
    auto it = model.lower_bound(Key{addr, 0, 0});
    if (it != model.end() && std::get<0>(*it) == addr) return &*it;
    const Key* best = nullptr;
    for (const Key& k : model) {
      if (std::get<0>(k) < addr && Contains(k, addr)) best = &k;
    }
    return best;
  };
  for (int round = 0; round < 6; ++round) {
    ChurnOverlapping(t, model, rng, kCap);
    for (uint64_t addr = 0; addr < 3000; ++addr) {
      const Key* want = brute(addr);
      const uint32_t got = t.FindNearestContaining(addr);
      if (want == nullptr) {
        REQUIRE(got == kNil);
        continue;
      }
      REQUIRE(got != kNil);
      REQUIRE(KeyOf(t, got) == *want);
      ++(std::get<0>(*want) == addr ? at_start : enclosing);
    }
  }
  CHECK(at_start > 100);
  CHECK(enclosing > 1000);
  t.Clear();
}

TEST_CASE("FindNearestContaining: a start at the address wins, then the nearest enclosing start, the largest of equal starts") {
  RangeNode buf[8];
  RangeNodePool pool(buf, 8);
  RangeTree t(&pool);
  uint32_t outer = 0, inner = 0, small = 0, big = 0, at = 0;
  REQUIRE(t.Insert(0, 1000, 0, &outer).ok());   // [0, 1000)
  REQUIRE(t.Insert(100, 50, 0, &inner).ok());   // [100, 150)
  REQUIRE(t.Insert(500, 10, 0, &small).ok());   // [500, 510)
  REQUIRE(t.Insert(500, 100, 0, &big).ok());    // [500, 600)
  REQUIRE(t.Insert(120, 0, 0, &at).ok());       // {120}
  CHECK(t.FindNearestContaining(110) == inner);  // not the enclosing [0, 1000)
  CHECK(t.FindNearestContaining(120) == at);     // a start at the address
  CHECK(t.FindNearestContaining(150) == outer);  // ends are exclusive
  CHECK(t.FindNearestContaining(500) == small);  // the smallest key starting there
  CHECK(t.FindNearestContaining(505) == big);    // of equal starts, the largest
  CHECK(t.FindNearestContaining(520) == big);
  CHECK(t.FindNearestContaining(1000) == kNil);
  RequireValid(t);
  t.Clear();
}

TEST_CASE("trees sharing one pool draw from the same capacity and Clear returns only their own nodes") {
  RangeNode buf[10];
  RangeNodePool pool(buf, 10);
  RangeTree a(&pool), b(&pool);
  for (uint32_t i = 0; i < 6; ++i) REQUIRE(a.Insert(i, 1, 0, nullptr).ok());
  for (uint32_t i = 0; i < 4; ++i) REQUIRE(b.Insert(i, 2, 0, nullptr).ok());
  CHECK(b.Insert(100, 1, 0, nullptr).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  CHECK(a.Insert(100, 1, 0, nullptr).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  a.Clear();
  CHECK(pool.used() == 4);
  RequireValid(b);
  CHECK(b.count() == 4);
  for (uint32_t i = 0; i < 6; ++i) REQUIRE(b.Insert(100 + i, 1, 0, nullptr).ok());
  CHECK(pool.available() == 0);
  RequireValid(b);
  b.Clear();
  CHECK(pool.used() == 0);
}

TEST_CASE("Init attaches a pool only to an empty tree") {
  RangeNode buf[2];
  RangeNodePool pool(buf, 2);
  RangeTree t;
  CHECK(t.Insert(1, 1, 0, nullptr).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(t.Init(nullptr).is_api(HKE_STATUS_INVALID_ARGUMENT));
  REQUIRE(t.Init(&pool).ok());
  REQUIRE(t.Insert(1, 1, 0, nullptr).ok());
  CHECK(t.Init(&pool).is_api(HKE_STATUS_FAILED_PRECONDITION));
  t.Clear();
  CHECK(t.Init(&pool).ok());
}

TEST_CASE("CheckInvariants reports a corrupted max_end, height, order and parent link") {
  RangeNode buf[8];
  RangeNodePool pool(buf, 8);
  RangeTree t(&pool);
  uint32_t idx[3];
  REQUIRE(t.Insert(10, 5, 0, &idx[0]).ok());
  REQUIRE(t.Insert(20, 5, 0, &idx[1]).ok());
  REQUIRE(t.Insert(30, 5, 0, &idx[2]).ok());
  RequireValid(t);
  const uint32_t leaf = t.First();  // (10,5): a leaf of the 3-node tree

  const char* why = nullptr;
  auto corrupt = [&](auto mutate, const char* expect_fragment) {
    const RangeNode saved = pool.at(leaf);
    mutate(pool.at(leaf));
    why = nullptr;
    CHECK(t.CheckInvariants(&why).is_api(HKE_STATUS_INTERNAL));
    REQUIRE(why != nullptr);
    CHECK(std::string(why).find(expect_fragment) != std::string::npos);
    pool.at(leaf) = saved;
    RequireValid(t);
  };
  corrupt([](RangeNode& n) { n.max_end = 1; }, "max_end");
  corrupt([](RangeNode& n) { n.height = 2; }, "height");
  corrupt(
      [](RangeNode& n) {
        n.start = 25;
        n.max_end = 30;
      },
      "increasing");
  corrupt([](RangeNode& n) { n.parent = kNil; }, "parent");
  t.Clear();
}

}  // namespace
