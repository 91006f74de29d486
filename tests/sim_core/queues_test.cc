// kfdsim queues: CREATE_QUEUE validation and errno, the 88-byte KFD 1.16
// argument, doorbell offsets, DESTROY/UPDATE/CU mask/GWS/wave state, XNACK
// and RUNTIME_ENABLE interplay, and the doorbell hook seam.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

constexpr uint64_t DoorbellBase(uint32_t gpu_id) { return 3ull << 62 | uint64_t{gpu_id} << 46; }

TEST_CASE("sim CREATE_QUEUE returns queue ids and SOC15 doorbell offsets") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::CreateQueueArgs a = s.QueueArgs(kGpuA), b = s.QueueArgs(kGpuA), sdma = s.QueueArgs(kGpuA, k::kQueueTypeSdma);
  REQUIRE(s.Io(k::kIocCreateQueue, &a) == 0);
  REQUIRE(s.Io(k::kIocCreateQueue, &b) == 0);
  REQUIRE(s.Io(k::kIocCreateQueue, &sdma) == 0);
  CHECK(a.queue_id == 0);
  CHECK(b.queue_id == 1);
  CHECK(a.doorbell_offset == DoorbellBase(kGpuA));
  CHECK(b.doorbell_offset == (DoorbellBase(kGpuA) | 8));
  CHECK((sdma.doorbell_offset & ~0xFFFull & 0x3FFFull) == 4096);  // second page of the slice
  CHECK((sdma.doorbell_offset & ~0x1FFFull) == DoorbellBase(kGpuA));
  CHECK(s.sim->QueueCount() == 3);
}

TEST_CASE("sim accepts the 88-byte CREATE_QUEUE of KFD 1.16 thunks") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  struct {
    k::CreateQueueArgs args;
  } buf;
  buf.args = s.QueueArgs(kGpuA);
  buf.args.sdma_engine_id = 0xA5A5A5A5u;  // beyond the 88 bytes: never read nor written
  const uint32_t req88 = k::IocWithSize(k::kIocCreateQueue, k::kCreateQueueArgsSizeV11);
  CHECK(req88 == 0xc0584b02u);
  REQUIRE(s.Io(req88, &buf.args) == 0);
  CHECK(buf.args.doorbell_offset == DoorbellBase(kGpuA));
  CHECK(buf.args.queue_id == 0);
  CHECK(buf.args.sdma_engine_id == 0xA5A5A5A5u);
}

TEST_CASE("sim CREATE_QUEUE validates like the kernel") {
  Sim s(TwoGpuBoard());
  k::CreateQueueArgs q{};
  q.ring_base_address = 0x7f100000ull;
  q.ring_size = 0x10000;
  q.gpu_id = kGpuA;
  q.queue_type = k::kQueueTypeSdma;
  q.queue_percentage = 100;
  q.read_pointer_address = 0x7f200000ull;
  q.write_pointer_address = 0x7f200008ull;
  CHECK(s.Io(k::kIocCreateQueue, &q) == ESRCH);  // no VM bound
  s.AcquireAll();
  q = s.QueueArgs(kGpuA);
  q.ring_size = 3000;
  CHECK(s.Io(k::kIocCreateQueue, &q) == EINVAL);
  q = s.QueueArgs(kGpuA);
  q.queue_percentage = 101;
  CHECK(s.Io(k::kIocCreateQueue, &q) == EINVAL);
  q = s.QueueArgs(kGpuA);
  q.queue_percentage = 0x164;  // 100% with PM4 target XCC 1 in bits 8-15
  CHECK(s.Io(k::kIocCreateQueue, &q) == 0);
  q = s.QueueArgs(kGpuA);
  q.queue_priority = 16;
  CHECK(s.Io(k::kIocCreateQueue, &q) == EINVAL);
  q = s.QueueArgs(kGpuA);
  q.queue_type = 5;
  CHECK(s.Io(k::kIocCreateQueue, &q) == 524);  // ENOTSUPP
  q = s.QueueArgs(kGpuA);
  q.gpu_id = 0xBAD;
  CHECK(s.Io(k::kIocCreateQueue, &q) == EINVAL);
  q = s.QueueArgs(kGpuA);
  q.read_pointer_address = 0xFFFF800000000000ull;
  CHECK(s.Io(k::kIocCreateQueue, &q) == EFAULT);
  q = s.QueueArgs(kGpuA, k::kQueueTypeSdmaByEngId);
  q.sdma_engine_id = 5;  // engines 0..4 (2 SDMA + 3 XGMI)
  CHECK(s.Io(k::kIocCreateQueue, &q) == EINVAL);
  q.sdma_engine_id = 4;
  CHECK(s.Io(k::kIocCreateQueue, &q) == 0);
}

