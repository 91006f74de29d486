// Reading the snapshot (Snapshot::Take). The getters are in getters.cc.
#include "lib/topology/snapshot.h"

#include <cstring>

#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/topology/derived.h"
#include "lib/topology/dir_files.h"
#include "lib/topology/properties.h"

namespace hke::topology {
namespace {

constexpr const char* kArea = "topology";
constexpr uint16_t kSeen = 0xfffe;  // listing mark, replaced before Take returns

using Path = FixedText<kPathCapacity>;
using Message = FixedText<Diag::kMessageCapacity>;

// What a missing file means for the caller.
enum class Missing {
  kKeepErrno,  // report the platform's errno (the topology itself is absent)
  kProtocol,   // the tree names this file but it is not there
  kAllowed,    // optional file
};

// State of the nodes/ listing callback.
struct NodeListing {
  uint16_t* marks;
  uint32_t capacity;
  uint64_t count = 0;
  bool bad = false;
  FixedText<64> bad_name;
};

// Parses a node directory name: decimal without leading zeros, < 10^9.
bool NodeIndex(const char* name, uint32_t* out) {
  uint32_t v = 0;
  size_t n = 0;
  for (; name[n] != '\0'; ++n) {
    if (name[n] < '0' || name[n] > '9' || n >= 9) return false;
    v = v * 10 + static_cast<uint32_t>(name[n] - '0');
  }
  if (n == 0 || (n > 1 && name[0] == '0')) return false;
  *out = v;
  return true;
}

int OnNodeEntry(void* user, const char* name, uint32_t /*kind*/) {
  auto* l = static_cast<NodeListing*>(user);
  uint32_t index = 0;
  if (name == nullptr || !NodeIndex(name, &index)) {
    l->bad = true;
    l->bad_name.Append(name);
    return 1;  // stop: the listing is refused anyway
  }
  ++l->count;
  if (index < l->capacity) l->marks[index] = kSeen;
  return 0;
}

}  // namespace

// One pass of the snapshot algorithm over a Snapshot's storage.
class SnapshotReader {
 public:
  SnapshotReader(Snapshot& snap, const Platform& platform, const Diag& diag,
                 const TakeOptions& options)
      : snap_(snap), s_(snap.s_), platform_(platform), diag_(diag), options_(options) {}

  Status Once(bool* out_generation_changed) {
    // The files below <root>/nodes are read relative to that directory,
    // held open for this pass (DirFiles).
    Path nodes;
    Root(&nodes).Append("/nodes");
    DirFiles files(platform_, nodes.c_str(), nodes.truncated() ? 0 : nodes.size());
    files_ = &files;
    const Status s = OnceReading(out_generation_changed);
    files_ = nullptr;
    return s;
  }

  Status OnceReading(bool* out_generation_changed) {
    uint32_t gen_start = 0, gen_end = 0;
    HKE_RETURN_IF_ERROR(ReadGeneration(&gen_start));
    HKE_RETURN_IF_ERROR(ReadSystemProperties());
    HKE_RETURN_IF_ERROR(ListNodes());
    for (uint32_t i = 0; i < snap_.num_sysfs_nodes_; ++i) HKE_RETURN_IF_ERROR(ReadNode(i));
    CpuReader cpus(snap_, platform_, diag_);
    if (options_.cpu_details) HKE_RETURN_IF_ERROR(cpus.ReadCpuInfo());
    for (uint32_t u = 0; u < snap_.num_nodes_; ++u) {
      HKE_RETURN_IF_ERROR(ReadBanks(u));
      HKE_RETURN_IF_ERROR(ReadCaches(u, cpus));
      HKE_RETURN_IF_ERROR(ReadLinks(u));
    }
    if (options_.indirect_links && !snap_.has_p2p_links_) {
      IndirectLinkBuilder links(snap_, diag_);
      HKE_RETURN_IF_ERROR(links.Build());
    }
    HKE_RETURN_IF_ERROR(ReadGeneration(&gen_end));
    snap_.generation_ = gen_end;
    *out_generation_changed = gen_start != gen_end;
    return Status::Ok();
  }

