// covtest::Env: the setup the coverage rows share, and the status names.
#include <sys/mman.h>

#include <cstring>

#include "tests/api_coverage/coverage.h"
#include "tests/queues/support.h"

namespace covtest {

const char* StatusName(HSAKMT_STATUS s) {
  switch (s) {
#define HKE_NAME(x) \
  case HSAKMT_STATUS_##x: \
    return #x;
    HKE_NAME(SUCCESS)
    HKE_NAME(ERROR)
    HKE_NAME(DRIVER_MISMATCH)
    HKE_NAME(INVALID_PARAMETER)
    HKE_NAME(INVALID_HANDLE)
    HKE_NAME(INVALID_NODE_UNIT)
    HKE_NAME(NO_MEMORY)
    HKE_NAME(BUFFER_TOO_SMALL)
    HKE_NAME(NOT_IMPLEMENTED)
    HKE_NAME(NOT_SUPPORTED)
    HKE_NAME(UNAVAILABLE)
    HKE_NAME(OUT_OF_RESOURCES)
    HKE_NAME(KERNEL_IO_CHANNEL_NOT_OPENED)
    HKE_NAME(KERNEL_COMMUNICATION_ERROR)
    HKE_NAME(KERNEL_ALREADY_OPENED)
    HKE_NAME(HSAMMU_UNAVAILABLE)
    HKE_NAME(WAIT_FAILURE)
    HKE_NAME(WAIT_TIMEOUT)
    HKE_NAME(MEMORY_ALREADY_REGISTERED)
    HKE_NAME(MEMORY_NOT_REGISTERED)
    HKE_NAME(MEMORY_ALIGNMENT)
#undef HKE_NAME
    default:
      return "(unknown status)";
  }
}

Env::~Env() {
  // Close first: the last close releases what the helpers made (queues,
  // events, memory, registrations) while the host pages still exist.
  while (hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS) {
  }
  for (const auto& h : host_) munmap(h.first, h.second);
}

void Env::Open() {
  if (open_) return;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  open_ = true;
}

uint32_t Env::Gpu() {
  Open();
  return hketest::FirstGpuNode();
}

uint32_t Env::Gpu2() {
  const uint32_t first = Gpu();
  for (uint32_t n = first + 1; n < NumNodes(); ++n) {
    if (GpuId(n) != 0) return n;
  }
  FAIL("no second GPU node");
  return 0;
}

uint32_t Env::Cpu() {
  Open();
  return hketest::FirstCpuNode();
}

uint32_t Env::NumNodes() {
  Open();
  return misctest::NumNodes();
}

uint32_t Env::GpuId(uint32_t node) {
  Open();
  return misctest::GpuId(node);
}

void* Env::Vram(uint64_t size) {
  HsaMemFlags f = hketest::Flags();
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(Gpu(), size, f, &p) == HSAKMT_STATUS_SUCCESS);
  return p;
}

void* Env::Gtt(uint64_t size) { return queuetest::Gtt(Gpu(), size); }

void* Env::Host(uint64_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  std::memset(p, 0x5a, size);
  host_.emplace_back(p, size);
  return p;
}

HsaEvent* Env::Event(bool manual_reset, bool signaled) {
  HsaEventDescriptor d{};
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = Gpu();
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, manual_reset, signaled, &e) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(e != nullptr);
  return e;
}

HSA_QUEUEID Env::Sdma() {
  void* ring = Gtt(4096);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(Gpu(), HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  return r.QueueId;
}

HSA_QUEUEID Env::Aql() {
  void* ring = Gtt(4096);
  // The pointers in a one-page GTT buffer mapped to the GPU: kernels from
  // KFD 1.17 refuse any other place (platform/sim/core/queue_buffers.cc).
  auto* ptrs = static_cast<uint64_t*>(Gtt(4096));
  HsaQueueResource r{};
  r.Queue_read_ptr_aql = &ptrs[0];
  r.Queue_write_ptr_aql = &ptrs[1];
  REQUIRE(hsaKmtCreateQueue(Gpu(), HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                            4096, nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  return r.QueueId;
}

HSA_QUEUEID Env::StaleQueue() {
  const HSA_QUEUEID q = Sdma();
  REQUIRE(hsaKmtDestroyQueue(q) == HSAKMT_STATUS_SUCCESS);
  return q;
}

bool Env::Saw(const std::string& name) {
  for (const std::string& i : b_.Ioctls()) {
    if (i == name) return true;
  }
  return false;
}

bool Env::Quiet() { return b_.Ioctls().empty(); }

bool Env::DiagHas(const std::string& text) {
  for (const std::string& d : b_.Diags()) {
    if (d.find(text) != std::string::npos) return true;
  }
  return false;
}

Outcome Env::Expect(HSAKMT_STATUS got, HSAKMT_STATUS want, bool observed,
                    const std::string& what) {
  statuses_.push_back(got);
  if (got != want) {
    std::string m = std::string("returned ") + StatusName(got) + ", expected " + StatusName(want);
    const std::string last = b_.LastDiag();
    if (!last.empty()) m += " (last diagnostic: " + last + ")";
    return {false, m};
  }
  if (!observed) return {false, std::string(StatusName(got)) + " but not observed: " + what};
  return {true, std::string(StatusName(got)) + ": " + what};
}

}  // namespace covtest
