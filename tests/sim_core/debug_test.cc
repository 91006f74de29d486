// kfdsim DBG_TRAP (0x26) and RUNTIME_ENABLE as the debugger sees them: the
// kernel's checks in its order (pid, enabled, runtime), ENABLE's runtime
// info, snapshot clamping and stride, SUSPEND/RESUME status bits, and the
// gfx7/8 APU aperture of current kernels.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

k::DbgTrapArgs Trap(uint32_t op) {
  k::DbgTrapArgs a{};
  a.pid = static_cast<uint32_t>(getpid());
  a.op = op;
  return a;
}

int Enable(Sim& s, k::RuntimeInfo* info, uint32_t size = sizeof(k::RuntimeInfo)) {
  k::DbgTrapArgs a = Trap(k::kDbgTrapEnable);
  a.enable.rinfo_ptr = reinterpret_cast<uintptr_t>(info);
  a.enable.rinfo_size = size;
  a.enable.dbg_fd = static_cast<uint32_t>(s.kfd);
  return s.Io(k::kIocDbgTrap, &a);
}

uint32_t MakeQueue(Sim& s, uint64_t* ring = nullptr) {
  k::CreateQueueArgs q = s.QueueArgs(kGpuA, k::kQueueTypeSdma);
  REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
  if (ring != nullptr) *ring = q.ring_base_address;
  return q.queue_id;
}

}  // namespace

TEST_CASE(
    "sim DBG_TRAP: another pid is ESRCH, ops before ENABLE are EINVAL, queue ops without "
    "RUNTIME_ENABLE are EPERM") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::DbgTrapArgs a = Trap(k::kDbgTrapDisable);
  a.pid = 0x7fffffff;
  CHECK(s.Io(k::kIocDbgTrap, &a) == ESRCH);
  a = Trap(k::kDbgTrapGetDeviceSnapshot);
  a.device_snapshot.entry_size = sizeof(k::DbgDeviceInfoEntry);
  CHECK(s.Io(k::kIocDbgTrap, &a) == EINVAL);
  k::RuntimeInfo info{};
  REQUIRE(Enable(s, &info) == 0);
  uint32_t id = 0;
  a = Trap(k::kDbgTrapSuspendQueues);
  a.suspend_queues.queue_array_ptr = reinterpret_cast<uintptr_t>(&id);
  a.suspend_queues.num_queues = 1;
  CHECK(s.Io(k::kIocDbgTrap, &a) == EPERM);
  a = Trap(99);
  CHECK(s.Io(k::kIocDbgTrap, &a) == EINVAL);
}

TEST_CASE(
    "sim DBG_TRAP ENABLE copies the runtime info, reports its size, and refuses twice, a dbg_fd "
    "that is not open and pre-SOC15 GPUs") {
  {
    Sim s(TwoGpuBoard());
    s.AcquireAll();
    k::RuntimeEnableArgs r{};
    r.r_debug = 0x1234000;
    r.mode_mask = k::kRuntimeEnableModeEnable | k::kRuntimeEnableModeTtmpSave;
    REQUIRE(s.Io(k::kIocRuntimeEnable, &r) == 0);
    k::DbgTrapArgs bad = Trap(k::kDbgTrapEnable);
    k::RuntimeInfo info{};
    bad.enable.rinfo_ptr = reinterpret_cast<uintptr_t>(&info);
    bad.enable.rinfo_size = sizeof(info);
    // Only a number that is not open is refused (the kernel's fget); any
    // open file is accepted (debug_events_test.cc).
    const int closed_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    REQUIRE(closed_fd >= 0);
    close(closed_fd);
    bad.enable.dbg_fd = static_cast<uint32_t>(closed_fd);
    CHECK(s.Io(k::kIocDbgTrap, &bad) == EBADF);
    unsigned char small[8];
    std::memset(small, 0xA5, sizeof(small));
    k::DbgTrapArgs a = Trap(k::kDbgTrapEnable);
    a.enable.rinfo_ptr = reinterpret_cast<uintptr_t>(small);
    a.enable.rinfo_size = 4;  // a short buffer gets a prefix
    a.enable.dbg_fd = static_cast<uint32_t>(s.kfd);
    REQUIRE(s.Io(k::kIocDbgTrap, &a) == 0);
    CHECK(a.enable.rinfo_size == sizeof(k::RuntimeInfo));
    uint32_t low = 0;
    std::memcpy(&low, small, 4);
    CHECK(low == 0x1234000u);
    CHECK(small[4] == 0xA5);
    CHECK(Enable(s, &info) == EALREADY);
    k::DbgTrapArgs d = Trap(k::kDbgTrapDisable);
    REQUIRE(s.Io(k::kIocDbgTrap, &d) == 0);
    REQUIRE(Enable(s, &info) == 0);
    CHECK(info.r_debug == 0x1234000u);
    CHECK(info.runtime_state == k::kRuntimeStateEnabled);
    CHECK(info.ttmp_setup == 1);
  }
  kfdsim::GpuDesc g = Gfx90a();
  g.gfx_target_version = 80003;
  Sim old(MakeBoard({g}));
  old.AcquireAll();
  k::RuntimeInfo info{};
  CHECK(Enable(old, &info) == ENODEV);
}

