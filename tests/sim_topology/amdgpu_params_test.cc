// /sys/module/amdgpu/parameters: every board serves the parameters consumers
// read with the module's defaults (what a default install shows whatever the
// GPU: noretry -1 = the GPU's default), the per-GPU value noretry resolves
// to follows amdgpu's per-ASIC rule, and a board booted with other values
// serves them and shows them on /proc/cmdline.
#include <doctest/doctest.h>

#include <string>

#include "platform/sim/board.h"
#include "platform/sim/topology/report.h"
#include "tests/sim_topology/sim_topology_support.h"

namespace {

constexpr const char* kParams = "/sys/module/amdgpu/parameters/";

kfdsim::Board LoadBoard(const char* name, const std::string& params = "") {
  kfdsim::LoadOptions o;
  o.amdgpu_params = params;
  kfdsim::Board b;
  std::string error;
  INFO(error);
  REQUIRE(kfdsim::LoadBuiltinBoard(name, o, &b, &error) == 0);
  return b;
}

}  // namespace

TEST_CASE("every board serves emu_mode, noretry, sched_policy, mes and cwsr_enable at the module defaults") {
  const char* const trees[] = {"mi210-8gpu-xgmi", "mixed-gfx906-gfx1102-gfx1032"};
  std::vector<kfdsim::Board> boards;
  for (const std::string& name : kfdsim::BuiltinBoardNames()) boards.push_back(LoadBoard(name.c_str()));
  for (const char* t : trees) {
    kfdsim::Board b;
    std::string error;
    REQUIRE(kfdsim::LoadTreeBoard(simtest::FixtureDir(t), kfdsim::LoadOptions{}, &b, &error) == 0);
    boards.push_back(std::move(b));
  }
  for (const kfdsim::Board& b : boards) {
    CAPTURE(b.desc.name);
    CHECK(simtest::Served(b, std::string(kParams) + "emu_mode") == "0\n");
    CHECK(simtest::Served(b, std::string(kParams) + "noretry") == "-1\n");
    CHECK(simtest::Served(b, std::string(kParams) + "sched_policy") == "0\n");
    CHECK(simtest::Served(b, std::string(kParams) + "mes") == "0\n");
    CHECK(simtest::Served(b, std::string(kParams) + "cwsr_enable") == "1\n");
    CHECK(simtest::CountEntries(b, "/sys/module/amdgpu/parameters") == 5);
    CHECK(simtest::Served(b, "/proc/cmdline").find("amdgpu.") == std::string::npos);
  }
}

TEST_CASE("noretry -1 resolves per GPU as amdgpu does: retry faults on for Renoir, off for gfx90a, gfx906, gfx11") {
  const kfdsim::Board apu = LoadBoard("apu-embedded");  // gfx90c, GC 9.3.0
  REQUIRE(apu.desc.gpus.size() == 1);
  CHECK(!apu.desc.gpus[0].noretry);
  const kfdsim::Board dc = LoadBoard("datacenter-4gpu");  // gfx90a, GC 9.4.2
  for (const kfdsim::GpuDesc& g : dc.desc.gpus) CHECK(g.noretry);
  kfdsim::Board mixed;
  std::string error;
  REQUIRE(kfdsim::LoadTreeBoard(simtest::FixtureDir("mixed-gfx906-gfx1102-gfx1032"),
                                kfdsim::LoadOptions{}, &mixed, &error) == 0);
  for (const kfdsim::GpuDesc& g : mixed.desc.gpus) CHECK(g.noretry);  // 9.4.0, 11.0.2, 10.3.2
  // The check report says what each GPU ended with.
  const std::string report = kfdsim::DescribeBoard(apu);
  CHECK(report.find("amdgpu parameters: emu_mode 0, noretry -1, sched_policy 0, mes 0, "
                    "cwsr_enable 1") != std::string::npos);
  CHECK(report.find("node 1: retry faults on (noretry -1: the gfx90c default)") !=
        std::string::npos);
}

TEST_CASE("a board booted with amdgpu parameters serves them, lists them on /proc/cmdline and applies noretry") {
  const kfdsim::Board b = LoadBoard("datacenter-4gpu", "noretry=0,sched_policy=2,emu_mode=1");
  CHECK(simtest::Served(b, std::string(kParams) + "noretry") == "0\n");
  CHECK(simtest::Served(b, std::string(kParams) + "sched_policy") == "2\n");
  CHECK(simtest::Served(b, std::string(kParams) + "emu_mode") == "1\n");
  CHECK(simtest::Served(b, std::string(kParams) + "mes") == "0\n");
  const std::string cmdline = simtest::Served(b, "/proc/cmdline");
  CHECK(cmdline.find(" amdgpu.noretry=0") != std::string::npos);
  CHECK(cmdline.find(" amdgpu.sched_policy=2") != std::string::npos);
  CHECK(cmdline.find("amdgpu.mes") == std::string::npos);
  for (const kfdsim::GpuDesc& g : b.desc.gpus) CHECK(!g.noretry);
  CHECK(b.desc.amdgpu_params.sched_policy == 2);
  const kfdsim::Board apu = LoadBoard("apu-embedded", "noretry=1");
  CHECK(apu.desc.gpus[0].noretry);
}

TEST_CASE("unknown amdgpu parameters and values that are not ints fail the load, named") {
  for (const char* bad : {"noretry", "nosuch=1", "noretry=x", "noretry=1e3", "mes=99999999999"}) {
    CAPTURE(bad);
    kfdsim::LoadOptions o;
    o.amdgpu_params = bad;
    kfdsim::Board b;
    std::string error;
    CHECK(kfdsim::LoadBuiltinBoard("apu-embedded", o, &b, &error) == EINVAL);
    CHECK(error.find("amdgpu parameters") != std::string::npos);
    CHECK(b.files == nullptr);
  }
}
