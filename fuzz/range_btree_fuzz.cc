// Fuzzes the B+tree of disjoint ranges (RangeBTree, lib/memory/range_btree.h)
// over a small node pool, driven by an op stream: single inserts (starts on
// a 64-byte grid, near the top of the address space or anywhere; sizes 0,
// 1, small, 32-bit or any 64-bit value, so overlaps and overflows are
// common), runs of up to 64 inserts with a stride (ascending or
// descending, to build trees of depth 3 and to fill leaves), erases of
// present and absent starts, runs of erases (to force borrows and merges up
// the tree), lookups and Clear.
//
// Input: one byte for the pool capacity (1..48 nodes, so RESOURCE_EXHAUSTED
// is reached), then ops until the input ends (at most 4 KiB).
//
// Invariants, checked after every op (any violation traps):
//  - CheckInvariants passes; count() equals a sorted-array model's size;
//  - nodes_used() <= RangeBTreeNodesFor(count()) (the documented sizing
//    rule) and depth() is within the fill-bound depth for count();
//  - every Insert result is the one the model predicts: INVALID_ARGUMENT
//    for start + size overflow, ALREADY_EXISTS when it shares an address
//    with an entry, otherwise OK, or RESOURCE_EXHAUSTED only when fewer
//    than depth() + 1 nodes are free and the capacity is below
//    RangeBTreeNodesFor(count() + 1);
//  - Erase is OK exactly for a present start, NOT_FOUND otherwise;
//  - every failing call leaves the node array (all `capacity` nodes, byte
//    for byte) and the counters untouched;
//  - FindContaining, FindAtOrBelow and FindExact agree with the model, and
//    leave their outputs alone on a miss.
// The harness needs no context. `HKE_FUZZ_TRACE=1 range_btree_fuzz <input>`
// prints what an input reached (deepest tree, most entries, refusals).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "lib/memory/range_btree.h"

namespace {

using hke::Status;
using hke::fuzz::Input;
using hke::memory::RangeBTree;
using hke::memory::RangeBTreeNode;
using hke::memory::RangeBTreeNodesFor;
using Entry = RangeBTree::Entry;

constexpr uint32_t kMaxPool = 48;
constexpr uint32_t kMaxModel = kMaxPool * RangeBTreeNode::kKeys;  // more than fits

RangeBTreeNode g_nodes[kMaxPool];
RangeBTreeNode g_saved[kMaxPool];

uint64_t Extent(uint64_t size) { return size == 0 ? 1 : size; }

// The model: entries sorted by start.
struct Model {
  Entry e[kMaxModel];
  uint32_t n = 0;

