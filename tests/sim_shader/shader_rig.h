// Test rig for the simulated shader cores: a simulated board behind the
// default context (tests/support/sim_board.h), a GPU node, an AQL queue made
// with hsaKmtCreateQueue whose read/write dispatch ids sit where ROCR's
// amd_queue_t has them (so the simulator finds the queue's scratch
// descriptor there), a completion signal whose event mailbox is a KFD
// signal event, and a loader for the code objects the build assembled
// (sim_shader_kernels.h): PT_LOAD segments copied into executable GTT
// (code_object.h), the kernel descriptor found by its "<name>.kd" symbol.
//
// Dispatch() writes one kernel dispatch packet, rings the doorbell and waits
// for the completion event with hsaKmtWaitOnEvent, as a runtime does.
#ifndef HKE_TESTS_SIM_SHADER_SHADER_RIG_H_
#define HKE_TESTS_SIM_SHADER_SHADER_RIG_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "hsakmt/hsakmt.h"
#include "lib/context/context.h"
#include "lib/kfd/abi.h"
#include "lib/queues/queues.h"
#include "platform/sim/sim.h"
#include "sim_shader_kernels.h"
#include "tests/sim_shader/code_object.h"
#include "tests/support/sim_board.h"

namespace shadertest {

// amd_signal_t prefix (ROCR's amd_hsa_signal.h).
struct alignas(64) AmdSignal {
  int64_t kind;
  int64_t value;
  uint64_t event_mailbox_ptr;
  uint32_t event_id;
  uint32_t reserved1;
  uint64_t start_ts, end_ts, reserved2;
  uint32_t reserved3[2];
};
static_assert(sizeof(AmdSignal) == 64, "amd_signal_t");

// The amd_queue_t fields the simulated CP reads (offsets as in ROCR's
// amd_hsa_queue.h).
struct AmdQueue {
  uint8_t hsa_queue[40];
  uint32_t caps;
  uint32_t reserved1[3];
  uint64_t write_dispatch_id;  // 56
  uint8_t pad0[64];
  uint64_t read_dispatch_id;   // 128
  uint32_t read_dispatch_id_field_base_byte_offset;
  uint32_t compute_tmpring_size;
  uint32_t scratch_resource_descriptor[4];  // 144
  uint64_t scratch_backing_memory_location;  // 160
  uint64_t scratch_backing_memory_byte_size;  // 168
  uint32_t scratch_wave64_lane_byte_size;
  uint32_t queue_properties;
  uint8_t pad1[72];
};
static_assert(offsetof(AmdQueue, write_dispatch_id) == 56, "amd_queue_t");
static_assert(offsetof(AmdQueue, read_dispatch_id) == 128, "amd_queue_t");
static_assert(offsetof(AmdQueue, scratch_resource_descriptor) == 144, "amd_queue_t");
static_assert(offsetof(AmdQueue, scratch_backing_memory_location) == 160, "amd_queue_t");

// hsa_kernel_dispatch_packet_t.
struct DispatchPacket {
  uint16_t header;
  uint16_t setup;
  uint16_t workgroup_size[3];
  uint16_t reserved0;
  uint32_t grid_size[3];
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  uint64_t kernarg_address;
  uint64_t reserved2;
  uint64_t completion_signal;
};
static_assert(sizeof(DispatchPacket) == 64, "AQL packet");

inline uint64_t Va(const void* p) { return reinterpret_cast<uintptr_t>(p); }

struct Launch {
  uint32_t grid[3] = {1, 1, 1};
  uint16_t wg[3] = {1, 1, 1};
  uint32_t dims = 1;
  uint32_t group_segment = 0;
  uint32_t private_segment = 0;
  const void* kernarg = nullptr;
};

class ShaderRig {
 public:
  // `tree` (a fixture) or `board` (built in), as SimBoard. With
  // `runtime_enable` the KFD reports queue errors to the runtime (the
  // queue's ErrorReason and error event), as under ROCR.
  ShaderRig(const char* tree, const char* board, bool runtime_enable = false) : b_(tree, board) {
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    if (runtime_enable) {
      // hsaKmtRuntimeEnable refuses boards whose nodes lack debug-capable
      // firmware (apu-embedded), as upstream does; the KFD's RUNTIME_ENABLE
      // itself does not care, so the rig issues it directly.
      hke::kfd::RuntimeEnableArgs a{};
      a.r_debug = Va(&r_debug_);
      a.mode_mask = hke::kfd::kRuntimeEnableModeEnable;
      REQUIRE(kfdsim_ioctl(b_.sim(), hke_default_context()->impl.device().kfd_fd,
                           hke::kfd::kIocRuntimeEnable, &a) == 0);
    }
    node_ = FirstGfx9Node();
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(node_, &p) == HSAKMT_STATUS_SUCCESS);
    gfx_ = p.EngineId.ui32.Major * 10000 + p.EngineId.ui32.Minor * 100 + p.EngineId.ui32.Stepping;
    ring_ = static_cast<uint8_t*>(Gtt(kRingBytes));
    for (uint64_t i = 0; i < kRingBytes; i += 64) {
      __atomic_store_n(reinterpret_cast<uint16_t*>(ring_ + i), uint16_t{1}, __ATOMIC_RELAXED);
    }
    amd_queue_ = static_cast<AmdQueue*>(Gtt(sizeof(AmdQueue)));
    signal_ = static_cast<AmdSignal*>(Gtt(sizeof(AmdSignal)));
    error_reason_ = static_cast<int64_t*>(Gtt(4096));
    HsaEventDescriptor d{};
    d.EventType = HSA_EVENTTYPE_SIGNAL;
    d.NodeId = node_;
    d.SyncVar.SyncVarSize = sizeof(HSAuint64);
    REQUIRE(hsaKmtCreateEvent(&d, false, false, &done_) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtCreateEvent(&d, true, false, &error_event_) == HSAKMT_STATUS_SUCCESS);
    q_.Queue_read_ptr_aql = &amd_queue_->read_dispatch_id;
    q_.Queue_write_ptr_aql = &amd_queue_->write_dispatch_id;
    q_.ErrorReason = error_reason_;
    REQUIRE(hsaKmtCreateQueue(node_, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_,
                              kRingBytes, error_event_, &q_) == HSAKMT_STATUS_SUCCESS);
  }
  ~ShaderRig() {
    (void)hsaKmtDestroyQueue(q_.QueueId);
    (void)hsaKmtDestroyEvent(done_);
    (void)hsaKmtDestroyEvent(error_event_);
  }
  ShaderRig(const ShaderRig&) = delete;
  ShaderRig& operator=(const ShaderRig&) = delete;

