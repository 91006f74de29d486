// kfdsim PM4 CP engine: executes the packets of PM4 compute queues (queue
// type COMPUTE) in the gfx9 format (the kernel's soc15d.h, ROCR's pm4
// headers).
//
// Ring protocol: pointers count dwords. The doorbell holds the 64-bit write
// pointer, which only grows (pre-SOC15: a 32-bit wrapped one, turned into a
// monotonic one); the ring is addressed modulo ring_size / 4 dwords, so a
// packet may straddle the ring end. After each step the engine stores the
// read pointer as the CP's rptr report does: a u32 holding the dword
// offset inside the ring (wrapped). A write pointer more than a ring ahead
// stops the queue; a packet not completely written waits.
//
// Packets: type-2 (header bits 30-31 = 2) is a one-dword filler. Type-3
// header: count bits 16-29 (body dwords - 1), opcode bits 8-15.
//   NOP (0x10)             skips its body; count 0x3FFF is the one-dword
//                          NOP the kernel pads rings with
//   WRITE_DATA (0x37)      control (dst_sel bits 8-11: 1, 2, 5 = memory;
//                          wr_one_addr bit 16), addr lo/hi, data dwords.
//                          A register destination (0) or GDS stops the queue.
//   RELEASE_MEM (0x49)     count >= 6: event_cntl, data_cntl (data_sel bits
//                          29-31: 0 none, 1 low 32 bits, 2 64 bits, 3 GPU
//                          counter, 4 system counter; int_sel bits 24-26),
//                          addr lo/hi, data lo/hi, int_ctxid. The write
//                          comes first; int_sel != 0 then raises the CP
//                          end-of-pipe interrupt:
//                          kfd_signal_event_interrupt(int_ctxid, 32 bits).
//   SET_SH_REG (0x76)      register offset from 0x2c00, values: the compute
//                          SH registers a DISPATCH_DIRECT reads
//   DISPATCH_DIRECT (0x15) workgroup counts x/y/z, initiator: the kernel
//                          runs to completion on the shader cores
//                          (core/shader/bridge.cc)
//   INDIRECT_BUFFER (0x3F) count 2: base lo/hi, control (size bits 0-19 in
//                          dwords, chain bit 20). The IB's packets run at
//                          once, in order, from GPU memory; an IB inside an
//                          IB or a chained IB stops the queue (depth 1).
// Anything else (type-0/1 packets, other opcodes) stops the queue with
// EC_QUEUE_PACKET_UNSUPPORTED; the read pointer stays at that packet.
//
// Threading: runs with proc_mu_ held (StepQueueLocked).
#include <errno.h>

#include <algorithm>
#include <vector>

#include "lib/core/checked.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint32_t kOpNop = 0x10;
constexpr uint32_t kOpWriteData = 0x37;
constexpr uint32_t kOpIndirectBuffer = 0x3F;
constexpr uint32_t kOpReleaseMem = 0x49;
constexpr uint32_t kOpSetShReg = 0x76;
constexpr uint32_t kOpDispatchDirect = 0x15;
constexpr uint32_t kNopOneDword = 0x3FFF;

uint64_t Addr(uint32_t lo, uint32_t hi) { return uint64_t{lo} | uint64_t{hi} << 32; }

// Packet length in dwords from its header; 0 for packet types not handled.
uint64_t PacketLength(uint32_t header) {
  const uint32_t type = header >> 30;
  if (type == 2) return 1;
  if (type != 3) return 0;
  const uint32_t count = (header >> 16) & 0x3FFF;
  const uint32_t op = (header >> 8) & 0xFF;
  if (op == kOpNop && count == kNopOneDword) return 1;
  return uint64_t{count} + 2;
}

enum class Outcome { kDone, kStopped };

}  // namespace

