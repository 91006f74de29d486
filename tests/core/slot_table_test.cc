// The generation-checked slot table of lib/core/slot_table.h: allocation
// orders, generations, handles, pins and the RAII guards.
#include "lib/core/slot_table.h"

#include <doctest/doctest.h>

#include <cstring>
#include <new>
#include <vector>

namespace {

using hke::FixedSlotTable;
using hke::HandleFormat;
using hke::SlotState;
using hke::SlotTable;

constexpr SlotTable::Policy kFifo{SlotTable::Reuse::kFreshFirstFifo, 0xffffffffu, false};
constexpr SlotTable::Policy kLifo{SlotTable::Reuse::kFreedFirstLifo, 0xffffffffu, false};
constexpr SlotTable::Policy kLowest{SlotTable::Reuse::kLowestIndex, 0x7u, true};

// A 64-bit form with a tag (like a queue id) and a 32-bit one whose tag is
// one bit (like a PC-sampling trace id).
constexpr HandleFormat kTagged{0x4851ull << 48, 0xffffull << 48, 28, 20, 1};
constexpr HandleFormat kSmall{0x80000000ull, ~uint64_t{0} << 31, 8, 23, 0};

// A lock that counts its uses and knows whether it is held.
struct CountingLock {
  void lock() {
    REQUIRE_FALSE(held);
    held = true;
    ++locks;
  }
  void unlock() {
    REQUIRE(held);
    held = false;
  }
  bool held = false;
  int locks = 0;
};

struct Item {
  uint32_t value;
};

// Everything observable of a table.
struct Snapshot {
  uint32_t high_water, live, reserved;
  std::vector<uint32_t> generations, pins;
  std::vector<SlotState> states;
  bool operator==(const Snapshot& o) const {
    return high_water == o.high_water && live == o.live && reserved == o.reserved &&
           generations == o.generations && pins == o.pins && states == o.states;
  }
};
Snapshot Snap(const SlotTable& t) {
  Snapshot s{t.high_water(), t.live(), t.reserved(), {}, {}, {}};
  for (uint32_t i = 0; i < t.high_water(); ++i) {
    s.generations.push_back(t.generation(i));
    s.pins.push_back(t.pins(i));
    s.states.push_back(t.state(i));
  }
  return s;
}

uint32_t Take(SlotTable& t) {
  uint32_t slot = SlotTable::kNoSlot;
  REQUIRE(t.Allocate(&slot));
  t.Publish(slot);
  return slot;
}

}  // namespace

TEST_CASE("a handle names its slot at the generation it was made for") {
  FixedSlotTable<Item, 8> t(kFifo);
  const uint32_t a = Take(t);
  const uint32_t b = Take(t);
  const uint64_t ha = t.Encode(kTagged, a);
  const uint64_t hb = t.Encode(kTagged, b);
  CHECK(ha != hb);
  uint32_t slot = 99;
  REQUIRE(t.Find(kTagged, ha, &slot));
  CHECK(slot == a);
  REQUIRE(t.Find(kTagged, hb, &slot));
  CHECK(slot == b);
}

TEST_CASE("a stale handle is refused after its slot is reused") {
  FixedSlotTable<Item, 1> t(kFifo);
  const uint32_t slot = Take(t);
  const uint64_t old = t.Encode(kTagged, slot);
  t.Free(slot);
  uint32_t found = 99;
  CHECK_FALSE(t.Find(kTagged, old, &found));  // freed
  REQUIRE(Take(t) == slot);                    // the only slot, taken again
  CHECK_FALSE(t.Find(kTagged, old, &found));   // another generation now
  CHECK(found == 99);
  REQUIRE(t.Find(kTagged, t.Encode(kTagged, slot), &found));
  CHECK(found == slot);
}