  // <root>/generation_id; *out is written only on success.
  Status ReadGeneration(uint32_t* out) {
    Path path;
    Root(&path).Append("/generation_id");
    size_t n = 0;
    HKE_RETURN_IF_ERROR(Read(path, Missing::kKeepErrno, &n));
    uint64_t v = 0;
    HKE_RETURN_IF_ERROR(
        ParseSingleValue(s_.buffer, n, ValueWidth::k32, TextSource{&diag_, path.c_str()}, &v));
    *out = static_cast<uint32_t>(v);
    return Status::Ok();
  }

  Status Unavailable(uint32_t attempts) {
    Path path;
    Root(&path).Append("/generation_id");
    Message msg;
    msg.Append("generation_id changed during each of ").AppendU64(attempts).Append(" attempts");
    return diag_.Error(Status::Api(HKE_STATUS_UNAVAILABLE), kArea, msg.c_str(), path.c_str());
  }

 private:
  TextBuilder& Root(TextBuilder* p) { return p->Append(options_.root); }

  // <root>/nodes/<node>[/<sub>/<index>]/<leaf>
  TextBuilder& NodePath(Path* p, uint32_t node, const char* leaf, const char* sub = nullptr,
                        uint32_t index = 0) {
    Root(p).Append("/nodes/").AppendU64(node);
    if (sub != nullptr) p->AppendChar('/').Append(sub).AppendChar('/').AppendU64(index);
    return p->AppendChar('/').Append(leaf);
  }

  Status CheckPath(const Path& p) {
    if (!p.truncated()) return Status::Ok();
    return diag_.Error(OutOfRange(), kArea, "topology path longer than kPathCapacity", p.c_str());
  }

  // Reads `path` whole into the snapshot's buffer: during a pass through
  // the nodes/ directory's descriptor (files_), else by the absolute path.
  Status ReadRaw(const Path& path, size_t* out_length) {
    if (files_ != nullptr) {
      return files_->Read(path.c_str(), path.size(), s_.buffer, s_.buffer_size, out_length);
    }
    return platform_.ReadFile(path.c_str(), s_.buffer, s_.buffer_size, out_length);
  }

  // Reads `path` whole into the snapshot's buffer.
  Status Read(const Path& path, Missing missing, size_t* out_length, bool* out_found = nullptr) {
    HKE_RETURN_IF_ERROR(CheckPath(path));
    size_t n = 0;
    const Status s = ReadRaw(path, &n);
    if (out_found != nullptr) *out_found = s.ok();
    if (s.ok()) {
      *out_length = n;
      return s;
    }
    if (s.is_errno(err::kENOENT) && missing == Missing::kAllowed && out_found != nullptr) {
      return Status::Ok();
    }
    return Explain(s, path, missing);
  }

  // Turns a failed read into the status Take returns, with a diagnostic.
  Status Explain(Status s, const Path& path, Missing missing) {
    if (s.is_errno(err::kENOENT) && missing == Missing::kProtocol) {
      return diag_.Error(Protocol(), kArea, "file missing although the topology lists or counts it",
                         path.c_str());
    }
    if (s.is_errno(err::kEFBIG)) {
      Message msg;
      msg.Append("file larger than the ").AppendU64(s_.buffer_size).Append("-byte read buffer");
      return diag_.Error(Protocol(), kArea, msg.c_str(), path.c_str());
    }
    return diag_.Error(s, kArea, "cannot read topology file", path.c_str());
  }

  Status RequireText(const Path& path, size_t length) {
    if (length != 0) return Status::Ok();
    return diag_.Error(Protocol(), kArea, "empty properties file", path.c_str());
  }

  Status ParseFile(const Path& path, size_t length, const KeyTable& table, PropertyValues* out,
                   ListSink* list = nullptr) {
    HKE_RETURN_IF_ERROR(RequireText(path, length));
    const TextSource src{&diag_, path.c_str()};
    return ParseProperties(s_.buffer, length, table, src, out, list);
  }

  Status Exhausted(const char* what, uint64_t needed, uint32_t capacity, const char* constant,
                   const char* path) {
    Message msg;
    msg.Append(what).Append(" needs ").AppendU64(needed).Append(" entries; capacity is ");
    msg.AppendU64(capacity).Append(" (raise ").Append(constant).AppendChar(')');
    return diag_.Error(::hke::Exhausted(), kArea, msg.c_str(), path);
  }

