// The topology snapshot: every KFD sysfs topology fact a process needs,
// read once through the platform into fixed-capacity storage and served to
// the hsaKmtGetNode*Properties getters without further I/O.
//
// Storage. `Snapshot` holds the logic over caller storage (pointers and
// capacities); `SnapshotStorage<...>` owns arrays of compact records;
// `ContextSnapshot` is sized by lib/core/config.h. Banks, caches and links
// live in three shared pools, each node taking a contiguous run, so a
// per-node maximum (a GPU with 217 caches) does not multiply by the node
// count. Both the per-node maximum and the pool total are enforced.
// Records keep only what sysfs said (a cache is 64 bytes, not the
// 1056-byte HsaCacheProperties); the Fill* getters expand them.
//
// Take (the snapshot algorithm, upstream's topology_take_snapshot):
//  1. read `generation_id`;
//  2. read `system_properties`;
//  3. list `nodes/`: every entry must be a decimal name and together they
//     must be exactly 0..N-1; N above the node capacity is
//     RESOURCE_EXHAUSTED;
//  4. for each sysfs node: `gpu_id` (EPERM hides the node, as upstream),
//     `properties`, `name` (optional: absent means ""); a GPU node (gpu_id
//     != 0) is then offered to the NodeFilter, which may hide it. Visible
//     nodes get user ids 0.. in sysfs order;
//  5. for each visible node: `mem_banks/<i>/properties` for i <
//     mem_banks_count, `caches/<i>/properties` for i < caches_count, then
//     `io_links/<i>` for i < io_links_count and `p2p_links/<i>` for i <
//     p2p_links_count. Counts are taken from `properties` (upstream's
//     meaning); entries past a count are not read; a count naming a file
//     that does not exist is PROTOCOL; a count above the capacity is
//     RESOURCE_EXHAUSTED. Links must start at their own node (node_from)
//     and name an existing node (node_to); links to hidden nodes are
//     dropped, and at most (visible nodes - 1) links are kept per node
//     (upstream's limit; the rest are dropped with a warning);
//  6. read `generation_id` again; when it changed, start over, at most
//     `max_attempts` times, then UNAVAILABLE.
// Deliberate differences from upstream: a node without `p2p_links_count`
// has no p2p links (upstream carries the previous node's count over); a
// missing `gpu_id` or `properties` inside a listed node is PROTOCOL.
// Not done here yet (hooks for the API layer): CPU caches from
// /sys/devices/system when caches_count is 0, indirect links when no node
// reports p2p_links (has_p2p_links() tells), CPU model names, marketing
// names, the device-ID table (gfx.h), gfx overrides, synthetic banks.
//
// Failure: Take resets the snapshot (valid() false, no nodes) and returns
// the status; Fill* on an invalid snapshot fail with FAILED_PRECONDITION
// and leave their outputs untouched, so API outputs never see a partial
// snapshot. (Rebuilding in place keeps one copy of the storage instead of
// two.)
//
// Threading: thread-compatible. Take and the getters must not run
// concurrently on one snapshot (the context lock serialises them).
#ifndef HKE_LIB_TOPOLOGY_SNAPSHOT_H_
#define HKE_LIB_TOPOLOGY_SNAPSHOT_H_

#include <cstddef>
#include <cstdint>

#include "hsakmt/hsakmttypes.h"
#include "lib/core/config.h"
#include "lib/core/diag.h"
#include "lib/core/platform.h"
#include "lib/core/status.h"
#include "lib/topology/keys.h"

namespace hke {
class Context;
}

