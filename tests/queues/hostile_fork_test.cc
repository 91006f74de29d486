// Hostile CREATE_QUEUE / GET_QUEUE_WAVE_STATE replies and forked children:
// the library refuses what the kernel could not have meant and keeps its
// table and the memory subsystem exactly as before.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "lib/context/context.h"
#include "lib/kfd/abi.h"
#include "lib/queues/queues.h"
#include "tests/queues/support.h"

using hketest::SimBoard;
using queuetest::FirstGpuNode;
namespace q = hke::queues;
namespace k = hke::kfd;

namespace {

// Rewrites the CREATE_QUEUE reply with `edit` (reply as kfd::CreateQueueArgs).
struct Tamper {
  int mode = 0;
  static int Fn(void* user, uint32_t request, void* reply, size_t size, int result) {
    auto* t = static_cast<Tamper*>(user);
    if (reply == nullptr || result != 0) return result;
    if (k::IocNr(request) == k::IocNr(k::kIocCreateQueue) && size >= sizeof(k::CreateQueueArgs)) {
      auto* a = static_cast<k::CreateQueueArgs*>(reply);
      switch (t->mode) {
        case 0: a->queue_id = 5000; break;                                       // beyond 1024
        case 1: a->doorbell_offset ^= uint64_t{1} << 62; break;                   // another mmap type
        case 2: a->doorbell_offset ^= uint64_t{0x1} << k::kMmapGpuIdShift; break;  // another gpu
        case 3: a->doorbell_offset |= 0xFFFF0; break;                             // outside the slice
        case 4: a->gpu_id ^= 1; break;
        default: break;
      }
    }
    if (k::IocNr(request) == k::IocNr(k::kIocGetQueueWaveState) && t->mode == 10) {
      static_cast<k::GetQueueWaveStateArgs*>(reply)->ctl_stack_used_size = 0x7FFFFFFF;
    }
    return result;
  }
};

}  // namespace

