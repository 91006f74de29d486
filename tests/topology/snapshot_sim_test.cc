// The snapshot over the in-process simulator: every captured fixture tree
// and every built-in board reads completely, and the public structs carry
// exactly what the simulated sysfs serves.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_embedded.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/topology/gfx.h"
#include "lib/topology/snapshot.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "tests/support/sim_board.h"

namespace {

using namespace hke::topology;

constexpr const char* kRoot = "/sys/devices/virtual/kfd/kfd/topology";

// Large enough for every captured tree: 217 caches on an MI210 node, 5040
// caches and 4034 links in the MI300X CPX tree.
using TestSnapshot = SnapshotStorage<128, 8, 256, 128, 1024, 8192, 8192>;

struct DiagLog {
  std::vector<std::string> messages;
  std::vector<uint32_t> levels;
  static void Fn(void* user, const hke_diag_record* r) {
    auto* self = static_cast<DiagLog*>(user);
    self->messages.push_back(std::string(r->message) + " @ " + (r->path ? r->path : ""));
    self->levels.push_back(r->level);
  }
};

// The shared simulated board (tests/support/sim_board.h), read directly
// through its platform table: the snapshot, not the default context.
class Sim {
 public:
  // tree: a fixture directory name, or null with a built-in board name.
  Sim(const char* tree, const char* board)
      : board_(tree, board), platform_(board_.platform(), 0), sim_(board_.sim()) {}
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;

  const hke::Platform& platform() const { return platform_; }
  kfdsim_t* raw() { return sim_; }

  bool Served(const std::string& path, std::string* out) {
    std::vector<char> buf(1 << 16);
    size_t n = 0;
    if (kfdsim_read_file(sim_, path.c_str(), buf.data(), buf.size(), &n) != 0) return false;
    out->assign(buf.data(), n);
    return true;
  }
  std::string MustServe(const std::string& path) {
    std::string s;
    INFO(path);
    REQUIRE(Served(path, &s));
    return s;
  }
  uint32_t CountEntries(const std::string& dir) {
    uint32_t n = 0;
    kfdsim_list_dir(
        sim_, dir.c_str(),
        [](void* u, const char*, uint32_t) {
          ++*static_cast<uint32_t*>(u);
          return 0;
        },
        &n);
    return n;
  }

 private:
  hketest::SimBoard board_;
  hke::Platform platform_;
  kfdsim_t* sim_;
};

// key -> value text of a served properties file.
std::map<std::string, std::string> KeyValues(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string k, v;
    if (ls >> k >> v) kv[k] = v;
  }
  return kv;
}
uint64_t U(const std::map<std::string, std::string>& kv, const char* key) {
  auto it = kv.find(key);
  return it == kv.end() ? 0 : std::stoull(it->second);
}

std::string NodeDir(uint32_t n) { return std::string(kRoot) + "/nodes/" + std::to_string(n); }

std::unique_ptr<TestSnapshot> TakeAll(Sim& sim, DiagLog* log, NodeFilter filter = {}) {
  auto snap = std::make_unique<TestSnapshot>();
  hke::Diag diag(&DiagLog::Fn, log);
  TakeOptions o;
  o.root = kRoot;
  o.filter = filter;
  const hke::Status s = snap->Take(sim.platform(), diag, o);
  INFO(hke::StatusName(s), " ", (log->messages.empty() ? "" : log->messages.back()));
  REQUIRE(s.ok());
  return snap;
}

