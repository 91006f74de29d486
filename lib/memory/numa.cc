// NUMA placement of paged system memory; see numa.h.
#include "lib/memory/numa.h"

#include "hsakmt/hsakmttypes.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/topology/snapshot.h"

namespace hke::memory {
namespace {

constexpr const char* kArea = "memory";
// Upstream's limit for a direct GPU-CPU link; larger weights are paths
// through another CPU (GPU-CPU-CPU).
constexpr uint32_t kMaxDirectWeight = 20;

bool HasMemory(const topology::Snapshot& s, uint32_t node) {
  const topology::NodeRecord* r = s.node(node);
  if (r == nullptr) return false;
  for (uint32_t i = 0; i < r->num_mem_banks; ++i) {
    const topology::MemBankRecord* b = s.mem_bank(node, i);
    if (b != nullptr && b->size_in_bytes != 0) return true;
  }
  return false;
}

// The CPU node a GPU node's system memory belongs to (upstream's
// gpu_get_direct_link_cpu plus its memory check), kNoNumaNode if none.
uint16_t NearestCpu(const topology::Snapshot& s, uint32_t gpu_node) {
  const topology::NodeRecord* r = s.node(gpu_node);
  if (r == nullptr) return kNoNumaNode;
  for (uint32_t i = 0; i < r->num_links; ++i) {
    const topology::LinkRecord* l = s.link(gpu_node, i);
    if (l == nullptr) continue;
    const uint32_t type = l->v[topology::kLinkType];
    if (type != HSA_IOLINKTYPE_PCIEXPRESS && type != HSA_IOLINK_TYPE_XGMI) continue;
    if (l->v[topology::kWeight] > kMaxDirectWeight) continue;
    const uint32_t to = l->v[topology::kNodeTo];
    const topology::NodeRecord* t = s.node(to);
    if (t == nullptr || t->is_gpu()) continue;
    // Upstream takes the first such link and then gives up when that CPU
    // node has no memory.
    return HasMemory(s, to) ? static_cast<uint16_t>(to) : kNoNumaNode;
  }
  return kNoNumaNode;
}

// Counts node<N> entries of the host's NUMA directory.
struct NodeScan {
  uint32_t nodes = 0;  // highest N + 1
};

int OnNodeEntry(void* user, const char* name, uint32_t kind) {
  if (kind == HKE_DIRENT_FILE) return 0;
  if (name[0] != 'n' || name[1] != 'o' || name[2] != 'd' || name[3] != 'e') return 0;
  uint32_t n = 0;
  size_t i = 4;
  if (name[i] == '\0') return 0;
  for (; name[i] != '\0'; ++i) {
    if (name[i] < '0' || name[i] > '9' || n > 0xffffu) return 0;
    n = n * 10 + static_cast<uint32_t>(name[i] - '0');
  }
  auto* scan = static_cast<NodeScan*>(user);
  if (n + 1 > scan->nodes) scan->nodes = n + 1;
  return 0;
}

// Reads the host's NUMA node count once per epoch. No directory (a kernel
// without NUMA) means none; another failure leaves it unknown and is
// reported, and the next placement lists again.
void Probe(Context& ctx, NumaPlacement& p) {
  if (p.probed) return;
  NodeScan scan;
  const Status s = ctx.platform().ListDir(topology::kCpuNodeRoot, &OnNodeEntry, &scan);
  if (s.ok() || s.is_errno(err::kENOENT)) {
    p.probed = true;
    p.host_known = true;
    p.host_nodes = s.ok() ? scan.nodes : 0;
    return;
  }
  if (s.is_api(HKE_STATUS_UNSUPPORTED)) {
    p.probed = true;  // no list_dir: the platform judges every node
    return;
  }
  (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                          "cannot list the host's NUMA nodes; binding is attempted without "
                          "knowing them",
                          topology::kCpuNodeRoot);
}

Status Fail(Context& ctx, const char* what, uint32_t numa, Status cause) {
  FixedText<192> t;
  t.Append("NoSubstitute: ").Append(what).Append(" NUMA node ").AppendU64(numa);
  if (!cause.ok()) t.Append(" (").Append(StatusName(cause)).Append(")");
  t.Append("; the allocation fails");
  return ctx.diag().Error(Status::Errno(err::kEFAULT), kArea, t.c_str());
}

}  // namespace

void CaptureNumaTargets(const topology::Snapshot& s, NumaPlacement* out) {
  uint32_t n = s.num_nodes();
  if (n > config::kMaxNodes) n = config::kMaxNodes;
  out->num_nodes = n;
  for (uint32_t i = 0; i < n; ++i) {
    const topology::NodeRecord* r = s.node(i);
    if (r == nullptr) {
      out->cpu_of_node[i] = kNoNumaNode;
    } else {
      out->cpu_of_node[i] = r->is_gpu() ? NearestCpu(s, i) : static_cast<uint16_t>(i);
    }
  }
  out->probed = false;
  out->host_known = false;
  out->host_nodes = 0;
  out->refused = false;
}

Status PlacePages(Context& ctx, NumaPlacement& p, uint32_t node, uint32_t mem_flags, uint64_t va,
                  uint64_t size) {
  HsaMemFlags f;
  f.Value = mem_flags;
  if (f.ui32.NoNUMABind || p.refused || !ctx.platform().HasMemPolicy()) return Status::Ok();
  const uint32_t asked = f.ui32.GTTAccess ? 0 : node;
  if (asked >= p.num_nodes || p.cpu_of_node[asked] == kNoNumaNode) return Status::Ok();
  const uint32_t numa = p.cpu_of_node[asked];
  const bool must = f.ui32.NoSubstitute != 0;
  Probe(ctx, p);
  if (p.host_known) {
    // One node (or none) and node 0 asked: the memory cannot be elsewhere.
    if (p.host_nodes <= 1 && numa == 0) return Status::Ok();
    if (numa >= p.host_nodes) {
      if (must) return Fail(ctx, "this host has no", numa, Status::Ok());
      FixedText<160> t;
      t.Append("this host has no NUMA node ").AppendU64(numa).Append(
          "; the system memory is not bound");
      (void)ctx.diag().Report(HKE_DIAG_WARNING, Status::Ok(), kArea, t.c_str());
      return Status::Ok();
    }
  }
  const uint32_t mode = must ? HKE_MPOL_BIND : HKE_MPOL_PREFERRED;
  const Status s = ctx.platform().MemPolicy(reinterpret_cast<void*>(static_cast<uintptr_t>(va)),
                                            static_cast<size_t>(size), mode, numa);
  if (s.ok()) return s;
  if (s.is_errno(err::kEPERM) || s.is_errno(err::kENOSYS)) {
    // Upstream goes on without binding when mbind is blocked (containers'
    // seccomp filters); ENOSYS says the host has no NUMA policies at all.
    p.refused = true;
    (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea,
                            "the platform refuses NUMA policies; system memory is not bound "
                            "until the next open");
    return Status::Ok();
  }
  if (must) return Fail(ctx, "cannot bind to", numa, s);
  FixedText<160> t;
  t.Append("binding to NUMA node ").AppendU64(numa).Append(
      " failed; the system memory is not bound");
  (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea, t.c_str());
  return Status::Ok();
}

}  // namespace hke::memory