TEST_CASE("forged, zero and untagged handles are refused without reading a slot") {
  FixedSlotTable<Item, 4> t(kFifo);
  const uint32_t slot = Take(t);
  const uint64_t h = t.Encode(kTagged, slot);
  uint32_t found = 99;
  CHECK_FALSE(t.Find(kTagged, 0, &found));
  CHECK_FALSE(t.Find(kTagged, h ^ (uint64_t{1} << 60), &found));  // tag changed
  CHECK_FALSE(t.Find(kTagged, h + 1, &found));                    // a slot never taken
  CHECK_FALSE(t.Find(kTagged, 0x00007f0012345678ull, &found));    // a pointer
  CHECK_FALSE(t.Find(kTagged, kTagged.tag, &found));              // slot field below the bias
  CHECK_FALSE(t.Find(kSmall, h, &found));                         // another format
  CHECK(found == 99);
  // Bits outside every field make a 32-bit form's value invalid.
  FixedSlotTable<Item, 4> s(kLowest);
  const uint32_t ss = Take(s);
  const uint64_t hs = s.Encode(kSmall, ss);
  REQUIRE(s.Find(kSmall, hs, &found));
  CHECK_FALSE(s.Find(kSmall, hs | (uint64_t{1} << 40), &found));
  CHECK_FALSE(s.Find(kSmall, hs & ~kSmall.tag, &found));
}

TEST_CASE("the handle encoding round-trips every field and masks the generation") {
  uint32_t slot = 0, gen = 0;
  const uint64_t h = hke::EncodeHandle(kTagged, 1023, 0xABCDE);
  REQUIRE(hke::DecodeHandle(kTagged, h, &slot, &gen));
  CHECK(slot == 1023);
  CHECK(gen == 0xABCDE);
  CHECK(h == ((0x4851ull << 48) | (0xABCDEull << 28) | 1024u));
  REQUIRE(hke::DecodeHandle(kTagged, hke::EncodeHandle(kTagged, 5, 0x1ABCDE), &slot, &gen));
  CHECK(gen == 0xABCDE);  // 20 bits kept
  CHECK(hke::EncodeHandle(kSmall, 3, 2) == (0x80000000u | (2u << 8) | 3u));
}

TEST_CASE("capacity exhaustion leaves the table unchanged") {
  FixedSlotTable<Item, 3> t(kFifo);
  Take(t);
  const uint32_t b = Take(t);
  Take(t);
  t.Free(b);
  Take(t);
  t.Pin(b);
  const Snapshot before = Snap(t);
  uint32_t slot = 77;
  CHECK_FALSE(t.Allocate(&slot));
  CHECK(slot == 77);
  CHECK(Snap(t) == before);
  FixedSlotTable<Item, 2> l(kLowest);
  Take(l);
  Take(l);
  const Snapshot lb = Snap(l);
  CHECK_FALSE(l.Allocate(&slot, [](uint32_t) { return false; }));
  CHECK(Snap(l) == lb);
}

TEST_CASE("fresh-first tables hand out never-used slots, then the oldest freed") {
  FixedSlotTable<Item, 4> t(kFifo);
  for (uint32_t i = 0; i < 4; ++i) CHECK(Take(t) == i);
  t.Free(2);
  t.Free(0);
  t.Free(3);
  CHECK(Take(t) == 2);
  CHECK(Take(t) == 0);
  CHECK(Take(t) == 3);
  // Before the table is full, a freed slot waits until every fresh one is used.
  FixedSlotTable<Item, 4> u(kFifo);
  CHECK(Take(u) == 0);
  u.Free(0);
  CHECK(Take(u) == 1);
  CHECK(u.high_water() == 2);
}

TEST_CASE("freed-first tables reuse the most recently freed slot and touch no fresh one") {
  FixedSlotTable<Item, 4> t(kLifo);
  CHECK(Take(t) == 0);
  CHECK(Take(t) == 1);
  t.Free(0);
  t.Free(1);
  CHECK(Take(t) == 1);
  CHECK(Take(t) == 0);
  CHECK(Take(t) == 2);
  CHECK(t.high_water() == 3);
}

