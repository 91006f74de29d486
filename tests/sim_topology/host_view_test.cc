// The host-side files (cpuinfo, NUMA/CPU-cache trees, modules, device nodes)
// agree with the KFD nodes the way the Debian thunk and libnuma read them.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <sstream>

#include "platform/sim/board.h"
#include "tests/sim_topology/sim_topology_support.h"

using simtest::kTopo;

namespace {

kfdsim::Board Load(const char* name, uint32_t cpu_count = 0) {
  kfdsim::Board board;
  std::string error;
  kfdsim::LoadOptions opt;
  opt.cpu_count = cpu_count;
  const int rc = kfdsim::LoadTreeBoard(simtest::FixtureDir(name), opt, &board, &error);
  INFO(error);
  REQUIRE(rc == 0);
  return board;
}

struct CpuInfoEntry {
  uint32_t processor = 0;
  uint64_t apicid = 0;
  std::string model;
};

std::vector<CpuInfoEntry> ParseCpuInfo(const std::string& text) {
  std::vector<CpuInfoEntry> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == '\t' || key.back() == ' ')) key.pop_back();
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "processor") {
      out.push_back({});
      out.back().processor = static_cast<uint32_t>(std::stoul(value));
    } else if (key == "apicid" && !out.empty()) {
      out.back().apicid = std::stoull(value);
    } else if (key == "model name" && !out.empty()) {
      out.back().model = value;
    }
  }
  return out;
}

void CheckHostView(const kfdsim::Board& b) {
  const auto cpus = ParseCpuInfo(simtest::Served(b, "/proc/cpuinfo"));
  REQUIRE(cpus.size() == b.desc.cpu_count);
  for (size_t i = 0; i < cpus.size(); ++i) {
    CHECK(cpus[i].processor == i);
    CHECK(!cpus[i].model.empty());
    CHECK(cpus[i].model.size() < 64);
  }
  std::set<uint64_t> apic;
  for (const auto& c : cpus) apic.insert(c.apicid);
  // Every CPU node: its cpu_core_id_base is some CPU's apicid, its NUMA
  // directory lists CPUs whose caches the thunk can read.
  size_t cpus_in_nodes = 0;
  for (uint32_t n = 0; n < b.desc.node_count; ++n) {
    auto kv = simtest::KeyValues(
        simtest::Served(b, std::string(kTopo) + "/nodes/" + std::to_string(n) + "/properties"));
    if (kv["cpu_cores_count"] == "0") continue;
    CAPTURE(n);
    const uint64_t base = std::stoull(kv["cpu_core_id_base"]);
    CHECK(apic.count(base) == 1);
    const std::string node_dir = "/sys/devices/system/node/node" + std::to_string(n);
    std::vector<kfdsim::DirEntry> entries;
    REQUIRE(b.files->List(node_dir, &entries) == 0);
    size_t node_cpus = 0;
    for (const auto& e : entries) {
      if (e.name.compare(0, 3, "cpu") != 0 || e.name.size() < 4 || !isdigit(e.name[3])) continue;
      ++node_cpus;
      const uint32_t k = static_cast<uint32_t>(std::stoul(e.name.substr(3)));
      REQUIRE(k < cpus.size());
      // The node's CPUs carry apicids base..base+count-1.
      CHECK(cpus[k].apicid >= base);
      CHECK(cpus[k].apicid < base + std::stoull(kv["cpu_cores_count"]));
      const std::string cache = node_dir + "/" + e.name + "/cache";
      std::vector<kfdsim::DirEntry> idx;
      REQUIRE(b.files->List(cache, &idx) == 0);
      CHECK(idx.size() == 4);
      for (const auto& i : idx) {
        for (const char* f :
             {"shared_cpu_list", "level", "type", "size", "coherency_line_size",
              "ways_of_associativity", "physical_line_partition", "shared_cpu_map"}) {
          std::string text;
          CHECK(b.files->Read(cache + "/" + i.name + "/" + f, &text) == 0);
          CHECK(!text.empty());
        }
      }
      // A private L1 lists this CPU first, the L3 the node's first CPU.
      CHECK(simtest::Served(b, cache + "/index0/shared_cpu_list") == std::to_string(k) + "\n");
    }
    CHECK(node_cpus > 0);
    cpus_in_nodes += node_cpus;
    std::string meminfo;
    CHECK(b.files->Read(node_dir + "/meminfo", &meminfo) == 0);
    CHECK(meminfo.find("MemTotal:") != std::string::npos);
  }
  CHECK(cpus_in_nodes == b.desc.cpu_count);
  const std::string last = std::to_string(b.desc.cpu_count - 1);
  CHECK(simtest::Served(b, "/sys/devices/system/cpu/possible") ==
        (b.desc.cpu_count == 1 ? "0\n" : "0-" + last + "\n"));
  CHECK(simtest::Served(b, "/sys/devices/system/cpu/online") ==
        simtest::Served(b, "/sys/devices/system/cpu/possible"));
  CHECK(simtest::Served(b, "/proc/modules") == "amdgpu 9764864 0 - Live 0x0000000000000000\n");
  CHECK(simtest::Served(b, "/sys/module/amdgpu/initstate") == "live\n");
  CHECK(simtest::Served(b, "/sys/module/amdgpu/refcnt") == "0\n");
  std::vector<kfdsim::DirEntry> holders;
  CHECK(b.files->List("/sys/module/amdgpu/holders", &holders) == 0);
  CHECK(holders.empty());
  kfdsim::FileKind kind = kfdsim::FileKind::kNone;
  CHECK(b.files->Kind("/dev/kfd", &kind) == 0);
  CHECK(kind == kfdsim::FileKind::kDevice);
  std::string cmdline;
  CHECK(b.files->Read("/proc/cmdline", &cmdline) == 0);
}

}  // namespace

