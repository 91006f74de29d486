// Upstream's derived topology data on small in-memory trees: CPU model
// names from /proc/cpuinfo, CPU caches from the CPU cache directories,
// indirect io links, and capacity exhaustion naming the capacity.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lib/topology/snapshot.h"

namespace {

using namespace hke::topology;

// Files in memory; directories are implied by the paths; /proc/cpuinfo and
// other files can also be opened and streamed with read_fd in small reads.
class MemFs {
 public:
  MemFs() {
    ops_.struct_size = sizeof(ops_);
    ops_.abi_version = HKE_PLATFORM_ABI_VERSION;
    ops_.open = [](void* s, const char* p, uint32_t, int* out) {
      auto* fs = Of(s);
      if (fs->files.count(p) == 0) return ENOENT;
      const int fd = fs->next_fd++;
      fs->open_files[fd] = {p, 0};
      *out = fd;
      return 0;
    };
    ops_.close = [](void* s, int fd) { return Of(s)->open_files.erase(fd) == 1 ? 0 : EBADF; };
    ops_.ioctl = [](void*, int, uint32_t, void*) { return ENOTTY; };
    ops_.read_file = [](void* s, const char* p, char* buf, size_t cap, size_t* n) {
      ++Of(s)->reads[p];
      auto it = Of(s)->files.find(p);
      if (it == Of(s)->files.end()) return ENOENT;
      if (it->second.size() > cap) return EFBIG;
      std::memcpy(buf, it->second.data(), it->second.size());
      *n = it->second.size();
      return 0;
    };
    ops_.read_fd = [](void* s, int fd, void* buf, size_t cap, size_t* n) {
      auto it = Of(s)->open_files.find(fd);
      if (it == Of(s)->open_files.end()) return EBADF;
      const std::string& text = Of(s)->files[it->second.first];
      size_t& off = it->second.second;
      size_t k = text.size() - off;
      if (k > cap) k = cap;
      if (k > 7) k = 7;  // short reads: lines arrive in pieces
      std::memcpy(buf, text.data() + off, k);
      off += k;
      *n = k;
      return 0;
    };
    ops_.list_dir = [](void* s, const char* p, hke_dirent_fn fn, void* user) {
      const std::string dir = std::string(p) + "/";
      std::set<std::string> names;
      for (const auto& f : Of(s)->files) {
        if (f.first.compare(0, dir.size(), dir) != 0) continue;
        const std::string rest = f.first.substr(dir.size());
        names.insert(rest.substr(0, rest.find('/')));
      }
      if (names.empty()) return ENOENT;
      for (const auto& n : names) {
        if (fn(user, n.c_str(), HKE_DIRENT_UNKNOWN) != 0) break;
      }
      return 0;
    };
    ops_.cpu_count = [](void* s, uint32_t* out) {
      *out = Of(s)->cpus;
      return 0;
    };
  }
  hke::Platform platform() { return hke::Platform(hke_platform{&ops_, this}, 0); }

  std::map<std::string, std::string> files;
  std::map<int, std::pair<std::string, size_t>> open_files;
  std::map<std::string, int> reads;  // read_file calls by path, missing files included
  uint32_t cpus = 4;
  int next_fd = 10;

