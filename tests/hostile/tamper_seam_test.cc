// The simulator's reply tamper seam itself (kfdsim_set_tamper), through
// the C ABI without the library: what the tamper sees, what reaches the
// caller, which calls it is offered, the trace marker, clearing.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "lib/kfd/abi.h"
#include "platform/sim/sim.h"

namespace k = hke::kfd;

namespace {

struct Seen {
  uint32_t request;
  size_t size;
  int result;
  std::vector<uint8_t> bytes;
};

// A simulator on the APU board with /dev/kfd open, recording trace lines
// and every call the tamper is offered.
struct Fixture {
  kfdsim_t* sim = nullptr;
  int fd = -1;
  std::mutex mu;
  std::vector<std::string> trace;
  std::vector<Seen> seen;
  // What the tamper does: overwrite the first bytes of the reply with
  // `patch` (when not empty) and return `result` (or the handler's when -1).
  std::vector<uint8_t> patch;
  int result = -1;

  Fixture() {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = "apu-embedded";
    o.trace = [](void* user, const char* line, size_t length) {
      auto* f = static_cast<Fixture*>(user);
      std::lock_guard<std::mutex> g(f->mu);
      f->trace.emplace_back(line, length);
    };
    o.trace_user = this;
    char error[256] = {};
    REQUIRE(kfdsim_create(&o, &sim, error, sizeof(error)) == 0);
    REQUIRE(kfdsim_open(sim, "/dev/kfd", O_RDWR | O_CLOEXEC, &fd) == 0);
  }
  ~Fixture() {
    kfdsim_close(sim, fd);
    kfdsim_destroy(sim);
  }
  void Install() { kfdsim_set_tamper(sim, &Fixture::Tamper, this); }
  static int Tamper(void* user, uint32_t request, void* reply, size_t size, int result) {
    auto* f = static_cast<Fixture*>(user);
    std::lock_guard<std::mutex> g(f->mu);
    Seen s{request, size, result, {}};
    if (reply != nullptr) {
      s.bytes.assign(static_cast<uint8_t*>(reply), static_cast<uint8_t*>(reply) + size);
      if (!f->patch.empty()) std::memcpy(reply, f->patch.data(), std::min(size, f->patch.size()));
    }
    f->seen.push_back(s);
    return f->result == -1 ? result : f->result;
  }
  std::string LastTrace() {
    std::lock_guard<std::mutex> g(mu);
    return trace.empty() ? std::string() : trace.back();
  }
};

std::vector<uint8_t> Bytes(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  return std::vector<uint8_t>(b, b + n);
}

}  // namespace

TEST_CASE("the tamper sees the reply the caller would get and its rewrite reaches the caller") {
  Fixture f;
  f.Install();
  k::GetVersionArgs v{};
  REQUIRE(kfdsim_ioctl(f.sim, f.fd, k::kIocGetVersion, &v) == 0);
  REQUIRE(f.seen.size() == 1);
  CHECK(f.seen[0].request == k::kIocGetVersion);
  CHECK(f.seen[0].size == sizeof(v));
  CHECK(f.seen[0].result == 0);
  CHECK(f.seen[0].bytes == Bytes(&v, sizeof(v)));  // nothing changed: the handler's reply
  CHECK(v.major_version == 1);
  CHECK(f.LastTrace().find(" tampered") == std::string::npos);

  const k::GetVersionArgs hostile{2, 0xFFFFFFFFu};
  f.patch = Bytes(&hostile, sizeof(hostile));
  k::GetVersionArgs w{};
  REQUIRE(kfdsim_ioctl(f.sim, f.fd, k::kIocGetVersion, &w) == 0);
  CHECK(w.major_version == 2);
  CHECK(w.minor_version == 0xFFFFFFFFu);
  const std::string line = f.LastTrace();
  CHECK(line.find("out=02000000ffffffff") != std::string::npos);
  CHECK(line.find(" tampered\n") != std::string::npos);

  // The simulator's own state is not changed: cleared, the reply is real.
  kfdsim_set_tamper(f.sim, nullptr, nullptr);
  k::GetVersionArgs x{};
  REQUIRE(kfdsim_ioctl(f.sim, f.fd, k::kIocGetVersion, &x) == 0);
  CHECK(x.major_version == 1);
  CHECK(f.seen.size() == 2);
}

TEST_CASE("the tamper's return value is the caller's result, also over a handler failure") {
  Fixture f;
  f.Install();
  k::DestroyEventArgs d{};
  d.event_id = 12345;  // no such event: the handler answers EINVAL
  f.result = 0;
  CHECK(kfdsim_ioctl(f.sim, f.fd, k::kIocDestroyEvent, &d) == 0);
  REQUIRE(f.seen.size() == 1);
  CHECK(f.seen[0].result == EINVAL);
  CHECK(f.LastTrace().find("-> ok") != std::string::npos);
  CHECK(f.LastTrace().find(" tampered") != std::string::npos);
  f.result = EIO;
  k::GetVersionArgs v{};
  CHECK(kfdsim_ioctl(f.sim, f.fd, k::kIocGetVersion, &v) == EIO);
}

TEST_CASE("a rewrite of a request that returns no data is not copied back") {
  Fixture f;
  f.Install();
  k::DestroyEventArgs d{};
  d.event_id = 12345;
  const std::vector<uint8_t> sent = Bytes(&d, sizeof(d));
  const uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  f.patch.assign(junk, junk + sizeof(junk));
  CHECK(kfdsim_ioctl(f.sim, f.fd, k::kIocDestroyEvent, &d) == EINVAL);
  REQUIRE(f.seen.size() == 1);
  CHECK(f.seen[0].bytes == sent);
  CHECK(Bytes(&d, sizeof(d)) == sent);
  CHECK(f.LastTrace().find(" tampered") == std::string::npos);
}

TEST_CASE("injected faults, unknown requests and foreign fds are not offered to the tamper") {
  Fixture f;
  f.Install();
  kfdsim_add_fault(f.sim, k::kIocGetVersion & 0xFFFFu, EIO, 1, 1);
  k::GetVersionArgs v{};
  CHECK(kfdsim_ioctl(f.sim, f.fd, k::kIocGetVersion, &v) == EIO);
  const uint32_t unknown = k::IocEncode(k::kIocReadWrite, k::kKfdIocType, 0x7F, 8);
  uint64_t arg = 0;
  CHECK(kfdsim_ioctl(f.sim, f.fd, unknown, &arg) == ENOTTY);
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  REQUIRE(null_fd >= 0);
  CHECK(kfdsim_ioctl(f.sim, null_fd, k::kIocGetVersion, &v) == ENOTTY);
  close(null_fd);
  CHECK(f.seen.empty());
  REQUIRE(kfdsim_ioctl(f.sim, f.fd, k::kIocGetVersion, &v) == 0);
  CHECK(f.seen.size() == 1);
}

TEST_CASE("a bad argument pointer reaches the tamper as no reply") {
  Fixture f;
  f.Install();
  auto* bad = reinterpret_cast<k::GetVersionArgs*>(uintptr_t{8});
  CHECK(kfdsim_ioctl(f.sim, f.fd, k::kIocGetVersion, bad) == EFAULT);
  REQUIRE(f.seen.size() == 1);
  CHECK(f.seen[0].size == 0);
  CHECK(f.seen[0].bytes.empty());
  CHECK(f.seen[0].result == EFAULT);
}
