// hsakmt-info --smoke: one end-to-end round trip through the thunk on every
// GPU node: allocate and map a system (GTT) source and a VRAM destination,
// create a signal event and an SDMA queue, submit COPY_LINEAR + FENCE + TRAP
// through the ring and the doorbell, wait for the event, compare the bytes,
// and tear everything down. Everything goes through the public hsaKmt* API on
// the default context, so on a simulated board the simulator's SDMA engine
// executes the packets, and on real /dev/kfd the GPU does (SDMA 4.x and later
// packet formats: gfx9 and newer).
#include "tools/hsakmt-info/smoke.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace hkeinfo {
namespace {

constexpr uint64_t kBytes = 1 << 20;  // per node
constexpr uint64_t kRing = 4096;
constexpr uint32_t kChunk = 1 << 20;  // bytes per COPY_LINEAR packet (SDMA 4.x: up to 4 MiB)

struct Ring {
  volatile uint32_t* base = nullptr;
  uint64_t wptr = 0;  // bytes, monotonic
  void Put(uint32_t dw) {
    base[(wptr % kRing) / 4] = dw;
    wptr += 4;
  }
};

std::string Status(const char* call, HSAKMT_STATUS s) {
  char b[96];
  std::snprintf(b, sizeof(b), "%s returned %d", call, static_cast<int>(s));
  return b;
}

// The round trip on one node; *error names the step that failed.
bool RoundTrip(uint32_t node, SmokeResult* out, std::string* error) {
  HsaMemFlags sys{};
  sys.ui32.HostAccess = 1;
  sys.ui32.NonPaged = 1;
  sys.ui32.ExecuteAccess = 1;
  HsaMemFlags vram{};
  vram.ui32.HostAccess = 1;
  vram.ui32.NonPaged = 1;
  vram.ui32.CoarseGrain = 1;
  void* src = nullptr;
  void* dst = nullptr;
  void* ring = nullptr;
  HsaEvent* ev = nullptr;
  HsaQueueResource q{};
  bool queue = false;
  bool ok = false;
  HSAKMT_STATUS s = HSAKMT_STATUS_SUCCESS;
  do {
    if ((s = hsaKmtAllocMemory(0, kBytes, sys, &src)) != HSAKMT_STATUS_SUCCESS) {
      *error = Status("hsaKmtAllocMemory(system)", s);
      break;
    }
    if ((s = hsaKmtAllocMemory(node, kBytes, vram, &dst)) != HSAKMT_STATUS_SUCCESS) {
      *error = Status("hsaKmtAllocMemory(VRAM)", s);
      break;
    }
    if ((s = hsaKmtAllocMemory(0, kRing, sys, &ring)) != HSAKMT_STATUS_SUCCESS) {
      *error = Status("hsaKmtAllocMemory(ring)", s);
      break;
    }
    void* bufs[3] = {src, dst, ring};
    const uint64_t sizes[3] = {kBytes, kBytes, kRing};
    bool mapped = true;
    for (int i = 0; i < 3 && mapped; ++i) {
      s = hsaKmtMapMemoryToGPUNodes(bufs[i], sizes[i], nullptr, HsaMemMapFlags{}, 1, &node);
      mapped = s == HSAKMT_STATUS_SUCCESS;
    }
    if (!mapped) {
      *error = Status("hsaKmtMapMemoryToGPUNodes", s);
      break;
    }
    uint32_t x = 0x2545F491u ^ node;
    for (uint64_t i = 0; i < kBytes; ++i) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      static_cast<uint8_t*>(src)[i] = static_cast<uint8_t>(x);
    }
    std::memset(dst, 0, kBytes);
    std::memset(ring, 0, kRing);
    HsaEventDescriptor d{};
    d.EventType = HSA_EVENTTYPE_SIGNAL;
    d.NodeId = node;
    d.SyncVar.SyncVarSize = sizeof(HSAuint64);
    if ((s = hsaKmtCreateEvent(&d, false, false, &ev)) != HSAKMT_STATUS_SUCCESS) {
      *error = Status("hsaKmtCreateEvent", s);
      break;
    }
    s = hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, kRing,
                          nullptr, &q);
    if (s != HSAKMT_STATUS_SUCCESS) {
      *error = Status("hsaKmtCreateQueue(SDMA)", s);
      break;
    }
    queue = true;
    Ring r;
    r.base = static_cast<volatile uint32_t*>(ring);
    const uint64_t from = reinterpret_cast<uintptr_t>(src), to = reinterpret_cast<uintptr_t>(dst);
    for (uint64_t off = 0; off < kBytes; off += kChunk) {
      const uint64_t a = from + off, b = to + off;
      r.Put(1u);  // COPY_LINEAR
      r.Put(kChunk - 1u);
      r.Put(0u);
      r.Put(static_cast<uint32_t>(a));
      r.Put(static_cast<uint32_t>(a >> 32));
      r.Put(static_cast<uint32_t>(b));
      r.Put(static_cast<uint32_t>(b >> 32));
    }
    const uint64_t slot = ev->EventData.HWData2;
    r.Put(5u);  // FENCE: the event id into the event's slot
    r.Put(static_cast<uint32_t>(slot));
    r.Put(static_cast<uint32_t>(slot >> 32));
    r.Put(ev->EventId);
    r.Put(6u);  // TRAP: the event interrupt
    r.Put(ev->EventId & 0x0FFFFFFFu);
    const auto t0 = std::chrono::steady_clock::now();
    __atomic_store_n(q.Queue_write_ptr_aql, r.wptr, __ATOMIC_RELEASE);
    __atomic_store_n(q.Queue_DoorBell_aql, r.wptr, __ATOMIC_RELEASE);
    s = hsaKmtWaitOnEvent(ev, 5000);
    const auto t1 = std::chrono::steady_clock::now();
    if (s != HSAKMT_STATUS_SUCCESS) {
      *error = s == HSAKMT_STATUS_WAIT_TIMEOUT
                   ? "the SDMA copy did not complete within 5 s (no engine executed the queue)"
                   : Status("hsaKmtWaitOnEvent", s);
      break;
    }
    if (std::memcmp(src, dst, kBytes) != 0) {
      *error = "the SDMA copy completed but the destination differs from the source";
      break;
    }
    out->bytes = kBytes;
    out->microseconds =
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count());
    ok = true;
  } while (false);
  if (queue && (s = hsaKmtDestroyQueue(q.QueueId)) != HSAKMT_STATUS_SUCCESS && ok) {
    *error = Status("hsaKmtDestroyQueue", s);
    ok = false;
  }
  if (ev != nullptr) (void)hsaKmtDestroyEvent(ev);
  for (void* p : {ring, dst, src}) {
    if (p != nullptr && (s = hsaKmtFreeMemory(p, 0)) != HSAKMT_STATUS_SUCCESS && ok) {
      *error = Status("hsaKmtFreeMemory", s);
      ok = false;
    }
  }
  return ok;
}

}  // namespace

std::vector<SmokeResult> RunSmoke(const std::vector<uint32_t>& gpu_nodes) {
  std::vector<SmokeResult> out;
  for (uint32_t node : gpu_nodes) {
    SmokeResult r;
    r.node = node;
    r.ok = RoundTrip(node, &r, &r.error);
    out.push_back(r);
  }
  return out;
}

}  // namespace hkeinfo
