// Faults decorator: which calls fail, that they never reach the inner
// platform, outputs on failure, counters, rule table, threads, stacking
// under the trace decorator.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lib/kfd/ioc.h"
#include "lib/kfd/ioctl_table.h"
#include "hsakmt/hsakmt_faults.h"
#include "hsakmt/hsakmt_trace.h"
#include "tests/platform_decorators/fake_inner.h"

namespace {

using hke_decorator_test::FakeInner;
using hke_decorator_test::LineSink;

constexpr uint32_t kAllocMemoryOfGpu = 0xc0284b16u;
constexpr uint32_t kGetVersion = 0x80084b01u;
constexpr const char* kGenerationId = "/sys/devices/virtual/kfd/kfd/topology/generation_id";
constexpr const char* kNodes = "/sys/devices/virtual/kfd/kfd/topology/nodes";

// Every output any operation may write, so one memcmp covers them all.
struct Outputs {
  int fd;
  void* addr;
  size_t len;
  uint64_t ns;
  uint32_t cpus;
  int32_t pid;
  size_t page;
  int entries;
  unsigned char arg[40];
  unsigned char buf[64];
};

int CountEntries(void* user, const char*, uint32_t) {
  ++*static_cast<int*>(user);
  return 0;
}

// Calls `op` once with fixed arguments, writing outputs into *o.
int CallOp(const hke_platform& p, uint32_t op, Outputs* o) {
  const hke_platform_ops& x = *p.ops;
  void* const range = reinterpret_cast<void*>(0x10000);
  switch (op) {
    case HKE_FAULTS_OP_OPEN: return x.open(p.self, "/dev/kfd", HKE_OPEN_RDWR, &o->fd);
    case HKE_FAULTS_OP_CLOSE: return x.close(p.self, 3);
    case HKE_FAULTS_OP_IOCTL: return x.ioctl(p.self, 3, kAllocMemoryOfGpu, o->arg);
    case HKE_FAULTS_OP_MMAP:
      return x.mmap(p.self, nullptr, 4096, HKE_PROT_READ, HKE_MAP_SHARED, 3, 0, &o->addr);
    case HKE_FAULTS_OP_MUNMAP: return x.munmap(p.self, range, 4096);
    case HKE_FAULTS_OP_MADVISE: return x.madvise(p.self, range, 4096, HKE_ADVICE_DONTFORK);
    case HKE_FAULTS_OP_READ_FILE:
      return x.read_file(p.self, kGenerationId, reinterpret_cast<char*>(o->buf), sizeof(o->buf),
                         &o->len);
    case HKE_FAULTS_OP_LIST_DIR: return x.list_dir(p.self, kNodes, CountEntries, &o->entries);
    case HKE_FAULTS_OP_CLOCK_NS: return x.clock_ns(p.self, HKE_CLOCK_MONOTONIC, &o->ns);
    case HKE_FAULTS_OP_CPU_COUNT: return x.cpu_count(p.self, &o->cpus);
    case HKE_FAULTS_OP_PROCESS_ID: return x.process_id(p.self, &o->pid);
    case HKE_FAULTS_OP_READ_FD: return x.read_fd(p.self, 3, o->buf, 16, &o->len);
    case HKE_FAULTS_OP_PAGE_SIZE: return x.page_size(p.self, &o->page);
    case HKE_FAULTS_OP_MEM_POLICY: return x.mem_policy(p.self, range, 4096, HKE_MPOL_BIND, 1);
    default: return -1;
  }
}

struct Faulted {
  FakeInner inner;
  hke_faults faults;
  hke_platform p{};

  Faulted() {
    REQUIRE(hke_faults_init(&faults, inner.platform()) == 0);
    p = hke_faults_platform(&faults);
  }
  void Add(const std::string& spec) {
    size_t offset = 0;
    REQUIRE(hke_faults_add_spec(&faults, spec.data(), spec.size(), &offset) == HKE_FAULTS_PARSE_OK);
  }
};

hke_faults_rule Rule(uint32_t op, uint32_t when, uint64_t nth, int32_t error) {
  hke_faults_rule r{};
  r.op = op;
  r.when = when;
  r.nth = nth;
  r.error = error;
  return r;
}

}  // namespace

