// kfdsim render-node ioctls: VERSION, GET_CLIENT, AMDGPU_INFO.
#include <doctest/doctest.h>
#include <unistd.h>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;
namespace drm = hke::kfd::drm;

TEST_CASE("sim DRM_IOCTL_VERSION copies names up to the user's lengths and reports full ones") {
  Sim s(TwoGpuBoard());
  char name[4] = {'x', 'x', 'x', 'x'};
  char date[32] = {};
  drm::Version v{};
  v.name_len = 3;
  v.name = name;
  v.date_len = sizeof(date);
  v.date = date;
  v.desc_len = 0;
  v.desc = nullptr;
  REQUIRE(s.sim->Ioctl(s.render[128], drm::kIocVersion, &v) == 0);
  CHECK(v.version_major == 3);
  CHECK(v.version_minor >= 42);
  CHECK(v.name_len == 6);
  CHECK(std::string(name, 4) == "amdx");
  CHECK(std::string(date) == "20150101");
  CHECK(v.date_len == 8);
  CHECK(v.desc_len == 7);
}

TEST_CASE("sim DRM_IOCTL_GET_CLIENT reports client 0 as authenticated") {
  Sim s(TwoGpuBoard());
  drm::Client c{};
  REQUIRE(s.sim->Ioctl(s.render[128], drm::kIocGetClient, &c) == 0);
  CHECK(c.auth == 1);
  CHECK(c.pid == static_cast<unsigned long>(getpid()));
  c.idx = 1;
  CHECK(s.sim->Ioctl(s.render[128], drm::kIocGetClient, &c) == EINVAL);
}

int Info(Sim& s, int fd, uint32_t query, void* out, uint32_t size, uint32_t reg = 0,
         uint32_t count = 0) {
  drm::AmdgpuInfo i{};
  i.return_pointer = reinterpret_cast<uintptr_t>(out);
  i.return_size = size;
  i.query = query;
  i.read_mmr_reg.dword_offset = reg;
  i.read_mmr_reg.count = count;
  i.read_mmr_reg.instance = 0xFFFFFFFFu;
  return s.sim->Ioctl(fd, drm::kIocAmdgpuInfo, &i);
}

TEST_CASE("sim AMDGPU_INFO answers ACCEL_WORKING, DEV_INFO and READ_MMR_REG from the board") {
  Sim s(TwoGpuBoard());
  uint32_t accel = 0;
  REQUIRE(Info(s, s.render[128], drm::kAmdgpuInfoAccelWorking, &accel, 4) == 0);
  CHECK(accel == 1);
  drm::AmdgpuInfoDevice dev;
  std::memset(&dev, 0xA5, sizeof(dev));
  REQUIRE(Info(s, s.render[129], drm::kAmdgpuInfoDevInfo, &dev, sizeof(dev)) == 0);
  CHECK(dev.device_id == 0x73bf);
  CHECK(dev.pci_rev == 2);
  CHECK(dev.family == 143);
  CHECK(dev.cu_active_number == 104);
  CHECK(dev.num_shader_engines == 8);
  CHECK(dev.ids_flags == 0);
  CHECK(dev.virtual_address_offset != 0);
  CHECK(dev.virtual_address_max > dev.virtual_address_offset);
  CHECK(dev.virtual_address_alignment == 4096);
  uint32_t reg = 0;
  REQUIRE(Info(s, s.render[128], drm::kAmdgpuInfoReadMmrReg, &reg, 4, 0x263e, 1) == 0);
  CHECK(reg == 0x2a114042u);
  CHECK(Info(s, s.render[128], drm::kAmdgpuInfoReadMmrReg, &reg, 4, 0x1234, 1) == EFAULT);
  CHECK(Info(s, s.render[128], drm::kAmdgpuInfoReadMmrReg, &reg, 4, 0x263e, 129) == EINVAL);
  CHECK(Info(s, s.render[128], 0x7F, &reg, 4) == EINVAL);
  CHECK(Info(s, s.render[128], drm::kAmdgpuInfoAccelWorking, &reg, 0) == EINVAL);
}

TEST_CASE("sim AMDGPU_INFO writes at most return_size bytes and flags APUs as FUSION") {
  Sim s(ApuBoard());
  uint8_t buf[16];
  std::memset(buf, 0xA5, sizeof(buf));
  REQUIRE(Info(s, s.render[128], drm::kAmdgpuInfoDevInfo, buf, 8) == 0);
  uint32_t device_id = 0;
  std::memcpy(&device_id, buf, 4);
  CHECK(device_id == 0x740f);
  CHECK(buf[8] == 0xA5);
  drm::AmdgpuInfoDevice dev{};
  REQUIRE(Info(s, s.render[128], drm::kAmdgpuInfoDevInfo, &dev, sizeof(dev)) == 0);
  CHECK(dev.ids_flags == drm::kAmdgpuIdsFlagsFusion);
}

TEST_CASE("sim render nodes answer unknown DRM requests with EINVAL") {
  Sim s(TwoGpuBoard());
  uint64_t buf[4] = {};
  CHECK(s.sim->Ioctl(s.render[128], hke::kfd::IocEncode(3, 'd', 0x44, 32), buf) == EINVAL);  // AMDGPU_CS
  // nr 0x02 (DRM_IOCTL_GET_MAGIC) is not served. (Dispatch is by nr, like
  // drm_ioctl: KFD's GET_VERSION, nr 0x01, lands on DRM_IOCTL_GET_UNIQUE.)
  CHECK(s.sim->Ioctl(s.render[128], hke::kfd::IocEncode(3, 'd', 0x02, 4), buf) == EINVAL);
  CHECK(s.sim->unknown_requests() == 2);
}

}  // namespace
