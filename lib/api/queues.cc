// The queue entry points of hsakmt.h, on the default context, and their
// hsakmtctx.h twins (hsaKmt<Name>Ctx), on the given context: one body per
// call, taking the context (lib/queues/queues.h has the semantics).
//
// A Ctx call on a NULL or dead context is INVALID_PARAMETER before
// anything else; after that it checks what the plain call checks, in the
// same order.
//
// Status rules: a NULL QueueResource / QueueInfo / FirstGWS or QueueCUMask
// is INVALID_PARAMETER before anything else; then the open device
// (KERNEL_IO_CHANNEL_NOT_OPENED), then the arguments (ring, type, priority,
// percentage, the engine id of an SDMA_BY_ENG_ID queue: INVALID_PARAMETER;
// other types pass the engine id on, unchecked; a node that is not a GPU:
// INVALID_NODE_UNIT), then the handle (INVALID_HANDLE for a stale or forged
// HSA_QUEUEID; upstream dereferences it). hsaKmtCreateQueue with
// SDMA_BY_ENG_ID is ERROR, as upstream. A kernel refusal of CREATE, UPDATE,
// DESTROY_QUEUE or SET_CU_MASK is ERROR (upstream's answer; the errno is in
// the diagnostics report); ALLOC_QUEUE_GWS maps EINVAL to
// INVALID_PARAMETER, EBUSY to OUT_OF_RESOURCES and ENODEV to NOT_SUPPORTED.
// A queue without a context save area has no GetQueueInfo: NOT_SUPPORTED.
#include "lib/queues/queues.h"

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"

namespace hke::api {
namespace {

// The bodies: `ctx` is the context the call runs on; the checks before
// the device (the list's last column) are made.

HSAKMT_STATUS Create(Context& ctx, HSAuint32 node, HSA_QUEUE_TYPE type, HSAuint32 percentage,
                     HSA_QUEUE_PRIORITY priority, HSAuint32 engine, bool ext, void* ring,
                     HSAuint64 ring_size, HsaEvent* event, HsaQueueResource* res) {
  queues::CreateArgs a{};
  a.node = node;
  a.hsa_type = static_cast<uint32_t>(type);
  a.ext = ext;
  a.percentage = percentage;
  a.priority = static_cast<int64_t>(priority);
  a.sdma_engine_id = engine;
  a.ring_va = Addr(ring);
  a.ring_size = ring_size;
  a.event = event;
  a.aql_read_ptr = res->QueueRptrValue;
  a.aql_write_ptr = res->QueueWptrValue;
  a.error_reason = Addr(const_cast<HSAint64*>(res->ErrorReason));
  return KernelCallStatus(queues::Create(ctx, a, res));
}

// CreateQueue's checks before the device (upstream's order): an
// SDMA_BY_ENG_ID type is ERROR (only the Ext call takes an engine), then a
// NULL QueueResource INVALID_PARAMETER.
HSAKMT_STATUS CreateQueueFirst(HSA_QUEUE_TYPE Type, const HsaQueueResource* QueueResource) {
  if (Type == HSA_QUEUE_SDMA_BY_ENG_ID) return HSAKMT_STATUS_ERROR;
  return Required(QueueResource);
}

HSAKMT_STATUS CreateQueue(Context& ctx, HSAuint32 NodeId, HSA_QUEUE_TYPE Type,
                          HSAuint32 QueuePercentage, HSA_QUEUE_PRIORITY Priority,
                          void* QueueAddress, HSAuint64 QueueSizeInBytes, HsaEvent* Event,
                          HsaQueueResource* QueueResource) {
  return Create(ctx, NodeId, Type, QueuePercentage, Priority, 0, false, QueueAddress,
                QueueSizeInBytes, Event, QueueResource);
}

HSAKMT_STATUS CreateQueueExt(Context& ctx, HSAuint32 NodeId, HSA_QUEUE_TYPE Type,
                             HSAuint32 QueuePercentage, HSA_QUEUE_PRIORITY Priority,
                             HSAuint32 SdmaEngineId, void* QueueAddress, HSAuint64 QueueSizeInBytes,
                             HsaEvent* Event, HsaQueueResource* QueueResource) {
  return Create(ctx, NodeId, Type, QueuePercentage, Priority, SdmaEngineId, true, QueueAddress,
                QueueSizeInBytes, Event, QueueResource);
}

HSAKMT_STATUS UpdateQueue(Context& ctx, HSA_QUEUEID QueueId, HSAuint32 QueuePercentage,
                          HSA_QUEUE_PRIORITY Priority, void* QueueAddress, HSAuint64 QueueSize,
                          HsaEvent* /*Event*/) {
  return KernelCallStatus(queues::Update(ctx, QueueId, QueuePercentage,
                                         static_cast<int64_t>(Priority), Addr(QueueAddress),
                                         QueueSize));
}

HSAKMT_STATUS DestroyQueue(Context& ctx, HSA_QUEUEID QueueId) {
  return KernelCallStatus(queues::Destroy(ctx, QueueId));
}

HSAKMT_STATUS SetQueueCuMask(Context& ctx, HSA_QUEUEID QueueId, HSAuint32 CUMaskCount,
                             HSAuint32* QueueCUMask) {
  return KernelCallStatus(queues::SetCuMask(ctx, QueueId, CUMaskCount, QueueCUMask));
}

HSAKMT_STATUS GetQueueInfo(Context& ctx, HSA_QUEUEID QueueId, HsaQueueInfo* QueueInfo) {
  return KernelCallStatus(queues::GetInfo(ctx, QueueId, QueueInfo));
}

HSAKMT_STATUS AllocQueueGws(Context& ctx, HSA_QUEUEID QueueId, HSAuint32 nGWS,
                            HSAuint32* firstGWS) {
  uint32_t first = 0;
  const Status s = queues::AllocGws(ctx, QueueId, nGWS, &first);
  if (!s.ok()) {
    if (s.is_errno(err::kEINVAL)) return HSAKMT_STATUS_INVALID_PARAMETER;
    if (s.is_errno(err::kEBUSY)) return HSAKMT_STATUS_OUT_OF_RESOURCES;
    if (s.is_errno(err::kENODEV)) return HSAKMT_STATUS_NOT_SUPPORTED;
    return KernelCallStatus(s);
  }
  *firstGWS = first;
  return HSAKMT_STATUS_SUCCESS;
}

}  // namespace
}  // namespace hke::api

