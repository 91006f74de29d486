// Trace decorator: exact line format per operation, sequence numbers,
// truncation, sink contract, transparency, init validation, fd sink.
#include <doctest/doctest.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lib/kfd/ioc.h"
#include "hsakmt/hsakmt_trace.h"
#include "tests/platform_decorators/fake_inner.h"

namespace {

using hke_decorator_test::FakeInner;
using hke_decorator_test::LineSink;

constexpr uint32_t kAllocMemoryOfGpu = 0xc0284b16u;  // WR, 40 bytes
constexpr uint32_t kGetVersion = 0x80084b01u;        // R, 8 bytes
constexpr uint32_t kSetEvent = 0x40084b0au;          // W, 8 bytes
constexpr const char* kGenerationId = "/sys/devices/virtual/kfd/kfd/topology/generation_id";
constexpr const char* kNodes = "/sys/devices/virtual/kfd/kfd/topology/nodes";

struct Traced {
  FakeInner inner;
  LineSink sink;
  hke_trace trace;
  hke_platform p{};

  Traced() {
    REQUIRE(hke_trace_init(&trace, inner.platform(), LineSink::Fn, &sink) == 0);
    p = hke_trace_platform(&trace);
  }
  const hke_platform_ops& ops() const { return *p.ops; }
};

int CountEntries(void* user, const char*, uint32_t) {
  ++*static_cast<int*>(user);
  return 0;
}

int StopAfterOne(void* user, const char*, uint32_t) {
  ++*static_cast<int*>(user);
  return 1;
}

}  // namespace

TEST_CASE("trace writes one documented line for every operation") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  int fd = -1;
  REQUIRE(o.open(t.p.self, "/dev/kfd", HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &fd) == 0);
  CHECK(fd == FakeInner::kFirstFd);

  std::array<unsigned char, 40> alloc{};
  for (size_t i = 0; i < alloc.size(); ++i) alloc[i] = static_cast<unsigned char>(i);
  REQUIRE(o.ioctl(t.p.self, fd, kAllocMemoryOfGpu, alloc.data()) == 0);
  uint64_t version = 0;
  REQUIRE(o.ioctl(t.p.self, fd, kGetVersion, &version) == 0);
  uint64_t set_event = 7;
  REQUIRE(o.ioctl(t.p.self, fd, kSetEvent, &set_event) == 0);

  void* addr = nullptr;
  REQUIRE(o.mmap(t.p.self, nullptr, 8192, HKE_PROT_READ | HKE_PROT_WRITE,
                 HKE_MAP_SHARED | HKE_MAP_FIXED, fd, 0xd000000000000000ull, &addr) == 0);
  REQUIRE(o.munmap(t.p.self, addr, 8192) == 0);
  REQUIRE(o.madvise(t.p.self, addr, 8192, HKE_ADVICE_DONTFORK) == 0);
  char buf[64];
  size_t len = 0;
  REQUIRE(o.read_file(t.p.self, kGenerationId, buf, sizeof(buf), &len) == 0);
  int entries = 0;
  REQUIRE(o.list_dir(t.p.self, kNodes, CountEntries, &entries) == 0);
  uint64_t ns = 0;
  REQUIRE(o.clock_ns(t.p.self, HKE_CLOCK_BOOTTIME, &ns) == 0);
  uint32_t cpus = 0;
  REQUIRE(o.cpu_count(t.p.self, &cpus) == 0);
  int32_t pid = 0;
  REQUIRE(o.process_id(t.p.self, &pid) == 0);
  unsigned char data[16];
  REQUIRE(o.read_fd(t.p.self, fd, data, sizeof(data), &len) == 0);
  size_t page = 0;
  REQUIRE(o.page_size(t.p.self, &page) == 0);
  REQUIRE(o.mem_policy(t.p.self, addr, 8192, HKE_MPOL_PREFERRED, 1) == 0);
  REQUIRE(o.close(t.p.self, fd) == 0);

  const std::vector<std::string> expected = {
      "1 open path=/dev/kfd flags=RDWR|CLOEXEC -> ok fd=3\n",
      "2 ioctl fd=3 req=0xc0284b16 name=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU size=40 "
      "in=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627 "
      "-> ok "
      "out=fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0dfdedddcdbdad9d8\n",
      "3 ioctl fd=3 req=0x80084b01 name=AMDKFD_IOC_GET_VERSION size=8 -> ok out=5a5a5a5a5a5a5a5a\n",
      "4 ioctl fd=3 req=0x40084b0a name=AMDKFD_IOC_SET_EVENT size=8 in=0700000000000000 -> ok\n",
      "5 mmap addr=0x0 len=8192 prot=READ|WRITE flags=SHARED|FIXED fd=3 "
      "offset=0xd000000000000000 -> ok addr=0x7f001000\n",
      "6 munmap addr=0x7f001000 len=8192 -> ok\n",
      "7 madvise addr=0x7f001000 len=8192 advice=DONTFORK -> ok\n",
      "8 read_file path=/sys/devices/virtual/kfd/kfd/topology/generation_id cap=64 -> ok len=2\n",
      "9 list_dir path=/sys/devices/virtual/kfd/kfd/topology/nodes -> ok entries=3\n",
      "10 clock_ns clock=BOOTTIME -> ok ns=123456789\n",
      "11 cpu_count -> ok count=8\n",
      "12 process_id -> ok pid=4242\n",
      "13 read_fd fd=3 cap=16 -> ok len=4 data=10111213\n",
      "14 page_size -> ok size=4096\n",
      "15 mem_policy addr=0x7f001000 len=8192 mode=PREFERRED node=1 -> ok\n",
      "16 close fd=3 -> ok\n",
  };
  REQUIRE(t.sink.lines.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(t.sink.lines[i] == expected[i]);
  }
}