TEST_CASE("lowest-index tables take the lowest free slot or a reclaimable live one") {
  FixedSlotTable<Item, 4> t(kLowest);
  for (uint32_t i = 0; i < 3; ++i) CHECK(Take(t) == i);
  t.Free(1);
  CHECK(Take(t) == 1);
  // Slot 0 is live and unpinned; slot 1 live but pinned; 2 live.
  t.Pin(1);
  std::vector<uint32_t> asked;
  uint32_t slot = 99;
  REQUIRE(t.Allocate(&slot, [&](uint32_t i) {
    asked.push_back(i);
    return i == 2;
  }));
  CHECK(slot == 2);
  CHECK(asked == std::vector<uint32_t>{0, 2});  // the pinned slot is not offered
  CHECK(t.state(2) == SlotState::kReserved);
  CHECK(t.live() == 2);
}

TEST_CASE("generations advance on every allocation and skip zero when asked") {
  FixedSlotTable<Item, 1> t(kLowest);  // generation mask 7
  std::vector<uint32_t> seen;
  for (int i = 0; i < 9; ++i) {
    const uint32_t s = Take(t);
    seen.push_back(t.generation(s));
    t.Free(s);
  }
  CHECK(seen == std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 1, 2});
}

TEST_CASE("an abandoned reservation gives its generation back") {
  FixedSlotTable<Item, 2> t(kLowest);
  const uint32_t s = Take(t);
  const uint32_t g = t.generation(s);
  t.Free(s);
  uint32_t r = 99;
  REQUIRE(t.Allocate(&r));
  REQUIRE(r == s);
  CHECK(t.reserved() == 1);
  t.Abandon(r);
  CHECK(t.state(r) == SlotState::kFree);
  CHECK(t.reserved() == 0);
  CHECK(Take(t) == s);
  CHECK(t.generation(s) == g + 1);  // the abandoned reservation used no generation
}

TEST_CASE("reserved and retiring slots are not found by a handle; a revived one is") {
  FixedSlotTable<Item, 2> t(kFifo);
  uint32_t s = 99;
  REQUIRE(t.Allocate(&s));
  const uint64_t h = t.Encode(kTagged, s);
  uint32_t found = 99;
  CHECK_FALSE(t.Find(kTagged, h, &found));
  t.Publish(s);
  CHECK(t.Find(kTagged, h, &found));
  t.Retire(s);
  CHECK_FALSE(t.Find(kTagged, h, &found));
  CHECK(t.live() == 1);  // retiring still counts as live
  t.Revive(s);
  CHECK(t.Find(kTagged, h, &found));
}

TEST_CASE("a pinned slot is not reused until unpinned") {
  FixedSlotTable<Item, 2> t(kLowest);
  const uint32_t a = Take(t);
  Take(t);
  t.Pin(a);
  uint32_t slot = 99;
  // A reclaimer that would accept every live slot is not offered the pinned one.
  std::vector<uint32_t> asked;
  CHECK(t.Allocate(&slot, [&](uint32_t i) {
    asked.push_back(i);
    return i != 1;
  }) == false);
  CHECK(asked == std::vector<uint32_t>{1});
  t.Unpin(a, t.generation(a));
  REQUIRE(t.Allocate(&slot, [](uint32_t) { return true; }));
  CHECK(slot == a);
}

TEST_CASE("an exclusive pin refuses a second one and shared pins count") {
  FixedSlotTable<Item, 1> t(kFifo);
  const uint32_t s = Take(t);
  REQUIRE(t.TryPinExclusive(s));
  CHECK_FALSE(t.TryPinExclusive(s));
  t.Unpin(s, t.generation(s));
  CHECK(t.pins(s) == 0);
  t.Pin(s);
  t.Pin(s);
  CHECK(t.pins(s) == 2);
  CHECK_FALSE(t.TryPinExclusive(s));
}

