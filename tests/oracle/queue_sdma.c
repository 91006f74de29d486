/*
 * Queue oracle: one SDMA copy from system memory to VRAM through the public
 * queue API, built from this source against Debian's libhsakmt 5.2.3 (with
 * HKE_ORACLE_DEBIAN), against hsakmt-embedded and against upstream's
 * current libhsakmt (upstream_build.sh; its header takes the non-Debian
 * branch), and run under libkfdsim-preload.so, whose engine thread executes
 * the packets. tests/oracle/queue_compare.sh runs a reference and ours and
 * requires the same output.
 *
 * Steps: open, find the first GPU node; allocate a 64 KiB source in system
 * memory (GTT) filled with a fixed pseudo-random pattern and a 64 KiB
 * destination in the node's VRAM (host-visible) filled with 0xEE; a 4 KiB
 * ring; a signal event; an SDMA queue. The ring receives two COPY_LINEAR
 * packets (32 KiB each), a FENCE writing the event id to the event's slot
 * and a TRAP naming the event, then the write pointer and the doorbell are
 * stored (byte offsets, 64-bit: SOC15). The program waits for the event (5
 * s), then prints the wait status, whether the read pointer caught up, and
 * an FNV-1a hash of the destination, which equals the source's hash when
 * the copy happened. A second round writes past the ring's end (the ring
 * wraps) and copies the other way round.
 *
 * Output lines (no addresses): "<step> status=<n> [key=value]".
 * Exit status: 0 when the run completed (whatever the statuses), 1 when the
 * device could not be opened or has no GPU.
 * Single-threaded.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef HKE_ORACLE_DEBIAN
#include <hsakmt.h>
#else
#include "hsakmt/hsakmt.h"
#endif

#define KiB ((uint64_t)1024)
#define BUF (64 * KiB)
#define RING (4 * KiB)

static uint64_t fnv(const volatile uint8_t* p, uint64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (uint64_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static HSAKMT_STATUS alloc(HSAuint32 node, uint64_t size, int vram, void** out) {
  HsaMemFlags f;
  memset(&f, 0, sizeof(f));
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  f.ui32.ExecuteAccess = vram ? 0 : 1;
  f.ui32.CoarseGrain = vram ? 1 : 0;
  return hsaKmtAllocMemory(vram ? node : 0, size, f, out);
}

static HSAKMT_STATUS map(void* p, uint64_t size, HSAuint32 node) {
  HsaMemMapFlags mf;
  memset(&mf, 0, sizeof(mf));
  return hsaKmtMapMemoryToGPUNodes(p, size, NULL, mf, 1, &node);
}

/* The ring as the SDMA engine sees it: dwords at byte offsets modulo RING. */
struct ring {
  volatile uint32_t* base;
  uint64_t wptr; /* bytes, monotonic */
};

static void put(struct ring* r, uint32_t dw) {
  r->base[(r->wptr % RING) / 4] = dw;
  r->wptr += 4;
}

static void copy_linear(struct ring* r, uint64_t dst, uint64_t src, uint32_t bytes) {
  put(r, 1u);          /* op COPY (1), sub-op LINEAR (0) */
  put(r, bytes - 1u);  /* count - 1 (SDMA 4.x) */
  put(r, 0u);          /* parameters: linear, no swap */
  put(r, (uint32_t)src);
  put(r, (uint32_t)(src >> 32));
  put(r, (uint32_t)dst);
  put(r, (uint32_t)(dst >> 32));
}

static void fence(struct ring* r, uint64_t addr, uint32_t data) {
  put(r, 5u); /* op FENCE */
  put(r, (uint32_t)addr);
  put(r, (uint32_t)(addr >> 32));
  put(r, data);
}

static void trap(struct ring* r, uint32_t ctx) {
  put(r, 6u); /* op TRAP */
  put(r, ctx & 0x0FFFFFFFu);
}

static void nop_to(struct ring* r, uint64_t target) {
  while (r->wptr < target) put(r, 0u); /* op NOP, count 0 */
}

/* One round: copy `from` -> `to` (BUF bytes in two packets), fence, trap,
 * ring the doorbell, wait. */