TEST_CASE("faults fail only the n-th call of an operation and keep it from the inner platform") {
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) {
    if (op == HKE_FAULTS_OP_CLOSE) continue;  // close always reaches the inner platform
    const std::string name = hke_faults_op_name(op);
    CAPTURE(name);
    Faulted f;
    f.Add(name + ":2:EIO");
    Outputs o{};
    CHECK(CallOp(f.p, op, &o) == 0);
    CHECK(CallOp(f.p, op, &o) == EIO);
    CHECK(CallOp(f.p, op, &o) == 0);
    CHECK(f.inner.CallCount(name) == 2);
    CHECK(f.inner.Calls().size() == 2);
    CHECK(hke_faults_calls(&f.faults, op) == 3);
    CHECK(hke_faults_rule_matches(&f.faults, 0) == 3);
    CHECK(hke_faults_injected(&f.faults) == 1);
  }
}

TEST_CASE("faults leave every output byte-identical when they inject a failure") {
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) {
    const std::string name = hke_faults_op_name(op);
    CAPTURE(name);
    Faulted f;
    f.Add(name + ":1:ENOMEM");
    Outputs o;
    std::memset(&o, 0xA5, sizeof(o));
    Outputs before;
    std::memcpy(&before, &o, sizeof(o));
    CHECK(CallOp(f.p, op, &o) == ENOMEM);
    CHECK(std::memcmp(&o, &before, sizeof(o)) == 0);
  }
}

TEST_CASE("faults pass calls through unchanged when no rule fires") {
  Faulted f;
  f.Add("ioctl:5:EIO,open:9:ENOENT");
  Outputs o{};
  for (size_t i = 0; i < sizeof(o.arg); ++i) o.arg[i] = static_cast<unsigned char>(i);
  REQUIRE(CallOp(f.p, HKE_FAULTS_OP_IOCTL, &o) == 0);
  for (size_t i = 0; i < sizeof(o.arg); ++i) CHECK(o.arg[i] == static_cast<unsigned char>(i ^ 0xff));
  REQUIRE(CallOp(f.p, HKE_FAULTS_OP_OPEN, &o) == 0);
  CHECK(o.fd == FakeInner::kFirstFd);
  REQUIRE(CallOp(f.p, HKE_FAULTS_OP_READ_FILE, &o) == 0);
  CHECK(std::string(reinterpret_cast<char*>(o.buf), o.len) == "1\n");
  REQUIRE(CallOp(f.p, HKE_FAULTS_OP_MMAP, &o) == 0);
  CHECK(o.addr == reinterpret_cast<void*>(FakeInner::kMapAddress));
  f.inner.ioctl_result = EBUSY;  // inner errors come through as they are
  CHECK(CallOp(f.p, HKE_FAULTS_OP_IOCTL, &o) == EBUSY);
  CHECK(f.inner.Calls() == std::vector<std::string>{"ioctl", "open", "read_file", "mmap", "ioctl"});
  CHECK(hke_faults_injected(&f.faults) == 0);
}

TEST_CASE("an injected close failure still closes the inner descriptor") {
  Faulted f;
  f.Add("close:1:EINTR");
  CHECK(f.p.ops->close(f.p.self, 7) == EINTR);
  CHECK(f.p.ops->close(f.p.self, 8) == 0);
  CHECK(f.inner.Closed() == std::vector<int>{7, 8});
  CHECK(hke_faults_injected(&f.faults) == 1);
}

TEST_CASE("a '*' rule fails every call and an 'N+' rule fails call N and all later ones") {
  Faulted f;
  f.Add("cpu_count:*:EAGAIN,page_size:3+:EFAULT");
  Outputs o{};
  for (int i = 0; i < 4; ++i) CHECK(CallOp(f.p, HKE_FAULTS_OP_CPU_COUNT, &o) == EAGAIN);
  const int expected[] = {0, 0, EFAULT, EFAULT, EFAULT};
  for (int e : expected) CHECK(CallOp(f.p, HKE_FAULTS_OP_PAGE_SIZE, &o) == e);
  CHECK(f.inner.CallCount("cpu_count") == 0);
  CHECK(f.inner.CallCount("page_size") == 2);
  CHECK(hke_faults_injected(&f.faults) == 7);
}