TEST_CASE("cpuinfo and the CPU cache tree agree with every fixture's CPU nodes") {
  for (const char* name :
       {"mi210-8gpu-xgmi", "mi300x-8gpu-cpx", "mi308x-8gpu-cpx", "mixed-gfx906-gfx1102-gfx1032"}) {
    CAPTURE(name);
    kfdsim::Board b = Load(name);
    CheckHostView(b);
  }
  CHECK(Load("mi210-8gpu-xgmi").desc.cpu_count == 128);
  CHECK(Load("mi308x-8gpu-cpx").desc.cpu_count == 224);
}

TEST_CASE("a CPU count option is spread over the CPU nodes, one CPU each at least") {
  kfdsim::Board b = Load("mi210-8gpu-xgmi", 4);
  CHECK(b.desc.cpu_count == 4);
  CheckHostView(b);
  kfdsim::Board one = Load("mi210-8gpu-xgmi", 1);
  CHECK(one.desc.cpu_count == 2);  // two CPU nodes
  CheckHostView(one);
}

TEST_CASE("the vendor follows the socket links: QPI means an Intel host") {
  CHECK(simtest::Served(Load("mi308x-8gpu-cpx"), "/proc/cpuinfo").find("GenuineIntel") !=
        std::string::npos);
  CHECK(simtest::Served(Load("mi210-8gpu-xgmi"), "/proc/cpuinfo").find("AuthenticAMD") !=
        std::string::npos);
}

TEST_CASE("the provider owns its namespaces and aliases /sys/class/kfd and node cpu links") {
  kfdsim::Board b = Load("mi210-8gpu-xgmi");
  const kfdsim::FileProvider& f = *b.files;
  CHECK(f.Owns("/sys/devices/virtual/kfd/kfd/topology/nodes/99"));
  CHECK(f.Owns("/proc/cpuinfo"));
  CHECK(f.Owns("/dev/dri/renderD200"));
  CHECK(!f.Owns("/proc/self/status"));
  CHECK(!f.Owns("/proc/cpuinfox"));
  CHECK(!f.Owns("/usr/share/libdrm/amdgpu.ids"));
  std::string s;
  CHECK(f.Read("/sys/devices/virtual/kfd/kfd/topology/nodes/99/properties", &s) == ENOENT);
  CHECK(f.Read("/sys/devices/virtual/kfd/kfd/topology/nodes", &s) == EISDIR);
  std::vector<kfdsim::DirEntry> e;
  CHECK(f.List("/proc/cpuinfo", &e) == ENOTDIR);
  CHECK(f.Read("/proc/cpuinfo/x", &s) == ENOTDIR);
  CHECK(simtest::Served(b, "/sys/class/kfd/kfd/topology/nodes/2/properties") ==
        simtest::Served(b, std::string(kTopo) + "/nodes/2/properties"));
  CHECK(simtest::Served(b, "/sys/devices/system/node/node1/cpu64/cache/index3/shared_cpu_list") ==
        "64-127\n");
  CHECK(simtest::Served(b, "/sys/devices/system/cpu/cpu64/cache/index3/shared_cpu_list") ==
        "64-127\n");
  // cpu3 belongs to node0, not node1.
  CHECK(f.Read("/sys/devices/system/node/node1/cpu3/cache/index0/level", &s) == ENOENT);
  // Directory listings are in numeric order.
  REQUIRE(f.List(std::string(kTopo) + "/nodes", &e) == 0);
  REQUIRE(e.size() == 10);
  for (size_t i = 0; i < e.size(); ++i) {
    CHECK(e[i].name == std::to_string(i));
    CHECK(e[i].kind == kfdsim::FileKind::kDir);
  }
  REQUIRE(f.List("/sys/class/kfd", &e) == 0);
  REQUIRE(e.size() == 1);
  CHECK(e[0].name == "kfd");
  // shared_cpu_map uses the kernel's comma-grouped hex words.
  CHECK(simtest::Served(b, "/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_map") ==
        "00000000,00000000,ffffffff,ffffffff\n");
}
