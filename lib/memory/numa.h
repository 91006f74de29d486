// NUMA placement of paged system memory (upstream's bind_mem_to_numa):
// the anonymous pages behind a dGPU's paged system memory are bound to the
// host NUMA node of the CPU node they were asked for, through the
// platform's optional mem_policy operation (Linux: mbind).
//
// Where the memory goes: a CPU node's own NUMA node (its user id, as
// upstream and the CPU-cache reader number them: /sys/devices/system/node/
// node<id>); for a GPU node (paged memory asked of a GPU, the queue
// buffers) the CPU node nearest it: its first direct PCIe or xGMI link of
// weight <= 20 to a CPU node with memory (upstream's
// hsakmt_get_direct_link_cpu); GTTAccess asks node 0. Mode: BIND with
// NoSubstitute, else PREFERRED.
//
// When nothing is bound, and when the allocation fails (lib/README.md has
// the table): NoNUMABind, a platform without the operation, a node with no
// CPU node, and a host with at most one NUMA node asked for node 0 bind
// nothing and succeed. A node the host does not have fails with
// NoSubstitute, else is skipped with a warning. A refused policy call
// (EPERM: a seccomp filter; ENOSYS: no NUMA support) is a warning and ends
// binding until the next open; any other refusal fails the allocation with
// NoSubstitute and is a warning otherwise. A failure is EFAULT (upstream's
// own answer, HSAKMT_STATUS_ERROR) with the platform's errno in the
// diagnostic.
//
// Policies are never reset before a range is released: the policy belongs
// to the mapping, which the release unmaps or maps over (platform contract).
//
// Ownership and threading: the state lives in MemoryState; everything here
// runs under the memory lock (CaptureNumaTargets also under the topology
// lock, at VM bring-up).
#ifndef HKE_LIB_MEMORY_NUMA_H_
#define HKE_LIB_MEMORY_NUMA_H_

#include <cstdint>

#include "lib/core/config.h"
#include "lib/core/status.h"

namespace hke {
class Context;
}  // namespace hke
namespace hke::topology {
class Snapshot;
}  // namespace hke::topology

namespace hke::memory {

inline constexpr uint16_t kNoNumaNode = 0xffff;

struct NumaPlacement {
  // Per user node, the CPU node (== host NUMA node) that serves its system
  // memory, or kNoNumaNode. From the topology at VM bring-up.
  uint16_t cpu_of_node[config::kMaxNodes];
  uint32_t num_nodes;
  // The host's NUMA nodes, listed at the first placement of an open epoch:
  // host_nodes = highest node<N> + 1 (0: no NUMA directory). host_known is
  // false without list_dir or after a failed listing (then every bind is
  // attempted and the platform judges the node).
  bool probed;
  bool host_known;
  uint32_t host_nodes;
  // The platform refused policies for good (EPERM, ENOSYS) in this epoch.
  bool refused;
};

// Fills the per-node targets from the acquired topology and forgets the
// host facts (they are read again in the new epoch).
void CaptureNumaTargets(const topology::Snapshot& s, NumaPlacement* out);

// Binds the anonymous pages just mapped at [va, va + size) for paged
// system memory asked of `node` with `mem_flags` (HsaMemFlags.Value), as
// the file comment says. OK when the allocation may go on (bound or not);
// EFAULT, after an error diagnostic, when it must fail.
Status PlacePages(Context& ctx, NumaPlacement& p, uint32_t node, uint32_t mem_flags, uint64_t va,
                  uint64_t size);

}  // namespace hke::memory

#endif  // HKE_LIB_MEMORY_NUMA_H_
