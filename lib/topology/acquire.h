// Acquisition of a context's topology: what hsaKmtAcquireSystemProperties
// serves and the getters read (TopologyState in lib/topology/state.h).
//
// Acquire takes the snapshot on its first call after an open and caches it
// (later calls return the cached system properties without I/O); Release
// drops it. Around the sysfs snapshot (lib/topology) Acquire derives what
// upstream adds per GPU (below).
//
// Parse reuse (TopologyState in lib/topology/state.h): Release and Close
// keep the sysfs parse (nodes, banks, caches, links, the CPU data from
// /proc/cpuinfo and the CPU cache directories). The next Acquire that takes
// a snapshot reads generation_id only; when it equals the parse's
// generation, the topology root is the same, and the render-node filter,
// re-run over the GPU nodes it saw in sysfs order, decides as it did, the
// parse is reused. Otherwise (or with HKE_CONFIG_REPARSE_TOPOLOGY) sysfs is
// read again. A parse that fails forgets the previous one; reading
// generation_id or re-running the filter fails Acquire as a re-parse
// would, and forgets the parse too; a failure after a good parse (a GFX
// override, the apertures) keeps it. Everything below is derived again on
// every Acquire, reused parse or not:
//  - node filtering: a GPU whose render node cannot be opened (ENOENT,
//    EPERM) is hidden; the opened nodes stay with the device state;
//  - DRM AMDGPU_INFO(DEV_INFO) on the render node: the PCI revision (for
//    the marketing name), the DRM family and the FUSION (integrated) flag;
//  - the marketing name, through the platform's marketing_name operation
//    (libdrm's amdgpu.ids); a pair the table does not list gets libdrm's
//    generic "AMD Radeon Graphics"; only for nodes without CPU cores, as
//    upstream 5.2.3;
//  - the apertures of GET_PROCESS_APERTURES_NEW, from which the getters
//    synthesise the LDS, SCRATCH and DEVICE_SVM banks (the shared SVM range
//    is upstream's: from the highest GPUVM base, 2 MiB aligned, to the
//    lowest canonical GPUVM limit), plus MMIO_REMAP once the memory
//    subsystem has mapped that page (GpuNodeInfo::mmio_base).
// Discovery-only contexts read sysfs only: every GPU is visible, and there
// are no apertures, DEV_INFO or marketing names.
// GFX version overrides (the context's gfx_overrides) fill OverrideEngineId
// of the GPU nodes they apply to; one that resolves to a malformed value on
// such a node fails Acquire with HSAKMT_STATUS_ERROR, as upstream fails on a
// malformed HSA_OVERRIDE_GFX_VERSION[_<node>].
//
// Reading: the modules above (memory, queues, node, debug) read the
// acquired topology through an Acquisition's const members (the snapshot,
// the node records, the visible GPUs and what Acquire derived for them)
// and write nothing but the MMIO page the memory subsystem mapped
// (SetMmioBase). Reader holds the topology lock for one scope around them.
//
// Threading: every member runs with ctx.topology_lock() held; device calls
// take the context lock inside it. Take does not bring the GPU VM up: the
// memory subsystem does that after a Take (memory::AfterTopologyTaken).
#ifndef HKE_LIB_TOPOLOGY_ACQUIRE_H_
#define HKE_LIB_TOPOLOGY_ACQUIRE_H_

#include <cstdint>

#include "hsakmt/hsakmt.h"
#include "lib/context/context.h"
#include "lib/core/config.h"
#include "lib/core/lock.h"
#include "lib/core/status.h"
#include "lib/device/kfd_device.h"
#include "lib/topology/snapshot.h"
#include "lib/topology/state.h"

namespace hke::topology {

class Acquisition {
 public:
  explicit Acquisition(Context& ctx) : ctx_(ctx), t_(ctx.topology()) {}

  // The snapshot is current: taken in this open epoch.
  bool Current() const { return t_.acquired && t_.epoch == device::OpenEpoch(ctx_); }

