// kfdsim devices and dispatch: opening device nodes, fd identity across
// dup, unknown requests, the size rule, version gating, faults, trace.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "platform/sim/sim.h"
#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

TEST_CASE("sim open of /dev/kfd yields a real descriptor the simulator owns") {
  kfdsim::Simulator sim(TwoGpuBoard());
  int fd = -1;
  REQUIRE(sim.Open("/dev/kfd", O_RDWR | O_CLOEXEC, &fd) == 0);
  CHECK(fd >= 0);
  CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC);
  CHECK(sim.OwnsFd(fd));
  CHECK(sim.OwnsPath("/dev/kfd"));
  CHECK(sim.Close(fd) == 0);
  CHECK_FALSE(sim.OwnsFd(fd));
}

TEST_CASE("sim open refuses paths that are not simulated devices with ENOENT") {
  kfdsim::Simulator sim(TwoGpuBoard());
  int fd = 12345;
  CHECK(sim.Open("/dev/null", O_RDWR, &fd) == ENOENT);
  CHECK(sim.Open("/dev/dri/renderD130", O_RDWR, &fd) == ENOENT);  // not on the board
  CHECK(sim.Open("/dev/dri/renderDx", O_RDWR, &fd) == ENOENT);
  CHECK(fd == 12345);
  CHECK(sim.OwnsPath("/dev/dri/renderD130"));  // still never falls through to the host
  CHECK_FALSE(sim.OwnsPath("/etc/passwd"));
}

TEST_CASE("sim open of a render node the file provider does not list fails with ENOENT") {
  kfdsim::Board board = TwoGpuBoard();
  static_cast<MapProvider*>(board.files.get())->entries.erase("/dev/dri/renderD129");
  kfdsim::Simulator sim(std::move(board));
  int fd = -1;
  CHECK(sim.Open("/dev/dri/renderD129", O_RDWR, &fd) == ENOENT);
  CHECK(sim.Open("/dev/dri/renderD128", O_RDWR, &fd) == 0);
  close(fd);
}

TEST_CASE("sim recognises an F_DUPFD_CLOEXEC copy of a render fd by its inode") {
  Sim s(TwoGpuBoard());
  const int dup_fd = fcntl(s.render[128], F_DUPFD_CLOEXEC, 0);
  REQUIRE(dup_fd >= 0);
  CHECK(s.sim->OwnsFd(dup_fd));
  char name[16] = {};
  hke::kfd::drm::Version v{};
  v.name_len = sizeof(name);
  v.name = name;
  CHECK(s.sim->Ioctl(dup_fd, hke::kfd::drm::kIocVersion, &v) == 0);
  CHECK(std::string(name) == "amdgpu");
  // Closing the dup leaves the original usable.
  CHECK(s.sim->Close(dup_fd) == 0);
  CHECK(s.sim->OwnsFd(s.render[128]));
}

TEST_CASE("sim does not own descriptors of other files") {
  kfdsim::Simulator sim(TwoGpuBoard());
  int p[2];
  REQUIRE(pipe(p) == 0);
  CHECK_FALSE(sim.OwnsFd(p[0]));
  k::GetVersionArgs v{};
  CHECK(sim.Ioctl(p[0], k::kIocGetVersion, &v) == ENOTTY);
  CHECK(sim.Ioctl(-1, k::kIocGetVersion, &v) == EBADF);
  close(p[0]);
  close(p[1]);
}

TEST_CASE("sim GET_VERSION reports the board's KFD version") {
  Sim s(TwoGpuBoard(13));
  k::GetVersionArgs v{};
  REQUIRE(s.Io(k::kIocGetVersion, &v) == 0);
  CHECK(v.major_version == 1);
  CHECK(v.minor_version == 13);
}

TEST_CASE("sim answers unknown KFD requests with ENOTTY and counts them") {
  Sim s(TwoGpuBoard());
  uint64_t buf[8] = {};
  const uint32_t beyond = k::IocEncode(k::kIocReadWrite, 'K', 0x28, 8);
  CHECK(s.Io(beyond, buf) == ENOTTY);
  CHECK(s.sim->unknown_requests() == 1);
  CHECK(s.sim->last_unknown_request() == beyond);
  CHECK(s.Io(k::IocEncode(k::kIocReadWrite, 'K', 0x00, 8), buf) == ENOTTY);
  CHECK(s.Io(k::IocEncode(k::kIocReadWrite, 'Q', 0x01, 8), buf) == ENOTTY);  // wrong type
  CHECK(s.Io(k::kIocCrossMemoryCopy, buf) == ENOTTY);                       // DKMS-only, not served
  CHECK(s.sim->unknown_requests() == 4);
  // A DRM request on the kfd fd is unknown too.
  CHECK(s.Io(hke::kfd::drm::kIocVersion, buf) == ENOTTY);
}

