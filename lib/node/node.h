// Per-node driver calls that own no state of their own: the clock
// counters, the tiling configuration, the trap handler and the legacy
// memory policy (hsaKmtGetClockCounters, hsaKmtGetTileConfig,
// hsaKmtSetTrapHandler, hsaKmtSetMemoryPolicy).
//
// Every call resolves its user node id through the acquired topology (the
// snapshot is taken, and the VM brought up, on first use, as
// hsaKmtAcquireSystemProperties would), issues one kind of ioctl and
// publishes its outputs only on success. Node ids name CPU and GPU nodes
// alike; what a CPU node means is stated per call (upstream's rules).
// Failures are explained through the context's diagnostics callback; the
// Status keeps the kernel's errno.
//
// Threading: callable from any thread; no lock is held across an ioctl.
#ifndef HKE_LIB_NODE_NODE_H_
#define HKE_LIB_NODE_NODE_H_

#include <cstdint>

#include "hsakmt/hsakmttypes.h"
#include "lib/context/context.h"
#include "lib/core/status.h"

namespace hke::node {

// What a call needs to know about a user node.
struct NodeTarget {
  uint32_t gpu_id;        // 0 for a CPU node
  uint32_t gfx_version;   // gfx_target_version (decimal MMmmss), 0 for a CPU node
  uint32_t render_minor;  // DRM render minor of a GPU node, 0 for a CPU node
  uint32_t device_id;     // PCI device id of a GPU node, 0 for a CPU node
};

// Checks the open device, takes the topology if needed and resolves `node`.
// INVALID_NODE (with a diagnostic) for an id outside the snapshot.
Status Resolve(Context& ctx, uint32_t node, NodeTarget* out);

// GET_CLOCK_COUNTERS. A GPU node is sampled up to kClockSamples times and
// the sample whose ioctl took the shortest CPU time (MONOTONIC_RAW read by
// the platform around it) is returned whole, which bounds the GPU/CPU
// correlation error; without a platform clock one sample is taken. A CPU
// node takes one sample with gpu_id 0 (GPU counter 0), as upstream does.
constexpr uint32_t kClockSamples = 4;
Status GetClockCounters(Context& ctx, uint32_t node, HsaClockCounters* out);

// GET_TILE_CONFIG into the caller's arrays. The counts in *config are the
// capacities of TileConfig / MacroTileConfig (a nonzero count with a NULL
// array is INVALID_ARGUMENT); the kernel writes at most that many words.
// On success the counts become what the kernel filled and GbAddrConfig,
// NumBanks, NumRanks are set. A CPU node is INVALID_NODE (it has no
// tiling). On failure *config is unchanged (the arrays are not zeroed
// first, unlike upstream, which clears them before the call).
Status GetTileConfig(Context& ctx, uint32_t node, HsaGpuTileConfig* config);

// SET_TRAP_HANDLER for a GPU node (CPU nodes: INVALID_NODE). The sizes
// are not sent (the ABI has no field for them; upstream ignores them too).
Status SetTrapHandler(Context& ctx, uint32_t node, uint64_t tba, uint64_t tma);

// SET_MEMORY_POLICY with upstream's rules: only a Kaveri (gfx 7.0.0) node
// takes a policy (NOT_IMPLEMENTED elsewhere, CPU nodes included: on later
// GPUs the library owns the alternate aperture); each policy must be
// HSA_CACHING_CACHED or HSA_CACHING_NONCACHED, the alternate base and size
// page multiples (INVALID_ARGUMENT).
Status SetMemoryPolicy(Context& ctx, uint32_t node, uint32_t default_policy,
                       uint32_t alternate_policy, uint64_t alternate_base, uint64_t alternate_size);

// The libdrm amdgpu_device_handle of a GPU node's render node (a CPU node
// is INVALID_NODE). The handle belongs to the context: it stays valid
// until the render node is closed (context teardown, or the first open of
// a forked child); the caller must not deinitialize it. UNSUPPORTED (with
// a diagnostic) when the platform offers no libdrm devices: a build
// without libdrm, a board port without libdrm, the in-process simulator.
Status GetAmdgpuDeviceHandle(Context& ctx, uint32_t node, void** out_handle);

}  // namespace hke::node

#endif  // HKE_LIB_NODE_NODE_H_
