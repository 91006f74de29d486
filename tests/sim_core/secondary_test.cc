// kfdsim secondary processes (AMDKFD_IOC_CREATE_PROCESS, KFD 1.19): a
// descriptor turned into a kfd_process of its own, with its own VMs, BOs
// and events, the kernel's primary-only refusals, and its end when its
// descriptor closes (platform/sim/core/secondary.cc).
#include <doctest/doctest.h>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

constexpr uint32_t kEventHwException = 3;  // a non-signal event: ids from 0x40000000

// A second /dev/kfd descriptor of the same simulated process, and a render
// descriptor of GPU A for it.
struct SecondFds {
  Sim& s;
  int kfd = -1;
  int render = -1;
  explicit SecondFds(Sim& sim) : s(sim) {
    REQUIRE(s.sim->Open("/dev/kfd", O_RDWR | O_CLOEXEC, &kfd) == 0);
    REQUIRE(s.sim->Open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC, &render) == 0);
  }
  ~SecondFds() {
    if (kfd >= 0) (void)s.sim->Close(kfd);
    if (render >= 0) (void)s.sim->Close(render);
  }
  int CreateProcess() { return s.sim->Ioctl(kfd, k::kIocCreateProcess, nullptr); }
  int Acquire(int drm_fd) {
    k::AcquireVmArgs a{};
    a.drm_fd = static_cast<uint32_t>(drm_fd);
    a.gpu_id = kGpuA;
    return s.sim->Ioctl(kfd, k::kIocAcquireVm, &a);
  }
};

k::CreateEventArgs HwExceptionEvent() {
  k::CreateEventArgs e{};
  e.event_type = kEventHwException;
  return e;
}

TEST_CASE("sim CREATE_PROCESS is unknown before KFD 1.19 (ENOTTY)") {
  Sim s(TwoGpuBoard(17));
  SecondFds f(s);
  CHECK(f.CreateProcess() == ENOTTY);
  CHECK(s.sim->SecondaryCount() == 0);
}

TEST_CASE("sim CREATE_PROCESS makes the descriptor a secondary process, once per descriptor") {
  Sim s(TwoGpuBoard(19));
  SecondFds f(s);
  REQUIRE(f.CreateProcess() == 0);
  CHECK(s.sim->SecondaryCount() == 1);
  CHECK(s.sim->OwnsFd(f.kfd));
  CHECK(f.CreateProcess() == EINVAL);  // the descriptor holds a secondary process already
  CHECK(s.sim->SecondaryCount() == 1);
}

TEST_CASE("sim secondary process: its own VM, BOs and events; the primary's are out of reach") {
  Sim s(TwoGpuBoard(19));
  s.AcquireAll();
  SecondFds f(s);
  REQUIRE(f.CreateProcess() == 0);
  // A render file the primary bound its VM to is not the secondary's.
  CHECK(f.Acquire(s.render[128]) == EINVAL);
  REQUIRE(f.Acquire(f.render) == 0);
  CHECK(f.Acquire(f.render) == 0);  // the same file again: already bound to this process

  k::AllocMemoryOfGpuArgs a{};
  a.va_addr = 0x7f0000000000ull;
  a.size = 1 << 20;
  a.gpu_id = kGpuA;
  a.flags = k::kAllocMemVram;
  REQUIRE(s.sim->Ioctl(f.kfd, k::kIocAllocMemoryOfGpu, &a) == 0);
  CHECK(s.sim->BoCount() == 0);  // the primary has none
  k::FreeMemoryOfGpuArgs fr{};
  fr.handle = a.handle;
  CHECK(s.Io(k::kIocFreeMemoryOfGpu, &fr) == EINVAL);  // not a handle of the primary
  CHECK(s.sim->Ioctl(f.kfd, k::kIocFreeMemoryOfGpu, &fr) == 0);

  // Event ids are per process: both get the first non-signal id.
  k::CreateEventArgs p = HwExceptionEvent(), q = HwExceptionEvent();
  REQUIRE(s.Io(k::kIocCreateEvent, &p) == 0);
  REQUIRE(s.sim->Ioctl(f.kfd, k::kIocCreateEvent, &q) == 0);
  CHECK(p.event_id == q.event_id);
  k::DestroyEventArgs d{};
  d.event_id = q.event_id;
  REQUIRE(s.sim->Ioctl(f.kfd, k::kIocDestroyEvent, &d) == 0);
  CHECK(s.sim->Ioctl(f.kfd, k::kIocDestroyEvent, &d) == EINVAL);
  CHECK(s.Io(k::kIocDestroyEvent, &d) == 0);  // the primary's event of that id lives on
}

