// hsaKmtAcquireSystemProperties, hsaKmtReleaseSystemProperties and the
// hsaKmtGetNode*Properties getters, on the default context, and their
// hsakmtctx.h twins (hsaKmt<Name>Ctx), on the given context: one body per
// call, taking the context. Each context has its own snapshot.
//
// Acquire takes the snapshot on its first call after an open and caches it
// (later calls return the cached system properties without I/O); Release
// drops it. What a snapshot holds and how it is taken (parse reuse, the
// per-GPU derivations) is lib/topology/acquire.h; after a Take the memory
// subsystem brings the VM up (memory::AfterTopologyTaken).
//
// Status rules (upstream's): the getters check a NULL output first, then
// the open check (KERNEL_IO_CHANNEL_NOT_OPENED); Acquire checks open first;
// Release too, except in a forked child that has not reopened, where it
// drops the inherited snapshot and succeeds (upstream's answer).
// A Ctx call with a NULL or dead context is INVALID_PARAMETER before all.
// A node id without a snapshot or beyond NumNodes is INVALID_NODE_UNIT; a
// count above what the node has is INVALID_PARAMETER (also for memory
// banks, where upstream zero-fills the excess). Outputs are written only
// on success.
//
// Threading: the topology lock serialises Acquire, Release and the getters.
#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/device/kfd_device.h"
#include "lib/memory/memory.h"
#include "lib/topology/acquire.h"
#include "lib/topology/snapshot.h"

