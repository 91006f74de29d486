// Fuzzes the aperture address manager (VaArena), an object index (a
// RangeTree of the live, disjoint allocations) and a registration tree (a
// RangeTree of overlapping ranges, like userptr registrations: repeated
// starts, nested ranges, size 0), all sharing one small node pool, driven by
// an op stream: allocate (size, alignment), allocate at a fixed address,
// free a live allocation, free a bogus range, register/unregister an
// overlapping range, and exact/containing lookups.
//
// Input: a header (pool capacity 4..67, granule 4 KiB..2 MiB, aperture
// size and base), then ops until the input ends (at most 4 KiB).
//
// Invariants, checked after every op (any violation traps):
//  - VaArena::CheckInvariants and RangeTree::CheckInvariants pass;
//  - the arena agrees with a reference model of the live allocations: free
//    ranges are exactly the gaps, FreeBytes = aperture - live bytes;
//  - pool use is exactly 2 per free range + 1 per live allocation;
//  - every failing call leaves the arena, the pool, the index and the
//    output untouched, with the status the model predicts
//    (ALREADY_EXISTS, NOT_FOUND, OUT_OF_RANGE, INVALID_ARGUMENT,
//    UNAVAILABLE only when no gap holds size + align - granule,
//    RESOURCE_EXHAUSTED only when fewer than 2 nodes are free);
//  - allocations are aligned, inside the aperture and disjoint from every
//    live allocation; lookups (FindExact, FindContaining,
//    FindAtOrBelow, IsFree) agree with a brute-force search,
//    on the disjoint index and on the overlapping registrations;
//  - Insert into the registration tree fails exactly when the model says
//    (ALREADY_EXISTS for a present key, RESOURCE_EXHAUSTED for an empty
//    pool) and then changes nothing.
// The harness needs no context (no hke_context_init/deinit).
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "lib/memory/range_tree.h"
#include "lib/memory/va_arena.h"

namespace {

using hke::Status;
using hke::fuzz::Input;
using namespace hke::memory;

constexpr uint32_t kMaxPool = 67;
constexpr uint32_t kMaxLive = kMaxPool;  // the pool bounds the index anyway

struct Live {
  uint64_t addr;
  uint64_t size;  // rounded to the granule
  uint32_t id;    // value in the index tree
};

struct Range {
  uint64_t start;
  uint64_t size;
};

struct Reg {
  uint64_t start;
  uint64_t size;  // any, 0 included
  uint32_t value;
};

RangeNode g_nodes[kMaxPool];

struct State {
  RangeNodePool* pool;
  VaArena* arena;
  RangeTree* index;
  RangeTree* regs;
  uint64_t base, size, granule;
  Reg reg[kMaxPool];
  uint32_t nreg = 0;
  Live live[kMaxLive];
  uint32_t nlive = 0;
  uint32_t next_id = 1;
  uint64_t live_bytes = 0;
};

// Everything a failed call must leave unchanged.
struct Fingerprint {
  Range ranges[kMaxPool];
  uint32_t nranges;
  uint64_t free_bytes;
  uint32_t used, high_water, index_count, reg_count;

  bool operator==(const Fingerprint& o) const {
    if (nranges != o.nranges || free_bytes != o.free_bytes || used != o.used ||
        high_water != o.high_water || index_count != o.index_count || reg_count != o.reg_count) {
      return false;
    }
    for (uint32_t i = 0; i < nranges; ++i) {
      if (ranges[i].start != o.ranges[i].start || ranges[i].size != o.ranges[i].size) return false;
    }
    return true;
  }
};

uint32_t FreeList(const VaArena& a, Range* out, uint32_t cap) {
  const RangeTree& t = a.free_by_address();
  uint32_t n = 0;
  for (uint32_t i = t.First(); i != kNil; i = t.Successor(i)) {
    HKE_FUZZ_ASSERT(n < cap);
    out[n++] = Range{t.node(i).start, t.node(i).size};
  }
  return n;
}

Fingerprint Take(const State& s) {
  Fingerprint f{};
  f.nranges = FreeList(*s.arena, f.ranges, kMaxPool);
  f.free_bytes = s.arena->FreeBytes();
  f.used = s.pool->used();
  f.high_water = s.pool->high_water();
  f.index_count = s.index->count();
  f.reg_count = s.regs->count();
  return f;
}

bool Overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen) {
  return a < b + blen && b < a + alen;
}

