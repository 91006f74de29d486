// The events subsystem of a context: KFD events (signal, debug, memory
// exception, HW exception and the other HSA_EVENTTYPE kinds), the signal
// page they live in, and waits on them.
//
// Model (upstream's events.c semantics with fixed storage and checked
// handles):
//  - Every event occupies one slot of a fixed table (EventsState::slots, a
//    FixedSlotTable of lib/core/slot_table.h,
//    config::kMaxEvents entries: the KFD's 4096 signal slots in the
//    default configuration, 256 on small-board). The HsaEvent a caller
//    receives lives in the table too: each slot owns kViews HsaEvent
//    "views" and its generation (counted up each time the slot is taken)
//    picks the live one, views[slot * kViews + generation % kViews].
//    A pointer is accepted only when it is exactly the live view of a live
//    slot; anything else (a foreign address, a misaligned or out-of-table
//    pointer, a free slot, another generation's view) is INVALID_HANDLE and
//    is never dereferenced. Slots are handed out fresh first, then from a
//    FIFO free list, so a destroyed handle stays invalid until its slot
//    has been taken kViews more times, which is at least
//    kViews x (kMaxEvents - live events) creations later. The library
//    never reads an HsaEvent the caller holds: kernel ids, types and
//    generations are kept in the slot.
//  - The signal page (4096 slots x 8 bytes = 32 KiB): on a dGPU the first
//    CreateEvent of an open allocates it (system memory, GTT, uncached,
//    host-visible, executable, mapped to every GPU, through the memory
//    subsystem) and passes its BO handle with that CREATE_EVENT, as
//    upstream does; on an APU the kernel allocates it and the library maps
//    it from /dev/kfd at the EVENTS offset the first signal CREATE_EVENT
//    returns (32 KiB, one page on kernels that refuse more). A signal or
//    debug event's HsaEvent carries HWData1 = kernel id, HWData2 = the
//    address of its 8-byte slot in the page, HWData3 = trigger data.
//  - The kernel keeps a dGPU process's page until the process exits (it
//    refuses to free the BO and to take a second page). After the last
//    close and a reopen in the same process, signal and debug events
//    therefore fail with UNAVAILABLE (upstream fails the same way, with
//    EINVAL from the kernel); other event kinds keep working. A forked
//    child (a new kernel process) gets a page of its own.
//  - Kernel ids: current kernels (>= 5.18) reserve id 0, older ones and
//    the simulator give it to the first signal event; both are accepted.
//  - Waits (Wait): one WAIT_EVENTS per call, no library lock held while
//    the kernel blocks. Timeout 0 polls, 0xFFFFFFFF waits forever, other
//    values are milliseconds. An EINTR/EAGAIN resumes the wait with the
//    time left by the platform's monotonic clock (or the kernel's
//    written-back remainder when the platform has no clock); interrupted
//    attempts that each returned within a millisecond are bounded by the
//    platform's ioctl retry budget. Event ages (KFD >= 1.14) are passed
//    for signal events and written back; on older kernels they are not
//    sent (legacy waits) and the caller's array is left as it was.
//    Auto-reset is the kernel's: a set wakes every waiter blocked at that
//    moment and leaves an auto-reset event unsignalled; a set with no
//    waiter stays until one wait consumes it.
//  - Wait storage: the kfd_event_data array comes from the caller's stack
//    for up to kWaitStackEvents events (kWaitStackEvents x 60 bytes), and
//    otherwise from a pool of kWaitPoolBuffers buffers of kMaxEvents
//    entries in the context, one per concurrent large wait; when every
//    pool buffer is in use a large wait fails with RESOURCE_EXHAUSTED
//    (nothing blocks waiting for a buffer). No heap, no large stack.
//  - Memory-exception and HW-exception data the kernel returns with a
//    completed wait are written into the HsaEvent's EventData (faulting
//    VA, node id from the gpu_id, reason bits; Flags = FATAL_PROCESS as
//    upstream), only while the event is still the one waited on.
//  - An event destroyed while a wait names it fails that wait with EIO
//    (HSAKMT_STATUS_WAIT_FAILURE). A destroy that races the start of a
//    wait (after the wait checked its handles, before the kernel saw them)
//    cannot be told apart by the kernel from a new event that reused the
//    kernel id; the wait then reports EIO too, but may have consumed an
//    auto-reset signal of that new event. Destroying an event other
//    threads are about to wait on is a caller race.
//
// Ownership: the table, the views and the wait pool are part of the
// Context (no heap); the storage is touched lazily (a slot when it is
// first taken), never at construction. The page is owned by the context:
// an APU mapping is unmapped by Teardown; a dGPU page is a memory object
// released with the memory subsystem.
//
// Threading: every function may be called from any thread. The table is
// guarded by the context's events_lock, which is never held across an
// event ioctl of a live handle (a waiter woken by a SetEvent must not find
// the setter still holding the lock). SET/RESET pin their slot for the
// ioctl instead (a SlotPin guard); a Destroy retires the slot (new calls on the
// handle fail with INVALID_HANDLE), waits for the pins to drain and only
// then sends DESTROY_EVENT, so no SET/RESET can reach a kernel id the
// kernel has freed and perhaps handed to a new event. A refused
// DESTROY_EVENT makes the event live again. Nothing holds the lock across
// WAIT_EVENTS or CREATE_EVENT; Teardown (the last close) holds it across
// its DESTROY_EVENTs. events_setup_lock serialises the first CREATE_EVENT of
// an open (page setup). Lock order: events_setup_lock -> topology_lock ->
// memory_lock -> events_lock -> lock. Memory calls (Alloc, Map, EnsureVm)
// are made with none of these held except events_setup_lock.
#ifndef HKE_LIB_EVENTS_EVENTS_H_
#define HKE_LIB_EVENTS_EVENTS_H_

