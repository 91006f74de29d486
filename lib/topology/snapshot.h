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
// Each file is read once per pass. With the platform's read_file_at, the
// files below `nodes/` are read relative to one descriptor of that
// directory, held for the pass (dir_files.h), and with list_dir_fd as well
// `nodes/` is listed through that descriptor (one open of it per pass);
// the statuses are those of reading and listing by path.
// Upstream's derived data, each behind a TakeOptions switch (cpu.cc,
// indirect_links.cc):
//  - cpu_details: /proc/cpuinfo is streamed once per attempt (processor,
//    model name, apicid); a CPU node's model name is that of the first
//    processor whose apicid equals its cpu_core_id_base. A CPU node whose
//    caches_count is 0 gets its caches from
//    /sys/devices/system/node/node<user id>/cpu<K>/cache/index<I>/ (or
//    /sys/devices/system/cpu for node 0 without NUMA directories), for
//    I from 0 to n - 1 where n counts the entries of cache/ whose name
//    starts with "index" (upstream's count: with a gap in the numbering,
//    or another entry named index*, a missing index<I> is skipped and the
//    highest existing ones may stay unread); each CPU's cache/ is opened
//    once, listed and read through one descriptor when the platform has
//    read_file_at and list_dir_fd (dir_files.h). A cache
//    shared by several CPUs is listed only under the first CPU of its
//    shared_cpu_map (the lowest set bit; upstream reads the same number
//    from shared_cpu_list, which the kernel prints from the same mask, so
//    one file serves both: shared_cpu_list is read only when the map is
//    missing), its SiblingMap is set by apicid.
//  - indirect_links: when no node reported p2p_links_count, links
//    GPU-CPU-GPU, GPU-CPU-CPU-GPU, GPU-CPU-CPU and CPU-CPU-GPU are added for
//    every node pair (i < j, both directions), weight = sum of the hops.
// Deliberate differences from upstream: a node without `p2p_links_count`
// has no p2p links (upstream carries the previous node's count over); a
// missing `gpu_id` or `properties` inside a listed node is PROTOCOL; a CPU
// node without any cache directory has no caches (upstream fails the
// whole snapshot); CPU cache files that are missing or malformed read as 0
// (as upstream). Not done here (the API layer adds them): marketing names
// of GPUs, synthetic aperture banks, gfx overrides.
//
// Failure: Take resets the snapshot (valid() false, no nodes) and returns
// the status; Fill* on an invalid snapshot fail with FAILED_PRECONDITION
// and leave their outputs untouched, so API outputs never see a partial
// snapshot. (Rebuilding in place keeps one copy of the storage instead of
// two.)
//
// Reuse: a valid snapshot stays valid until Reset or the next Take, so a
// caller may keep it across acquires. ReadGeneration reads only
// `generation_id`; equal to generation(), the tree is the one parsed (the
// KFD bumps it on every topology change). The NodeFilter's decisions are
// part of the result: a caller that keeps the snapshot must re-run its
// filter and re-take when a decision differs (begin_attempt lets it
// record them).
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
#include "lib/topology/gfx_override.h"
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
// A CPU model name as upstream keeps it: at most 63 characters plus NUL
// (HSA_PUBLIC_NAME_SIZE).
inline constexpr size_t kModelNameCapacity = 64;
// Logical CPUs whose /proc/cpuinfo apicid is remembered (the processor
// numbers a CPU cache's shared_cpu_map may name). Processors beyond it are
// ignored with a warning.
#if defined(HKE_CONFIG_SMALL_BOARD)
inline constexpr uint32_t kMaxCpus = 64;
#else
inline constexpr uint32_t kMaxCpus = 1024;
#endif
inline constexpr const char* kCpuInfoPath = "/proc/cpuinfo";
inline constexpr const char* kCpuNodeRoot = "/sys/devices/system/node";
inline constexpr const char* kCpuRoot = "/sys/devices/system/cpu";

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
  uint16_t num_sysfs_links;    // links read from sysfs (the rest are indirect)
  uint8_t has_p2p_key;         // `properties` had p2p_links_count
  uint8_t has_model_name;      // model_name came from /proc/cpuinfo (possibly "")
  char name[kNodeNameCapacity];  // the `name` file, NUL-terminated
  char model_name[kModelNameCapacity];  // CPU nodes: /proc/cpuinfo model name, or ""

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
  // Optional: called at the start of every attempt (generation retry),
  // before that attempt's first `fn` call, so that a caller recording the
  // decisions keeps only those of the attempt Take returns.
  void (*begin_attempt)(void* user) = nullptr;
};