TEST_CASE("an ioctl rule with a request fails only that request and counts only its calls") {
  Faulted f;
  f.Add("ioctl=ALLOC_MEMORY_OF_GPU:2:ENOMEM,ioctl=0x80084b01:1:EBADF");
  std::array<unsigned char, 40> alloc{};
  uint64_t version = 0;
  const hke_platform_ops& x = *f.p.ops;
  CHECK(x.ioctl(f.p.self, 3, kGetVersion, &version) == EBADF);
  CHECK(x.ioctl(f.p.self, 3, kAllocMemoryOfGpu, alloc.data()) == 0);
  CHECK(x.ioctl(f.p.self, 3, kGetVersion, &version) == 0);
  CHECK(x.ioctl(f.p.self, 3, kAllocMemoryOfGpu, alloc.data()) == ENOMEM);
  CHECK(x.ioctl(f.p.self, 3, kAllocMemoryOfGpu, alloc.data()) == 0);
  CHECK(hke_faults_calls(&f.faults, HKE_FAULTS_OP_IOCTL) == 5);
  CHECK(hke_faults_rule_matches(&f.faults, 0) == 3);
  CHECK(hke_faults_rule_matches(&f.faults, 1) == 2);
  CHECK(f.inner.CallCount("ioctl") == 3);
}

TEST_CASE("a request rule given by name matches a variable-size request of any size") {
  size_t count = 0;
  const hke::kfd::IoctlInfo* table = hke::kfd::IoctlTable(&count);
  const hke::kfd::IoctlInfo* svm = nullptr;
  for (size_t i = 0; i < count; ++i) {
    if (table[i].variable_size) svm = &table[i];
  }
  REQUIRE(svm != nullptr);
  Faulted f;
  f.Add(std::string("ioctl=") + svm->name + ":*:EINVAL");
  const uint32_t bigger = hke::kfd::IocWithSize(svm->request, svm->size + 16);
  std::vector<unsigned char> arg(svm->size + 16);
  CHECK(f.p.ops->ioctl(f.p.self, 3, svm->request, arg.data()) == EINVAL);
  CHECK(f.p.ops->ioctl(f.p.self, 3, bigger, arg.data()) == EINVAL);
  std::array<unsigned char, 40> alloc{};
  CHECK(f.p.ops->ioctl(f.p.self, 3, kAllocMemoryOfGpu, alloc.data()) == 0);
}

TEST_CASE("per-op counters let a sweep fail each call of an operation in turn") {
  // The scenario under test: open, three ioctls, close; stops at the first error.
  auto scenario = [](const hke_platform& p, int* failed_ioctl) {
    int fd = -1;
    if (int e = p.ops->open(p.self, "/dev/kfd", HKE_OPEN_RDWR, &fd)) return e;
    std::array<unsigned char, 40> arg{};
    for (int i = 1; i <= 3; ++i) {
      if (int e = p.ops->ioctl(p.self, fd, kAllocMemoryOfGpu, arg.data())) {
        *failed_ioctl = i;
        (void)p.ops->close(p.self, fd);
        return e;
      }
    }
    return p.ops->close(p.self, fd);
  };
  uint64_t ioctls = 0;
  {
    Faulted f;
    int failed = 0;
    REQUIRE(scenario(f.p, &failed) == 0);
    ioctls = hke_faults_calls(&f.faults, HKE_FAULTS_OP_IOCTL);
    CHECK(hke_faults_calls(&f.faults, HKE_FAULTS_OP_OPEN) == 1);
    CHECK(hke_faults_calls(&f.faults, HKE_FAULTS_OP_CLOSE) == 1);
  }
  REQUIRE(ioctls == 3);
  for (uint64_t k = 1; k <= ioctls; ++k) {
    Faulted f;
    f.Add("ioctl:" + std::to_string(k) + ":ENOSPC");
    int failed = 0;
    CHECK(scenario(f.p, &failed) == ENOSPC);
    CHECK(failed == static_cast<int>(k));
    CHECK(f.inner.CallCount("close") == 1);
  }
}

TEST_CASE("the first firing rule supplies the errno and every matching rule counts the call") {
  Faulted f;
  f.Add("process_id:1:EIO,process_id:*:ENOMEM,process_id:2:EPERM");
  Outputs o{};
  CHECK(CallOp(f.p, HKE_FAULTS_OP_PROCESS_ID, &o) == EIO);
  CHECK(CallOp(f.p, HKE_FAULTS_OP_PROCESS_ID, &o) == ENOMEM);
  CHECK(hke_faults_rule_matches(&f.faults, 0) == 2);
  CHECK(hke_faults_rule_matches(&f.faults, 1) == 2);
  CHECK(hke_faults_rule_matches(&f.faults, 2) == 2);
  CHECK(hke_faults_rule_matches(&f.faults, 3) == 0);  // no such rule
  CHECK(hke_faults_injected(&f.faults) == 2);
}

