// NUMA memory policies of the simulated host, kept as Linux mbind(2) keeps
// them: per address range (the kernel splits VMAs at a range's ends), and
// dropped with the mapping (Forget, which the in-process platform calls
// for every munmap and every fixed mmap it makes). The host's NUMA nodes
// are the board's (the /sys/devices/system/node/node<N> it serves: one per
// KFD CPU node, numbered by the CPU node's index). The pages themselves
// are the real process's; nothing is moved or allocated here.
//
// Set follows mbind's checks in its order: an unknown mode or an unaligned
// address is EINVAL, an empty range succeeds and records nothing, a node the
// board does not have is EINVAL (the kernel's answer for a node without
// memory in the task's cpuset), an unmapped hole in the range is EFAULT.
// Deliberate difference: the kernel lets MPOL_DEFAULT pass over a partly
// unmapped range; here any hole is EFAULT for every mode.
//
// Threading: every member is thread-safe (one mutex, a leaf lock).
#ifndef HKE_PLATFORM_SIM_CORE_MEM_POLICY_H_
#define HKE_PLATFORM_SIM_CORE_MEM_POLICY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace kfdsim {

class MemPolicies {
 public:
  // Modes (== HKE_MPOL_* and KFDSIM_MPOL_*).
  static constexpr uint32_t kDefault = 0;
  static constexpr uint32_t kPreferred = 1;
  static constexpr uint32_t kBind = 2;

  struct Info {
    uint32_t mode = kDefault;  // kDefault when no policy covers the address
    uint32_t node = 0;
    uint64_t start = 0;   // the part of the range set that holds the address
    uint64_t length = 0;  // (0 with kDefault)
  };

  // `numa_nodes`: the board's NUMA node numbers; empty means node 0 only (a
  // hand-built board that serves no host files).
  MemPolicies(std::vector<uint32_t> numa_nodes, size_t page_size);

  int Set(void* addr, size_t length, uint32_t mode, uint32_t node);
  Info Get(uint64_t addr) const;
  // Drops the policies of [addr, addr + length) (the mapping is gone).
  void Forget(uint64_t addr, uint64_t length);
  // Ranges with a policy other than the default, as set (adjacent ranges
  // with the same policy are not merged).
  uint32_t Count() const;
  void Clear();

 private:
  struct Range {
    uint64_t end;
    uint32_t mode;
    uint32_t node;
  };
  int CheckMapped(uint64_t start, uint64_t end) const;
  // Cuts [start, end) out of ranges_ (mu_ held).
  void EraseLocked(uint64_t start, uint64_t end);

  const std::vector<uint32_t> nodes_;
  const size_t page_;
  mutable std::mutex mu_;
  std::map<uint64_t, Range> ranges_;  // by start; disjoint
};

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_CORE_MEM_POLICY_H_