TEST_CASE("hostile CREATE_QUEUE replies fail with KERNEL_COMMUNICATION_ERROR, write no resource and leak no buffer") {
  // KFD 1.16: a kernel before the queue buffer hold. From 1.17 a queue whose
  // id the reply hid (mode 0) keeps holding its buffers in the kernel, and
  // FREE of them is EBUSY, so no library could free them.
  SimBoard b(nullptr, "datacenter-4gpu", 0, 16);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  const uint32_t objects = b.Stats().live_objects;
  Tamper t;
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, &t);
  for (int mode = 0; mode <= 4; ++mode) {
    CAPTURE(mode);
    t.mode = mode;
    HsaQueueResource r{};
    r.QueueId = 0x77;
    CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
    CHECK(r.QueueId == 0x77);
    CHECK(queuetest::QStats().live == 0);
    CHECK(b.Stats().live_objects == objects);
    CHECK(b.LastDiag().find("CREATE_QUEUE") != std::string::npos);
  }
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a wave-state reply larger than the save area is refused and QueueInfo stays untouched") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  // The pointers in a one-page buffer mapped to the node (the kernel's rule).
  auto* ptrs = static_cast<uint64_t*>(queuetest::Gtt(node, 4096));
  HsaQueueResource r{};
  r.Queue_read_ptr_aql = &ptrs[0];
  r.Queue_write_ptr_aql = &ptrs[1];
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                            4096, nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  Tamper t;
  t.mode = 10;
  kfdsim_set_tamper(b.sim(), &Tamper::Fn, &t);
  HsaQueueInfo info{};
  info.NumCUAssigned = 3;
  CHECK(hsaKmtGetQueueInfo(r.QueueId, &info) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(info.NumCUAssigned == 3);
  kfdsim_set_tamper(b.sim(), nullptr, nullptr);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a forked child cannot use the parent's queues: its handles are refused and its own queues work after it reopens") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  // The simulator's engine thread may hold its lock at the moment of the
  // fork (a child would inherit the lock held); stop it first. A real
  // kernel has no such thread in the process.
  REQUIRE(kfdsim_set_engine_mode(b.sim(), KFDSIM_ENGINES_MANUAL) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child: a new KFD process for the kernel (the simulator is shared
    // memory-wise, so the child resets its process state as the kernel would
    // give it a fresh one).
    kfdsim_reset_process(b.sim());
    int bad = 0;
    if (hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS) bad |= 1;
    if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) bad |= 2;
    if (hsaKmtDestroyQueue(r.QueueId) != HSAKMT_STATUS_INVALID_HANDLE) bad |= 4;
    HsaSystemProperties sys{};
    if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) bad |= 8;
    HsaMemFlags f{};
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    void* ring2 = nullptr;
    if (hsaKmtAllocMemory(0, 4096, f, &ring2) != HSAKMT_STATUS_SUCCESS) bad |= 16;
    // A ring must be mapped on the queue's GPU (the kernel's buffer check).
    uint32_t map_node = node;
    if (ring2 != nullptr && hsaKmtMapMemoryToGPUNodes(ring2, 4096, nullptr, HsaMemMapFlags{}, 1,
                                                      &map_node) != HSAKMT_STATUS_SUCCESS) {
      bad |= 16;
    }
    HsaQueueResource c{};
    if (ring2 == nullptr || hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL,
                                              ring2, 4096, nullptr, &c) != HSAKMT_STATUS_SUCCESS) {
      bad |= 32;
    } else if (hsaKmtDestroyQueue(c.QueueId) != HSAKMT_STATUS_SUCCESS) {
      bad |= 64;
    }
    _exit(bad);
  }
  int st = 0;
  REQUIRE(waitpid(pid, &st, 0) == pid);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  // The parent's queue is untouched by the child.
  CHECK(queuetest::QStats().live == 1);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a forked child that has not reopened releases the topology and closes with SUCCESS, sends nothing to the kernel, and can open again; the parent's objects stay") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_KERNEL_ALREADY_OPENED);  // two references
  const uint32_t node = FirstGpuNode();
  void* ring = queuetest::Gtt(node, 4096);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  const uint32_t parent_objects = b.Stats().live_objects;
  REQUIRE(kfdsim_set_engine_mode(b.sim(), KFDSIM_ENGINES_MANUAL) == 0);  // see the test above
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    kfdsim_reset_process(b.sim());  // a new process for the kernel
    b.ClearTrace();
    int bad = 0;
    // How a test framework written for upstream tears down in the child.
    if (hsaKmtReleaseSystemProperties() != HSAKMT_STATUS_SUCCESS) bad |= 1;
    if (hsaKmtCloseKFD() != HSAKMT_STATUS_SUCCESS) bad |= 2;
    if (hsaKmtCloseKFD() != HSAKMT_STATUS_SUCCESS) bad |= 4;  // the second inherited reference
    if (hsaKmtCloseKFD() != HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED) bad |= 8;
    if (!b.Ioctls().empty()) bad |= 16;  // nothing of the parent's was touched
    // And the child can start over.
    if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) bad |= 32;
    HsaSystemProperties sys{};
    if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) bad |= 64;
    void* mem = nullptr;
    HsaMemFlags f{};
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    if (hsaKmtAllocMemory(0, 4096, f, &mem) != HSAKMT_STATUS_SUCCESS) bad |= 128;
    if (hsaKmtDestroyQueue(r.QueueId) != HSAKMT_STATUS_INVALID_HANDLE) bad |= 256;
    if (hsaKmtCloseKFD() != HSAKMT_STATUS_SUCCESS) bad |= 512;
    _exit(bad);
  }
  int st = 0;
  REQUIRE(waitpid(pid, &st, 0) == pid);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  // The parent's open, queue and memory are as they were.
  CHECK(b.Stats().live_objects == parent_objects);
  CHECK(queuetest::QStats().live == 1);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
}