  // A node's count of one kind of record (its properties' `key`) within the
  // per-node bound `max` (the config constant named `constant`).
  Status NodeCountFits(const NodeRecord& rec, const char* key, uint32_t count, uint32_t max,
                       const char* constant) {
    if (count <= max) return Status::Ok();
    Path path;
    NodePath(&path, rec.sysfs_id, "properties");
    return Exhausted(key, count, max, constant, path.c_str());
  }

  // Room for one more record in a shared pool of `pool` entries, `used`
  // taken; `path` is the file of the record that needs it.
  Status PoolHasRoom(const char* what, uint32_t used, uint32_t pool, const char* constant,
                     const Path& path) {
    if (used < pool) return Status::Ok();
    return Exhausted(what, used + 1ull, pool, constant, path.c_str());
  }

  // Reads properties/<dir>/<i> of a node into the file buffer: its path in
  // *path, its length in *n.
  Status ReadNodeEntry(const NodeRecord& rec, const char* dir, uint32_t i, Path* path, size_t* n) {
    NodePath(path, rec.sysfs_id, "properties", dir, i);
    return Read(*path, Missing::kProtocol, n);
  }

  Status ReadSystemProperties() {
    Path path;
    Root(&path).Append("/system_properties");
    size_t n = 0;
    HKE_RETURN_IF_ERROR(Read(path, Missing::kKeepErrno, &n));
    FixedPropertyValues<kSystemKeyCount> v;
    HKE_RETURN_IF_ERROR(ParseFile(path, n, SystemKeys(), &v));
    snap_.platform_oem_ = v.Get32(kPlatformOem);
    snap_.platform_id_ = v.Get32(kPlatformId);
    snap_.platform_rev_ = v.Get32(kPlatformRev);
    return Status::Ok();
  }

  Status ListNodes() {
    Path path;
    Root(&path).Append("/nodes");
    HKE_RETURN_IF_ERROR(CheckPath(path));
    for (uint32_t i = 0; i < s_.max_nodes; ++i) s_.sysfs_to_user[i] = Snapshot::kHidden;
    NodeListing listing;
    listing.marks = s_.sysfs_to_user;
    listing.capacity = s_.max_nodes;
    // Listed through the pass's descriptor of nodes/ (DirFiles), which
    // the node files are then read through.
    const Status s = files_ != nullptr ? files_->List(&OnNodeEntry, &listing)
                                       : platform_.ListDir(path.c_str(), &OnNodeEntry, &listing);
    if (!s.ok()) return diag_.Error(s, kArea, "cannot list the topology nodes", path.c_str());
    if (listing.bad) {
      Message msg;
      msg.Append("nodes/ holds an entry that is not a node number: '")
          .Append(listing.bad_name.c_str())
          .AppendChar('\'');
      return diag_.Error(Protocol(), kArea, msg.c_str(), path.c_str());
    }
    if (listing.count > s_.max_nodes) {
      return Exhausted("nodes/", listing.count, s_.max_nodes, "hke::config::kMaxNodes",
                       path.c_str());
    }
    const uint32_t count = static_cast<uint32_t>(listing.count);
    for (uint32_t i = 0; i < count; ++i) {
      if (s_.sysfs_to_user[i] != kSeen) {
        Message msg;
        msg.Append("nodes/ has ").AppendU64(count).Append(" entries but no node ").AppendU64(i);
        return diag_.Error(Protocol(), kArea, msg.c_str(), path.c_str());
      }
      s_.sysfs_to_user[i] = Snapshot::kHidden;
    }
    snap_.num_sysfs_nodes_ = count;
    return Status::Ok();
  }