TEST_CASE(
    "sim snapshots: entry_size 0 is EINVAL, the entry size is clamped, entries land at the "
    "caller's stride, the count present is returned") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::RuntimeEnableArgs r{};
  r.mode_mask = k::kRuntimeEnableModeEnable;
  REQUIRE(s.Io(k::kIocRuntimeEnable, &r) == 0);
  uint64_t ring1 = 0;
  const uint32_t q1 = MakeQueue(s, &ring1);
  const uint32_t q2 = MakeQueue(s);
  k::RuntimeInfo info{};
  REQUIRE(Enable(s, &info) == 0);

  k::DbgTrapArgs a = Trap(k::kDbgTrapGetDeviceSnapshot);
  CHECK(s.Io(k::kIocDbgTrap, &a) == EINVAL);  // entry_size 0
  constexpr uint32_t kStride = 128;           // larger than the kernel's 120
  alignas(8) unsigned char dev[3 * kStride];
  std::memset(dev, 0xA5, sizeof(dev));
  a.device_snapshot.snapshot_buf_ptr = reinterpret_cast<uintptr_t>(dev);
  a.device_snapshot.num_devices = 1;
  a.device_snapshot.entry_size = kStride;
  REQUIRE(s.Io(k::kIocDbgTrap, &a) == 0);
  CHECK(a.device_snapshot.num_devices == 2);
  CHECK(a.device_snapshot.entry_size == sizeof(k::DbgDeviceInfoEntry));
  k::DbgDeviceInfoEntry e{};
  std::memcpy(&e, dev, sizeof(e));
  CHECK(e.gpu_id == kGpuA);
  CHECK(dev[sizeof(k::DbgDeviceInfoEntry)] == 0xA5);  // the tail of the stride
  CHECK(dev[kStride] == 0xA5);                        // only one entry asked for

  k::DbgTrapArgs q = Trap(k::kDbgTrapGetQueueSnapshot);
  alignas(8) unsigned char qs[2 * 96];
  std::memset(qs, 0xA5, sizeof(qs));
  q.queue_snapshot.snapshot_buf_ptr = reinterpret_cast<uintptr_t>(qs);
  q.queue_snapshot.num_queues = 2;
  q.queue_snapshot.entry_size = 96;
  REQUIRE(s.Io(k::kIocDbgTrap, &q) == 0);
  CHECK(q.queue_snapshot.num_queues == 2);
  CHECK(q.queue_snapshot.entry_size == sizeof(k::QueueSnapshotEntry));
  k::QueueSnapshotEntry qe{};
  std::memcpy(&qe, qs + 96, sizeof(qe));
  CHECK(qe.queue_id == q2);
  std::memcpy(&qe, qs, sizeof(qe));
  CHECK(qe.queue_id == q1);
  CHECK(qe.queue_type == k::kQueueTypeSdma);
  CHECK(qe.ring_base_address == ring1);
}

TEST_CASE(
    "sim SUSPEND/RESUME_QUEUES mark unknown ids INVALID and repeated requests ERROR, and forget "
    "destroyed queues") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::RuntimeEnableArgs r{};
  r.mode_mask = k::kRuntimeEnableModeEnable;
  REQUIRE(s.Io(k::kIocRuntimeEnable, &r) == 0);
  const uint32_t q = MakeQueue(s);
  k::RuntimeInfo info{};
  REQUIRE(Enable(s, &info) == 0);
  uint32_t ids[2] = {q, 999};
  k::DbgTrapArgs a = Trap(k::kDbgTrapSuspendQueues);
  a.suspend_queues.queue_array_ptr = reinterpret_cast<uintptr_t>(ids);
  a.suspend_queues.num_queues = 2;
  REQUIRE(s.Io(k::kIocDbgTrap, &a) == 0);
  CHECK(ids[0] == q);
  CHECK(ids[1] == (999u | (1u << 30)));
  ids[1] = 999;
  REQUIRE(s.Io(k::kIocDbgTrap, &a) == 0);
  CHECK(ids[0] == (q | (1u << 31)));  // already suspended
  k::DbgTrapArgs res = Trap(k::kDbgTrapResumeQueues);
  res.resume_queues.queue_array_ptr = reinterpret_cast<uintptr_t>(ids);
  res.resume_queues.num_queues = 1;
  ids[0] = q;
  REQUIRE(s.Io(k::kIocDbgTrap, &res) == 0);
  CHECK(ids[0] == q);
  REQUIRE(s.Io(k::kIocDbgTrap, &a) == 0);  // suspended again
  k::DestroyQueueArgs d{};
  d.queue_id = q;
  REQUIRE(s.Io(k::kIocDestroyQueue, &d) == 0);
  const uint32_t q2 = MakeQueue(s);  // may reuse the id: it starts running
  ids[0] = q2;
  REQUIRE(s.Io(k::kIocDbgTrap, &res) == 0);
  CHECK(ids[0] == (q2 | (1u << 31)));  // not suspended, so resuming it is an error
}

TEST_CASE("sim apertures of a gfx8 APU are the canonical SVM range of current kernels") {
  kfdsim::GpuDesc g = Gfx90a();
  g.gfx_target_version = 80001;  // Carrizo
  g.is_apu = true;
  Sim s(MakeBoard({g}));
  k::GetProcessAperturesArgs a{};
  REQUIRE(s.Io(k::kIocGetProcessApertures, &a) == 0);
  CHECK(a.process_apertures[0].lds_base == (1ull << 61));
  CHECK(a.process_apertures[0].gpuvm_base == 0x1000000ull);
  CHECK(a.process_apertures[0].gpuvm_limit == (1ull << 40) - 1);
}
