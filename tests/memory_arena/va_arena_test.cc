// Contracts of the aperture address manager (lib/memory/va_arena.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "lib/memory/va_arena.h"

namespace {

using hke::Status;
using namespace hke::memory;

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

Ranges FreeList(const VaArena& a) {
  Ranges out;
  const RangeTree& t = a.free_by_address();
  for (uint32_t i = t.First(); i != kNil; i = t.Successor(i)) {
    out.emplace_back(t.node(i).start, t.node(i).size);
  }
  return out;
}

// Everything a failed call must leave as it was.
struct Snapshot {
  Ranges ranges;
  uint64_t free_bytes;
  uint64_t largest;
  uint32_t used;
  uint32_t high_water;
  bool operator==(const Snapshot& o) const {
    return ranges == o.ranges && free_bytes == o.free_bytes && largest == o.largest &&
           used == o.used && high_water == o.high_water;
  }
};

Snapshot Take(const VaArena& a, const RangeNodePool& p) {
  return Snapshot{FreeList(a), a.FreeBytes(), a.LargestFree(), p.used(), p.high_water()};
}

void RequireValid(const VaArena& a) {
  const char* why = "";
  const Status s = a.CheckInvariants(&why);
  INFO("reason: " << why);
  REQUIRE(s.ok());
}

// The free gaps of an aperture given its live allocations.
Ranges Gaps(uint64_t base, uint64_t size, const std::map<uint64_t, uint64_t>& live) {
  Ranges out;
  uint64_t cur = base;
  for (const auto& [addr, len] : live) {
    if (addr > cur) out.emplace_back(cur, addr - cur);
    cur = addr + len;
  }
  if (base + size > cur) out.emplace_back(cur, base + size - cur);
  return out;
}

struct Fixture {
  FixedRangeNodePool<4096> pool;
  VaArena arena;
};

TEST_CASE("Init validates the aperture and granule and takes two nodes") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  CHECK(a.Init(nullptr, 0, kMiB, kPage).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(a.Init(&f->pool, 0, kMiB, 2048).is_api(HKE_STATUS_INVALID_ARGUMENT));          // granule too small
  CHECK(a.Init(&f->pool, 0, kMiB, 3 * kPage).is_api(HKE_STATUS_INVALID_ARGUMENT));     // not a power of two
  CHECK(a.Init(&f->pool, kPage / 2, kMiB, kPage).is_api(HKE_STATUS_INVALID_ARGUMENT));  // misaligned base
  CHECK(a.Init(&f->pool, 0, kMiB + 1, kPage).is_api(HKE_STATUS_INVALID_ARGUMENT));     // misaligned size
  CHECK(a.Init(&f->pool, 0, 0, kPage).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(a.Init(&f->pool, UINT64_MAX - kMiB + 1, 2 * kMiB, kPage)
            .is_api(HKE_STATUS_INVALID_ARGUMENT));  // base + size wraps
  CHECK_FALSE(a.initialized());
  CHECK(f->pool.used() == 0);

  uint64_t out = 0xA5A5;
  CHECK(a.Allocate(kPage, 0, &out).is_api(HKE_STATUS_FAILED_PRECONDITION));
  CHECK(a.AllocateAt(0, kPage).is_api(HKE_STATUS_FAILED_PRECONDITION));
  CHECK(a.Free(0, kPage).is_api(HKE_STATUS_FAILED_PRECONDITION));
  CHECK(out == 0xA5A5);
  RequireValid(a);

  RangeNode one[1];
  RangeNodePool tiny(one, 1);
  CHECK(a.Init(&tiny, 0, kMiB, kPage).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  CHECK(tiny.used() == 0);

  // The top of the 64-bit space (the end stays representable).
  REQUIRE(a.Init(&f->pool, UINT64_MAX - 2 * kMiB + 1, kMiB, kPage).ok());
  CHECK(f->pool.used() == 2);
  CHECK(a.Init(&f->pool, 0, kMiB, kPage).is_api(HKE_STATUS_FAILED_PRECONDITION));
  CHECK(a.FreeBytes() == kMiB);
  CHECK(a.LargestFree() == kMiB);
  CHECK(a.FreeRanges() == 1);
  RequireValid(a);
  a.Reset();
  CHECK(f->pool.used() == 0);
  CHECK_FALSE(a.initialized());
  REQUIRE(a.Init(&f->pool, 0x100000, 64 * kMiB, 64 * 1024).ok());
  CHECK(a.granule() == 64 * 1024);
  CHECK(a.base() == 0x100000);
  CHECK(a.size() == 64 * kMiB);
  a.Reset();
}

TEST_CASE("best fit takes the smallest free range that holds the block, lowest address first") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  const uint64_t base = 0x10000000;
  REQUIRE(a.Init(&f->pool, base, 64 * kPage, kPage).ok());
  REQUIRE(a.AllocateAt(base, 64 * kPage).ok());  // everything allocated
  CHECK(a.FreeRanges() == 0);
  CHECK(a.LargestFree() == 0);
  uint64_t out = 0;
  CHECK(a.Allocate(kPage, 0, &out).is_api(HKE_STATUS_UNAVAILABLE));
  // Holes (pages): [2,7) 5, [10,13) 3, [20,28) 8, [40,43) 3, separated by
  // allocated pages.
  REQUIRE(a.Free(base + 2 * kPage, 5 * kPage).ok());
  REQUIRE(a.Free(base + 10 * kPage, 3 * kPage).ok());
  REQUIRE(a.Free(base + 20 * kPage, 8 * kPage).ok());
  REQUIRE(a.Free(base + 40 * kPage, 3 * kPage).ok());
  RequireValid(a);
  CHECK(a.FreeRanges() == 4);
  CHECK(a.LargestFree() == 8 * kPage);
  CHECK(a.FreeBytes() == 19 * kPage);

  REQUIRE(a.Allocate(2 * kPage, 0, &out).ok());
  CHECK(out == base + 10 * kPage);  // a 3-page hole, the lower one
  REQUIRE(a.Allocate(3 * kPage, 0, &out).ok());
  CHECK(out == base + 40 * kPage);  // the other 3-page hole, exact fit
  REQUIRE(a.Allocate(4 * kPage + 1, 0, &out).ok());  // rounds up to 5 pages
  CHECK(out == base + 2 * kPage);
  REQUIRE(a.Allocate(6 * kPage, 0, &out).ok());
  CHECK(out == base + 20 * kPage);
  CHECK(a.Allocate(3 * kPage, 0, &out).is_api(HKE_STATUS_UNAVAILABLE));
  CHECK(out == base + 20 * kPage);  // untouched by the failure
  CHECK(a.FreeBytes() == 3 * kPage);
  RequireValid(a);
  a.Reset();
}

TEST_CASE("alignment up to 1 GiB is absolute, honoured and checked") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  // An aperture that starts 16 MiB below a 1 GiB boundary.
  const uint64_t base = 5 * kGiB - 16 * kMiB;
  REQUIRE(a.Init(&f->pool, base, 8 * kGiB, kPage).ok());
  uint64_t out = 0;
  std::vector<std::pair<uint64_t, uint64_t>> live;
  for (uint64_t align = kPage; align <= kGiB; align <<= 1) {
    REQUIRE(a.Allocate(kPage, align, &out).ok());
    CHECK(out % align == 0);
    CHECK(out >= base);
    CHECK(out + kPage <= base + 8 * kGiB);
    live.emplace_back(out, kPage);
    RequireValid(a);
  }
  // Large aligned blocks.
  REQUIRE(a.Allocate(kGiB, kGiB, &out).ok());
  CHECK(out % kGiB == 0);
  live.emplace_back(out, kGiB);
  REQUIRE(a.Allocate(3 * kMiB, 2 * kMiB, &out).ok());
  CHECK(out % (2 * kMiB) == 0);
  live.emplace_back(out, 3 * kMiB);
  RequireValid(a);
  uint64_t used = 0;
  for (auto& [addr, len] : live) used += len;
  CHECK(a.FreeBytes() == 8 * kGiB - used);

  CHECK(a.Allocate(kPage, 3 * kPage, &out).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(a.Allocate(kPage, 2048, &out).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(a.Allocate(0, 0, &out).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(a.Allocate(kPage, 0, nullptr).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(a.Allocate(16 * kGiB, 0, &out).is_api(HKE_STATUS_OUT_OF_RANGE));  // larger than the aperture
  CHECK(a.Allocate(UINT64_MAX, 0, &out).is_api(HKE_STATUS_OUT_OF_RANGE));  // rounding overflows
  // 8 GiB aligned to 8 GiB cannot fit an aperture that starts off that boundary.
  CHECK(a.Allocate(8 * kGiB, 8 * kGiB, &out).is_api(HKE_STATUS_OUT_OF_RANGE));
  for (auto& [addr, len] : live) REQUIRE(a.Free(addr, len).ok());
  CHECK(a.FreeRanges() == 1);
  CHECK(a.FreeBytes() == 8 * kGiB);
  RequireValid(a);
  a.Reset();
}

TEST_CASE("an aligned request falls back to a range that certainly fits when the smallest ranges do not") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  const uint64_t base = 64 * kMiB;
  REQUIRE(a.Init(&f->pool, base, 64 * kMiB, kPage).ok());
  REQUIRE(a.AllocateAt(base, 64 * kMiB).ok());
  // Six 2-page holes, each starting 1 page past a 64 KiB boundary: none
  // holds a 64 KiB-aligned page. One large hole further up does.
  for (uint64_t i = 0; i < 6; ++i) REQUIRE(a.Free(base + i * kMiB + kPage, 2 * kPage).ok());
  REQUIRE(a.Free(base + 32 * kMiB + kPage, 40 * kPage).ok());
  uint64_t out = 0;
  REQUIRE(a.Allocate(kPage, 64 * 1024, &out).ok());
  CHECK(out == base + 32 * kMiB + 64 * 1024);
  RequireValid(a);
  CHECK(a.FreeRanges() == 8);  // the large hole split in two
  a.Reset();
}

TEST_CASE("AllocateAt refuses ranges that are not entirely free or not inside, and changes nothing") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  const uint64_t base = 0x40000000;
  const uint64_t size = 256 * kPage;
  REQUIRE(a.Init(&f->pool, base, size, kPage).ok());
  const uint64_t x = base + 100 * kPage;
  REQUIRE(a.AllocateAt(x, 10 * kPage).ok());
  CHECK_FALSE(a.IsFree(x, kPage));
  CHECK(a.IsFree(x - kPage, kPage));
  CHECK(a.IsFree(x + 10 * kPage, kPage));
  RequireValid(a);
  const Snapshot before = Take(a, f->pool);

  CHECK(a.AllocateAt(x, 10 * kPage).is_api(HKE_STATUS_ALREADY_EXISTS));              // identical
  CHECK(a.AllocateAt(x - kPage, 2 * kPage).is_api(HKE_STATUS_ALREADY_EXISTS));       // overlaps the start
  CHECK(a.AllocateAt(x + 9 * kPage, 2 * kPage).is_api(HKE_STATUS_ALREADY_EXISTS));   // overlaps the end
  CHECK(a.AllocateAt(x + 3 * kPage, kPage).is_api(HKE_STATUS_ALREADY_EXISTS));       // inside
  CHECK(a.AllocateAt(x - kPage, 12 * kPage).is_api(HKE_STATUS_ALREADY_EXISTS));      // encloses
  CHECK(a.AllocateAt(base - kPage, kPage).is_api(HKE_STATUS_OUT_OF_RANGE));          // below
  CHECK(a.AllocateAt(base + size, kPage).is_api(HKE_STATUS_OUT_OF_RANGE));           // above
  CHECK(a.AllocateAt(base + size - kPage, 2 * kPage).is_api(HKE_STATUS_OUT_OF_RANGE));  // straddles the end
  CHECK(a.AllocateAt(base, UINT64_MAX).is_api(HKE_STATUS_OUT_OF_RANGE));
  CHECK(a.AllocateAt(base + 1, kPage).is_api(HKE_STATUS_INVALID_ARGUMENT));          // misaligned
  CHECK(a.AllocateAt(base, 0).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(Take(a, f->pool) == before);
  RequireValid(a);

  // Exactly adjacent on both sides is fine; sizes round up.
  REQUIRE(a.AllocateAt(x - kPage, 1).ok());
  REQUIRE(a.AllocateAt(x + 10 * kPage, kPage).ok());
  CHECK(a.FreeBytes() == size - 12 * kPage);
  RequireValid(a);
  a.Reset();
}

TEST_CASE("Free coalesces with both neighbours; node costs match the documented table") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  RangeNodePool& p = f->pool;
  const uint64_t base = 0x1000000;
  REQUIRE(a.Init(&p, base, 100 * kPage, kPage).ok());
  CHECK(p.used() == 2);  // Init: +2

  // Allocation cut from one end of a range: 0 nodes.
  REQUIRE(a.AllocateAt(base, 10 * kPage).ok());
  CHECK(p.used() == 2);
  // Strictly inside a range: +2.
  REQUIRE(a.AllocateAt(base + 20 * kPage, 10 * kPage).ok());
  CHECK(p.used() == 4);
  CHECK(a.FreeRanges() == 2);
  // Taking a whole range: -2.
  REQUIRE(a.AllocateAt(base + 10 * kPage, 10 * kPage).ok());
  CHECK(p.used() == 2);
  CHECK(a.FreeRanges() == 1);
  // Now [base, base+30p) is allocated (three blocks), free is [30p, 100p).
  // Free with no free neighbour: +2.
  REQUIRE(a.Free(base + 10 * kPage, 10 * kPage).ok());
  CHECK(p.used() == 4);
  CHECK(a.FreeRanges() == 2);
  // Free with one free neighbour (the right one): 0.
  REQUIRE(a.Free(base, 10 * kPage).ok());
  CHECK(p.used() == 4);
  CHECK(a.FreeRanges() == 2);
  CHECK(FreeList(a) == Ranges{{base, 20 * kPage}, {base + 30 * kPage, 70 * kPage}});
  // Free with both neighbours free: -2, one range again.
  REQUIRE(a.Free(base + 20 * kPage, 10 * kPage).ok());
  CHECK(p.used() == 2);
  CHECK(FreeList(a) == Ranges{{base, 100 * kPage}});
  CHECK(a.FreeBytes() == 100 * kPage);
  RequireValid(a);
  a.Reset();
  CHECK(p.used() == 0);
}

TEST_CASE("double free and frees overlapping free space are refused with NOT_FOUND and change nothing") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  const uint64_t base = 0x200000000;
  REQUIRE(a.Init(&f->pool, base, 64 * kPage, kPage).ok());
  uint64_t x = 0, y = 0;
  REQUIRE(a.Allocate(8 * kPage, 0, &x).ok());
  REQUIRE(a.Allocate(8 * kPage, 0, &y).ok());
  REQUIRE(a.Free(x, 8 * kPage).ok());
  const Snapshot before = Take(a, f->pool);

  CHECK(a.Free(x, 8 * kPage).is_api(HKE_STATUS_NOT_FOUND));              // exact double free
  CHECK(a.Free(x + kPage, kPage).is_api(HKE_STATUS_NOT_FOUND));          // inside free space
  CHECK(a.Free(x, 16 * kPage).is_api(HKE_STATUS_NOT_FOUND));             // free + allocated
  CHECK(a.Free(y + 4 * kPage, 8 * kPage).is_api(HKE_STATUS_NOT_FOUND));  // allocated + free tail
  CHECK(a.Free(base, 64 * kPage).is_api(HKE_STATUS_NOT_FOUND));          // the whole aperture
  CHECK(a.Free(base - kPage, kPage).is_api(HKE_STATUS_OUT_OF_RANGE));
  CHECK(a.Free(base + 64 * kPage, kPage).is_api(HKE_STATUS_OUT_OF_RANGE));
  CHECK(a.Free(y + 1, kPage).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(a.Free(y, 0).is_api(HKE_STATUS_INVALID_ARGUMENT));
  CHECK(Take(a, f->pool) == before);
  RequireValid(a);
  REQUIRE(a.Free(y, 8 * kPage).ok());
  CHECK(a.Free(y, 8 * kPage).is_api(HKE_STATUS_NOT_FOUND));
  CHECK(a.FreeRanges() == 1);
  RequireValid(a);
  a.Reset();
}

TEST_CASE("pool exhaustion in the middle of a split or an isolated free leaves arena and pool unchanged") {
  RangeNode buf[4];
  RangeNodePool pool(buf, 4);
  VaArena a;
  const uint64_t base = 0x100000 + kPage;  // not 64 KiB-aligned
  REQUIRE(a.Init(&pool, base, 64 * kPage, kPage).ok());
  // A second tree on the same pool takes the other two nodes.
  RangeTree other(&pool);
  REQUIRE(other.Insert(1, 1, 0, nullptr).ok());
  REQUIRE(other.Insert(2, 1, 0, nullptr).ok());
  CHECK(pool.available() == 0);
  Snapshot before = Take(a, pool);

  uint64_t out = 0xA5A5A5A5;
  // Split in the middle: needs 2 nodes.
  CHECK(a.AllocateAt(base + 8 * kPage, kPage).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  // Aligned block that needs padding in front of it: also a split.
  CHECK(a.Allocate(kPage, 64 * 1024, &out).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  CHECK(out == 0xA5A5A5A5);
  CHECK(Take(a, pool) == before);
  RequireValid(a);
  // Cutting from one end costs nothing, so it still works.
  REQUIRE(a.Allocate(4 * kPage, 0, &out).ok());
  CHECK(out == base);
  REQUIRE(a.AllocateAt(base + 60 * kPage, 4 * kPage).ok());
  CHECK(pool.available() == 0);
  RequireValid(a);

  // Take the rest: [4p, 60p) in two blocks, so the arena has no free range.
  REQUIRE(a.AllocateAt(base + 4 * kPage, 28 * kPage).ok());
  REQUIRE(a.AllocateAt(base + 32 * kPage, 28 * kPage).ok());
  CHECK(a.FreeRanges() == 0);
  CHECK(pool.available() == 2);
  REQUIRE(other.Insert(3, 1, 0, nullptr).ok());
  REQUIRE(other.Insert(4, 1, 0, nullptr).ok());
  before = Take(a, pool);
  // A free with no free neighbour needs 2 nodes.
  CHECK(a.Free(base + 4 * kPage, 28 * kPage).is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  CHECK(Take(a, pool) == before);
  RequireValid(a);
  other.Clear();
  REQUIRE(a.Free(base + 4 * kPage, 28 * kPage).ok());
  REQUIRE(a.Free(base + 32 * kPage, 28 * kPage).ok());  // merges: 0 nodes
  REQUIRE(a.Free(base, 4 * kPage).ok());
  REQUIRE(a.Free(base + 60 * kPage, 4 * kPage).ok());  // both neighbours: -2
  CHECK(a.FreeRanges() == 1);
  CHECK(pool.used() == 2);
  RequireValid(a);
  a.Reset();
  CHECK(pool.used() == 0);
}

TEST_CASE("a pool of 2(k+1) nodes is enough for an arena with at most k live allocations") {
  constexpr uint32_t kLive = 40;
  RangeNode buf[2 * (kLive + 1)];
  RangeNodePool pool(buf, 2 * (kLive + 1));
  VaArena a;
  const uint64_t base = 0x7f0000000000;
  REQUIRE(a.Init(&pool, base, 4096 * kPage, kPage).ok());
  std::mt19937_64 rng(99);
  std::vector<std::pair<uint64_t, uint64_t>> live;
  uint32_t max_used = 0;
  for (int step = 0; step < 20000; ++step) {
    const bool alloc = live.size() < kLive && (live.empty() || rng() % 2 == 0);
    if (alloc) {
      const uint64_t len = (1 + rng() % 16) * kPage;
      uint64_t out = 0;
      Status s;
      if (rng() % 2 == 0) {
        s = a.Allocate(len, kPage << (rng() % 5), &out);
      } else {
        out = base + (rng() % 4096) * kPage;
        s = a.AllocateAt(out, len);
      }
      REQUIRE_FALSE(s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
      if (s.ok()) live.emplace_back(out, len);
    } else {
      const size_t i = rng() % live.size();
      REQUIRE(a.Free(live[i].first, live[i].second).ok());
      live[i] = live.back();
      live.pop_back();
    }
    REQUIRE(pool.used() <= 2 * (live.size() + 1));
    max_used = std::max(max_used, pool.used());
  }
  RequireValid(a);
  MESSAGE("random stream: at most " << max_used << " of " << pool.capacity() << " nodes used");
  a.Reset();

  // The bound is reached: k blocks each strictly inside free space leave
  // k + 1 free ranges. Freeing them in any order never runs out.
  REQUIRE(a.Init(&pool, base, 4096 * kPage, kPage).ok());
  for (uint64_t i = 0; i < kLive; ++i) REQUIRE(a.AllocateAt(base + (2 * i + 1) * kPage, kPage).ok());
  CHECK(a.FreeRanges() == kLive + 1);
  CHECK(pool.used() == pool.capacity());
  for (uint64_t i = 0; i < kLive; ++i) {
    const uint64_t j = (i * 17) % kLive;  // 17 is coprime with 40: a permutation
    REQUIRE(a.Free(base + (2 * j + 1) * kPage, kPage).ok());
  }
  CHECK(a.FreeRanges() == 1);
  RequireValid(a);
  a.Reset();
}

TEST_CASE("100,000 random alloc/free steps keep every invariant and match a model, checked at every step") {
  auto f = std::make_unique<Fixture>();
  VaArena& a = f->arena;
  const uint64_t base = 0x1000000000;
  const uint64_t size = 4 * kGiB;
  REQUIRE(a.Init(&f->pool, base, size, kPage).ok());
  std::map<uint64_t, uint64_t> live;
  uint64_t live_bytes = 0;
  std::mt19937_64 rng(0xa11ce);
  uint32_t allocs = 0, frees = 0, at_ok = 0, at_refused = 0, unavailable = 0, bogus = 0;
  size_t max_live = 0;

  auto overlaps_live = [&](uint64_t addr, uint64_t len) {
    auto it = live.lower_bound(addr);
    if (it != live.end() && it->first < addr + len) return true;
    if (it != live.begin()) {
      --it;
      if (it->first + it->second > addr) return true;
    }
    return false;
  };
  auto pick_size = [&]() -> uint64_t {
    switch (rng() % 8) {
      case 0: return (1 + rng() % 4096) * kPage;       // up to 16 MiB
      case 1: return (1 + rng() % 64) * 2 * kMiB;      // up to 128 MiB
      case 2: return 1 + rng() % (4 * kPage);          // unaligned, rounds up
      default: return (1 + rng() % 64) * kPage;
    }
  };

  for (int step = 0; step < 100000; ++step) {
    const uint64_t r = rng() % 100;
    const bool grow = live.size() < 600;
    const uint64_t alloc_end = grow ? 50 : 20;
    const uint64_t at_end = grow ? 60 : 25;
    if (r < alloc_end) {
      const uint64_t len = pick_size();
      const uint64_t rounded = (len + kPage - 1) & ~(kPage - 1);
      const uint64_t align = (rng() % 4 == 0) ? (kPage << (rng() % 19)) : 0;  // up to 1 GiB
      uint64_t out = 0x5a5a;
      const Status s = a.Allocate(len, align, &out);
      if (s.ok()) {
        REQUIRE(out % (align == 0 ? kPage : align) == 0);
        REQUIRE(out >= base);
        REQUIRE(out + rounded <= base + size);
        REQUIRE_FALSE(overlaps_live(out, rounded));
        live[out] = rounded;
        live_bytes += rounded;
        ++allocs;
      } else {
        REQUIRE(s.is_api(HKE_STATUS_UNAVAILABLE));
        REQUIRE(out == 0x5a5a);
        // The documented guarantee: a gap of rounded + align - granule
        // bytes is always found.
        const uint64_t need = rounded + (align == 0 ? 0 : align - kPage);
        for (const auto& g : Gaps(base, size, live)) REQUIRE(g.second < need);
        ++unavailable;
      }
    } else if (r < at_end) {
      const uint64_t addr = base + (rng() % (size / kPage)) * kPage;
      const uint64_t len = (1 + rng() % 32) * kPage;
      const Status s = a.AllocateAt(addr, len);
      if (addr + len > base + size) {
        REQUIRE(s.is_api(HKE_STATUS_OUT_OF_RANGE));
      } else if (overlaps_live(addr, len)) {
        REQUIRE(s.is_api(HKE_STATUS_ALREADY_EXISTS));
        ++at_refused;
      } else {
        REQUIRE(s.ok());
        live[addr] = len;
        live_bytes += len;
        ++at_ok;
      }
    } else if (r < 95) {
      if (live.empty()) continue;
      auto it = live.lower_bound(base + (rng() % size));
      if (it == live.end()) it = live.begin();
      REQUIRE(a.Free(it->first, it->second).ok());
      live_bytes -= it->second;
      live.erase(it);
      ++frees;
    } else {
      // A bogus free touching free space.
      const Ranges gaps = Gaps(base, size, live);
      if (gaps.empty()) continue;
      const auto& g = gaps[rng() % gaps.size()];
      const uint64_t addr = g.first + (rng() % (g.second / kPage)) * kPage;
      const Snapshot before = Take(a, f->pool);
      REQUIRE(a.Free(addr, kPage).is_api(HKE_STATUS_NOT_FOUND));
      REQUIRE(Take(a, f->pool) == before);
      ++bogus;
    }
    const char* why = "";
    const Status inv = a.CheckInvariants(&why);
    if (!inv.ok()) {
      INFO("step " << step << ": " << why);
      REQUIRE(inv.ok());
    }
    REQUIRE(a.FreeBytes() == size - live_bytes);
    REQUIRE(a.FreeRanges() <= live.size() + 1);
    REQUIRE(f->pool.used() == 2 * a.FreeRanges());
    max_live = std::max(max_live, live.size());
    if (step % 1000 == 0) REQUIRE(FreeList(a) == Gaps(base, size, live));
  }
  CHECK(FreeList(a) == Gaps(base, size, live));
  CHECK(allocs > 10000);
  CHECK(frees > 10000);
  CHECK(at_ok > 1000);
  CHECK(at_refused > 100);
  CHECK(bogus > 1000);
  MESSAGE("allocs " << allocs << ", alloc-at ok " << at_ok << " refused " << at_refused << ", frees "
                    << frees << ", unavailable " << unavailable << ", bogus frees " << bogus
                    << ", max live " << max_live);
  for (const auto& [addr, len] : live) REQUIRE(a.Free(addr, len).ok());
  CHECK(a.FreeRanges() == 1);
  CHECK(f->pool.used() == 2);
  RequireValid(a);
  a.Reset();
}

}  // namespace
