// hsaKmtOpenSMI: the SMI event descriptor of a GPU node.
#include <unistd.h>

#include <cstdint>

#include "tests/events/support.h"

using evtest::Join;
using evtest::SimBoard;

TEST_CASE("OpenSMI issues SMI_EVENTS for the node's gpu_id and hands back a writable descriptor") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  uint32_t gpu_node = 0, gpu_id = 0;
  for (uint32_t n = 0; n < b.num_nodes() && gpu_id == 0; ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.KFDGpuID != 0) {
      gpu_node = n;
      gpu_id = p.KFDGpuID;
    }
  }
  REQUIRE(gpu_id != 0);
  b.ClearTrace();
  int fd = -1;
  REQUIRE(hsaKmtOpenSMI(gpu_node, &fd) == HSAKMT_STATUS_SUCCESS);
  CHECK(fd >= 0);
  CHECK(Join(b.Ioctls()) == "SMI_EVENTS ");
  const auto in = b.Args("SMI_EVENTS");
  REQUIRE(in.size() == 1);
  CHECK(SimBoard::Field<uint32_t>(in[0], 0) == gpu_id);
  const uint64_t mask = HSA_SMI_EVENT_MASK_FROM_INDEX(HSA_SMI_EVENT_VMFAULT);
  CHECK(write(fd, &mask, sizeof(mask)) == static_cast<ssize_t>(sizeof(mask)));
  CHECK(close(fd) == 0);
}

TEST_CASE("OpenSMI refuses a CPU node, an unknown node and a NULL output before any ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  b.ClearTrace();
  int fd = -7;
  CHECK(hsaKmtOpenSMI(0, &fd) == HSAKMT_STATUS_INVALID_NODE_UNIT);  // node 0 is a CPU
  CHECK(hsaKmtOpenSMI(b.num_nodes(), &fd) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtOpenSMI(1, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(fd == -7);
  CHECK(b.Ioctls().empty());
}

TEST_CASE("OpenSMI needs an open device and KFD 1.3") {
  {
    SimBoard b(nullptr, "apu-embedded");
    int fd = -7;
    CHECK(hsaKmtOpenSMI(1, &fd) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  }
  SimBoard b(nullptr, "apu-embedded", /*kfd_minor=*/2);
  b.Open();
  int fd = -7;
  CHECK(hsaKmtOpenSMI(1, &fd) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(fd == -7);
}
