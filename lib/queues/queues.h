// The queues subsystem of a context: user-mode queues (PM4 compute, AQL
// compute, SDMA, xGMI SDMA, SDMA on a named engine), their doorbells and
// the buffers the GPU needs next to each ring.
//
// Model (upstream's queues.c semantics, fixed storage, checked handles):
//  - Every queue occupies one slot of a fixed descriptor table
//    (QueuesState::slots, a FixedSlotTable of lib/core/slot_table.h, config::kMaxQueues entries: the KFD's 1024 queues
//    per process by default, 16 on small-board). The HSA_QUEUEID handed to
//    the caller encodes a tag, the slot and the slot's generation (counted
//    up each time the slot is taken): EncodeQueueId below. A handle is
//    accepted only while it names a live slot of that generation; stale,
//    forged and zero handles are INVALID_HANDLE and never dereferenced
//    (upstream's HSA_QUEUEID is a raw pointer). Freed slots go to a FIFO
//    list, so a destroyed handle stays invalid for at least
//    kMaxQueues - live creations, and for 2^20 reuses of its own slot.
//  - Per queue the library allocates, through the memory subsystem and
//    mapped to the queue's node: a "queue page" (one page of uncached,
//    non-paged host memory, a GTT BO of the queue's GPU, as current
//    upstream: the write pointer at offset 0, the read pointer at 8 for PM4
//    and SDMA rings, whose pointers the thunk provides, and the CU mask at
//    kCuMaskOffset); the EOP buffer (VRAM, EopBufferSize); and for compute
//    queues on gfx8 and later the context save / restore (CWSR) area (paged
//    host memory, ComputeCwsr's total, one kfd_context_save_area_header per
//    XCC at the start of each XCC's part, carrying the queue's error event
//    id and the caller's ErrorReason address). AQL queues use the caller's
//    read/write pointers (QueueResource->Queue_read_ptr_aql/_write_ptr_aql,
//    inputs as upstream).
//  - Doorbells: the first queue created on a node maps that node's doorbell
//    slice (1024 doorbells of 8 bytes from gfx9 (SOC15), of 4 before; the
//    mapping is at least a page), every later queue on the node shares it,
//    and it stays until the last close, as upstream keeps it (a node's next
//    queue then costs no mapping; the memory oracle compares the ioctls). On a dGPU with SOC15 doorbells the slice is a DOORBELL BO
//    made by the memory subsystem (memory::MapDoorbell: CPU-mapped from
//    /dev/kfd and mapped to the GPUs, so a GPU can ring it); otherwise a
//    plain mmap of /dev/kfd, as upstream. The doorbell address is the
//    mapping plus the in-slice byte offset the kernel returned (SOC15) or
//    queue_id * 4 (older GPUs).
//  - Checks made before any ioctl, each with a diagnostics message: the
//    ring (non-null, 256-byte aligned, a power of two of at least 1 KiB and
//    at most 2 GiB: the kernel silently rounds smaller rings up to 1 KiB and
//    would write past a smaller buffer), the type, the priority (-3..3,
//    mapped to the kernel's 0..15 by PriorityToKfd), the percentage (low
//    byte at most 100, bits 8-15 a PM4 target XCC), the SDMA engine id of
//    an SDMA_BY_ENG_ID queue (below the node's SDMA + xGMI SDMA engines;
//    other types ignore the id and send 0, as the kernel ignores it), the
//    node (a GPU), the AQL pointers, the queue capacity.
//  - A failed create leaves nothing behind: every buffer allocated for it is
//    freed, the doorbell mapping is dropped when it was made for it, the
//    slot returns to the free list with its generation advanced.
//  - Update sends the new ring, percentage and priority; a NULL ring of
//    size 0 disables the queue (at any percentage, as percentage 0 does:
//    the kernel's QUEUE_IS_ACTIVE), and a later update with a ring enables
//    it again. A NULL ring with a nonzero size is refused.
//  - Destroy issues DESTROY_QUEUE first; when the kernel refuses, nothing is
//    released and the handle stays valid (the call can be retried).
//  - The last hsaKmtCloseKFD destroys every live queue before events and
//    memory are torn down; a forked child forgets them without I/O.
//
// Ownership: the table is part of the Context (no heap), touched lazily (a
// slot when it is first taken). Buffers and doorbell mappings belong to
// the context until the queue (or the last queue of a node) is destroyed.
//
// Threading: every function takes the context's queues_lock and holds it
// across the whole operation (allocations, ioctls), so queue operations of
// one context are serialised. Lock order: queues_lock -> topology_lock ->
// memory_lock -> events_lock -> lock; memory and event calls are made
// with queues_lock held, never the other way round.
#ifndef HKE_LIB_QUEUES_QUEUES_H_
#define HKE_LIB_QUEUES_QUEUES_H_

