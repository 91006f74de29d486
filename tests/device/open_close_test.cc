// Contracts of context creation and of opening/closing the KFD device.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_embedded.h"
#include "lib/context/context.h"
#include "lib/device/kfd_device.h"
#include "tests/support/fake_platform.h"

namespace {

using hke_test::FakePlatform;

struct DiagLog {
  std::vector<std::string> messages;
  std::vector<hke_status_t> statuses;
  static void Fn(void* user, const hke_diag_record* r) {
    auto* self = static_cast<DiagLog*>(user);
    self->messages.push_back(r->message);
    self->statuses.push_back(r->status);
  }
};

struct Fixture {
  FakePlatform fake;
  DiagLog log;
  // The context holds the topology snapshot (about a megabyte): heap storage.
  std::vector<std::max_align_t> buffer =
      std::vector<std::max_align_t>(hke_context_storage_size() / sizeof(std::max_align_t) + 1);
  unsigned char* storage = reinterpret_cast<unsigned char*>(buffer.data());
  size_t storage_size = buffer.size() * sizeof(std::max_align_t);
  hke_context* ctx = nullptr;

  hke_config Config(uint32_t flags = 0) {
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = fake.platform();
    c.diag = &DiagLog::Fn;
    c.diag_user = &log;
    c.flags = flags;
    return c;
  }
  void Init(uint32_t flags = 0) {
    REQUIRE(hke_context_storage_size() <= storage_size);
    hke_config c = Config(flags);
    REQUIRE(hke_context_init(storage, storage_size, &c, &ctx) == HKE_OK);
  }
  hke::Context& impl() { return ctx->impl; }
  // Device calls as an entry point makes them: inside a shared hold of the
  // open gate (lib/context/open_gate.h).
  hke::Status CheckOpen() {
    hke::SharedGate g(impl().open_gate());
    return hke::device::CheckOpen(impl());
  }
  hke::Status GetVersion(uint32_t* major, uint32_t* minor) {
    hke::SharedGate g(impl().open_gate());
    return hke::device::GetVersion(impl(), major, minor);
  }
  hke::Status KfdIoctl(uint32_t request, void* arg) {
    hke::SharedGate g(impl().open_gate());
    return hke::device::KfdIoctl(impl(), request, arg);
  }
  ~Fixture() {
    if (ctx != nullptr) hke_context_deinit(ctx);
  }
};

constexpr uint32_t kGetVersion = 0x80084b01u;

}  // namespace

TEST_CASE("context init refuses a config without a usable platform and leaves the output untouched") {
  Fixture f;
  hke_config c = f.Config();
  c.platform.ops = nullptr;
  hke_context* out;
  std::memset(&out, 0xA5, sizeof(out));
  hke_context* before = out;
  hke_status_t s = hke_context_init(f.storage, f.storage_size, &c, &out);
  CHECK(s == hke::InvalidArgument().raw());
  CHECK(out == before);
}

TEST_CASE("context init refuses storage that is too small, naming the reason") {
  Fixture f;
  hke_config c = f.Config();
  hke_context* out = nullptr;
  CHECK(hke_context_init(f.storage, hke_context_storage_size() - 1, &c, &out) ==
        hke::BufferTooSmall().raw());
  CHECK(out == nullptr);
  REQUIRE(f.log.messages.size() == 1);
  CHECK(f.log.messages[0].find("smaller") != std::string::npos);
}

TEST_CASE("context init refuses misaligned storage") {
  Fixture f;
  hke_config c = f.Config();
  hke_context* out = nullptr;
  CHECK(hke_context_init(f.storage + 1, f.storage_size - 1, &c, &out) ==
        hke::InvalidArgument().raw());
  CHECK(out == nullptr);
}

TEST_CASE("context init accepts a config of the first hke_config layout and ignores bytes past its size") {
  Fixture f;
  // A caller compiled against the first header: its struct ends after
  // `flags`; whatever follows in memory must not be read as overrides.
  struct {
    hke_config config;
    unsigned char junk[64];
  } old_caller;
  std::memset(&old_caller, 0xA5, sizeof(old_caller));
  const hke_config current = f.Config();
  std::memcpy(&old_caller.config, &current, offsetof(hke_config, flags) + sizeof(uint32_t));
  old_caller.config.struct_size = static_cast<uint32_t>(offsetof(hke_config, flags) + sizeof(uint32_t));
  hke_context* out = nullptr;
  REQUIRE(hke_context_init(f.storage, f.storage_size, &old_caller.config, &out) == HKE_OK);
  REQUIRE(out != nullptr);
  CHECK(out->impl.config().gfx_override_count == 0);
  CHECK(out->impl.config().gfx_overrides == nullptr);
  hke_context_deinit(out);
}

