// The captured fixture trees load into consistent, complete simulated sysfs.
#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "platform/sim/board.h"
#include "platform/sim/topology/report.h"
#include "tests/sim_topology/sim_topology_support.h"

using simtest::kTopo;

namespace {

struct FixtureSpec {
  const char* name;
  uint32_t nodes;
  uint32_t gpus;
};

const FixtureSpec kFixtures[] = {
    {"mi210-8gpu-xgmi", 10, 8},
    {"mi300x-8gpu-cpx", 65, 63},
    {"mi308x-8gpu-cpx", 34, 32},
    {"mixed-gfx906-gfx1102-gfx1032", 4, 3},
};

kfdsim::Board LoadFixture(const char* name) {
  kfdsim::Board board;
  std::string error;
  const int rc =
      kfdsim::LoadTreeBoard(simtest::FixtureDir(name), kfdsim::LoadOptions{}, &board, &error);
  INFO("fixture ", name, ": ", error);
  REQUIRE(rc == 0);
  REQUIRE(board.files != nullptr);
  return board;
}

std::string NodeDir(uint32_t n) { return std::string(kTopo) + "/nodes/" + std::to_string(n); }

}  // namespace

TEST_CASE("every captured fixture tree loads with its node and GPU counts") {
  for (const FixtureSpec& f : kFixtures) {
    CAPTURE(f.name);
    kfdsim::Board b = LoadFixture(f.name);
    CHECK(b.desc.node_count == f.nodes);
    CHECK(b.desc.gpus.size() == f.gpus);
    CHECK(simtest::CountEntries(b, std::string(kTopo) + "/nodes") == f.nodes);
    CHECK(b.desc.name == f.name);
    CHECK(b.desc.cpu_count > 0);
  }
}

TEST_CASE("served gpu_ids are nonzero and distinct and render minors are distinct in 128..255") {
  for (const FixtureSpec& f : kFixtures) {
    CAPTURE(f.name);
    kfdsim::Board b = LoadFixture(f.name);
    std::set<uint32_t> ids, minors;
    for (const kfdsim::GpuDesc& g : b.desc.gpus) {
      CHECK(g.gpu_id != 0);
      CHECK(g.render_minor >= 128);
      CHECK(g.render_minor <= 255);
      ids.insert(g.gpu_id);
      minors.insert(g.render_minor);
      // The sysfs files say the same as the descriptor.
      CHECK(simtest::Served(b, NodeDir(g.node_id) + "/gpu_id") == std::to_string(g.gpu_id) + "\n");
      auto kv = simtest::KeyValues(simtest::Served(b, NodeDir(g.node_id) + "/properties"));
      CHECK(kv["drm_render_minor"] == std::to_string(g.render_minor));
      kfdsim::FileKind kind = kfdsim::FileKind::kNone;
      CHECK(b.files->Kind("/dev/dri/renderD" + std::to_string(g.render_minor), &kind) == 0);
      CHECK(kind == kfdsim::FileKind::kDevice);
    }
    CHECK(ids.size() == b.desc.gpus.size());
    CHECK(minors.size() == b.desc.gpus.size());
    // CPU nodes serve gpu_id 0.
    for (uint32_t n = 0; n < b.desc.node_count; ++n) {
      auto kv = simtest::KeyValues(simtest::Served(b, NodeDir(n) + "/properties"));
      if (kv["simd_count"] == "0") CHECK(simtest::Served(b, NodeDir(n) + "/gpu_id") == "0\n");
    }
  }
}

TEST_CASE("every count in every served node properties equals the served entries") {
  for (const FixtureSpec& f : kFixtures) {
    CAPTURE(f.name);
    kfdsim::Board b = LoadFixture(f.name);
    for (uint32_t n = 0; n < b.desc.node_count; ++n) {
      CAPTURE(n);
      auto kv = simtest::KeyValues(simtest::Served(b, NodeDir(n) + "/properties"));
      for (const char* sub : {"mem_banks", "caches", "io_links", "p2p_links"}) {
        CAPTURE(sub);
        const std::string key = std::string(sub) + "_count";
        REQUIRE(kv.count(key) == 1);
        const size_t served = simtest::CountEntries(b, NodeDir(n) + "/" + sub);
        CHECK(std::stoul(kv[key]) == served);
        // Each counted entry is present with a properties file.
        for (size_t i = 0; i < served; ++i) {
          std::string text;
          CHECK(b.files->Read(NodeDir(n) + "/" + sub + "/" + std::to_string(i) + "/properties",
                              &text) == 0);
        }
      }
      // The thunk keeps NumNodes-1 links per node; links must name other nodes.
      for (const char* sub : {"io_links", "p2p_links"}) {
        const size_t links = simtest::CountEntries(b, NodeDir(n) + "/" + sub);
        for (size_t i = 0; i < links; ++i) {
          auto l = simtest::KeyValues(
              simtest::Served(b, NodeDir(n) + "/" + sub + "/" + std::to_string(i) + "/properties"));
          CHECK(l["node_from"] == std::to_string(n));
          CHECK(std::stoul(l["node_to"]) < b.desc.node_count);
        }
      }
    }
  }
}

