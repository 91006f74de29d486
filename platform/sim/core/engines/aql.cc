// kfdsim AQL packet processor: executes the packets of AQL compute queues
// (queue type COMPUTE_AQL) laid out as in the HSA specification, with AMD's
// vendor BARRIER_VALUE packet (ROCR's hsa_ext_amd.h).
//
// Queue protocol: the ring holds ring_size / 64 packets of 64 bytes;
// read_pointer_address and write_pointer_address point at the runtime's
// read_dispatch_id and write_dispatch_id (u64 packet indices that only
// grow); the doorbell holds the index of the last packet published. A step
// processes packet `i` (from the engine's read index) while i <= doorbell,
// i < write_dispatch_id (the CP polls the write pointer too; this keeps a
// never-used queue from being read) and the packet's header type is not
// INVALID. When write_dispatch_id cannot be read while both the doorbell
// and the read index are 0 the queue counts as never started (no fault).
//
// Header: u16 at offset 0, type bits 0-7: 0 vendor-specific, 1 invalid,
// 2 kernel dispatch, 3 barrier-AND, 4 agent dispatch, 5 barrier-OR; bit 8
// barrier (every earlier packet is already complete here: nothing to do).
//  - barrier-AND: dep_signal[5] at offset 8, completion_signal at 56; waits
//    until every non-null dependency's value is 0.
//  - barrier-OR: waits until some non-null dependency's value is 0
//    (satisfied at once when all five are null).
//  - vendor packet with AmdFormat (byte 2) == 2, BARRIER_VALUE: signal at 8
//    (null: satisfied), i64 value at 16, i64 mask at 24, u32 condition at 32
//    (0 EQ, 1 NE, 2 LT, 3 GTE; signed compare of value & mask); other
//    conditions stop the queue. Completion signal at 56.
//  - kernel dispatch: the kernel runs on the simulated shader cores
//    (core/shader/, which lists the packet checks and their exception
//    codes), for a bounded number of wave-instructions per step; the
//    packet completes like the others once the kernel finished. A kernel
//    that stops with an exception stops the queue and is never completed
//    (completion signal untouched, header left as is).
//  - agent dispatch: stops with EC_QUEUE_PACKET_UNSUPPORTED; other vendor
//    formats with EC_QUEUE_PACKET_VENDOR_UNSUPPORTED; types 6-255 with
//    EC_QUEUE_PACKET_RESERVED.
// A waiting packet stalls the queue; it is retried on a later step.
// Completion: the completion signal handle (when not 0) is the address of
// an amd_signal_t (kind i64 @0, value i64 @8, event_mailbox_ptr u64 @16,
// event_id u32 @24): value -= 1 (read-modify-write, see gpu_memory.cc);
// when event_mailbox_ptr != 0, event_id is stored there (u32) and the
// interrupt kfd_signal_event_interrupt(event_id, 32 bits) is raised. Then
// the header type becomes INVALID (u16 store) and the read index advances;
// read_dispatch_id is written back after every step that made progress.
//
// Threading: runs with proc_mu_ held (StepQueueLocked).
#include <errno.h>

#include <cstring>

#include "lib/core/checked.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint32_t kTypeVendor = 0;
constexpr uint32_t kTypeInvalid = 1;
constexpr uint32_t kTypeKernelDispatch = 2;
constexpr uint32_t kTypeBarrierAnd = 3;
constexpr uint32_t kTypeAgentDispatch = 4;
constexpr uint32_t kTypeBarrierOr = 5;
constexpr uint8_t kAmdFormatBarrierValue = 2;
constexpr uint64_t kPacketBytes = 64;
constexpr uint64_t kSignalValueOffset = 8;

template <typename T>
T Field(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof(v));
  return v;
}

}  // namespace