TEST_CASE("sim CREATE_QUEUE clamps a small ring size up to 1024 and writes it back") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::CreateQueueArgs q = s.QueueArgs(kGpuA);
  q.ring_size = 256;
  REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
  CHECK(q.ring_size == 1024);
}

TEST_CASE("sim SDMA queues are limited by the engines' queue slots") {
  kfdsim::GpuDesc g = Gfx90a();
  g.num_sdma_engines = 1;
  g.num_sdma_queues_per_engine = 2;
  Sim s(MakeBoard({g}));
  s.AcquireAll();
  k::CreateQueueArgs q = s.QueueArgs(kGpuA, k::kQueueTypeSdma);
  REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
  REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
  CHECK(s.Io(k::kIocCreateQueue, &q) == ENOMEM);
}

TEST_CASE("sim DESTROY/UPDATE_QUEUE and SET_CU_MASK report unknown queues and bad values") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::CreateQueueArgs q = s.QueueArgs(kGpuA);
  REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
  k::UpdateQueueArgs u{};
  u.queue_id = q.queue_id;
  u.ring_base_address = q.ring_base_address;
  u.ring_size = 4096;
  u.queue_percentage = 50;
  CHECK(s.Io(k::kIocUpdateQueue, &u) == 0);
  u.queue_priority = 99;
  CHECK(s.Io(k::kIocUpdateQueue, &u) == EINVAL);
  u.queue_priority = 0;
  u.queue_id = 55;
  CHECK(s.Io(k::kIocUpdateQueue, &u) == EFAULT);

  uint32_t mask[40] = {};
  k::SetCuMaskArgs cu{};
  cu.queue_id = q.queue_id;
  cu.cu_mask_ptr = reinterpret_cast<uintptr_t>(mask);
  cu.num_cu_mask = 0;
  CHECK(s.Io(k::kIocSetCuMask, &cu) == EINVAL);
  cu.num_cu_mask = 33;
  CHECK(s.Io(k::kIocSetCuMask, &cu) == EINVAL);
  cu.num_cu_mask = 1280;  // truncated to 1024 bits
  CHECK(s.Io(k::kIocSetCuMask, &cu) == 0);
  cu.queue_id = 55;
  CHECK(s.Io(k::kIocSetCuMask, &cu) == EFAULT);

  k::DestroyQueueArgs d{};
  d.queue_id = 55;
  CHECK(s.Io(k::kIocDestroyQueue, &d) == EINVAL);
  d.queue_id = q.queue_id;
  CHECK(s.Io(k::kIocDestroyQueue, &d) == 0);
  CHECK(s.sim->QueueCount() == 0);
  // The doorbell slot is free again.
  k::CreateQueueArgs q2 = s.QueueArgs(kGpuA);
  REQUIRE(s.Io(k::kIocCreateQueue, &q2) == 0);
  CHECK(q2.doorbell_offset == q.doorbell_offset);
}

TEST_CASE("sim ALLOC_QUEUE_GWS and GET_QUEUE_WAVE_STATE") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  // qb: an SDMA queue, which has no CWSR area.
  k::CreateQueueArgs qa = s.QueueArgs(kGpuA), qb = s.QueueArgs(kGpuB, k::kQueueTypeSdma);
  REQUIRE(s.Io(k::kIocCreateQueue, &qa) == 0);
  REQUIRE(s.Io(k::kIocCreateQueue, &qb) == 0);
  k::AllocQueueGwsArgs g{};
  g.queue_id = qa.queue_id;
  g.num_gws = 1;
  g.first_gws = 9;
  CHECK(s.Io(k::kIocAllocQueueGws, &g) == 0);
  CHECK(g.first_gws == 0);
  g.queue_id = qb.queue_id;  // GPU B has no GWS
  CHECK(s.Io(k::kIocAllocQueueGws, &g) == ENODEV);
  g.queue_id = 77;
  CHECK(s.Io(k::kIocAllocQueueGws, &g) == EINVAL);

  k::GetQueueWaveStateArgs w{};
  w.queue_id = qa.queue_id;
  w.ctl_stack_used_size = 5;
  CHECK(s.Io(k::kIocGetQueueWaveState, &w) == 0);
  CHECK(w.ctl_stack_used_size == 0);
  w.queue_id = qb.queue_id;  // no CWSR area
  CHECK(s.Io(k::kIocGetQueueWaveState, &w) == EINVAL);
}