TEST_CASE("reset_counters restarts call numbering and clear_rules stops injection") {
  Faulted f;
  f.Add("cpu_count:1:EIO");
  Outputs o{};
  CHECK(CallOp(f.p, HKE_FAULTS_OP_CPU_COUNT, &o) == EIO);
  CHECK(CallOp(f.p, HKE_FAULTS_OP_CPU_COUNT, &o) == 0);
  hke_faults_reset_counters(&f.faults);
  CHECK(hke_faults_calls(&f.faults, HKE_FAULTS_OP_CPU_COUNT) == 0);
  CHECK(hke_faults_injected(&f.faults) == 0);
  CHECK(CallOp(f.p, HKE_FAULTS_OP_CPU_COUNT, &o) == EIO);
  hke_faults_clear_rules(&f.faults);
  CHECK(hke_faults_rule_count(&f.faults) == 0);
  hke_faults_reset_counters(&f.faults);
  CHECK(CallOp(f.p, HKE_FAULTS_OP_CPU_COUNT, &o) == 0);
  CHECK(hke_faults_calls(&f.faults, HKE_FAULTS_OP_CPU_COUNT) == 1);
  CHECK(hke_faults_calls(&f.faults, HKE_FAULTS_OP_COUNT) == 0);
}

TEST_CASE("add_rule rejects out-of-range rules and a full table") {
  Faulted f;
  std::vector<hke_faults_rule> bad;
  bad.push_back(Rule(HKE_FAULTS_OP_COUNT, HKE_FAULTS_WHEN_NTH, 1, EIO));
  bad.push_back(Rule(HKE_FAULTS_OP_OPEN, 3, 1, EIO));
  bad.push_back(Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_NTH, 0, EIO));
  bad.push_back(Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_FROM, 0, EIO));
  bad.push_back(Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_EVERY, 1, EIO));
  bad.push_back(Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_NTH, 1, 0));
  bad.push_back(Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_NTH, 1, -5));
  bad.push_back(Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_NTH, 1, HKE_FAULTS_MAX_ERRNO + 1));
  hke_faults_rule r = Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_NTH, 1, EIO);
  r.match_request = 1;  // request matching on a non-ioctl op
  r.request = kGetVersion;
  bad.push_back(r);
  r = Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_NTH, 1, EIO);
  r.match_request = 1;  // request 0
  bad.push_back(r);
  r = Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_NTH, 1, EIO);
  r.request = kGetVersion;  // request without match_request
  bad.push_back(r);
  r = Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_NTH, 1, EIO);
  r.reserved = 1;
  bad.push_back(r);
  for (size_t i = 0; i < bad.size(); ++i) {
    CAPTURE(i);
    CHECK(hke_faults_rule_valid(&bad[i]) == 0);
    CHECK(hke_faults_add_rule(&f.faults, &bad[i]) == EINVAL);
  }
  CHECK(hke_faults_add_rule(&f.faults, nullptr) == EINVAL);
  CHECK(hke_faults_rule_count(&f.faults) == 0);

  const hke_faults_rule good = Rule(HKE_FAULTS_OP_MMAP, HKE_FAULTS_WHEN_EVERY, 0, ENOMEM);
  for (unsigned i = 0; i < HKE_FAULTS_MAX_RULES; ++i) REQUIRE(hke_faults_add_rule(&f.faults, &good) == 0);
  CHECK(hke_faults_add_rule(&f.faults, &good) == ENOSPC);
  CHECK(hke_faults_rule_count(&f.faults) == HKE_FAULTS_MAX_RULES);
}

TEST_CASE("add_spec installs all rules of a spec or none") {
  Faulted f;
  size_t offset = 99;
  const std::string bad = "open:1:EIO,close:x:EIO";
  CHECK(hke_faults_add_spec(&f.faults, bad.data(), bad.size(), &offset) == HKE_FAULTS_PARSE_BAD_NTH);
  CHECK(offset == 17);
  CHECK(hke_faults_rule_count(&f.faults) == 0);

  std::string fourteen;
  for (int i = 0; i < 14; ++i) fourteen += std::string(i ? "," : "") + "mmap:*:ENOMEM";
  REQUIRE(hke_faults_add_spec(&f.faults, fourteen.data(), fourteen.size(), &offset) ==
          HKE_FAULTS_PARSE_OK);
  const std::string three = "open:1:EIO,open:2:EIO,open:3:EIO";
  CHECK(hke_faults_add_spec(&f.faults, three.data(), three.size(), &offset) ==
        HKE_FAULTS_PARSE_TOO_MANY_RULES);
  CHECK(offset == 22);  // the third rule is the one that does not fit
  CHECK(hke_faults_rule_count(&f.faults) == 14);
  CHECK(hke_faults_add_spec(nullptr, three.data(), three.size(), &offset) ==
        HKE_FAULTS_PARSE_NULL_ARGUMENT);
}

