// Hostile replies to the open handshake (GET_VERSION), to the aperture
// query of hsaKmtAcquireSystemProperties (GET_PROCESS_APERTURES_NEW) and to
// the render node's AMDGPU_INFO(DEV_INFO).
#include <cstdint>
#include <functional>
#include <vector>

#include "tests/hostile/support.h"

using hostile::Case;
using hostile::Env;
using hostile::Fill;
using hostile::Hit;
using hostile::Outcome;
using hostile::Untouched;
namespace k = hke::kfd;
namespace drm = hke::kfd::drm;

namespace {

constexpr HSAKMT_STATUS kKce = HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR;
constexpr const char* kDgpu = "datacenter-4gpu";
// datacenter-4gpu has 6 sysfs nodes (2 CPUs, 4 GPUs): the library sends an
// aperture buffer of 6 entries.
constexpr uint32_t kApertureCapacity = 6;

// ---- GET_VERSION ----

int Version(Hit& h, uint32_t major, uint32_t minor) {
  auto* v = h.As<k::GetVersionArgs>();
  if (h.result != 0 || v == nullptr) return h.result;
  v->major_version = major;
  v->minor_version = minor;
  h.applied = true;
  return 0;
}

Outcome OpenCall(Env&) { return Outcome{hsaKmtOpenKFD(), true}; }

void OpenWorks(Env&) {
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaVersionInfo v;
  REQUIRE(hsaKmtGetVersion(&v) == HSAKMT_STATUS_SUCCESS);
  CHECK(v.KernelInterfaceMajorVersion == 1);
  CHECK(v.KernelInterfaceMinorVersion == 17);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
}

// ---- GET_PROCESS_APERTURES_NEW ----

using ApertureEdit = std::function<void(k::GetProcessAperturesNewArgs&, k::ProcessDeviceApertures*)>;

// Applies `edit` to a successful reply: the head (the copy the caller gets
// back) and the entries the kernel wrote into the caller's array.
std::function<int(Hit&, Env&)> Apertures(ApertureEdit edit) {
  return [edit](Hit& h, Env&) {
    auto* a = h.As<k::GetProcessAperturesNewArgs>();
    if (h.result != 0 || a == nullptr || a->kfd_process_device_apertures_ptr == 0) return h.result;
    edit(*a, reinterpret_cast<k::ProcessDeviceApertures*>(
                 static_cast<uintptr_t>(a->kfd_process_device_apertures_ptr)));
    h.applied = true;
    return 0;
  };
}

Outcome AcquireCall(Env& e) {
  HsaSystemProperties s;
  Fill(&s);
  const HSAKMT_STATUS st = hsaKmtAcquireSystemProperties(&s);
  if (st == HSAKMT_STATUS_SUCCESS) e.sys = s;
  return Outcome{st, st == HSAKMT_STATUS_SUCCESS || Untouched(s)};
}

void AcquireWorks(Env& e) {
  REQUIRE(hsaKmtAcquireSystemProperties(&e.sys) == HSAKMT_STATUS_SUCCESS);
  hostile::CollectGpus(e);
  CHECK(e.gpu_nodes.size() == 4);
  hostile::MemoryWorks(e);
}

Case ApertureCase(const char* name, ApertureEdit edit) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocGetProcessAperturesNew;
  c.corrupt = Apertures(std::move(edit));
  c.setup = hostile::Open;
  c.trigger = AcquireCall;
  c.expect = kKce;
  c.diag = "GET_PROCESS_APERTURES_NEW reply is malformed";
  c.after = AcquireWorks;
  return c;
}

// ---- AMDGPU_INFO ----

int DevInfo(Hit& h, Env&) {
  auto* info = h.As<drm::AmdgpuInfo>();
  if (h.result != 0 || info == nullptr || info->query != drm::kAmdgpuInfoDevInfo) return h.result;
  auto* dev = reinterpret_cast<drm::AmdgpuInfoDevice*>(static_cast<uintptr_t>(info->return_pointer));
  dev->device_id = 0xFFFF;  // not the device the sysfs node describes
  dev->family = 0xDEAD;
  dev->ids_flags = ~0ull;
  h.applied = true;
  return 0;
}

}  // namespace