TEST_CASE("sim answers the DKMS DBG_TRAP 0x82 of Debian's 5.2.3 thunk with EINVAL; upstream DBG_TRAP for pid 0 is ESRCH") {
  Sim s(TwoGpuBoard());
  uint8_t buf[32] = {};
  CHECK(s.Io(k::IocEncode(k::kIocReadWrite, 'K', 0x82, 32), buf) == EINVAL);
  CHECK(s.Io(k::kIocDbgTrap, buf) == ESRCH);  // the kernel finds no process 0
  CHECK(s.sim->unknown_requests() == 0);
}

TEST_CASE("sim hides requests newer than the board's KFD version") {
  Sim old(TwoGpuBoard(4));
  k::SetXnackModeArgs x{};
  x.xnack_enabled = -1;
  CHECK(old.Io(k::kIocSetXnackMode, &x) == ENOTTY);
  k::GetAvailableMemoryArgs m{};
  m.gpu_id = kGpuA;
  CHECK(old.Io(k::kIocAvailableMemory, &m) == ENOTTY);
  Sim cur(TwoGpuBoard(17));
  CHECK(cur.Io(k::kIocSetXnackMode, &x) == 0);
  CHECK(cur.Io(k::kIocCreateProcess, static_cast<void*>(nullptr)) == ENOTTY);  // needs 1.19
}

TEST_CASE("sim copies back only the caller's size and zero-extends a short argument") {
  Sim s(TwoGpuBoard());
  // A 4-byte GET_VERSION: only major comes back, the bytes after stay.
  uint32_t words[2] = {0xA5A5A5A5u, 0xA5A5A5A5u};
  REQUIRE(s.Io(k::IocWithSize(k::kIocGetVersion, 4), words) == 0);
  CHECK(words[0] == 1);
  CHECK(words[1] == 0xA5A5A5A5u);
}

TEST_CASE("sim reports EFAULT for an argument pointer that is not mapped") {
  Sim s(TwoGpuBoard());
  CHECK(s.Io(k::kIocGetVersion, reinterpret_cast<k::GetVersionArgs*>(8)) == EFAULT);
}

TEST_CASE("sim copies an argument block in and out alike on the caller's stack and on the heap") {
  Sim s(TwoGpuBoard());
  k::GetVersionArgs on_stack{};  // copied directly (the caller's frame)
  auto* on_heap = new k::GetVersionArgs{};  // through the checked copy
  REQUIRE(s.Io(k::kIocGetVersion, &on_stack) == 0);
  REQUIRE(s.Io(k::kIocGetVersion, on_heap) == 0);
  CHECK(on_stack.major_version == 1);
  CHECK(on_heap->major_version == on_stack.major_version);
  CHECK(on_heap->minor_version == on_stack.minor_version);
  delete on_heap;
}

TEST_CASE("kfdsim_ioctl_owned and kfdsim_mmap_owned serve a simulated descriptor and leave any other alone") {
  kfdsim_options o{};
  o.struct_size = sizeof(o);
  o.board_name = "datacenter-4gpu";
  kfdsim_t* sim = nullptr;
  char err[256] = {};
  REQUIRE(kfdsim_create(&o, &sim, err, sizeof(err)) == 0);
  int kfd = -1;
  REQUIRE(kfdsim_open(sim, "/dev/kfd", O_RDWR | O_CLOEXEC, &kfd) == 0);
  int owned = -1;
  k::GetVersionArgs v{};
  CHECK(kfdsim_ioctl_owned(sim, kfd, k::kIocGetVersion, &v, &owned) == 0);
  CHECK(owned == 1);
  CHECK(v.major_version == 1);
  // A simulated descriptor's errors are its own: an unknown request.
  owned = -1;
  CHECK(kfdsim_ioctl_owned(sim, kfd, k::IocWithSize(k::kIocGetVersion, 0) ^ 0xFFu, &v, &owned) != 0);
  CHECK(owned == 1);
  // A host file: nothing done, the argument untouched.
  const int host = open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(host >= 0);
  k::GetVersionArgs untouched{};
  untouched.major_version = 77;
  owned = -1;
  (void)kfdsim_ioctl_owned(sim, host, k::kIocGetVersion, &untouched, &owned);
  CHECK(owned == 0);
  CHECK(untouched.major_version == 77);
  void* out = reinterpret_cast<void*>(0x1);
  owned = -1;
  (void)kfdsim_mmap_owned(sim, nullptr, 4096, PROT_READ, MAP_SHARED, host, 0, &out, &owned);
  CHECK(owned == 0);
  CHECK(out == reinterpret_cast<void*>(0x1));
  // The simulated descriptor's mmap is served (a bad offset is its error).
  owned = -1;
  CHECK(kfdsim_mmap_owned(sim, nullptr, 4096, PROT_READ, MAP_SHARED, kfd, 0x7FFFF000ull, &out, &owned) != 0);
  CHECK(owned == 1);
  close(host);
  CHECK(kfdsim_close(sim, kfd) == 0);
  kfdsim_destroy(sim);
}

