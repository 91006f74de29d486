// Small helpers shared by the kfdsim core files: copies to and from the
// simulated process's memory with the kernel's EFAULT semantics, errno
// names and hex formatting for trace lines, clocks.
//
// Stateless apart from once-computed facts (whether process_vm_readv/writev
// are usable, the process id, each thread's stack bounds); safe from any
// thread.
#ifndef HKE_PLATFORM_SIM_CORE_UTIL_H_
#define HKE_PLATFORM_SIM_CORE_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kfdsim {

// copy_from_user / copy_to_user: 0, or EFAULT when the range is not mapped
// with the needed access (checked through process_vm_readv/writev on the
// own process; where those syscalls are refused, as under qemu-user, the
// copy goes through a pipe, whose write/read the kernel checks the same way).
// A range on the calling thread's stack above the current frame (an ioctl
// argument block in a caller's frame) cannot fault and is copied directly.
int UserRead(void* dst, uint64_t user_src, size_t n);
// getpid() without a system call: read once, again after a fork.
int SelfPid();
int UserWrite(uint64_t user_dst, const void* src, size_t n);

// The kernel's access_ok(): the range lies in the user half of the
// address space and does not wrap.
bool UserRangeOk(uint64_t addr, uint64_t size);

// The process's mappings (VMAs) as sorted [start, end) pairs, read from
// /proc/self/maps rather than probed with msync/mincore: under qemu-user a
// 32-bit guest's whole address space is reserved in the host, so those
// calls succeed on unmapped guest pages, while qemu serves the guest's own
// maps file. False when the file cannot be read.
bool ReadHostMappings(std::vector<std::pair<uint64_t, uint64_t>>* out);
// True when every page of [start, start + size) lies in a mapping (also
// when the maps cannot be read: cannot tell, do not refuse).
bool HostRangeMapped(uint64_t start, uint64_t size);

// "EINVAL", ...; "E<n>" for numbers without a name.
std::string ErrnoName(int error);

void AppendHex(std::string* out, const void* data, size_t n, size_t max_bytes);
std::string HexU64(uint64_t v);

// Clock readings in nanoseconds (CLOCK_MONOTONIC_RAW / CLOCK_BOOTTIME).
uint64_t MonotonicRawNs();
uint64_t BoottimeNs();

inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
inline bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Hands out the lowest free id at or above `base` (the kernel's IDR
// behaviour). A bitmap per level: bit i of level 0 is id base + i taken,
// bit j of level l + 1 is word j of level l full; the top level is one
// word. Take, Peek, Release and InUse read or write one word per level
// (O(log64 n), 3 levels up to 262,144 ids), so the cost does not grow with
// the ids taken; the bitmaps hold one bit per id up to the highest taken.
// Not thread-safe; callers hold their subsystem lock.
class IdPool {
 public:
  explicit IdPool(uint32_t base = 0) : base_(base) {}
  // Lowest free id, without taking it.
  uint32_t Peek() const { return base_ + static_cast<uint32_t>(LowestFree()); }
  uint32_t Take() {
    const uint64_t i = LowestFree();
    Mark(i);
    return base_ + static_cast<uint32_t>(i);
  }
  // Frees `id`; ids not taken are ignored.
  void Release(uint32_t id);
  bool InUse(uint32_t id) const {
    if (id < base_ || levels_.empty()) return false;
    const uint64_t i = id - base_;
    const size_t w = static_cast<size_t>(i / 64);  // ids are 32-bit: fits a 32-bit size_t
    return w < levels_[0].size() && (levels_[0][w] >> (i % 64) & 1) != 0;
  }
  void Clear() { levels_.clear(); }

 private:
  uint64_t LowestFree() const;
  void Mark(uint64_t i);  // takes free index i

  uint32_t base_;
  std::vector<std::vector<uint64_t>> levels_;  // words past a level's end are 0
};

// Objects keyed by an IDR index (from 0, the lowest free index handed out
// by an IdPool): a dense vector indexed by it. Find, Add and Erase cost
// O(1) apart from the pool's bitmap walk, whatever the number of live
// entries; iteration visits the live entries in index order, as over a
// std::map keyed by the index. Slots exist up to the highest live index.
// Add may move every entry (pointers and references into the table are
// invalidated by it). Not thread-safe; callers hold their subsystem lock.
template <typename T>
class IdTable {
 public:
  // The entry at `idx`, or null when none.
  T* Find(uint32_t idx) { return idx < slots_.size() && slots_[idx] ? &*slots_[idx] : nullptr; }
  const T* Find(uint32_t idx) const {
    return idx < slots_.size() && slots_[idx] ? &*slots_[idx] : nullptr;
  }
  // Stores `value` at the lowest free index and returns the index.
  uint32_t Add(T value) {
    const uint32_t idx = ids_.Take();
    if (idx >= slots_.size()) slots_.resize(static_cast<size_t>(idx) + 1);
    slots_[idx].emplace(std::move(value));
    ++count_;
    return idx;
  }
  // Destroys the entry at `idx` (which must be live) and frees the index.
  void Erase(uint32_t idx) {
    slots_[idx].reset();
    ids_.Release(idx);
    --count_;
    while (!slots_.empty() && !slots_.back()) slots_.pop_back();
  }
  size_t size() const { return count_; }

  // Live entries in index order; dereferences to {index, entry}.
  template <typename Slots, typename Ref>
  class Iter {
   public:
    Iter(Slots* slots, size_t at) : slots_(slots), at_(at) { Skip(); }
    std::pair<uint32_t, Ref> operator*() const {
      return {static_cast<uint32_t>(at_), *(*slots_)[at_]};
    }
    Iter& operator++() {
      ++at_;
      Skip();
      return *this;
    }
    bool operator!=(const Iter& o) const { return at_ != o.at_; }

   private:
    void Skip() {
      while (at_ < slots_->size() && !(*slots_)[at_]) ++at_;
    }
    Slots* slots_;
    size_t at_;
  };
  using SlotVector = std::vector<std::optional<T>>;
  Iter<SlotVector, T&> begin() { return {&slots_, 0}; }
  Iter<SlotVector, T&> end() { return {&slots_, slots_.size()}; }
  Iter<const SlotVector, const T&> begin() const { return {&slots_, 0}; }
  Iter<const SlotVector, const T&> end() const { return {&slots_, slots_.size()}; }

 private:
  SlotVector slots_;
  IdPool ids_;
  size_t count_ = 0;
};

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_CORE_UTIL_H_
