// The snapshot over hostile and inconsistent sysfs trees served by the fake
// platform: every failure is a specific status with a diagnostic naming the
// file, and no public output ever sees a partial snapshot.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/topology/gfx.h"
#include "lib/topology/snapshot.h"
#include "tests/support/fake_platform.h"

namespace {

using namespace hke::topology;
using hke::Status;
using hke_test::FakePlatform;

using Small = SnapshotStorage<8, 2, 4, 8>;

struct DiagLog {
  std::vector<std::string> messages;
  std::vector<std::string> paths;
  std::vector<uint32_t> levels;
  std::vector<uint32_t> lines;
  static void Fn(void* user, const hke_diag_record* r) {
    auto* self = static_cast<DiagLog*>(user);
    self->messages.push_back(r->message);
    self->paths.push_back(r->path != nullptr ? r->path : "");
    self->levels.push_back(r->level);
    self->lines.push_back(r->line);
  }
  std::string Last() const { return messages.empty() ? "" : messages.back() + " @ " + paths.back(); }
};

using Props = std::vector<std::pair<std::string, std::string>>;

std::string Render(const Props& p) {
  std::string s;
  for (const auto& kv : p) s += kv.first + " " + kv.second + "\n";
  return s;
}

// A small consistent tree under /t: CPU node 0 and GPU nodes added on demand.
struct Tree {
  FakePlatform fake;
  DiagLog log;
  hke::Diag diag{&DiagLog::Fn, &log};
  hke::Platform platform;
  const std::string root = "/t";

  Tree() {
    fake.EnableListDir();
    platform = hke::Platform(fake.platform(), 0);
    fake.files[root + "/generation_id"] = "5\n";
    fake.files[root + "/system_properties"] = "platform_oem 1\nplatform_id 2\nplatform_rev 3\n";
  }
  std::string Node(uint32_t n) const { return root + "/nodes/" + std::to_string(n); }

  void Cpu(uint32_t n, uint32_t links, uint32_t p2p = 0) {
    fake.files[Node(n) + "/gpu_id"] = "0\n";
    fake.files[Node(n) + "/name"] = "\n";
    fake.files[Node(n) + "/properties"] =
        Render({{"cpu_cores_count", "8"}, {"simd_count", "0"}, {"mem_banks_count", "1"},
                {"caches_count", "0"}, {"io_links_count", std::to_string(links)},
                {"p2p_links_count", std::to_string(p2p)}, {"cpu_core_id_base", "0"}});
    fake.files[Node(n) + "/mem_banks/0/properties"] =
        "heap_type 0\nsize_in_bytes 34359738368\nflags 0\nwidth 64\nmem_clk_max 3200\n";
  }
  void Gpu(uint32_t n, uint32_t gpu_id, uint32_t links, uint32_t p2p = 0, uint32_t caches = 1) {
    fake.files[Node(n) + "/gpu_id"] = std::to_string(gpu_id) + "\n";
    fake.files[Node(n) + "/name"] = "gfx90a\n";
    fake.files[Node(n) + "/properties"] = Render(
        {{"cpu_cores_count", "0"}, {"simd_count", "416"}, {"mem_banks_count", "1"},
         {"caches_count", std::to_string(caches)}, {"io_links_count", std::to_string(links)},
         {"p2p_links_count", std::to_string(p2p)}, {"array_count", "8"},
         {"simd_arrays_per_engine", "1"}, {"gfx_target_version", "90010"},
         {"device_id", "29711"}, {"drm_render_minor", std::to_string(127 + n)},
         {"hive_id", "12345678901234567890"}, {"fw_version", "1500"}});
    fake.files[Node(n) + "/mem_banks/0/properties"] =
        "heap_type 1\nsize_in_bytes 68702699520\nflags 0\nwidth 4096\nmem_clk_max 1600\n";
    for (uint32_t c = 0; c < caches; ++c) {
      fake.files[Node(n) + "/caches/" + std::to_string(c) + "/properties"] =
          "processor_id_low " + std::to_string(2147487744u + c) +
          "\nlevel 1\nsize 16\ncache_line_size 64\ncache_lines_per_tag 1\nassociation 4\n"
          "latency 1\ntype 9\nsibling_map 1,1,0,0\n";
    }
  }
  void Link(uint32_t n, const char* kind, uint32_t i, uint32_t from, uint32_t to,
            uint32_t weight = 20) {
    fake.files[Node(n) + "/" + kind + "/" + std::to_string(i) + "/properties"] =
        "type 2\nversion_major 0\nversion_minor 0\nnode_from " + std::to_string(from) +
        "\nnode_to " + std::to_string(to) + "\nweight " + std::to_string(weight) +
        "\nmin_latency 0\nmax_latency 0\nmin_bandwidth 312\nmax_bandwidth 32000\n"
        "recommended_transfer_size 0\nflags 3\n";
  }
  // CPU 0 <-> GPU 1 <-> GPU 2 (io_links), GPU 1 -> GPU 2 over p2p too.
  void Standard() {
    Cpu(0, 2);
    Gpu(1, 4660, 2, 0);
    Gpu(2, 4661, 2, 0);
    Link(0, "io_links", 0, 0, 1);
    Link(0, "io_links", 1, 0, 2);
    Link(1, "io_links", 0, 1, 0);
    Link(1, "io_links", 1, 1, 2, 15);
    Link(2, "io_links", 0, 2, 0);
    Link(2, "io_links", 1, 2, 1, 15);
  }

