// hsaKmtGetClockCounters, hsaKmtGetTileConfig, hsaKmtSetTrapHandler and
// hsaKmtSetMemoryPolicy on the in-process simulator: the ioctl each sends,
// upstream's CPU-node rules, and refusals that leave outputs untouched with
// a diagnostic.
#include <cerrno>
#include <cstring>

#include "doctest/doctest.h"
#include "lib/kfd/abi.h"
#include "tests/misc_api/support.h"

using hketest::SimBoard;
using misctest::Count;
using misctest::GpuId;
using misctest::Join;
using misctest::Poisoned;
namespace k = hke::kfd;

// ---------------------------------------------------------------- clocks

TEST_CASE(
    "GetClockCounters samples a GPU node four times with its gpu_id and returns one whole sample") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  b.ClearTrace();
  HsaClockCounters c{};
  REQUIRE(hsaKmtGetClockCounters(node, &c) == HSAKMT_STATUS_SUCCESS);
  const auto ioctls = b.Ioctls();
  INFO(Join(ioctls));
  CHECK(ioctls.size() == 4);
  CHECK(Count(ioctls, "GET_CLOCK_COUNTERS") == 4);
  for (const auto& a : b.Args("GET_CLOCK_COUNTERS")) {
    CHECK(SimBoard::As<k::GetClockCountersArgs>(a).gpu_id == GpuId(node));
  }
  CHECK(c.SystemClockFrequencyHz == 1000000000ull);
  CHECK(c.GPUClockCounter != 0);
  // The simulator's GPU counter is MONOTONIC_RAW / 10: a whole sample keeps
  // the GPU and CPU readings of the same call together.
  CHECK(c.GPUClockCounter == c.CPUClockCounter / 10);
  CHECK(c.SystemClockCounter != 0);
}

TEST_CASE("GetClockCounters on a CPU node sends gpu_id 0 once and reports no GPU counter") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t cpu = misctest::FirstCpuNode();
  b.ClearTrace();
  HsaClockCounters c{};
  REQUIRE(hsaKmtGetClockCounters(cpu, &c) == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("GET_CLOCK_COUNTERS");
  REQUIRE(args.size() == 1);
  CHECK(SimBoard::As<k::GetClockCountersArgs>(args[0]).gpu_id == 0);
  CHECK(c.GPUClockCounter == 0);
  CHECK(c.CPUClockCounter != 0);
  CHECK(c.SystemClockFrequencyHz == 1000000000ull);
}

TEST_CASE(
    "GetClockCounters refuses a node outside the topology with INVALID_NODE_UNIT, no ioctl, "
    "untouched counters and a diagnostic") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t n = misctest::NumNodes();
  b.ClearTrace();
  Poisoned<HsaClockCounters> c;
  CHECK(hsaKmtGetClockCounters(n, &c.v) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(c.untouched());
  CHECK(b.Ioctls().empty());
  CHECK(b.LastDiag().find("not in the topology") != std::string::npos);
}