bool OverlapsLive(const State& s, uint64_t addr, uint64_t len) {
  for (uint32_t i = 0; i < s.nlive; ++i) {
    if (Overlaps(addr, len, s.live[i].addr, s.live[i].size)) return true;
  }
  return false;
}

// The model's free gaps in address order.
uint32_t Gaps(const State& s, Range* out) {
  Live sorted[kMaxLive];
  std::memcpy(sorted, s.live, sizeof(Live) * s.nlive);
  for (uint32_t i = 1; i < s.nlive; ++i) {
    for (uint32_t j = i; j > 0 && sorted[j - 1].addr > sorted[j].addr; --j) {
      const Live t = sorted[j];
      sorted[j] = sorted[j - 1];
      sorted[j - 1] = t;
    }
  }
  uint32_t n = 0;
  uint64_t cur = s.base;
  for (uint32_t i = 0; i < s.nlive; ++i) {
    if (sorted[i].addr > cur) out[n++] = Range{cur, sorted[i].addr - cur};
    cur = sorted[i].addr + sorted[i].size;
  }
  if (s.base + s.size > cur) out[n++] = Range{cur, s.base + s.size - cur};
  return n;
}

void CheckAll(const State& s) {
  const char* why = nullptr;
  HKE_FUZZ_ASSERT(s.arena->CheckInvariants(&why).ok());
  HKE_FUZZ_ASSERT(s.index->CheckInvariants(&why).ok());
  HKE_FUZZ_ASSERT(s.regs->CheckInvariants(&why).ok());
  HKE_FUZZ_ASSERT(s.regs->count() == s.nreg);
  HKE_FUZZ_ASSERT(s.arena->FreeBytes() == s.size - s.live_bytes);
  HKE_FUZZ_ASSERT(s.index->count() == s.nlive);
  HKE_FUZZ_ASSERT(s.pool->used() == 2 * s.arena->FreeRanges() + s.nlive + s.nreg);
  HKE_FUZZ_ASSERT(s.arena->FreeRanges() <= s.nlive + 1);
  Range got[kMaxPool + 1];
  Range want[kMaxLive + 1];
  const uint32_t ng = FreeList(*s.arena, got, kMaxPool + 1);
  const uint32_t nw = Gaps(s, want);
  HKE_FUZZ_ASSERT(ng == nw);
  uint64_t largest = 0;
  for (uint32_t i = 0; i < ng; ++i) {
    HKE_FUZZ_ASSERT(got[i].start == want[i].start && got[i].size == want[i].size);
    if (got[i].size > largest) largest = got[i].size;
  }
  HKE_FUZZ_ASSERT(s.arena->LargestFree() == largest);
}

uint64_t RoundUp(uint64_t v, uint64_t g) { return (v + g - 1) & ~(g - 1); }

// Records a new allocation in the index; when the pool has no node for it,
// gives the range back to the arena (which must then succeed) and forgets it.
void Track(State& s, uint64_t addr, uint64_t len) {
  if (s.nlive < kMaxLive) {
    uint32_t node = kNil;
    const Status st = s.index->Insert(addr, len, s.next_id, &node);
    if (st.ok()) {
      s.live[s.nlive++] = Live{addr, len, s.next_id++};
      s.live_bytes += len;
      return;
    }
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  }
  HKE_FUZZ_ASSERT(s.arena->Free(addr, len).ok());
}

void OpAllocate(State& s, Input& in) {
  const uint64_t pages = 1 + in.U8() % 32;
  uint64_t len = pages * s.granule;
  if (in.Bool()) len -= s.granule / 2;  // rounds up again
  const uint8_t a = in.U8();
  const uint64_t align = (a & 0x80) ? 0 : s.granule << (a % 24);
  const uint64_t eff_align = align == 0 ? s.granule : align;
  const uint64_t rounded = RoundUp(len, s.granule);

  const Fingerprint before = Take(s);
  uint64_t out = 0xA5A5A5A5A5A5A5A5ull;
  const Status st = s.arena->Allocate(len, align, &out);
  if (st.ok()) {
    HKE_FUZZ_ASSERT(out % eff_align == 0);
    HKE_FUZZ_ASSERT(out >= s.base && out + rounded <= s.base + s.size);
    HKE_FUZZ_ASSERT(!OverlapsLive(s, out, rounded));
    Track(s, out, rounded);
    return;
  }
  HKE_FUZZ_ASSERT(out == 0xA5A5A5A5A5A5A5A5ull);
  HKE_FUZZ_ASSERT(Take(s) == before);
  if (st.is_api(HKE_STATUS_UNAVAILABLE)) {
    Range gaps[kMaxLive + 1];
    const uint32_t n = Gaps(s, gaps);
    for (uint32_t i = 0; i < n; ++i) HKE_FUZZ_ASSERT(gaps[i].size < rounded + eff_align - s.granule);
  } else if (st.is_api(HKE_STATUS_RESOURCE_EXHAUSTED)) {
    HKE_FUZZ_ASSERT(s.pool->available() < 2);
  } else if (st.is_api(HKE_STATUS_OUT_OF_RANGE)) {
    // No aligned block of that size fits the aperture at all.
    const uint64_t first = RoundUp(s.base, eff_align);
    HKE_FUZZ_ASSERT(first < s.base || first >= s.base + s.size ||
                    rounded > s.base + s.size - first);
  } else {
    __builtin_trap();
  }
}