  // Parses sysfs (or reuses the kept parse), applies the GFX overrides,
  // derives what Acquire adds per GPU and reads the apertures; on success
  // the snapshot is current, on failure nothing is served.
  Status Take();

  // Stops serving the snapshot (Release, a failed Acquire). The parse stays
  // for reuse unless the configuration turns reuse off.
  void Drop();

  // The last Take failed on a malformed GFX version override.
  bool gfx_override_failed() const { return gfx_override_failed_; }

  // The snapshot is served (Acquire..Release), whatever its epoch.
  bool acquired() const { return t_.acquired; }
  const ContextSnapshot& snapshot() const { return t_.snapshot; }
  // The sysfs record of a user node; nullptr for a node the snapshot does
  // not hold.
  const NodeRecord* Node(uint32_t node) const {
    return node < config::kMaxNodes ? t_.snapshot.node(node) : nullptr;
  }
  // Some node has SIMDs and no CPU cores (upstream's is_dgpu).
  bool dgpu() const { return t_.dgpu; }
  // The shared SVM aperture [*base, *limit] (inclusive); false when there
  // is none.
  bool Svm(uint64_t* out_base, uint64_t* out_limit) const;

  // The visible GPUs, in user-node order: [0, num_gpus()).
  uint32_t num_gpus() const { return t_.num_gpus; }
  const GpuNodeInfo& gpu_at(uint32_t k) const { return t_.gpus[k]; }
  // The index into the visible GPUs of a user node; TopologyState::kNoGpu
  // for CPU nodes, hidden GPUs and node ids past the capacity.
  uint16_t GpuIndex(uint32_t node) const {
    return node < config::kMaxNodes ? t_.gpu_of_node[node] : TopologyState::kNoGpu;
  }
  // What Acquire derived for a GPU node; nullptr for other nodes.
  const GpuNodeInfo* Gpu(uint32_t node) const;

  // Records where the memory subsystem mapped GPU k's MMIO_REMAP page (0:
  // not mapped), which the getters then report as a bank.
  void SetMmioBase(uint32_t k, uint64_t base) { t_.gpus[k].mmio_base = base; }
  // Synthetic banks of a GPU node, in upstream's order; returns how many
  // were written to out[0..capacity) (all are counted when out is null).
  uint32_t SyntheticBanks(uint32_t node, const HsaNodeProperties& props, HsaMemoryProperties* out,
                          uint32_t capacity) const;

  // Node properties with what Acquire derived (DEV_INFO's family and
  // FUSION flag, the marketing name, the synthetic banks).
  Status NodeProperties(uint32_t node, HsaNodeProperties* out) const;

 private:
  bool ReuseAllowed() const { return (ctx_.config().flags & HKE_CONFIG_REPARSE_TOPOLOGY) == 0; }
  void ForgetParse();
  // Reads the whole sysfs topology into the snapshot, recording the render
  // filter's decisions; the parse is reusable only once it succeeded.
  Status Parse();
  // Whether the kept parse describes the tree now, for this open device:
  // same root, same generation_id, same render-filter decisions (the
  // filter opens the render nodes again, as a parse would). *out false
  // means "parse again". A failure to read generation_id or of the filter
  // is returned as a parse would return it, and forgets the parse.
  Status CheckReuse(bool* out);
  Status DeriveGpus();
  // DEV_INFO and the marketing name. Failures leave the fields unset, as
  // upstream leaves an empty name when libdrm cannot initialise.
  void QueryDrm(const NodeRecord& r, GpuNodeInfo* g);
  Status ReadApertures();
  Context& ctx_;
  TopologyState& t_;
  bool gfx_override_failed_ = false;
};

// The acquired topology with the topology lock held for this scope: how
// the modules above read it when they do not already hold the lock.
class Reader {
 public:
  explicit Reader(Context& ctx) : lock_(ctx.topology_lock()), topo_(ctx) {}
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  const Acquisition& operator*() const { return topo_; }
  const Acquisition* operator->() const { return &topo_; }

 private:
  LockGuard lock_;
  Acquisition topo_;
};

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_ACQUIRE_H_