  Status Take(Snapshot* snap, NodeFilter filter = {}, uint32_t attempts = kDefaultGenerationAttempts) {
    TakeOptions o;
    o.root = root.c_str();
    o.filter = filter;
    o.max_attempts = attempts;
    return snap->Take(platform, diag, o);
  }
};

// Every getter on an invalid snapshot leaves 0xA5-filled outputs as they were.
void CheckOutputsUntouched(const Snapshot& snap) {
  HsaSystemProperties sys;
  HsaNodeProperties node;
  HsaMemoryProperties mem[2];
  HsaCacheProperties cache[1];
  HsaIoLinkProperties link[2];
  uint32_t filled = 0xA5A5A5A5u;
  std::vector<unsigned char> before;
  auto fill = [](auto& x) { std::memset(&x, 0xA5, sizeof(x)); };
  fill(sys), fill(node), fill(mem), fill(cache), fill(link);
  unsigned char ref[sizeof(HsaCacheProperties)];
  std::memset(ref, 0xA5, sizeof(ref));
  CHECK(snap.FillSystemProperties(&sys) == hke::FailedPrecondition());
  CHECK(snap.FillNodeProperties(0, &node) == hke::FailedPrecondition());
  CHECK(snap.FillMemoryProperties(0, 2, mem, &filled) == hke::FailedPrecondition());
  CHECK(snap.FillCacheProperties(0, 1, cache) == hke::FailedPrecondition());
  CHECK(snap.FillIoLinkProperties(0, 2, link) == hke::FailedPrecondition());
  CHECK(std::memcmp(&sys, ref, sizeof(sys)) == 0);
  CHECK(std::memcmp(&node, ref, sizeof(node)) == 0);
  CHECK(std::memcmp(mem, ref, sizeof(mem)) == 0);
  CHECK(std::memcmp(cache, ref, sizeof(cache)) == 0);
  CHECK(std::memcmp(link, ref, sizeof(link)) == 0);
  CHECK(filled == 0xA5A5A5A5u);
  CHECK(snap.node(0) == nullptr);
  CHECK(snap.num_nodes() == 0);
}

// Takes a good snapshot first, then breaks the tree, so a failure must also
// drop the earlier snapshot rather than leave a mix; restores the tree after.
Status FailAfterSuccess(Tree& t, Snapshot* snap, const std::function<void()>& breakit) {
  REQUIRE(t.Take(snap).ok());
  REQUIRE(snap->num_nodes() == 3);
  const auto saved = t.fake.files;
  breakit();
  t.log.messages.clear();
  t.log.paths.clear();
  const Status s = t.Take(snap);
  CHECK_FALSE(snap->valid());
  CheckOutputsUntouched(*snap);
  t.fake.files = saved;  // the next case starts from the good tree
  return s;
}

}  // namespace