namespace hke::topology {

// The kernel's node name limit (KFD_TOPOLOGY_PUBLIC_NAME_SIZE), NUL included.
inline constexpr size_t kNodeNameCapacity = 32;
// One sysfs file is read whole into this buffer; larger files are
// PROTOCOL. sysfs attributes are at most one page, and the largest real
// topology file (a cache with a 256-entry sibling_map) is under 1 KiB.
inline constexpr size_t kFileBufferSize = 8192;
// Entries of a cache sibling map (HSA_CPU_SIBLINGS).
inline constexpr uint32_t kSiblingBits = 256;
inline constexpr uint32_t kDefaultGenerationAttempts = 4;
// Longest path composed under the topology root.
inline constexpr size_t kPathCapacity = 512;

// One visible node: the values of its `properties` keys plus what the
// other node files said.
struct NodeRecord {
  uint32_t v32[kNode32Count];  // NodeKey < kFirst64BitNodeKey; 0 when absent
  uint64_t v64[kNode64Count];  // NodeKey >= kFirst64BitNodeKey; 0 when absent
  uint32_t sysfs_id;           // nodes/<sysfs_id>
  uint32_t gpu_id;             // the `gpu_id` file; 0 for a CPU node
  uint32_t first_bank;         // index of the node's first bank in the pool
  uint32_t first_cache;        // index of the node's first cache in the pool
  uint32_t first_link;         // index of the node's first link in the pool
  uint16_t num_mem_banks;      // banks of this node
  uint16_t num_caches;         // caches of this node
  uint16_t num_links;          // kept io_links then p2p_links, in that order
  uint8_t has_p2p_key;         // `properties` had p2p_links_count
  char name[kNodeNameCapacity];  // the `name` file, NUL-terminated

  uint32_t Get32(NodeKey k) const { return v32[k]; }
  uint64_t Get64(NodeKey k) const { return v64[k - kFirst64BitNodeKey]; }
  bool is_gpu() const { return gpu_id != 0; }
};

struct MemBankRecord {
  uint64_t size_in_bytes;
  uint32_t heap_type;
  uint32_t flags;
  uint32_t width;
  uint32_t mem_clk_max;
};

struct CacheRecord {
  uint32_t v[kCacheKeyCount];           // by CacheKey
  uint32_t siblings[kSiblingBits / 32];  // bit i = SiblingMap[i]
};

struct LinkRecord {
  uint32_t v[kLinkKeyCount];  // by LinkKey; kNodeFrom/kNodeTo hold user ids
};

// Decides whether a GPU node is visible (upstream hides a GPU whose render
// node cannot be opened). Called once per GPU node, in sysfs order, during
// Take. Return OK with *keep set, or an error that aborts Take.
struct NodeFilter {
  Status (*fn)(void* user, uint32_t sysfs_node, uint32_t gpu_id, uint32_t drm_render_minor,
               bool* keep) = nullptr;  // null: every node is visible
  void* user = nullptr;
};

struct TakeOptions {
  const char* root = nullptr;  // topology root, e.g. /sys/devices/virtual/kfd/kfd/topology
  NodeFilter filter;
  uint32_t max_attempts = kDefaultGenerationAttempts;  // generation retries; 0 means 1
};

class Snapshot {
 public:
  // Caller storage: `nodes` and `sysfs_to_user` hold max_nodes entries;
  // the pools hold <kind>_pool entries; one node may use at most
  // max_<kind> of them.
  struct Storage {
    NodeRecord* nodes;
    MemBankRecord* banks;
    CacheRecord* caches;
    LinkRecord* links;
    uint16_t* sysfs_to_user;
    char* buffer;
    size_t buffer_size;
    uint32_t max_nodes;
    uint32_t max_banks;   // per node
    uint32_t max_caches;  // per node
    uint32_t max_links;   // per node
    uint32_t bank_pool;   // all nodes
    uint32_t cache_pool;
    uint32_t link_pool;
  };
  static constexpr uint16_t kHidden = 0xffff;

  explicit Snapshot(const Storage& storage) : s_(storage) {}
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // Reads the topology (see the file comment). On failure the snapshot is
  // reset and the diagnostic names the file, line or capacity.
  Status Take(const Platform& platform, const Diag& diag, const TakeOptions& options);
  // Forgets everything (valid() false).
  void Reset();

  bool valid() const { return valid_; }
  uint32_t num_nodes() const { return num_nodes_; }
  uint32_t num_sysfs_nodes() const { return num_sysfs_nodes_; }
  uint32_t generation() const { return generation_; }
  // Whether any node reported p2p_links_count (upstream synthesises
  // indirect links only when none did).
  bool has_p2p_links() const { return has_p2p_links_; }
  const Storage& storage() const { return s_; }

