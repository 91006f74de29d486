// Performance counters and traces (hsaKmtPmc*): no KFD ioctl is involved.
//
// Counter properties: a node's blob is built from its family's table
// (tables.h) plus, when the host has one, the privileged IOMMU block (the
// AMD IOMMU perf PMU: /sys/bus/event_source/devices/amd_iommu_0/{type,
// events/*} and the KFD's nodes/0/perf/iommu/max_concurrent, as upstream
// read them before it dropped the block). The blob lives in the context
// (config::kMaxPmcBlobs of them, built on first use, shared by the GPUs of
// one table) and stays valid until the last close; the caller must not
// free it. Layout, as upstream: HsaCounterProperties {NumBlocks,
// NumConcurrent}, then per block an HsaCounterBlockProperties {BlockId,
// NumCounters, NumConcurrent} immediately followed by its NumCounters
// HsaCounter records (the next block starts after the last counter).
//
// Traces: RegisterTrace checks every counter against the node's tables and
// hands out a context-owned id (tag 'PMC' in bits 63..32, then
// profile::EncodeTraceId(slot, generation)); stale, forged and other-node
// ids are INVALID_HANDLE before anything else. Only privileged (IOMMU)
// counters can be read by the host: AcquireTraceAccess opens one perf_event
// descriptor per such counter through the platform, Start/Stop enable and
// disable them, QueryTrace reads them into the caller's buffer (one u64 per
// privileged counter, in registration order). The GPU blocks' counters are
// programmed and read with PM4/AQL packets on a queue (rocprofiler's job);
// for them Start/Query/Stop only move the trace's state, as upstream does
// in effect.
//
// Threading: any thread; the state is under pmc_lock() (a leaf lock never
// held across a platform call). The traces are a FixedSlotTable
// (lib/core/slot_table.h); a call pins its trace through profile::PinSlot
// (an exclusive SlotCopyPin that stores the call's copy back and unpins
// when the call returns); a concurrent call on the same trace is
// UNAVAILABLE.
#ifndef HKE_LIB_PMC_PMC_H_
#define HKE_LIB_PMC_PMC_H_

#include <cstdint>

#include "hsakmt/hsakmttypes.h"
#include "lib/core/config.h"
#include "lib/core/slot_table.h"
#include "lib/core/status.h"
#include "lib/pmc/tables.h"
#include "lib/profile/profile.h"

namespace hke {
class Context;
}

namespace hke::pmc {

// IOMMU counter ids are 8-bit counter sources.
inline constexpr uint32_t kMaxIommuCounters = 256;
// IOMMU counters are 48 bits wide.
inline constexpr uint32_t kIommuCounterBits = 48;
// Upstream's bound on the counters of one RegisterTrace.
inline constexpr uint32_t kMaxRegisterCounters = 512;
// Bytes of the largest blob: header, every block record, every counter.
inline constexpr uint32_t kBlobBytes =
    8 + 24 * (kMaxTableBlocks + 1) + 32 * (kMaxTableCounters + kMaxIommuCounters);
// Trace ids: the context's trace tag (Context::trace_tag()) in bits
// 63..56, 'PMC' in bits 55..32, the slot id (profile::EncodeTraceId) below.
// hsaKmtPmcStartTrace/QueryTrace/StopTrace take no context: the tag is how
// they find the trace's (lib/api/pmc.cc).
inline constexpr uint64_t kTraceIdTag = 0x504D43ull;
inline uint32_t TraceIdContextTag(uint64_t id) { return static_cast<uint32_t>(id >> 56); }

struct Blob {
  uint32_t epoch = 0;
  uint32_t table = 0;
  bool built = false;
  // Not initialised: touched only when built.
  alignas(8) unsigned char bytes[kBlobBytes];
};

// The IOMMU PMU as read for one open.
struct IommuInfo {
  uint32_t epoch = 0;
  bool read = false;
  bool present = false;
  uint32_t perf_type = 0;
  uint32_t slots = 0;  // clamped to kMaxPmcTraceCounters
  uint32_t count = 0;
  uint8_t ids[kMaxIommuCounters] = {};  // ascending
};

// One trace; its table slot (lib/core/slot_table.h) holds whether it is
// live, its generation and its pin.
struct Trace {
  uint32_t epoch = 0;
  uint32_t node = 0;
  uint32_t privileged = 0;  // IOMMU counters, config[] and fd[] entries
  uint32_t perf_type = 0;
  bool access = false;   // fd[] are open
  bool started = false;
  uint64_t buffer = 0;   // StartTrace's buffer
  uint64_t buffer_size = 0;
  uint64_t config[config::kMaxPmcTraceCounters] = {};
  int fd[config::kMaxPmcTraceCounters] = {};
};

static_assert(config::kMaxPmcTraces <= 256, "the slot is 8 bits of the id");
using TraceTable = FixedSlotTable<Trace, config::kMaxPmcTraces>;

struct PmcState {
  IommuInfo iommu;
  TraceTable traces{profile::kTraceTablePolicy};
  Blob blobs[config::kMaxPmcBlobs];
};

// The form of `ctx`'s trace ids (see kTraceIdTag).
HandleFormat IdFormat(const Context& ctx);
// The public id of a slot of `ctx` at a generation.
uint64_t EncodeId(const Context& ctx, uint32_t slot, uint32_t generation);

// *out the node's blob (valid until the last close). INVALID_NODE for a
// node outside the topology; INVALID_ARGUMENT (with a diagnostic) for a node
// without a table (CPU, gfx11+, Tonga); RESOURCE_EXHAUSTED when every blob
// holds another table.
Status GetCounterProperties(Context& ctx, uint32_t node, HsaCounterProperties** out);

// Validates `counters` for `node` and registers them; *out_root is written
// only on success. INVALID_ARGUMENT: a NULL array, zero or more than 512
// counters, an unknown block, type or counter id, a privileged type on a
// GPU block or the reverse, more counters of a block than it has slots;
// RESOURCE_EXHAUSTED when every trace slot is in use.
Status RegisterTrace(Context& ctx, uint32_t node, uint32_t count, const HsaCounter* counters,
                     HsaPmcTraceRoot* out_root);
// Stops a started trace, releases its access and frees the slot.
Status UnregisterTrace(Context& ctx, uint32_t node, uint64_t id);
// Opens the perf_event descriptors of the privileged counters (UNSUPPORTED
// without the platform's perf operations; the platform's errno otherwise,
// with every descriptor opened so far closed again). A second call is a
// no-op.
Status AcquireTraceAccess(Context& ctx, uint32_t node, uint64_t id);
// Closes them (stopping the trace first if it runs).
Status ReleaseTraceAccess(Context& ctx, uint32_t node, uint64_t id);
// `buffer` must be non-NULL, `size` non-zero and at least 8 bytes per
// privileged counter (INVALID_ARGUMENT); a trace with privileged counters
// needs access first (UNAVAILABLE). Enables every descriptor; a failure
// disables the ones enabled and leaves the trace stopped.
Status StartTrace(Context& ctx, uint64_t id, uint64_t buffer, uint64_t size);
// Reads every privileged counter, then writes them to the buffer.
// UNAVAILABLE when the trace is not started.
Status QueryTrace(Context& ctx, uint64_t id);
Status StopTrace(Context& ctx, uint64_t id);

// The last close and context teardown: closes every perf descriptor and
// forgets every trace and blob.
void Teardown(Context& ctx);

}  // namespace hke::pmc

#endif  // HKE_LIB_PMC_PMC_H_
