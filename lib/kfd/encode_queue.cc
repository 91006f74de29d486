// Queue codecs: CREATE_QUEUE, UPDATE_QUEUE, DESTROY_QUEUE, SET_CU_MASK.
#include "lib/core/checked.h"
#include "lib/kfd/encode.h"
#include "lib/kfd/encode_internal.h"

namespace hke::kfd {

using internal::IsAligned;
using internal::RangeFits;

namespace {

// Bits 0-7: percentage; bits 8-15: PM4 target XCC; the rest must be zero.
constexpr uint32_t kPercentageXccMask = 0xFF00u;

bool ValidPercentage(uint32_t p) {
  if ((p & ~(0xFFu | kPercentageXccMask)) != 0) return false;
  return (p & 0xFFu) <= kMaxQueuePercentage;
}

bool ValidRingSize(uint32_t size) { return IsPowerOfTwo(size) && size >= kMinQueueRingSize; }

}  // namespace

Status EncodeCreateQueue(const QueueRequest& req, CreateQueueArgs* out) {
  if (out == nullptr) return InvalidArgument();
  if (req.gpu_id == 0) return InvalidArgument();
  if (req.queue_type > kQueueTypeLast) return InvalidArgument();
  if (req.ring_base == 0 || !ValidRingSize(req.ring_size)) return InvalidArgument();
  if (!RangeFits(req.ring_base, req.ring_size)) return Overflow();
  if (!ValidPercentage(req.percentage) || req.priority > kMaxQueuePriority) {
    return InvalidArgument();
  }
  if (req.read_ptr == 0 || req.write_ptr == 0 || !IsAligned(req.read_ptr, 4) ||
      !IsAligned(req.write_ptr, 4)) {
    return InvalidArgument();
  }
  if ((req.eop_addr == 0) != (req.eop_size == 0)) return InvalidArgument();
  if (!RangeFits(req.eop_addr, req.eop_size)) return Overflow();
  if (req.ctx_save_addr == 0) {
    if (req.ctx_save_size != 0 || req.ctl_stack_size != 0) return InvalidArgument();
  } else {
    if (req.ctx_save_size == 0 || req.ctl_stack_size > req.ctx_save_size) {
      return InvalidArgument();
    }
    if (!RangeFits(req.ctx_save_addr, req.ctx_save_size)) return Overflow();
  }
  CreateQueueArgs a{};
  a.ring_base_address = req.ring_base;
  a.write_pointer_address = req.write_ptr;
  a.read_pointer_address = req.read_ptr;
  a.ring_size = req.ring_size;
  a.gpu_id = req.gpu_id;
  a.queue_type = req.queue_type;
  a.queue_percentage = req.percentage;
  a.queue_priority = req.priority;
  a.eop_buffer_address = req.eop_addr;
  a.eop_buffer_size = req.eop_size;
  a.ctx_save_restore_address = req.ctx_save_addr;
  a.ctx_save_restore_size = req.ctx_save_size;
  a.ctl_stack_size = req.ctl_stack_size;
  a.sdma_engine_id = req.sdma_engine_id;
  *out = a;
  return Status::Ok();
}

Status DecodeCreateQueue(const CreateQueueArgs& sent, const CreateQueueArgs& reply,
                         CreateQueueResult* out) {
  if (out == nullptr || sent.gpu_id == 0) return InvalidArgument();
  if (reply.gpu_id != sent.gpu_id || reply.queue_type != sent.queue_type) return Protocol();
  if (reply.queue_id >= kMaxQueuesPerProcess) return Protocol();
  MmapOffset m{};
  if (!DecodeMmapOffset(reply.doorbell_offset, &m).ok()) return Protocol();
  if (m.type != kMmapTypeDoorbell || m.gpu_id != (sent.gpu_id & 0xFFFFu)) return Protocol();
  if (m.value >= kMaxDoorbellFrameOffset) return Protocol();
  *out = CreateQueueResult{reply.queue_id, reply.doorbell_offset};
  return Status::Ok();
}

Status EncodeUpdateQueue(const QueueUpdate& req, UpdateQueueArgs* out) {
  if (out == nullptr) return InvalidArgument();
  if (req.queue_id >= kMaxQueuesPerProcess) return InvalidArgument();
  if (req.ring_base == 0) {
    // "Disable this queue" (the kernel's reading of a NULL ring, at any
    // percentage): no ring, so no size either.
    if (req.ring_size != 0) return InvalidArgument();
  } else {
    if (!ValidRingSize(req.ring_size)) return InvalidArgument();
    if (!RangeFits(req.ring_base, req.ring_size)) return Overflow();
  }
  if (!ValidPercentage(req.percentage) || req.priority > kMaxQueuePriority) {
    return InvalidArgument();
  }
  UpdateQueueArgs a{};
  a.ring_base_address = req.ring_base;
  a.queue_id = req.queue_id;
  a.ring_size = req.ring_size;
  a.queue_percentage = req.percentage;
  a.queue_priority = req.priority;
  *out = a;
  return Status::Ok();
}

Status EncodeDestroyQueue(uint32_t queue_id, DestroyQueueArgs* out) {
  if (out == nullptr || queue_id >= kMaxQueuesPerProcess) return InvalidArgument();
  DestroyQueueArgs a{};
  a.queue_id = queue_id;
  *out = a;
  return Status::Ok();
}

Status EncodeSetCuMask(uint32_t queue_id, uint64_t mask_addr, uint32_t num_bits,
                       SetCuMaskArgs* out) {
  if (out == nullptr || queue_id >= kMaxQueuesPerProcess || mask_addr == 0) {
    return InvalidArgument();
  }
  if (num_bits == 0 || num_bits % 32 != 0) return InvalidArgument();
  if (num_bits > kMaxCuMaskBits) return OutOfRange();
  if (!RangeFits(mask_addr, num_bits / 8)) return Overflow();
  SetCuMaskArgs a{};
  a.queue_id = queue_id;
  a.num_cu_mask = num_bits;
  a.cu_mask_ptr = mask_addr;
  *out = a;
  return Status::Ok();
}

}  // namespace hke::kfd
