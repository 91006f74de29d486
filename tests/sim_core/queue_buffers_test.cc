// kfdsim queue buffer checks (KFD 1.17, Linux 6.12's kfd_queue_acquire_buffers):
// the ring, the read/write pointers, the EOP buffer and the CWSR area of a new
// queue must be mappings of the right size on the queue's GPU (EINVAL
// otherwise), a live queue holds them (UNMAP/FREE EBUSY), and a board
// reporting KFD 1.16 keeps the older kernels' rule.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

struct SvmReq {
  k::SvmArgs head;
  k::SvmAttribute attrs[2];
};

int SetSvm(Sim& s, uint64_t start, uint64_t size, uint32_t gpu_id, uint32_t flags) {
  SvmReq r{};
  r.head.start_addr = start;
  r.head.size = size;
  r.head.op = k::kSvmOpSetAttr;
  r.head.nattr = 2;
  r.attrs[0] = {k::kSvmAttrAccess, gpu_id};
  r.attrs[1] = {k::kSvmAttrSetFlags, flags};
  const uint32_t req =
      k::IocWithSize(k::kIocSvm, static_cast<uint32_t>(sizeof(k::SvmArgs) + 2 * sizeof(k::SvmAttribute)));
  return s.Io(req, &r);
}

int Create(Sim& s, k::CreateQueueArgs q) { return s.Io(k::kIocCreateQueue, &q); }

}  // namespace

TEST_CASE("sim queue sizes follow the kernel's formula (gfx942 one-XCC partition, gfx90a, gfx1030)") {
  kfdsim::GpuDesc g = Gfx90a();
  g.gfx_target_version = 90402;  // an MI308X CPX partition: 20 CUs, 4 arrays
  g.simd_count = 80;
  g.array_count = 4;
  g.simd_arrays_per_engine = 1;
  // waves min(20 * 40, 4 / 1 * 512) = 800; control stack 40 + 800 * 8 + 8
  // -> 8 KiB; work-group data 20 * (0x80000 + 0x4000 + 0x10000 + 0x1000).
  kfdsim::KernelQueueSizes n = kfdsim::ComputeKernelQueueSizes(g, 4096);
  CHECK(n.ctl_stack_size == 8192);
  CHECK(n.cwsr_size == 8192 + 20 * 0x95000);
  CHECK(n.debug_memory_size == 800 * 32);
  CHECK(n.eop_buffer_size == 4096);
  // gfx1030 (104 CUs here): 32 waves per CU, 12 bytes each, the gfx10 cap.
  kfdsim::GpuDesc r = Gfx1030();
  n = kfdsim::ComputeKernelQueueSizes(r, 4096);
  CHECK(n.ctl_stack_size == 0x7000);
  CHECK(n.debug_memory_size == 104 * 32 * 32);
  // A node whose sysfs states the sizes keeps them.
  r.ctl_stack_size = 0x5000;
  r.cwsr_size = 0x123000;
  n = kfdsim::ComputeKernelQueueSizes(r, 4096);
  CHECK(n.ctl_stack_size == 0x5000);
  CHECK(n.cwsr_size == 0x123000);
  // Before Carrizo there is nothing to save.
  r.gfx_target_version = 70000;
  r.ctl_stack_size = r.cwsr_size = 0;
  n = kfdsim::ComputeKernelQueueSizes(r, 4096);
  CHECK(n.ctl_stack_size == 0);
  CHECK(n.cwsr_size == 0);
  CHECK(n.eop_buffer_size == 0);
}

TEST_CASE("sim CREATE_QUEUE refuses a ring larger or smaller than its BO, or not at its start") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  const k::CreateQueueArgs good = s.QueueArgs(kGpuA, k::kQueueTypeSdma, 0x10000);
  k::CreateQueueArgs q = good;
  q.ring_size = 0x20000;  // the case: a ring size beyond the buffer
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.ring_size = 0x8000;  // half the mapping: not exactly it either
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.ring_base_address += 4096;  // inside the BO, not its first page
  q.ring_size = 4096;
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.ring_base_address = 0x7f100000ull;  // no BO at all
  CHECK(Create(s, q) == EINVAL);
  // A ring under one GPU page is only checked to start a mapping.
  q = s.QueueArgs(kGpuA, k::kQueueTypeSdma, 1024);
  CHECK(Create(s, q) == 0);
  CHECK(Create(s, good) == 0);
  CHECK(s.sim->QueueCount() == 2);
}

TEST_CASE("sim CREATE_QUEUE refuses pointers outside a one-page BO mapped on the queue's GPU") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  const k::CreateQueueArgs good = s.QueueArgs(kGpuA, k::kQueueTypeSdma);
  k::CreateQueueArgs q = good;
  q.read_pointer_address = s.MappedBo(kGpuA, 8192);  // a two-page mapping
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.write_pointer_address = s.MappedBo(kGpuA, 8192) + 4096;  // its second page
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.read_pointer_address = s.MappedBo(kGpuB, 4096);  // mapped on the other GPU only
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.ring_base_address = s.MappedBo(kGpuB, 0x10000);
  CHECK(Create(s, q) == EINVAL);
  CHECK(s.sim->QueueCount() == 0);
}

