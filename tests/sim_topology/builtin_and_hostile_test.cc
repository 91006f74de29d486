// Built-in boards load through the same path; hostile trees are refused with
// the offending file named, or handled by the documented rules.
#include <doctest/doctest.h>

#include "platform/sim/board.h"
#include "platform/sim/topology/report.h"
#include "tests/sim_topology/sim_topology_support.h"

using simtest::kTopo;

namespace {

std::string Node(uint32_t n) { return std::string(kTopo) + "/nodes/" + std::to_string(n); }

// A Board whose fields show whether a failed load touched it.
kfdsim::Board Sentinel() {
  kfdsim::Board b;
  b.desc.name = "untouched";
  b.fill_report.push_back("sentinel");
  return b;
}

void CheckUntouched(const kfdsim::Board& b) {
  CHECK(b.desc.name == "untouched");
  CHECK(b.files == nullptr);
  CHECK(b.fill_report.size() == 1);
}

int LoadTemp(const simtest::TempTree& t, kfdsim::Board* b, std::string* error) {
  return kfdsim::LoadTreeBoard(t.path(), kfdsim::LoadOptions{}, b, error);
}

}  // namespace

TEST_CASE("built-in boards are listed and load") {
  const auto names = kfdsim::BuiltinBoardNames();
  REQUIRE(names.size() >= 2);
  for (const std::string& name : names) {
    CAPTURE(name);
    kfdsim::Board b;
    std::string error;
    REQUIRE(kfdsim::LoadBuiltinBoard(name, kfdsim::LoadOptions{}, &b, &error) == 0);
    CHECK(b.desc.name == name);
    CHECK(!b.desc.gpus.empty());
    // Built-ins go through the same fill-in (caches and gpu_ids come from it).
    CHECK(!b.fill_report.empty());
    for (const auto& kv : simtest::WalkAll(*b.files)) {
      if (kv.first.compare(0, 5, "/sys/") == 0) CHECK(kv.second.size() <= 4096);
    }
    for (const kfdsim::GpuDesc& g : b.desc.gpus) {
      CHECK(simtest::CountEntries(b, Node(g.node_id) + "/caches") > 0);
      CHECK(g.render_minor >= 128);
    }
    for (uint32_t n = 0; n < b.desc.node_count; ++n) {
      const size_t links = simtest::CountEntries(b, Node(n) + "/io_links") +
                           simtest::CountEntries(b, Node(n) + "/p2p_links");
      CHECK(links <= b.desc.node_count - 1);
    }
  }
  kfdsim::Board none = Sentinel();
  std::string error;
  CHECK(kfdsim::LoadBuiltinBoard("no-such-board", kfdsim::LoadOptions{}, &none, &error) == ENOENT);
  CHECK(error.find("no-such-board") != std::string::npos);
  CheckUntouched(none);
}

TEST_CASE("apu-embedded is a Renoir APU that ROCR 5.2 knows") {
  kfdsim::Board b;
  std::string error;
  REQUIRE(kfdsim::LoadBuiltinBoard("apu-embedded", kfdsim::LoadOptions{}, &b, &error) == 0);
  CHECK(b.desc.node_count == 2);
  REQUIRE(b.desc.gpus.size() == 1);
  const kfdsim::GpuDesc& g = b.desc.gpus[0];
  CHECK(g.is_apu);
  CHECK(g.device_id == 0x1636);
  CHECK(g.gfx_target_version == 90012);
  CHECK(g.drm_family == 142);
  CHECK(g.cu_count == 7);
  CHECK(b.desc.cpu_count == 16);
  CHECK(simtest::Served(b, Node(1) + "/name") == "renoir\n");
  auto kv = simtest::KeyValues(simtest::Served(b, Node(1) + "/properties"));
  CHECK(kv["local_mem_size"] == "0");
  CHECK(simtest::Served(b, "/proc/cpuinfo").find("AMD Ryzen Embedded V2748") != std::string::npos);
}

