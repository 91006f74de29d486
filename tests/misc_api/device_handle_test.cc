// hsaKmtGetAMDGPUDeviceHandle: the platform's libdrm device of a GPU node's
// render node, taken once per node and released when the render node
// closes; NOT_SUPPORTED where the platform has none (the simulator).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "doctest/doctest.h"
#include "hsakmt/hsakmt_linux.h"
#include "tests/misc_api/support.h"

using hketest::SimBoard;
using misctest::Poisoned;

namespace {

std::atomic<int> g_inits{0};
std::atomic<int> g_releases{0};
std::atomic<int> g_fail{0};

int FakeDevice(void*, int render_fd, void** out) {
  if (g_fail.load() != 0) return g_fail.load();
  ++g_inits;
  *out = reinterpret_cast<void*>(uintptr_t{0x10000} + static_cast<uintptr_t>(render_fd));
  return 0;
}

void FakeRelease(void*, void* handle) {
  if (handle != nullptr) ++g_releases;
}

// Points the default context at the board's simulator with the two libdrm
// operations of a fake port added.
void UseFakeLibdrm(SimBoard& b, hke_platform_ops* ops) {
  const hke_platform sim = hke_sim_platform(b.sim());
  *ops = *sim.ops;
  ops->amdgpu_device = FakeDevice;
  ops->amdgpu_device_release = FakeRelease;
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform.ops = ops;
  c.platform.self = sim.self;
  REQUIRE(hke_default_context_configure(&c) == HKE_OK);
  g_inits = 0;
  g_releases = 0;
  g_fail = 0;
}

}  // namespace

TEST_CASE(
    "GetAMDGPUDeviceHandle is NOT_SUPPORTED on the simulator, with a diagnostic and an untouched "
    "output") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  Poisoned<HsaAMDGPUDeviceHandle> h;
  CHECK(hsaKmtGetAMDGPUDeviceHandle(node, &h.v) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(h.untouched());
  CHECK(b.LastDiag().find("no libdrm devices") != std::string::npos);
}

TEST_CASE("GetAMDGPUDeviceHandle refuses NULL, CPU nodes, unknown nodes and a closed device") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Poisoned<HsaAMDGPUDeviceHandle> h;
  CHECK(hsaKmtGetAMDGPUDeviceHandle(1, &h.v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtGetAMDGPUDeviceHandle(1, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtGetAMDGPUDeviceHandle(misctest::FirstCpuNode(), &h.v) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtGetAMDGPUDeviceHandle(misctest::NumNodes(), &h.v) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(h.untouched());
}

TEST_CASE(
    "GetAMDGPUDeviceHandle takes the port's libdrm device once per render node and releases it "
    "when the render node closes") {
  SimBoard b(nullptr, "datacenter-4gpu");
  hke_platform_ops ops{};
  UseFakeLibdrm(b, &ops);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  HsaAMDGPUDeviceHandle h1 = nullptr;
  REQUIRE(hsaKmtGetAMDGPUDeviceHandle(node, &h1) == HSAKMT_STATUS_SUCCESS);
  CHECK(h1 != nullptr);
  HsaAMDGPUDeviceHandle again = nullptr;
  REQUIRE(hsaKmtGetAMDGPUDeviceHandle(node, &again) == HSAKMT_STATUS_SUCCESS);
  CHECK(again == h1);
  CHECK(g_inits.load() == 1);
  HsaAMDGPUDeviceHandle h2 = nullptr;
  REQUIRE(hsaKmtGetAMDGPUDeviceHandle(node + 1, &h2) == HSAKMT_STATUS_SUCCESS);
  CHECK(h2 != h1);  // another render node, another device
  CHECK(g_inits.load() == 2);
  // The render nodes outlive CloseKFD (the KFD VM is tied to them), and so
  // do their devices.
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(g_releases.load() == 0);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtGetAMDGPUDeviceHandle(node, &again) == HSAKMT_STATUS_SUCCESS);
  CHECK(again == h1);
  CHECK(g_inits.load() == 2);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  // Reconfiguring tears the context down: both devices are released.
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = hke_sim_platform(b.sim());
  REQUIRE(hke_default_context_configure(&c) == HKE_OK);
  CHECK(g_releases.load() == 2);
}

TEST_CASE(
    "a port's libdrm refusal is ERROR with the render node named, and the output stays untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  hke_platform_ops ops{};
  UseFakeLibdrm(b, &ops);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  g_fail = ENODEV;
  Poisoned<HsaAMDGPUDeviceHandle> h;
  CHECK(hsaKmtGetAMDGPUDeviceHandle(node, &h.v) == HSAKMT_STATUS_ERROR);
  CHECK(h.untouched());
  g_fail = 0;
  HsaAMDGPUDeviceHandle ok = nullptr;
  CHECK(hsaKmtGetAMDGPUDeviceHandle(node, &ok) == HSAKMT_STATUS_SUCCESS);
  CHECK(g_inits.load() == 1);
}

TEST_CASE(
    "the Linux platform offers libdrm devices exactly when built with libdrm, and refuses a "
    "descriptor that is not a render node") {
  const hke_platform_ops* ops = hke_linux_platform_ops();
  REQUIRE(ops != nullptr);
  if (hke_linux_platform_has_libdrm() == 0) {
    CHECK((ops->amdgpu_device == nullptr));
    CHECK((ops->amdgpu_device_release == nullptr));
    return;
  }
  REQUIRE((ops->amdgpu_device != nullptr));
  REQUIRE((ops->amdgpu_device_release != nullptr));
  const int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  void* h = reinterpret_cast<void*>(uintptr_t{0xA5});
  CHECK(ops->amdgpu_device(nullptr, fd, &h) != 0);
  CHECK(h == reinterpret_cast<void*>(uintptr_t{0xA5}));
  close(fd);
  CHECK(ops->amdgpu_device(nullptr, -1, &h) == EINVAL);
}
