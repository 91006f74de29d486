// Hardware profiling through the DKMS-only KFD ioctls: streaming
// performance monitoring (RLC_SPM, 0x84) and PC sampling (PC_SAMPLE, 0x85).
// Upstream kernels do not have them and answer ENOTTY.
//
// SPM: ACQUIRE takes a GPU's SPM for this process (the kernel refuses a
// second ACQUIRE with EINVAL), SET_DEST_BUF hands the kernel the next
// destination buffer (or none, which stops streaming) and reports what
// was copied into the previous one, RELEASE gives it back. The context
// remembers the size of the buffer the kernel holds per node, so a reply
// claiming more bytes than that buffer has room for is PROTOCOL.
//
// PC sampling: a session the kernel creates is named by a trace id that is
// a small integer per GPU. The caller never sees it: hsaKmtPcSamplingCreate
// hands out a context-owned HsaPcSamplingTraceId (tag, slot, generation,
// see EncodeTraceId) and every later call checks it against the slot's
// generation, node and open epoch before the kernel's id is used, so stale,
// forged or foreign ids are INVALID_HANDLE and never reach the kernel.
//
// Status rules: the kernel's errno is kept (the API layer maps it as
// upstream does); library refusals come with a diagnostic. Outputs are
// written only on success, except the two answers upstream defines as
// carrying data: QUERY_CAPABILITIES with too small a buffer reports the
// count needed (BUFFER_TOO_SMALL), and CREATE refused with EEXIST returns
// the configuration of the session already running into the caller's info.
//
// Threading: any thread. The trace table and the per-node SPM bookkeeping
// are under profile_lock() (a leaf lock), never held across an ioctl. The
// sessions are a FixedSlotTable (lib/core/slot_table.h). A trace slot (an
// exclusive SlotCopyPin, released when the call returns) or a node's SPM is
// pinned for the duration of one call; a concurrent call on the same trace
// or node is UNAVAILABLE.
#ifndef HKE_LIB_PROFILE_PROFILE_H_
#define HKE_LIB_PROFILE_PROFILE_H_

#include <cstdint>

#include "lib/core/config.h"
#include "lib/core/slot_table.h"
#include "lib/core/status.h"
#include "lib/kfd/abi.h"

namespace hke {
class Context;
}