TEST_CASE("an unpin after the slot was freed and reused leaves the new owner's pins") {
  FixedSlotTable<Item, 1> t(kFifo);
  const uint32_t s = Take(t);
  t.Pin(s);
  const uint32_t g = t.generation(s);
  t.Free(s);
  CHECK(t.pins(s) == 0);
  REQUIRE(Take(t) == s);
  t.Pin(s);
  t.Unpin(s, g);  // the old pin
  CHECK(t.pins(s) == 1);
}

TEST_CASE("free-all frees every taken slot in index order and keeps generations") {
  FixedSlotTable<Item, 3> t(kFifo);
  for (int i = 0; i < 3; ++i) Take(t);
  const uint32_t g1 = t.generation(1);
  t.FreeAll();
  CHECK(t.live() == 0);
  CHECK(Take(t) == 0);
  CHECK(Take(t) == 1);
  CHECK(t.generation(1) == g1 + 1);
}

TEST_CASE("the scope guard unpins under the lock when it goes out of scope") {
  FixedSlotTable<Item, 1> t(kFifo);
  CountingLock lock;
  const uint32_t s = Take(t);
  {
    hke::SlotPin<CountingLock> pin;
    lock.lock();
    pin.Hold(t, lock, s);
    lock.unlock();
    CHECK(t.pins(s) == 1);
  }
  CHECK(t.pins(s) == 0);
  CHECK(lock.locks == 2);
  CHECK_FALSE(lock.held);
  {
    hke::SlotPin<CountingLock> first, second;
    REQUIRE(first.HoldExclusive(t, lock, s));
    CHECK_FALSE(second.HoldExclusive(t, lock, s));
  }
  CHECK(t.pins(s) == 0);
  CHECK(lock.locks == 3);  // only the guard that held a pin took the lock
}

TEST_CASE("the copy guard stores its copy back only while the slot is live at its generation") {
  FixedSlotTable<Item, 1> t(kFifo);
  CountingLock lock;
  const uint32_t s = Take(t);
  t[s].value = 1;
  {
    hke::SlotCopyPin<Item, 1, CountingLock> pin;
    REQUIRE(pin.HoldExclusive(t, lock, s));
    pin.item().value = 2;
    CHECK(t[s].value == 1);  // the table is not written while pinned
  }
  CHECK(t[s].value == 2);
  CHECK(t.pins(s) == 0);
  {
    hke::SlotCopyPin<Item, 1, CountingLock> pin;
    REQUIRE(pin.HoldExclusive(t, lock, s));
    pin.item().value = 3;
    t.Free(s);  // freed by the call (an unregister)
    REQUIRE(Take(t) == s);
    t[s].value = 4;  // and taken by another
  }
  CHECK(t[s].value == 4);
  CHECK(t.pins(s) == 0);
}

TEST_CASE("constructing a table touches no slot") {
  // The table in storage filled with a pattern: no meta or item byte may
  // change until a slot is taken.
  using Table = FixedSlotTable<Item, 64>;
  alignas(Table) static unsigned char raw[sizeof(Table)];
  // Volatile stores: to an optimiser, plain stores into storage an object
  // is then constructed in are dead (GCC's lifetime DSE removes the memset
  // in release builds), and the check would read whatever was there.
  volatile unsigned char* pattern = raw;
  for (size_t i = 0; i < sizeof(raw); ++i) pattern[i] = 0xA5;
  auto* t = new (raw) Table(kFifo);
  const unsigned char* items = reinterpret_cast<const unsigned char*>(t->items());
  bool untouched = true;
  for (size_t i = 0; i < sizeof(Item) * 64; ++i) untouched = untouched && items[i] == 0xA5;
  CHECK(untouched);
  CHECK(t->high_water() == 0);
  CHECK(Take(*t) == 0);
  CHECK(t->generation(0) == 1);
  t->~Table();
}