#include <cstdint>

#include "hsakmt/hsakmttypes.h"
#include "lib/core/config.h"
#include "lib/core/slot_table.h"
#include "lib/core/status.h"
#include "lib/kfd/abi.h"

namespace hke {
class Context;
}

namespace hke::events {

// Capacities (see the file comment).
inline constexpr uint32_t kMaxEvents = config::kMaxEvents;
#if defined(HKE_CONFIG_SMALL_BOARD)
inline constexpr uint32_t kViews = 2;
inline constexpr uint32_t kWaitPoolBuffers = 2;
#else
inline constexpr uint32_t kViews = 4;
inline constexpr uint32_t kWaitPoolBuffers = 4;
#endif
inline constexpr uint32_t kWaitStackEvents = 16;
// The signal page: every KFD signal slot.
inline constexpr uint64_t kPageBytes = uint64_t{kfd::kSignalEventLimit} * kfd::kEventSlotSize;

static_assert(kMaxEvents >= kWaitStackEvents, "the stack array never exceeds the table");
static_assert(kMaxEvents <= kfd::kSignalEventLimit, "one wait can name every event");
static_assert(kWaitPoolBuffers <= 32, "the pool's free set is one 32-bit mask");
static_assert(sizeof(HsaEvent) % 8 == 0 && alignof(HsaEvent) == 4,
              "the views' placement (EventsState::views_lead) keeps 64-bit fields aligned");

static_assert((kViews & (kViews - 1)) == 0, "a view is picked by the generation's low bits");

// One event; its table slot (lib/core/slot_table.h) holds the state
// (reserved while CreateEvent runs, live, retiring while DestroyEvent
// waits for SET/RESET calls in flight), the generation that picks the live
// view and the pins of those calls. Initialised when first taken, never at
// construction.
struct EventSlot {
  uint32_t kfd_id;      // the kernel's event id
  uint32_t epoch;       // open epoch the event was created in
  uint32_t type;        // HSA_EVENTTYPE
  bool auto_reset;
};

// Never-used slots first, then the oldest freed (see the file comment);
// generations count modulo 2^32.
inline constexpr SlotTable::Policy kEventTablePolicy{SlotTable::Reuse::kFreshFirstFifo,
                                                     0xffffffffu, false};

// Per-entry bookkeeping of a wait next to its kfd_event_data entry.
struct WaitEntry {
  uint32_t slot;
  uint32_t generation;
  uint32_t type;
};

// One pool buffer for a wait of more than kWaitStackEvents events.
struct WaitBuffer {
  kfd::EventData data[kMaxEvents];
  WaitEntry entries[kMaxEvents];
};

enum class PageKind : uint8_t { kNone, kUserBo, kKernelMapping };

struct GpuNode {
  uint32_t gpu_id;
  uint32_t node;
};

// Small members have initialisers (run by Context's constructor); the
// arrays below them are left untouched until used.
struct EventsState {
  uint32_t epoch = 0;              // open epoch the table was last synchronised to
  // Setup of the current epoch (events_setup_lock + events_lock).
  uint32_t setup_epoch = 0;        // epoch whose setup below is valid (0: none)
  bool dgpu = false;
  bool age_supported = false;      // KFD >= 1.14
  bool node0_is_gpu = false;       // node 0 is a GPU (the page then needs GTTAccess)
  bool page_blocked = false;       // dGPU: the kernel holds an earlier open's page
  int32_t pid = 0;                 // process that opened the device
  uint32_t num_gpus = 0;
  GpuNode gpus[config::kMaxGpus];
  // The page of the current epoch.
  uint32_t page_epoch = 0;         // epoch page_va belongs to (0: none)
  PageKind page_kind = PageKind::kNone;
  uint64_t page_va = 0;
  uint64_t page_bytes = 0;         // bytes mapped (APU) / allocated (dGPU)
  // Process whose kernel holds a thunk-allocated page (0: none); it
  // outlives the last close (see the file comment).
  int32_t user_page_pid = 0;
  // Wait pool: bit i set when pool[i] is free.
  uint32_t pool_free = (kWaitPoolBuffers == 32) ? 0xffffffffu : ((1u << kWaitPoolBuffers) - 1u);
  uint32_t pool_high_water = 0;    // statistics: most pool buffers in use at once

