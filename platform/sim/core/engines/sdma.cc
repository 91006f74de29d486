// kfdsim SDMA engine: executes the packets of SDMA user queues (queue types
// SDMA, SDMA_XGMI, SDMA_BY_ENG_ID) in the SOC15 (gfx9+, SDMA v4+) format.
//
// Ring protocol: the read and write pointers are 64-bit byte offsets that
// only grow; the ring is addressed modulo ring_size, so a packet may
// straddle the ring end. The doorbell holds the write pointer (on pre-SOC15
// GPUs a 32-bit doorbell holding the wrapped offset, turned back into a
// monotonic one). After each step the engine stores its read pointer (u64)
// at read_pointer_address. A write pointer that is not dword aligned or is
// more than a ring ahead stops the queue. A packet not yet fully written
// (beyond the write pointer) waits.
//
// Packets (header dword: op bits 0-7, sub-op bits 8-15), facts from the
// kernel's vega10_sdma_pkt_open.h and ROCR's SDMA packet structs:
//   NOP (0)              1 + count dwords; count = header bits 16-29
//   COPY_LINEAR (1/0)    7 dwords: count (bytes - 1, 30-bit field; gfx9
//                        defines 22 bits), parameter, src lo/hi, dst lo/hi
//   COPY_LINEAR_SUB_WINDOW (1/4)  13 dwords (ROCR: COPY_LINEAR_RECT, used by
//                        hsa_amd_memory_async_copy_rect): header element
//                        size log2 bits 29-31; src lo/hi; src x (0-13),
//                        y (16-29); src z (0-10), pitch - 1 (13-31); src
//                        slice pitch - 1 (0-27); the same five for dst;
//                        rect width - 1 (0-13), height - 1 (16-29); depth
//                        - 1 (0-10). Pitches, offsets and the rectangle
//                        are in elements; one row is copied at a time.
//   WRITE_LINEAR (2)     4 + n dwords: dst lo/hi, n - 1 (20 bits), data
//   FENCE (5)            4 dwords: addr lo/hi, u32 data
//   TRAP (6)             2 dwords: int_ctx (28 bits) -> the SDMA trap
//                        interrupt: kfd_signal_event_interrupt(ctx, 28 bits)
//   POLL_REGMEM (8)      6 dwords: header hdp_flush bit 26, func bits 28-30,
//                        mem_poll bit 31; addr lo/hi, reference, mask,
//                        interval/retry. On memory: (value & mask) <func>
//                        reference with func 0 always, 1 <, 2 <=, 3 ==,
//                        4 !=, 5 >=, 6 >. Unmet: the queue waits at this
//                        packet and retries on a later step (the retry
//                        count is ignored: waits forever). On registers
//                        (mem_poll 0) only the HDP flush forms run, as an
//                        HDP flush (no HDP cache is modelled: the flush
//                        completes at once, so its "done" register poll is
//                        met): the kernel's (hdp_flush bit set: write the
//                        request register, poll the done register) and
//                        ROCR's SDMA_PKT_HDP_FLUSH (function "always",
//                        every other field 0 but DW2 = 0x80000000; SDMA
//                        firmware >= 0x1A5 takes it as a flush). Any other
//                        register poll stops the queue (no registers).
//   ATOMIC (10)          8 dwords: header loop bit 16, operation bits 25-31
//                        (the TC_OP atomic codes); addr lo/hi, src data
//                        lo/hi, cmp data lo/hi, loop interval. ADD and SUB,
//                        32-bit (15/16 returning, 79/80 not) and 64-bit
//                        (47/48 returning, what ROCR uses with src -1 to
//                        decrement a completion signal; 111/112 not). The
//                        returned pre-op value has no destination in an
//                        SDMA packet, so both forms change memory alike.
//                        Other operations and the loop bit stop the queue
//                        (EC_QUEUE_PACKET_UNSUPPORTED), and so does a
//                        misaligned address (4 or 8 bytes; the kernel's
//                        queue exception codes have nothing closer:
//                        PACKET_RESERVED is not a queue code, it would
//                        never reach the runtime). The read-modify-write is
//                        atomic among engines (proc_mu_), as gpu_memory.cc
//                        says for the AQL signal decrement.
//   CONSTANT_FILL (11)   5 dwords: header fillsize bits 30-31 (element of
//                        1 << fillsize bytes, 8-byte elements refused); dst
//                        lo/hi, data, count (bytes - 1, 30 bits)
//   TIMESTAMP (13)       3 dwords: sub 0 set (ignored), 1 get local, 2 get
//                        global: the u64 GPU counter (100 MHz, the clock
//                        GET_CLOCK_COUNTERS reports) to addr lo/hi
// Anything else (other sub-ops included) stops the queue with
// EC_QUEUE_PACKET_UNSUPPORTED. A fault on any address stops it with a GPU
// memory fault (core/engines/scheduler.cc).
//
// Threading: runs with proc_mu_ held (StepQueueLocked).
#include <errno.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "lib/core/checked.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint32_t kOpNop = 0;
constexpr uint32_t kOpCopy = 1;
constexpr uint32_t kOpWrite = 2;
constexpr uint32_t kOpFence = 5;
constexpr uint32_t kOpTrap = 6;
constexpr uint32_t kOpPollRegmem = 8;
constexpr uint32_t kOpAtomic = 10;
constexpr uint32_t kOpConstFill = 11;
constexpr uint32_t kOpTimestamp = 13;
constexpr uint32_t kCopyLinear = 0;
constexpr uint32_t kCopySubWindow = 4;
constexpr uint64_t kChunk = 64 * 1024;

