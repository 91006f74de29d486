// kfdsim device identity of the render nodes (core/drm.cc): one DRM
// device per render node, as libdrm reads it (device numbers, the sysfs
// device, DRM_IOCTL_GET_UNIQUE). Upstream's libhsakmt depends on it: libdrm
// folds render nodes it cannot tell apart into one device.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "lib/kfd/drm_abi.h"
#include "platform/sim/sim.h"
#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;
namespace drm = hke::kfd::drm;

struct Entry {
  uint32_t kind = 0;
  std::string data;
};

std::map<std::string, Entry> Sysfs(kfdsim::Simulator& sim) {
  std::map<std::string, Entry> out;
  sim.DrmSysfs(
      [](void* user, const char* path, uint32_t kind, const char* data, size_t n) {
        auto* m = static_cast<std::map<std::string, Entry>*>(user);
        CHECK(m->count(path) == 0);  // every entry once
        (*m)[path] = Entry{kind, std::string(data, n)};
        return 0;
      },
      &out);
  return out;
}

kfdsim::Board TwoBusBoard() {
  kfdsim::GpuDesc a = Gfx90a();
  a.location_id = 0x6300;  // 0000:63:00.0
  kfdsim::GpuDesc b = Gfx1030();
  b.location_id = 0x4310;  // 0000:43:02.0
  b.domain = 1;
  return MakeBoard({a, b});
}

TEST_CASE("sim each render node has its own device number, by descriptor, dup and path") {
  Sim s(TwoBusBoard());
  uint32_t major = 0, minor = 0;
  REQUIRE(s.sim->DeviceNumber(s.render[128], nullptr, &major, &minor) == 0);
  CHECK(major == 226);
  CHECK(minor == 128);
  const int dup_fd = dup(s.render[129]);
  REQUIRE(dup_fd >= 0);
  REQUIRE(s.sim->DeviceNumber(dup_fd, nullptr, &major, &minor) == 0);
  CHECK(minor == 129);
  close(dup_fd);
  REQUIRE(s.sim->DeviceNumber(-1, "/dev/dri/renderD129", &major, &minor) == 0);
  CHECK(minor == 129);
  major = minor = 7;
  CHECK(s.sim->DeviceNumber(s.kfd, nullptr, &major, &minor) == ENOENT);
  CHECK(s.sim->DeviceNumber(-1, "/dev/dri/renderD130", &major, &minor) == ENOENT);
  CHECK(s.sim->DeviceNumber(-1, "/dev/dri/renderD12x", &major, &minor) == ENOENT);
  CHECK(s.sim->DeviceNumber(-1, "/dev/kfd", &major, &minor) == ENOENT);
  CHECK((major == 7 && minor == 7));  // untouched on failure
}

TEST_CASE("sim sysfs names one PCI device per GPU with its card and render node") {
  Sim s(TwoBusBoard());
  const auto fs = Sysfs(*s.sim);
  struct Want {
    uint32_t card, render;
    const char* slot;
    const char* ids;
  };
  for (const Want& w : {Want{0, 128, "0000:63:00.0", "1002:740F"}, Want{1, 129, "0001:43:02.0", "1002:73BF"}}) {
    CAPTURE(w.slot);
    const std::string dev = std::string("/sys/devices/kfdsim/") + w.slot;
    REQUIRE(fs.count(dev) == 1);
    CHECK(fs.at(dev).kind == KFDSIM_FILE_DIR);
    const std::string uevent = fs.at(dev + "/uevent").data;
    CHECK(uevent.find(std::string("PCI_SLOT_NAME=") + w.slot + "\n") != std::string::npos);
    CHECK(uevent.find(std::string("PCI_ID=") + w.ids + "\n") != std::string::npos);
    CHECK(fs.at(dev + "/vendor").data == "0x1002\n");
    CHECK(fs.at(dev + "/subsystem").kind == KFDSIM_FILE_SYMLINK);
    CHECK(fs.at(dev + "/subsystem").data.substr(fs.at(dev + "/subsystem").data.rfind('/')) == "/pci");
    for (const auto& [node, minor] : {std::pair<std::string, uint32_t>{"card" + std::to_string(w.card), w.card},
                                      {"renderD" + std::to_string(w.render), w.render}}) {
      const std::string nd = dev + "/drm/" + node;
      CHECK(fs.at(nd + "/dev").data == "226:" + std::to_string(minor) + "\n");
      CHECK(fs.at(nd + "/device").kind == KFDSIM_FILE_SYMLINK);
      const Entry& link = fs.at("/sys/dev/char/226:" + std::to_string(minor));
      CHECK(link.kind == KFDSIM_FILE_SYMLINK);
      CHECK(link.data == std::string("../../devices/kfdsim/") + w.slot + "/drm/" + node);
    }
  }
  // Parents come before their children.
  std::map<std::string, size_t> order;
  s.sim->DrmSysfs(
      [](void* user, const char* path, uint32_t, const char*, size_t) {
        auto* m = static_cast<std::map<std::string, size_t>*>(user);
        const size_t next = m->size();
        (*m)[path] = next;
        return 0;
      },
      &order);
  for (const auto& [path, pos] : order) {
    const std::string parent = path.substr(0, path.rfind('/'));
    if (order.count(parent) != 0) CHECK(order.at(parent) < pos);
  }
}

TEST_CASE("sim a GPU at an earlier GPU's PCI address is a partition: a platform device") {
  kfdsim::GpuDesc a = Gfx90a();
  a.location_id = 0x0500;
  kfdsim::GpuDesc b = Gfx1030();
  b.location_id = 0x0500;
  Sim s(MakeBoard({a, b}));
  const auto fs = Sysfs(*s.sim);
  CHECK(fs.count("/sys/devices/kfdsim/0000:05:00.0/drm/renderD128") == 1);
  REQUIRE(fs.count("/sys/devices/kfdsim/amdgpu_xcp_1/drm/renderD129") == 1);
  CHECK(fs.at("/sys/devices/kfdsim/amdgpu_xcp_1/subsystem").data == "../../../bus/platform");
  CHECK(fs.at("/sys/dev/char/226:129").data == "../../devices/kfdsim/amdgpu_xcp_1/drm/renderD129");
  CHECK(fs.at("/sys/dev/char/226:1").data == "../../devices/kfdsim/amdgpu_xcp_1/drm/card1");
}

TEST_CASE("sim DRM_IOCTL_GET_UNIQUE reports each render node's own PCI bus id") {
  Sim s(TwoBusBoard());
  for (const auto& entry :
       {std::pair<uint32_t, std::string>{128, "pci:0000:63:00.0"}, {129, "pci:0001:43:02.0"}}) {
    const uint32_t minor = entry.first;  // a named copy: clang-14 lambdas cannot capture bindings
    const std::string& want = entry.second;
    CAPTURE(minor);
    char buf[64];
    std::memset(buf, 'x', sizeof(buf));
    drm::Unique u{};
    u.unique_len = sizeof(buf);
    u.unique = buf;
    REQUIRE(s.Io(drm::kIocGetUnique, &u, s.render[minor]) == 0);
    CHECK(u.unique_len == want.size());
    CHECK(std::string(buf, want.size()) == want);
    CHECK(buf[want.size()] == 'x');  // no NUL appended, like the kernel
    // A short buffer gets a prefix and the full length.
    std::memset(buf, 'x', sizeof(buf));
    u.unique_len = 4;
    REQUIRE(s.Io(drm::kIocGetUnique, &u, s.render[minor]) == 0);
    CHECK(u.unique_len == want.size());
    CHECK(std::string(buf, 5) == "pci:x");
  }
}

}  // namespace