TEST_CASE("hostile GET_VERSION replies: a foreign major is refused, a large minor is a newer kernel") {
  std::vector<Case> cases;
  {
    Case c{};
    c.name = "GET_VERSION major 2";
    c.board = "apu-embedded";
    c.request = k::kIocGetVersion;
    c.corrupt = [](Hit& h, Env&) { return Version(h, 2, 17); };
    c.trigger = OpenCall;
    c.expect = HSAKMT_STATUS_DRIVER_MISMATCH;
    c.diag = "is not major version 1";
    c.verify = [](Env&) {
      HsaVersionInfo v;
      CHECK(hsaKmtGetVersion(&v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    };
    c.after = OpenWorks;
    cases.push_back(c);
  }
  {
    Case c{};
    c.name = "GET_VERSION major 0xffffffff";
    c.board = "apu-embedded";
    c.request = k::kIocGetVersion;
    c.corrupt = [](Hit& h, Env&) { return Version(h, 0xFFFFFFFFu, 0xFFFFFFFFu); };
    c.trigger = OpenCall;
    c.expect = HSAKMT_STATUS_DRIVER_MISMATCH;
    c.diag = "is not major version 1";
    c.after = OpenWorks;
    cases.push_back(c);
  }
  {
    // A minor beyond every known one is a newer kernel, not a hostile one:
    // accepted, reported as is, and the features the simulator lacks fail
    // cleanly where they are used.
    Case c{};
    c.name = "GET_VERSION minor 0xffffffff is accepted";
    c.board = "apu-embedded";
    c.request = k::kIocGetVersion;
    c.corrupt = [](Hit& h, Env&) { return Version(h, 1, 0xFFFFFFFFu); };
    c.trigger = OpenCall;
    c.expect = HSAKMT_STATUS_SUCCESS;
    c.verify = [](Env&) {
      HsaVersionInfo v;
      REQUIRE(hsaKmtGetVersion(&v) == HSAKMT_STATUS_SUCCESS);
      CHECK(v.KernelInterfaceMajorVersion == 1);
      CHECK(v.KernelInterfaceMinorVersion == 0xFFFFFFFFu);
    };
    c.after = [](Env& e) {
      REQUIRE(hsaKmtAcquireSystemProperties(&e.sys) == HSAKMT_STATUS_SUCCESS);
      hostile::CollectGpus(e);
      hostile::MemoryWorks(e);
    };
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}

TEST_CASE("hostile GET_PROCESS_APERTURES_NEW replies fail AcquireSystemProperties with KERNEL_COMMUNICATION_ERROR") {
  using A = k::GetProcessAperturesNewArgs;
  using E = k::ProcessDeviceApertures;
  std::vector<Case> cases = {
      ApertureCase("num_of_nodes one above the buffer sent",
                   [](A& a, E*) { a.num_of_nodes = kApertureCapacity + 1; }),
      ApertureCase("num_of_nodes 0xffffffff", [](A& a, E*) { a.num_of_nodes = 0xFFFFFFFFu; }),
      ApertureCase("num_of_nodes 0: no GPU of the topology has apertures",
                   [](A& a, E*) { a.num_of_nodes = 0; }),
      ApertureCase("a topology GPU's gpu_id replaced by one not in the topology",
                   [](A&, E* e) { e[0].gpu_id = 0x7777; }),
      ApertureCase("every gpu_id replaced by ones not in the topology",
                   [](A& a, E* e) {
                     for (uint32_t i = 0; i < a.num_of_nodes; ++i) e[i].gpu_id = 0x7700 + i;
                   }),
      ApertureCase("duplicate gpu_id", [](A&, E* e) { e[1].gpu_id = e[0].gpu_id; }),
      ApertureCase("gpu_id 0", [](A&, E* e) { e[2].gpu_id = 0; }),
      ApertureCase("pointer changed in the reply",
                   [](A& a, E*) { a.kfd_process_device_apertures_ptr += 56; }),
      ApertureCase("LDS base above its limit", [](A&, E* e) { e[0].lds_limit = e[0].lds_base - 1; }),
      ApertureCase("scratch base above its limit",
                   [](A&, E* e) { e[1].scratch_limit = e[1].scratch_base - 1; }),
      ApertureCase("GPUVM base above its limit",
                   [](A&, E* e) { e[0].gpuvm_base = e[0].gpuvm_limit + 1; }),
      ApertureCase("GPUVM limit in the non-canonical hole (2^60 - 1)",
                   [](A&, E* e) { e[0].gpuvm_limit = (1ull << 60) - 1; }),
      ApertureCase("GPUVM limit at 2^64 - 1", [](A&, E* e) { e[3].gpuvm_limit = ~0ull; }),
      ApertureCase("GPUVM in the kernel half",
                   [](A&, E* e) {
                     e[0].gpuvm_base = 0xFFFF800000000000ull;
                     e[0].gpuvm_limit = ~0ull;
                   }),
      ApertureCase("GPUVM limit not ending a page", [](A&, E* e) { e[0].gpuvm_limit -= 1; }),
      ApertureCase("LDS wider than 4 GiB",
                   [](A&, E* e) { e[0].lds_limit = e[0].lds_base + (8ull << 30) - 1; }),
      ApertureCase("LDS base not 4 GiB aligned", [](A&, E* e) { e[0].lds_base += 4096; }),
      ApertureCase("scratch limit wrapping past 2^64",
                   [](A&, E* e) {
                     e[0].scratch_base = 0xFFFFFFFF00000000ull;
                     e[0].scratch_limit = 0xFFFFFFFF00000000ull - 1;
                   }),
      ApertureCase("LDS inside the GPUVM aperture",
                   [](A&, E* e) {
                     e[0].lds_base = 1ull << 32;
                     e[0].lds_limit = (2ull << 32) - 1;
                   }),
      ApertureCase("scratch equal to LDS",
                   [](A&, E* e) {
                     e[0].scratch_base = e[0].lds_base;
                     e[0].scratch_limit = e[0].lds_limit;
                   }),
  };
  {
    // A GPU the KFD lists but the topology hides (e.g. its render node is
    // not accessible) is skipped, as upstream does: not an error.
    Case c = ApertureCase("an extra entry with a gpu_id not in the topology is skipped",
                          [](A& a, E* e) {
                            e[a.num_of_nodes] = e[0];
                            e[a.num_of_nodes].gpu_id = 0x7777;
                            ++a.num_of_nodes;
                          });
    c.expect = HSAKMT_STATUS_SUCCESS;
    c.diag = nullptr;
    c.after = [](Env& e) {
      hostile::CollectGpus(e);
      CHECK(e.gpu_nodes.size() == 4);
      hostile::MemoryWorks(e);
    };
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}

TEST_CASE("a DEV_INFO reply describing another device is not published") {
  Case c{};
  c.name = "AMDGPU_INFO(DEV_INFO) with a foreign device_id and garbage fields";
  c.board = kDgpu;
  c.request = drm::kIocAmdgpuInfo;
  c.corrupt = DevInfo;
  c.setup = hostile::Open;
  c.trigger = AcquireCall;
  // The topology is still usable; the node just lacks what DEV_INFO adds.
  c.expect = HSAKMT_STATUS_SUCCESS;
  c.diag = "AMDGPU_INFO";
  c.verify = [](Env& e) {
    hostile::CollectGpus(e);
    for (uint32_t n : e.gpu_nodes) {
      HsaNodeProperties p;
      REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
      CAPTURE(n);
      CHECK(p.FamilyID != 0xDEADu);
      CHECK(p.Integrated == 0);
    }
  };
  c.after = [](Env& e) {
    REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtAcquireSystemProperties(&e.sys) == HSAKMT_STATUS_SUCCESS);
    hostile::MemoryWorks(e);
  };
  hostile::RunAll({c});
}