  FixedSlotTable<EventSlot, kMaxEvents> slots{kEventTablePolicy};
  // HsaEvent is packed to 4 bytes and its 64-bit fields (HWData2/3, a
  // memory fault's address) sit at offsets 4 mod 8; the views start 4
  // bytes past an 8-byte boundary (sizeof(HsaEvent) is a multiple of 8),
  // so those fields are naturally aligned in every view for callers that
  // bind references to them.
  alignas(8) uint32_t views_lead;
  HsaEvent views[kMaxEvents * kViews];
  WaitBuffer pool[kWaitPoolBuffers];
};

// Operations ----------------------------------------------------------------

// hsaKmtCreateEvent. *out is written only on success.
Status Create(Context& ctx, const HsaEventDescriptor& desc, bool manual_reset, bool signaled,
              HsaEvent** out);
Status Destroy(Context& ctx, const HsaEvent* event);
// SET/RESET_EVENT: only SIGNAL and DEBUG events (EINVAL otherwise, as the
// kernel answers; the kernel itself refuses DEBUG events).
Status Set(Context& ctx, const HsaEvent* event);
Status Reset(Context& ctx, const HsaEvent* event);
// OK when `event` is a live event of this context (upstream's query is a
// stub that always succeeds; the state itself cannot be read without
// consuming an auto-reset signal).
Status Query(Context& ctx, const HsaEvent* event);

// Waits for any (`all` false) or every event. OK: complete;
// DEADLINE_EXCEEDED: timeout; Errno(EIO): an event was destroyed during
// the wait; INVALID_HANDLE: a handle was not a live event; INVALID_ARGUMENT
// / OUT_OF_RANGE: count 0 / above kMaxEvents (before any ioctl);
// RESOURCE_EXHAUSTED: every pool buffer is in use. `ages` (may be null)
// holds one age per event, read and written for SIGNAL events. The caller
// holds the context's open gate shared (an entry point); the wait leaves it
// while it is in the kernel.
Status Wait(Context& ctx, HsaEvent* const* events, uint32_t count, bool all, uint32_t timeout_ms,
            uint64_t* ages);

// hsaKmtOpenSMI: SMI_EVENTS for the GPU of `node` (lib/events/smi.cc).
// *out_fd (owned by the caller) is written only on success.
Status OpenSmi(Context& ctx, uint32_t node, int* out_fd);

// The kernel id behind a handle (for queues that take an HsaEvent).
Status KernelId(Context& ctx, const HsaEvent* event, uint32_t* out_id);

// Lifecycle -------------------------------------------------------------

// Destroys every live event and unmaps an APU page (the last close; call
// before memory::Teardown, which releases a dGPU page).
void Teardown(Context& ctx);
// Forgets every event without I/O (context teardown in a forked child).
void Forget(Context& ctx);

// Introspection ---------------------------------------------------------

struct Stats : SlotStats {     // the event table's counters
  uint32_t pool_in_use;
  uint32_t pool_high_water;
  uint64_t page_va;            // 0 when the current open has no page
  bool page_from_kernel;       // APU mapping (true) or thunk BO (false)
};
Status GetStats(Context& ctx, Stats* out);

}  // namespace hke::events

#endif  // HKE_LIB_EVENTS_EVENTS_H_