uint64_t Addr(uint32_t lo, uint32_t hi) { return uint64_t{lo} | uint64_t{hi} << 32; }

bool Compare(uint32_t func, uint32_t value, uint32_t ref) {
  switch (func) {
    case 0: return true;
    case 1: return value < ref;
    case 2: return value <= ref;
    case 3: return value == ref;
    case 4: return value != ref;
    case 5: return value >= ref;
    default: return value > ref;  // 6; 7 is refused before
  }
}

enum class Outcome { kDone, kWait, kStopped };

// COPY_LINEAR_SUB_WINDOW: one side (source or destination) of the window.
struct Window {
  uint64_t base = 0;
  uint64_t x = 0, y = 0, z = 0;  // elements
  uint64_t pitch = 0, slice = 0;  // elements per row / per slice
  // Byte address of the first element of row `y`, slice `z` of the
  // rectangle; false when it overflows.
  bool Row(uint64_t ry, uint64_t rz, uint32_t element, uint64_t* out) const {
    const uint64_t elems = (z + rz) * slice + (y + ry) * pitch + x;  // < 2^46
    return hke::CheckedAdd(base, elems << element, out);
  }
};

struct SubWindow {
  uint32_t element = 0;  // log2 of the element size in bytes
  Window src, dst;
  uint64_t row_bytes = 0, height = 0, depth = 0;
};

SubWindow DecodeSubWindow(const uint32_t* p) {
  SubWindow w;
  w.element = p[0] >> 29;
  auto side = [](const uint32_t* d) {
    Window s;
    s.base = Addr(d[0], d[1]);
    s.x = d[2] & 0x3FFF;
    s.y = (d[2] >> 16) & 0x3FFF;
    s.z = d[3] & 0x7FF;
    s.pitch = uint64_t{d[3] >> 13} + 1;
    s.slice = uint64_t{d[4] & 0x0FFFFFFF} + 1;
    return s;
  };
  w.src = side(p + 1);
  w.dst = side(p + 6);
  w.row_bytes = (uint64_t{p[11] & 0x3FFF} + 1) << w.element;
  w.height = uint64_t{(p[11] >> 16) & 0x3FFF} + 1;
  w.depth = uint64_t{p[12] & 0x7FF} + 1;
  return w;
}

// POLL_REGMEM header bits.
constexpr uint32_t kPollHdpFlush = 1u << 26;
constexpr uint32_t kPollMem = 1u << 31;
// ROCR's SDMA_PKT_HDP_FLUSH: DW2 of a register POLL_REGMEM, all else 0.
constexpr uint32_t kRocrHdpFlushDw2 = 0x80000000u;