#include <cstdint>

#include "hsakmt/hsakmttypes.h"
#include "lib/core/config.h"
#include "lib/core/slot_table.h"
#include "lib/core/status.h"

namespace hke {
class Context;
}

namespace hke::queues {

// ---------------------------------------------------------------------------
// Pure rules (queues/rules.cc), tested on their own
// ---------------------------------------------------------------------------

// The facts of a GPU node the sizing rules need (HsaNodeProperties names).
struct NodeFacts {
  uint32_t gfx_version;        // gfx_target_version, e.g. 90402 for gfx942
  uint32_t num_fcompute_cores; // simd_count
  uint32_t num_simd_per_cu;
  uint32_t num_xcc;            // 0 is read as 1
  uint32_t num_shader_banks;   // array_count
  uint32_t num_arrays;         // simd_arrays_per_engine
  uint32_t lds_size_kb;
  uint32_t num_sdma_engines;
  uint32_t num_sdma_xgmi_engines;
};

// Context save / restore sizes of one compute queue (upstream's rule; see
// rules.cc). All sizes in bytes.
struct CwsrSizes {
  uint32_t waves;           // waves the control stack has room for, per XCC
  uint32_t ctl_stack_size;  // page aligned; CREATE_QUEUE's ctl_stack_size
  uint32_t wg_data_size;    // page aligned work-group save data, per XCC
  uint32_t per_xcc_size;    // ctl_stack_size + wg_data_size: CREATE_QUEUE's ctx_save_restore_size
  uint32_t debug_size;      // debugger area per XCC, multiple of 64
  uint64_t total_size;      // (per_xcc_size + debug_size) * XCCs, page aligned: what is allocated
};

// True when queues of this GPU get a CWSR area (gfx8 and later; gfx800,
// Iceland without the feature, is excluded as upstream does via Carrizo+).
bool HasCwsr(uint32_t gfx_version);

// Computes the sizes. INVALID_ARGUMENT when the facts cannot describe a GPU
// (no SIMDs, no SIMDs per CU, fewer CUs than XCCs, page size not a power of
// two); OVERFLOW when a size does not fit its field. *out only on success.
Status ComputeCwsr(const NodeFacts& facts, uint32_t page_size, CwsrSizes* out);

// EOP buffer bytes for a queue of the kernel type (kfd::kQueueType*) on
// this GPU: 32 KiB on Tonga (gfx802), 4 KiB from gfx8, none for SDMA, none
// before gfx8, none for AQL on gfx94x.
uint32_t EopBufferSize(uint32_t gfx_version, uint32_t kfd_queue_type);

// HSA priority (-3..3) to the kernel's 0..15: {0, 3, 5, 7, 9, 11, 15}.
// false for anything else.
bool PriorityToKfd(int64_t priority, uint32_t* out);

// HSA_QUEUE_TYPE to the kernel's type; `ext` allows SDMA_BY_ENG_ID.
// INVALID_ARGUMENT for the reserved and multimedia kinds.
Status TypeToKfd(uint32_t hsa_type, bool ext, uint32_t* out);

// Ring checks made before CREATE/UPDATE_QUEUE (see the file comment).
// A null ring with size 0 is allowed only when `allow_disable` (Update:
// "disable this queue"); a null ring with a size is refused either way.
Status CheckRing(uint64_t address, uint64_t size, bool allow_disable);

// Doorbells: bytes per doorbell and of a node's mapping.
inline uint32_t DoorbellBytes(uint32_t gfx_version) { return gfx_version >= 90000 ? 8u : 4u; }
uint64_t DoorbellSliceSize(uint32_t gfx_version, uint32_t page_size);

// HSA_QUEUEID encoding (lib/core/slot_table.h's HandleFormat): tag (bits
// 48..63) | generation (20 bits, 28..47) | slot + 1 (bits 0..27). Never 0.
inline constexpr uint64_t kQueueIdTag = 0x4851ull;  // "HQ"
inline constexpr HandleFormat kQueueIdFormat{kQueueIdTag << 48, 0xFFFFull << 48, 28, 20, 1};
uint64_t EncodeQueueId(uint32_t slot, uint32_t generation);
// false for a value that is not of this form (the slot range is checked by
// the caller).
bool DecodeQueueId(uint64_t id, uint32_t* out_slot, uint32_t* out_generation);

// ---------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------

// Queue page layout (one page, host memory mapped to the queue's node).
inline constexpr uint32_t kWptrOffset = 8;   // upstream's queue struct places
inline constexpr uint32_t kRptrOffset = 16;  // its pointers here too
inline constexpr uint32_t kCuMaskOffset = 64;
inline constexpr uint32_t kCuMaskWords = 32;  // 1024 bits, the kernel's limit

// One queue; its table slot (lib/core/slot_table.h) holds whether it is
// in use and its generation.
struct QueueSlot {
  uint32_t epoch;           // open epoch the queue was created in
  uint32_t kfd_queue_id;
  uint32_t node;
  uint32_t gpu;             // topology GPU index (doorbell table)
  uint32_t gpu_id;
  uint32_t kfd_type;
  uint32_t gfx_version;
  uint64_t ring_va;
  uint64_t ring_size;
  uint64_t page_va;         // queue page (0: none)
  uint64_t eop_va;          // 0: none
  uint64_t cwsr_va;         // 0: none
  uint32_t ctl_stack_size;
  uint32_t per_xcc_size;
  uint32_t debug_size;
  uint32_t num_xcc;
  uint32_t cu_mask_bits;    // bits valid in the page's CU mask (0: unknown)
  uint64_t doorbell_va;
};

struct DoorbellMapping {
  uint64_t va = 0;     // 0: not mapped
  uint64_t size = 0;
  uint32_t users = 0;  // live queues on the node (the mapping outlives them)
  uint32_t epoch = 0;
  bool bo = false;     // a DOORBELL BO of the memory subsystem (else a plain mmap)
};

// Small members have initialisers (run by Context's constructor); the
// table's slots are left untouched until a slot is first taken. Never-used
// slots first, then the oldest freed; generations count modulo 2^32 (the
// id carries 20 bits).
inline constexpr SlotTable::Policy kQueueTablePolicy{SlotTable::Reuse::kFreshFirstFifo,
                                                     0xffffffffu, false};
struct QueuesState {
  uint32_t epoch = 0;       // open epoch the table belongs to (queues of an
                            // older one, e.g. a forked child's, are forgotten)
  FixedSlotTable<QueueSlot, config::kMaxQueues> slots{kQueueTablePolicy};
  DoorbellMapping doorbells[config::kMaxGpus];
};

// ---------------------------------------------------------------------------
// Operations (queues/queues.cc). Outputs are written only on success.
// ---------------------------------------------------------------------------

struct CreateArgs {
  uint32_t node;
  uint32_t hsa_type;       // HSA_QUEUE_TYPE
  bool ext;                // hsaKmtCreateQueueExt (SDMA_BY_ENG_ID allowed)
  uint32_t percentage;
  int64_t priority;        // HSA_QUEUE_PRIORITY
  uint32_t sdma_engine_id;  // SDMA_BY_ENG_ID only; ignored for other types
  uint64_t ring_va;
  uint64_t ring_size;
  const HsaEvent* event;   // optional: the queue error event
  uint64_t aql_read_ptr;   // AQL: the caller's pointers (QueueResource inputs)
  uint64_t aql_write_ptr;
  uint64_t error_reason;   // QueueResource->ErrorReason (0: none)
};

// *out: QueueId, doorbell, write and read pointers (ErrorReason untouched).
Status Create(Context& ctx, const CreateArgs& args, HsaQueueResource* out);
Status Update(Context& ctx, uint64_t queue_id, uint32_t percentage, int64_t priority,
              uint64_t ring_va, uint64_t ring_size);
Status Destroy(Context& ctx, uint64_t queue_id);
Status SetCuMask(Context& ctx, uint64_t queue_id, uint32_t num_bits, const uint32_t* mask);
Status GetInfo(Context& ctx, uint64_t queue_id, HsaQueueInfo* out);
Status AllocGws(Context& ctx, uint64_t queue_id, uint32_t num_gws, uint32_t* out_first);

// Introspection for tests and tools.
struct Stats : SlotStats {  // the queue table's counters
  uint32_t doorbell_mappings;
};
Status GetStats(Context& ctx, Stats* out);
// The kernel's queue id behind a handle (debugger and tests).
Status KernelQueueId(Context& ctx, uint64_t queue_id, uint32_t* out);

// Lifecycle ---------------------------------------------------------------

// Destroys every live queue (last close; before events and memory
// teardown). Queues the kernel refuses to destroy are forgotten with a
// diagnostics warning: their buffers are released by memory teardown.
void Teardown(Context& ctx);
// Forgets every queue and doorbell mapping without I/O (forked child).
void Forget(Context& ctx);

}  // namespace hke::queues

#endif  // HKE_LIB_QUEUES_QUEUES_H_
