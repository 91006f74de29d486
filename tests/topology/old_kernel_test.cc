// The library's topology over captures from kernels before
// gfx_target_version (the shape of a 2018 kernel's sysfs): every fixture and
// built-in board, stripped at test time, gives the same GFX target per node
// as the full capture, and a GPU of every device-table family gets its
// family's version (and, for the rows upstream's thunk has, its name).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "lib/topology/device_table.h"
#include "tests/support/old_kernel_tree.h"
#include "tests/support/sim_board.h"

namespace {

struct NodeGfx {
  uint32_t node;
  uint32_t major, minor, stepping;
  std::string amd_name;
};

std::string Ascii(const HSAuint8* s, size_t cap) {
  std::string out;
  for (size_t i = 0; i < cap && s[i] != 0; ++i) out.push_back(static_cast<char>(s[i]));
  return out;
}

// GFX target and AMDName of every GPU node of the board behind the default context.
std::vector<NodeGfx> GpuTargets() {
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  std::vector<NodeGfx> out;
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.NumFComputeCores == 0) continue;
    out.push_back({n, p.EngineId.ui32.Major, p.EngineId.ui32.Minor, p.EngineId.ui32.Stepping,
                   Ascii(p.AMDName, sizeof(p.AMDName))});
  }
  REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  return out;
}

void CheckSameTargets(const std::vector<NodeGfx>& full, const std::vector<NodeGfx>& old) {
  REQUIRE(old.size() == full.size());
  REQUIRE(!full.empty());
  for (size_t i = 0; i < full.size(); ++i) {
    CAPTURE(full[i].node);
    CHECK(old[i].node == full[i].node);
    CHECK(old[i].major == full[i].major);
    CHECK(old[i].minor == full[i].minor);
    CHECK(old[i].stepping == full[i].stepping);
    CHECK(old[i].amd_name == full[i].amd_name);
  }
}

}  // namespace

TEST_CASE("old-kernel copies of every fixture give the library the same GFX target per GPU node") {
  for (const char* f : {"mi210-8gpu-xgmi", "mi300x-8gpu-cpx", "mi308x-8gpu-cpx",
                        "mixed-gfx906-gfx1102-gfx1032"}) {
    CAPTURE(f);
    std::vector<NodeGfx> full;
    {
      hketest::SimBoard b(f, nullptr);
      full = GpuTargets();
    }
    hketest::OldKernelTree old;
    old.CopyFixture(std::string(HKE_SHARED_DIR) + "/fixtures/topology/" + f);
    hketest::SimBoard b(old.path().c_str(), nullptr);
    CheckSameTargets(full, GpuTargets());
  }
}

TEST_CASE("old-kernel copies of every built-in board give the library the same GFX targets") {
  for (const char* board : {"apu-embedded", "datacenter-4gpu"}) {
    CAPTURE(board);
    std::vector<NodeGfx> full;
    {
      hketest::SimBoard b(nullptr, board);
      full = GpuTargets();
    }
    hketest::OldKernelTree old;
    old.CopyBoard(board);
    hketest::SimBoard b(old.path().c_str(), nullptr);
    CheckSameTargets(full, GpuTargets());
  }
}

TEST_CASE("an old-kernel GPU of every device-table family has that family's target in the library") {
  for (size_t i = 0; i < hke::topology::DeviceFamilyCount(); ++i) {
    const hke::topology::DeviceFamily& fam = hke::topology::DeviceFamilyAt(i);
    CAPTURE(fam.gfx.amd_name);
    hketest::OldKernelTree t;
    t.WriteFamilyNode(fam);
    hketest::SimBoard b(t.path().c_str(), nullptr);
    const std::vector<NodeGfx> gpus = GpuTargets();
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].major == fam.gfx.major);
    CHECK(gpus[0].minor == fam.gfx.minor);
    CHECK(gpus[0].stepping == fam.gfx.stepping);
    // Upstream's rows name the node; the others get upstream's GFX<version> name.
    char gfx_name[16];
    std::snprintf(gfx_name, sizeof(gfx_name), "GFX%02x%02x%02x", fam.gfx.major, fam.gfx.minor,
                  fam.gfx.stepping);
    CHECK(gpus[0].amd_name == (fam.thunk_lookup ? std::string(fam.gfx.amd_name) : gfx_name));
  }
}