bool Simulator::StepPm4Locked(Queue& q, uint32_t budget, uint64_t* done) {
  QueueEngine& e = q.engine;
  const uint64_t ring_dw = q.view.ring_size / 4;
  uint64_t wptr = ReadDoorbellLocked(q);
  if (!IsSoc15(q.gpu)) {
    const uint64_t pos = e.rptr % ring_dw;
    wptr = e.rptr + ((wptr % ring_dw) + ring_dw - pos) % ring_dw;
  }
  auto stop = [&](const std::string& why) {
    StopQueueLocked(q, k::kEcQueuePacketUnsupported, why);
    return Outcome::kStopped;
  };
  // Executes one packet other than INDIRECT_BUFFER.
  auto exec = [&](const uint32_t* p, uint64_t len, const char* where) -> Outcome {
    const uint32_t header = p[0];
    if (header >> 30 == 2) return Outcome::kDone;
    const uint32_t op = (header >> 8) & 0xFF;
    switch (op) {
      case kOpNop:
        return Outcome::kDone;
      case kOpWriteData: {
        if (len < 5) return stop(std::string("PM4 WRITE_DATA without data ") + where);
        const uint32_t dst_sel = (p[1] >> 8) & 0xF;
        if (dst_sel != 1 && dst_sel != 2 && dst_sel != 5) {
          return stop("PM4 WRITE_DATA dst_sel " + std::to_string(dst_sel) +
                      " (not memory) is not supported " + where);
        }
        const uint64_t dst = Addr(p[2] & ~3u, p[3]);
        const uint64_t n = len - 4;
        int r = 0;
        if (p[1] & (1u << 16)) {  // every dword to the same address
          for (uint64_t i = 0; i < n && r == 0; ++i) r = GpuWrite(q.gpu, dst, p + 4 + i, 4);
        } else {
          r = GpuWrite(q.gpu, dst, p + 4, n * 4);
        }
        if (r != 0) {
          GpuFaultLocked(q, dst, "PM4 WRITE_DATA");
          return Outcome::kStopped;
        }
        return Outcome::kDone;
      }
      case kOpReleaseMem: {
        if (len < 8) return stop(std::string("PM4 RELEASE_MEM shorter than 8 dwords ") + where);
        const uint32_t data_sel = p[2] >> 29;
        const uint32_t int_sel = (p[2] >> 24) & 7;
        const uint64_t dst = Addr(p[3], p[4]);
        uint64_t value = 0;
        uint64_t bytes = 8;
        switch (data_sel) {
          case 0: bytes = 0; break;
          case 1: value = p[5]; bytes = 4; break;
          case 2: value = Addr(p[5], p[6]); break;
          case 3:
          case 4: value = MonotonicRawNs() / 10; break;
          default:
            return stop("PM4 RELEASE_MEM data_sel " + std::to_string(data_sel) +
                        " is not supported " + where);
        }
        if (bytes != 0 && GpuWrite(q.gpu, dst, &value, bytes) != 0) {
          GpuFaultLocked(q, dst, "PM4 RELEASE_MEM");
          return Outcome::kStopped;
        }
        if (int_sel != 0) RaiseInterruptLocked(p[7], 32);
        return Outcome::kDone;
      }
      case kOpSetShReg:  // compute SH registers for DISPATCH_DIRECT (core/shader/bridge.cc)
        if (len < 3) return stop(std::string("PM4 SET_SH_REG without values ") + where);
        Pm4SetShRegLocked(q, p[1] & 0xFFFF, p + 2, len - 2);
        return Outcome::kDone;
      case kOpDispatchDirect: {  // runs the kernel to completion on the shader cores
        if (len < 5) return stop(std::string("PM4 DISPATCH_DIRECT shorter than 5 dwords ") + where);
        const uint32_t dims[3] = {p[1], p[2], p[3]};
        return Pm4DispatchDirectLocked(q, dims, e.rptr) == KernelStep::kDone ? Outcome::kDone
                                                                             : Outcome::kStopped;
      }
      case kOpIndirectBuffer:
        return stop(std::string("PM4 INDIRECT_BUFFER nested in an IB ") + where);
      default:
        return stop("PM4 packet type " + std::to_string(header >> 30) + " opcode " +
                    HexU64(op) + " is not supported " + where);
    }
  };
  auto run_ib = [&](const uint32_t* p, uint64_t len) -> Outcome {
    if (len != 4) return stop("PM4 INDIRECT_BUFFER of " + std::to_string(len) + " dwords");
    if (p[3] & (1u << 20)) return stop("PM4 chained INDIRECT_BUFFER is not supported");
    const uint64_t base = Addr(p[1] & ~3u, p[2] & 0xFFFF);
    const uint64_t size = p[3] & 0xFFFFF;
    std::vector<uint32_t> ib(static_cast<size_t>(size));
    if (size != 0 && GpuRead(q.gpu, base, ib.data(), size * 4) != 0) {
      GpuFaultLocked(q, base, "PM4 INDIRECT_BUFFER fetch");
      return Outcome::kStopped;
    }
    uint64_t i = 0;
    while (i < size) {
      const uint64_t n = PacketLength(ib[static_cast<size_t>(i)]);
      if (n == 0 || n > size - i) {
        return stop("PM4 packet at IB dword " + std::to_string(i) +
                    (n == 0 ? " has an unsupported type" : " runs past the IB end"));
      }
      const std::string where = "(IB " + HexU64(base) + " dword " + std::to_string(i) + ")";
      if (exec(ib.data() + static_cast<size_t>(i), n, where.c_str()) != Outcome::kDone) return Outcome::kStopped;
      i += n;
    }
    return Outcome::kDone;
  };

  bool progress = false;
  e.waiting = false;
  while (budget-- > 0 && e.rptr != wptr) {
    if (wptr < e.rptr || wptr - e.rptr > ring_dw) {
      stop("PM4 write pointer " + HexU64(wptr) + " is not within a ring of the read pointer " +
           HexU64(e.rptr));
      break;
    }
    const uint64_t avail = wptr - e.rptr;
    uint32_t header = 0;
    if (RingRead(q, e.rptr * 4, &header, 4) != 0) {
      GpuFaultLocked(q, q.view.ring_base_address + (e.rptr % ring_dw) * 4, "PM4 ring read");
      break;
    }
    const uint64_t len = PacketLength(header);
    if (len == 0) {
      stop("PM4 packet type " + std::to_string(header >> 30) + " at ring dword " +
           HexU64(e.rptr % ring_dw) + " is not supported");
      break;
    }
    if (len > ring_dw) {
      stop("PM4 packet larger than the ring");
      break;
    }
    if (len > avail) {
      e.waiting = true;
      e.reason = "PM4 packet at ring dword " + HexU64(e.rptr % ring_dw) + " not completely written";
      break;
    }
    std::vector<uint32_t> pkt(static_cast<size_t>(len));
    if (RingRead(q, e.rptr * 4, pkt.data(), len * 4) != 0) {
      GpuFaultLocked(q, q.view.ring_base_address + (e.rptr % ring_dw) * 4, "PM4 ring read");
      break;
    }
    const bool ib = header >> 30 == 3 && ((header >> 8) & 0xFF) == kOpIndirectBuffer;
    const std::string where = "(ring dword " + HexU64(e.rptr % ring_dw) + ")";
    const Outcome out = ib ? run_ib(pkt.data(), len) : exec(pkt.data(), len, where.c_str());
    if (out != Outcome::kDone) break;
    e.rptr += len;
    ++e.packets;
    ++*done;
    progress = true;
  }
  if (!e.waiting && !e.stopped) e.reason.clear();
  if (progress) {
    const uint32_t report = static_cast<uint32_t>(e.rptr % ring_dw);
    if (GpuWrite(q.gpu, q.view.read_pointer_address, &report, sizeof(report)) != 0) {
      GpuFaultLocked(q, q.view.read_pointer_address, "PM4 read pointer write-back");
    }
  }
  return progress;
}

}  // namespace kfdsim