TEST_CASE("sim compute queues need the node's control stack, CWSR area and EOP buffer") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  const k::CreateQueueArgs good = s.QueueArgs(kGpuA, k::kQueueTypeComputeAql);
  REQUIRE(good.ctl_stack_size != 0);
  k::CreateQueueArgs q = good;
  q.ctl_stack_size += 4096;
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.ctx_save_restore_size -= 4096;  // below the node's cwsr_size
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.ctx_save_restore_size += 4096;  // allowed, but then the area is a page short
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.ctx_save_restore_address = 0;
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.eop_buffer_size = 8192;
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.eop_buffer_address = 0x7f300000ull;
  CHECK(Create(s, q) == EINVAL);
  q = good;
  q.eop_buffer_address = 0;  // an EOP buffer is optional
  CHECK(Create(s, q) == 0);
  // A PM4 compute queue is held to the same rules.
  q = good;
  q.queue_type = k::kQueueTypeCompute;
  q.ctl_stack_size = 0;
  CHECK(Create(s, q) == EINVAL);
  // SDMA queues have no CWSR area: those fields are not looked at.
  q = s.QueueArgs(kGpuA, k::kQueueTypeSdma);
  q.ctl_stack_size = 12345;
  q.eop_buffer_address = 0x7f300000ull;
  CHECK(Create(s, q) == 0);
}

TEST_CASE("sim a CWSR area in SVM ranges needs the GPU's access and GPU_ALWAYS_MAPPED") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  k::CreateQueueArgs q = s.QueueArgs(kGpuA, k::kQueueTypeComputeAql);
  const kfdsim::KernelQueueSizes n = kfdsim::ComputeKernelQueueSizes(s.sim->desc().gpus[0], 4096);
  const uint64_t total = (uint64_t{n.cwsr_size} + n.debug_memory_size + 4095) / 4096 * 4096;
  // SVM ranges are host memory of the process (the kernel checks it).
  void* host = mmap(nullptr, static_cast<size_t>(total), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(host != MAP_FAILED);
  const uint64_t svm = reinterpret_cast<uintptr_t>(host);
  q.ctx_save_restore_address = svm;
  REQUIRE(SetSvm(s, svm, total, kGpuA, k::kSvmFlagHostAccess) == 0);
  CHECK(Create(s, q) == EINVAL);  // not ALWAYS_MAPPED
  REQUIRE(SetSvm(s, svm, total, kGpuA, k::kSvmFlagGpuAlwaysMapped) == 0);
  CHECK(Create(s, q) == 0);
  munmap(host, static_cast<size_t>(total));
}

TEST_CASE("sim AQL rings on gfx8 count half their size, as the kernel sees them") {
  kfdsim::GpuDesc g = Gfx90a();
  g.gfx_target_version = 80003;  // Polaris
  Sim s(MakeBoard({g}));
  s.AcquireAll();
  k::CreateQueueArgs q = s.QueueArgs(kGpuA, k::kQueueTypeComputeAql, 0x10000);
  q.ring_size = 0x20000;  // appears twice the 64 KiB BO
  CHECK(Create(s, q) == 0);
  q.ring_size = 0x10000;
  CHECK(Create(s, q) == EINVAL);
}

TEST_CASE("sim a live queue holds its buffers: UNMAP and FREE are EBUSY until it is destroyed") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  uint64_t ring_handle = 0;
  k::CreateQueueArgs q = s.QueueArgs(kGpuA, k::kQueueTypeSdma);
  q.ring_base_address = s.MappedBo(kGpuA, 0x10000, false, &ring_handle);
  REQUIRE(Create(s, q) == 0);
  k::CreateQueueArgs created = q;
  REQUIRE(s.Io(k::kIocCreateQueue, &created) == 0);  // a second queue on the same buffers
  uint32_t gpu = kGpuA;
  k::UnmapMemoryFromGpuArgs u{};
  u.handle = ring_handle;
  u.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu);
  u.n_devices = 1;
  CHECK(s.Io(k::kIocUnmapMemoryFromGpu, &u) == EBUSY);
  CHECK(s.Free(ring_handle) == EBUSY);
  k::DestroyQueueArgs d{};
  d.queue_id = created.queue_id;
  REQUIRE(s.Io(k::kIocDestroyQueue, &d) == 0);
  CHECK(s.Io(k::kIocUnmapMemoryFromGpu, &u) == EBUSY);  // the first queue still holds it
  d.queue_id = 0;
  REQUIRE(s.Io(k::kIocDestroyQueue, &d) == 0);
  u.n_success = 0;
  CHECK(s.Io(k::kIocUnmapMemoryFromGpu, &u) == 0);
  CHECK(s.Free(ring_handle) == 0);
}

TEST_CASE("sim a board reporting KFD 1.16 keeps the older kernels' rule: no buffer check") {
  Sim s(TwoGpuBoard(16));
  s.AcquireAll();
  k::CreateQueueArgs q = s.QueueArgs(kGpuA, k::kQueueTypeSdma, 0x10000);
  q.ring_size = 0x20000;
  q.read_pointer_address = 0x7f100000ull;
  q.write_pointer_address = 0x7f100008ull;
  CHECK(Create(s, q) == 0);
  q = s.QueueArgs(kGpuA, k::kQueueTypeComputeAql);
  q.ctl_stack_size = 0;
  q.ctx_save_restore_address = 0;
  q.ctx_save_restore_size = 0;
  CHECK(Create(s, q) == 0);
}