  // Index of the first entry whose start is > x.
  uint32_t UpperBound(uint64_t x) const {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (e[mid].start <= x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  bool Overlaps(uint64_t start, uint64_t size) const {
    const uint32_t i = UpperBound(start);
    if (i < n && e[i].start - start < Extent(size)) return true;
    return i > 0 && start - e[i - 1].start < Extent(e[i - 1].size);
  }
  const Entry* Containing(uint64_t addr) const {
    const uint32_t i = UpperBound(addr);
    if (i == 0 || addr - e[i - 1].start >= Extent(e[i - 1].size)) return nullptr;
    return &e[i - 1];
  }
  const Entry* AtOrBelow(uint64_t addr) const {
    const uint32_t i = UpperBound(addr);
    return i > 0 ? &e[i - 1] : nullptr;
  }
  const Entry* Exact(uint64_t start) const {
    const uint32_t i = UpperBound(start);
    return i > 0 && e[i - 1].start == start ? &e[i - 1] : nullptr;
  }
  void Insert(const Entry& x) {
    const uint32_t i = UpperBound(x.start);
    HKE_FUZZ_ASSERT(n < kMaxModel);
    std::memmove(&e[i + 1], &e[i], sizeof(Entry) * (n - i));
    e[i] = x;
    ++n;
  }
  void Erase(uint64_t start) {
    const uint32_t i = UpperBound(start);
    HKE_FUZZ_ASSERT(i > 0 && e[i - 1].start == start);
    std::memmove(&e[i - 1], &e[i], sizeof(Entry) * (n - i));
    --n;
  }
};

Model g_model;

struct Stats {
  uint32_t max_depth, max_count, inserted, overlaps, overflows, exhausted, erased, not_found;
};
Stats g_stats;

// The deepest tree the fill bounds allow for n entries.
uint32_t MaxDepthFor(uint64_t n) {
  uint32_t d = 1;
  for (uint64_t need = 32; need <= n; need *= 16) ++d;
  return d;
}

struct Counters {
  uint32_t count, used, high_water, depth;
  bool operator==(const Counters& o) const {
    return count == o.count && used == o.used && high_water == o.high_water && depth == o.depth;
  }
};

Counters CountersOf(const RangeBTree& t) {
  return Counters{t.count(), t.nodes_used(), t.high_water(), t.depth()};
}

// Saves what a failing call must leave alone (the whole node array and the
// counters); Same() compares with it.
struct Guard {
  bool saved = false;
  uint32_t cap = 0;
  Counters c{};
  void Save(const RangeBTree& t, uint32_t capacity) {
    saved = true;
    cap = capacity;
    c = CountersOf(t);
    std::memcpy(static_cast<void*>(g_saved), g_nodes, sizeof(RangeBTreeNode) * cap);
  }
  bool Same(const RangeBTree& t) const {
    return saved && CountersOf(t) == c &&
           std::memcmp(g_saved, g_nodes, sizeof(RangeBTreeNode) * cap) == 0;
  }
};

uint64_t Start(Input& in) {
  switch (in.U8() & 7) {
    case 0: return in.Addr();
    case 1: return UINT64_MAX - (in.Get<uint16_t>() & 0x3ff);
    default: return uint64_t{in.Get<uint16_t>()} << 6;
  }
}

uint64_t Size(Input& in) {
  switch (in.U8() & 7) {
    case 0: return 0;
    case 1: return 1;
    case 6: return in.U64();
    case 7: return in.U32();
    default: return 1 + (in.Get<uint16_t>() & 0x3ff);
  }
}

void CheckInsert(RangeBTree& t, uint32_t cap, uint64_t start, uint64_t size, uint32_t value) {
  const bool overflow = size > UINT64_MAX - start;
  const bool overlap = !overflow && g_model.Overlaps(start, size);
  // Exhaustion is possible only when fewer nodes than a full split path
  // (depth + 1) are free.
  const bool may_exhaust = t.nodes_available() < t.depth() + 1;
  Guard g;
  if (overflow || overlap || may_exhaust) g.Save(t, cap);
  const uint32_t before = t.count();

  const Status s = t.Insert(start, size, value);
  if (overflow) {
    HKE_FUZZ_ASSERT(s.is_api(HKE_STATUS_INVALID_ARGUMENT));
    ++g_stats.overflows;
  } else if (overlap) {
    HKE_FUZZ_ASSERT(s.is_api(HKE_STATUS_ALREADY_EXISTS));
    ++g_stats.overlaps;
  } else if (!s.ok()) {
    HKE_FUZZ_ASSERT(s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
    ++g_stats.exhausted;
    HKE_FUZZ_ASSERT(may_exhaust);
    // The sizing rule: a pool of RangeBTreeNodesFor(n + 1) nodes always
    // takes the (n + 1)-th entry.
    HKE_FUZZ_ASSERT(cap < RangeBTreeNodesFor(before + 1));
  }
  if (!s.ok()) {
    HKE_FUZZ_ASSERT(g.Same(t));
    return;
  }
  g_model.Insert(Entry{start, size, value});
  ++g_stats.inserted;
  Entry e{};
  HKE_FUZZ_ASSERT(t.FindExact(start, &e));
  HKE_FUZZ_ASSERT(e.start == start && e.size == size && e.value == value);
}

void CheckErase(RangeBTree& t, uint32_t cap, uint64_t start) {
  const bool present = g_model.Exact(start) != nullptr;
  Guard g;
  if (!present) g.Save(t, cap);
  const Status s = t.Erase(start);
  if (present) {
    HKE_FUZZ_ASSERT(s.ok());
    g_model.Erase(start);
    ++g_stats.erased;
    HKE_FUZZ_ASSERT(!t.FindExact(start, nullptr));
  } else {
    HKE_FUZZ_ASSERT(s.is_api(HKE_STATUS_NOT_FOUND));
    HKE_FUZZ_ASSERT(g.Same(t));
    ++g_stats.not_found;
  }
}

void CheckLookup(const RangeBTree& t, uint64_t addr) {
  Entry got{0x1111, 0x2222, 0x3333};
  const Entry* want = g_model.Containing(addr);
  const bool found = t.FindContaining(addr, &got);
  HKE_FUZZ_ASSERT(found == (want != nullptr));
  if (found) {
    HKE_FUZZ_ASSERT(got.start == want->start && got.size == want->size && got.value == want->value);
  } else {
    HKE_FUZZ_ASSERT(got.start == 0x1111 && got.size == 0x2222 && got.value == 0x3333);
  }
  uint64_t floor_start = 0x4444;
  uint32_t floor_value = 0x5555;
  const Entry* wfl = g_model.AtOrBelow(addr);
  const bool ffl = t.FindAtOrBelow(addr, &floor_start, &floor_value);
  HKE_FUZZ_ASSERT(ffl == (wfl != nullptr));
  if (ffl) {
    HKE_FUZZ_ASSERT(floor_start == wfl->start && floor_value == wfl->value);
  } else {
    HKE_FUZZ_ASSERT(floor_start == 0x4444 && floor_value == 0x5555);
  }
  Entry ex{0x1111, 0x2222, 0x3333};
  const Entry* wex = g_model.Exact(addr);
  const bool fex = t.FindExact(addr, &ex);
  HKE_FUZZ_ASSERT(fex == (wex != nullptr));
  if (fex) {
    HKE_FUZZ_ASSERT(ex.start == wex->start && ex.size == wex->size && ex.value == wex->value);
  } else {
    HKE_FUZZ_ASSERT(ex.start == 0x1111 && ex.size == 0x2222 && ex.value == 0x3333);
  }
}

// A start near the model's entries: one of them, or just around one.
uint64_t NearEntry(Input& in) {
  if (g_model.n == 0) return Start(in);
  const Entry& e = g_model.e[in.U32() % g_model.n];
  switch (in.U8() & 3) {
    case 0: return e.start;
    case 1: return e.start + Extent(e.size) - 1;  // last covered address
    case 2: return e.start + Extent(e.size);      // first address after it
    default: return e.start - 1;
  }
}

void CheckAll(const RangeBTree& t) {
  const char* why = nullptr;
  HKE_FUZZ_ASSERT(t.CheckInvariants(&why).ok());
  HKE_FUZZ_ASSERT(t.count() == g_model.n);
  HKE_FUZZ_ASSERT(t.nodes_used() <= RangeBTreeNodesFor(t.count()));
  HKE_FUZZ_ASSERT(t.depth() <= MaxDepthFor(t.count()));
  HKE_FUZZ_ASSERT((t.depth() == 0) == (t.count() == 0));
  if (t.depth() > g_stats.max_depth) g_stats.max_depth = t.depth();
  if (t.count() > g_stats.max_count) g_stats.max_count = t.count();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  const uint32_t cap = 1 + in.U8() % kMaxPool;
  RangeBTree t(g_nodes, cap);
  g_model.n = 0;
  g_stats = Stats{};
  uint32_t next_value = 1;

  while (in.remaining() > 0) {
    switch (in.U8() % 8) {
      case 0:
      case 1: {  // one insert
        const uint64_t start = in.Bool() ? NearEntry(in) : Start(in);
        CheckInsert(t, cap, start, Size(in), next_value++);
        break;
      }
      case 2: {  // a run of inserts with a stride
        const uint64_t base = Start(in);
        const uint32_t n = 1 + in.U8() % 64;
        const uint64_t stride = 1 + (in.Get<uint16_t>() & 0xff);
        const uint64_t sz = in.U8() % (stride + 1);
        const bool down = in.Bool();
        for (uint32_t i = 0; i < n; ++i) {
          const uint64_t off = stride * (down ? n - 1 - i : i);
          CheckInsert(t, cap, base + off, sz, next_value++);  // may wrap: just another start
        }
        break;
      }
      case 3:
      case 4:  // one erase: usually of a present start
        CheckErase(t, cap, in.Bool() ? NearEntry(in) : Start(in));
        break;
      case 5: {  // a run of erases of consecutive entries
        if (g_model.n == 0) break;
        const uint32_t first = in.U32() % g_model.n;
        const uint32_t n = 1 + in.U8() % 64;
        for (uint32_t i = 0; i < n && first < g_model.n; ++i) {
          CheckErase(t, cap, g_model.e[first].start);
        }
        break;
      }
      case 6:  // lookups
        for (uint32_t i = 0; i < 4; ++i) CheckLookup(t, in.Bool() ? NearEntry(in) : Start(in));
        break;
      default:
        if ((in.U8() & 7) == 0) {  // rarely: Clear
          t.Clear();
          g_model.n = 0;
          HKE_FUZZ_ASSERT(t.nodes_used() == 0 && t.high_water() == 0);
        } else {
          CheckLookup(t, NearEntry(in));
        }
        break;
    }
    CheckAll(t);
  }
  static const bool trace = std::getenv("HKE_FUZZ_TRACE") != nullptr;
  if (trace) {
    std::printf("capacity %u: max depth %u, max entries %u; inserted %u, overlaps %u, overflows %u, "
                "exhausted %u; erased %u, not found %u\n",
                cap, g_stats.max_depth, g_stats.max_count, g_stats.inserted, g_stats.overlaps,
                g_stats.overflows, g_stats.exhausted, g_stats.erased, g_stats.not_found);
  }
  return 0;
}
