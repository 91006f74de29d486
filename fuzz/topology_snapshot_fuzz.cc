// Fuzzes Snapshot::Take (lib/topology/snapshot.h) over a topology tree
// built from the input and served by an in-memory platform (read_file,
// list_dir, open/read_fd/close for /proc/cpuinfo, cpu_count).
//
// The input describes: options (cpu_details, indirect_links, a node filter,
// a root long enough to overflow kPathCapacity, a generation_id that
// changes on its first 1..8 reads, generation attempts); 1..6 sysfs nodes,
// each with generated `properties` (counts, CPU/GPU identity, hive, ids),
// optional raw bytes appended to it, an optional raw `name`, and its
// mem_banks, caches, io_links and p2p_links whose values come from the
// input (link targets may be out of range);
// /proc/cpuinfo and CPU cache directories; then up to three mutations
// (delete a file, replace its text with raw bytes, make it fail with an
// errno, add a junk entry to nodes/). Take runs on a small SnapshotStorage
// (4 nodes, 2 banks, 3 caches, 3 links per node; pools of 6, 8, 8) whose
// memory is first filled with an input byte, so stale storage cannot pass
// for data; then, optionally, the tree is mutated once more and Take runs
// again on the same snapshot.
//
// On success: valid; counts within the per-node and pool capacities; every
// node's runs inside the pools and disjoint from the others'; sysfs ids
// increasing and mapped back by UserNodeOfSysfs; a link's node_from is its
// node and node_to < num_nodes; names NUL-terminated; the Fill* getters
// agree with the records and refuse out-of-range nodes and counts without
// writing. On failure: a diagnostic was reported; the snapshot is reset
// (not valid, no nodes, generation 0) and every getter fails with
// FAILED_PRECONDITION leaving its output untouched.
//
// HKE_FUZZ_TRACE=1 in the environment prints the diagnostics and the
// resulting nodes (for replaying one input).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "hsakmt/hsakmt_platform.h"
#include "hsakmt/hsakmttypes.h"
#include "lib/core/diag.h"
#include "lib/core/errno.h"
#include "lib/core/platform.h"
#include "lib/core/status.h"
#include "lib/topology/keys.h"
#include "lib/topology/snapshot.h"

namespace t = hke::topology;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