// Checks every public struct of every node against the served files, for a
// snapshot without hidden nodes.
void CheckAgainstServed(Sim& sim, const Snapshot& snap) {
  const uint32_t nodes = sim.CountEntries(std::string(kRoot) + "/nodes");
  HsaSystemProperties sys;
  REQUIRE(snap.FillSystemProperties(&sys).ok());
  CHECK(sys.NumNodes == nodes);
  const auto sp = KeyValues(sim.MustServe(std::string(kRoot) + "/system_properties"));
  CHECK(sys.PlatformOem == (U(sp, "platform_oem") & 0xffffffffu));  // upstream truncates
  CHECK(sys.PlatformId == (U(sp, "platform_id") & 0xffffffffu));  // upstream truncates
  CHECK(sys.PlatformRev == (U(sp, "platform_rev") & 0xffffffffu));  // upstream truncates
  CHECK(snap.generation() == std::stoul(sim.MustServe(std::string(kRoot) + "/generation_id")));

  for (uint32_t n = 0; n < nodes; ++n) {
    CAPTURE(n);
    const auto kv = KeyValues(sim.MustServe(NodeDir(n) + "/properties"));
    HsaNodeProperties p;
    REQUIRE(snap.FillNodeProperties(n, &p).ok());
    const uint32_t gpu_id = static_cast<uint32_t>(std::stoul(sim.MustServe(NodeDir(n) + "/gpu_id")));
    CHECK(p.KFDGpuID == gpu_id);
    CHECK(p.NumCPUCores == U(kv, "cpu_cores_count"));
    CHECK(p.NumFComputeCores == U(kv, "simd_count"));
    CHECK(p.NumMemoryBanks == U(kv, "mem_banks_count"));
    CHECK(p.NumCaches == U(kv, "caches_count"));
    const uint64_t links = U(kv, "io_links_count") + U(kv, "p2p_links_count");
    CHECK(p.NumIOLinks == (links < nodes - 1 ? links : nodes - 1));
    CHECK(p.CComputeIdLo == U(kv, "cpu_core_id_base"));
    CHECK(p.FComputeIdLo == U(kv, "simd_id_base"));
    CHECK(p.Capability.Value == U(kv, "capability"));
    CHECK(p.DebugProperties.Value == U(kv, "debug_prop"));
    CHECK(p.LDSSizeInKB == U(kv, "lds_size_in_kb"));
    CHECK(p.WaveFrontSize == U(kv, "wave_front_size"));
    CHECK(p.NumArrays == U(kv, "simd_arrays_per_engine"));
    CHECK(p.NumCUPerArray == U(kv, "cu_per_simd_array"));
    CHECK(p.NumSIMDPerCU == U(kv, "simd_per_cu"));
    CHECK(p.VendorId == (U(kv, "vendor_id") & 0xffff));
    CHECK(p.DeviceId == (U(kv, "device_id") & 0xffff));
    CHECK(p.LocationId == U(kv, "location_id"));
    CHECK(p.Domain == U(kv, "domain"));
    CHECK(p.LocalMemSize == U(kv, "local_mem_size"));
    CHECK(p.DrmRenderMinor == static_cast<int32_t>(U(kv, "drm_render_minor")));
    CHECK(p.HiveID == U(kv, "hive_id"));
    CHECK(p.UniqueID == U(kv, "unique_id"));
    CHECK(p.NumSdmaEngines == U(kv, "num_sdma_engines"));
    CHECK(p.NumCpQueues == (U(kv, "num_cp_queues") & 0xff));
    CHECK(p.MaxEngineClockMhzCCompute == U(kv, "max_engine_clk_ccompute"));
    CHECK(uint32_t{p.EngineId.ui32.uCode} == (U(kv, "fw_version") & 0x3ff));
    if (p.NumFComputeCores != 0) {
      const uint64_t gfxv = U(kv, "gfx_target_version");
      REQUIRE(gfxv != 0);
      CHECK(uint32_t{p.EngineId.ui32.Major} == gfxv / 10000);
      CHECK(uint32_t{p.EngineId.ui32.Minor} == (gfxv / 100) % 100);
      CHECK(uint32_t{p.EngineId.ui32.Stepping} == gfxv % 100);
      CHECK(p.NumShaderBanks == U(kv, "array_count") / U(kv, "simd_arrays_per_engine"));
      CHECK(p.NumXcc == (U(kv, "num_xcc") != 0 ? U(kv, "num_xcc") : 1));
      CHECK(p.SGPRSizePerCU == 0x4000);
      CHECK(p.VGPRSizePerCU != 0);
      char expect[16];
      std::snprintf(expect, sizeof(expect), "GFX%06x",
                    static_cast<unsigned>((gfxv / 10000) << 16 | ((gfxv / 100) % 100) << 8 | gfxv % 100));
      // A device id of the table names the node by its family instead.
      const GfxIpEntry* family =
          FindGfxIpByDeviceId(p.DeviceId, static_cast<uint32_t>(gfxv / 10000));
      CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)) ==
            (family != nullptr ? family->amd_name : expect));
    } else {
      CHECK(uint32_t{p.EngineId.ui32.Major} == 0);
      CHECK(p.NumShaderBanks == 0);
    }

    // Memory banks.
    std::vector<HsaMemoryProperties> mem(p.NumMemoryBanks + 2);
    uint32_t filled = 0;
    REQUIRE(snap.FillMemoryProperties(n, static_cast<uint32_t>(mem.size()), mem.data(), &filled).ok());
    CHECK(filled == p.NumMemoryBanks);
    for (uint32_t m = 0; m < p.NumMemoryBanks; ++m) {
      const auto b = KeyValues(sim.MustServe(NodeDir(n) + "/mem_banks/" + std::to_string(m) + "/properties"));
      CHECK(static_cast<uint32_t>(mem[m].HeapType) == U(b, "heap_type"));
      CHECK(mem[m].SizeInBytes == U(b, "size_in_bytes"));
      CHECK(mem[m].Width == U(b, "width"));
      CHECK(mem[m].MemoryClockMax == U(b, "mem_clk_max"));
      CHECK(mem[m].VirtualBaseAddress == 0);
    }
    CHECK(mem[p.NumMemoryBanks].SizeInBytes == 0);  // zeroed for the synthetic banks

    // Caches.
    std::vector<HsaCacheProperties> caches(p.NumCaches + 1);  // never empty: data() must not be null
    REQUIRE(snap.FillCacheProperties(n, p.NumCaches, caches.data()).ok());
    for (uint32_t c = 0; c < p.NumCaches; ++c) {
      CAPTURE(c);
      const std::string text = sim.MustServe(NodeDir(n) + "/caches/" + std::to_string(c) + "/properties");
      const auto ck = KeyValues(text);
      CHECK(caches[c].ProcessorIdLow == U(ck, "processor_id_low"));
      CHECK(caches[c].CacheLevel == U(ck, "level"));
      CHECK(caches[c].CacheSize == U(ck, "size"));
      CHECK(caches[c].CacheLineSize == U(ck, "cache_line_size"));
      CHECK(caches[c].CacheType.Value == U(ck, "type"));
      const std::string map = ck.count("sibling_map") ? ck.at("sibling_map") : "";
      uint32_t i = 0;
      bool same = true;
      for (size_t pos = 0; pos < map.size() && i < 256; pos += 2, ++i) {
        same = same && caches[c].SiblingMap[i] == static_cast<uint32_t>(map[pos] - '0');
      }
      for (; i < 256; ++i) same = same && caches[c].SiblingMap[i] == 0;
      CHECK(same);
    }

    // Links: io_links then p2p_links, in file order.
    std::vector<HsaIoLinkProperties> got(p.NumIOLinks + 1);
    REQUIRE(snap.FillIoLinkProperties(n, p.NumIOLinks, got.data()).ok());
    uint32_t k = 0;
    for (const char* kind : {"io_links", "p2p_links"}) {
      const uint64_t count = U(kv, kind == std::string("io_links") ? "io_links_count" : "p2p_links_count");
      for (uint32_t l = 0; l < count && k < p.NumIOLinks; ++l, ++k) {
        CAPTURE(kind);
        CAPTURE(l);
        const auto lk = KeyValues(sim.MustServe(NodeDir(n) + "/" + kind + "/" + std::to_string(l) + "/properties"));
        CHECK(got[k].NodeFrom == n);
        CHECK(got[k].NodeTo == U(lk, "node_to"));
        CHECK(static_cast<uint32_t>(got[k].IoLinkType) == U(lk, "type"));
        CHECK(got[k].Weight == U(lk, "weight"));
        CHECK(got[k].MinimumBandwidth == U(lk, "min_bandwidth"));
        CHECK(got[k].MaximumBandwidth == U(lk, "max_bandwidth"));
        CHECK(got[k].RecSdmaEngIdMask == U(lk, "recommended_sdma_engine_id_mask"));
        CHECK(got[k].Flags.LinkProperty == U(lk, "flags"));
      }
    }
    CHECK(k == p.NumIOLinks);
  }
}

