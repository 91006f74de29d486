// NUMA memory policies of the simulated host; see mem_policy.h.
#include "platform/sim/core/mem_policy.h"

#include <errno.h>
#include <sys/mman.h>

#include <algorithm>
#include <utility>

namespace kfdsim {

MemPolicies::MemPolicies(std::vector<uint32_t> numa_nodes, size_t page_size)
    : nodes_(numa_nodes.empty() ? std::vector<uint32_t>{0} : std::move(numa_nodes)),
      page_(page_size == 0 ? 4096 : page_size) {}

// A hole in [start, end) is EFAULT: mincore answers ENOMEM for unmapped
// pages (also under qemu-user, which checks the guest's pages; msync there
// misses holes a 32-bit guest's reserved address space keeps mapped).
int MemPolicies::CheckMapped(uint64_t start, uint64_t end) const {
  unsigned char vec[4096];
  for (uint64_t at = start; at < end;) {
    const uint64_t chunk = std::min<uint64_t>(end - at, sizeof(vec) * page_);
    if (mincore(reinterpret_cast<void*>(static_cast<uintptr_t>(at)), static_cast<size_t>(chunk),
                vec) != 0) {
      return errno == ENOMEM ? EFAULT : errno;
    }
    at += chunk;
  }
  return 0;
}

int MemPolicies::Set(void* addr, size_t length, uint32_t mode, uint32_t node) {
  if (mode > kBind) return EINVAL;
  const uint64_t start = reinterpret_cast<uintptr_t>(addr);
  if (start % page_ != 0 || static_cast<uint64_t>(length) > UINT64_MAX - page_) return EINVAL;
  const uint64_t pages = (static_cast<uint64_t>(length) + page_ - 1) / page_;
  const uint64_t end = start + pages * page_;
  if (end < start || (pages != 0 && end == 0)) return EINVAL;  // wraps
  if (end == start) return 0;
  if (mode != kDefault && std::find(nodes_.begin(), nodes_.end(), node) == nodes_.end()) {
    return EINVAL;
  }
  if (int r = CheckMapped(start, end)) return r;
  std::lock_guard<std::mutex> g(mu_);
  EraseLocked(start, end);
  if (mode != kDefault) ranges_[start] = Range{end, mode, node};
  return 0;
}

MemPolicies::Info MemPolicies::Get(uint64_t addr) const {
  std::lock_guard<std::mutex> g(mu_);
  Info out;
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return out;
  --it;
  if (addr >= it->second.end) return out;
  out.mode = it->second.mode;
  out.node = it->second.node;
  out.start = it->first;
  out.length = it->second.end - it->first;
  return out;
}

void MemPolicies::Forget(uint64_t addr, uint64_t length) {
  const uint64_t start = addr - addr % page_;
  uint64_t end = addr + length;
  if (end < addr) end = UINT64_MAX;  // to the top of the address space
  std::lock_guard<std::mutex> g(mu_);
  EraseLocked(start, end);
}

uint32_t MemPolicies::Count() const {
  std::lock_guard<std::mutex> g(mu_);
  return static_cast<uint32_t>(ranges_.size());
}

void MemPolicies::Clear() {
  std::lock_guard<std::mutex> g(mu_);
  ranges_.clear();
}

void MemPolicies::EraseLocked(uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto it = ranges_.upper_bound(start);
  if (it != ranges_.begin()) --it;
  while (it != ranges_.end() && it->first < end) {
    const uint64_t r_start = it->first;
    const Range r = it->second;
    if (r.end <= start) {
      ++it;
      continue;
    }
    it = ranges_.erase(it);
    // Keep the parts outside [start, end).
    if (r_start < start) ranges_[r_start] = Range{start, r.mode, r.node};
    if (r.end > end) {
      ranges_[end] = Range{r.end, r.mode, r.node};
      break;
    }
  }
}

}  // namespace kfdsim