TEST_CASE("faults init rejects a missing required op, keeps the state, and keeps absent ops NULL") {
  FakeInner inner;
  hke_faults faults;
  std::memset(&faults, 0xA5, sizeof(faults));
  hke_faults before;
  std::memcpy(&before, &faults, sizeof(faults));
  inner.ops().read_file = nullptr;
  CHECK(hke_faults_init(&faults, inner.platform()) == EINVAL);
  CHECK(hke_faults_init(&faults, hke_platform{nullptr, nullptr}) == EINVAL);
  CHECK(hke_faults_init(nullptr, inner.platform()) == EINVAL);
  CHECK(std::memcmp(&faults, &before, sizeof(faults)) == 0);

  FakeInner partial;
  partial.ops().list_dir = nullptr;
  partial.ops().clock_ns = nullptr;
  partial.ops().mem_policy = nullptr;
  REQUIRE(hke_faults_init(&faults, partial.platform()) == 0);
  const hke_platform p = hke_faults_platform(&faults);
  CHECK((p.ops->list_dir == nullptr));
  CHECK((p.ops->clock_ns == nullptr));
  CHECK((p.ops->mem_policy == nullptr));
  CHECK((p.ops->cpu_count != nullptr));
  CHECK(p.ops->struct_size == sizeof(hke_platform_ops));
}

TEST_CASE("an n-th call rule fires exactly once when threads race") {
  Faulted f;
  f.Add("cpu_count:500:EIO");
  constexpr int kThreads = 4;
  constexpr int kCalls = 250;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      uint32_t cpus = 0;
      for (int k = 0; k < kCalls; ++k) {
        if (f.p.ops->cpu_count(f.p.self, &cpus) == EIO) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures.load() == 1);
  CHECK(hke_faults_calls(&f.faults, HKE_FAULTS_OP_CPU_COUNT) == kThreads * kCalls);
  CHECK(hke_faults_injected(&f.faults) == 1);
  CHECK(f.inner.CallCount("cpu_count") == kThreads * kCalls - 1);
}

TEST_CASE("faults inside trace show the injected errno in the trace") {
  FakeInner inner;
  hke_faults faults;
  REQUIRE(hke_faults_init(&faults, inner.platform()) == 0);
  const std::string spec = "ioctl=GET_VERSION:1:EINTR,open:2:EACCES";
  size_t offset = 0;
  REQUIRE(hke_faults_add_spec(&faults, spec.data(), spec.size(), &offset) == HKE_FAULTS_PARSE_OK);
  LineSink sink;
  hke_trace trace;
  REQUIRE(hke_trace_init(&trace, hke_faults_platform(&faults), LineSink::Fn, &sink) == 0);
  const hke_platform p = hke_trace_platform(&trace);

  int fd = -1;
  REQUIRE(p.ops->open(p.self, "/dev/kfd", HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &fd) == 0);
  uint64_t version = 0;
  CHECK(p.ops->ioctl(p.self, fd, kGetVersion, &version) == EINTR);
  CHECK(p.ops->ioctl(p.self, fd, kGetVersion, &version) == 0);
  int fd2 = -1;
  CHECK(p.ops->open(p.self, "/dev/kfd", HKE_OPEN_RDWR, &fd2) == EACCES);
  CHECK(fd2 == -1);

  REQUIRE(sink.lines.size() == 4);
  CHECK(sink.lines[0] == "1 open path=/dev/kfd flags=RDWR|CLOEXEC -> ok fd=3\n");
  CHECK(sink.lines[1] == "2 ioctl fd=3 req=0x80084b01 name=AMDKFD_IOC_GET_VERSION size=8 -> EINTR\n");
  CHECK(sink.lines[2] ==
        "3 ioctl fd=3 req=0x80084b01 name=AMDKFD_IOC_GET_VERSION size=8 -> ok out=5a5a5a5a5a5a5a5a\n");
  CHECK(sink.lines[3] == "4 open path=/dev/kfd flags=RDWR -> EACCES\n");
  CHECK(inner.Calls() == std::vector<std::string>{"open", "ioctl"});
}