static void round_trip(const char* name, struct ring* r, HsaQueueResource* q, HsaEvent* ev,
                       void* to, void* from) {
  const uint64_t half = BUF / 2;
  copy_linear(r, (uint64_t)(uintptr_t)to, (uint64_t)(uintptr_t)from, (uint32_t)half);
  copy_linear(r, (uint64_t)(uintptr_t)to + half, (uint64_t)(uintptr_t)from + half,
              (uint32_t)half);
  fence(r, ev->EventData.HWData2, ev->EventId);
  trap(r, ev->EventId);
  __atomic_store_n(q->Queue_write_ptr_aql, r->wptr, __ATOMIC_RELEASE);
  __atomic_store_n(q->Queue_DoorBell_aql, r->wptr, __ATOMIC_RELEASE);
  HSAKMT_STATUS s = hsaKmtWaitOnEvent(ev, 5000);
  const uint64_t rptr = __atomic_load_n(q->Queue_read_ptr_aql, __ATOMIC_ACQUIRE);
  printf("%s-wait status=%d rptr_caught_up=%d\n", name, (int)s, rptr == r->wptr);
  printf("%s-bytes dst=%016llx src=%016llx equal=%d\n", name,
         (unsigned long long)fnv((const volatile uint8_t*)to, BUF),
         (unsigned long long)fnv((const volatile uint8_t*)from, BUF),
         memcmp(to, from, BUF) == 0);
}

int main(void) {
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) return 1;
  HsaSystemProperties sys;
  if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) return 1;
  HSAuint32 gpu = 0xFFFFFFFFu;
  for (HSAuint32 n = 0; n < sys.NumNodes && gpu == 0xFFFFFFFFu; ++n) {
    HsaNodeProperties p;
    if (hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS && p.NumFComputeCores != 0) gpu = n;
  }
  if (gpu == 0xFFFFFFFFu) return 1;

  void *src = NULL, *dst = NULL, *ring = NULL;
  HSAKMT_STATUS s = alloc(gpu, BUF, 0, &src);
  printf("alloc-src status=%d\n", (int)s);
  s = alloc(gpu, BUF, 1, &dst);
  printf("alloc-dst status=%d\n", (int)s);
  s = alloc(gpu, RING, 0, &ring);
  printf("alloc-ring status=%d\n", (int)s);
  if (src == NULL || dst == NULL || ring == NULL) return 0;
  printf("map status=%d %d %d\n", (int)map(src, BUF, gpu), (int)map(dst, BUF, gpu),
         (int)map(ring, RING, gpu));
  uint32_t x = 0x12345678u;
  for (uint64_t i = 0; i < BUF; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    ((uint8_t*)src)[i] = (uint8_t)x;
  }
  memset(dst, 0xEE, BUF);
  memset(ring, 0, RING);

  HsaEventDescriptor d;
  memset(&d, 0, sizeof(d));
  d.EventType = HSA_EVENTTYPE_SIGNAL;
  d.NodeId = gpu;
  d.SyncVar.SyncVar.UserData = NULL;
  d.SyncVar.SyncVarSize = sizeof(HSAuint64);
  HsaEvent* ev = NULL;
  s = hsaKmtCreateEvent(&d, false, false, &ev);
  printf("event status=%d\n", (int)s);
  if (ev == NULL) return 0;

  HsaQueueResource q;
  memset(&q, 0, sizeof(q));
  s = hsaKmtCreateQueue(gpu, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, RING, NULL, &q);
  printf("create-queue status=%d\n", (int)s);
  if (s != HSAKMT_STATUS_SUCCESS) return 0;

  struct ring r = {(volatile uint32_t*)ring, 0};
  round_trip("copy-to-vram", &r, &q, ev, dst, src);
  /* Start the second round 8 bytes before the end so its packets wrap. */
  nop_to(&r, RING - 8);
  memset(src, 0x11, BUF);
  round_trip("copy-back-wrapped", &r, &q, ev, src, dst);

  printf("destroy-queue status=%d\n", (int)hsaKmtDestroyQueue(q.QueueId));
  printf("destroy-event status=%d\n", (int)hsaKmtDestroyEvent(ev));
  printf("free status=%d %d %d\n", (int)hsaKmtFreeMemory(src, BUF), (int)hsaKmtFreeMemory(dst, BUF),
         (int)hsaKmtFreeMemory(ring, RING));
  printf("close status=%d\n", (int)hsaKmtCloseKFD());
  return 0;
}