TEST_CASE("context init refuses unknown config flags and an old struct size") {
  Fixture f;
  hke_config c = f.Config(0x80);
  hke_context* out = nullptr;
  CHECK(hke_context_init(f.storage, f.storage_size, &c, &out) == hke::InvalidArgument().raw());
  c = f.Config();
  c.struct_size = 8;
  CHECK(hke_context_init(f.storage, f.storage_size, &c, &out) == hke::InvalidArgument().raw());
  CHECK(out == nullptr);
}

TEST_CASE("context init performs no platform call") {
  Fixture f;
  f.Init();
  CHECK(f.fake.calls.empty());
}

TEST_CASE("first open opens /dev/kfd read-write close-on-exec and runs the version handshake") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  CHECK(r == hke::device::OpenResult::kOpened);
  REQUIRE(f.fake.calls.size() == 2);
  CHECK(f.fake.calls[0].op == "open");
  CHECK(f.fake.calls[0].path == "/dev/kfd");
  CHECK(f.fake.last_open_flags == (HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC));
  CHECK(f.fake.calls[1].request == kGetVersion);
  uint32_t major = 0, minor = 0;
  REQUIRE(f.GetVersion(&major, &minor).ok());
  CHECK(major == 1);
  CHECK(minor == 17);
}

TEST_CASE("a second open only counts and reports already-open without any I/O") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  size_t calls = f.fake.calls.size();
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  CHECK(r == hke::device::OpenResult::kAlreadyOpen);
  CHECK(f.fake.calls.size() == calls);
  CHECK(f.impl().device().open_count == 2);
}

TEST_CASE("only the last close releases the descriptor") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  REQUIRE(hke::device::Close(f.impl()).ok());
  CHECK(f.fake.open_fds.size() == 1);
  REQUIRE(hke::device::Close(f.impl()).ok());
  CHECK(f.fake.open_fds.empty());
  CHECK(hke::device::Close(f.impl()) == hke::FailedPrecondition());
}

TEST_CASE("a device call outside the open gate is INTERNAL and names the gate") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  CHECK(hke::device::CheckOpen(f.impl()) == hke::Status::Api(HKE_STATUS_INTERNAL));
  REQUIRE(!f.log.messages.empty());
  CHECK(f.log.messages.back().find("open gate") != std::string::npos);
  CHECK(f.CheckOpen().ok());
}

TEST_CASE("close without open fails with FAILED_PRECONDITION") {
  Fixture f;
  f.Init();
  CHECK(hke::device::Close(f.impl()) == hke::FailedPrecondition());
  CHECK(f.CheckOpen() == hke::FailedPrecondition());
}

TEST_CASE("a failed open of /dev/kfd keeps the errno and leaves nothing open") {
  Fixture f;
  f.Init();
  f.fake.open_error = EACCES;
  hke::device::OpenResult r;
  CHECK(hke::device::Open(f.impl(), &r) == hke::Status::Errno(EACCES));
  CHECK(f.impl().device().open_count == 0);
  REQUIRE(!f.log.messages.empty());
  CHECK(f.log.messages.back().find("/dev/kfd") != std::string::npos);
  CHECK(f.log.statuses.back() == hke::Status::Errno(EACCES).raw());
}

TEST_CASE("a failed version handshake closes the descriptor and publishes nothing") {
  Fixture f;
  f.Init();
  f.fake.ioctl_errors = {ENOTTY};
  hke::device::OpenResult r = hke::device::OpenResult::kAlreadyOpen;
  CHECK(hke::device::Open(f.impl(), &r) == hke::Status::Errno(ENOTTY));
  CHECK(r == hke::device::OpenResult::kAlreadyOpen);
  CHECK(f.fake.open_fds.empty());
  CHECK(f.impl().device().open_count == 0);
  CHECK(f.impl().device().kfd_fd == -1);
}

TEST_CASE("a kernel interface with a major version other than 1 is refused") {
  Fixture f;
  f.Init();
  f.fake.version_major = 2;
  hke::device::OpenResult r;
  CHECK(hke::device::Open(f.impl(), &r) == hke::Status::Api(HKE_STATUS_VERSION_MISMATCH));
  CHECK(f.fake.open_fds.empty());
  REQUIRE(!f.log.messages.empty());
  CHECK(f.log.messages.back().find("2.17") != std::string::npos);
}