TEST_CASE("sim secondary process refuses SVM, USERPTR BOs and DBG_TRAP (EOPNOTSUPP)") {
  Sim s(TwoGpuBoard(19));
  SecondFds f(s);
  REQUIRE(f.CreateProcess() == 0);
  REQUIRE(f.Acquire(f.render) == 0);
  k::SvmArgs svm{};
  svm.start_addr = 0x100000;
  svm.size = 0x1000;
  svm.op = k::kSvmOpGetAttr;
  CHECK(s.sim->Ioctl(f.kfd, k::kIocSvm, &svm) == EOPNOTSUPP);
  k::AllocMemoryOfGpuArgs a{};
  a.va_addr = 0x7f0000000000ull;
  a.mmap_offset = 0x7f0000000000ull;
  a.size = 0x1000;
  a.gpu_id = kGpuA;
  a.flags = k::kAllocMemUserptr;
  CHECK(s.sim->Ioctl(f.kfd, k::kIocAllocMemoryOfGpu, &a) == EOPNOTSUPP);
  a.size = 0;
  CHECK(s.sim->Ioctl(f.kfd, k::kIocAllocMemoryOfGpu, &a) == EINVAL);  // size is checked first
  k::DbgTrapArgs t{};
  t.pid = static_cast<uint32_t>(getpid());
  t.op = k::kDbgTrapEnable;
  CHECK(s.sim->Ioctl(f.kfd, k::kIocDbgTrap, &t) == EOPNOTSUPP);
  // The primary still may.
  CHECK(s.Io(k::kIocSvm, &svm) != EOPNOTSUPP);
}

TEST_CASE("sim secondary process ends when its descriptor closes; its render file is free again") {
  Sim s(TwoGpuBoard(19));
  SecondFds f(s);
  REQUIRE(f.CreateProcess() == 0);
  REQUIRE(f.Acquire(f.render) == 0);
  REQUIRE(s.sim->Close(f.kfd) == 0);
  f.kfd = -1;
  CHECK(s.sim->SecondaryCount() == 0);
  CHECK(s.sim->OwnsFd(f.render));  // a plain render file of the root again
  // A new secondary process may bind its VM to the same render file.
  REQUIRE(s.sim->Open("/dev/kfd", O_RDWR | O_CLOEXEC, &f.kfd) == 0);
  REQUIRE(f.CreateProcess() == 0);
  CHECK(f.Acquire(f.render) == 0);
}

TEST_CASE("sim secondary processes are separate from each other and traced through the root") {
  Sim s(TwoGpuBoard(19));
  std::vector<std::string> lines;
  s.sim->SetTraceSink(
      [](void* u, const char* l, size_t n) {
        static_cast<std::vector<std::string>*>(u)->emplace_back(l, n);
      },
      &lines);
  SecondFds f(s), g(s);
  REQUIRE(f.CreateProcess() == 0);
  REQUIRE(g.CreateProcess() == 0);
  CHECK(s.sim->SecondaryCount() == 2);
  REQUIRE(f.Acquire(f.render) == 0);
  CHECK(g.Acquire(f.render) == EINVAL);  // f's process owns that render file
  REQUIRE(g.Acquire(g.render) == 0);
  size_t create_process_lines = 0;
  for (const auto& l : lines) create_process_lines += l.find("CREATE_PROCESS") != std::string::npos;
  CHECK(create_process_lines == 2);
  s.sim->SetTraceSink(nullptr, nullptr);
}

}  // namespace