  // Record access; null / false when out of range or invalid.
  const NodeRecord* node(uint32_t user_node) const;
  const MemBankRecord* mem_bank(uint32_t user_node, uint32_t index) const;
  const CacheRecord* cache(uint32_t user_node, uint32_t index) const;
  const LinkRecord* link(uint32_t user_node, uint32_t index) const;
  bool UserNodeOfSysfs(uint32_t sysfs_node, uint32_t* out_user_node) const;

  // Public structs (getters.cc). All return FAILED_PRECONDITION on an
  // invalid snapshot, INVALID_ARGUMENT for a null output, OUT_OF_RANGE for
  // an unknown node; outputs are written only on success.
  Status FillSystemProperties(HsaSystemProperties* out) const;
  // NumMemoryBanks counts the sysfs banks only; the API layer adds the
  // synthetic aperture banks.
  Status FillNodeProperties(uint32_t user_node, HsaNodeProperties* out) const;
  // Fills out[0..count): the node's sysfs banks first, the rest zeroed (the
  // API appends synthetic banks there). *out_filled = sysfs banks written.
  Status FillMemoryProperties(uint32_t user_node, uint32_t count, HsaMemoryProperties* out,
                              uint32_t* out_filled) const;
  // count above the node's NumCaches / NumIOLinks is INVALID_ARGUMENT (as
  // upstream); fills out[0..count).
  Status FillCacheProperties(uint32_t user_node, uint32_t count, HsaCacheProperties* out) const;
  Status FillIoLinkProperties(uint32_t user_node, uint32_t count, HsaIoLinkProperties* out) const;

 private:
  friend class SnapshotReader;

  Storage s_;
  bool valid_ = false;
  bool has_p2p_links_ = false;
  uint32_t num_nodes_ = 0;
  uint32_t num_sysfs_nodes_ = 0;
  uint32_t used_banks_ = 0;
  uint32_t used_caches_ = 0;
  uint32_t used_links_ = 0;
  uint32_t generation_ = 0;
  uint32_t platform_oem_ = 0;
  uint32_t platform_id_ = 0;
  uint32_t platform_rev_ = 0;
};

// Storage-owning snapshot: kNodes nodes; per node at most kBanks banks,
// kCaches caches and kLinks links; pools of kBankPool, kCachePool and
// kLinkPool entries shared by all nodes. Large for big configurations:
// place it in static storage or in the context, not on a small stack.
template <uint32_t kNodes, uint32_t kBanks, uint32_t kCaches, uint32_t kLinks,
          uint32_t kBankPool = kNodes * kBanks, uint32_t kCachePool = kNodes * kCaches,
          uint32_t kLinkPool = kNodes * kLinks>
class SnapshotStorage : public Snapshot {
 public:
  static_assert(kNodes >= 1 && kNodes < Snapshot::kHidden, "node ids must fit 16 bits");
  static_assert(kBanks <= 0xffff && kCaches <= 0xffff && kLinks <= 0xffff, "16-bit counts");

  SnapshotStorage()
      : Snapshot(Storage{nodes_, banks_, caches_, links_, sysfs_to_user_, buffer_, sizeof(buffer_),
                         kNodes, kBanks, kCaches, kLinks, kBankPool, kCachePool, kLinkPool}) {}

 private:
  NodeRecord nodes_[kNodes];
  MemBankRecord banks_[kBankPool != 0 ? kBankPool : 1];
  CacheRecord caches_[kCachePool != 0 ? kCachePool : 1];
  LinkRecord links_[kLinkPool != 0 ? kLinkPool : 1];
  uint16_t sysfs_to_user_[kNodes];
  char buffer_[kFileBufferSize];
};

// The snapshot sized by the build configuration.
using ContextSnapshot =
    SnapshotStorage<config::kMaxNodes, config::kMaxMemBanksPerNode, config::kMaxCachesPerNode,
                    config::kMaxLinksPerNode, config::kMaxMemBanksTotal, config::kMaxCachesTotal,
                    config::kMaxLinksTotal>;

// Take with the context's platform, diagnostics and topology root.
Status TakeSnapshot(const Context& ctx, const NodeFilter& filter, Snapshot* out);

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_SNAPSHOT_H_
