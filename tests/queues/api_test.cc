// Queue creation, update, CU masks, wave state, GWS and destruction through
// the hsaKmt* API on the in-process simulator: what reaches the kernel, what
// the caller gets back, and that failures leave nothing behind.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/context/context.h"
#include "lib/kfd/abi.h"
#include "lib/queues/queues.h"
#include "tests/queues/support.h"

using hketest::SimBoard;
using queuetest::FirstGpuNode;
using queuetest::Props;
using queuetest::QStats;
namespace q = hke::queues;
namespace k = hke::kfd;

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " ";
  return s;
}

size_t Count(const std::vector<std::string>& v, const std::string& name) {
  size_t n = 0;
  for (const auto& x : v) n += x == name;
  return n;
}

// An AQL queue's read and write pointers, in a one-page GTT buffer mapped to
// the node: kernels from KFD 1.17 (Linux 6.12) refuse pointers that are not
// the first page of a one-page mapping on the queue's GPU, and the
// simulator checks it too (platform/sim/core/queue_buffers.cc).
struct Aql {
  explicit Aql(uint32_t node)
      : page(static_cast<uint64_t*>(queuetest::Gtt(node, 4096))), rptr(page[0]), wptr(page[1]) {}
  uint64_t* page;
  uint64_t& rptr;
  uint64_t& wptr;
};

HSAKMT_STATUS CreateAql(uint32_t node, void* ring, uint64_t size, Aql* ptrs, HsaQueueResource* r,
                        HSA_QUEUE_PRIORITY prio = HSA_QUEUE_PRIORITY_NORMAL, HsaEvent* ev = nullptr) {
  *r = HsaQueueResource{};
  r->Queue_read_ptr_aql = &ptrs->rptr;
  r->Queue_write_ptr_aql = &ptrs->wptr;
  return hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE_AQL, 100, prio, ring, size, ev, r);
}

}  // namespace

TEST_CASE("an AQL queue sends the ring, the caller's pointers, priority, EOP and the computed CWSR sizes; the doorbell lies in the node's slice") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  const HsaNodeProperties p = Props(node);
  void* ring = queuetest::Gtt(node, 64 * 1024);
  Aql ptrs(node);
  b.ClearTrace();
  HsaQueueResource r{};
  REQUIRE(CreateAql(node, ring, 64 * 1024, &ptrs, &r, HSA_QUEUE_PRIORITY_HIGH) ==
          HSAKMT_STATUS_SUCCESS);
  INFO(Join(b.Ioctls()));
  const auto args = b.Args("CREATE_QUEUE");
  REQUIRE(args.size() == 1);
  const auto a = SimBoard::As<k::CreateQueueArgs>(args[0]);
  CHECK(a.ring_base_address == reinterpret_cast<uintptr_t>(ring));
  CHECK(a.write_pointer_address == reinterpret_cast<uintptr_t>(&ptrs.wptr));
  CHECK(a.read_pointer_address == reinterpret_cast<uintptr_t>(&ptrs.rptr));
  CHECK(a.ring_size == 64 * 1024);
  CHECK(a.queue_type == k::kQueueTypeComputeAql);
  CHECK(a.queue_percentage == 100);
  CHECK(a.queue_priority == 11);  // HIGH
  CHECK(a.eop_buffer_address != 0);
  CHECK(a.eop_buffer_size == 4096);
  q::NodeFacts f{};
  f.gfx_version = p.EngineId.ui32.Major * 10000 + p.EngineId.ui32.Minor * 100 +
                  p.EngineId.ui32.Stepping;
  f.num_fcompute_cores = p.NumFComputeCores;
  f.num_simd_per_cu = p.NumSIMDPerCU;
  f.num_xcc = p.NumXcc;
  f.num_shader_banks = p.NumShaderBanks;
  f.num_arrays = p.NumArrays;
  f.lds_size_kb = p.LDSSizeInKB;
  q::CwsrSizes want{};
  REQUIRE(q::ComputeCwsr(f, 4096, &want).ok());
  CHECK(a.ctx_save_restore_address != 0);
  CHECK(a.ctx_save_restore_size == want.per_xcc_size);
  CHECK(a.ctl_stack_size == want.ctl_stack_size);
  // The doorbell: the slice mapped once, the queue's 8-byte doorbell at the
  // kernel's in-slice offset.
  const auto out = b.Args("CREATE_QUEUE", "out=");
  REQUIRE(out.size() == 1);
  const uint64_t doorbell_offset = SimBoard::As<k::CreateQueueArgs>(out[0]).doorbell_offset;
  CHECK(r.QueueId != 0);
  CHECK(r.Queue_read_ptr_aql == &ptrs.rptr);
  CHECK(r.Queue_write_ptr_aql == &ptrs.wptr);
  size_t mmaps = 0;
  uint64_t slice = 0;
  for (const std::string& l : b.Trace()) {
    if (l.find(" mmap ") == std::string::npos || l.find("len=0x2000") == std::string::npos) continue;
    ++mmaps;
    slice = std::stoull(l.substr(l.rfind("addr=0x") + 7), nullptr, 16);
  }
  CHECK(mmaps == 1);
  CHECK(r.QueueDoorBell == slice + (doorbell_offset & 0x1FFF));
  CHECK(QStats().live == 1);
  CHECK(QStats().doorbell_mappings == 1);
  REQUIRE(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(QStats().live == 0);
  CHECK(QStats().doorbell_mappings == 1);  // kept until the last close, as upstream
}