struct TreeSpec {
  const char* tree;
  const char* board;
  uint32_t nodes;
  uint32_t gpus;
};

const TreeSpec kTrees[] = {
    {"mi210-8gpu-xgmi", nullptr, 10, 8},
    {"mi300x-8gpu-cpx", nullptr, 65, 63},
    {"mi308x-8gpu-cpx", nullptr, 34, 32},
    {"mixed-gfx906-gfx1102-gfx1032", nullptr, 4, 3},
    {nullptr, "apu-embedded", 0, 1},
    {nullptr, "datacenter-4gpu", 6, 4},
};

}  // namespace

TEST_CASE("snapshot of every fixture tree and built-in board matches what the simulator serves") {
  for (const TreeSpec& t : kTrees) {
    CAPTURE(t.tree ? t.tree : t.board);
    Sim sim(t.tree, t.board);
    DiagLog log;
    auto snap = TakeAll(sim, &log);
    CHECK(snap->valid());
    if (t.nodes != 0) CHECK(snap->num_nodes() == t.nodes);
    uint32_t gpus = 0;
    for (uint32_t n = 0; n < snap->num_nodes(); ++n) gpus += snap->node(n)->is_gpu() ? 1 : 0;
    CHECK(gpus == t.gpus);
    CHECK(snap->has_p2p_links());
    CheckAgainstServed(sim, *snap);
    for (uint32_t lvl : log.levels) CHECK(lvl != HKE_DIAG_ERROR);
  }
}