bool Simulator::StepAqlLocked(Queue& q, uint32_t budget, uint64_t* done) {
  QueueEngine& e = q.engine;
  const uint64_t ring_packets = q.view.ring_size / kPacketBytes;
  if (ring_packets == 0) return false;
  const uint64_t doorbell = ReadDoorbellLocked(q);
  e.waiting = false;
  if (e.rptr > doorbell) {
    e.reason.clear();
    return false;
  }
  uint64_t wptr = 0;
  if (GpuRead(q.gpu, q.view.write_pointer_address, &wptr, sizeof(wptr)) != 0) {
    if (doorbell != 0 || e.rptr != 0) {
      GpuFaultLocked(q, q.view.write_pointer_address, "AQL write_dispatch_id read");
    }
    return false;
  }
  // Reads the i64 value of a signal; false after reporting a fault.
  auto signal_value = [&](uint64_t handle, int64_t* value) {
    uint64_t at = 0;
    if (!hke::CheckedAdd(handle, kSignalValueOffset, &at) ||
        GpuRead(q.gpu, at, value, sizeof(*value)) != 0) {
      GpuFaultLocked(q, handle, "AQL signal read");
      return false;
    }
    return true;
  };
  bool progress = false;
  while (budget-- > 0 && e.rptr <= doorbell && e.rptr < wptr) {
    const uint64_t index = e.rptr;
    const uint64_t slot = q.view.ring_base_address + (index % ring_packets) * kPacketBytes;
    uint8_t pkt[kPacketBytes];
    if (GpuRead(q.gpu, slot, pkt, sizeof(pkt)) != 0) {
      GpuFaultLocked(q, slot, "AQL ring read");
      break;
    }
    const uint16_t header = Field<uint16_t>(pkt, 0);
    const uint32_t type = header & 0xFF;
    if (type == kTypeInvalid) break;  // not published yet
    const std::string at = " at index " + std::to_string(index);
    bool satisfied = true;
    bool stopped = false;
    bool kernel_running = false;
    std::string wait;
    switch (type) {
      case kTypeKernelDispatch: {
        // Runs on the simulated shader cores (core/shader/bridge.cc) for a
        // step's budget; the packet completes when the kernel finished.
        const KernelStep ks = AqlKernelDispatchLocked(q, pkt, index, slot);
        if (ks == KernelStep::kStopped) stopped = true;
        if (ks == KernelStep::kRunning) kernel_running = true;
        break;
      }
      case kTypeAgentDispatch:
        StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                        "AQL agent dispatch packet" + at + " is not supported");
        stopped = true;
        break;
      case kTypeBarrierAnd:
      case kTypeBarrierOr: {
        const bool any = type == kTypeBarrierOr;
        bool have_dep = false;
        bool some_zero = false;
        bool all_zero = true;
        for (size_t i = 0; i < 5 && !stopped; ++i) {
          const uint64_t dep = Field<uint64_t>(pkt, 8 + 8 * i);
          if (dep == 0) continue;
          have_dep = true;
          int64_t v = 0;
          if (!signal_value(dep, &v)) {
            stopped = true;
          } else if (v == 0) {
            some_zero = true;
          } else {
            all_zero = false;
            if (wait.empty()) wait = "signal " + HexU64(dep);
          }
        }
        if (!stopped) satisfied = any ? (!have_dep || some_zero) : all_zero;
        if (!satisfied) {
          wait = std::string(any ? "AQL barrier-OR" : "AQL barrier-AND") + at + " waits on " + wait;
        }
        break;
      }
      case kTypeVendor: {
        const uint8_t format = pkt[2];
        if (format != kAmdFormatBarrierValue) {
          StopQueueLocked(q, k::kEcQueuePacketVendorUnsupported,
                          "AQL vendor packet format " + std::to_string(format) + at +
                              " is not supported");
          stopped = true;
          break;
        }
        const uint64_t sig = Field<uint64_t>(pkt, 8);
        const int64_t ref = Field<int64_t>(pkt, 16);
        const int64_t mask = Field<int64_t>(pkt, 24);
        const uint32_t cond = Field<uint32_t>(pkt, 32);
        if (cond > 3) {
          StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                          "AQL BARRIER_VALUE condition " + std::to_string(cond) + at);
          stopped = true;
          break;
        }
        if (sig == 0) break;
        int64_t v = 0;
        if (!signal_value(sig, &v)) {
          stopped = true;
          break;
        }
        v &= mask;
        switch (cond) {
          case 0: satisfied = v == ref; break;
          case 1: satisfied = v != ref; break;
          case 2: satisfied = v < ref; break;
          default: satisfied = v >= ref; break;
        }
        if (!satisfied) wait = "AQL BARRIER_VALUE" + at + " waits on signal " + HexU64(sig);
        break;
      }
      default:
        StopQueueLocked(q, k::kEcQueuePacketReserved,
                        "AQL packet type " + std::to_string(type) + at + " is reserved");
        stopped = true;
        break;
    }
    if (stopped) break;
    if (kernel_running) {  // the kernel goes on in the next step
      progress = true;
      break;
    }
    if (!satisfied) {
      e.waiting = true;
      e.reason = wait;
      break;
    }
    const uint64_t completion = Field<uint64_t>(pkt, 56);
    if (completion != 0) {
      struct {
        int64_t value;
        uint64_t mailbox;
        uint32_t event_id;
      } sig{};
      uint8_t raw[20];
      uint64_t value_at = 0;
      if (!hke::CheckedAdd(completion, kSignalValueOffset, &value_at) ||
          GpuRead(q.gpu, value_at, raw, sizeof(raw)) != 0) {
        GpuFaultLocked(q, completion, "AQL completion signal");
        break;
      }
      std::memcpy(&sig.value, raw, 8);
      std::memcpy(&sig.mailbox, raw + 8, 8);
      std::memcpy(&sig.event_id, raw + 16, 4);
      const int64_t next = static_cast<int64_t>(static_cast<uint64_t>(sig.value) - 1);
      if (GpuWrite(q.gpu, value_at, &next, sizeof(next)) != 0) {
        GpuFaultLocked(q, completion, "AQL completion signal");
        break;
      }
      if (sig.mailbox != 0) {
        if (GpuWrite(q.gpu, sig.mailbox, &sig.event_id, sizeof(sig.event_id)) != 0) {
          GpuFaultLocked(q, sig.mailbox, "AQL event mailbox");
          break;
        }
        RaiseInterruptLocked(sig.event_id, 32);
      }
    }
    const uint16_t retired = static_cast<uint16_t>((header & 0xFF00u) | kTypeInvalid);
    if (GpuWrite(q.gpu, slot, &retired, sizeof(retired)) != 0) {
      GpuFaultLocked(q, slot, "AQL header write");
      break;
    }
    ++e.rptr;
    ++e.packets;
    ++*done;
    progress = true;
  }
  if (!e.waiting && !e.stopped) e.reason.clear();
  if (progress) {
    const uint64_t rptr = e.rptr;
    if (GpuWrite(q.gpu, q.view.read_pointer_address, &rptr, sizeof(rptr)) != 0) {
      GpuFaultLocked(q, q.view.read_pointer_address, "AQL read_dispatch_id write-back");
    }
  }
  return progress;
}

}  // namespace kfdsim