void OpAllocateAt(State& s, Input& in) {
  const uint64_t pages = s.size / s.granule;
  uint64_t addr = s.base + (in.Get<uint16_t>() % (pages + 2)) * s.granule;
  if ((in.U8() & 7) == 0) addr -= 2 * s.granule;           // below the aperture (or wraps)
  const bool misalign = (in.U8() & 15) == 0;
  if (misalign) addr += s.granule / 2;
  const uint64_t len = (1 + in.U8() % 16) * s.granule;

  const Fingerprint before = Take(s);
  const Status st = s.arena->AllocateAt(addr, len);
  if (st.ok()) {
    HKE_FUZZ_ASSERT(!misalign && addr >= s.base && addr + len <= s.base + s.size);
    HKE_FUZZ_ASSERT(!OverlapsLive(s, addr, len));
    Track(s, addr, len);
    return;
  }
  HKE_FUZZ_ASSERT(Take(s) == before);
  if (misalign) {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_INVALID_ARGUMENT));
  } else if (addr < s.base || addr >= s.base + s.size || len > s.base + s.size - addr) {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_OUT_OF_RANGE));
  } else if (OverlapsLive(s, addr, len)) {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_ALREADY_EXISTS));
  } else {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_RESOURCE_EXHAUSTED) && s.pool->available() < 2);
  }
}

void OpFreeLive(State& s, Input& in) {
  if (s.nlive == 0) return;
  const uint32_t i = in.U8() % s.nlive;
  const Live l = s.live[i];
  const uint32_t node = s.index->FindExact(l.addr, l.size, l.id);
  HKE_FUZZ_ASSERT(node != kNil);
  // Index first: its node goes back to the pool before the arena may need it.
  HKE_FUZZ_ASSERT(s.index->Erase(node).ok());
  const Fingerprint before = Take(s);
  const Status st = s.arena->Free(l.addr, l.size);
  if (st.ok()) {
    s.live[i] = s.live[--s.nlive];
    s.live_bytes -= l.size;
    return;
  }
  HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_RESOURCE_EXHAUSTED) && s.pool->available() < 2);
  HKE_FUZZ_ASSERT(Take(s) == before);
  HKE_FUZZ_ASSERT(s.index->Insert(l.addr, l.size, l.id, nullptr).ok());
}

void OpFreeBogus(State& s, Input& in) {
  const uint64_t pages = s.size / s.granule;
  uint64_t addr = s.base + (in.Get<uint16_t>() % (pages + 1)) * s.granule;
  const uint8_t mode = in.U8();
  if ((mode & 7) == 0) addr += 1;
  if ((mode & 0x38) == 0) addr = s.base - s.granule;
  const uint64_t len = (1 + in.U8() % 8) * s.granule;
  const bool misaligned = (addr & (s.granule - 1)) != 0;
  const bool outside = addr < s.base || addr >= s.base + s.size || len > s.base + s.size - addr;
  bool touches_free = false;
  if (!misaligned && !outside) {
    Range gaps[kMaxLive + 1];
    const uint32_t n = Gaps(s, gaps);
    for (uint32_t i = 0; i < n; ++i) touches_free |= Overlaps(addr, len, gaps[i].start, gaps[i].size);
    if (!touches_free) return;  // entirely allocated: a valid free the model cannot follow
  }
  const Fingerprint before = Take(s);
  const Status st = s.arena->Free(addr, len);
  HKE_FUZZ_ASSERT(Take(s) == before);
  if (misaligned) {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_INVALID_ARGUMENT));
  } else if (outside) {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_OUT_OF_RANGE));
  } else {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_NOT_FOUND));
  }
}