TEST_CASE("snapshot holds the largest captured trees") {
  {
    Sim sim("mi300x-8gpu-cpx", nullptr);
    DiagLog log;
    auto snap = TakeAll(sim, &log);
    uint32_t max_links = 0;
    for (uint32_t n = 0; n < snap->num_nodes(); ++n) {
      max_links = std::max<uint32_t>(max_links, snap->node(n)->num_links);
    }
    CHECK(snap->num_nodes() == 65);
    CHECK(max_links == 63);
  }
  {
    Sim sim("mi308x-8gpu-cpx", nullptr);
    DiagLog log;
    auto snap = TakeAll(sim, &log);
    const NodeRecord* gpu = snap->node(2);
    REQUIRE(gpu != nullptr);
    CHECK(gpu->is_gpu());
    CHECK(gpu->num_caches == 46);
    CHECK(std::string(gpu->name) == "ip discovery");
    CHECK(std::string(snap->node(0)->name) == "");
  }
  MESSAGE("sizeof(ContextSnapshot) = ", sizeof(ContextSnapshot), " bytes (NodeRecord ",
          sizeof(NodeRecord), ", MemBankRecord ", sizeof(MemBankRecord), ", CacheRecord ",
          sizeof(CacheRecord), ", LinkRecord ", sizeof(LinkRecord), "); TestSnapshot ",
          sizeof(TestSnapshot));
  CHECK(sizeof(CacheRecord) == 64);
  CHECK(sizeof(LinkRecord) == 52);
  CHECK(sizeof(MemBankRecord) == 24);
}

TEST_CASE("the build's ContextSnapshot reads the MI308X CPX tree") {
  Sim sim("mi308x-8gpu-cpx", nullptr);
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  auto snap = std::make_unique<ContextSnapshot>();
  TakeOptions o;
  o.root = kRoot;
  REQUIRE(snap->Take(sim.platform(), diag, o).ok());
  CHECK(snap->num_nodes() == 34);
  CheckAgainstServed(sim, *snap);
}

TEST_CASE("a node with more caches than the per-node capacity fails with RESOURCE_EXHAUSTED naming the constant") {
  Sim sim("mi210-8gpu-xgmi", nullptr);  // 217 caches per GPU node
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  auto snap = std::make_unique<SnapshotStorage<16, 2, 200, 16>>();
  TakeOptions o;
  o.root = kRoot;
  const hke::Status s = snap->Take(sim.platform(), diag, o);
  CHECK(s.is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0].find("hke::config::kMaxCachesPerNode") != std::string::npos);
  CHECK(log.messages[0].find("217") != std::string::npos);
  CHECK_FALSE(snap->valid());

  // The per-node maximum fits but the shared pool does not.
  log.messages.clear();
  auto pooled = std::make_unique<SnapshotStorage<16, 2, 256, 16, 32, 1000, 256>>();
  const hke::Status p = pooled->Take(sim.platform(), diag, o);
  CHECK(p.is_api(HKE_STATUS_RESOURCE_EXHAUSTED));
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0].find("cache pool") != std::string::npos);
}

namespace {

struct HideList {
  std::vector<uint32_t> hide;  // sysfs ids
  std::vector<uint32_t> asked;
  static hke::Status Fn(void* user, uint32_t sysfs, uint32_t gpu_id, uint32_t minor, bool* keep) {
    auto* self = static_cast<HideList*>(user);
    self->asked.push_back(sysfs);
    CHECK(gpu_id != 0);
    CHECK(minor >= 128);
    *keep = std::find(self->hide.begin(), self->hide.end(), sysfs) == self->hide.end();
    return hke::Status::Ok();
  }
};

}  // namespace