TEST_CASE("trace sink receives exactly one NUL-terminated single line per call") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  int fd = -1;
  REQUIRE(o.open(t.p.self, "/dev/kfd", HKE_OPEN_RDWR, &fd) == 0);
  uint32_t cpus = 0;
  for (int i = 0; i < 5; ++i) REQUIRE(o.cpu_count(t.p.self, &cpus) == 0);
  CHECK(o.open(t.p.self, "/missing", HKE_OPEN_READ, &fd) == ENOENT);
  CHECK(t.sink.calls == 7);
  CHECK(t.sink.lines.size() == 7);
  CHECK(t.sink.nul_terminated);
  for (const std::string& l : t.sink.lines) {
    REQUIRE(!l.empty());
    CHECK(l.back() == '\n');
    CHECK(l.find('\n') == l.size() - 1);
  }
}

TEST_CASE("trace numbers calls from 1 without gaps, across all operations") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  CHECK(hke_trace_next_sequence(&t.trace) == 1);
  uint32_t cpus = 0;
  size_t page = 0;
  int32_t pid = 0;
  REQUIRE(o.cpu_count(t.p.self, &cpus) == 0);
  REQUIRE(o.page_size(t.p.self, &page) == 0);
  int fd = -1;
  CHECK(o.open(t.p.self, "/missing", HKE_OPEN_READ, &fd) == ENOENT);  // failures count too
  REQUIRE(o.process_id(t.p.self, &pid) == 0);
  REQUIRE(t.sink.lines.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(t.sink.lines[i].rfind(std::to_string(i + 1) + " ", 0) == 0);
  }
  CHECK(hke_trace_next_sequence(&t.trace) == 5);
}

TEST_CASE("trace shows the errno name and no outputs when the inner call fails") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  int fd = -1;
  CHECK(o.open(t.p.self, "/nope", HKE_OPEN_READ | HKE_OPEN_CLOEXEC, &fd) == ENOENT);
  t.inner.ioctl_result = EINVAL;
  std::array<unsigned char, 40> alloc{};
  CHECK(o.ioctl(t.p.self, 3, kAllocMemoryOfGpu, alloc.data()) == EINVAL);
  t.inner.ioctl_result = 200;  // no name in the errno table
  uint64_t version = 0;
  CHECK(o.ioctl(t.p.self, 3, kGetVersion, &version) == 200);
  char buf[1];
  size_t len = 0;
  CHECK(o.read_file(t.p.self, kGenerationId, buf, sizeof(buf), &len) == EFBIG);
  int entries = 0;
  CHECK(o.list_dir(t.p.self, "/none", CountEntries, &entries) == ENOENT);

  REQUIRE(t.sink.lines.size() == 5);
  CHECK(t.sink.lines[0] == "1 open path=/nope flags=READ|CLOEXEC -> ENOENT\n");
  CHECK(t.sink.lines[1] ==
        "2 ioctl fd=3 req=0xc0284b16 name=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU size=40 in=" +
            std::string(80, '0') + " -> EINVAL\n");
  CHECK(t.sink.lines[2] ==
        "3 ioctl fd=3 req=0x80084b01 name=AMDKFD_IOC_GET_VERSION size=8 -> E200\n");
  CHECK(t.sink.lines[3] ==
        "4 read_file path=/sys/devices/virtual/kfd/kfd/topology/generation_id cap=1 -> EFBIG\n");
  CHECK(t.sink.lines[4] == "5 list_dir path=/none -> ENOENT\n");
}