  hketest::SimBoard& board() { return b_; }
  uint32_t node() const { return node_; }
  uint32_t gfx() const { return gfx_; }
  AmdQueue* amd_queue() { return amd_queue_; }
  int64_t error_reason() const { return __atomic_load_n(error_reason_, __ATOMIC_ACQUIRE); }
  HsaEvent* error_event() { return error_event_; }

  // Zeroed GTT (system) memory mapped to the node, executable.
  void* Gtt(uint64_t size) {
    size = (size + 4095) / 4096 * 4096;
    HsaMemFlags f{};
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    f.ui32.ExecuteAccess = 1;
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(0, size, f, &p) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtMapMemoryToGPUNodes(p, size, nullptr, HsaMemMapFlags{}, 1, &node_) ==
            HSAKMT_STATUS_SUCCESS);
    std::memset(p, 0, size);
    return p;
  }
  // Host-visible VRAM of the node.
  void* Vram(uint64_t size, bool read_only = false) {
    size = (size + 4095) / 4096 * 4096;
    HsaMemFlags f{};
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    f.ui32.CoarseGrain = 1;
    f.ui32.ReadOnly = read_only ? 1 : 0;
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(node_, size, f, &p) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtMapMemoryToGPUNodes(p, size, nullptr, HsaMemMapFlags{}, 1, &node_) ==
            HSAKMT_STATUS_SUCCESS);
    return p;
  }

  // The code object of `kernels` for this node's target, loaded; returns
  // the kernel object (descriptor address) of `name`.
  uint64_t Load(const KernelSet& set, const char* name) {
    const CodeObject* co = set.For(gfx_);
    REQUIRE_MESSAGE(co != nullptr, "no code object for gfx_target_version " << gfx_);
    return LoadElf(co->bytes, co->size, name);
  }

  // Runs one kernel dispatch; true when its completion signal reached 0
  // (the completion event fired), false on a timeout (a queue error).
  bool Dispatch(uint64_t kernel_object, const Launch& l, uint32_t timeout_ms = 60000) {
    Submit(kernel_object, l);
    if (hsaKmtWaitOnEvent(done_, timeout_ms) != HSAKMT_STATUS_SUCCESS) return false;
    return __atomic_load_n(&signal_->value, __ATOMIC_ACQUIRE) == 0;
  }
  // The completion signal's value (1 while the last dispatch is pending).
  int64_t signal_value() const { return __atomic_load_n(&signal_->value, __ATOMIC_ACQUIRE); }

  // Writes a kernel dispatch packet and rings the doorbell, without waiting.
  void Submit(uint64_t kernel_object, const Launch& l) {
    void* kernarg = nullptr;
    if (l.kernarg != nullptr) {
      kernarg = Gtt(256);
      std::memcpy(kernarg, l.kernarg, 256);
    }
    __atomic_store_n(&signal_->value, int64_t{1}, __ATOMIC_RELEASE);
    signal_->event_mailbox_ptr = done_->EventData.HWData2;
    signal_->event_id = done_->EventId;
    const uint64_t index = next_++;
    auto* p = reinterpret_cast<DispatchPacket*>(ring_ + (index * 64) % kRingBytes);
    std::memset(reinterpret_cast<uint8_t*>(p) + 2, 0, 62);
    p->setup = static_cast<uint16_t>(l.dims);
    for (int d = 0; d < 3; ++d) {
      p->workgroup_size[d] = l.wg[d];
      p->grid_size[d] = l.grid[d];
    }
    p->private_segment_size = l.private_segment;
    p->group_segment_size = l.group_segment;
    p->kernel_object = kernel_object;
    p->kernarg_address = Va(kernarg);
    p->completion_signal = Va(signal_);
    const uint16_t header = static_cast<uint16_t>(2u | (1u << 8) | (2u << 9) | (2u << 11));
    __atomic_store_n(&p->header, header, __ATOMIC_RELEASE);
    __atomic_store_n(&amd_queue_->write_dispatch_id, next_, __ATOMIC_RELEASE);
    __atomic_store_n(q_.Queue_DoorBell_aql, index, __ATOMIC_RELEASE);
  }

  // The simulator's view of the queue (state, exception code, fault VA).
  kfdsim_queue_info QueueStatus(std::string* reason = nullptr) {
    uint32_t kid = 0;
    REQUIRE(hke::queues::KernelQueueId(hke_default_context()->impl, q_.QueueId, &kid).ok());
    kfdsim_queue_info info{};
    info.struct_size = sizeof(info);
    char buf[512] = {};
    REQUIRE(kfdsim_queue_status(b_.sim(), kid, &info, buf, sizeof(buf)) == 0);
    if (reason != nullptr) *reason = buf;
    return info;
  }

 private:
  static constexpr uint64_t kRingBytes = 4096;

  static uint32_t FirstGfx9Node() {
    HsaSystemProperties sys{};
    REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    for (uint32_t n = 0; n < sys.NumNodes; ++n) {
      HsaNodeProperties p{};
      REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
      if (p.NumFComputeCores != 0 && p.EngineId.ui32.Major == 9) return n;
    }
    FAIL("no gfx9 GPU node");
    return 0;
  }

  // The code object's PT_LOAD segments in one GTT buffer; the kernel
  // object is the descriptor symbol's address there.
  uint64_t LoadElf(const uint8_t* elf, uint64_t size, const char* name) {
    const CodeObjectImage co(elf, size);
    const uint64_t span = co.Span();
    REQUIRE(span != 0);
    auto* image = static_cast<uint8_t*>(Gtt(span));
    REQUIRE(co.CopyTo(image));
    uint64_t kd = 0;
    REQUIRE_MESSAGE(co.Symbol(std::string(name) + ".kd", &kd), "kernel " << name << " not in the code object");
    return Va(image) + kd;
  }

  hketest::SimBoard b_;
  uint32_t node_ = 0;
  uint32_t gfx_ = 0;
  uint8_t* ring_ = nullptr;
  AmdQueue* amd_queue_ = nullptr;
  AmdSignal* signal_ = nullptr;
  int64_t* error_reason_ = nullptr;
  HsaEvent* done_ = nullptr;
  HsaEvent* error_event_ = nullptr;
  HsaQueueResource q_{};
  uint64_t next_ = 0;
  uint64_t r_debug_ = 0;  // stands for the runtime's r_debug (only its address is passed)
};

}  // namespace shadertest

#endif  // HKE_TESTS_SIM_SHADER_SHADER_RIG_H_