TEST_CASE("every served sysfs file fits one 4 KiB page and parses fully with the thunk's rule") {
  for (const FixtureSpec& f : kFixtures) {
    CAPTURE(f.name);
    kfdsim::Board b = LoadFixture(f.name);
    const auto all = simtest::WalkAll(*b.files);
    CHECK(all.size() > 100);
    for (const auto& kv : all) {
      if (kv.first.compare(0, 5, "/sys/") != 0) continue;
      CAPTURE(kv.first);
      CHECK(kv.second.size() <= 4096);
      const bool props =
          kv.first.size() > 11 && kv.first.compare(kv.first.size() - 11, 11, "/properties") == 0;
      const bool cache = kv.first.find("/caches/") != std::string::npos;
      if (props && !cache) CHECK(simtest::ThunkParsedBytes(kv.second) == kv.second.size());
    }
  }
}

TEST_CASE("GPU caches are served with the HSACU type and kernel-like counts") {
  for (const FixtureSpec& f : kFixtures) {
    CAPTURE(f.name);
    kfdsim::Board b = LoadFixture(f.name);
    for (const kfdsim::GpuDesc& g : b.desc.gpus) {
      const std::string dir = NodeDir(g.node_id) + "/caches";
      const size_t n = simtest::CountEntries(b, dir);
      REQUIRE(n > 0);
      bool l2 = false;
      for (size_t i = 0; i < n; ++i) {
        auto kv =
            simtest::KeyValues(simtest::Served(b, dir + "/" + std::to_string(i) + "/properties"));
        CHECK((std::stoul(kv["type"]) & 8u) == 8u);
        CHECK(kv.count("processor_id_low") == 1);
        CHECK(kv.count("sibling_map") == 1);
        l2 = l2 || kv["level"] == "2";
      }
      CHECK(l2);
    }
  }
  // The fill-in reproduces what the real kernel counted for these parts.
  kfdsim::Board mi210 = LoadFixture("mi210-8gpu-xgmi");
  CHECK(simtest::CountEntries(mi210, NodeDir(2) + "/caches") == 217);
  kfdsim::Board mi300 = LoadFixture("mi300x-8gpu-cpx");
  CHECK(simtest::CountEntries(mi300, NodeDir(2) + "/caches") == 80);
  kfdsim::Board mixed = LoadFixture("mixed-gfx906-gfx1102-gfx1032");
  auto l3 = simtest::KeyValues(simtest::Served(
      mixed, NodeDir(3) + "/caches/" +
                 std::to_string(simtest::CountEntries(mixed, NodeDir(3) + "/caches") - 1) +
                 "/properties"));
  CHECK(l3["level"] == "3");  // Navi23 has 32 MiB Infinity Cache
  CHECK(l3["size"] == "32768");
}

TEST_CASE("captured bytes are preserved except the keys the loader corrects") {
  const std::set<std::string> corrected = {"mem_banks_count", "caches_count", "io_links_count",
                                           "p2p_links_count", "drm_render_minor"};
  for (const FixtureSpec& f : kFixtures) {
    CAPTURE(f.name);
    kfdsim::Board b = LoadFixture(f.name);
    for (uint32_t n = 0; n < f.nodes; ++n) {
      CAPTURE(n);
      bool ok = false;
      const std::string captured = simtest::ReadHostFile(
          simtest::FixtureDir(f.name) + "/nodes/" + std::to_string(n) + "/properties", &ok);
      REQUIRE(ok);
      const std::string served = simtest::Served(b, NodeDir(n) + "/properties");
      std::istringstream a(captured), s(served);
      std::string la, ls;
      while (std::getline(a, la)) {
        REQUIRE(std::getline(s, ls));
        const std::string key = la.substr(0, la.find(' '));
        CHECK(key == ls.substr(0, ls.find(' ')));  // key order kept
        if (corrected.count(key) == 0) CHECK(la == ls);
      }
      CHECK(!std::getline(s, ls));  // every captured node file already has all keys
      // Link files are served byte for byte.
      for (const char* sub : {"io_links", "p2p_links", "mem_banks"}) {
        const std::string cap = simtest::FixtureDir(f.name) + "/nodes/" + std::to_string(n) + "/" +
                                sub + "/0/properties";
        const std::string text = simtest::ReadHostFile(cap, &ok);
        if (ok) CHECK(simtest::Served(b, NodeDir(n) + "/" + sub + "/0/properties") == text);
      }
    }
  }
}