TEST_CASE("EINTR and EAGAIN are retried, but only a bounded number of times") {
  Fixture f;
  f.Init();
  f.fake.ioctl_errors = {EINTR, EAGAIN, EINTR};
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  CHECK(f.fake.Count("ioctl") == 4);
  REQUIRE(hke::device::Close(f.impl()).ok());

  f.fake.calls.clear();
  f.fake.ioctl_errors.assign(100, EINTR);
  CHECK(hke::device::Open(f.impl(), &r) == hke::Status::Errno(EINTR));
  CHECK(f.fake.Count("ioctl") == hke::Platform::kDefaultIoctlRetries + 1);
  CHECK(f.fake.open_fds.empty());
}

TEST_CASE("a process-id change marks the context forked until the child reopens") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  const int inherited = f.fake.open_fds.at(0);
  f.fake.pid = 2000;  // now running in the child
  CHECK(f.CheckOpen() == hke::Status::Api(HKE_STATUS_FORKED_CHILD));
  CHECK(f.CheckOpen() == hke::Status::Api(HKE_STATUS_FORKED_CHILD));

  f.fake.calls.clear();
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  CHECK(r == hke::device::OpenResult::kOpened);
  CHECK(f.fake.IoctlsOnFd(inherited) == 0);  // nothing sent on the parent's descriptor
  CHECK(f.impl().device().kfd_fd != inherited);
  CHECK(f.CheckOpen().ok());
}

TEST_CASE("a forked child's close drops an inherited reference without any ioctl; the last one closes the inherited descriptors and the child opens afresh") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  REQUIRE(hke::device::Open(f.impl(), &r).ok());  // two references, as upstream counts them
  const int inherited = f.fake.open_fds.at(0);
  f.fake.pid = 2000;  // now running in the child
  f.fake.calls.clear();
  CHECK(hke::device::Close(f.impl()).ok());
  CHECK(f.fake.Count("ioctl") == 0);
  CHECK(f.fake.Count("close") == 0);  // one inherited reference left
  CHECK(f.CheckOpen() == hke::Status::Api(HKE_STATUS_FORKED_CHILD));
  CHECK(hke::device::Close(f.impl()).ok());
  CHECK(f.fake.Count("ioctl") == 0);
  CHECK(f.fake.IoctlsOnFd(inherited) == 0);
  CHECK(f.fake.open_fds.empty());  // the child's copy of the descriptor is closed (no ioctl)
  CHECK(hke::device::Close(f.impl()) == hke::FailedPrecondition());  // nothing left to close
  CHECK(f.CheckOpen() == hke::FailedPrecondition());

  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  CHECK(r == hke::device::OpenResult::kOpened);
  CHECK(f.fake.Count("ioctl") == 1);  // the child's own GET_VERSION
  CHECK(f.impl().device().kfd_fd != inherited);
  CHECK(f.CheckOpen().ok());
  CHECK(hke::device::Close(f.impl()).ok());
}

TEST_CASE("EBADF from the kernel marks the context forked and returns a distinct status") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  f.fake.ioctl_errors = {EBADF};
  uint32_t arg[2];
  CHECK(f.KfdIoctl(kGetVersion, arg) ==
        hke::Status::Api(HKE_STATUS_FORKED_CHILD));
  CHECK(f.CheckOpen() == hke::Status::Api(HKE_STATUS_FORKED_CHILD));
  size_t ioctls = f.fake.Count("ioctl");
  CHECK(f.KfdIoctl(kGetVersion, arg) ==
        hke::Status::Api(HKE_STATUS_FORKED_CHILD));
  CHECK(f.fake.Count("ioctl") == ioctls);  // refused without reaching the kernel
}

TEST_CASE("discovery-only contexts open without touching /dev/kfd") {
  Fixture f;
  f.Init(HKE_CONFIG_DISCOVERY_ONLY);
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  CHECK(f.fake.Count("open") == 0);
  CHECK(f.fake.Count("ioctl") == 0);
  CHECK(f.CheckOpen().ok());
  uint32_t arg[2];
  CHECK(f.KfdIoctl(kGetVersion, arg) == hke::FailedPrecondition());
  REQUIRE(hke::device::Close(f.impl()).ok());
}

TEST_CASE("context deinit closes an open device whatever the reference count") {
  Fixture f;
  f.Init();
  hke::device::OpenResult r;
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  REQUIRE(hke::device::Open(f.impl(), &r).ok());
  hke_context_deinit(f.ctx);
  f.ctx = nullptr;
  CHECK(f.fake.open_fds.empty());
}
