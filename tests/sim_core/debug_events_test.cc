// kfdsim debug events: DBG_TRAP ENABLE takes any open descriptor as the
// debugger's event file (a FIFO is usual) and the simulated kernel writes a
// byte to it when an event the debugger subscribed to is raised; the raised
// status is read back with QUERY_DEBUG_EVENT and the snapshots.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/sim_core/sim_fixture.h"
#include "tests/support/event_fifo.h"

namespace {

using namespace simtest;

k::DbgTrapArgs Trap(uint32_t op) {
  k::DbgTrapArgs a{};
  a.pid = static_cast<uint32_t>(getpid());
  a.op = op;
  return a;
}

int Enable(Sim& s, int dbg_fd, uint64_t mask) {
  k::RuntimeInfo info{};
  k::DbgTrapArgs a = Trap(k::kDbgTrapEnable);
  a.enable.rinfo_ptr = reinterpret_cast<uintptr_t>(&info);
  a.enable.rinfo_size = sizeof(info);
  a.enable.dbg_fd = static_cast<uint32_t>(dbg_fd);
  a.enable.exception_mask = mask;
  return s.Io(k::kIocDbgTrap, &a);
}

uint32_t MakeQueue(Sim& s, uint32_t gpu_id = kGpuA) {
  k::CreateQueueArgs q = s.QueueArgs(gpu_id, k::kQueueTypeSdma);
  REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
  return q.queue_id;
}

k::DbgTrapQueryDebugEventArgs Query(Sim& s, uint64_t clear, int* rc) {
  k::DbgTrapArgs a = Trap(k::kDbgTrapQueryDebugEvent);
  a.query_debug_event.exception_mask = clear;
  *rc = s.Io(k::kIocDbgTrap, &a);
  return a.query_debug_event;
}

}  // namespace

TEST_CASE("sim DBG_TRAP ENABLE takes a FIFO; a new queue writes one byte and is queryable") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  hketest::EventFifo f;
  REQUIRE(Enable(s, f.fd, k::EcMask(k::kEcQueueNew)) == 0);
  CHECK(f.Drain() == 0);
  const uint32_t q = MakeQueue(s, kGpuB);
  CHECK(f.Drain() == 1);
  int rc = 0;
  const auto ev = Query(s, k::EcMask(k::kEcQueueNew), &rc);
  REQUIRE(rc == 0);
  CHECK(ev.queue_id == q);
  CHECK(ev.gpu_id == kGpuB);
  CHECK(ev.exception_mask == k::EcMask(k::kEcQueueNew));
  Query(s, 0, &rc);
  CHECK(rc == EAGAIN);  // cleared: nothing raised any more
}

TEST_CASE("sim debug events: an unsubscribed event is recorded silently, announced on subscribe") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  hketest::EventFifo f;
  REQUIRE(Enable(s, f.fd, 0) == 0);
  const uint32_t q = MakeQueue(s);
  CHECK(f.Drain() == 0);
  int rc = 0;
  Query(s, 0, &rc);
  CHECK(rc == EAGAIN);  // raised but not subscribed
  k::DbgTrapArgs a = Trap(k::kDbgTrapSetExceptionsEnabled);
  a.set_exceptions_enabled.exception_mask = k::EcMask(k::kEcQueueNew);
  REQUIRE(s.Io(k::kIocDbgTrap, &a) == 0);
  CHECK(f.Drain() == 1);
  // The queue snapshot shows the status and clears what it is asked to.
  k::QueueSnapshotEntry e[2]{};
  a = Trap(k::kDbgTrapGetQueueSnapshot);
  a.queue_snapshot.snapshot_buf_ptr = reinterpret_cast<uintptr_t>(e);
  a.queue_snapshot.num_queues = 2;
  a.queue_snapshot.entry_size = sizeof(e[0]);
  a.queue_snapshot.exception_mask = k::EcMask(k::kEcQueueNew);
  REQUIRE(s.Io(k::kIocDbgTrap, &a) == 0);
  REQUIRE(a.queue_snapshot.num_queues == 1);
  CHECK(e[0].queue_id == q);
  CHECK(e[0].exception_status == k::EcMask(k::kEcQueueNew));
  Query(s, 0, &rc);
  CHECK(rc == EAGAIN);
}

TEST_CASE("sim debug events: RUNTIME_ENABLE and its disable raise EC_PROCESS_RUNTIME") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  hketest::EventFifo f;
  REQUIRE(Enable(s, f.fd, k::EcMask(k::kEcProcessRuntime)) == 0);
  k::RuntimeEnableArgs r{};
  r.mode_mask = k::kRuntimeEnableModeEnable;
  REQUIRE(s.Io(k::kIocRuntimeEnable, &r) == 0);
  CHECK(f.Drain() == 1);
  int rc = 0;
  const auto ev = Query(s, k::EcMask(k::kEcProcessRuntime), &rc);
  REQUIRE(rc == 0);
  CHECK(ev.exception_mask == k::EcMask(k::kEcProcessRuntime));
  CHECK(ev.queue_id == 0);
  CHECK(ev.gpu_id == 0);
  r.mode_mask = 0;
  REQUIRE(s.Io(k::kIocRuntimeEnable, &r) == 0);
  CHECK(f.Drain() == 1);
}

TEST_CASE("sim debug events: the kernel holds the descriptor; DISABLE releases it") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  int p[2];
  REQUIRE(pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0);
  REQUIRE(Enable(s, p[1], k::EcMask(k::kEcQueueNew)) == 0);
  close(p[1]);  // the debugger's number is gone, the file is not
  MakeQueue(s);
  char c = 0;
  CHECK(read(p[0], &c, 1) == 1);
  CHECK(c == '.');
  k::DbgTrapArgs d = Trap(k::kDbgTrapDisable);
  REQUIRE(s.Io(k::kIocDbgTrap, &d) == 0);
  CHECK(read(p[0], &c, 1) == 0);  // the last writer closed: end of file
  close(p[0]);
}

TEST_CASE("sim debug events: a regular file gets its byte 0 written, as kernel_write at pos 0") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  char path[] = "/tmp/hke-dbgfile-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "xyz", 3) == 3);
  REQUIRE(Enable(s, fd, k::EcMask(k::kEcQueueNew)) == 0);
  MakeQueue(s);
  MakeQueue(s);
  char buf[8] = {};
  CHECK(pread(fd, buf, sizeof(buf), 0) == 3);
  CHECK(std::string(buf) == ".yz");
  close(fd);
  unlink(path);
}

TEST_CASE("sim debug events: the thunks' /dev/kfd as dbg_fd is accepted and never written") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  struct stat before{};
  REQUIRE(fstat(s.kfd, &before) == 0);
  REQUIRE(Enable(s, s.kfd, k::EcMask(k::kEcQueueNew)) == 0);
  MakeQueue(s);
  struct stat after{};
  REQUIRE(fstat(s.kfd, &after) == 0);
  CHECK(after.st_size == before.st_size);
  int rc = 0;
  Query(s, 0, &rc);
  CHECK(rc == 0);  // the status is still raised
  k::GetVersionArgs v{};
  CHECK(s.Io(k::kIocGetVersion, &v) == 0);  // the device file still works
}
