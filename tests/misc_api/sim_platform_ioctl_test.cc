// The in-process front end's ioctl operation (hke_sim_platform): it serves
// the simulator's descriptors and refuses any other with EBADF, leaving the
// argument untouched, as the kernel does for a descriptor that is not a KFD
// device. It identifies the descriptor once per call (kfdsim_ioctl_owned);
// this file checks the contract that lookup must keep.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "doctest/doctest.h"
#include "hsakmt/hsakmt_platform.h"
#include "lib/kfd/abi.h"
#include "tests/misc_api/support.h"

namespace {

namespace k = hke::kfd;

TEST_CASE("the in-process platform's ioctl serves a simulated descriptor and answers EBADF for a "
          "host descriptor without writing its argument") {
  hketest::SimBoard b(nullptr, "datacenter-4gpu");
  const hke_platform p = hke_sim_platform(b.sim());
  int kfd = -1;
  REQUIRE(p.ops->open(p.self, "/dev/kfd", HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &kfd) == 0);

  k::GetVersionArgs v{};
  REQUIRE(p.ops->ioctl(p.self, kfd, k::kIocGetVersion, &v) == 0);
  CHECK(v.major_version == 1);
  CHECK(v.minor_version >= 1);

  int host[2] = {-1, -1};
  REQUIRE(pipe2(host, O_CLOEXEC) == 0);
  k::GetVersionArgs untouched;
  std::memset(&untouched, 0xA5, sizeof(untouched));
  k::GetVersionArgs before = untouched;
  CHECK(p.ops->ioctl(p.self, host[0], k::kIocGetVersion, &untouched) == EBADF);
  CHECK(std::memcmp(&untouched, &before, sizeof(before)) == 0);
  close(host[0]);
  close(host[1]);

  // A closed simulated descriptor is no longer the simulator's either.
  REQUIRE(p.ops->close(p.self, kfd) == 0);
  CHECK(p.ops->ioctl(p.self, kfd, k::kIocGetVersion, &untouched) == EBADF);
  CHECK(std::memcmp(&untouched, &before, sizeof(before)) == 0);
}

}  // namespace