// SDMA ATOMIC operations this engine runs (TC_OP codes): width in bytes and
// sign of the source operand; 0 width for anything else.
struct AtomicOp {
  uint32_t width = 0;
  bool subtract = false;
};

AtomicOp DecodeAtomic(uint32_t operation) {
  switch (operation) {
    case 15: case 79: return {4, false};   // ADD_RTN_32, ADD_32
    case 16: case 80: return {4, true};    // SUB_RTN_32, SUB_32
    case 47: case 111: return {8, false};  // ADD_RTN_64, ADD_64
    case 48: case 112: return {8, true};   // SUB_RTN_64, SUB_64
    default: return {};
  }
}

}  // namespace

bool Simulator::StepSdmaLocked(Queue& q, uint32_t budget, uint64_t* done) {
  QueueEngine& e = q.engine;
  const uint64_t ring = q.view.ring_size;
  uint64_t wptr = ReadDoorbellLocked(q);
  if (!IsSoc15(q.gpu)) {  // wrapped 32-bit doorbell
    const uint64_t pos = e.rptr % ring;
    wptr = e.rptr + ((wptr % ring) + ring - pos) % ring;
  }
  bool progress = false;
  e.waiting = false;
  while (budget-- > 0 && e.rptr != wptr) {
    if (wptr < e.rptr || wptr - e.rptr > ring || (wptr - e.rptr) % 4 != 0) {
      StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                      "SDMA write pointer " + HexU64(wptr) + " is not within a ring of the read pointer " +
                          HexU64(e.rptr));
      break;
    }
    const uint64_t avail_dw = (wptr - e.rptr) / 4;
    uint32_t head[4] = {};
    const uint64_t head_dw = std::min<uint64_t>(avail_dw, 4);
    if (RingRead(q, e.rptr, head, head_dw * 4) != 0) {
      GpuFaultLocked(q, q.view.ring_base_address + e.rptr % ring, "SDMA ring read");
      break;
    }
    const uint32_t op = head[0] & 0xFF;
    const uint32_t sub = (head[0] >> 8) & 0xFF;
    uint64_t len = 0;  // dwords
    switch (op) {
      case kOpNop: len = 1 + ((head[0] >> 16) & 0x3FFF); break;
      case kOpCopy: len = sub == kCopyLinear ? 7 : sub == kCopySubWindow ? 13 : 0; break;
      case kOpWrite: len = avail_dw >= 4 ? 4 + (head[3] & 0xFFFFF) + 1 : UINT64_MAX; break;
      case kOpFence: len = 4; break;
      case kOpTrap: len = 2; break;
      case kOpPollRegmem: len = 6; break;
      case kOpAtomic: len = 8; break;
      case kOpConstFill: len = 5; break;
      case kOpTimestamp: len = sub <= 2 ? 3 : 0; break;
      default: len = 0; break;
    }
    if (len == 0) {
      StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                      "SDMA packet op " + std::to_string(op) + " sub-op " + std::to_string(sub) +
                          " at ring offset " + HexU64(e.rptr) + " is not supported");
      break;
    }
    if (len != UINT64_MAX && len * 4 > ring) {
      StopQueueLocked(q, k::kEcQueuePacketUnsupported, "SDMA packet larger than the ring");
      break;
    }
    if (len > avail_dw) {  // not completely written yet
      e.waiting = true;
      e.reason = "SDMA packet at ring offset " + HexU64(e.rptr) + " not completely written";
      break;
    }
    std::vector<uint32_t> pkt(static_cast<size_t>(len));
    if (RingRead(q, e.rptr, pkt.data(), len * 4) != 0) {
      GpuFaultLocked(q, q.view.ring_base_address + e.rptr % ring, "SDMA ring read");
      break;
    }
    Outcome out = Outcome::kDone;
    std::string wait;
    switch (op) {
      case kOpNop:
        break;
      case kOpCopy: {
        if (sub == kCopySubWindow) {
          const SubWindow w = DecodeSubWindow(pkt.data());
          std::vector<uint8_t> row(static_cast<size_t>(w.row_bytes));
          for (uint64_t z = 0; z < w.depth && out == Outcome::kDone; ++z) {
            for (uint64_t y = 0; y < w.height && out == Outcome::kDone; ++y) {
              uint64_t s = 0, d = 0;
              if (!w.src.Row(y, z, w.element, &s) || GpuRead(q.gpu, s, row.data(), w.row_bytes) != 0) {
                GpuFaultLocked(q, s, "SDMA COPY_LINEAR_SUB_WINDOW source");
                out = Outcome::kStopped;
              } else if (!w.dst.Row(y, z, w.element, &d) ||
                         GpuWrite(q.gpu, d, row.data(), w.row_bytes) != 0) {
                GpuFaultLocked(q, d, "SDMA COPY_LINEAR_SUB_WINDOW destination");
                out = Outcome::kStopped;
              }
            }
          }
          break;
        }
        const uint64_t bytes = uint64_t{pkt[1] & 0x3FFFFFFF} + 1;
        const uint64_t src = Addr(pkt[3], pkt[4]);
        const uint64_t dst = Addr(pkt[5], pkt[6]);
        std::vector<uint8_t> buf(static_cast<size_t>(std::min(bytes, kChunk)));
        for (uint64_t off = 0; off < bytes && out == Outcome::kDone; off += kChunk) {
          const uint64_t n = std::min(kChunk, bytes - off);
          uint64_t s = 0, d = 0;
          if (!hke::CheckedAdd(src, off, &s) || GpuRead(q.gpu, s, buf.data(), n) != 0) {
            GpuFaultLocked(q, src + off, "SDMA COPY_LINEAR source");
            out = Outcome::kStopped;
          } else if (!hke::CheckedAdd(dst, off, &d) || GpuWrite(q.gpu, d, buf.data(), n) != 0) {
            GpuFaultLocked(q, dst + off, "SDMA COPY_LINEAR destination");
            out = Outcome::kStopped;
          }
        }
        break;
      }
      case kOpWrite: {
        const uint64_t dst = Addr(pkt[1], pkt[2]);
        if (GpuWrite(q.gpu, dst, pkt.data() + 4, (len - 4) * 4) != 0) {
          GpuFaultLocked(q, dst, "SDMA WRITE_LINEAR");
          out = Outcome::kStopped;
        }
        break;
      }
      case kOpFence: {
        const uint64_t dst = Addr(pkt[1], pkt[2]);
        if (GpuWrite(q.gpu, dst, &pkt[3], 4) != 0) {
          GpuFaultLocked(q, dst, "SDMA FENCE");
          out = Outcome::kStopped;
        }
        break;
      }
      case kOpTrap:
        RaiseInterruptLocked(pkt[1] & 0x0FFFFFFF, 28);
        break;
      case kOpPollRegmem: {
        const uint32_t func = (pkt[0] >> 28) & 7;
        if ((pkt[0] & kPollMem) == 0) {
          const bool kernel_flush = (pkt[0] & kPollHdpFlush) != 0;
          const bool rocr_flush = func == 0 && pkt[1] == 0 && pkt[2] == kRocrHdpFlushDw2 &&
                                  pkt[3] == 0 && pkt[4] == 0 && pkt[5] == 0;
          if (!kernel_flush && !rocr_flush) {
            StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                            "SDMA POLL_REGMEM on a register is not supported (only the HDP flush forms)");
            out = Outcome::kStopped;
          }
          break;  // an HDP flush: nothing cached to write back, done at once
        }
        if (func == 7) {
          StopQueueLocked(q, k::kEcQueuePacketUnsupported, "SDMA POLL_REGMEM function 7");
          out = Outcome::kStopped;
          break;
        }
        const uint64_t addr = Addr(pkt[1], pkt[2]);
        uint32_t value = 0;
        if (GpuRead(q.gpu, addr, &value, 4) != 0) {
          GpuFaultLocked(q, addr, "SDMA POLL_REGMEM");
          out = Outcome::kStopped;
        } else if (!Compare(func, value & pkt[4], pkt[3])) {
          out = Outcome::kWait;
          wait = "SDMA POLL_REGMEM waits on " + HexU64(addr);
        }
        break;
      }
      case kOpAtomic: {
        const uint32_t operation = pkt[0] >> 25;
        const AtomicOp a = DecodeAtomic(operation);
        const uint64_t addr = Addr(pkt[1], pkt[2]);
        if (a.width == 0 || (pkt[0] & (1u << 16)) != 0) {
          StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                          "SDMA ATOMIC operation " + std::to_string(operation) +
                              ((pkt[0] & (1u << 16)) != 0 ? " with the loop bit" : "") +
                              " is not supported");
          out = Outcome::kStopped;
          break;
        }
        if (addr % a.width != 0) {
          StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                          "SDMA ATOMIC address " + HexU64(addr) + " is not " +
                              std::to_string(a.width) + "-byte aligned");
          out = Outcome::kStopped;
          break;
        }
        const uint64_t src = Addr(pkt[3], pkt[4]);
        if (a.width == 8) {
          uint64_t v = 0;
          if (GpuRead(q.gpu, addr, &v, 8) != 0) {
            GpuFaultLocked(q, addr, "SDMA ATOMIC");
            out = Outcome::kStopped;
            break;
          }
          v = a.subtract ? v - src : v + src;
          if (GpuWrite(q.gpu, addr, &v, 8) != 0) {
            GpuFaultLocked(q, addr, "SDMA ATOMIC");
            out = Outcome::kStopped;
          }
        } else {
          uint32_t v = 0;
          if (GpuRead(q.gpu, addr, &v, 4) != 0) {
            GpuFaultLocked(q, addr, "SDMA ATOMIC");
            out = Outcome::kStopped;
            break;
          }
          v = a.subtract ? v - pkt[3] : v + pkt[3];
          if (GpuWrite(q.gpu, addr, &v, 4) != 0) {
            GpuFaultLocked(q, addr, "SDMA ATOMIC");
            out = Outcome::kStopped;
          }
        }
        break;
      }
      case kOpConstFill: {
        const uint32_t fill = pkt[0] >> 30;
        if (fill == 3) {
          StopQueueLocked(q, k::kEcQueuePacketUnsupported, "SDMA CONSTANT_FILL of 8-byte elements");
          out = Outcome::kStopped;
          break;
        }
        const uint64_t dst = Addr(pkt[1], pkt[2]);
        const uint64_t bytes = uint64_t{pkt[4] & 0x3FFFFFFF} + 1;
        const uint32_t elem = 1u << fill;
        uint8_t pattern[4];
        std::memcpy(pattern, &pkt[3], 4);
        std::vector<uint8_t> buf(static_cast<size_t>(std::min(bytes, kChunk)));
        for (size_t i = 0; i < buf.size(); ++i) buf[i] = pattern[i % elem];
        for (uint64_t off = 0; off < bytes; off += kChunk) {  // kChunk is a multiple of 4
          const uint64_t n = std::min(kChunk, bytes - off);
          uint64_t d = 0;
          if (!hke::CheckedAdd(dst, off, &d) || GpuWrite(q.gpu, d, buf.data(), n) != 0) {
            GpuFaultLocked(q, dst + off, "SDMA CONSTANT_FILL");
            out = Outcome::kStopped;
            break;
          }
        }
        break;
      }
      case kOpTimestamp: {
        if (sub == 0) break;  // set: nothing to model
        const uint64_t addr = Addr(pkt[1], pkt[2]);
        const uint64_t now = MonotonicRawNs() / 10;
        if (GpuWrite(q.gpu, addr, &now, 8) != 0) {
          GpuFaultLocked(q, addr, "SDMA TIMESTAMP");
          out = Outcome::kStopped;
        }
        break;
      }
      default:
        break;
    }
    if (out == Outcome::kStopped) break;
    if (out == Outcome::kWait) {
      e.waiting = true;
      e.reason = wait;
      break;
    }
    e.rptr += len * 4;
    ++e.packets;
    ++*done;
    progress = true;
  }
  if (!e.waiting && !e.stopped) e.reason.clear();
  if (progress) {
    const uint64_t rptr = e.rptr;
    if (GpuWrite(q.gpu, q.view.read_pointer_address, &rptr, sizeof(rptr)) != 0) {
      GpuFaultLocked(q, q.view.read_pointer_address, "SDMA read pointer write-back");
    }
  }
  return progress;
}

}  // namespace kfdsim