TEST_CASE("sim SET_XNACK_MODE queries, refuses changes with queues, and needs capable GPUs") {
  Sim one(MakeBoard({Gfx90a()}));
  one.AcquireAll();
  k::SetXnackModeArgs x{};
  x.xnack_enabled = -1;
  REQUIRE(one.Io(k::kIocSetXnackMode, &x) == 0);
  CHECK(x.xnack_enabled == 0);
  x.xnack_enabled = 1;
  REQUIRE(one.Io(k::kIocSetXnackMode, &x) == 0);
  x.xnack_enabled = -1;
  REQUIRE(one.Io(k::kIocSetXnackMode, &x) == 0);
  CHECK(x.xnack_enabled == 1);
  k::CreateQueueArgs q = one.QueueArgs(kGpuA);
  REQUIRE(one.Io(k::kIocCreateQueue, &q) == 0);
  x.xnack_enabled = 0;
  CHECK(one.Io(k::kIocSetXnackMode, &x) == EBUSY);
  x.xnack_enabled = 1;  // the kernel checks for queues before comparing modes
  CHECK(one.Io(k::kIocSetXnackMode, &x) == EBUSY);
  x.xnack_enabled = -1;  // a query is answered
  CHECK(one.Io(k::kIocSetXnackMode, &x) == 0);
  CHECK(x.xnack_enabled == 1);

  Sim two(TwoGpuBoard());  // gfx1030 cannot do XNACK per process
  x.xnack_enabled = 1;
  CHECK(two.Io(k::kIocSetXnackMode, &x) == EPERM);
}

TEST_CASE("sim RUNTIME_ENABLE refuses a second enable and enabling with queues") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::RuntimeEnableArgs r{};
  r.mode_mask = k::kRuntimeEnableModeEnable;
  CHECK(s.Io(k::kIocRuntimeEnable, &r) == 0);
  CHECK(s.Io(k::kIocRuntimeEnable, &r) == EBUSY);
  r.mode_mask = 0;
  CHECK(s.Io(k::kIocRuntimeEnable, &r) == 0);
  k::CreateQueueArgs q = s.QueueArgs(kGpuA);
  REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
  r.mode_mask = k::kRuntimeEnableModeEnable;
  CHECK(s.Io(k::kIocRuntimeEnable, &r) == EEXIST);
}

struct HookLog {
  int calls = 0;
  kfdsim::QueueView last;
  static void Fn(void* user, const kfdsim::QueueView& q) {
    auto* h = static_cast<HookLog*>(user);
    ++h->calls;
    h->last = q;
  }
};

TEST_CASE("sim RingDoorbell hands the queue and its doorbell value to the hook") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::CreateQueueArgs q0 = s.QueueArgs(kGpuA), q1 = s.QueueArgs(kGpuA);
  REQUIRE(s.Io(k::kIocCreateQueue, &q0) == 0);
  REQUIRE(s.Io(k::kIocCreateQueue, &q1) == 0);
  void* page = nullptr;
  REQUIRE(s.sim->Mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd,
                      q1.doorbell_offset & ~0x1FFFull, &page) == 0);
  HookLog log;
  s.sim->SetQueueHook(HookLog::Fn, &log);
  static_cast<volatile uint64_t*>(page)[(q1.doorbell_offset & 0x1FFF) / 8] = 42;
  CHECK(s.sim->RingDoorbell(q1.queue_id) == 0);
  CHECK(log.calls == 1);
  CHECK(log.last.queue_id == q1.queue_id);
  CHECK(log.last.gpu_id == kGpuA);
  CHECK(log.last.doorbell_value == 42);
  CHECK(log.last.ring_size == 0x10000);
  CHECK(s.sim->RingDoorbell(99) == EINVAL);
  munmap(page, 8192);
}