TEST_CASE("datacenter-4gpu is two sockets and four MI210 in one xGMI hive") {
  kfdsim::Board b;
  std::string error;
  REQUIRE(kfdsim::LoadBuiltinBoard("datacenter-4gpu", kfdsim::LoadOptions{}, &b, &error) == 0);
  CHECK(b.desc.node_count == 6);
  REQUIRE(b.desc.gpus.size() == 4);
  for (const kfdsim::GpuDesc& g : b.desc.gpus) {
    CHECK(g.device_id == 0x740f);
    CHECK(g.gfx_target_version == 90010);
    CHECK(g.hive_id == b.desc.gpus[0].hive_id);
    CHECK(!g.is_apu);
    CHECK(simtest::CountEntries(b, Node(g.node_id) + "/caches") == 217);
    size_t xgmi = 0;
    for (size_t i = 0; i < simtest::CountEntries(b, Node(g.node_id) + "/io_links"); ++i) {
      auto kv = simtest::KeyValues(
          simtest::Served(b, Node(g.node_id) + "/io_links/" + std::to_string(i) + "/properties"));
      if (kv["type"] == "11") ++xgmi;
    }
    CHECK(xgmi == 3);
  }
  CHECK(b.desc.cpu_count == 128);
  const std::string report = kfdsim::DescribeBoard(b);
  CHECK(report.find("gfx90a") != std::string::npos);
  CHECK(report.find("board datacenter-4gpu") != std::string::npos);
}

TEST_CASE("a tree without nodes/ is refused and the error names it") {
  simtest::TempTree t;
  t.Write("generation_id", "1\n");
  kfdsim::Board b = Sentinel();
  std::string error;
  CHECK(LoadTemp(t, &b, &error) == ENOENT);
  CHECK(error.find(t.path() + "/nodes") != std::string::npos);
  CheckUntouched(b);
  CHECK(kfdsim::LoadTreeBoard(t.path() + "/absent", kfdsim::LoadOptions{}, &b, &error) == ENOENT);
  CheckUntouched(b);
}

TEST_CASE("a malformed properties line is refused and the error names the file") {
  simtest::TempTree t;
  simtest::WriteSmallTree(&t);
  t.Write("nodes/1/properties", "cpu_cores_count 0\nsimd_count 416\nmarketing_name MI210\n");
  kfdsim::Board b = Sentinel();
  std::string error;
  CHECK(LoadTemp(t, &b, &error) == EINVAL);
  CHECK(error.find("nodes/1/properties") != std::string::npos);
  CHECK(error.find("line 3") != std::string::npos);
  CheckUntouched(b);
}

TEST_CASE("a non-numeric node directory is refused") {
  simtest::TempTree t;
  simtest::WriteSmallTree(&t);
  t.Write("nodes/abc/properties", "cpu_cores_count 1\n");
  kfdsim::Board b = Sentinel();
  std::string error;
  CHECK(LoadTemp(t, &b, &error) == EINVAL);
  CHECK(error.find("nodes/abc") != std::string::npos);
  CheckUntouched(b);
}

TEST_CASE("a gap in the node numbering is refused") {
  simtest::TempTree t;
  simtest::WriteSmallTree(&t);
  t.Write("nodes/3/properties", "cpu_cores_count 1\n");
  kfdsim::Board b = Sentinel();
  std::string error;
  CHECK(LoadTemp(t, &b, &error) == EINVAL);
  CHECK(error.find("nodes/2") != std::string::npos);
  CheckUntouched(b);
}

TEST_CASE("an empty properties file is refused and named") {
  simtest::TempTree t;
  simtest::WriteSmallTree(&t);
  t.Write("nodes/0/properties", "");
  kfdsim::Board b = Sentinel();
  std::string error;
  CHECK(LoadTemp(t, &b, &error) == EINVAL);
  CHECK(error.find("nodes/0/properties") != std::string::npos);
  CheckUntouched(b);
  simtest::TempTree t2;
  simtest::WriteSmallTree(&t2);
  t2.Write("nodes/1/io_links/0/properties", "\n");
  CHECK(LoadTemp(t2, &b, &error) == EINVAL);
  CHECK(error.find("nodes/1/io_links/0/properties") != std::string::npos);
}