  Status ReadNode(uint32_t sysfs) {
    Path path;
    NodePath(&path, sysfs, "gpu_id");
    HKE_RETURN_IF_ERROR(CheckPath(path));
    size_t n = 0;
    const Status gs = ReadRaw(path, &n);
    if (gs.is_errno(err::kEPERM)) return Status::Ok();  // hidden from this process
    if (!gs.ok()) return Explain(gs, path, Missing::kProtocol);
    uint64_t gpu_id = 0;
    HKE_RETURN_IF_ERROR(
        ParseSingleValue(s_.buffer, n, ValueWidth::k32, TextSource{&diag_, path.c_str()}, &gpu_id));

    path.Clear();
    NodePath(&path, sysfs, "properties");
    HKE_RETURN_IF_ERROR(Read(path, Missing::kProtocol, &n));
    FixedPropertyValues<kNodeKeyCount> v;
    HKE_RETURN_IF_ERROR(ParseFile(path, n, NodeKeys(), &v));

    if (gpu_id != 0 && options_.filter.fn != nullptr) {
      bool keep = true;
      const Status fs = options_.filter.fn(options_.filter.user, sysfs,
                                           static_cast<uint32_t>(gpu_id),
                                           v.Get32(kDrmRenderMinor), &keep);
      if (!fs.ok()) return diag_.Error(fs, kArea, "the node filter failed", path.c_str());
      if (!keep) return Status::Ok();
    }

    const uint32_t user = snap_.num_nodes_;
    if (user >= s_.max_nodes) {  // unreachable: sysfs nodes were checked
      return Exhausted("visible nodes", user + 1ull, s_.max_nodes, "hke::config::kMaxNodes",
                       path.c_str());
    }
    NodeRecord& rec = s_.nodes[user];
    for (uint32_t k = 0; k < kNode32Count; ++k) rec.v32[k] = v.Get32(k);
    for (uint32_t k = 0; k < kNode64Count; ++k) rec.v64[k] = v.Get(kFirst64BitNodeKey + k);
    rec.sysfs_id = sysfs;
    rec.gpu_id = static_cast<uint32_t>(gpu_id);
    rec.first_bank = 0;
    rec.first_cache = 0;
    rec.first_link = 0;
    rec.num_mem_banks = 0;
    rec.num_caches = 0;
    rec.num_links = 0;
    rec.num_sysfs_links = 0;
    rec.has_p2p_key = v.Has(kP2pLinksCount) ? 1 : 0;
    rec.name[0] = '\0';
    rec.model_name[0] = '\0';
    rec.has_model_name = 0;
    if (rec.has_p2p_key != 0) snap_.has_p2p_links_ = true;

    path.Clear();
    NodePath(&path, sysfs, "name");
    bool found = false;
    HKE_RETURN_IF_ERROR(Read(path, Missing::kAllowed, &n, &found));
    if (found) {
      HKE_RETURN_IF_ERROR(ParseName(s_.buffer, n, TextSource{&diag_, path.c_str()}, rec.name,
                                    sizeof(rec.name)));
    }
    s_.sysfs_to_user[sysfs] = static_cast<uint16_t>(user);
    snap_.num_nodes_ = user + 1;
    return Status::Ok();
  }

  Status ReadBanks(uint32_t user) {
    NodeRecord& rec = s_.nodes[user];
    const uint32_t count = rec.Get32(kMemBanksCount);
    HKE_RETURN_IF_ERROR(NodeCountFits(rec, "mem_banks_count", count, s_.max_banks,
                                      "hke::config::kMaxMemBanksPerNode"));
    rec.first_bank = snap_.used_banks_;
    for (uint32_t i = 0; i < count; ++i) {
      Path path;
      size_t n = 0;
      HKE_RETURN_IF_ERROR(ReadNodeEntry(rec, "mem_banks", i, &path, &n));
      FixedPropertyValues<kMemKeyCount> v;
      HKE_RETURN_IF_ERROR(ParseFile(path, n, MemKeys(), &v));
      HKE_RETURN_IF_ERROR(PoolHasRoom("the memory bank pool", snap_.used_banks_, s_.bank_pool,
                                      "the bank pool (config::kMaxMemBanksTotal)", path));
      MemBankRecord& b = s_.banks[snap_.used_banks_++];
      b.heap_type = v.Get32(kHeapType);
      b.size_in_bytes = v.Get(kSizeInBytes);
      b.flags = v.Get32(kMemFlags);
      b.width = v.Get32(kWidth);
      b.mem_clk_max = v.Get32(kMemClkMax);
      rec.num_mem_banks = static_cast<uint16_t>(i + 1);
    }
    return Status::Ok();
  }