TEST_CASE("SDMA queues use the thunk's queue page for their pointers and get neither EOP nor CWSR; queues on a node share one doorbell mapping, kept until the last close") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring1 = queuetest::Gtt(node, 4096);
  void* ring2 = queuetest::Gtt(node, 4096);
  HsaQueueResource r1{}, r2{};
  b.ClearTrace();
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring1, 4096,
                            nullptr, &r1) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring2, 4096,
                            nullptr, &r2) == HSAKMT_STATUS_SUCCESS);
  const auto a = b.Args("CREATE_QUEUE");
  REQUIRE(a.size() == 2);
  const auto first = SimBoard::As<k::CreateQueueArgs>(a[0]);
  CHECK(first.queue_type == k::kQueueTypeSdma);
  CHECK(first.eop_buffer_address == 0);
  CHECK(first.ctx_save_restore_address == 0);
  CHECK(first.write_pointer_address == r1.QueueWptrValue);
  CHECK(first.read_pointer_address == r1.QueueRptrValue);
  CHECK(r1.QueueRptrValue == r1.QueueWptrValue + 8);
  // The pointers are readable host memory, zero at creation.
  CHECK(*r1.Queue_write_ptr_aql == 0);
  CHECK(*r1.Queue_read_ptr_aql == 0);
  CHECK(r1.QueueDoorBell != r2.QueueDoorBell);
  CHECK(QStats().doorbell_mappings == 1);
  REQUIRE(hsaKmtDestroyQueue(r1.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(QStats().doorbell_mappings == 1);
  REQUIRE(hsaKmtDestroyQueue(r2.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(QStats().doorbell_mappings == 1);  // kept for the node's next queue
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(QStats().doorbell_mappings == 0);
}

namespace {

// The ALLOC_MEMORY_OF_GPU of the trace whose VA range holds `va`.
bool AllocHolding(SimBoard& b, uint64_t va, k::AllocMemoryOfGpuArgs* out) {
  for (const std::vector<uint8_t>& bytes : b.Args("ALLOC_MEMORY_OF_GPU")) {
    const auto a = SimBoard::As<k::AllocMemoryOfGpuArgs>(bytes);
    if (va >= a.va_addr && va - a.va_addr < a.size) {
      *out = a;
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("a queue's host buffers belong to the queue's GPU: the pointer page is an uncached GTT BO, the CWSR area a userptr BO, as current upstream") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  // The last GPU, so that "the first GPU's BO" cannot pass for the queue's.
  const uint32_t node = sys.NumNodes - 1;
  REQUIRE(node != FirstGpuNode());
  const HsaNodeProperties props = Props(node);
  REQUIRE(props.NumFComputeCores > 0);
  void* ring = queuetest::Gtt(node, 4096);
  b.ClearTrace();
  HsaQueueResource sdma{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &sdma) == HSAKMT_STATUS_SUCCESS);
  k::AllocMemoryOfGpuArgs page{};
  REQUIRE(AllocHolding(b, sdma.QueueWptrValue, &page));
  CHECK((page.flags & k::kAllocMemDomainMask) == k::kAllocMemGtt);
  CHECK((page.flags & k::kAllocMemUncached) != 0);
  CHECK(page.gpu_id == props.KFDGpuID);
  CHECK(page.size == 4096);
  CHECK(*sdma.Queue_write_ptr_aql == 0);  // CPU-mapped, zero at creation
  REQUIRE(hsaKmtDestroyQueue(sdma.QueueId) == HSAKMT_STATUS_SUCCESS);

  void* ring2 = queuetest::Gtt(node, 4096);
  b.ClearTrace();
  HsaQueueResource pm4{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE, 100, HSA_QUEUE_PRIORITY_NORMAL, ring2, 4096,
                            nullptr, &pm4) == HSAKMT_STATUS_SUCCESS);
  const auto creates = b.Args("CREATE_QUEUE");
  REQUIRE(creates.size() == 1);
  const auto c = SimBoard::As<k::CreateQueueArgs>(creates[0]);
  REQUIRE(c.ctx_save_restore_address != 0);
  k::AllocMemoryOfGpuArgs cwsr{};
  REQUIRE(AllocHolding(b, c.ctx_save_restore_address, &cwsr));
  CHECK((cwsr.flags & k::kAllocMemDomainMask) == k::kAllocMemUserptr);
  CHECK(cwsr.gpu_id == props.KFDGpuID);
  k::AllocMemoryOfGpuArgs page2{};
  REQUIRE(AllocHolding(b, c.write_pointer_address, &page2));
  CHECK((page2.flags & k::kAllocMemDomainMask) == k::kAllocMemGtt);
  CHECK(page2.gpu_id == props.KFDGpuID);
  REQUIRE(hsaKmtDestroyQueue(pm4.QueueId) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("bad rings, priorities, percentages, types and engine ids are refused before any ioctl, with a message") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 8192);
  char* base = static_cast<char*>(ring);
  Aql ptrs(node);
  const uint32_t before = b.Stats().live_objects;
  b.ClearTrace();
  HsaQueueResource r{};
  r.QueueId = 0x1234;
  auto sdma = [&](void* rg, uint64_t size, HSA_QUEUE_PRIORITY prio = HSA_QUEUE_PRIORITY_NORMAL,
                  uint32_t pct = 100) {
    return hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, pct, prio, rg, size, nullptr, &r);
  };
  CHECK(sdma(ring, 512) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("ring") != std::string::npos);
  CHECK(sdma(ring, 3000) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(sdma(ring, 0) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(sdma(base + 64, 4096) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(sdma(nullptr, 4096) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(sdma(ring, 1ull << 32) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(sdma(ring, 4096, static_cast<HSA_QUEUE_PRIORITY>(4)) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("priority") != std::string::npos);
  CHECK(sdma(ring, 4096, HSA_QUEUE_PRIORITY_NORMAL, 101) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("percentage") != std::string::npos);
  CHECK(sdma(ring, 4096, HSA_QUEUE_PRIORITY_NORMAL, 0x10064) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_MULTIMEDIA_DECODE, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                          4096, nullptr, &r) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA_BY_ENG_ID, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                          4096, nullptr, &r) == HSAKMT_STATUS_ERROR);
  const HsaNodeProperties p = Props(node);
  CHECK(hsaKmtCreateQueueExt(node, HSA_QUEUE_SDMA_BY_ENG_ID, 100, HSA_QUEUE_PRIORITY_NORMAL,
                             p.NumSdmaEngines + p.NumSdmaXgmiEngines, ring, 4096, nullptr,
                             &r) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.LastDiag().find("engine") != std::string::npos);
  HsaQueueResource ra{};
  ra.Queue_read_ptr_aql = nullptr;
  ra.Queue_write_ptr_aql = &ptrs.wptr;
  CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                          nullptr, &ra) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, nullptr,
                          nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  // Node 0 is the CPU; a node past the end is no GPU either.
  CHECK(hsaKmtCreateQueue(0, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, nullptr,
                          &r) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtCreateQueue(999, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                          nullptr, &r) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(Count(b.Ioctls(), "CREATE_QUEUE") == 0);
  CHECK(r.QueueId == 0x1234);
  CHECK(b.Stats().live_objects == before);
  CHECK(QStats().live == 0);
}

TEST_CASE("a kernel refusal of CREATE_QUEUE is ERROR and frees every buffer and the slot") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  Aql ptrs(node);
  const uint32_t before = b.Stats().live_objects;
  kfdsim_add_fault(b.sim(), k::kIocCreateQueue & 0xFFFF, ENOMEM, 1, 1);
  HsaQueueResource r{};
  CHECK(CreateAql(node, ring, 4096, &ptrs, &r) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("CREATE_QUEUE") != std::string::npos);
  CHECK(b.Stats().live_objects == before);
  CHECK(QStats().live == 0);
  CHECK(QStats().doorbell_mappings == 0);
  REQUIRE(CreateAql(node, ring, 4096, &ptrs, &r) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.Stats().live_objects == before + 1);  // the node's doorbell BO stays until the close
}

TEST_CASE("a ring size beyond the caller's buffer is refused by the kernel's buffer check (KFD 1.17): ERROR, nothing left behind") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  const uint32_t before = b.Stats().live_objects;
  HsaQueueResource r{};
  r.QueueId = 0x1234;
  // 8 KiB passes the library's ring rule; the buffer behind it is 4 KiB.
  CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 8192,
                          nullptr, &r) == HSAKMT_STATUS_ERROR);
  CHECK(b.LastDiag().find("CREATE_QUEUE") != std::string::npos);
  bool einval = false;  // the kernel's answer, in the simulator's trace
  for (const std::string& line : b.Trace()) {
    einval = einval || (line.find("CREATE_QUEUE") != std::string::npos &&
                        line.find("-> EINVAL") != std::string::npos);
  }
  CHECK(einval);
  CHECK(r.QueueId == 0x1234);
  CHECK(QStats().live == 0);
  CHECK(b.Stats().live_objects == before);
  // The same buffer with its own size is a queue.
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a refused DESTROY_QUEUE keeps the queue and its handle; a retry destroys it; stale and forged handles are INVALID_HANDLE") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  kfdsim_add_fault(b.sim(), k::kIocDestroyQueue & 0xFFFF, EBUSY, 1, 1);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_ERROR);
  CHECK(QStats().live == 1);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtDestroyQueue(0) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtDestroyQueue(reinterpret_cast<uintptr_t>(&r)) == HSAKMT_STATUS_INVALID_HANDLE);
  // A new queue reusing the slot does not revive the old handle.
  HsaQueueResource r2{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r2) == HSAKMT_STATUS_SUCCESS);
  CHECK(r2.QueueId != r.QueueId);
  HSAuint32 mask[1] = {1};
  CHECK(hsaKmtSetQueueCUMask(r.QueueId, 32, mask) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtDestroyQueue(r2.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("CU masks: nonzero multiples of 32 up to 1024 bits reach SET_CU_MASK and GetQueueInfo reports them; others are refused first") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  const HsaNodeProperties p = Props(node);
  void* ring = queuetest::Gtt(node, 4096);
  Aql ptrs(node);
  HsaQueueResource r{};
  REQUIRE(CreateAql(node, ring, 4096, &ptrs, &r) == HSAKMT_STATUS_SUCCESS);
  HsaQueueInfo info{};
  REQUIRE(hsaKmtGetQueueInfo(r.QueueId, &info) == HSAKMT_STATUS_SUCCESS);
  const uint32_t cus = p.NumFComputeCores / p.NumSIMDPerCU;
  CHECK(info.NumCUAssigned == (cus + 31) / 32 * 32);
  REQUIRE(info.CUMaskInfo != nullptr);
  CHECK(info.CUMaskInfo[0] == 0xFFFFFFFFu);
  b.ClearTrace();
  HSAuint32 mask[33] = {};
  mask[0] = 0x0F0F0F0F;
  mask[1] = 0x1;
  CHECK(hsaKmtSetQueueCUMask(r.QueueId, 0, mask) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSetQueueCUMask(r.QueueId, 33, mask) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSetQueueCUMask(r.QueueId, 1056, mask) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtSetQueueCUMask(r.QueueId, 64, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(Count(b.Ioctls(), "SET_CU_MASK") == 0);
  REQUIRE(hsaKmtSetQueueCUMask(r.QueueId, 64, mask) == HSAKMT_STATUS_SUCCESS);
  const auto a = b.Args("SET_CU_MASK");
  REQUIRE(a.size() == 1);
  CHECK(SimBoard::As<k::SetCuMaskArgs>(a[0]).num_cu_mask == 64);
  REQUIRE(hsaKmtGetQueueInfo(r.QueueId, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(info.NumCUAssigned == 64);
  CHECK(info.CUMaskInfo[0] == 0x0F0F0F0Fu);
  CHECK(info.CUMaskInfo[1] == 0x1u);
  // The kernel's refusal leaves the recorded mask as it was.
  kfdsim_add_fault(b.sim(), k::kIocSetCuMask & 0xFFFF, EFAULT, 1, 1);
  HSAuint32 other[1] = {0x3};
  CHECK(hsaKmtSetQueueCUMask(r.QueueId, 32, other) == HSAKMT_STATUS_ERROR);
  REQUIRE(hsaKmtGetQueueInfo(r.QueueId, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(info.NumCUAssigned == 64);
  CHECK(info.CUMaskInfo[0] == 0x0F0F0F0Fu);
  REQUIRE(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("GetQueueInfo reads the wave state of a compute queue's save area; an SDMA queue has none") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  void* ring2 = queuetest::Gtt(node, 4096);
  Aql ptrs(node);
  HsaQueueResource r{}, s{};
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = node;
  HsaEvent* ev = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, true, false, &ev) == HSAKMT_STATUS_SUCCESS);
  volatile HSAint64 error_reason = 0;
  r.ErrorReason = &error_reason;
  r.Queue_read_ptr_aql = &ptrs.rptr;
  r.Queue_write_ptr_aql = &ptrs.wptr;
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                            4096, ev, &r) == HSAKMT_STATUS_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(r.ErrorReason) == reinterpret_cast<uintptr_t>(&error_reason));
  HsaQueueInfo info{};
  b.ClearTrace();
  REQUIRE(hsaKmtGetQueueInfo(r.QueueId, &info) == HSAKMT_STATUS_SUCCESS);
  CHECK(Count(b.Ioctls(), "GET_QUEUE_WAVE_STATE") == 1);
  REQUIRE(info.SaveAreaHeader != nullptr);
  // The header carries the error event and the caller's ErrorReason.
  k::ContextSaveAreaHeader header{};
  std::memcpy(&header, info.SaveAreaHeader, sizeof(header));
  CHECK(header.err_payload_addr == reinterpret_cast<uintptr_t>(&error_reason));
  CHECK(header.err_event_id == ev->EventId);
  CHECK(info.ControlStackUsedInBytes == 0);  // nothing was saved
  CHECK(reinterpret_cast<uintptr_t>(info.ControlStackTop) ==
        reinterpret_cast<uintptr_t>(info.UserContextSaveArea));
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring2, 4096,
                            nullptr, &s) == HSAKMT_STATUS_SUCCESS);
  HsaQueueInfo untouched{};
  untouched.NumCUAssigned = 77;
  CHECK(hsaKmtGetQueueInfo(s.QueueId, &untouched) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(untouched.NumCUAssigned == 77);
  CHECK(hsaKmtGetQueueInfo(r.QueueId, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  REQUIRE(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtDestroyQueue(s.QueueId) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtDestroyEvent(ev) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("UpdateQueue sends the new ring and priority, may disable the queue, and refuses a bad ring first") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  void* ring2 = queuetest::Gtt(node, 8192);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  CHECK(hsaKmtUpdateQueue(r.QueueId, 100, HSA_QUEUE_PRIORITY_NORMAL, ring2, 1000, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtUpdateQueue(r.QueueId, 100, HSA_QUEUE_PRIORITY_NORMAL, nullptr, 4096, nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(Count(b.Ioctls(), "UPDATE_QUEUE") == 0);
  REQUIRE(hsaKmtUpdateQueue(r.QueueId, 50, HSA_QUEUE_PRIORITY_MINIMUM, ring2, 8192, nullptr) ==
          HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtUpdateQueue(r.QueueId, 0, HSA_QUEUE_PRIORITY_NORMAL, nullptr, 0, nullptr) ==
          HSAKMT_STATUS_SUCCESS);
  const auto a = b.Args("UPDATE_QUEUE");
  REQUIRE(a.size() == 2);
  const auto moved = SimBoard::As<k::UpdateQueueArgs>(a[0]);
  CHECK(moved.ring_base_address == reinterpret_cast<uintptr_t>(ring2));
  CHECK(moved.ring_size == 8192);
  CHECK(moved.queue_percentage == 50);
  CHECK(moved.queue_priority == 0);  // MINIMUM
  const auto stopped = SimBoard::As<k::UpdateQueueArgs>(a[1]);
  CHECK(stopped.ring_base_address == 0);
  CHECK(stopped.queue_percentage == 0);
  REQUIRE(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("AllocQueueGWS returns the kernel's first GWS and maps its errors") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  Aql ptrs(node);
  HsaQueueResource r{};
  REQUIRE(CreateAql(node, ring, 4096, &ptrs, &r) == HSAKMT_STATUS_SUCCESS);
  HSAuint32 first = 99;
  const HsaNodeProperties p = Props(node);
  REQUIRE(p.NumGws != 0);  // datacenter-4gpu's GPUs have 64
  CHECK(hsaKmtAllocQueueGWS(r.QueueId, 1, &first) == HSAKMT_STATUS_SUCCESS);
  CHECK(first == 0);
  first = 99;
  kfdsim_add_fault(b.sim(), k::kIocAllocQueueGws & 0xFFFF, EBUSY, 1, 1);
  CHECK(hsaKmtAllocQueueGWS(r.QueueId, 1, &first) == HSAKMT_STATUS_OUT_OF_RESOURCES);
  kfdsim_add_fault(b.sim(), k::kIocAllocQueueGws & 0xFFFF, ENODEV, 1, 1);
  CHECK(hsaKmtAllocQueueGWS(r.QueueId, 1, &first) == HSAKMT_STATUS_NOT_SUPPORTED);
  kfdsim_add_fault(b.sim(), k::kIocAllocQueueGws & 0xFFFF, EINVAL, 1, 1);
  CHECK(hsaKmtAllocQueueGWS(r.QueueId, 1, &first) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(first == 99);
  CHECK(hsaKmtAllocQueueGWS(r.QueueId, 1, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  REQUIRE(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("the last close destroys every live queue and unmaps the doorbells; a reopen starts empty") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  void* ring2 = queuetest::Gtt(node, 4096);
  Aql ptrs(node);
  HsaQueueResource r{}, s{};
  REQUIRE(CreateAql(node, ring, 4096, &ptrs, &r) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring2, 4096,
                            nullptr, &s) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  const auto io = b.Ioctls();
  INFO(Join(io));
  CHECK(Count(io, "DESTROY_QUEUE") == 2);
  CHECK(QStats().live == 0);
  CHECK(QStats().doorbell_mappings == 0);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_INVALID_HANDLE);
}

TEST_CASE("the kernel's SDMA queue limit surfaces as ERROR and leaves every earlier queue working") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  const HsaNodeProperties p = Props(node);
  const uint32_t limit = p.NumSdmaEngines * p.NumSdmaQueuesPerEngine;
  REQUIRE(limit > 0);
  void* ring = queuetest::Gtt(node, 4096);
  std::vector<HsaQueueResource> qs(limit);
  for (uint32_t i = 0; i < limit; ++i) {
    REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                              nullptr, &qs[i]) == HSAKMT_STATUS_SUCCESS);
  }
  const uint32_t objects = b.Stats().live_objects;
  HsaQueueResource extra{};
  CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                          nullptr, &extra) == HSAKMT_STATUS_ERROR);
  CHECK(b.Stats().live_objects == objects);
  CHECK(QStats().live == limit);
  for (auto& r : qs) CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(QStats().live == 0);
}

namespace {

// Creates an AQL and an SDMA queue on every GPU node of the board and checks
// the EOP and CWSR arguments against the rules for that node.
void EveryGpuNode(SimBoard& b) {
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  uint32_t gpus = 0;
  for (uint32_t node = 0; node < sys.NumNodes; ++node) {
    const HsaNodeProperties p = Props(node);
    if (p.NumFComputeCores == 0) continue;
    ++gpus;
    CAPTURE(node);
    void* ring = queuetest::Gtt(node, 4096);
    Aql ptrs(node);
    HsaQueueResource r{};
    b.ClearTrace();
    REQUIRE(CreateAql(node, ring, 4096, &ptrs, &r) == HSAKMT_STATUS_SUCCESS);
    const auto a = b.Args("CREATE_QUEUE");
    REQUIRE(a.size() == 1);
    const uint32_t gfx = p.EngineId.ui32.Major * 10000 + p.EngineId.ui32.Minor * 100 +
                         p.EngineId.ui32.Stepping;
    CAPTURE(gfx);
    const auto created = SimBoard::As<k::CreateQueueArgs>(a[0]);
    CHECK(created.eop_buffer_size == q::EopBufferSize(gfx, k::kQueueTypeComputeAql));
    CHECK((created.eop_buffer_address != 0) ==
          (q::EopBufferSize(gfx, k::kQueueTypeComputeAql) != 0));
    q::NodeFacts f{};
    f.gfx_version = gfx;
    f.num_fcompute_cores = p.NumFComputeCores;
    f.num_simd_per_cu = p.NumSIMDPerCU;
    f.num_xcc = p.NumXcc;
    f.num_shader_banks = p.NumShaderBanks;
    f.num_arrays = p.NumArrays;
    f.lds_size_kb = p.LDSSizeInKB;
    q::CwsrSizes want{};
    REQUIRE(q::ComputeCwsr(f, 4096, &want).ok());
    CHECK(created.ctx_save_restore_size == want.per_xcc_size);
    CHECK(created.ctl_stack_size == want.ctl_stack_size);
    HsaQueueResource s{};
    REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                              nullptr, &s) == HSAKMT_STATUS_SUCCESS);
    // Doorbells of one node share a slice: 8-byte apart at most a slice away.
    const uint64_t da = r.QueueDoorBell, ds = s.QueueDoorBell;
    CHECK((da > ds ? da - ds : ds - da) < q::DoorbellSliceSize(gfx, 4096));
    CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDestroyQueue(s.QueueId) == HSAKMT_STATUS_SUCCESS);
  }
  CHECK(gpus > 0);
  CHECK(QStats().live == 0);
  CHECK(QStats().doorbell_mappings == gpus);  // one per node, kept until the close
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(QStats().doorbell_mappings == 0);
}

}  // namespace

TEST_CASE("queues on the APU board: EOP and CWSR sized for gfx90c, the doorbell slice shared") {
  SimBoard b(nullptr, "apu-embedded");
  EveryGpuNode(b);
}

TEST_CASE("queues on every GPU of the captured mixed gfx906/gfx1102/gfx1032 box follow each node's CWSR rule") {
  SimBoard b("mixed-gfx906-gfx1102-gfx1032", nullptr);
  EveryGpuNode(b);
}

TEST_CASE("queues on the captured MI300X CPX box: gfx942 AQL queues get no EOP buffer") {
  SimBoard b("mi300x-8gpu-cpx", nullptr);
  EveryGpuNode(b);
}

TEST_CASE("SetXNACKMode while a queue exists is ERROR, as upstream, and the diagnostic keeps EBUSY") {
  SimBoard b(nullptr, "datacenter-4gpu");  // gfx90a: XNACK can change per process
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  REQUIRE(hsaKmtSetXNACKMode(1) == HSAKMT_STATUS_SUCCESS);  // no queue yet: it changes
  void* ring = queuetest::Gtt(node, 4096);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  b.ClearTrace();
  CHECK(hsaKmtSetXNACKMode(0) == HSAKMT_STATUS_ERROR);
  CHECK(Count(b.Ioctls(), "SET_XNACK_MODE!") == 1);  // the kernel refused it
  CHECK(b.LastDiagStatus() == hke::Status::Errno(EBUSY).raw());
  CHECK(b.LastDiag().find("queue") != std::string::npos);
  HSAint32 mode = -1;
  REQUIRE(hsaKmtGetXNACKMode(&mode) == HSAKMT_STATUS_SUCCESS);  // a query is never refused
  CHECK(mode == 1);
  REQUIRE(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtSetXNACKMode(0) == HSAKMT_STATUS_SUCCESS);  // no queue left
  REQUIRE(hsaKmtGetXNACKMode(&mode) == HSAKMT_STATUS_SUCCESS);
  CHECK(mode == 0);
}

namespace {

// The CREATE_QUEUE requests traced since the last ClearTrace, as the
// kernel's structure.
std::vector<k::CreateQueueArgs> CreateRequests(SimBoard& b) {
  std::vector<k::CreateQueueArgs> out;
  for (const auto& bytes : b.Args("CREATE_QUEUE")) {
    out.push_back(SimBoard::As<k::CreateQueueArgs>(bytes));
  }
  return out;
}

}  // namespace

TEST_CASE("CreateQueueExt takes any SDMA engine id for queue types other than SDMA_BY_ENG_ID and passes it on as upstream does; the kernel ignores it") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  REQUIRE(Props(node).NumSdmaXgmiEngines > 0);
  // The runtime passes -1 (its "no recommended engine") on SDMA and xGMI
  // SDMA queues; any other value is ignored the same way.
  struct Case {
    HSA_QUEUE_TYPE type;
    uint32_t engine;
    uint32_t kfd_type;
  };
  const Case cases[] = {
      {HSA_QUEUE_SDMA, 0xFFFFFFFFu, k::kQueueTypeSdma},
      {HSA_QUEUE_SDMA_XGMI, 0xFFFFFFFFu, k::kQueueTypeSdmaXgmi},
      {HSA_QUEUE_SDMA, 1u, k::kQueueTypeSdma},
      {HSA_QUEUE_COMPUTE, 5u, k::kQueueTypeCompute},
  };
  for (const Case& c : cases) {
    CAPTURE(c.type);
    CAPTURE(c.engine);
    void* ring = queuetest::Gtt(node, 4096);
    HsaQueueResource r{};
    b.ClearTrace();
    REQUIRE(hsaKmtCreateQueueExt(node, c.type, 100, HSA_QUEUE_PRIORITY_MAXIMUM, c.engine, ring, 4096,
                                 nullptr, &r) == HSAKMT_STATUS_SUCCESS);
    const std::vector<k::CreateQueueArgs> sent = CreateRequests(b);
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].queue_type == c.kfd_type);
    CHECK(sent[0].sdma_engine_id == c.engine);
    CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  }
  // SDMA_BY_ENG_ID still sends its engine, and still checks it.
  const HsaNodeProperties p = Props(node);
  void* ring = queuetest::Gtt(node, 4096);
  HsaQueueResource r{};
  b.ClearTrace();
  REQUIRE(hsaKmtCreateQueueExt(node, HSA_QUEUE_SDMA_BY_ENG_ID, 100, HSA_QUEUE_PRIORITY_NORMAL,
                               p.NumSdmaEngines, ring, 4096, nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  const std::vector<k::CreateQueueArgs> sent = CreateRequests(b);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].sdma_engine_id == p.NumSdmaEngines);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtCreateQueueExt(node, HSA_QUEUE_SDMA_BY_ENG_ID, 100, HSA_QUEUE_PRIORITY_NORMAL,
                             0xFFFFFFFFu, ring, 4096, nullptr, &r) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_CASE("UpdateQueue with a NULL ring of size 0 disables a PM4, AQL or SDMA queue at any percentage; an update with its ring enables it again") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  for (HSA_QUEUE_TYPE type : {HSA_QUEUE_COMPUTE, HSA_QUEUE_COMPUTE_AQL, HSA_QUEUE_SDMA}) {
    CAPTURE(type);
    void* ring = queuetest::Gtt(node, 4096);
    Aql ptrs(node);
    HsaQueueResource r{};
    if (type == HSA_QUEUE_COMPUTE_AQL) {
      REQUIRE(CreateAql(node, ring, 4096, &ptrs, &r) == HSAKMT_STATUS_SUCCESS);
    } else {
      REQUIRE(hsaKmtCreateQueue(node, type, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, nullptr,
                                &r) == HSAKMT_STATUS_SUCCESS);
    }
    uint32_t kid = 0;
    REQUIRE(q::KernelQueueId(hke_default_context()->impl, r.QueueId, &kid).ok());
    auto state = [&] {
      kfdsim_queue_info info{};
      info.struct_size = sizeof(info);
      REQUIRE(kfdsim_queue_status(b.sim(), kid, &info, nullptr, 0) == 0);
      return info.state;
    };
    b.ClearTrace();
    // As a conformance suite written for upstream disables a queue.
    REQUIRE(hsaKmtUpdateQueue(r.QueueId, 100, HSA_QUEUE_PRIORITY_NORMAL, nullptr, 0, nullptr) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(state() == KFDSIM_QUEUE_DISABLED);
    REQUIRE(hsaKmtUpdateQueue(r.QueueId, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, nullptr) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(state() == KFDSIM_QUEUE_IDLE);
    const auto sent = b.Args("UPDATE_QUEUE");
    REQUIRE(sent.size() == 2);
    const auto off = SimBoard::As<k::UpdateQueueArgs>(sent[0]);
    const auto on = SimBoard::As<k::UpdateQueueArgs>(sent[1]);
    CHECK(off.ring_base_address == 0);
    CHECK(off.ring_size == 0);
    CHECK(off.queue_percentage == 100);
    CHECK(on.ring_base_address == reinterpret_cast<uintptr_t>(ring));
    CHECK(on.ring_size == 4096);
    CHECK(on.queue_percentage == 100);
    CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  }
}