TEST_CASE("trace names every NUMA policy mode, prints an unknown one as its number, and the errno") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  void* const range = reinterpret_cast<void*>(0x200000);
  REQUIRE(o.mem_policy(t.p.self, range, 4096, HKE_MPOL_DEFAULT, 0) == 0);
  REQUIRE(o.mem_policy(t.p.self, range, 4096, HKE_MPOL_BIND, 3) == 0);
  REQUIRE(o.mem_policy(t.p.self, range, 4096, 7, 2) == 0);
  t.inner.policy_result = EPERM;
  CHECK(o.mem_policy(t.p.self, range, 4096, HKE_MPOL_PREFERRED, 1) == EPERM);
  const std::vector<std::string> expected = {
      "1 mem_policy addr=0x200000 len=4096 mode=DEFAULT node=0 -> ok\n",
      "2 mem_policy addr=0x200000 len=4096 mode=BIND node=3 -> ok\n",
      "3 mem_policy addr=0x200000 len=4096 mode=7 node=2 -> ok\n",
      "4 mem_policy addr=0x200000 len=4096 mode=PREFERRED node=1 -> EPERM\n",
  };
  CHECK(t.sink.lines == expected);
  CHECK(t.inner.CallCount("mem_policy") == 4);
}

TEST_CASE("trace names unknown requests '?' and shows no bytes for size-0 requests") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  const uint32_t unknown = hke::kfd::IocEncode(hke::kfd::kIocReadWrite, 'Z', 0x42, 4);
  uint32_t arg = 0x04030201;
  REQUIRE(o.ioctl(t.p.self, 5, unknown, &arg) == 0);
  REQUIRE(o.ioctl(t.p.self, 5, 0x4b27u, nullptr) == 0);  // AMDKFD_IOC_CREATE_PROCESS, _IO
  REQUIRE(t.sink.lines.size() == 2);
  CHECK(t.sink.lines[0] == "1 ioctl fd=5 req=0xc0045a42 name=? size=4 in=01020304 -> ok out=fefdfcfb\n");
  CHECK(t.sink.lines[1] == "2 ioctl fd=5 req=0x4b27 name=AMDKFD_IOC_CREATE_PROCESS size=0 -> ok\n");
}

TEST_CASE("trace caps huge ioctl arguments and marks the cut with ...") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  const uint32_t huge = hke::kfd::IocEncode(hke::kfd::kIocReadWrite, 'K', 0x7e, hke::kfd::kIocMaxSize);
  std::vector<unsigned char> arg(hke::kfd::kIocMaxSize, 0x11);
  REQUIRE(o.ioctl(t.p.self, 3, huge, arg.data()) == 0);
  REQUIRE(t.sink.lines.size() == 1);
  const std::string& l = t.sink.lines[0];
  CHECK(l.size() <= HKE_TRACE_LINE_MAX);
  const std::string in = "in=" + std::string(2 * HKE_TRACE_HEX_MAX, '1') + "... ";
  const std::string out = "out=" + std::string(2 * HKE_TRACE_HEX_MAX, 'e') + "...\n";
  CHECK(l.find(in) != std::string::npos);
  CHECK(l.find(" -> ok ") != std::string::npos);
  CHECK(l.size() >= out.size());
  CHECK(l.compare(l.size() - out.size(), out.size(), out) == 0);
  CHECK(l.find("size=16383 ") != std::string::npos);
}

TEST_CASE("trace escapes unusual path bytes and caps long paths") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  int fd = -1;
  CHECK(o.open(t.p.self, "/a b/%x\x01", HKE_OPEN_READ, &fd) == ENOENT);
  const std::string long_path = "/" + std::string(5000, 'p');
  CHECK(o.open(t.p.self, long_path.c_str(), HKE_OPEN_READ, &fd) == ENOENT);
  CHECK(o.open(t.p.self, nullptr, HKE_OPEN_READ | 0x100u, &fd) == EINVAL);
  REQUIRE(t.sink.lines.size() == 3);
  CHECK(t.sink.lines[0] == "1 open path=/a%20b/%25x%01 flags=READ -> ENOENT\n");
  CHECK(t.sink.lines[1] == "2 open path=" + long_path.substr(0, HKE_TRACE_PATH_MAX) +
                               "... flags=READ -> ENOENT\n");
  CHECK(t.sink.lines[2] == "3 open path=(null) flags=READ|0x100 -> EINVAL\n");
}