TEST_CASE(
    "GetClockCounters: NULL is INVALID_PARAMETER, a closed device KERNEL_IO_CHANNEL_NOT_OPENED") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Poisoned<HsaClockCounters> c;
  CHECK(hsaKmtGetClockCounters(0, &c.v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(c.untouched());
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtGetClockCounters(0, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_CASE(
    "a GET_CLOCK_COUNTERS refusal is ERROR, names the errno and leaves the counters untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  kfdsim_add_fault(b.sim(), k::kIocGetClockCounters & 0xFFFF, EIO, 2, 1);
  Poisoned<HsaClockCounters> c;
  CHECK(hsaKmtGetClockCounters(node, &c.v) == HSAKMT_STATUS_ERROR);
  CHECK(c.untouched());
  CHECK(b.LastDiag().find("GET_CLOCK_COUNTERS failed") != std::string::npos);
  CHECK(b.LastDiag().find("EIO") != std::string::npos);
}

TEST_CASE("a GET_CLOCK_COUNTERS reply without a frequency is refused as a protocol error") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  struct Tamper {
    static int Fn(void*, uint32_t request, void* reply, size_t size, int result) {
      if (request == k::kIocGetClockCounters && size == sizeof(k::GetClockCountersArgs)) {
        static_cast<k::GetClockCountersArgs*>(reply)->system_clock_freq = 0;
      }
      return result;
    }
  };
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, nullptr);
  Poisoned<HsaClockCounters> c;
  CHECK(hsaKmtGetClockCounters(node, &c.v) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  CHECK(c.untouched());
  CHECK(b.LastDiag().find("no frequency") != std::string::npos);
}

// ----------------------------------------------------------- tile config

TEST_CASE(
    "GetTileConfig passes the caller's arrays and capacities and writes back the kernel's counts "
    "without touching words beyond them") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  // The simulator reports 32 tile and 16 macro-tile words; offer 40 and 8.
  HSAuint32 tile[41];
  HSAuint32 macro[9];
  std::memset(tile, 0xA5, sizeof(tile));
  std::memset(macro, 0xA5, sizeof(macro));
  HsaGpuTileConfig cfg{};
  cfg.TileConfig = tile;
  cfg.NumTileConfigs = 40;
  cfg.MacroTileConfig = macro;
  cfg.NumMacroTileConfigs = 8;
  b.ClearTrace();
  REQUIRE(hsaKmtGetTileConfig(node, &cfg) == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("GET_TILE_CONFIG");
  REQUIRE(args.size() == 1);
  const auto asked = SimBoard::As<k::GetTileConfigArgs>(args[0]);
  CHECK(asked.tile_config_ptr == reinterpret_cast<uintptr_t>(tile));
  CHECK(asked.macro_tile_config_ptr == reinterpret_cast<uintptr_t>(macro));
  CHECK(asked.num_tile_configs == 40);
  CHECK(asked.num_macro_tile_configs == 8);
  CHECK(asked.gpu_id == GpuId(node));
  CHECK(cfg.NumTileConfigs == 32);
  CHECK(cfg.NumMacroTileConfigs == 8);
  CHECK(cfg.TileConfig == tile);
  CHECK(cfg.GbAddrConfig != 0);
  CHECK(tile[0] == 0);
  CHECK(tile[31] == 0);
  CHECK(tile[32] == 0xA5A5A5A5u);  // beyond what the kernel filled
  CHECK(tile[40] == 0xA5A5A5A5u);  // beyond the capacity
  CHECK(macro[7] == 0);
  CHECK(macro[8] == 0xA5A5A5A5u);
}

TEST_CASE("GetTileConfig with zero capacities asks for the scalar fields only") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  HsaGpuTileConfig cfg{};
  REQUIRE(hsaKmtGetTileConfig(node, &cfg) == HSAKMT_STATUS_SUCCESS);
  CHECK(cfg.NumTileConfigs == 0);
  CHECK(cfg.NumMacroTileConfigs == 0);
  CHECK(cfg.GbAddrConfig != 0);
}

TEST_CASE(
    "GetTileConfig refuses NULL arrays with a count, counts above 4096, CPU nodes and unknown "
    "nodes before any ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  const uint32_t cpu = misctest::FirstCpuNode();
  HSAuint32 words[4] = {};
  b.ClearTrace();
  HsaGpuTileConfig cfg{};
  cfg.NumTileConfigs = 4;  // TileConfig NULL
  HsaGpuTileConfig before = cfg;
  CHECK(hsaKmtGetTileConfig(node, &cfg) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(std::memcmp(&cfg, &before, sizeof(cfg)) == 0);
  CHECK(b.LastDiag().find("NULL array") != std::string::npos);
  cfg = HsaGpuTileConfig{};
  cfg.TileConfig = words;
  cfg.NumTileConfigs = 4097;
  before = cfg;
  CHECK(hsaKmtGetTileConfig(node, &cfg) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(std::memcmp(&cfg, &before, sizeof(cfg)) == 0);
  cfg.NumTileConfigs = 4;
  before = cfg;
  CHECK(hsaKmtGetTileConfig(cpu, &cfg) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(std::memcmp(&cfg, &before, sizeof(cfg)) == 0);
  CHECK(b.LastDiag().find("CPU node") != std::string::npos);
  CHECK(hsaKmtGetTileConfig(misctest::NumNodes(), &cfg) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtGetTileConfig(node, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(Count(b.Ioctls(), "GET_TILE_CONFIG") == 0);
}

TEST_CASE(
    "a GET_TILE_CONFIG refusal is ERROR and the caller's struct and arrays stay as they were") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  HSAuint32 tile[8];
  std::memset(tile, 0xA5, sizeof(tile));
  HsaGpuTileConfig cfg{};
  cfg.TileConfig = tile;
  cfg.NumTileConfigs = 8;
  const HsaGpuTileConfig before = cfg;
  kfdsim_add_fault(b.sim(), k::kIocGetTileConfig & 0xFFFF, EFAULT, 1, 1);
  CHECK(hsaKmtGetTileConfig(node, &cfg) == HSAKMT_STATUS_ERROR);
  CHECK(std::memcmp(&cfg, &before, sizeof(cfg)) == 0);
  for (HSAuint32 w : tile) CHECK(w == 0xA5A5A5A5u);  // not zeroed first (upstream does)
  CHECK(b.LastDiag().find("GET_TILE_CONFIG failed") != std::string::npos);
}

TEST_CASE(
    "a GET_TILE_CONFIG reply claiming more words than the arrays hold is refused and the counts "
    "stay") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  struct Tamper {
    static int Fn(void*, uint32_t request, void* reply, size_t size, int result) {
      if (request == k::kIocGetTileConfig && size == sizeof(k::GetTileConfigArgs)) {
        static_cast<k::GetTileConfigArgs*>(reply)->num_tile_configs = 1000;
      }
      return result;
    }
  };
  HSAuint32 tile[8] = {};
  HsaGpuTileConfig cfg{};
  cfg.TileConfig = tile;
  cfg.NumTileConfigs = 8;
  const HsaGpuTileConfig before = cfg;
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, nullptr);
  CHECK(hsaKmtGetTileConfig(node, &cfg) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  CHECK(std::memcmp(&cfg, &before, sizeof(cfg)) == 0);
  CHECK(b.LastDiag().find("more entries") != std::string::npos);
}

// ----------------------------------------------------------- trap handler

TEST_CASE(
    "SetTrapHandler sends the handler and buffer addresses with the node's gpu_id; the sizes are "
    "not part of the ABI") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  b.ClearTrace();
  void* tba = reinterpret_cast<void*>(uintptr_t{0x10000});
  void* tma = reinterpret_cast<void*>(uintptr_t{0x20000});
  REQUIRE(hsaKmtSetTrapHandler(node, tba, 4096, tma, 8192) == HSAKMT_STATUS_SUCCESS);
  const auto args = b.Args("SET_TRAP_HANDLER");
  REQUIRE(args.size() == 1);
  const auto trap = SimBoard::As<k::SetTrapHandlerArgs>(args[0]);
  CHECK(trap.tba_addr == 0x10000);
  CHECK(trap.tma_addr == 0x20000);
  CHECK(trap.gpu_id == GpuId(node));
}

TEST_CASE(
    "SetTrapHandler refuses CPU and unknown nodes without an ioctl; a kernel refusal is ERROR") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  const uint32_t cpu = misctest::FirstCpuNode();
  b.ClearTrace();
  CHECK(hsaKmtSetTrapHandler(cpu, nullptr, 0, nullptr, 0) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtSetTrapHandler(misctest::NumNodes(), nullptr, 0, nullptr, 0) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(b.Ioctls().empty());
  kfdsim_add_fault(b.sim(), k::kIocSetTrapHandler & 0xFFFF, ESRCH, 1, 1);
  CHECK(hsaKmtSetTrapHandler(node, nullptr, 0, nullptr, 0) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("SET_TRAP_HANDLER failed") != std::string::npos);
}

// ---------------------------------------------------------- memory policy

TEST_CASE(
    "SetMemoryPolicy is NOT_IMPLEMENTED on a GPU that is not a Kaveri and on CPU nodes, as "
    "upstream, without an ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  const uint32_t cpu = misctest::FirstCpuNode();
  b.ClearTrace();
  CHECK(hsaKmtSetMemoryPolicy(node, HSA_CACHING_CACHED, HSA_CACHING_NONCACHED, nullptr, 0) ==
        HSAKMT_STATUS_NOT_IMPLEMENTED);
  CHECK(b.LastDiag().find("Kaveri") != std::string::npos);
  CHECK(hsaKmtSetMemoryPolicy(cpu, HSA_CACHING_CACHED, HSA_CACHING_CACHED, nullptr, 0) ==
        HSAKMT_STATUS_NOT_IMPLEMENTED);
  CHECK(hsaKmtSetMemoryPolicy(misctest::NumNodes(), 0, 0, nullptr, 0) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(Count(b.Ioctls(), "SET_MEMORY_POLICY") == 0);
}

TEST_CASE(
    "SetMemoryPolicy on a Kaveri node maps CACHED/NONCACHED to the kernel's COHERENT/NONCOHERENT "
    "and sends the alternate aperture") {
  misctest::KaveriTree tree;
  SimBoard b(tree.path(), nullptr);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::KaveriTree::kKaveriNode;
  HsaSystemProperties sys{};
  const HSAKMT_STATUS acquired = hsaKmtAcquireSystemProperties(&sys);
  INFO(misctest::Join(b.Diags()));
  REQUIRE(acquired == HSAKMT_STATUS_SUCCESS);
  HsaNodeProperties p{};
  REQUIRE(hsaKmtGetNodeProperties(node, &p) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(static_cast<uint32_t>(p.EngineId.ui32.Major) == 7u);
  b.ClearTrace();
  void* alt = reinterpret_cast<void*>(uintptr_t{0x40000000});
  REQUIRE(hsaKmtSetMemoryPolicy(node, HSA_CACHING_NONCACHED, HSA_CACHING_CACHED, alt, 0x200000) ==
          HSAKMT_STATUS_SUCCESS);
  // The call's own SET_MEMORY_POLICY is the one naming this alternate
  // aperture. (Under ASan the shadow memory covers the 40-bit SVM range
  // this board reserves, so the GPU VM cannot come up and every call
  // retries the bring-up, which sends SET_MEMORY_POLICY per GPU too.)
  std::vector<std::vector<uint8_t>> args;
  for (const auto& a : b.Args("SET_MEMORY_POLICY")) {
    if (SimBoard::As<k::SetMemoryPolicyArgs>(a).alternate_aperture_base == 0x40000000) {
      args.push_back(a);
    }
  }
  REQUIRE(args.size() == 1);
  const auto policy = SimBoard::As<k::SetMemoryPolicyArgs>(args[0]);
  CHECK(policy.alternate_aperture_base == 0x40000000);
  CHECK(policy.alternate_aperture_size == 0x200000);
  CHECK(policy.gpu_id == p.KFDGpuID);
  CHECK(policy.default_policy == k::kCachePolicyNonCoherent);
  CHECK(policy.alternate_policy == k::kCachePolicyCoherent);
}

TEST_CASE(
    "SetMemoryPolicy on a Kaveri node refuses unknown policies and unaligned apertures before the "
    "ioctl") {
  misctest::KaveriTree tree;
  SimBoard b(tree.path(), nullptr);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::KaveriTree::kKaveriNode;
  (void)misctest::NumNodes();
  b.ClearTrace();
  void* alt = reinterpret_cast<void*>(uintptr_t{0x40000000});
  CHECK(hsaKmtSetMemoryPolicy(node, 2, HSA_CACHING_CACHED, alt, 4096) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("CACHED or NONCACHED") != std::string::npos);
  CHECK(hsaKmtSetMemoryPolicy(node, HSA_CACHING_CACHED, 7, alt, 4096) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSetMemoryPolicy(node, HSA_CACHING_CACHED, HSA_CACHING_CACHED,
                              reinterpret_cast<void*>(uintptr_t{0x40000010}),
                              4096) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSetMemoryPolicy(node, HSA_CACHING_CACHED, HSA_CACHING_CACHED, alt, 100) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(Count(b.Ioctls(), "SET_MEMORY_POLICY") == 0);
  kfdsim_add_fault(b.sim(), k::kIocSetMemoryPolicy & 0xFFFF, EINVAL, 1, 1);
  CHECK(hsaKmtSetMemoryPolicy(node, HSA_CACHING_CACHED, HSA_CACHING_CACHED, alt, 4096) ==
        HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("SET_MEMORY_POLICY failed") != std::string::npos);
}

// ------------------------------------------------------ amdgpu parameters

namespace {

std::string ReadThroughPlatform(SimBoard& b, const char* path) {
  const hke_platform p = hke_sim_platform(b.sim());
  char buf[512];
  size_t n = 0;
  REQUIRE(p.ops->read_file(p.self, path, buf, sizeof(buf), &n) == 0);
  return std::string(buf, n);
}

HSAint32 XnackMode() {
  HSAint32 mode = -5;
  REQUIRE(hsaKmtGetXNACKMode(&mode) == HSAKMT_STATUS_SUCCESS);
  return mode;
}

}  // namespace

TEST_CASE(
    "the simulated machine's amdgpu parameters are read through the platform, and noretry decides "
    "the XNACK mode GetXNACKMode reports") {
  {
    SimBoard b(nullptr, "datacenter-4gpu");  // gfx90a: retry faults off by default
    CHECK(ReadThroughPlatform(b, "/sys/module/amdgpu/parameters/noretry") == "-1\n");
    CHECK(ReadThroughPlatform(b, "/sys/module/amdgpu/parameters/emu_mode") == "0\n");
    CHECK(ReadThroughPlatform(b, "/sys/module/amdgpu/parameters/sched_policy") == "0\n");
    CHECK(ReadThroughPlatform(b, "/sys/module/amdgpu/parameters/mes") == "0\n");
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    CHECK(XnackMode() == 0);
  }
  {
    SimBoard b(nullptr, "datacenter-4gpu", 0, 0, "noretry=0");
    CHECK(ReadThroughPlatform(b, "/sys/module/amdgpu/parameters/noretry") == "0\n");
    CHECK(ReadThroughPlatform(b, "/proc/cmdline").find("amdgpu.noretry=0") != std::string::npos);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    CHECK(XnackMode() == 1);
  }
  {
    SimBoard b(nullptr, "apu-embedded");  // gfx90c (GC 9.3.0): retry faults on by default
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    CHECK(XnackMode() == 1);
  }
}