TEST_CASE("sim UPDATE_QUEUE with a NULL ring of size 0 disables a queue of every type; a ring enables it again") {
  Sim s(TwoGpuBoard());
  // Manual engines: the background thread would otherwise run the zero
  // ring the doorbell below announces before UPDATE_QUEUE disables it.
  s.sim->SetEngineMode(kfdsim::Simulator::EngineMode::kManual);
  s.AcquireAll();
  for (uint32_t type : {k::kQueueTypeCompute, k::kQueueTypeComputeAql, k::kQueueTypeSdma,
                        k::kQueueTypeSdmaXgmi}) {
    CAPTURE(type);
    k::CreateQueueArgs q = s.QueueArgs(kGpuA, type);  // compute queues: with a CWSR area
    REQUIRE(s.Io(k::kIocCreateQueue, &q) == 0);
    void* page = nullptr;
    REQUIRE(s.sim->Mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, s.kfd,
                        q.doorbell_offset & ~0x1FFFull, &page) == 0);
    static_cast<volatile uint64_t*>(page)[(q.doorbell_offset & 0x1FFF) / 8] = 7;
    HookLog log;
    s.sim->SetQueueHook(HookLog::Fn, &log);

    k::UpdateQueueArgs u{};
    u.queue_id = q.queue_id;
    u.queue_percentage = 100;  // a NULL ring disables whatever the percentage
    u.queue_priority = 7;
    REQUIRE(s.Io(k::kIocUpdateQueue, &u) == 0);
    kfdsim::Simulator::QueueStatus st;
    REQUIRE(s.sim->GetQueueStatus(q.queue_id, &st) == 0);
    CHECK(st.state == kfdsim::Simulator::kQueueStateDisabled);
    CHECK(s.sim->RingDoorbell(q.queue_id) == 0);
    CHECK(log.calls == 0);  // the doorbell of a disabled queue is ignored
    const bool compute = type == k::kQueueTypeCompute || type == k::kQueueTypeComputeAql;
    k::GetQueueWaveStateArgs w{};
    w.queue_id = q.queue_id;
    if (compute) CHECK(s.Io(k::kIocGetQueueWaveState, &w) == EINVAL);  // not active

    u.ring_base_address = q.ring_base_address;
    u.ring_size = q.ring_size;
    REQUIRE(s.Io(k::kIocUpdateQueue, &u) == 0);
    REQUIRE(s.sim->GetQueueStatus(q.queue_id, &st) == 0);
    CHECK(st.state == kfdsim::Simulator::kQueueStatePending);  // the doorbell said 7
    CHECK(s.sim->RingDoorbell(q.queue_id) == 0);
    CHECK(log.calls == 1);
    CHECK(log.last.doorbell_value == 7);
    CHECK(log.last.ring_base_address == q.ring_base_address);
    if (compute) CHECK(s.Io(k::kIocGetQueueWaveState, &w) == 0);
    s.sim->SetQueueHook(nullptr, nullptr);
    munmap(page, 8192);
  }
}

}  // namespace

namespace {

int32_t XnackMode(Sim& s) {
  k::SetXnackModeArgs x{};
  x.xnack_enabled = -1;
  REQUIRE(s.Io(k::kIocSetXnackMode, &x) == 0);
  return x.xnack_enabled;
}

int SetXnack(Sim& s, int32_t on) {
  k::SetXnackModeArgs x{};
  x.xnack_enabled = on;
  return s.Io(k::kIocSetXnackMode, &x);
}

}  // namespace

TEST_CASE("sim XNACK follows retry faults (noretry) as kfd_process_xnack_mode does") {
  kfdsim::GpuDesc renoir = Gfx90a();
  renoir.gfx_target_version = 90012;
  renoir.noretry = false;  // noretry -1 on GC 9.3.0: retry faults on
  {
    Sim s(MakeBoard({renoir}));
    CHECK(XnackMode(s) == 1);  // a new process starts with XNACK on
    CHECK(SetXnack(s, 0) == 0);
    CHECK(SetXnack(s, 1) == 0);
  }
  renoir.noretry = true;  // booted with amdgpu.noretry=1
  {
    Sim s(MakeBoard({renoir}));
    CHECK(XnackMode(s) == 0);
    CHECK(SetXnack(s, 1) == EPERM);
  }
  kfdsim::GpuDesc navi = Gfx1030();
  navi.noretry = false;  // GC 10.3: no XNACK whatever noretry says
  {
    Sim s(MakeBoard({navi}));
    CHECK(XnackMode(s) == 0);
    CHECK(SetXnack(s, 1) == EPERM);
  }
  kfdsim::GpuDesc mi210 = Gfx90a();
  mi210.noretry = false;  // per-process capable: noretry only sets the default
  {
    Sim s(MakeBoard({mi210}));
    CHECK(XnackMode(s) == 1);
  }
  // gfx90a with retry faults off next to a Renoir with them on: off by
  // default, and every GPU can run XNACK when asked.
  kfdsim::GpuDesc apu = renoir;
  apu.noretry = false;
  apu.gpu_id = kGpuB;
  apu.render_minor = 129;
  Sim s(MakeBoard({Gfx90a(), apu}));
  CHECK(XnackMode(s) == 0);
  CHECK(SetXnack(s, 1) == 0);
  CHECK(XnackMode(s) == 1);
}