TEST_CASE("trace forwards arguments and results unchanged") {
  Traced t;
  const hke_platform_ops& o = t.ops();
  std::array<unsigned char, 40> alloc{};
  alloc.fill(0x0f);
  REQUIRE(o.ioctl(t.p.self, 3, kAllocMemoryOfGpu, alloc.data()) == 0);
  for (unsigned char b : alloc) CHECK(b == 0xf0);
  char buf[8] = {};
  size_t len = 0;
  REQUIRE(o.read_file(t.p.self, kGenerationId, buf, sizeof(buf), &len) == 0);
  CHECK(len == 2);
  CHECK(std::string(buf, len) == "1\n");
  int seen = 0;
  REQUIRE(o.list_dir(t.p.self, kNodes, StopAfterOne, &seen) == 0);
  CHECK(seen == 1);
  CHECK(t.sink.lines.back() == "3 list_dir path=/sys/devices/virtual/kfd/kfd/topology/nodes -> ok entries=1\n");
  CHECK(t.inner.Calls() == std::vector<std::string>{"ioctl", "read_file", "list_dir"});
}

TEST_CASE("trace init rejects a missing sink or required op and leaves the state untouched") {
  FakeInner inner;
  LineSink sink;
  hke_trace trace;
  std::memset(&trace, 0xA5, sizeof(trace));
  hke_trace before;
  std::memcpy(&before, &trace, sizeof(trace));

  CHECK(hke_trace_init(&trace, inner.platform(), nullptr, &sink) == EINVAL);
  CHECK(hke_trace_init(nullptr, inner.platform(), LineSink::Fn, &sink) == EINVAL);
  CHECK(hke_trace_init(&trace, hke_platform{nullptr, nullptr}, LineSink::Fn, &sink) == EINVAL);
  inner.ops().ioctl = nullptr;
  CHECK(hke_trace_init(&trace, inner.platform(), LineSink::Fn, &sink) == EINVAL);
  CHECK(std::memcmp(&trace, &before, sizeof(trace)) == 0);
}

TEST_CASE("trace leaves optional operations NULL when the inner platform lacks them") {
  FakeInner inner;
  LineSink sink;
  inner.ops().madvise = nullptr;
  // A port built before read_fd/page_size existed: its table ends earlier.
  inner.ops().struct_size = static_cast<uint32_t>(offsetof(hke_platform_ops, read_fd));
  hke_trace trace;
  REQUIRE(hke_trace_init(&trace, inner.platform(), LineSink::Fn, &sink) == 0);
  const hke_platform p = hke_trace_platform(&trace);
  CHECK(p.ops->struct_size == sizeof(hke_platform_ops));
  CHECK(p.ops->abi_version == HKE_PLATFORM_ABI_VERSION);
  CHECK((p.ops->madvise == nullptr));
  CHECK((p.ops->read_fd == nullptr));
  CHECK((p.ops->page_size == nullptr));
  CHECK((p.ops->mmap != nullptr));
  CHECK((p.ops->process_id != nullptr));
  CHECK((p.ops->mem_policy == nullptr));  // appended after read_fd: beyond the old table
}

TEST_CASE("trace sequence numbers stay unique across threads") {
  Traced t;
  constexpr int kThreads = 4;
  constexpr int kCalls = 500;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&t] {
      uint32_t cpus = 0;
      for (int k = 0; k < kCalls; ++k) (void)t.ops().cpu_count(t.p.self, &cpus);
    });
  }
  for (std::thread& th : threads) th.join();
  REQUIRE(t.sink.lines.size() == kThreads * kCalls);
  std::vector<bool> seen(kThreads * kCalls + 1, false);
  for (const std::string& l : t.sink.lines) {
    const size_t seq = std::stoul(l.substr(0, l.find(' ')));
    REQUIRE(seq >= 1);
    REQUIRE(seq <= kThreads * kCalls);
    CHECK_FALSE(seen[seq]);
    seen[seq] = true;
    CHECK(l.substr(l.find(' ')) == " cpu_count -> ok count=8\n");
  }
}

TEST_CASE("trace fd sink writes each line whole to the descriptor") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  FakeInner inner;
  hke_trace trace;
  REQUIRE(hke_trace_init(&trace, inner.platform(), hke_trace_fd_sink, hke_trace_fd_user(fds[1])) == 0);
  const hke_platform p = hke_trace_platform(&trace);
  uint32_t cpus = 0;
  size_t page = 0;
  REQUIRE(p.ops->cpu_count(p.self, &cpus) == 0);
  REQUIRE(p.ops->page_size(p.self, &page) == 0);
  ::close(fds[1]);
  std::string got;
  char buf[256];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    REQUIRE(n >= 0);
    if (n == 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  CHECK(got == "1 cpu_count -> ok count=8\n2 page_size -> ok size=4096\n");
}