 private:
  static MemFs* Of(void* s) { return static_cast<MemFs*>(s); }
  hke_platform_ops ops_{};
};

struct DiagLog {
  std::vector<std::string> messages;
  static void Fn(void* user, const hke_diag_record* r) {
    static_cast<DiagLog*>(user)->messages.push_back(r->message);
  }
  bool Mentions(const std::string& s) const {
    for (const auto& m : messages) {
      if (m.find(s) != std::string::npos) return true;
    }
    return false;
  }
};

const std::string kRoot = "/t";

std::string Node(uint32_t n) { return kRoot + "/nodes/" + std::to_string(n); }

void Base(MemFs& fs) {
  fs.files[kRoot + "/generation_id"] = "1\n";
  fs.files[kRoot + "/system_properties"] = "platform_oem 0\n";
}

void Cpu(MemFs& fs, uint32_t n, uint32_t links, uint32_t id_base = 0) {
  fs.files[Node(n) + "/gpu_id"] = "0\n";
  fs.files[Node(n) + "/properties"] =
      "cpu_cores_count 2\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\nio_links_count " +
      std::to_string(links) + "\ncpu_core_id_base " + std::to_string(id_base) + "\n";
  fs.files[Node(n) + "/mem_banks/0/properties"] = "heap_type 0\nsize_in_bytes 1024\n";
}

void Gpu(MemFs& fs, uint32_t n, uint32_t gpu_id, uint32_t links, uint64_t hive = 0) {
  fs.files[Node(n) + "/gpu_id"] = std::to_string(gpu_id) + "\n";
  fs.files[Node(n) + "/properties"] =
      "cpu_cores_count 0\nsimd_count 64\nmem_banks_count 1\ncaches_count 0\nio_links_count " +
      std::to_string(links) + "\ngfx_target_version 90010\nhive_id " + std::to_string(hive) +
      "\ndrm_render_minor " + std::to_string(127 + n) + "\n";
  fs.files[Node(n) + "/mem_banks/0/properties"] = "heap_type 1\nsize_in_bytes 4096\n";
}

void Link(MemFs& fs, uint32_t n, uint32_t i, uint32_t to, uint32_t type, uint32_t weight) {
  fs.files[Node(n) + "/io_links/" + std::to_string(i) + "/properties"] =
      "type " + std::to_string(type) + "\nnode_from " + std::to_string(n) + "\nnode_to " +
      std::to_string(to) + "\nweight " + std::to_string(weight) + "\n";
}

// Two processors per CPU node: apicids 0,2 on node 0 and 16,18 on node 1.
void CpuInfo(MemFs& fs) {
  fs.files["/proc/cpuinfo"] =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: Zen Part A\n"
      "flags\t\t: " + std::string(9000, 'x') + "\napicid\t\t: 0\n\n"
      "processor\t: 1\nmodel name\t: Zen Part A\napicid\t\t: 2\n\n"
      "processor\t: 2\nmodel name\t: Second Socket Part\napicid\t\t: 16\n\n"
      "processor\t: 3\nmodel name\t: Second Socket Part\napicid\t\t: 18\n";
}

// CPU 0 and 1 of NUMA node 0: a private L1 each and an L2 both share.
void CpuCaches(MemFs& fs) {
  for (uint32_t cpu = 0; cpu < 2; ++cpu) {
    const std::string c = "/sys/devices/system/node/node0/cpu" + std::to_string(cpu) + "/cache/";
    fs.files[c + "index0/shared_cpu_list"] = std::to_string(cpu) + "\n";
    fs.files[c + "index0/level"] = "1\n";
    fs.files[c + "index0/type"] = "Data\n";
    fs.files[c + "index0/size"] = "32K\n";
    fs.files[c + "index0/coherency_line_size"] = "64\n";
    fs.files[c + "index0/ways_of_associativity"] = "8\n";
    fs.files[c + "index0/physical_line_partition"] = "1\n";
    fs.files[c + "index0/shared_cpu_map"] = cpu == 0 ? "00000001\n" : "00000002\n";
    fs.files[c + "index1/shared_cpu_list"] = "0-1\n";
    fs.files[c + "index1/level"] = "2\n";
    fs.files[c + "index1/type"] = "Unified\n";
    fs.files[c + "index1/size"] = "1M\n";
    fs.files[c + "index1/shared_cpu_map"] = "00000000,00000003\n";
  }
  fs.files["/sys/devices/system/node/node0/cpulist"] = "0-1\n";
}

using Snap = SnapshotStorage<8, 2, 8, 8>;

hke::Status Take(MemFs& fs, DiagLog& log, Snapshot* snap, bool cpu, bool links) {
  hke::Diag diag(&DiagLog::Fn, &log);
  TakeOptions o;
  o.root = kRoot.c_str();
  o.cpu_details = cpu;
  o.indirect_links = links;
  const hke::Platform p = fs.platform();
  return snap->Take(p, diag, o);
}

}  // namespace

TEST_CASE("CPU nodes take the cpuinfo model name of the processor whose apicid is their base") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  Cpu(fs, 1, 0, 16);
  CpuInfo(fs);
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), true, false).ok());
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)) == "Zen Part A");
  CHECK(p.MarketingName[0] == 'Z');
  REQUIRE(snap->FillNodeProperties(1, &p).ok());
  CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)) == "Second Socket Part");
  CHECK(snap->num_cpus() == 4);
  CHECK(fs.open_files.empty());  // cpuinfo was closed
}

TEST_CASE("a model name longer than 63 characters is cut, as upstream keeps it") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  fs.files["/proc/cpuinfo"] = "processor : 0\nmodel name : " + std::string(80, 'N') + "\napicid : 0\n";
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), true, false).ok());
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  CHECK(std::string(reinterpret_cast<const char*>(p.AMDName)) == std::string(63, 'N'));
}

TEST_CASE("a missing cpuinfo or CPU cache tree leaves names empty and caches absent, with warnings") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), true, false).ok());
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  CHECK(p.AMDName[0] == 0);
  CHECK(p.NumCaches == 0);
  CHECK(log.Mentions("cpuinfo"));
  CHECK(log.Mentions("no CPU directories"));
}

