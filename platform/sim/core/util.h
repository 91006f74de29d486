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
#include <iterator>
#include <set>
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
// behaviour) in O(log n). Not thread-safe; callers hold their subsystem lock.
class IdPool {
 public:
  explicit IdPool(uint32_t base = 0) : base_(base), next_(base) {}
  // Lowest free id, without taking it.
  uint32_t Peek() const { return freed_.empty() ? next_ : *freed_.begin(); }
  uint32_t Take() {
    if (freed_.empty()) return next_++;
    const uint32_t id = *freed_.begin();
    freed_.erase(freed_.begin());
    return id;
  }
  void Release(uint32_t id) {
    if (id < base_ || id >= next_) return;
    freed_.insert(id);
    while (!freed_.empty() && *freed_.rbegin() == next_ - 1) {
      freed_.erase(std::prev(freed_.end()));
      --next_;
    }
  }
  void Clear() {
    freed_.clear();
    next_ = base_;
  }

 private:
  uint32_t base_;
  uint32_t next_;
  std::set<uint32_t> freed_;
};

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_CORE_UTIL_H_
