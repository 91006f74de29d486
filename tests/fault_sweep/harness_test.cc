// The sweep harness checks itself: each leak or contract break the sweep
// looks for, made on purpose, must be reported. Without these a sweep
// that reports nothing would prove nothing.
#include <unistd.h>

#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "lib/kfd/abi.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

bool Mentions(const std::vector<std::string>& v, const char* what) {
  for (const std::string& s : v) {
    if (s.find(what) != std::string::npos) return true;
  }
  return false;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + "\n";
  return s;
}

// act allocates and never frees.
class LeakAllocation : public sweep::Body {
 public:
  void Act(Run& r) override {
    HsaMemFlags f = sweep::Flags();
    f.ui32.NonPaged = 1;
    f.ui32.HostAccess = 1;
    void* p = nullptr;
    r.Step("hsaKmtAllocMemory", [&] { return hsaKmtAllocMemory(r.gpu_node(0), 65536, f, &p); });
  }
};

// act takes a descriptor, a mapping and a kernel BO through the library's
// platform and keeps them.
int g_leaked_fd = -1;
class LeakThroughPlatform : public sweep::Body {
 public:
  void Act(Run& r) override {
    const hke_platform p = r.platform();
    int fd = -1;
    if (p.ops->open(p.self, "/dev/kfd", HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &fd) != 0) {
      r.Violation("self-test: open failed");
      return;
    }
    g_leaked_fd = fd;
    void* m = nullptr;
    if (p.ops->mmap(p.self, nullptr, 4096, HKE_PROT_NONE,
                    HKE_MAP_PRIVATE | HKE_MAP_ANONYMOUS | HKE_MAP_NORESERVE, -1, 0, &m) != 0) {
      r.Violation("self-test: mmap failed");
    }
    HsaNodeProperties props;
    if (hsaKmtGetNodeProperties(r.gpu_node(0), &props) != HSAKMT_STATUS_SUCCESS) {
      r.Violation("self-test: no node properties");
      return;
    }
    hke::kfd::AllocMemoryOfGpuArgs a{};
    a.size = 4096;
    a.gpu_id = props.KFDGpuID;
    a.flags = hke::kfd::kAllocMemVram | hke::kfd::kAllocMemWritable;
    if (p.ops->ioctl(p.self, fd, hke::kfd::kIocAllocMemoryOfGpu, &a) != 0) {
      r.Violation("self-test: ALLOC failed");
    }
  }
};

// A step that writes its output and fails.
class WritesOutputOnFailure : public sweep::Body {
 public:
  void Act(Run& r) override {
    int out = 0;
    r.Step("fake",
           [&] {
             out = 7;
             return HSAKMT_STATUS_ERROR;
           },
           {{&out, sizeof(out)}});
  }
};

// A step that swallows a failed ioctl and returns SUCCESS.
class SwallowsFailure : public sweep::Body {
 public:
  void Act(Run& r) override {
    const hke_platform p = r.platform();
    r.Step("fake", [&] {
      int fd = -1;
      if (p.ops->open(p.self, "/dev/kfd", HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &fd) != 0) {
        return HSAKMT_STATUS_SUCCESS;
      }
      hke::kfd::GetVersionArgs v{};
      (void)p.ops->ioctl(p.self, fd, hke::kfd::kIocGetVersion, &v);
      (void)p.ops->close(p.self, fd);
      return HSAKMT_STATUS_SUCCESS;
    });
  }
};

template <typename B>
sweep::Scenario Make(const char* name) {
  sweep::Scenario s;
  s.name = name;
  s.make = [] { return std::make_unique<B>(); };
  return s;
}

}  // namespace

TEST_CASE("the sweep harness reports an object act leaves behind (slot, range node, stats)") {
  const std::vector<std::string> v = sweep::ReferenceViolations(Make<LeakAllocation>("self-test"));
  INFO(Join(v));
  CHECK(Mentions(v, "arena slot leak"));
  CHECK(Mentions(v, "memory stats after cleanup differ"));
}

TEST_CASE(
    "the sweep harness reports a descriptor, a mapping and a kernel BO taken through the platform "
    "and kept") {
  const std::vector<std::string> v =
      sweep::ReferenceViolations(Make<LeakThroughPlatform>("self-test"));
  INFO(Join(v));
  CHECK(Mentions(v, "descriptor leak"));
  CHECK(Mentions(v, "mapping leak"));
  CHECK(Mentions(v, "kernel BO leak"));
  CHECK(Mentions(v, "process descriptor count"));
  REQUIRE(g_leaked_fd >= 0);
  ::close(g_leaked_fd);
}

TEST_CASE("the sweep harness reports an output written by a failing call") {
  const std::vector<std::string> v =
      sweep::ReferenceViolations(Make<WritesOutputOnFailure>("self-test"));
  INFO(Join(v));
  CHECK(Mentions(v, "wrote its output"));
}

TEST_CASE("the sweep harness reports a call that returns SUCCESS although a platform call failed") {
  const sweep::SweepResult r = sweep::Sweep(Make<SwallowsFailure>("self-test"));
  INFO(Join(r.violations));
  CHECK(r.runs > 1);
  CHECK(Mentions(r.violations, "returned SUCCESS although ioctl AMDKFD_IOC_GET_VERSION failed"));
  CHECK(Mentions(r.violations, "a single EINTR was not retried away") == false);
}