TEST_CASE("a consistent small tree reads into the expected records") {
  Tree t;
  t.Standard();
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  CHECK(snap.generation() == 5);
  HsaSystemProperties sys;
  REQUIRE(snap.FillSystemProperties(&sys).ok());
  CHECK(sys.NumNodes == 3);
  CHECK(sys.PlatformOem == 1);
  CHECK(sys.PlatformRev == 3);
  HsaNodeProperties p;
  REQUIRE(snap.FillNodeProperties(1, &p).ok());
  CHECK(p.KFDGpuID == 4660);
  CHECK(p.HiveID == 12345678901234567890ull);
  CHECK(p.NumShaderBanks == 8);
  CHECK(uint32_t{p.EngineId.ui32.uCode} == (1500u & 0x3ff));
  CHECK(uint32_t{p.EngineId.ui32.Major} == 9);
  CHECK(uint32_t{p.EngineId.ui32.Stepping} == 10);
  // A device id of the table names the node by its family.
  CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)) ==
        (FindGfxIpByDeviceId(p.DeviceId, 9) != nullptr ? "Aldebaran" : "GFX09000a"));
  CHECK(p.VGPRSizePerCU == 0x80000);
  CHECK(p.NumXcc == 1);  // absent on a GPU node: 1
  REQUIRE(snap.FillNodeProperties(0, &p).ok());
  CHECK(p.NumXcc == 0);  // CPU nodes keep what sysfs said, as upstream
  CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)).empty());
  HsaCacheProperties c[1];
  REQUIRE(snap.FillCacheProperties(2, 1, c).ok());
  CHECK(c[0].ProcessorIdLow == 2147487744u);
  CHECK(c[0].CacheType.Value == 9);
  CHECK(c[0].SiblingMap[0] == 1);
  CHECK(c[0].SiblingMap[1] == 1);
  CHECK(c[0].SiblingMap[2] == 0);
  CHECK(c[0].SiblingMap[255] == 0);
  CHECK(std::string(snap.node(1)->name) == "gfx90a");
  CHECK(snap.has_p2p_links());
}

TEST_CASE("getters refuse unknown nodes, null outputs and counts above the node's, leaving outputs untouched") {
  Tree t;
  t.Standard();
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  HsaNodeProperties node;
  std::memset(&node, 0xA5, sizeof(node));
  unsigned char ref[sizeof(HsaNodeProperties)];
  std::memset(ref, 0xA5, sizeof(ref));
  CHECK(snap.FillNodeProperties(3, &node) == hke::OutOfRange());
  CHECK(std::memcmp(&node, ref, sizeof(node)) == 0);
  CHECK(snap.FillNodeProperties(0, nullptr) == hke::InvalidArgument());
  HsaCacheProperties cache[2];
  std::memset(cache, 0xA5, sizeof(cache));
  CHECK(snap.FillCacheProperties(1, 2, cache) == hke::InvalidArgument());
  CHECK(std::memcmp(cache, ref, sizeof(ref)) == 0);
  HsaIoLinkProperties links[3];
  std::memset(links, 0xA5, sizeof(links));
  CHECK(snap.FillIoLinkProperties(1, 3, links) == hke::InvalidArgument());
  CHECK(std::memcmp(links, ref, sizeof(links)) == 0);
  REQUIRE(snap.FillIoLinkProperties(1, 2, links).ok());
  CHECK(links[1].NodeTo == 2);
  CHECK(links[1].Weight == 15);
  HsaMemoryProperties mem[3];
  std::memset(mem, 0xA5, sizeof(mem));
  uint32_t filled = 0;
  REQUIRE(snap.FillMemoryProperties(1, 3, mem, &filled).ok());
  CHECK(filled == 1);
  CHECK(mem[0].SizeInBytes == 68702699520ull);
  CHECK(mem[1].SizeInBytes == 0);
  CHECK(mem[2].HeapType == 0);
}

TEST_CASE("malformed or truncated properties fail with PROTOCOL naming the file and line") {
  Tree t;
  t.Standard();
  Small snap;
  const Status s = FailAfterSuccess(t, &snap, [&] {
    t.fake.files[t.Node(2) + "/properties"] = "cpu_cores_count 0\nsimd_count 416\nmem_banks_cou";
  });
  CHECK(s == hke::Protocol());
  REQUIRE_FALSE(t.log.messages.empty());
  CHECK(t.log.paths.back() == "/t/nodes/2/properties");
  CHECK(t.log.lines.back() == 3);
}