TEST_CASE("CPU caches: a shared cache appears once, under its first CPU, siblings by apicid") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  CpuInfo(fs);
  CpuCaches(fs);
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), true, false).ok());
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  REQUIRE(p.NumCaches == 3);  // L1 of cpu0, the shared L2 (under cpu0), L1 of cpu1
  HsaCacheProperties c[3];
  REQUIRE(snap->FillCacheProperties(0, 3, c).ok());
  CHECK(c[0].CacheLevel == 1);
  CHECK(c[0].CacheSize == 32 * 1024);
  CHECK(c[0].CacheType.Value == 0x5);  // Data | CPU
  CHECK(c[0].CacheLineSize == 64);
  CHECK(c[0].CacheAssociativity == 8);
  CHECK(c[0].ProcessorIdLow == 0);
  CHECK(c[0].SiblingMap[0] == 1);
  CHECK(c[0].SiblingMap[2] == 0);
  CHECK(c[1].CacheLevel == 2);
  CHECK(c[1].CacheSize == 1024 * 1024);
  CHECK(c[1].CacheType.Value == 0x7);  // Unified | CPU
  CHECK(c[1].SiblingMap[0] == 1);
  CHECK(c[1].SiblingMap[2] == 1);  // processor 1 has apicid 2
  CHECK(c[2].CacheLevel == 1);
  CHECK(c[2].ProcessorIdLow == 2);
  CHECK(c[2].SiblingMap[2] == 1);
}

TEST_CASE("CPU caches: shared_cpu_map alone names a cache's first CPU; no file is read twice") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  CpuInfo(fs);
  CpuCaches(fs);
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), true, false).ok());
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  CHECK(p.NumCaches == 3);
  for (const auto& r : fs.reads) {
    INFO(r.first);
    CHECK(r.first.find("shared_cpu_list") == std::string::npos);
    // generation_id is read before and after the parse (the change check).
    CHECK(r.second == (r.first == kRoot + "/generation_id" ? 2 : 1));
  }
}

TEST_CASE("CPU caches: without shared_cpu_map the first CPU comes from shared_cpu_list, no siblings") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  CpuInfo(fs);
  CpuCaches(fs);
  for (uint32_t cpu = 0; cpu < 2; ++cpu) {
    const std::string c = "/sys/devices/system/node/node0/cpu" + std::to_string(cpu) + "/cache/";
    fs.files.erase(c + "index0/shared_cpu_map");
    fs.files.erase(c + "index1/shared_cpu_map");
  }
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), true, false).ok());
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  REQUIRE(p.NumCaches == 3);  // L1 of cpu0, the shared L2 (under cpu0), L1 of cpu1
  HsaCacheProperties c[3];
  REQUIRE(snap->FillCacheProperties(0, 3, c).ok());
  CHECK(c[1].CacheLevel == 2);
  CHECK(c[1].SiblingMap[0] == 0);
  CHECK(c[2].ProcessorIdLow == 2);
}

TEST_CASE("without cpu_details a CPU node keeps the sysfs cache count") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  CpuInfo(fs);
  CpuCaches(fs);
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), false, false).ok());
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  CHECK(p.NumCaches == 0);
  CHECK(p.AMDName[0] == 0);
}

TEST_CASE("CPU caches beyond the per-node capacity fail with RESOURCE_EXHAUSTED naming it") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 0, 0);
  CpuInfo(fs);
  CpuCaches(fs);
  DiagLog log;
  auto snap = std::make_unique<SnapshotStorage<8, 2, 2, 8>>();
  const hke::Status s = Take(fs, log, snap.get(), true, false);
  CHECK(s == hke::Exhausted());
  CHECK(log.Mentions("hke::config::kMaxCachesPerNode"));
  CHECK_FALSE(snap->valid());
}