  Status ReadCaches(uint32_t user, CpuReader& cpus) {
    NodeRecord& rec = s_.nodes[user];
    const uint32_t count = rec.Get32(kCachesCount);
    if (count == 0 && !rec.is_gpu() && options_.cpu_details) return cpus.ReadCpuCaches(user);
    HKE_RETURN_IF_ERROR(NodeCountFits(rec, "caches_count", count, s_.max_caches,
                                      "hke::config::kMaxCachesPerNode"));
    rec.first_cache = snap_.used_caches_;
    for (uint32_t i = 0; i < count; ++i) {
      Path path;
      size_t n = 0;
      HKE_RETURN_IF_ERROR(ReadNodeEntry(rec, "caches", i, &path, &n));
      FixedPropertyValues<kCacheKeyCount> v;
      HKE_RETURN_IF_ERROR(PoolHasRoom("the cache pool", snap_.used_caches_, s_.cache_pool,
                                      "the cache pool (config::kMaxCachesTotal)", path));
      CacheRecord& c = s_.caches[snap_.used_caches_];
      ListSink siblings{kSiblingMapKey, c.siblings, kSiblingBits, false};
      HKE_RETURN_IF_ERROR(ParseFile(path, n, CacheKeys(), &v, &siblings));
      for (uint32_t k = 0; k < kCacheKeyCount; ++k) c.v[k] = v.Get32(k);
      ++snap_.used_caches_;
      rec.num_caches = static_cast<uint16_t>(i + 1);
    }
    return Status::Ok();
  }

  Status ReadLinks(uint32_t user) {
    NodeRecord& rec = s_.nodes[user];
    const uint32_t limit = snap_.num_nodes_ - 1;  // upstream keeps at most NumNodes-1
    uint32_t kept = 0;
    rec.first_link = snap_.used_links_;
    struct Kind {
      const char* dir;
      uint32_t count;
    };
    const Kind kinds[] = {{"io_links", rec.Get32(kIoLinksCount)},
                          {"p2p_links", rec.Get32(kP2pLinksCount)}};
    for (const Kind& kind : kinds) {
      for (uint32_t i = 0; i < kind.count; ++i) {
        Path path;
        NodePath(&path, rec.sysfs_id, "properties", kind.dir, i);
        if (kept >= limit) {
          Message msg;
          msg.Append("node already has ").AppendU64(kept).Append(" links (visible nodes - 1); ");
          msg.Append("this and later links are dropped, as upstream does");
          (void)diag_.Report(HKE_DIAG_WARNING, Status::Ok(), kArea, msg.c_str(), path.c_str());
          rec.num_links = static_cast<uint16_t>(kept);
          rec.num_sysfs_links = rec.num_links;
          return Status::Ok();
        }
        size_t n = 0;
        HKE_RETURN_IF_ERROR(Read(path, Missing::kProtocol, &n));
        FixedPropertyValues<kLinkKeyCount> v;
        HKE_RETURN_IF_ERROR(ParseFile(path, n, LinkKeys(), &v));
        if (!v.Has(kNodeFrom) || v.Get(kNodeFrom) != rec.sysfs_id) {
          return diag_.Error(Protocol(), kArea, "link node_from is missing or not this node",
                             path.c_str());
        }
        if (!v.Has(kNodeTo) || v.Get(kNodeTo) >= snap_.num_sysfs_nodes_) {
          return diag_.Error(Protocol(), kArea, "link node_to is missing or names no node",
                             path.c_str());
        }
        const uint16_t to = s_.sysfs_to_user[v.Get(kNodeTo)];
        if (to == Snapshot::kHidden) continue;  // the far end is hidden: dropped
        if (kept >= s_.max_links) {
          return Exhausted("io_links_count + p2p_links_count", kept + 1ull, s_.max_links,
                           "hke::config::kMaxLinksPerNode", path.c_str());
        }
        HKE_RETURN_IF_ERROR(PoolHasRoom("the link pool", snap_.used_links_, s_.link_pool,
                                        "the link pool (config::kMaxLinksTotal)", path));
        LinkRecord& l = s_.links[snap_.used_links_++];
        for (uint32_t k = 0; k < kLinkKeyCount; ++k) l.v[k] = v.Get32(k);
        l.v[kNodeFrom] = user;
        l.v[kNodeTo] = to;
        ++kept;
      }
    }
    rec.num_links = static_cast<uint16_t>(kept);
    rec.num_sysfs_links = rec.num_links;
    return Status::Ok();
  }