TEST_CASE("a huge value fails with PROTOCOL") {
  Tree t;
  t.Standard();
  Small snap;
  CHECK(FailAfterSuccess(t, &snap, [&] { t.fake.files[t.Node(1) + "/gpu_id"] = "4294967296\n"; }) ==
        hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/1/gpu_id");
  CHECK(FailAfterSuccess(t, &snap, [&] {
          t.fake.files[t.Node(0) + "/mem_banks/0/properties"] =
              "heap_type 0\nsize_in_bytes 99999999999999999999\n";
        }) == hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/0/mem_banks/0/properties");
}

TEST_CASE("a file larger than the read buffer fails with PROTOCOL") {
  Tree t;
  t.Standard();
  Small snap;
  CHECK(FailAfterSuccess(t, &snap, [&] {
          t.fake.files[t.Node(1) + "/properties"] += std::string(kFileBufferSize, '\n');
        }) == hke::Protocol());
  CHECK(t.log.messages.back().find("larger than") != std::string::npos);
}

TEST_CASE("a count pointing at a missing file fails with PROTOCOL naming that file") {
  Tree t;
  t.Standard();
  Small snap;
  // caches_count 2 with one caches directory.
  CHECK(FailAfterSuccess(t, &snap, [&] {
          std::string& p = t.fake.files[t.Node(1) + "/properties"];
          p.replace(p.find("caches_count 1"), 14, "caches_count 2");
        }) == hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/1/caches/1/properties");
  // io_links_count 2 on the CPU node with one io_links directory.
  CHECK(FailAfterSuccess(t, &snap, [&] { t.fake.files.erase(t.Node(0) + "/io_links/1/properties"); }) ==
        hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/0/io_links/1/properties");
  // A whole missing mem_banks directory.
  CHECK(FailAfterSuccess(t, &snap, [&] { t.fake.files.erase(t.Node(2) + "/mem_banks/0/properties"); }) ==
        hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/2/mem_banks/0/properties");
  // A listed node without gpu_id.
  CHECK(FailAfterSuccess(t, &snap, [&] { t.fake.files.erase(t.Node(2) + "/gpu_id"); }) == hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/2/gpu_id");
}

TEST_CASE("extra entry directories beyond the counts are not read") {
  Tree t;
  t.Standard();
  t.Link(1, "io_links", 2, 1, 0);  // not counted
  t.fake.files[t.Node(1) + "/caches/7/properties"] = "garbage\n";
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  CHECK(snap.node(1)->num_links == 2);
  CHECK(snap.node(1)->num_caches == 1);
}

TEST_CASE("a missing topology keeps the platform's errno; a missing nodes directory too") {
  {
    Tree t;
    t.fake.files.clear();
    Small snap;
    CHECK(t.Take(&snap).is_errno(ENOENT));
    CHECK(t.log.paths.back() == "/t/generation_id");
  }
  {
    Tree t;  // generation_id and system_properties but no nodes/
    Small snap;
    CHECK(t.Take(&snap).is_errno(ENOENT));
    CHECK(t.log.paths.back() == "/t/nodes");
  }
  {
    Tree t;
    t.Standard();
    t.fake.ops().list_dir = nullptr;
    Small snap;
    CHECK(t.Take(&snap) == hke::Unsupported());
    CheckOutputsUntouched(snap);
  }
}

TEST_CASE("nodes/ must hold exactly the decimal names 0..N-1") {
  {
    Tree t;
    t.Standard();
    t.fake.dirs.insert(t.root + "/nodes/abc");
    Small snap;
    CHECK(t.Take(&snap) == hke::Protocol());
    CHECK(t.log.messages.back().find("'abc'") != std::string::npos);
  }
  {
    Tree t;
    t.Standard();
    t.fake.dirs.insert(t.root + "/nodes/01");
    Small snap;
    CHECK(t.Take(&snap) == hke::Protocol());
  }
  {
    Tree t;
    t.Standard();
    t.fake.dirs.insert(t.root + "/nodes/4");  // 0,1,2,4: no node 3
    Small snap;
    CHECK(t.Take(&snap) == hke::Protocol());
    CHECK(t.log.messages.back().find("no node 3") != std::string::npos);
    CheckOutputsUntouched(snap);
  }
}

TEST_CASE("more nodes than the capacity fail with RESOURCE_EXHAUSTED naming kMaxNodes") {
  {
    Tree t;
    t.Standard();
    for (uint32_t n = 3; n < 9; ++n) t.fake.dirs.insert(t.Node(n));
    Small snap;  // 8 nodes
    CHECK(t.Take(&snap) == hke::Exhausted());
    CHECK(t.log.messages.back().find("hke::config::kMaxNodes") != std::string::npos);
    CheckOutputsUntouched(snap);
  }
  {
    Tree t;
    t.Standard();
    for (uint32_t n = 3; n <= hke::config::kMaxNodes; ++n) t.fake.dirs.insert(t.Node(n));
    auto snap = std::make_unique<ContextSnapshot>();
    CHECK(t.Take(snap.get()) == hke::Exhausted());
    CHECK(t.log.messages.back().find("hke::config::kMaxNodes") != std::string::npos);
    CHECK(t.fake.Count("read_file") == 2);  // refused before any node file is read
  }
}

TEST_CASE("per-node capacities fail with RESOURCE_EXHAUSTED naming the constant to raise") {
  Tree t;
  t.Standard();
  std::string& p = t.fake.files[t.Node(1) + "/properties"];
  p.replace(p.find("caches_count 1"), 14, "caches_count 5");
  Small snap;  // 4 caches per node
  CHECK(t.Take(&snap) == hke::Exhausted());
  CHECK(t.log.messages.back().find("hke::config::kMaxCachesPerNode") != std::string::npos);

  Tree u;
  u.Standard();
  SnapshotStorage<8, 2, 4, 1> one_link;
  CHECK(u.Take(&one_link) == hke::Exhausted());
  CHECK(u.log.messages.back().find("hke::config::kMaxLinksPerNode") != std::string::npos);
}

TEST_CASE("generation_id changing on every read gives UNAVAILABLE after the bounded retries") {
  Tree t;
  t.Standard();
  uint32_t gen = 0;
  t.fake.before_read = [&](const std::string& path) {
    if (path == "/t/generation_id") t.fake.files[path] = std::to_string(++gen) + "\n";
  };
  Small snap;
  CHECK(t.Take(&snap) == hke::Status::Api(HKE_STATUS_UNAVAILABLE));
  CHECK(gen == 2 * kDefaultGenerationAttempts);
  CHECK(t.log.messages.back().find("generation_id") != std::string::npos);
  CheckOutputsUntouched(snap);
}

TEST_CASE("generation_id changing once is retried and the second pass is published") {
  Tree t;
  t.Standard();
  uint32_t reads = 0;
  t.fake.before_read = [&](const std::string& path) {
    if (path != "/t/generation_id") return;
    ++reads;
    t.fake.files[path] = reads == 1 ? "7\n" : "8\n";
  };
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  CHECK(reads == 4);
  CHECK(snap.generation() == 8);
  CHECK(snap.num_nodes() == 3);
}

TEST_CASE("a gpu_id refused with EPERM hides the node and the links that reach it") {
  Tree t;
  t.Standard();
  t.fake.read_errors[t.Node(1) + "/gpu_id"] = EPERM;
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  CHECK(snap.num_nodes() == 2);
  CHECK(snap.num_sysfs_nodes() == 3);
  CHECK(snap.node(1)->sysfs_id == 2);
  CHECK(snap.node(0)->num_links == 1);
  HsaIoLinkProperties l[2];
  REQUIRE(snap.FillIoLinkProperties(0, 1, l).ok());
  CHECK(l[0].NodeTo == 1);  // sysfs 2 is user 1
  REQUIRE(snap.FillIoLinkProperties(1, 1, l).ok());
  CHECK(l[0].NodeFrom == 1);
  CHECK(l[0].NodeTo == 0);
  // Other read errors are not hiding: they fail with the errno.
  t.fake.read_errors[t.Node(1) + "/gpu_id"] = EIO;
  CHECK(t.Take(&snap).is_errno(EIO));
}

TEST_CASE("links must start at their node and end at an existing node") {
  Tree t;
  t.Standard();
  Small snap;
  CHECK(FailAfterSuccess(t, &snap, [&] { t.Link(1, "io_links", 1, 2, 2); }) == hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/1/io_links/1/properties");
  CHECK(FailAfterSuccess(t, &snap, [&] { t.Link(1, "io_links", 1, 1, 9); }) == hke::Protocol());
  CHECK(FailAfterSuccess(t, &snap, [&] {
          t.fake.files[t.Node(1) + "/io_links/1/properties"] = "type 2\nnode_from 1\n";
        }) == hke::Protocol());
}

TEST_CASE("links past visible nodes - 1 are dropped with a warning, as upstream") {
  Tree t;
  t.Standard();
  std::string& p = t.fake.files[t.Node(1) + "/properties"];
  p.replace(p.find("p2p_links_count 0"), 17, "p2p_links_count 1");
  t.Link(1, "p2p_links", 0, 1, 2, 40);
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  CHECK(snap.node(1)->num_links == 2);
  bool warned = false;
  for (size_t i = 0; i < t.log.levels.size(); ++i) {
    warned = warned || (t.log.levels[i] == HKE_DIAG_WARNING &&
                        t.log.paths[i] == "/t/nodes/1/p2p_links/0/properties");
  }
  CHECK(warned);
}

TEST_CASE("p2p links are read in order after io links and a node without the key has none") {
  Tree t;
  t.Cpu(0, 1);
  t.Gpu(1, 4660, 1, 1);
  t.Gpu(2, 4661, 1, 0);
  t.Cpu(3, 0);
  t.Link(0, "io_links", 0, 0, 1);
  t.Link(1, "io_links", 0, 1, 0);
  t.Link(1, "p2p_links", 0, 1, 2, 40);
  t.Link(2, "io_links", 0, 2, 0);
  // Node 2 has no p2p_links_count key at all; upstream would reuse node 1's
  // count of 1 and fail on the missing p2p_links/0.
  std::string& p = t.fake.files[t.Node(2) + "/properties"];
  p.erase(p.find("p2p_links_count 0\n"), 18);
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  HsaIoLinkProperties l[2];
  REQUIRE(snap.FillIoLinkProperties(1, 2, l).ok());
  CHECK(l[0].NodeTo == 0);
  CHECK(l[1].NodeTo == 2);
  CHECK(l[1].Weight == 40);
  CHECK(snap.node(2)->num_links == 1);
  CHECK(snap.has_p2p_links());
}

TEST_CASE("a missing name file gives an empty name; a bad one fails") {
  Tree t;
  t.Standard();
  t.fake.files.erase(t.Node(1) + "/name");
  Small snap;
  REQUIRE(t.Take(&snap).ok());
  CHECK(std::string(snap.node(1)->name).empty());
  t.fake.files[t.Node(1) + "/name"] = std::string(40, 'x') + "\n";
  CHECK(t.Take(&snap) == hke::Protocol());
  CHECK(t.log.paths.back() == "/t/nodes/1/name");
}

TEST_CASE("an empty properties file is PROTOCOL; an empty nodes directory is an empty snapshot") {
  {
    Tree t;
    t.Standard();
    t.fake.files[t.Node(0) + "/properties"] = "";
    Small snap;
    CHECK(t.Take(&snap) == hke::Protocol());
  }
  {
    Tree t;
    t.fake.dirs.insert(t.root + "/nodes");
    Small snap;
    REQUIRE(t.Take(&snap).ok());
    HsaSystemProperties sys;
    REQUIRE(snap.FillSystemProperties(&sys).ok());
    CHECK(sys.NumNodes == 0);
  }
}

TEST_CASE("Take without a topology root fails with INVALID_ARGUMENT") {
  Tree t;
  t.Standard();
  Small snap;
  TakeOptions o;
  CHECK(snap.Take(t.platform, t.diag, o) == hke::InvalidArgument());
  CHECK_FALSE(snap.valid());
}
