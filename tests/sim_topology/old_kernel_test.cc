// Captures from kernels before gfx_target_version (2018: no SDMA/CP/GWS/XCC
// counts, empty names, no p2p links) load: the GPU's version comes from the
// library's device table, what the simulated GPU needs from its family's
// defaults, and every derivation is named in the fill report.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "lib/topology/device_table.h"
#include "platform/sim/board.h"
#include "platform/sim/topology/report.h"
#include "tests/sim_topology/sim_topology_support.h"
#include "tests/support/old_kernel_tree.h"

using simtest::kTopo;

namespace {

const char* const kFixtures[] = {"mi210-8gpu-xgmi", "mi300x-8gpu-cpx", "mi308x-8gpu-cpx",
                                 "mixed-gfx906-gfx1102-gfx1032"};

kfdsim::Board MustLoad(const std::string& dir) {
  kfdsim::Board b;
  std::string error;
  const int rc = kfdsim::LoadTreeBoard(dir, kfdsim::LoadOptions{}, &b, &error);
  INFO(dir, ": ", error);
  REQUIRE(rc == 0);
  return b;
}

bool Reported(const kfdsim::Board& b, const std::string& needle) {
  for (const std::string& l : b.fill_report) {
    if (l.find(needle) != std::string::npos) return true;
  }
  return false;
}

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%x", v);
  return buf;
}

// The stripped board has the same GPUs with the same versions, the version
// and the SDMA engines are derived and named, and the served files keep the
// old kernel's shape apart from the version the simulated KFD reports.
void CheckSameGpus(const kfdsim::Board& original, const kfdsim::Board& old) {
  REQUIRE(old.desc.node_count == original.desc.node_count);
  REQUIRE(old.desc.gpus.size() == original.desc.gpus.size());
  const std::string report = kfdsim::DescribeBoard(old);
  for (size_t i = 0; i < old.desc.gpus.size(); ++i) {
    const kfdsim::GpuDesc& a = original.desc.gpus[i];
    const kfdsim::GpuDesc& g = old.desc.gpus[i];
    CAPTURE(g.node_id);
    CHECK(g.node_id == a.node_id);
    CHECK(g.device_id == a.device_id);
    CHECK(g.gfx_target_version == a.gfx_target_version);
    CHECK(g.is_apu == a.is_apu);
    CHECK(g.num_sdma_engines > 0);
    CHECK(g.num_sdma_queues_per_engine > 0);
    const std::string origin = "nodes/" + std::to_string(g.node_id) + ": ";
    const std::string derived = origin + "gfx_target_version missing; served " +
                                std::to_string(g.gfx_target_version) + " (device_id " +
                                Hex(g.device_id) + " is ";
    CHECK(Reported(old, derived));
    CHECK(report.find(derived) != std::string::npos);  // what hsakmt-info --check prints
    CHECK(Reported(old, origin + "num_sdma_engines missing"));
    auto kv = simtest::KeyValues(simtest::Served(
        old, std::string(kTopo) + "/nodes/" + std::to_string(g.node_id) + "/properties"));
    CHECK(kv["gfx_target_version"] == std::to_string(a.gfx_target_version));
    CHECK(kv.count("num_sdma_engines") == 0);
    CHECK(kv.count("p2p_links_count") == 0);
  }
}

}  // namespace

TEST_CASE("every fixture, stripped to a 2018 kernel's keys, loads with the same GPUs and versions") {
  for (const char* f : kFixtures) {
    CAPTURE(f);
    const kfdsim::Board original = MustLoad(simtest::FixtureDir(f));
    hketest::OldKernelTree old;
    old.CopyFixture(simtest::FixtureDir(f));
    const kfdsim::Board stripped = MustLoad(old.path());
    CheckSameGpus(original, stripped);
    CHECK(simtest::CountEntries(stripped, std::string(kTopo) + "/nodes/0/p2p_links") == 0);
  }
}

TEST_CASE("every built-in board, stripped to a 2018 kernel's keys, loads with the same versions") {
  for (const std::string& name : kfdsim::BuiltinBoardNames()) {
    CAPTURE(name);
    kfdsim::Board original;
    std::string error;
    REQUIRE(kfdsim::LoadBuiltinBoard(name, kfdsim::LoadOptions{}, &original, &error) == 0);
    hketest::OldKernelTree old;
    old.CopyBoard(name.c_str());
    CheckSameGpus(original, MustLoad(old.path()));
  }
}

TEST_CASE("a 2018-kernel GPU node of every device-table family loads with the family's version") {
  REQUIRE(hke::topology::DeviceFamilyCount() > 30);
  for (size_t i = 0; i < hke::topology::DeviceFamilyCount(); ++i) {
    const hke::topology::DeviceFamily& fam = hke::topology::DeviceFamilyAt(i);
    CAPTURE(fam.gfx.amd_name);
    hketest::OldKernelTree t;
    t.WriteFamilyNode(fam);
    const kfdsim::Board b = MustLoad(t.path());
    REQUIRE(b.desc.gpus.size() == 1);
    const kfdsim::GpuDesc& g = b.desc.gpus[0];
    CHECK(g.device_id == fam.ids[0]);
    CHECK(g.gfx_target_version == hke::topology::GfxTargetVersionOf(fam.gfx));
    CHECK(g.is_apu == fam.integrated);
    // The capture has no VRAM bank: the family default serves one, named.
    CHECK(g.vram_bytes > 0);
    CHECK(Reported(b, "nodes/1: mem_banks missing; served a "));
    CHECK(Reported(b, "nodes/1: gfx_target_version missing; served " +
                          std::to_string(g.gfx_target_version) + " (device_id " +
                          Hex(fam.ids[0]) + " is " + fam.gfx.amd_name + " in the device table)"));
    CHECK(simtest::Served(b, std::string(kTopo) + "/nodes/1/name").empty());  // as captured
  }
}

TEST_CASE("an old-kernel GPU node with a device id the table does not know is refused, named") {
  hketest::OldKernelTree t;
  hke::topology::DeviceFamily unknown = hke::topology::DeviceFamilyAt(0);
  const uint16_t ids[] = {0x0bad};
  unknown.ids = ids;
  unknown.count = 1;
  REQUIRE(hke::topology::FindDeviceFamily(0x0bad) == nullptr);
  t.WriteFamilyNode(unknown);
  kfdsim::Board b;
  std::string error;
  CHECK(kfdsim::LoadTreeBoard(t.path(), kfdsim::LoadOptions{}, &b, &error) == EINVAL);
  CHECK(error.find("nodes/1/properties") != std::string::npos);
  CHECK(error.find("0xbad") != std::string::npos);
  CHECK(b.files == nullptr);
}

TEST_CASE("family defaults: a partition gets its share of the device's VRAM, captures win") {
  // MI300X (8 XCCs) in CPX mode: one XCC per node, no mem_banks captured.
  const kfdsim::Board mi300 = MustLoad(simtest::FixtureDir("mi300x-8gpu-cpx"));
  CHECK(mi300.desc.gpus[0].vram_bytes == 24ull << 30);
  CHECK(Reported(mi300, "family default"));
  // The mixed tree's captured banks are served as captured.
  const kfdsim::Board mixed = MustLoad(simtest::FixtureDir("mixed-gfx906-gfx1102-gfx1032"));
  CHECK(mixed.desc.gpus[0].vram_bytes == 17163091968ull);
  CHECK(mixed.desc.gpus[0].num_sdma_engines == 2);  // captured key
}
