// Fault sweep: hsaKmtCreateQueue + hsaKmtDestroyQueue for each queue type
// (SDMA, PM4 compute, AQL compute) on a dGPU: the queue page, the EOP
// buffer and the CWSR area (compute), the node's DOORBELL BO and its CPU
// mapping (the first queue of the open), CREATE_QUEUE, DESTROY_QUEUE and
// the frees. The doorbell stays until the last close (as upstream), so the
// scenario may leave the VM state changed; the harness's final check
// (after CloseKFD and the context's teardown) still sees every BO,
// mapping and descriptor released.
#include <cstring>
#include <vector>

#include "doctest/doctest.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

constexpr uint64_t kRingBytes = 4096;

class CreateDestroy : public sweep::Body {
 public:
  explicit CreateDestroy(HSA_QUEUE_TYPE type) : type_(type) {}

  void Arrange(Run& r) override {
    HsaMemFlags f = sweep::Flags();
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    f.ui32.ExecuteAccess = 1;
    r.Require("hsaKmtAllocMemory (ring)", hsaKmtAllocMemory(r.cpu_node(), kRingBytes, f, &ring_));
    r.Require("hsaKmtAllocMemory (pointers)",
              hsaKmtAllocMemory(r.cpu_node(), 4096, f, &pointers_));
    HSAuint64 alt = 0;
    r.Require("hsaKmtMapMemoryToGPU (ring)", hsaKmtMapMemoryToGPU(ring_, kRingBytes, &alt));
    r.Require("hsaKmtMapMemoryToGPU (pointers)", hsaKmtMapMemoryToGPU(pointers_, 4096, &alt));
  }

  void Act(Run& r) override {
    if (ring_ == nullptr || pointers_ == nullptr) return;
    HsaQueueResource q;
    std::memset(&q, 0, sizeof(q));
    if (type_ == HSA_QUEUE_COMPUTE_AQL) {
      auto* p = static_cast<HSAuint64*>(pointers_);
      q.Queue_read_ptr_aql = p;
      q.Queue_write_ptr_aql = p + 1;
    }
    // QueueResource is all output, except an AQL queue's pointer pair
    // (inputs): then only the id and the doorbell are pure outputs.
    std::vector<Run::Out> outs;
    if (type_ == HSA_QUEUE_COMPUTE_AQL) {
      outs = {{&q.QueueId, sizeof(q.QueueId)}, {&q.Queue_DoorBell, sizeof(q.Queue_DoorBell)}};
    } else {
      outs = {{&q, sizeof(q)}};
    }
    if (r.Step("hsaKmtCreateQueue",
               [&] {
                 return hsaKmtCreateQueue(r.gpu_node(0), type_, 100, HSA_QUEUE_PRIORITY_NORMAL,
                                          ring_, kRingBytes, nullptr, &q);
               },
               outs) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    r.MustRecover("hsaKmtDestroyQueue", [&] { return hsaKmtDestroyQueue(q.QueueId); });
  }

  void Cleanup(Run& r) override {
    if (ring_ != nullptr) {
      r.Require("hsaKmtUnmapMemoryToGPU (ring)", hsaKmtUnmapMemoryToGPU(ring_));
      r.Require("hsaKmtFreeMemory (ring)", hsaKmtFreeMemory(ring_, kRingBytes));
    }
    if (pointers_ != nullptr) {
      r.Require("hsaKmtUnmapMemoryToGPU (pointers)", hsaKmtUnmapMemoryToGPU(pointers_));
      r.Require("hsaKmtFreeMemory (pointers)", hsaKmtFreeMemory(pointers_, 4096));
    }
  }

 private:
  HSA_QUEUE_TYPE type_;
  void* ring_ = nullptr;
  void* pointers_ = nullptr;
};

void SweepType(const char* name, HSA_QUEUE_TYPE type) {
  sweep::Scenario s;
  s.name = name;
  s.changes_vm = true;  // the node's doorbell stays mapped until the last close
  s.make = [type] { return std::make_unique<CreateDestroy>(type); };
  sweep::Report(s, sweep::Sweep(s));
}

}  // namespace

TEST_CASE("fault sweep: an SDMA queue's create and destroy fail cleanly at every platform call") {
  SweepType("queue sdma", HSA_QUEUE_SDMA);
}


TEST_CASE("fault sweep: a PM4 compute queue's create and destroy fail cleanly at every platform call") {
  SweepType("queue compute", HSA_QUEUE_COMPUTE);
}

TEST_CASE("fault sweep: an AQL queue's create and destroy fail cleanly at every platform call") {
  SweepType("queue aql", HSA_QUEUE_COMPUTE_AQL);
}