TEST_CASE("indirect links join GPUs through their CPU when no node reports p2p links") {
  MemFs fs;
  Base(fs);
  // CPU 0 with GPUs 1 and 2 on PCIe (weight 20 each way).
  Cpu(fs, 0, 2);
  Link(fs, 0, 0, 1, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  Link(fs, 0, 1, 2, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  Gpu(fs, 1, 1001, 1);
  Link(fs, 1, 0, 0, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  Gpu(fs, 2, 1002, 1);
  Link(fs, 2, 0, 0, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  DiagLog log;
  auto snap = std::make_unique<Snap>();
  REQUIRE(Take(fs, log, snap.get(), false, true).ok());
  HsaIoLinkProperties l[2];
  HsaNodeProperties p;
  REQUIRE(snap->FillNodeProperties(0, &p).ok());
  CHECK(p.NumIOLinks == 2);  // CPU-CPU pairs get nothing; CPU->GPU are direct already
  REQUIRE(snap->FillNodeProperties(1, &p).ok());
  REQUIRE(p.NumIOLinks == 2);
  REQUIRE(snap->FillIoLinkProperties(1, 2, l).ok());
  CHECK(l[0].NodeTo == 0);  // the sysfs link stays first
  CHECK(l[1].NodeFrom == 1);
  CHECK(l[1].NodeTo == 2);
  CHECK(l[1].Weight == 40);
  CHECK(l[1].IoLinkType == HSA_IOLINKTYPE_PCIEXPRESS);
  REQUIRE(snap->FillIoLinkProperties(2, 2, l).ok());
  CHECK(l[1].NodeTo == 1);
  CHECK(l[1].Weight == 40);
}

TEST_CASE("indirect links: GPU-CPU-CPU across a same-socket QPI, none across sockets") {
  for (uint32_t qpi_weight : {15u, 21u}) {
    MemFs fs;
    Base(fs);
    Cpu(fs, 0, 2);
    Link(fs, 0, 0, 1, HSA_IOLINK_TYPE_QPI_1_1, qpi_weight);
    Link(fs, 0, 1, 2, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    Cpu(fs, 1, 2);
    Link(fs, 1, 0, 0, HSA_IOLINK_TYPE_QPI_1_1, qpi_weight);
    Link(fs, 1, 1, 3, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    Gpu(fs, 2, 1002, 1);
    Link(fs, 2, 0, 0, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    Gpu(fs, 3, 1003, 1);
    Link(fs, 3, 0, 1, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    DiagLog log;
    auto snap = std::make_unique<Snap>();
    REQUIRE(Take(fs, log, snap.get(), false, true).ok());
    HsaNodeProperties p;
    REQUIRE(snap->FillNodeProperties(2, &p).ok());
    std::vector<HsaIoLinkProperties> l(p.NumIOLinks);
    REQUIRE(snap->FillIoLinkProperties(2, p.NumIOLinks, l.data()).ok());
    bool to_cpu1 = false, to_gpu3 = false;
    for (const auto& x : l) {
      if (x.NodeTo == 1) {
        to_cpu1 = true;
        CHECK(x.Weight == 20 + qpi_weight);
        CHECK(x.IoLinkType == HSA_IOLINK_TYPE_QPI_1_1);
      }
      if (x.NodeTo == 3) to_gpu3 = true;
    }
    CHECK(to_cpu1);                        // GPU-CPU-CPU needs no socket check
    CHECK(to_gpu3 == (qpi_weight <= 20));  // GPU-CPU-CPU-GPU only inside a socket
    // Every node's links stay its own after the runs were spread apart.
    for (uint32_t n = 0; n < 4; ++n) {
      REQUIRE(snap->FillNodeProperties(n, &p).ok());
      std::vector<HsaIoLinkProperties> all(p.NumIOLinks);
      REQUIRE(snap->FillIoLinkProperties(n, p.NumIOLinks, all.data()).ok());
      for (const auto& x : all) CHECK(x.NodeFrom == n);
    }
  }
}

TEST_CASE("indirect links: none inside an XGMI hive, none when a node reports p2p links") {
  for (bool p2p : {false, true}) {
    MemFs fs;
    Base(fs);
    Cpu(fs, 0, 2);
    Link(fs, 0, 0, 1, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    Link(fs, 0, 1, 2, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    Gpu(fs, 1, 1001, 1, p2p ? 0 : 77);
    Link(fs, 1, 0, 0, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    Gpu(fs, 2, 1002, 1, p2p ? 0 : 77);
    Link(fs, 2, 0, 0, HSA_IOLINKTYPE_PCIEXPRESS, 20);
    if (p2p) fs.files[Node(2) + "/properties"] += "p2p_links_count 0\n";
    DiagLog log;
    auto snap = std::make_unique<Snap>();
    REQUIRE(Take(fs, log, snap.get(), false, true).ok());
    HsaNodeProperties p;
    REQUIRE(snap->FillNodeProperties(1, &p).ok());
    CHECK(p.NumIOLinks == 1);
  }
}

TEST_CASE("indirect links beyond the link pool fail with RESOURCE_EXHAUSTED naming it") {
  MemFs fs;
  Base(fs);
  Cpu(fs, 0, 2);
  Link(fs, 0, 0, 1, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  Link(fs, 0, 1, 2, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  Gpu(fs, 1, 1001, 1);
  Link(fs, 1, 0, 0, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  Gpu(fs, 2, 1002, 1);
  Link(fs, 2, 0, 0, HSA_IOLINKTYPE_PCIEXPRESS, 20);
  DiagLog log;
  // 4 sysfs links fill the pool; the two indirect ones do not fit.
  auto snap = std::make_unique<SnapshotStorage<8, 2, 8, 8, 16, 64, 4>>();
  const hke::Status s = Take(fs, log, snap.get(), false, true);
  CHECK(s == hke::Exhausted());
  CHECK(log.Mentions("kMaxLinksTotal"));
}