struct TakeOptions {
  const char* root = nullptr;  // topology root, e.g. /sys/devices/virtual/kfd/kfd/topology
  NodeFilter filter;
  uint32_t max_attempts = kDefaultGenerationAttempts;  // generation retries; 0 means 1
  bool cpu_details = false;     // CPU model names and CPU caches (see the file comment)
  bool indirect_links = false;  // indirect links when no node reports p2p links
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
    uint32_t* cpu_apicid;   // max_cpus entries: apicid by processor number
    uint32_t* cpu_scratch;  // max_cpus entries: CPU directory listing order
    uint32_t max_cpus;
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
  // Reads <root>/generation_id (the value a KFD bumps on every topology
  // change) into *out, with Take's diagnostics on failure. Uses the read
  // buffer only: the records, valid() and generation() are untouched, so a
  // valid snapshot whose generation() equals the value read still
  // describes the tree (the check behind snapshot reuse, lib/api/topology.cc).
  Status ReadGeneration(const Platform& platform, const Diag& diag, const char* root,
                        uint32_t* out);

  bool valid() const { return valid_; }
  uint32_t num_nodes() const { return num_nodes_; }
  uint32_t num_sysfs_nodes() const { return num_sysfs_nodes_; }
  // Processors /proc/cpuinfo described (cpu_details), at most max_cpus.
  uint32_t num_cpus() const { return num_cpus_; }
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
  // synthetic aperture banks. `gfx_override` (may be null) is what the
  // node's GFX version override resolved to: a value goes to
  // OverrideEngineId of a node it applies to (GfxOverrideApplies); a
  // malformed one there is INVALID_ARGUMENT.
  Status FillNodeProperties(uint32_t user_node, HsaNodeProperties* out,
                            const GfxOverride* gfx_override = nullptr) const;
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
  friend class CpuReader;
  friend class IndirectLinkBuilder;

  Storage s_;
  bool valid_ = false;
  bool has_p2p_links_ = false;
  uint32_t num_nodes_ = 0;
  uint32_t num_sysfs_nodes_ = 0;
  uint32_t num_cpus_ = 0;
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
          uint32_t kLinkPool = kNodes * kLinks, uint32_t kCpus = kMaxCpus>
class SnapshotStorage : public Snapshot {
 public:
  static_assert(kNodes >= 1 && kNodes < Snapshot::kHidden, "node ids must fit 16 bits");
  static_assert(kBanks <= 0xffff && kCaches <= 0xffff && kLinks <= 0xffff, "16-bit counts");

  SnapshotStorage()
      : Snapshot(Storage{nodes_, banks_, caches_, links_, sysfs_to_user_, buffer_, sizeof(buffer_),
                         cpu_apicid_, cpu_scratch_, kCpus, kNodes, kBanks, kCaches, kLinks,
                         kBankPool, kCachePool, kLinkPool}) {}

 private:
  NodeRecord nodes_[kNodes];
  MemBankRecord banks_[kBankPool != 0 ? kBankPool : 1];
  CacheRecord caches_[kCachePool != 0 ? kCachePool : 1];
  LinkRecord links_[kLinkPool != 0 ? kLinkPool : 1];
  uint16_t sysfs_to_user_[kNodes];
  uint32_t cpu_apicid_[kCpus != 0 ? kCpus : 1];
  uint32_t cpu_scratch_[kCpus != 0 ? kCpus : 1];
  char buffer_[kFileBufferSize];
};

// The snapshot sized by the build configuration.
using ContextSnapshot =
    SnapshotStorage<config::kMaxNodes, config::kMaxMemBanksPerNode, config::kMaxCachesPerNode,
                    config::kMaxLinksPerNode, config::kMaxMemBanksTotal, config::kMaxCachesTotal,
                    config::kMaxLinksTotal>;

// Take with the context's platform, diagnostics and topology root, and
// upstream's derived data (cpu_details and indirect_links on).
Status TakeSnapshot(const Context& ctx, const NodeFilter& filter, Snapshot* out);

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_SNAPSHOT_H_