TEST_CASE("hidden GPU nodes renumber user nodes and drop the links that reach them") {
  Sim sim(nullptr, "datacenter-4gpu");  // CPUs 0-1, GPUs 2-5
  DiagLog log;
  HideList hide;
  hide.hide = {3};
  NodeFilter filter;
  filter.fn = &HideList::Fn;
  filter.user = &hide;
  auto snap = TakeAll(sim, &log, filter);
  CHECK(hide.asked == std::vector<uint32_t>{2, 3, 4, 5});
  REQUIRE(snap->num_nodes() == 5);
  CHECK(snap->num_sysfs_nodes() == 6);
  uint32_t user = 99;
  CHECK_FALSE(snap->UserNodeOfSysfs(3, &user));
  REQUIRE(snap->UserNodeOfSysfs(4, &user));
  CHECK(user == 3);
  CHECK(snap->node(3)->sysfs_id == 4);
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(3, &p).ok());
  CHECK(p.KFDGpuID == std::stoul(sim.MustServe(NodeDir(4) + "/gpu_id")));
  for (uint32_t n = 0; n < snap->num_nodes(); ++n) {
    HsaNodeProperties np;
    REQUIRE(snap->FillNodeProperties(n, &np).ok());
    std::vector<HsaIoLinkProperties> links(np.NumIOLinks + 1);
    REQUIRE(snap->FillIoLinkProperties(n, np.NumIOLinks, links.data()).ok());
    CHECK(np.NumIOLinks <= 4);
    links.pop_back();
    for (const auto& l : links) {
      CHECK(l.NodeFrom == n);
      CHECK(l.NodeTo < 5);
      const uint32_t to_sysfs = snap->node(l.NodeTo)->sysfs_id;
      CHECK(to_sysfs != 3);
    }
  }
  // GPU sysfs 2 linked to CPU, 3 XGMI peers and one p2p link; the peer at
  // sysfs 3 is gone.
  REQUIRE(snap->FillNodeProperties(2, &p).ok());
  CHECK(p.NumIOLinks == 4);
}

TEST_CASE("a filter error aborts the snapshot with that status") {
  Sim sim(nullptr, "datacenter-4gpu");
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  auto snap = std::make_unique<TestSnapshot>();
  TakeOptions o;
  o.root = kRoot;
  o.filter.fn = [](void*, uint32_t, uint32_t, uint32_t, bool*) {
    return hke::Status::Errno(hke::err::kEIO);
  };
  const hke::Status s = snap->Take(sim.platform(), diag, o);
  CHECK(s.is_errno(hke::err::kEIO));
  CHECK_FALSE(snap->valid());
  CHECK(snap->num_nodes() == 0);
  REQUIRE_FALSE(log.messages.empty());
}

TEST_CASE("TakeSnapshot reads through a context's platform and topology root") {
  Sim sim("mixed-gfx906-gfx1102-gfx1032", nullptr);
  DiagLog log;
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = hke_sim_platform(sim.raw());
  c.diag = &DiagLog::Fn;
  c.diag_user = &log;
  c.flags = HKE_CONFIG_DISCOVERY_ONLY;
  std::vector<unsigned char> storage(hke_context_storage_size() + 64);
  void* aligned = storage.data();
  size_t space = storage.size();
  REQUIRE(std::align(hke_context_storage_align(), hke_context_storage_size(), aligned, space));
  hke_context* ctx = nullptr;
  REQUIRE(hke_context_init(aligned, space, &c, &ctx) == HKE_OK);
  auto snap = std::make_unique<TestSnapshot>();
  REQUIRE(TakeSnapshot(ctx->impl, NodeFilter{}, snap.get()).ok());
  CHECK(snap->num_nodes() == 4);
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(2, &p).ok());
  CHECK(uint32_t{p.EngineId.ui32.Major} == 11);
  CHECK(uint32_t{p.EngineId.ui32.Minor} == 0);
  CHECK(uint32_t{p.EngineId.ui32.Stepping} == 2);
  CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)) == "GFX0b0002");
  hke_context_deinit(ctx);
}
