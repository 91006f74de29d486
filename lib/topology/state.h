// The topology module's state in a context: the sysfs snapshot behind
// hsaKmtAcquireSystemProperties and the getters, and what Acquire derived
// per GPU around it (render-node filtering, DEV_INFO, marketing names, the
// process apertures; lib/topology/acquire.h).
//
// Ownership: the context holds one TopologyState (Context::topology(), the
// composition root lib/context/context.h). lib/topology writes it
// (Acquisition::Take/Drop, and SetMmioBase for the one fact the memory
// module supplies); the modules above read it through lib/topology/acquire.h
// (Reader, Acquisition), never by writing fields.
//
// Threading: every field is guarded by the topology lock
// (Context::topology_lock(), rank kTopology), which is held across the
// sysfs reads and the device calls of an Acquire.
#ifndef HKE_LIB_TOPOLOGY_STATE_H_
#define HKE_LIB_TOPOLOGY_STATE_H_

#include <cstdint>

#include "hsakmt/hsakmttypes.h"
#include "lib/core/config.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/encode.h"
#include "lib/topology/snapshot.h"

namespace hke::topology {

// What Acquire derived for one visible GPU node beyond sysfs.
struct GpuNodeInfo {
  uint32_t gpu_id = 0;
  uint32_t user_node = 0;
  uint32_t render_minor = 0;
  bool has_apertures = false;  // GET_PROCESS_APERTURES_NEW named this GPU
  kfd::AddressRange lds{};
  kfd::AddressRange scratch{};
  kfd::AddressRange gpuvm{};
  // The MMIO_REMAP page as mapped into this process (0: not mapped; the
  // memory subsystem maps it and records it with SetMmioBase, then
  // GetNode*Properties report the bank).
  uint64_t mmio_base = 0;
  bool has_dev_info = false;  // DRM AMDGPU_INFO(DEV_INFO) answered
  uint32_t pci_rev = 0;
  uint32_t drm_family = 0;
  bool integrated = false;    // DEV_INFO's FUSION flag
  bool has_marketing_name = false;
  char marketing_name[HSA_PUBLIC_NAME_SIZE] = {};
};

// One call of the render-node filter during the parse the snapshot holds
// (what the next Acquire re-runs before it reuses that parse).
struct TopologyFilterDecision {
  uint32_t sysfs_node = 0;
  uint32_t gpu_id = 0;
  uint32_t render_minor = 0;
  bool keep = false;
};

// The topology state behind hsaKmtAcquireSystemProperties and the getters.
//
// Parse reuse (off with HKE_CONFIG_REPARSE_TOPOLOGY): Release and Close
// clear `acquired` but leave the snapshot's parse in place while
// `parse_reusable` is set. The next Acquire reuses it, reading only
// generation_id, when generation_id still equals snapshot.generation(), the
// topology root hashes to `parse_root_hash` and the render-node filter
// decides as `decisions` recorded; everything from the open device (render
// nodes, DEV_INFO, marketing names, apertures) is derived again.
// `parse_reusable` is set only after a complete, successful parse and
// cleared before any re-parse starts, so a failed parse never leaves a
// reusable snapshot behind.
struct TopologyState {
  static constexpr uint16_t kNoGpu = 0xffff;

  ContextSnapshot snapshot;
  bool acquired = false;      // the snapshot and the fields below are served (Acquire..Release)
  uint32_t epoch = 0;         // Context::open_epoch() when acquired
  bool parse_reusable = false;           // see above
  uint64_t parse_root_hash = 0;          // FNV-1a of the root the parse read
  uint32_t num_decisions = 0;            // decisions[0, num_decisions), in call order
  bool decisions_overflow = false;       // more filter calls than entries: not reusable
  TopologyFilterDecision decisions[config::kMaxNodes];
  bool dgpu = false;          // some node has SIMDs and no CPU cores (upstream's is_dgpu)
  bool svm_valid = false;     // the shared SVM aperture (DEVICE_SVM banks)
  uint64_t svm_base = 0;
  uint64_t svm_limit = 0;     // inclusive
  uint32_t num_gpus = 0;
  GpuNodeInfo gpus[config::kMaxGpus];
  uint16_t gpu_of_node[config::kMaxNodes];  // user node -> gpus[] index or kNoGpu
  // GET_PROCESS_APERTURES_NEW reply buffer and its decoded form.
  kfd::ProcessDeviceApertures raw_apertures[config::kMaxGpus];
  kfd::NodeApertures apertures[config::kMaxGpus];
};

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_STATE_H_
