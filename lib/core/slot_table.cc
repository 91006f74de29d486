// The slot table's logic (lib/core/slot_table.h has the model).
#include "lib/core/slot_table.h"

namespace hke {

bool DecodeHandle(const HandleFormat& f, uint64_t handle, uint32_t* out_slot,
                  uint32_t* out_generation) {
  const uint64_t slot_mask = FieldMask(f.slot_bits);
  const uint64_t gen_mask = FieldMask(f.gen_bits) << f.slot_bits;
  if ((handle & f.tag_mask) != f.tag) return false;
  if ((handle & ~(f.tag_mask | gen_mask | slot_mask)) != 0) return false;
  const uint64_t low = handle & slot_mask;
  if (low < f.slot_bias || low - f.slot_bias > 0xfffffffeu) return false;
  *out_slot = static_cast<uint32_t>(low - f.slot_bias);
  *out_generation = static_cast<uint32_t>((handle & gen_mask) >> f.slot_bits);
  return true;
}

SlotTable::SlotTable(SlotMeta* meta, uint32_t capacity, Policy policy)
    : meta_(meta), capacity_(capacity), policy_(policy) {}

uint32_t SlotTable::NextGeneration(uint32_t g) const {
  uint32_t next = (g + 1) & policy_.generation_mask;
  if (next == 0 && policy_.skip_zero_generation) next = 1;
  return next;
}

bool SlotTable::TakeAt(uint32_t slot, uint32_t* out_slot) {
  SlotMeta& m = meta_[slot];
  m.generation = NextGeneration(m.generation);
  m.pins = 0;
  m.state = SlotState::kReserved;
  ++reserved_;
  *out_slot = slot;
  return true;
}

bool SlotTable::Allocate(uint32_t* out_slot) {
  uint32_t slot = kNoSlot;
  const bool fresh_left = high_water_ < capacity_;
  const bool freed_left = free_head_ != kNoSlot;
  switch (policy_.reuse) {
    case Reuse::kFreshFirstFifo:
    case Reuse::kLowestIndex:
      // kLowestIndex keeps no list (the scan found no free slot below
      // high_water when called through the reclaiming Allocate); a plain
      // call scans here.
      if (policy_.reuse == Reuse::kLowestIndex) {
        for (uint32_t i = 0; i < high_water_; ++i) {
          if (meta_[i].state == SlotState::kFree) return TakeAt(i, out_slot);
        }
      }
      if (fresh_left) {
        slot = high_water_;
      } else if (freed_left) {
        slot = free_head_;
      }
      break;
    case Reuse::kFreedFirstLifo:
      if (freed_left) {
        slot = free_head_;
      } else if (fresh_left) {
        slot = high_water_;
      }
      break;
  }
  if (slot == kNoSlot) return false;
  if (slot == high_water_) {
    meta_[slot] = SlotMeta{};
    meta_[slot].next_free = kNoSlot;
    meta_[slot].state = SlotState::kFree;
    ++high_water_;
  } else {
    free_head_ = meta_[slot].next_free;
    if (free_head_ == kNoSlot) free_tail_ = kNoSlot;
  }
  return TakeAt(slot, out_slot);
}

void SlotTable::PushFree(uint32_t slot) {
  SlotMeta& m = meta_[slot];
  m.next_free = kNoSlot;
  switch (policy_.reuse) {
    case Reuse::kFreshFirstFifo:
      if (free_tail_ == kNoSlot) {
        free_head_ = slot;
      } else {
        meta_[free_tail_].next_free = slot;
      }
      free_tail_ = slot;
      break;
    case Reuse::kFreedFirstLifo:
      m.next_free = free_head_;
      if (free_head_ == kNoSlot) free_tail_ = slot;
      free_head_ = slot;
      break;
    case Reuse::kLowestIndex:
      break;  // found by the scan
  }
}

void SlotTable::Publish(uint32_t slot) {
  SlotMeta& m = meta_[slot];
  if (m.state != SlotState::kReserved) return;
  m.state = SlotState::kLive;
  --reserved_;
  ++live_;
}

void SlotTable::Free(uint32_t slot) {
  SlotMeta& m = meta_[slot];
  switch (m.state) {
    case SlotState::kFree: return;
    case SlotState::kReserved: --reserved_; break;
    case SlotState::kLive:
    case SlotState::kRetiring: --live_; break;
  }
  m.state = SlotState::kFree;
  PushFree(slot);
}

void SlotTable::Abandon(uint32_t slot) {
  SlotMeta& m = meta_[slot];
  if (m.state != SlotState::kReserved) return;
  // The generation before Allocate advanced it (with skip_zero_generation
  // a wrapped mask may come back as 0: both advance to 1 again).
  const uint32_t previous = (m.generation - 1) & policy_.generation_mask;
  Free(slot);
  m.generation = previous;
}

void SlotTable::Retire(uint32_t slot) {
  SlotMeta& m = meta_[slot];
  if (m.state == SlotState::kLive) m.state = SlotState::kRetiring;
}

void SlotTable::Revive(uint32_t slot) {
  SlotMeta& m = meta_[slot];
  if (m.state == SlotState::kRetiring) m.state = SlotState::kLive;
}

void SlotTable::FreeAll() {
  for (uint32_t slot = 0; slot < high_water_; ++slot) Free(slot);
}

void SlotTable::Reset() {
  high_water_ = 0;
  live_ = 0;
  reserved_ = 0;
  free_head_ = kNoSlot;
  free_tail_ = kNoSlot;
}

bool SlotTable::Find(const HandleFormat& f, uint64_t handle, uint32_t* out_slot) const {
  uint32_t slot = 0;
  uint32_t generation = 0;
  if (!DecodeHandle(f, handle, &slot, &generation)) return false;
  if (!IsLiveAt(slot, generation, static_cast<uint32_t>(FieldMask(f.gen_bits)))) return false;
  *out_slot = slot;
  return true;
}

bool SlotTable::TryPinExclusive(uint32_t slot) {
  SlotMeta& m = meta_[slot];
  if (m.pins != 0) return false;
  m.pins = 1;
  return true;
}

void SlotTable::Unpin(uint32_t slot, uint32_t generation) {
  if (slot >= high_water_) return;
  SlotMeta& m = meta_[slot];
  if (m.state == SlotState::kFree || m.generation != generation || m.pins == 0) return;
  --m.pins;
}

}  // namespace hke