void OpLookup(State& s, Input& in) {
  // Exact lookups of a live allocation, through the index and the arena.
  if (s.nlive != 0) {
    const Live& l = s.live[in.U8() % s.nlive];
    const uint32_t node = s.index->FindExact(l.addr, l.size, l.id);
    HKE_FUZZ_ASSERT(node != kNil);
    HKE_FUZZ_ASSERT(s.index->FindExact(l.addr, l.size, l.id + 0x80000000u) == kNil);
    const uint64_t inner = l.addr + (in.U32() % l.size);
    HKE_FUZZ_ASSERT(s.index->FindContaining(inner) == node);
    HKE_FUZZ_ASSERT(s.index->FindAtOrBelow(inner) == node);
    HKE_FUZZ_ASSERT(!s.arena->IsFree(l.addr, s.granule));
    const Fingerprint before = Take(s);
    HKE_FUZZ_ASSERT(s.arena->AllocateAt(l.addr, l.size).is_api(HKE_STATUS_ALREADY_EXISTS));
    HKE_FUZZ_ASSERT(Take(s) == before);
  }
  // A random address against brute force.
  const uint64_t addr = s.base - s.granule + (in.U32() % (s.size + 2 * s.granule));
  const Live* want = nullptr;
  for (uint32_t i = 0; i < s.nlive; ++i) {
    if (addr >= s.live[i].addr && addr - s.live[i].addr < s.live[i].size) want = &s.live[i];
  }
  const uint32_t got = s.index->FindContaining(addr);
  if (want == nullptr) {
    HKE_FUZZ_ASSERT(got == kNil);
  } else {
    HKE_FUZZ_ASSERT(got != kNil && s.index->node(got).value == want->id);
  }
  const bool in_aperture = addr >= s.base && addr < s.base + s.size;
  HKE_FUZZ_ASSERT(s.arena->IsFree(addr, 1) == (in_aperture && want == nullptr));
}

bool KeyLess(const Reg& a, const Reg& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.size != b.size) return a.size < b.size;
  return a.value < b.value;
}

bool RegContains(const Reg& r, uint64_t addr) {
  return r.start == addr || (r.start < addr && addr - r.start < r.size);
}

// Overlapping ranges near the aperture base: few distinct starts and sizes
// so that keys repeat, nest and share starts.
void OpRegister(State& s, Input& in) {
  const uint8_t a = in.U8(), b = in.U8(), c = in.U8();
  Reg r;
  r.start = s.base + uint64_t(a % 32) * 4096 + ((a & 0x80) ? (b & 0x3f) : 0);
  r.size = (b % 5 == 0) ? 0 : uint64_t(b % 24) * 2048 + (c & 1);
  r.value = c % 3;
  if ((c & 0xf0) == 0xf0) r.size = UINT64_MAX - r.start + 1;  // overflows
  bool present = false;
  for (uint32_t i = 0; i < s.nreg; ++i) {
    present |= !KeyLess(s.reg[i], r) && !KeyLess(r, s.reg[i]);
  }
  const bool overflows = r.size > UINT64_MAX - r.start;
  const Fingerprint before = Take(s);
  uint32_t node = 0xA5A5A5A5u;
  const Status st = s.regs->Insert(r.start, r.size, r.value, &node);
  if (st.ok()) {
    HKE_FUZZ_ASSERT(!present && !overflows && s.nreg < kMaxPool);
    const RangeNode& n = s.regs->node(node);
    HKE_FUZZ_ASSERT(n.start == r.start && n.size == r.size && n.value == r.value);
    s.reg[s.nreg++] = r;
    return;
  }
  HKE_FUZZ_ASSERT(node == 0xA5A5A5A5u);
  HKE_FUZZ_ASSERT(Take(s) == before);
  if (overflows) {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_INVALID_ARGUMENT));
  } else if (present) {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_ALREADY_EXISTS));
  } else {
    HKE_FUZZ_ASSERT(st.is_api(HKE_STATUS_RESOURCE_EXHAUSTED) && s.pool->available() == 0);
  }
}