TEST_CASE("kfdsim_pid is the calling process's id, and the child's in a forked child") {
  CHECK(kfdsim_pid() == static_cast<int>(getpid()));
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(kfdsim_pid() == static_cast<int>(getpid()) ? 0 : 1);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(kfdsim_pid() == static_cast<int>(getpid()));
}

TEST_CASE("sim fault injection fails the nth call of a request without running it") {
  Sim s(TwoGpuBoard());
  s.sim->AddFault(k::kIocGetVersion & 0xFFFFu, EIO, 2, 1);
  k::GetVersionArgs v{};
  CHECK(s.Io(k::kIocGetVersion, &v) == 0);
  v.major_version = 77;
  CHECK(s.Io(k::kIocGetVersion, &v) == EIO);
  CHECK(v.major_version == 77);
  CHECK(s.Io(k::kIocGetVersion, &v) == 0);
  s.sim->AddFault(k::kIocGetVersion, ENOMEM, 1, 0);  // every call from now on
  CHECK(s.Io(k::kIocGetVersion, &v) == ENOMEM);
  CHECK(s.Io(k::kIocGetVersion, &v) == ENOMEM);
  s.sim->ClearFaults();
  CHECK(s.Io(k::kIocGetVersion, &v) == 0);
}

struct Lines {
  std::vector<std::string> v;
  static void Fn(void* user, const char* line, size_t length) {
    static_cast<Lines*>(user)->v.emplace_back(line, length);
  }
};

TEST_CASE("sim trace emits one line per call with name, bytes and result") {
  Sim s(TwoGpuBoard());
  Lines lines;
  s.sim->SetTraceSink(Lines::Fn, &lines);
  k::GetVersionArgs v{};
  REQUIRE(s.Io(k::kIocGetVersion, &v) == 0);
  k::SetEventArgs e{};
  e.event_id = 999;
  REQUIRE(s.Io(k::kIocSetEvent, &e) == EINVAL);
  REQUIRE(lines.v.size() == 2);
  CHECK(lines.v[0] == "1 ioctl fd=" + std::to_string(s.kfd) +
                          " dev=kfd req=0x80084b01 name=AMDKFD_IOC_GET_VERSION size=8 in= -> ok "
                          "out=0100000011000000\n");
  CHECK(lines.v[1] == "2 ioctl fd=" + std::to_string(s.kfd) +
                          " dev=kfd req=0x40084b0a name=AMDKFD_IOC_SET_EVENT size=8 "
                          "in=e703000000000000 -> EINVAL\n");
  int fd = -1;
  REQUIRE(s.sim->Open("/dev/kfd", O_RDWR | O_CLOEXEC, &fd) == 0);
  REQUIRE(s.sim->Close(fd) == 0);
  REQUIRE(lines.v.size() == 4);
  CHECK(lines.v[2] == "3 open path=/dev/kfd flags=RDWR|CLOEXEC -> ok fd=" + std::to_string(fd) + "\n");
  CHECK(lines.v[3] == "4 close fd=" + std::to_string(fd) + " -> ok\n");
}

TEST_CASE("sim C ABI forwards to the simulator and serves board files") {
  kfdsim_t* h = kfdsim::WrapBoard(TwoGpuBoard());
  REQUIRE(h != nullptr);
  int fd = -1;
  REQUIRE(kfdsim_open(h, "/dev/kfd", O_RDWR, &fd) == 0);
  CHECK(kfdsim_owns_fd(h, fd) == 1);
  k::GetVersionArgs v{};
  CHECK(kfdsim_ioctl(h, fd, k::kIocGetVersion, &v) == 0);
  CHECK(v.minor_version == 17);
  char buf[4];
  size_t len = 0;
  CHECK(kfdsim_read_file(h, "/sys/devices/virtual/kfd/kfd/topology/generation_id", buf, 1,
                         &len) == EFBIG);
  CHECK(len == 2);
  CHECK(kfdsim_read_file(h, "/sys/devices/virtual/kfd/kfd/topology/generation_id", buf,
                         sizeof(buf), &len) == 0);
  CHECK(std::string(buf, len) == "1\n");
  uint32_t kind = 0;
  CHECK(kfdsim_file_kind(h, "/dev/dri/renderD128", &kind) == 0);
  CHECK(kind == KFDSIM_FILE_DEVICE);
  CHECK(kfdsim_owns_path(h, "/sys/devices/virtual/kfd/kfd/topology/nodes/9") == 1);
  CHECK(kfdsim_cpu_count(h) == 2);
  CHECK(kfdsim_close(h, fd) == 0);
  kfdsim_destroy(h);
}

}  // namespace
