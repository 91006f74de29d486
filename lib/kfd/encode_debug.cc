// Debugger (RUNTIME_ENABLE, DBG_TRAP snapshots) and profiling (PC_SAMPLE,
// RLC_SPM) codecs.
#include <type_traits>

#include "lib/core/checked.h"
#include "lib/kfd/encode.h"
#include "lib/kfd/encode_internal.h"

namespace hke::kfd {

using internal::RangeFits;

// ---------------------------------------------------------------------------
// RUNTIME_ENABLE
// ---------------------------------------------------------------------------

Status EncodeRuntimeEnable(uint64_t r_debug, uint32_t mode_mask, RuntimeEnableArgs* out) {
  if (out == nullptr) return InvalidArgument();
  if ((mode_mask & ~kRuntimeEnableModeKnownMask) != 0) return InvalidArgument();
  const bool enable = (mode_mask & kRuntimeEnableModeEnable) != 0;
  if (!enable && mode_mask != 0) return InvalidArgument();  // TTMP_SAVE needs ENABLE
  RuntimeEnableArgs a{};
  a.r_debug = r_debug;
  a.mode_mask = mode_mask;
  *out = a;
  return Status::Ok();
}

Status DecodeRuntimeEnable(const RuntimeEnableArgs& sent, const RuntimeEnableArgs& reply,
                           uint32_t* out_caps) {
  if (out_caps == nullptr) return InvalidArgument();
  if (reply.r_debug != sent.r_debug || reply.mode_mask != sent.mode_mask) return Protocol();
  *out_caps = reply.capabilities_mask;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// DBG_TRAP snapshots
// ---------------------------------------------------------------------------

Status SnapshotBufferBytes(uint32_t entry_size, uint32_t count, size_t* out_bytes) {
  if (out_bytes == nullptr) return InvalidArgument();
  size_t entry = 0;
  size_t n = 0;
  size_t bytes = 0;
  if (!CheckedCast(entry_size, &entry) || !CheckedCast(count, &n) ||
      !CheckedMul(entry, n, &bytes)) {
    return Overflow();
  }
  *out_bytes = bytes;
  return Status::Ok();
}

namespace {

// Shared body of the queue and device snapshot encoders: `member` selects
// the union member, `entry_size` is our record size.
template <typename Snap>
Status EncodeSnapshotCommon(uint32_t op, uint32_t pid, uint64_t clear_mask, uint64_t buffer,
                            size_t buffer_bytes, uint32_t count, uint32_t entry_size,
                            DbgTrapArgs* out, Snap DbgTrapArgs::*member) {
  if (out == nullptr || pid == 0) return InvalidArgument();
  if ((count == 0) != (buffer == 0)) return InvalidArgument();
  size_t needed = 0;
  HKE_RETURN_IF_ERROR(SnapshotBufferBytes(entry_size, count, &needed));
  if (buffer_bytes < needed) return BufferTooSmall();
  if (!RangeFits(buffer, needed)) return Overflow();
  DbgTrapArgs a{};
  a.pid = pid;
  a.op = op;
  Snap s{};
  s.exception_mask = clear_mask;
  s.snapshot_buf_ptr = buffer;
  s.entry_size = entry_size;
  if constexpr (std::is_same_v<Snap, DbgTrapQueueSnapshotArgs>) {
    s.num_queues = count;
  } else {
    s.num_devices = count;
  }
  a.*member = s;
  *out = a;
  return Status::Ok();
}

}  // namespace

Status EncodeQueueSnapshot(uint32_t pid, uint64_t clear_mask, uint64_t buffer,
                           size_t buffer_bytes, uint32_t count, DbgTrapArgs* out) {
  return EncodeSnapshotCommon(kDbgTrapGetQueueSnapshot, pid, clear_mask, buffer, buffer_bytes,
                              count, static_cast<uint32_t>(sizeof(QueueSnapshotEntry)), out,
                              &DbgTrapArgs::queue_snapshot);
}

Status EncodeDeviceSnapshot(uint32_t pid, uint64_t clear_mask, uint64_t buffer,
                            size_t buffer_bytes, uint32_t count, DbgTrapArgs* out) {
  return EncodeSnapshotCommon(kDbgTrapGetDeviceSnapshot, pid, clear_mask, buffer, buffer_bytes,
                              count, static_cast<uint32_t>(sizeof(DbgDeviceInfoEntry)), out,
                              &DbgTrapArgs::device_snapshot);
}

Status DecodeSnapshot(const DbgTrapArgs& sent, const DbgTrapArgs& reply, SnapshotResult* out) {
  if (out == nullptr) return InvalidArgument();
  uint32_t sent_count = 0;
  uint32_t sent_entry = 0;
  uint32_t reply_count = 0;
  uint32_t reply_entry = 0;
  if (sent.op == kDbgTrapGetQueueSnapshot) {
    sent_count = sent.queue_snapshot.num_queues;
    sent_entry = sent.queue_snapshot.entry_size;
    reply_count = reply.queue_snapshot.num_queues;
    reply_entry = reply.queue_snapshot.entry_size;
    if (reply.queue_snapshot.snapshot_buf_ptr != sent.queue_snapshot.snapshot_buf_ptr) {
      return Protocol();
    }
  } else if (sent.op == kDbgTrapGetDeviceSnapshot) {
    sent_count = sent.device_snapshot.num_devices;
    sent_entry = sent.device_snapshot.entry_size;
    reply_count = reply.device_snapshot.num_devices;
    reply_entry = reply.device_snapshot.entry_size;
    if (reply.device_snapshot.snapshot_buf_ptr != sent.device_snapshot.snapshot_buf_ptr) {
      return Protocol();
    }
  } else {
    return InvalidArgument();
  }
  if (reply.op != sent.op || reply.pid != sent.pid) return Protocol();
  if (reply_entry > sent_entry) return Protocol();
  if (sent_count > 0 && reply_count > 0 && reply_entry == 0) return Protocol();
  *out = SnapshotResult{reply_count, reply_count < sent_count ? reply_count : sent_count,
                        reply_entry};
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// PC_SAMPLE
// ---------------------------------------------------------------------------

// More capability records than any GPU reports.
constexpr uint32_t kMaxPcSampleInfos = 64;

Status EncodePcSample(const PcSampleRequest& req, PcSampleArgs* out) {
  if (out == nullptr || req.gpu_id == 0 || req.op > kPcsOpLast) return InvalidArgument();
  switch (req.op) {
    case kPcsOpQueryCapabilities:
      if ((req.info_count == 0) != (req.info == 0)) return InvalidArgument();
      if (req.info_count > kMaxPcSampleInfos) return OutOfRange();
      if ((req.flags & ~kPcsQueryTypeFull) != 0 || req.trace_id != 0) return InvalidArgument();
      break;
    case kPcsOpCreate:
      if (req.info == 0 || req.info_count != 1 || req.trace_id != 0 || req.flags != 0) {
        return InvalidArgument();
      }
      break;
    default:  // destroy, start, stop
      if (req.trace_id == 0 || req.info != 0 || req.info_count != 0 || req.flags != 0) {
        return InvalidArgument();
      }
      break;
  }
  if (!internal::ArrayFits(req.info, req.info_count, sizeof(PcSampleInfo))) return Overflow();
  PcSampleArgs a{};
  a.sample_info_ptr = req.info;
  a.num_sample_info = req.info_count;
  a.op = req.op;
  a.gpu_id = req.gpu_id;
  a.trace_id = req.trace_id;
  a.flags = req.flags;
  *out = a;
  return Status::Ok();
}

Status DecodePcSample(const PcSampleArgs& sent, const PcSampleArgs& reply, uint32_t* out_value) {
  if (out_value == nullptr || sent.op > kPcsOpLast) return InvalidArgument();
  if (reply.op != sent.op || reply.gpu_id != sent.gpu_id ||
      reply.sample_info_ptr != sent.sample_info_ptr) {
    return Protocol();
  }
  uint32_t value = 0;
  if (sent.op == kPcsOpQueryCapabilities) {
    if (reply.num_sample_info > kMaxPcSampleInfos) return Protocol();
    value = reply.num_sample_info;
  } else if (sent.op == kPcsOpCreate) {
    if (reply.trace_id == 0) return Protocol();
    value = reply.trace_id;
  } else if (reply.trace_id != sent.trace_id) {
    return Protocol();
  }
  *out_value = value;
  return Status::Ok();
}

Status DecodePcSampleInfo(const PcSampleInfo& info, PcSampleInfo* out) {
  if (out == nullptr) return InvalidArgument();
  if (info.method != kPcsMethodHostTrap && info.method != kPcsMethodStochastic) return Protocol();
  if (info.type > kPcsTypeInstructions) return Protocol();
  if (info.interval_min > info.interval_max) return Protocol();
  *out = info;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// RLC_SPM
// ---------------------------------------------------------------------------

Status EncodeRlcSpm(const SpmRequest& req, SpmArgs* out) {
  if (out == nullptr || req.gpu_id == 0 || req.op > kSpmOpSetDestBuf) return InvalidArgument();
  if (req.op == kSpmOpSetDestBuf) {
    if (req.dest_buf == 0) {
      if (req.buf_size != 0) return InvalidArgument();
    } else {
      if (req.buf_size < sizeof(SpmBufferHeader) || req.buf_size % 32 != 0) {
        return InvalidArgument();
      }
      if (!RangeFits(req.dest_buf, req.buf_size)) return Overflow();
    }
  } else if (req.dest_buf != 0 || req.buf_size != 0 || req.timeout_ms != 0) {
    return InvalidArgument();
  }
  SpmArgs a{};
  a.dest_buf = req.dest_buf;
  a.buf_size = req.buf_size;
  a.op = req.op;
  a.timeout = req.timeout_ms;
  a.gpu_id = req.gpu_id;
  *out = a;
  return Status::Ok();
}

Status DecodeRlcSpm(const SpmArgs& sent, const SpmArgs& reply, uint32_t previous_buf_size,
                    SpmResult* out) {
  if (out == nullptr) return InvalidArgument();
  if (reply.op != sent.op || reply.gpu_id != sent.gpu_id || reply.dest_buf != sent.dest_buf ||
      reply.buf_size != sent.buf_size) {
    return Protocol();
  }
  if (reply.bytes_copied > previous_buf_size) return Protocol();
  if (reply.timeout > sent.timeout) return Protocol();
  *out = SpmResult{reply.bytes_copied, reply.has_data_loss != 0, reply.timeout};
  return Status::Ok();
}

}  // namespace hke::kfd