void OpUnregister(State& s, Input& in) {
  if (s.nreg == 0) return;
  const uint32_t i = in.U8() % s.nreg;
  const Reg r = s.reg[i];
  const uint32_t node = s.regs->FindExact(r.start, r.size, r.value);
  HKE_FUZZ_ASSERT(node != kNil);
  // A node of the other tree is refused.
  const uint32_t foreign = s.index->First();
  if (foreign != kNil) {
    const Fingerprint before = Take(s);
    HKE_FUZZ_ASSERT(s.regs->Erase(foreign).is_api(HKE_STATUS_INVALID_HANDLE));
    HKE_FUZZ_ASSERT(Take(s) == before);
  }
  HKE_FUZZ_ASSERT(s.regs->Erase(node).ok());
  HKE_FUZZ_ASSERT(s.regs->Erase(node).is_api(HKE_STATUS_INVALID_HANDLE));  // already erased
  s.reg[i] = s.reg[--s.nreg];
}

// Lookups in the registration tree against brute force, at addresses near
// the registered ends (where off-by-one errors live).
void OpRegLookup(State& s, Input& in) {
  uint64_t addr = s.base + in.Get<uint16_t>() % (40 * 4096);
  if (s.nreg != 0) {
    const Reg& r = s.reg[in.U8() % s.nreg];
    switch (in.U8() % 5) {
      case 0: addr = r.start; break;
      case 1: addr = r.start - 1; break;
      case 2: addr = r.start + r.size; break;
      case 3: addr = r.start + r.size - 1; break;
      default: break;
    }
  }
  const Reg* want = nullptr;
  const Reg* last_at_or_before = nullptr;
  for (uint32_t i = 0; i < s.nreg; ++i) {
    const Reg& r = s.reg[i];
    if (RegContains(r, addr) && (want == nullptr || KeyLess(r, *want))) want = &r;
    if (r.start <= addr && (last_at_or_before == nullptr || KeyLess(*last_at_or_before, r))) {
      last_at_or_before = &r;
    }
  }
  const uint32_t got = s.regs->FindContaining(addr);
  if (want == nullptr) {
    HKE_FUZZ_ASSERT(got == kNil);
  } else {
    HKE_FUZZ_ASSERT(got != kNil);
    const RangeNode& n = s.regs->node(got);
    HKE_FUZZ_ASSERT(n.start == want->start && n.size == want->size && n.value == want->value);
  }
  const uint32_t le = s.regs->FindAtOrBelow(addr);
  if (last_at_or_before == nullptr) {
    HKE_FUZZ_ASSERT(le == kNil);
  } else {
    HKE_FUZZ_ASSERT(le != kNil);
    const RangeNode& n = s.regs->node(le);
    HKE_FUZZ_ASSERT(n.start == last_at_or_before->start && n.size == last_at_or_before->size &&
                    n.value == last_at_or_before->value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);

  const uint32_t capacity = 4 + in.U8() % (kMaxPool - 3);
  static constexpr uint64_t kGranules[4] = {4096, 8192, 65536, 2u << 20};
  const uint64_t granule = kGranules[in.U8() & 3];
  const uint64_t pages = 1 + in.Get<uint16_t>() % 4096;
  const uint64_t ap_size = pages * granule;
  uint64_t base;
  switch (in.U8() & 3) {
    case 0: base = uint64_t{in.Get<uint16_t>()} * granule; break;
    case 1: base = uint64_t{1} << 47; break;
    case 2: base = (UINT64_MAX - ap_size - in.U32()) & ~(granule - 1); break;  // top of the space
    default: base = (uint64_t{in.U32()} << 20) & ~(granule - 1); break;
  }

  RangeNodePool pool(g_nodes, capacity);
  VaArena arena;
  RangeTree index(&pool);
  RangeTree regs(&pool);
  HKE_FUZZ_ASSERT(arena.Init(&pool, base, ap_size, granule).ok());

  State s;
  s.pool = &pool;
  s.arena = &arena;
  s.index = &index;
  s.regs = &regs;
  s.base = base;
  s.size = ap_size;
  s.granule = granule;
  CheckAll(s);

  while (in.remaining() > 0) {
    switch (in.U8() % 11) {
      case 0:
      case 1: OpAllocate(s, in); break;
      case 2: OpAllocateAt(s, in); break;
      case 3:
      case 4: OpFreeLive(s, in); break;
      case 5: OpFreeBogus(s, in); break;
      case 6: OpLookup(s, in); break;
      case 7: OpRegister(s, in); break;
      case 8: OpUnregister(s, in); break;
      default: OpRegLookup(s, in); break;
    }
    CheckAll(s);
  }

  index.Clear();
  regs.Clear();
  arena.Reset();
  HKE_FUZZ_ASSERT(pool.used() == 0);
  return 0;
}
