// One fixed-capacity, generation-checked slot table: the table behind every
// kind of object a context hands out a name for (memory objects, events,
// queues, PMC traces, PC-sampling sessions).
//
// Storage. `SlotTable` is the logic over caller storage (an array of
// `SlotMeta` and its capacity); `FixedSlotTable<T, N>` owns N metas and N
// items of T next to them. Constructing a table writes only the table
// object itself (and T's own default member initialisers, when T has
// any): a slot's meta is written when the slot is first taken, so a large
// table in zero-initialised storage costs no page until used. No heap.
//
// Slot life: kFree -> Allocate -> kReserved -> Publish -> kLive
// (-> Retire -> kRetiring -> Revive -> kLive) -> Free -> kFree. A
// reservation that never became visible goes back with Abandon, which also
// restores the slot's generation. Only kLive slots are found by a handle.
//
// Generations. A slot's generation advances on every Allocate (masked by
// the policy's generation_mask; with skip_zero_generation, 0 is never
// used), so a handle keeps naming the allocation it was made for: once the
// slot is freed and taken again, the old handle's generation no longer
// matches and it is refused.
//
// Reuse order (Policy::reuse), each user's documented rule:
//  - kFreshFirstFifo: never-used slots first, then the oldest freed, so a
//    stale handle stays refused as long as possible (events, queues);
//  - kFreedFirstLifo: the most recently freed first, then never-used ones,
//    so the touched part of the table stays small (memory objects);
//  - kLowestIndex: the lowest free slot (small tables whose handles carry
//    the slot: PMC traces, PC-sampling sessions). Allocate may reclaim a
//    live, unpinned slot its caller accepts (an earlier open's object).
//
// Handles. `HandleFormat` is the one encoding of a slot and its generation
// into an integer: tag | (generation & gen mask) << slot_bits |
// (slot + slot_bias). Decoding refuses a value whose tag bits differ,
// whose bits outside the three fields are set, or whose slot field is
// below the bias; Find then requires a live slot of that generation. A
// user whose handle is not an integer (an event's HsaEvent pointer) checks
// its own form and calls IsLiveAt.
//
// Pins. A call that works on a slot outside its lock pins it: Pin counts
// shared pins (any number of calls at once), TryPinExclusive refuses a
// pinned slot (one call at a time). `SlotPin` / `SlotCopyPin` below are
// the RAII guards that unpin; a pin on a slot that was freed (and perhaps
// reused) meanwhile is dropped without effect. Pins() lets a user wait for
// the pins of a retiring slot to drain.
//
// Threading: thread-compatible. The user's lock serialises every call on a
// table; the guards take that lock (any type with lock()/unlock()) when
// they unpin, so a guard must be destroyed with the lock released.
#ifndef HKE_LIB_CORE_SLOT_TABLE_H_
#define HKE_LIB_CORE_SLOT_TABLE_H_

#include <cstddef>
#include <cstdint>

