// Contracts of the hsaKmt* open/close/version API on the default context.
#include <doctest/doctest.h>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "lib/core/status.h"
#include "tests/support/fake_platform.h"

TEST_CASE("hsaKmtOpenKFD is reference counted like upstream and the default context is reconfigurable while closed") {
  static hke_test::FakePlatform fake;  // outlives the default context's use
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = fake.platform();
  REQUIRE(hke_default_context_configure(&c) == HKE_OK);

  HsaVersionInfo v{};
  CHECK(hsaKmtGetVersion(&v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);

  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtOpenKFD() == HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
  CHECK(hke_default_context_configure(&c) == hke::FailedPrecondition().raw());
  REQUIRE(hsaKmtGetVersion(&v) == HSAKMT_STATUS_SUCCESS);
  CHECK(v.KernelInterfaceMajorVersion == 1);
  CHECK(v.KernelInterfaceMinorVersion == 17);
  CHECK(hsaKmtGetVersion(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(fake.open_fds.size() == 1);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(fake.open_fds.empty());
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);

  // Reopening after the last close works (as Debian's thunk does).
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);

  fake.open_error = 2;  // ENOENT: no KFD on this machine
  CHECK(hsaKmtOpenKFD() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  fake.open_error = 0;
  fake.version_major = 3;
  CHECK(hsaKmtOpenKFD() == HSAKMT_STATUS_DRIVER_MISMATCH);
}