  Snapshot& snap_;
  const Snapshot::Storage& s_;
  const Platform& platform_;
  const Diag& diag_;
  const TakeOptions& options_;
  // The nodes/ directory during Once; null outside it.
  DirFiles* files_ = nullptr;
};

void Snapshot::Reset() {
  valid_ = false;
  has_p2p_links_ = false;
  num_nodes_ = 0;
  num_sysfs_nodes_ = 0;
  num_cpus_ = 0;
  used_banks_ = 0;
  used_caches_ = 0;
  used_links_ = 0;
  generation_ = 0;
  platform_oem_ = 0;
  platform_id_ = 0;
  platform_rev_ = 0;
  for (uint32_t i = 0; i < s_.max_nodes; ++i) s_.sysfs_to_user[i] = kHidden;
}

Status Snapshot::Take(const Platform& platform, const Diag& diag, const TakeOptions& options) {
  Reset();
  if (options.root == nullptr || s_.nodes == nullptr || s_.buffer == nullptr ||
      s_.sysfs_to_user == nullptr || s_.max_nodes == 0 || s_.max_nodes >= kHidden) {
    return diag.Error(InvalidArgument(), kArea, "snapshot storage or topology root missing");
  }
  SnapshotReader reader(*this, platform, diag, options);
  const uint32_t attempts = options.max_attempts != 0 ? options.max_attempts : 1;
  for (uint32_t attempt = 0; attempt < attempts; ++attempt) {
    Reset();
    if (options.filter.begin_attempt != nullptr) options.filter.begin_attempt(options.filter.user);
    bool changed = false;
    const Status s = reader.Once(&changed);
    if (!s.ok()) {
      Reset();
      return s;
    }
    if (!changed) {
      valid_ = true;
      return Status::Ok();
    }
  }
  Reset();
  return reader.Unavailable(attempts);
}

Status Snapshot::ReadGeneration(const Platform& platform, const Diag& diag, const char* root,
                                uint32_t* out) {
  if (root == nullptr || out == nullptr || s_.buffer == nullptr) {
    return diag.Error(InvalidArgument(), kArea, "snapshot buffer, topology root or output missing");
  }
  TakeOptions options;
  options.root = root;
  SnapshotReader reader(*this, platform, diag, options);
  return reader.ReadGeneration(out);
}

const NodeRecord* Snapshot::node(uint32_t user_node) const {
  return valid_ && user_node < num_nodes_ ? &s_.nodes[user_node] : nullptr;
}

const MemBankRecord* Snapshot::mem_bank(uint32_t user_node, uint32_t index) const {
  const NodeRecord* n = node(user_node);
  if (n == nullptr || index >= n->num_mem_banks) return nullptr;
  return &s_.banks[n->first_bank + index];
}

const CacheRecord* Snapshot::cache(uint32_t user_node, uint32_t index) const {
  const NodeRecord* n = node(user_node);
  if (n == nullptr || index >= n->num_caches) return nullptr;
  return &s_.caches[n->first_cache + index];
}

const LinkRecord* Snapshot::link(uint32_t user_node, uint32_t index) const {
  const NodeRecord* n = node(user_node);
  if (n == nullptr || index >= n->num_links) return nullptr;
  return &s_.links[n->first_link + index];
}

bool Snapshot::UserNodeOfSysfs(uint32_t sysfs_node, uint32_t* out_user_node) const {
  if (!valid_ || sysfs_node >= num_sysfs_nodes_ || out_user_node == nullptr) return false;
  const uint16_t u = s_.sysfs_to_user[sysfs_node];
  if (u == kHidden) return false;
  *out_user_node = u;
  return true;
}

Status TakeSnapshot(const Context& ctx, const NodeFilter& filter, Snapshot* out) {
  if (out == nullptr) return InvalidArgument();
  TakeOptions options;
  options.root = ctx.topology_root();
  options.filter = filter;
  options.cpu_details = true;
  options.indirect_links = true;
  return out->Take(ctx.platform(), ctx.diag(), options);
}

}  // namespace hke::topology