TEST_CASE("values beyond 64 bits are refused; huge but valid values are clamped") {
  simtest::TempTree t;
  simtest::WriteSmallTree(&t);
  t.Write("nodes/0/properties", "cpu_cores_count 99999999999999999999999\nsimd_count 0\n");
  kfdsim::Board b = Sentinel();
  std::string error;
  CHECK(LoadTemp(t, &b, &error) == EINVAL);
  CHECK(error.find("nodes/0/properties") != std::string::npos);
  CheckUntouched(b);

  simtest::TempTree big;
  simtest::WriteSmallTree(&big);
  big.Write("nodes/0/properties",
            "cpu_cores_count 4000000000\nsimd_count 0\nmem_banks_count 4294967295\n");
  REQUIRE(LoadTemp(big, &b, &error) == 0);
  CHECK(b.desc.cpu_count == 512);
  auto kv = simtest::KeyValues(simtest::Served(b, Node(0) + "/properties"));
  CHECK(kv["mem_banks_count"] == "1");
  bool noted = false;
  for (const auto& l : b.fill_report) noted = noted || l.find("capped at 512") != std::string::npos;
  CHECK(noted);

  simtest::TempTree layout;
  simtest::WriteSmallTree(&layout);
  layout.Write("nodes/1/properties",
               "cpu_cores_count 0\nsimd_count 416\nsimd_per_cu 4\narray_count 100000\n"
               "cu_per_simd_array 14\ngfx_target_version 90010\n");
  kfdsim::Board c = Sentinel();
  CHECK(LoadTemp(layout, &c, &error) == EINVAL);
  CHECK(error.find("nodes/1/properties") != std::string::npos);
  CheckUntouched(c);
}

TEST_CASE("a small hand-made tree is completed: ids, minors, banks, caches, counts, p2p keys") {
  simtest::TempTree t;
  simtest::WriteSmallTree(&t);
  // One link with a wrong node_from and one that points nowhere.
  t.Write("nodes/1/io_links/0/properties",
          "type 2\nversion_major 0\nversion_minor 0\nnode_from 7\nnode_to 0\nweight 20\n");
  t.Write("nodes/1/io_links/1/properties", "type 2\nnode_from 1\nnode_to 9\nweight 20\n");
  t.Write("nodes/0/p2p_links/0/properties", "type 2\nnode_from 0\nnode_to 1\nweight 20\n");
  t.Write("nodes/1/gpu_id", "0\n");
  kfdsim::Board b;
  std::string error;
  REQUIRE(LoadTemp(t, &b, &error) == 0);
  REQUIRE(b.desc.gpus.size() == 1);
  CHECK(b.desc.gpus[0].gpu_id != 0);
  CHECK(b.desc.gpus[0].render_minor == 128);
  auto n1 = simtest::KeyValues(simtest::Served(b, Node(1) + "/properties"));
  CHECK(n1["io_links_count"] == "1");
  CHECK(n1["p2p_links_count"] == "0");  // the key is served on every node once one has it
  CHECK(n1["caches_count"] == "217");
  auto l = simtest::KeyValues(simtest::Served(b, Node(1) + "/io_links/0/properties"));
  CHECK(l["node_from"] == "1");
  auto n0 = simtest::KeyValues(simtest::Served(b, Node(0) + "/properties"));
  CHECK(n0["p2p_links_count"] == "1");
  auto bank = simtest::KeyValues(simtest::Served(b, Node(0) + "/mem_banks/0/properties"));
  CHECK(bank["heap_type"] == "0");
  CHECK(std::stoull(bank["size_in_bytes"]) >= (16ull << 30));
  auto vram = simtest::KeyValues(simtest::Served(b, Node(1) + "/mem_banks/0/properties"));
  CHECK(vram["heap_type"] == "1");
  CHECK(vram["size_in_bytes"] == std::to_string(64ull << 30));
  CHECK(simtest::Served(b, Node(1) + "/mem_banks/0/used_memory") == "0\n");
  CHECK(b.desc.cpu_count == 4);
}