TEST_CASE("a complete capture (mi308x) is served byte for byte with no topology fill-in") {
  kfdsim::Board b = LoadFixture("mi308x-8gpu-cpx");
  const auto served = simtest::Walk(*b.files, kTopo);
  size_t compared = 0;
  for (const auto& kv : served) {
    if (kv.second == "<empty dir>") continue;
    bool ok = false;
    const std::string rel = kv.first.substr(std::string(kTopo).size());
    const std::string captured =
        simtest::ReadHostFile(simtest::FixtureDir("mi308x-8gpu-cpx") + rel, &ok);
    CAPTURE(rel);
    REQUIRE(ok);
    CHECK(kv.second == captured);
    ++compared;
  }
  CHECK(compared > 2500);
  for (const std::string& line : b.fill_report) {
    CAPTURE(line);
    CHECK(line.compare(0, 6, "nodes/") != 0);
  }
}

TEST_CASE("loading is deterministic: two loads serve identical files") {
  for (const FixtureSpec& f : kFixtures) {
    CAPTURE(f.name);
    kfdsim::Board a = LoadFixture(f.name);
    kfdsim::Board b = LoadFixture(f.name);
    CHECK(simtest::WalkAll(*a.files) == simtest::WalkAll(*b.files));
    CHECK(a.fill_report == b.fill_report);
    CHECK(kfdsim::DescribeBoard(a) == kfdsim::DescribeBoard(b));
  }
}

TEST_CASE("fill-ins are reported: gpu_id, minors, mem banks, caches and counts") {
  kfdsim::Board b = LoadFixture("mixed-gfx906-gfx1102-gfx1032");
  auto has = [&b](const std::string& needle) {
    for (const std::string& l : b.fill_report)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  };
  CHECK(has("nodes/1: gpu_id missing"));
  CHECK(has("nodes/2: drm_render_minor 0"));
  CHECK(has("nodes/2: name missing; served \"ip discovery\""));
  CHECK(has("nodes/3: caches missing"));
  CHECK(has("generation_id: missing; served 1"));
  CHECK(simtest::Served(b, NodeDir(2) + "/name") == "ip discovery\n");
  CHECK(simtest::Served(b, NodeDir(1) + "/name") == "vega20\n");  // captured
  CHECK(simtest::Served(b, NodeDir(0) + "/name") == "\n");
  CHECK(simtest::Served(b, std::string(kTopo) + "/generation_id") == "1\n");
  CHECK(simtest::Served(b, std::string(kTopo) + "/system_properties") ==
        "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
  // Minors were 0 everywhere: 128.. in GPU node order.
  REQUIRE(b.desc.gpus.size() == 3);
  CHECK(b.desc.gpus[0].render_minor == 128);
  CHECK(b.desc.gpus[1].render_minor == 129);
  CHECK(b.desc.gpus[2].render_minor == 130);
  const std::string text = kfdsim::DescribeBoard(b);
  for (const kfdsim::GpuDesc& g : b.desc.gpus) {
    CHECK(text.find("gpu_id " + std::to_string(g.gpu_id)) != std::string::npos);
  }
  CHECK(text.find("gfx1102") != std::string::npos);
  CHECK(text.find(b.fill_report.front()) != std::string::npos);

  kfdsim::Board mi300 = LoadFixture("mi300x-8gpu-cpx");
  // p2p_links are absent from the capture: the counts follow the files.
  auto kv = simtest::KeyValues(simtest::Served(mi300, NodeDir(0) + "/properties"));
  CHECK(kv["p2p_links_count"] == "0");
  CHECK(simtest::Served(mi300, std::string(kTopo) + "/generation_id") == "80\n");
}

TEST_CASE("GPU descriptors follow the served values") {
  kfdsim::Board mi210 = LoadFixture("mi210-8gpu-xgmi");
  for (const kfdsim::GpuDesc& g : mi210.desc.gpus) {
    CHECK(g.device_id == 0x740f);
    CHECK(g.pci_rev == 0x02);
    CHECK(g.gfx_target_version == 90010);
    CHECK(g.drm_family == 141);
    CHECK(!g.is_apu);
    CHECK(g.cu_count == 104);
    CHECK(g.vram_bytes == 64ull << 30);
    CHECK(g.gtt_bytes > 0);
    CHECK(g.hive_id != 0);
    CHECK(g.gb_addr_config != 0);
  }
  kfdsim::Board mixed = LoadFixture("mixed-gfx906-gfx1102-gfx1032");
  CHECK(mixed.desc.gpus[0].drm_family == 141);             // gfx906
  CHECK(mixed.desc.gpus[1].drm_family == 145);             // gfx1102
  CHECK(mixed.desc.gpus[2].drm_family == 143);             // gfx1032
  CHECK(mixed.desc.gpus[0].vram_bytes == 17163091968ull);  // captured bank
  CHECK(mixed.desc.gpus[1].wave_front_size == 32);
  kfdsim::Board mi300 = LoadFixture("mi300x-8gpu-cpx");
  CHECK(mi300.desc.gpus[0].vram_bytes == 24ull << 30);  // 192 GiB over 8 XCC partitions
}

TEST_CASE("the 65-node MI300X tree serves every captured io_link of a partition") {
  // Load time is measured by the benchmarks, never asserted here.
  kfdsim::Board b = LoadFixture("mi300x-8gpu-cpx");
  CHECK(simtest::CountEntries(b, NodeDir(2) + "/io_links") == 63);
}