namespace hke::api {
namespace {

using Topology = topology::Acquisition;

// The open check of `ctx`.
HSAKMT_STATUS OpenCheck(Context& ctx) { return ToHsakmt(device::CheckOpen(ctx)); }

// The node check of every getter (topology lock held): a current snapshot
// and a node id inside it.
HSAKMT_STATUS NodeCheck(const Topology& topo, uint32_t node) {
  if (!topo.Current()) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  if (node >= topo.snapshot().num_nodes()) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  return HSAKMT_STATUS_SUCCESS;
}

// The shared start of every node getter (its output is checked before
// the device, Required): an open device, the topology lock of `ctx`, a
// current snapshot and a node inside it; then `fill(topology)`
// runs with the lock held.
template <typename Fill>
HSAKMT_STATUS WithNode(Context& ctx, uint32_t node, Fill fill) {
  HSAKMT_STATUS r = OpenCheck(ctx);
  if (r != HSAKMT_STATUS_SUCCESS) return r;
  LockGuard g(ctx.topology_lock());
  Topology topo(ctx);
  r = NodeCheck(topo, node);
  if (r != HSAKMT_STATUS_SUCCESS) return r;
  return fill(topo);
}

// The bodies: `ctx` is the context the call runs on; the checks before
// the device (the list's last column) are made.

HSAKMT_STATUS AcquireSystemProperties(Context& ctx, HsaSystemProperties* SystemProperties) {
  HSAKMT_STATUS r = OpenCheck(ctx);
  if (r != HSAKMT_STATUS_SUCCESS) return r;
  if (SystemProperties == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  LockGuard g(ctx.topology_lock());
  Topology topo(ctx);
  if (!topo.Current()) {
    const Status s = topo.Take();
    // A malformed override is upstream's HSAKMT_STATUS_ERROR.
    if (!s.ok() && topo.gfx_override_failed()) return HSAKMT_STATUS_ERROR;
    if (!s.ok()) return ToHsakmt(s);
    if (!ctx.discovery_only()) memory::AfterTopologyTaken(ctx);
  }
  return ToHsakmt(topo.snapshot().FillSystemProperties(SystemProperties));
}

HSAKMT_STATUS ReleaseSystemProperties(Context& ctx) {
  const Status s = device::CheckOpen(ctx);
  // A forked child releases the snapshot it inherited with SUCCESS, as
  // upstream does: dropping it is local, nothing reaches the kernel.
  if (!s.ok() && !s.is_api(HKE_STATUS_FORKED_CHILD)) return ToHsakmt(s);
  LockGuard g(ctx.topology_lock());
  Topology(ctx).Drop();
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS GetNodeProperties(Context& ctx, HSAuint32 NodeId, HsaNodeProperties* NodeProperties) {
  return WithNode(ctx, NodeId, [&](Topology& topo) {
    return ToHsakmt(topo.NodeProperties(NodeId, NodeProperties));
  });
}

HSAKMT_STATUS GetNodeMemoryProperties(Context& ctx, HSAuint32 NodeId, HSAuint32 NumBanks,
                                      HsaMemoryProperties* MemoryProperties) {
  return WithNode(ctx, NodeId, [&](Topology& topo) {
    HsaNodeProperties props;
    Status s = topo.NodeProperties(NodeId, &props);
    if (!s.ok()) return ToHsakmt(s);
    if (NumBanks > props.NumMemoryBanks) return HSAKMT_STATUS_INVALID_PARAMETER;
    uint32_t filled = 0;
    s = topo.snapshot().FillMemoryProperties(NodeId, NumBanks, MemoryProperties, &filled);
    if (!s.ok()) return ToHsakmt(s);
    (void)topo.SyntheticBanks(NodeId, props, MemoryProperties + filled, NumBanks - filled);
    return HSAKMT_STATUS_SUCCESS;
  });
}

HSAKMT_STATUS GetNodeCacheProperties(Context& ctx, HSAuint32 NodeId, HSAuint32 /*ProcessorId*/,
                                     HSAuint32 NumCaches, HsaCacheProperties* CacheProperties) {
  return WithNode(ctx, NodeId, [&](Topology& topo) {
    return ToHsakmt(topo.snapshot().FillCacheProperties(NodeId, NumCaches, CacheProperties));
  });
}

HSAKMT_STATUS GetNodeIoLinkProperties(Context& ctx, HSAuint32 NodeId, HSAuint32 NumIoLinks,
                                      HsaIoLinkProperties* IoLinkProperties) {
  return WithNode(ctx, NodeId, [&](Topology& topo) {
    return ToHsakmt(topo.snapshot().FillIoLinkProperties(NodeId, NumIoLinks, IoLinkProperties));
  });
}

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_TOPOLOGY_API(X)                                                                       \
  X(AcquireSystemProperties, AcquireSystemProperties, (HsaSystemProperties * SystemProperties),   \
    (SystemProperties), Required())                                                               \
  X(ReleaseSystemProperties, ReleaseSystemProperties, (), (), Required())                         \
  X(GetNodeProperties, GetNodeProperties, (HSAuint32 NodeId, HsaNodeProperties * NodeProperties), \
    (NodeId, NodeProperties), Required(NodeProperties))                                           \
  X(GetNodeMemoryProperties, GetNodeMemoryProperties,                                             \
    (HSAuint32 NodeId, HSAuint32 NumBanks, HsaMemoryProperties * MemoryProperties),               \
    (NodeId, NumBanks, MemoryProperties), Required(MemoryProperties))                             \
  X(GetNodeCacheProperties, GetNodeCacheProperties,                                               \
    (HSAuint32 NodeId, HSAuint32 ProcessorId, HSAuint32 NumCaches,                                \
     HsaCacheProperties * CacheProperties),                                                       \
    (NodeId, ProcessorId, NumCaches, CacheProperties), Required(CacheProperties))                 \
  X(GetNodeIoLinkProperties, GetNodeIoLinkProperties,                                             \
    (HSAuint32 NodeId, HSAuint32 NumIoLinks, HsaIoLinkProperties * IoLinkProperties),             \
    (NodeId, NumIoLinks, IoLinkProperties), Required(IoLinkProperties))

HKE_TOPOLOGY_API(HKE_API_TWINS)

}  // extern "C"