namespace {

constexpr uint32_t kNodes = 4, kBanks = 2, kCaches = 3, kLinks = 3;
constexpr uint32_t kBankPool = 6, kCachePool = 8, kLinkPool = 8;
using Storage = t::SnapshotStorage<kNodes, kBanks, kCaches, kLinks, kBankPool, kCachePool, kLinkPool>;

constexpr int kCpuInfoFd = 77;

// ---- the in-memory tree ----

struct File {
  std::string text;
  int error = 0;  // nonzero: reading it fails with this errno
};

struct Tree {
  std::map<std::string, File> files;  // absolute path -> file; directories are implied
  uint32_t generation = 1;
  uint32_t generation_moves = 0;  // this many reads of generation_id return a new value
  uint32_t cpu_count = 0;         // 0: the op fails
  size_t read_chunk = 4096;       // bytes per read_fd call
  // /proc/cpuinfo stream state
  bool cpuinfo_open = false;
  size_t cpuinfo_pos = 0;
  std::string generation_path;
};

int OpOpen(void* self, const char* path, uint32_t, int* out_fd) {
  auto* tr = static_cast<Tree*>(self);
  auto it = tr->files.find(path);
  if (it == tr->files.end()) return hke::err::kENOENT;
  if (it->second.error != 0) return it->second.error;
  if (std::strcmp(path, t::kCpuInfoPath) != 0 || tr->cpuinfo_open) return hke::err::kEACCES;
  tr->cpuinfo_open = true;
  tr->cpuinfo_pos = 0;
  *out_fd = kCpuInfoFd;
  return 0;
}

int OpClose(void* self, int fd) {
  auto* tr = static_cast<Tree*>(self);
  HKE_FUZZ_ASSERT(fd == kCpuInfoFd && tr->cpuinfo_open);  // the library closes only what it opened
  tr->cpuinfo_open = false;
  return 0;
}

int OpIoctl(void*, int, uint32_t, void*) { return hke::err::kENOTTY; }

int OpReadFd(void* self, int fd, void* buf, size_t capacity, size_t* out_length) {
  auto* tr = static_cast<Tree*>(self);
  if (fd != kCpuInfoFd || !tr->cpuinfo_open) return hke::err::kEBADF;
  const std::string& text = tr->files[t::kCpuInfoPath].text;
  size_t n = text.size() - tr->cpuinfo_pos;
  if (n > capacity) n = capacity;
  if (n > tr->read_chunk) n = tr->read_chunk;
  std::memcpy(buf, text.data() + tr->cpuinfo_pos, n);
  tr->cpuinfo_pos += n;
  *out_length = n;
  return 0;
}

int OpReadFile(void* self, const char* path, char* buf, size_t capacity, size_t* out_length) {
  auto* tr = static_cast<Tree*>(self);
  if (tr->generation_moves != 0 && tr->generation_path == path) {
    --tr->generation_moves;
    tr->files[path].text = std::to_string(++tr->generation) + "\n";
  }
  auto it = tr->files.find(path);
  if (it == tr->files.end()) {
    // A directory reads as EISDIR, anything else as missing.
    const std::string prefix = std::string(path) + "/";
    auto d = tr->files.lower_bound(prefix);
    if (d != tr->files.end() && d->first.compare(0, prefix.size(), prefix) == 0) {
      return hke::err::kEISDIR;
    }
    return hke::err::kENOENT;
  }
  if (it->second.error != 0) return it->second.error;
  const std::string& text = it->second.text;
  if (text.size() > capacity) return hke::err::kEFBIG;
  std::memcpy(buf, text.data(), text.size());
  *out_length = text.size();
  return 0;
}

int OpListDir(void* self, const char* path, hke_dirent_fn fn, void* user) {
  auto* tr = static_cast<Tree*>(self);
  const std::string prefix = std::string(path) + "/";
  std::string last;
  bool any = false;
  for (auto it = tr->files.lower_bound(prefix);
       it != tr->files.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    const size_t slash = it->first.find('/', prefix.size());
    const std::string name = it->first.substr(prefix.size(), slash - prefix.size());
    const uint32_t kind = slash == std::string::npos ? HKE_DIRENT_FILE : HKE_DIRENT_DIR;
    if (any && name == last) continue;
    any = true;
    last = name;
    if (fn(user, name.c_str(), kind) != 0) break;
  }
  if (!any) return tr->files.count(path) != 0 ? hke::err::kENOTDIR : hke::err::kENOENT;
  return 0;
}

int OpCpuCount(void* self, uint32_t* out) {
  auto* tr = static_cast<Tree*>(self);
  if (tr->cpu_count == 0) return hke::err::kEINVAL;
  *out = tr->cpu_count;
  return 0;
}

hke_platform_ops MakeOps() {
  hke_platform_ops ops;
  std::memset(&ops, 0, sizeof(ops));
  ops.struct_size = sizeof(ops);
  ops.abi_version = HKE_PLATFORM_ABI_VERSION;
  ops.open = &OpOpen;
  ops.close = &OpClose;
  ops.ioctl = &OpIoctl;
  ops.read_file = &OpReadFile;
  ops.list_dir = &OpListDir;
  ops.cpu_count = &OpCpuCount;
  ops.read_fd = &OpReadFd;
  return ops;
}

// ---- building the tree from the input ----

std::string RawBytes(Input& in, size_t max) {
  size_t n = in.U8() % (max + 1);
  if (n > in.remaining()) n = in.remaining();
  std::string s(reinterpret_cast<const char*>(in.rest()), n);
  for (size_t i = 0; i < n; ++i) in.U8();
  return s;
}

void Line(std::string* s, const char* key, uint64_t v) {
  *s += key;
  *s += ' ';
  *s += std::to_string(v);
  *s += '\n';
}

uint32_t PickGfx(Input& in) {
  static const uint32_t kVersions[] = {0, 80003, 90010, 90012, 90400, 100300, 110000, 120001};
  const uint8_t b = in.U8();
  return b < 240 ? kVersions[b % 8] : in.U32();
}

void Link(Input& in, std::string* s, uint32_t from, uint32_t nodes) {
  static const uint32_t kTypes[] = {HSA_IOLINKTYPE_PCIEXPRESS, HSA_IOLINK_TYPE_XGMI,
                                    HSA_IOLINK_TYPE_QPI_1_1, 0};
  const uint8_t b = in.U8();
  Line(s, "type", kTypes[b % 4]);
  if ((b & 0x10) == 0) Line(s, "node_from", (b & 0x20) != 0 ? in.U8() % (nodes + 1) : from);
  if ((b & 0x40) == 0) Line(s, "node_to", in.U8() % (nodes + 1));
  Line(s, "weight", (b & 0x80) != 0 ? in.U32() : in.U8() % 48);
  Line(s, "min_bandwidth", in.Get<uint16_t>());
  Line(s, "max_bandwidth", in.Get<uint16_t>());
  Line(s, "flags", in.U8());
}

void BuildTree(Input& in, uint8_t flags, const std::string& root, Tree* tr) {
  tr->generation = in.U8();
  tr->generation_moves = (flags & 0x10) != 0 ? 1 + in.U8() % 8u : 0;
  tr->generation_path = root + "/generation_id";
  tr->files[tr->generation_path].text = std::to_string(tr->generation) + "\n";
  std::string sys;
  Line(&sys, "platform_oem", in.U32());
  Line(&sys, "platform_id", in.U32());
  Line(&sys, "platform_rev", in.Get<uint16_t>());
  tr->files[root + "/system_properties"].text = sys;

  const uint32_t n = 1 + in.U8() % 6u;
  for (uint32_t i = 0; i < n; ++i) {
    const std::string dir = root + "/nodes/" + std::to_string(i);
    const uint8_t kind = in.U8();
    const bool gpu = (kind & 1) != 0;
    tr->files[dir + "/gpu_id"].text = std::to_string(gpu ? 1u + in.Get<uint16_t>() : 0u) + "\n";
    const uint32_t banks = in.U8() % 4u, caches = in.U8() % 5u, io = in.U8() % 5u,
                   p2p = in.U8() % 3u;
    std::string p;
    Line(&p, "cpu_cores_count", gpu ? 0 : 1 + in.U8() % 8u);
    Line(&p, "simd_count", gpu ? 4u * (1u + in.U8()) : 0);
    Line(&p, "mem_banks_count", banks);
    Line(&p, "caches_count", caches);
    Line(&p, "io_links_count", io);
    if ((kind & 2) != 0) Line(&p, "p2p_links_count", p2p);
    Line(&p, "cpu_core_id_base", in.U8());
    Line(&p, "simd_id_base", gpu ? 0x80000000u + i : 0);
    Line(&p, "array_count", in.U8() % 9u);
    Line(&p, "simd_arrays_per_engine", in.U8() % 3u);
    Line(&p, "vendor_id", 0x1002);
    Line(&p, "device_id", in.Get<uint16_t>());
    Line(&p, "drm_render_minor", gpu ? 128 + i : 0);
    Line(&p, "gfx_target_version", gpu ? PickGfx(in) : 0);
    Line(&p, "num_xcc", in.U8() % 3u);
    Line(&p, "hive_id", (kind & 4) != 0 ? 1 + in.U8() % 2u : 0);
    Line(&p, "local_mem_size", in.U64());
    if ((kind & 8) != 0) p += RawBytes(in, 48);  // may break the text
    tr->files[dir + "/properties"].text = p;
    if ((kind & 0x10) != 0) tr->files[dir + "/name"].text = RawBytes(in, 40);

    for (uint32_t b = 0; b < banks; ++b) {
      std::string s;
      Line(&s, "heap_type", in.U8() % 4u);
      Line(&s, "size_in_bytes", in.U64());
      Line(&s, "flags", in.U8());
      Line(&s, "width", in.U8());
      Line(&s, "mem_clk_max", in.Get<uint16_t>());
      tr->files[dir + "/mem_banks/" + std::to_string(b) + "/properties"].text = s;
    }
    for (uint32_t c = 0; c < caches; ++c) {
      std::string s;
      Line(&s, "processor_id_low", in.U8());
      Line(&s, "level", 1 + in.U8() % 3u);
      Line(&s, "size", in.Get<uint16_t>());
      Line(&s, "cache_line_size", 64);
      Line(&s, "type", in.U8() % 16u);
      if ((in.U8() & 1) != 0) s += "sibling_map 1,0,1,1\n";
      tr->files[dir + "/caches/" + std::to_string(c) + "/properties"].text = s;
    }
    for (uint32_t l = 0; l < io; ++l) {
      std::string s;
      Link(in, &s, i, n);
      tr->files[dir + "/io_links/" + std::to_string(l) + "/properties"].text = s;
    }
    for (uint32_t l = 0; l < p2p; ++l) {
      std::string s;
      Link(in, &s, i, n);
      tr->files[dir + "/p2p_links/" + std::to_string(l) + "/properties"].text = s;
    }
  }

  if ((flags & 0x01) == 0) return;  // no CPU details: cpuinfo and CPU caches are never read
  tr->cpu_count = in.U8() % 6u;
  tr->read_chunk = 1 + in.U8() % 64u;
  const uint32_t procs = in.U8() % 5u;
  std::string info;
  for (uint32_t k = 0; k < procs; ++k) {
    info += "processor\t: " + std::to_string(k) + "\n";
    info += "model name\t: " + RawBytes(in, 70) + "\n";
    info += "apicid\t\t: " + std::to_string(in.U8() % 8u) + "\n\n";
  }
  if ((in.U8() & 1) != 0) info += RawBytes(in, 64);
  tr->files[t::kCpuInfoPath].text = info;
  const uint32_t cpus = in.U8() % 3u;
  for (uint32_t u = 0; u < 2; ++u) {
    const bool numa = (in.U8() & 1) != 0;
    const std::string base =
        numa ? std::string(t::kCpuNodeRoot) + "/node" + std::to_string(u) : std::string(t::kCpuRoot);
    for (uint32_t k = 0; k < cpus; ++k) {
      const std::string cache = base + "/cpu" + std::to_string(u * 2 + k) + "/cache";
      const uint32_t indexes = in.U8() % 3u;
      for (uint32_t x = 0; x < indexes; ++x) {
        const std::string idx = cache + "/index" + std::to_string(x);
        static const char* const kTypes[] = {"Data", "Instruction", "Unified", "Other"};
        static const char* const kUnits[] = {"K", "M", "G", ""};
        tr->files[idx + "/level"].text = std::to_string(1 + in.U8() % 3u) + "\n";
        tr->files[idx + "/type"].text = std::string(kTypes[in.U8() % 4u]) + "\n";
        tr->files[idx + "/size"].text = std::to_string(in.Get<uint16_t>()) + kUnits[in.U8() % 4u] + "\n";
        tr->files[idx + "/coherency_line_size"].text = "64\n";
        tr->files[idx + "/ways_of_associativity"].text = std::to_string(in.U8()) + "\n";
        tr->files[idx + "/physical_line_partition"].text = "1\n";
        tr->files[idx + "/shared_cpu_list"].text =
            std::to_string((in.U8() & 1) != 0 ? u * 2 + k : u * 2) + "\n";
        tr->files[idx + "/shared_cpu_map"].text = (in.U8() & 1) != 0 ? "00000000,0000000f\n" : "3\n";
      }
    }
  }
}

void Mutate(Input& in, const std::string& root, Tree* tr) {
  const uint8_t what = in.U8();
  if (what % 5 == 4) {  // a junk entry among the nodes
    static const char* const kJunk[] = {"x", "01", "7", "3a"};
    tr->files[root + "/nodes/" + kJunk[in.U8() % 4u] + "/properties"].text = "";
    return;
  }
  if (tr->files.empty()) return;
  auto it = tr->files.begin();
  std::advance(it, in.Get<uint16_t>() % tr->files.size());
  switch (what % 5) {
    case 0: tr->files.erase(it); break;
    case 1: it->second.text = RawBytes(in, 96); break;
    case 2: {
      static const int kErrors[] = {hke::err::kEPERM, hke::err::kEIO, hke::err::kEACCES,
                                    hke::err::kENOENT};
      it->second.error = kErrors[in.U8() % 4u];
      break;
    }
    default: it->second.text.assign(8200, '1'); break;  // larger than the read buffer
  }
}

// ---- checks ----

struct DiagCount {
  uint32_t errors = 0;
};

bool Verbose() {
  static const bool v = std::getenv("HKE_FUZZ_TRACE") != nullptr;
  return v;
}

void OnDiag(void* user, const hke_diag_record* r) {
  if (r->level == HKE_DIAG_ERROR) ++static_cast<DiagCount*>(user)->errors;
  if (Verbose()) {
    std::fprintf(stderr, "diag %u %s: %s (%s:%u)\n", r->level, hke::StatusName(hke::Status(r->status)),
                 r->message, r->path != nullptr ? r->path : "-", r->line);
  }
}

struct FilterState {
  uint8_t hide_mask = 0;
  uint8_t fail_node = 0xFF;
};

hke::Status Filter(void* user, uint32_t sysfs_node, uint32_t, uint32_t, bool* keep) {
  auto* f = static_cast<FilterState*>(user);
  if (sysfs_node == f->fail_node) return hke::Status::Errno(hke::err::kEIO);
  *keep = ((f->hide_mask >> (sysfs_node & 7)) & 1) == 0;
  return hke::Status::Ok();
}

bool Terminated(const char* s, size_t cap) { return std::memchr(s, '\0', cap) != nullptr; }

void CheckValid(const t::Snapshot& s) {
  const t::Snapshot::Storage& st = s.storage();
  HKE_FUZZ_ASSERT(s.valid());
  HKE_FUZZ_ASSERT(s.num_nodes() <= s.num_sysfs_nodes() && s.num_sysfs_nodes() <= kNodes);
  uint32_t banks = 0, caches = 0, links = 0;
  uint32_t prev_sysfs = 0;
  for (uint32_t u = 0; u < s.num_nodes(); ++u) {
    const t::NodeRecord* n = s.node(u);
    HKE_FUZZ_ASSERT(n != nullptr);
    HKE_FUZZ_ASSERT(n->num_mem_banks <= kBanks && n->num_caches <= kCaches &&
                    n->num_links <= kLinks);
    HKE_FUZZ_ASSERT(n->first_bank + n->num_mem_banks <= kBankPool);
    HKE_FUZZ_ASSERT(n->first_cache + n->num_caches <= kCachePool);
    HKE_FUZZ_ASSERT(n->first_link + n->num_links <= kLinkPool);
    HKE_FUZZ_ASSERT(n->num_links <= s.num_nodes() - 1);
    HKE_FUZZ_ASSERT(n->sysfs_id < s.num_sysfs_nodes() && (u == 0 || n->sysfs_id > prev_sysfs));
    prev_sysfs = n->sysfs_id;
    uint32_t back = 0xFFFF;
    HKE_FUZZ_ASSERT(s.UserNodeOfSysfs(n->sysfs_id, &back) && back == u);
    HKE_FUZZ_ASSERT(Terminated(n->name, sizeof(n->name)));
    HKE_FUZZ_ASSERT(Terminated(n->model_name, sizeof(n->model_name)));
    banks += n->num_mem_banks;
    caches += n->num_caches;
    links += n->num_links;
    // Runs of different nodes never overlap.
    for (uint32_t v = 0; v < u; ++v) {
      const t::NodeRecord* m = s.node(v);
      auto disjoint = [](uint32_t a, uint32_t an, uint32_t b, uint32_t bn) {
        return an == 0 || bn == 0 || a + an <= b || b + bn <= a;
      };
      HKE_FUZZ_ASSERT(disjoint(n->first_bank, n->num_mem_banks, m->first_bank, m->num_mem_banks));
      HKE_FUZZ_ASSERT(disjoint(n->first_cache, n->num_caches, m->first_cache, m->num_caches));
      HKE_FUZZ_ASSERT(disjoint(n->first_link, n->num_links, m->first_link, m->num_links));
    }
    for (uint32_t i = 0; i < n->num_links; ++i) {
      const t::LinkRecord* l = s.link(u, i);
      HKE_FUZZ_ASSERT(l != nullptr && l == &st.links[n->first_link + i]);
      HKE_FUZZ_ASSERT(l->v[t::kNodeFrom] == u && l->v[t::kNodeTo] < s.num_nodes());
    }
    HKE_FUZZ_ASSERT(s.link(u, n->num_links) == nullptr);
    HKE_FUZZ_ASSERT(s.mem_bank(u, n->num_mem_banks) == nullptr);
    HKE_FUZZ_ASSERT(s.cache(u, n->num_caches) == nullptr);

    // Getters agree with the records.
    HsaNodeProperties np;
    HKE_FUZZ_ASSERT(s.FillNodeProperties(u, &np).ok());
    HKE_FUZZ_ASSERT(np.NumMemoryBanks == n->num_mem_banks && np.NumCaches == n->num_caches &&
                    np.NumIOLinks == n->num_links && np.KFDGpuID == n->gpu_id);
    HsaIoLinkProperties lp[kLinks + 1];
    HKE_FUZZ_ASSERT(s.FillIoLinkProperties(u, n->num_links, lp).ok());
    for (uint32_t i = 0; i < n->num_links; ++i) {
      HKE_FUZZ_ASSERT(lp[i].NodeFrom == u && lp[i].NodeTo < s.num_nodes());
    }
    Poisoned<HsaIoLinkProperties[kLinks + 1]> lp_bad;
    HKE_FUZZ_ASSERT(s.FillIoLinkProperties(u, n->num_links + 1u, lp_bad.v) ==
                        hke::InvalidArgument() &&
                    lp_bad.untouched());
    static HsaCacheProperties cp[kCaches + 1];
    HKE_FUZZ_ASSERT(s.FillCacheProperties(u, n->num_caches, cp).ok());
    static Poisoned<HsaCacheProperties[kCaches + 1]> cp_bad;
    HKE_FUZZ_ASSERT(s.FillCacheProperties(u, n->num_caches + 1u, cp_bad.v) ==
                        hke::InvalidArgument() &&
                    cp_bad.untouched());
    HsaMemoryProperties mp[kBanks + 2];
    uint32_t filled = 0xFFFF;
    HKE_FUZZ_ASSERT(s.FillMemoryProperties(u, kBanks + 2, mp, &filled).ok() &&
                    filled == n->num_mem_banks);
    for (uint32_t i = 0; i < filled; ++i) {
      HKE_FUZZ_ASSERT(mp[i].SizeInBytes == s.mem_bank(u, i)->size_in_bytes);
    }
  }
  HKE_FUZZ_ASSERT(banks <= kBankPool && caches <= kCachePool && links <= kLinkPool);
  HsaSystemProperties sp;
  HKE_FUZZ_ASSERT(s.FillSystemProperties(&sp).ok() && sp.NumNodes == s.num_nodes());
  Poisoned<HsaNodeProperties> np_bad;
  HKE_FUZZ_ASSERT(s.FillNodeProperties(s.num_nodes(), &np_bad.v) == hke::OutOfRange() &&
                  np_bad.untouched());
  HKE_FUZZ_ASSERT(s.node(s.num_nodes()) == nullptr);
}

void CheckReset(const t::Snapshot& s) {
  HKE_FUZZ_ASSERT(!s.valid());
  HKE_FUZZ_ASSERT(s.num_nodes() == 0 && s.num_sysfs_nodes() == 0 && s.generation() == 0);
  HKE_FUZZ_ASSERT(!s.has_p2p_links());
  HKE_FUZZ_ASSERT(s.node(0) == nullptr && s.mem_bank(0, 0) == nullptr &&
                  s.cache(0, 0) == nullptr && s.link(0, 0) == nullptr);
  uint32_t u = 0xABCD;
  HKE_FUZZ_ASSERT(!s.UserNodeOfSysfs(0, &u) && u == 0xABCD);
  const hke::Status pre = hke::FailedPrecondition();
  Poisoned<HsaSystemProperties> sp;
  HKE_FUZZ_ASSERT(s.FillSystemProperties(&sp.v) == pre && sp.untouched());
  Poisoned<HsaNodeProperties> np;
  HKE_FUZZ_ASSERT(s.FillNodeProperties(0, &np.v) == pre && np.untouched());
  Poisoned<HsaMemoryProperties[2]> mp;
  Poisoned<uint32_t> filled;
  HKE_FUZZ_ASSERT(s.FillMemoryProperties(0, 2, mp.v, &filled.v) == pre && mp.untouched() &&
                  filled.untouched());
  static Poisoned<HsaCacheProperties[1]> cp;
  HKE_FUZZ_ASSERT(s.FillCacheProperties(0, 0, cp.v) == pre && cp.untouched());
  Poisoned<HsaIoLinkProperties[1]> lp;
  HKE_FUZZ_ASSERT(s.FillIoLinkProperties(0, 0, lp.v) == pre && lp.untouched());
}

void TakeAndCheck(t::Snapshot& snap, Tree& tr, const t::TakeOptions& options) {
  static const hke_platform_ops ops = MakeOps();
  const hke::Platform platform(hke_platform{&ops, &tr}, 0);
  DiagCount dc;
  const hke::Diag diag(&OnDiag, &dc);
  const hke::Status s = snap.Take(platform, diag, options);
  HKE_FUZZ_ASSERT(!tr.cpuinfo_open);  // cpuinfo is always closed again
  if (Verbose()) {
    std::fprintf(stderr, "take -> %s: %u of %u nodes\n", hke::StatusName(s), snap.num_nodes(),
                 snap.num_sysfs_nodes());
    for (uint32_t u = 0; u < snap.num_nodes(); ++u) {
      const t::NodeRecord* n = snap.node(u);
      std::fprintf(stderr, "  node %u gpu %u banks %u caches %u links %u model '%s'\n", u,
                   n->gpu_id, n->num_mem_banks, n->num_caches, n->num_links, n->model_name);
    }
  }
  if (s.ok()) {
    CheckValid(snap);
  } else {
    HKE_FUZZ_ASSERT(dc.errors >= 1);
    CheckReset(snap);
  }
}

alignas(Storage) unsigned char g_storage[sizeof(Storage)];

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  const uint8_t flags = in.U8();
  // 0x01 cpu_details, 0x02 indirect_links, 0x04 filter, 0x08 long root,
  // 0x10 generation moves, 0x20 take again after one more mutation.
  const std::string root =
      (flags & 0x08) != 0 ? "/" + std::string(490, 'r') : std::string("/sys/kfd/topology");
  Tree tree;
  BuildTree(in, flags, root, &tree);
  const uint32_t mutations = in.U8() % 4u;
  for (uint32_t i = 0; i < mutations; ++i) Mutate(in, root, &tree);

  FilterState filter;
  t::TakeOptions options;
  options.root = root.c_str();
  options.cpu_details = (flags & 0x01) != 0;
  options.indirect_links = (flags & 0x02) != 0;
  options.max_attempts = in.U8() % 4u;
  if ((flags & 0x04) != 0) {
    filter.hide_mask = in.U8();
    filter.fail_node = in.U8() % 8u;
    options.filter.fn = &Filter;
    options.filter.user = &filter;
  }

  std::memset(g_storage, in.U8(), sizeof(g_storage));
  auto* snap = new (g_storage) Storage();
  TakeAndCheck(*snap, tree, options);
  if ((flags & 0x20) != 0) {
    Mutate(in, root, &tree);
    TakeAndCheck(*snap, tree, options);
  }
  snap->~Storage();
  return 0;
}