namespace hke::profile {

// One PC-sampling session of the context; its table slot (lib/core/
// slot_table.h) holds whether it is live, its generation and its pin.
struct TraceSlot {
  uint32_t epoch = 0;       // Context::open_epoch() the session belongs to
  uint32_t node = 0;        // user node the session was created on
  uint32_t gpu_id = 0;
  uint32_t kernel_id = 0;   // the kernel's trace id, in [1, 0x7FFFFFFF]
  bool started = false;     // START succeeded and no STOP since
};

// Per-node SPM bookkeeping, valid for the epoch it was written in.
struct SpmNode {
  uint32_t epoch = 0;
  uint32_t buf_size = 0;  // the destination buffer the kernel holds, 0 = none
  bool busy = false;
};

// The public id of slot `slot` at `generation`: bit 31 set (so never 0,
// upstream's invalid id), generation in bits 30..8, slot in bits 7..0.
constexpr uint32_t kTraceIdTag = 0x80000000u;
constexpr uint32_t kTraceGenerationMask = 0x7FFFFFu;
inline constexpr HandleFormat kTraceIdFormat{kTraceIdTag, ~uint64_t{0} << 31, 8, 23, 0};
constexpr uint32_t EncodeTraceId(uint32_t slot, uint32_t generation) {
  return static_cast<uint32_t>(EncodeHandle(kTraceIdFormat, slot, generation));
}

// Trace tables (PC-sampling sessions here, PMC traces in lib/pmc): the
// lowest free slot is taken, generations count 1..kTraceGenerationMask.
inline constexpr SlotTable::Policy kTraceTablePolicy{SlotTable::Reuse::kLowestIndex,
                                                     kTraceGenerationMask, true};
static_assert(config::kMaxPcSamplingTraces <= 256, "the slot is 8 bits of the id");
using TraceTable = FixedSlotTable<TraceSlot, config::kMaxPcSamplingTraces>;

// Per-context profiling state (small: kMaxPcSamplingTraces slots and one
// SpmNode per node).
struct ProfileState {
  TraceTable traces{kTraceTablePolicy};
  SpmNode spm[config::kMaxNodes];
};

// The pin protocol of a table of trace slots, shared by the PC-sampling
// sessions and the PMC traces: under the table's lock (the caller's) a call
// finds the live slot its public id names (`format`: tag and generation),
// checks the open epoch and the node, and pins it exclusively with a copy
// to work on outside the lock (`pin` stores the copy back and unpins when
// it goes out of scope); a second call on the same id meanwhile finds it
// busy. `Slot` has epoch and node; `node` is the node the call names
// (nullptr for the calls that name none: the PMC's Start/Query/StopTrace;
// every node value, ~0u included, is checked). *out_owner (the slot's
// node) is written whenever the id named a live slot (kPinned, kOtherNode,
// kBusy).
enum class PinResult : uint8_t { kPinned, kUnknown, kOtherNode, kBusy };

template <typename Slot, uint32_t N, typename Lock>
PinResult PinSlot(FixedSlotTable<Slot, N>& table, Lock& lock, const HandleFormat& format,
                  uint64_t id, uint32_t epoch, const uint32_t* node,
                  SlotCopyPin<Slot, N, Lock>* pin, uint32_t* out_owner) {
  uint32_t slot = 0;
  if (!table.Find(format, id, &slot) || table[slot].epoch != epoch) return PinResult::kUnknown;
  *out_owner = table[slot].node;
  if (node != nullptr && table[slot].node != *node) return PinResult::kOtherNode;
  if (!pin->HoldExclusive(table, lock, slot)) return PinResult::kBusy;
  return PinResult::kPinned;
}

// --- SPM (RLC_SPM) ---
// A CPU node is INVALID_NODE (the kernel would answer EINVAL).
Status SpmAcquire(Context& ctx, uint32_t node);
Status SpmRelease(Context& ctx, uint32_t node);
// `dest` 0 stops streaming (the size is then not sent); otherwise `size`
// must be at least 32 bytes and a multiple of 32 (the SPM record size).
// `*timeout_ms` is the time to wait for the previous buffer to fill; on
// success it becomes the time left, *out_copied the bytes written into the
// previous buffer and *out_loss whether samples were lost.
Status SpmSetDestBuffer(Context& ctx, uint32_t node, uint32_t size, uint64_t dest,
                        uint32_t* timeout_ms, uint32_t* out_copied, bool* out_loss);

// --- PC sampling (PC_SAMPLE) ---
// SUCCESS when the device is open and the KFD is at least 1.16.
Status PcSamplingSupport(Context& ctx);
// QUERY_CAPABILITIES into `infos` (capacity entries; NULL or 0 asks for the
// count only). On success *out_count is the number of records written (or
// available, for a count query); with too small a buffer the status is
// BUFFER_TOO_SMALL and *out_count the number needed. The records are read
// into the stack, checked (method, type, interval range) and only then
// copied out. Capacities above kfd::kMaxPcSampleInfos are clamped.
Status PcSamplingQuery(Context& ctx, uint32_t node, kfd::PcSampleInfo* infos, uint32_t capacity,
                       uint32_t* out_count);
// CREATE with one record; *out_id is the public trace id. RESOURCE_EXHAUSTED
// when the context's kMaxPcSamplingTraces slots are in use (checked before
// the ioctl). A reply whose trace id is 0, above 0x7FFFFFFF or already live
// on that GPU is PROTOCOL (the kernel's session cannot be named safely and
// is left to the kernel's process teardown).
Status PcSamplingCreate(Context& ctx, uint32_t node, kfd::PcSampleInfo* info, uint32_t* out_id);
// STOP (when started; EALREADY counts as stopped) then DESTROY; the slot is
// freed only when DESTROY succeeds.
Status PcSamplingDestroy(Context& ctx, uint32_t node, uint32_t id);
Status PcSamplingStart(Context& ctx, uint32_t node, uint32_t id);
Status PcSamplingStop(Context& ctx, uint32_t node, uint32_t id);

}  // namespace hke::profile

#endif  // HKE_LIB_PROFILE_PROFILE_H_