extern "C" {

// The entry points with a Ctx twin, one line each (lib/api/entry.h:
// HKE_API_TWINS).
#define HKE_QUEUES_API(X)                                                                          \
  X(CreateQueue, CreateQueue,                                                                      \
    (HSAuint32 NodeId, HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,                             \
     HSA_QUEUE_PRIORITY Priority, void* QueueAddress, HSAuint64 QueueSizeInBytes, HsaEvent* Event, \
     HsaQueueResource* QueueResource),                                                             \
    (NodeId, Type, QueuePercentage, Priority, QueueAddress, QueueSizeInBytes, Event,               \
     QueueResource),                                                                               \
    CreateQueueFirst(Type, QueueResource))                                                         \
  X(CreateQueueExt, CreateQueueExt,                                                                \
    (HSAuint32 NodeId, HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,                             \
     HSA_QUEUE_PRIORITY Priority, HSAuint32 SdmaEngineId, void* QueueAddress,                      \
     HSAuint64 QueueSizeInBytes, HsaEvent* Event, HsaQueueResource* QueueResource),                \
    (NodeId, Type, QueuePercentage, Priority, SdmaEngineId, QueueAddress, QueueSizeInBytes, Event, \
     QueueResource),                                                                               \
    Required(QueueResource))                                                                       \
  X(UpdateQueue, UpdateQueue,                                                                      \
    (HSA_QUEUEID QueueId, HSAuint32 QueuePercentage, HSA_QUEUE_PRIORITY Priority,                  \
     void* QueueAddress, HSAuint64 QueueSize, HsaEvent* Event),                                    \
    (QueueId, QueuePercentage, Priority, QueueAddress, QueueSize, Event), Required())              \
  X(DestroyQueue, DestroyQueue, (HSA_QUEUEID QueueId), (QueueId), Required())                      \
  X(SetQueueCUMask, SetQueueCuMask,                                                                \
    (HSA_QUEUEID QueueId, HSAuint32 CUMaskCount, HSAuint32 * QueueCUMask),                         \
    (QueueId, CUMaskCount, QueueCUMask), Required(QueueCUMask))                                    \
  X(GetQueueInfo, GetQueueInfo, (HSA_QUEUEID QueueId, HsaQueueInfo * QueueInfo),                   \
    (QueueId, QueueInfo), Required(QueueInfo))                                                     \
  X(AllocQueueGWS, AllocQueueGws, (HSA_QUEUEID QueueId, HSAuint32 nGWS, HSAuint32 * firstGWS),     \
    (QueueId, nGWS, firstGWS), Required(firstGWS))

HKE_QUEUES_API(HKE_API_TWINS)

}  // extern "C"