namespace hke {

// The integer form of a handle (see the file comment).
struct HandleFormat {
  uint64_t tag;        // bits every handle carries
  uint64_t tag_mask;   // the bits the tag occupies
  uint32_t slot_bits;  // width of the low field, slot + slot_bias
  uint32_t gen_bits;   // width of the generation field above it
  uint32_t slot_bias;  // 1: a handle is never 0 even without a tag
};

constexpr uint64_t FieldMask(uint32_t bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

constexpr uint64_t EncodeHandle(const HandleFormat& f, uint32_t slot, uint32_t generation) {
  return f.tag | ((uint64_t{generation} & FieldMask(f.gen_bits)) << f.slot_bits) |
         ((uint64_t{slot} + f.slot_bias) & FieldMask(f.slot_bits));
}

// false for a value that is not of the form; the slot range and the
// generation are the table's to check (Find).
bool DecodeHandle(const HandleFormat& f, uint64_t handle, uint32_t* out_slot,
                  uint32_t* out_generation);

enum class SlotState : uint8_t { kFree, kReserved, kLive, kRetiring };

// Per-slot bookkeeping; written when the slot is first taken. A free slot
// has no pins and a taken one no free-list link, so the two share a word
// (12 bytes a slot: the tables hold up to 131072 memory objects).
struct SlotMeta {
  uint32_t generation;
  union {
    uint32_t next_free;  // kFree: free-list link (list policies)
    uint32_t pins;       // taken: pins held
  };
  SlotState state;
};
static_assert(sizeof(SlotMeta) == 12, "SlotMeta packs to three words");

// The counters of a table a module's introspection reports (its Stats
// derives from this).
struct SlotStats {
  uint32_t live;           // live()
  uint32_t capacity;       // capacity()
  uint32_t slots_touched;  // high_water()
};

class SlotTable {
 public:
  static constexpr uint32_t kNoSlot = 0xffffffffu;
  enum class Reuse : uint8_t { kFreshFirstFifo, kFreedFirstLifo, kLowestIndex };
  struct Policy {
    Reuse reuse;
    uint32_t generation_mask;   // generations kept (and compared) modulo this + 1
    bool skip_zero_generation;  // generation 0 is never handed out
  };

  SlotTable(SlotMeta* meta, uint32_t capacity, Policy policy);
  SlotTable(const SlotTable&) = delete;
  SlotTable& operator=(const SlotTable&) = delete;

  uint32_t capacity() const { return capacity_; }
  // Slots [0, high_water) have been taken at least once.
  uint32_t high_water() const { return high_water_; }
  // The same counter by reference, for a state struct that exposes it as a
  // plain member to readers outside lib/ (tests).
  const uint32_t& high_water_counter() const { return high_water_; }
  // Slots in kLive or kRetiring state.
  uint32_t live() const { return live_; }
  // Slots in kReserved state.
  uint32_t reserved() const { return reserved_; }
  // live, capacity and high water into a module's Stats.
  void FillStats(SlotStats* out) const {
    out->live = live_;
    out->capacity = capacity_;
    out->slots_touched = high_water_;
  }

  // Takes a slot by the policy's order, advances its generation and marks
  // it kReserved (no pins). false, with nothing changed, when every slot is
  // in use.
  bool Allocate(uint32_t* out_slot);
  // kLowestIndex only: the lowest slot that is free, or live, unpinned and
  // accepted by `reclaim(slot)` (which is asked in index order and may take
  // what it needs from the slot's item before the slot is freed).
  template <typename Reclaim>
  bool Allocate(uint32_t* out_slot, Reclaim reclaim) {
    for (uint32_t i = 0; i < high_water_; ++i) {
      const SlotMeta& m = meta_[i];
      if (m.state == SlotState::kFree) return TakeAt(i, out_slot);
      if (m.state == SlotState::kLive && m.pins == 0 && reclaim(i)) {
        Free(i);
        return TakeAt(i, out_slot);
      }
    }
    return Allocate(out_slot);
  }
  // kReserved -> kLive.
  void Publish(uint32_t slot);
  // Any state -> kFree; pins are dropped, the generation is kept.
  void Free(uint32_t slot);
  // kReserved -> kFree with the generation Allocate advanced restored: a
  // reservation no handle was made for.
  void Abandon(uint32_t slot);
  // kLive -> kRetiring (no longer found by a handle) and back.
  void Retire(uint32_t slot);
  void Revive(uint32_t slot);
  // Frees every taken slot, in index order.
  void FreeAll();
  // Forgets everything (high water, free list, generations): a table as
  // constructed. Only for a table whose handles cannot outlive it.
  void Reset();

  SlotState state(uint32_t slot) const { return meta_[slot].state; }
  uint32_t generation(uint32_t slot) const { return meta_[slot].generation; }
  uint32_t pins(uint32_t slot) const {
    return meta_[slot].state == SlotState::kFree ? 0 : meta_[slot].pins;
  }
  bool IsUsed(uint32_t slot) const {
    return slot < high_water_ && meta_[slot].state != SlotState::kFree;
  }
  bool IsLive(uint32_t slot) const {
    return slot < high_water_ && meta_[slot].state == SlotState::kLive;
  }
  // Live, and its generation equals `generation` in the bits of `mask`.
  bool IsLiveAt(uint32_t slot, uint32_t generation, uint32_t mask) const {
    return IsLive(slot) && ((meta_[slot].generation ^ generation) & mask) == 0;
  }

  // The handle of a taken slot.
  uint64_t Encode(const HandleFormat& f, uint32_t slot) const {
    return EncodeHandle(f, slot, meta_[slot].generation);
  }
  // The live slot `handle` names at its generation.
  bool Find(const HandleFormat& f, uint64_t handle, uint32_t* out_slot) const;

  // Pins (see the file comment). Unpin is a no-op unless the slot is still
  // taken at `generation` and pinned.
  void Pin(uint32_t slot) { ++meta_[slot].pins; }
  bool TryPinExclusive(uint32_t slot);
  void Unpin(uint32_t slot, uint32_t generation);

 private:
  bool TakeAt(uint32_t slot, uint32_t* out_slot);
  void PushFree(uint32_t slot);
  uint32_t NextGeneration(uint32_t g) const;

  SlotMeta* meta_;
  uint32_t capacity_;
  Policy policy_;
  uint32_t high_water_ = 0;
  uint32_t live_ = 0;
  uint32_t reserved_ = 0;
  uint32_t free_head_ = kNoSlot;
  uint32_t free_tail_ = kNoSlot;
};

// A table owning its storage: N metas and N items (see the file comment).
template <typename T, uint32_t N>
class FixedSlotTable : public SlotTable {
  static_assert(N > 0 && N < SlotTable::kNoSlot, "capacity must be in 1..0xfffffffe");

 public:
  explicit FixedSlotTable(Policy policy) : SlotTable(meta_, N, policy) {}

  T& operator[](uint32_t slot) { return items_[slot]; }
  const T& operator[](uint32_t slot) const { return items_[slot]; }
  uint32_t IndexOf(const T* item) const { return static_cast<uint32_t>(item - items_); }
  // The item array (for users whose handle is an item's address).
  const T* items() const { return items_; }

 private:
  SlotMeta meta_[N];
  T items_[N];
};

// Unpins a slot when it goes out of scope (see the file comment). Arm it
// with the table's lock held; destroy it with the lock released.
template <typename Lock>
class SlotPin {
 public:
  SlotPin() = default;
  ~SlotPin() { Release(); }
  SlotPin(const SlotPin&) = delete;
  SlotPin& operator=(const SlotPin&) = delete;

  // A shared pin on `slot`.
  void Hold(SlotTable& table, Lock& lock, uint32_t slot) {
    table.Pin(slot);
    Arm(table, lock, slot);
  }
  // An exclusive pin; false (nothing held) when the slot is pinned.
  bool HoldExclusive(SlotTable& table, Lock& lock, uint32_t slot) {
    if (!table.TryPinExclusive(slot)) return false;
    Arm(table, lock, slot);
    return true;
  }
  uint32_t slot() const { return slot_; }
  uint32_t generation() const { return generation_; }

 protected:
  // Unpins now, running `before_unpin(table)` with the lock held first.
  template <typename F>
  void ReleaseWith(F before_unpin) {
    if (table_ == nullptr) return;
    lock_->lock();
    before_unpin(*table_);
    table_->Unpin(slot_, generation_);
    lock_->unlock();
    table_ = nullptr;
  }

 private:
  void Arm(SlotTable& table, Lock& lock, uint32_t slot) {
    table_ = &table;
    lock_ = &lock;
    slot_ = slot;
    generation_ = table.generation(slot);
  }
  void Release() {
    ReleaseWith([](SlotTable&) {});
  }

  SlotTable* table_ = nullptr;
  Lock* lock_ = nullptr;
  uint32_t slot_ = SlotTable::kNoSlot;
  uint32_t generation_ = 0;
};

// An exclusive pin with a copy of the slot's item to work on outside the
// lock; the copy is stored back when the guard unpins, if the slot is still
// live at the pinned generation.
template <typename T, uint32_t N, typename Lock>
class SlotCopyPin : public SlotPin<Lock> {
 public:
  SlotCopyPin() = default;
  ~SlotCopyPin() {
    this->ReleaseWith([this](SlotTable& table) {
      if (table.IsLiveAt(this->slot(), this->generation(), ~0u)) (*items_)[this->slot()] = copy_;
    });
  }

  bool HoldExclusive(FixedSlotTable<T, N>& table, Lock& lock, uint32_t slot) {
    if (!SlotPin<Lock>::HoldExclusive(table, lock, slot)) return false;
    items_ = &table;
    copy_ = table[slot];
    return true;
  }
  T& item() { return copy_; }

 private:
  FixedSlotTable<T, N>* items_ = nullptr;
  T copy_{};
};

}  // namespace hke

#endif  // HKE_LIB_CORE_SLOT_TABLE_H_
