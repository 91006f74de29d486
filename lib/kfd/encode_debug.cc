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
// DBG_TRAP ENABLE / DISABLE / SUSPEND_QUEUES
// ---------------------------------------------------------------------------

// Largest RuntimeInfo capacity a caller may offer: room for the kernel's
// structure to grow, small enough to stay a sane stack or context buffer.
constexpr uint32_t kMaxRuntimeInfoBytes = static_cast<uint32_t>(sizeof(RuntimeInfo)) * 16u;

Status EncodeDbgTrapEnable(uint32_t pid, int32_t dbg_fd, uint64_t exception_mask,
                           uint64_t rinfo_ptr, uint32_t rinfo_size, DbgTrapArgs* out) {
  if (out == nullptr || pid == 0 || dbg_fd < 0 || rinfo_ptr == 0) return InvalidArgument();
  if (rinfo_size == 0 || rinfo_size > kMaxRuntimeInfoBytes) return InvalidArgument();
  if (!RangeFits(rinfo_ptr, rinfo_size)) return Overflow();
  DbgTrapArgs a{};
  a.pid = pid;
  a.op = kDbgTrapEnable;
  a.enable.exception_mask = exception_mask;
  a.enable.rinfo_ptr = rinfo_ptr;
  a.enable.rinfo_size = rinfo_size;
  a.enable.dbg_fd = static_cast<uint32_t>(dbg_fd);
  *out = a;
  return Status::Ok();
}

Status DecodeDbgTrapEnable(const DbgTrapArgs& sent, const DbgTrapArgs& reply,
                           uint32_t* out_bytes) {
  if (out_bytes == nullptr || sent.op != kDbgTrapEnable) return InvalidArgument();
  if (reply.op != sent.op || reply.pid != sent.pid ||
      reply.enable.rinfo_ptr != sent.enable.rinfo_ptr ||
      reply.enable.dbg_fd != sent.enable.dbg_fd || reply.enable.rinfo_size == 0) {
    return Protocol();
  }
  const uint32_t cap = sent.enable.rinfo_size;
  *out_bytes = reply.enable.rinfo_size < cap ? reply.enable.rinfo_size : cap;
  return Status::Ok();
}

Status EncodeDbgTrapDisable(uint32_t pid, int32_t dbg_fd, DbgTrapArgs* out) {
  if (out == nullptr || pid == 0 || dbg_fd < 0) return InvalidArgument();
  DbgTrapArgs a{};
  a.pid = pid;
  a.op = kDbgTrapDisable;
  a.enable.dbg_fd = static_cast<uint32_t>(dbg_fd);
  *out = a;
  return Status::Ok();
}

Status EncodeDbgSuspendQueues(uint32_t pid, uint64_t ids, uint32_t count, uint64_t clear_mask,
                              uint32_t grace_period, DbgTrapArgs* out) {
  if (out == nullptr || pid == 0 || ids == 0 || count == 0) return InvalidArgument();
  if (count > kMaxQueuesPerProcess) return OutOfRange();
  if (!internal::ArrayFits(ids, count, sizeof(uint32_t))) return Overflow();
  DbgTrapArgs a{};
  a.pid = pid;
  a.op = kDbgTrapSuspendQueues;
  a.suspend_queues.exception_mask = clear_mask;
  a.suspend_queues.queue_array_ptr = ids;
  a.suspend_queues.num_queues = count;
  a.suspend_queues.grace_period = grace_period;
  *out = a;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Deprecated DBG_WAVE_CONTROL / DBG_ADDRESS_WATCH buffers
// ---------------------------------------------------------------------------

namespace {

// Appends `n` bytes at `*pos` (the caller sized the buffer).
void Put(unsigned char* base, size_t* pos, const void* src, size_t n) {
  const auto* s = static_cast<const unsigned char*>(src);
  for (size_t i = 0; i < n; ++i) base[*pos + i] = s[i];
  *pos += n;
}

template <typename Header>
void PutHeader(unsigned char* base, uint32_t gpu_id, size_t bytes) {
  Header h{};
  h.content_ptr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base + sizeof(Header)));
  h.gpu_id = gpu_id;
  h.buf_size_in_bytes = static_cast<uint32_t>(bytes);
  size_t pos = 0;
  Put(base, &pos, &h, sizeof(h));
}

}  // namespace

Status BuildLegacyWaveControl(const LegacyWaveControl& req, void* buf, size_t capacity,
                              size_t* out_bytes) {
  if (buf == nullptr || out_bytes == nullptr) return InvalidArgument();
  if (req.operand < 1 || req.operand > 5) return InvalidArgument();
  if (req.mode != 0 && req.mode != 2 && req.mode != 3) return InvalidArgument();
  if (capacity < kLegacyWaveControlBytes) return BufferTooSmall();
  auto* b = static_cast<unsigned char*>(buf);
  size_t pos = sizeof(DbgWaveControlArgs);
  Put(b, &pos, &req.operand, 4);
  Put(b, &pos, &req.mode, 4);
  Put(b, &pos, &req.trap_id, 4);
  Put(b, &pos, &req.message, 8);
  Put(b, &pos, &req.memory_va, 8);
  PutHeader<DbgWaveControlArgs>(b, req.gpu_id, pos);
  *out_bytes = pos;
  return Status::Ok();
}

Status LegacyAddressWatchBytes(uint32_t count, uint32_t mask_items, uint32_t event_items,
                               size_t* out_bytes) {
  if (out_bytes == nullptr) return InvalidArgument();
  size_t per_point = 0;
  size_t masks = 0;
  size_t events = 0;
  size_t total = sizeof(DbgAddressWatchArgs) + 4;
  if (!CheckedMul(static_cast<size_t>(count), size_t{12}, &per_point) ||
      !CheckedMul(static_cast<size_t>(mask_items), size_t{8}, &masks) ||
      !CheckedMul(static_cast<size_t>(event_items), size_t{8}, &events) ||
      !CheckedAdd(total, per_point, &total) || !CheckedAdd(total, masks, &total) ||
      !CheckedAdd(total, events, &total)) {
    return Overflow();
  }
  *out_bytes = total;
  return Status::Ok();
}

Status BuildLegacyAddressWatch(const LegacyAddressWatch& req, void* buf, size_t capacity,
                               size_t* out_bytes) {
  if (buf == nullptr || out_bytes == nullptr || req.count == 0) return InvalidArgument();
  if (req.count > kLegacyMaxWatchPoints) return OutOfRange();
  if (req.modes == nullptr || req.addresses == nullptr || req.masks == nullptr) {
    return InvalidArgument();
  }
  if (req.mask_items != 1 && req.mask_items != req.count) return InvalidArgument();
  if (req.event_items != 0 && (req.event_items != req.count || req.events == nullptr)) {
    return InvalidArgument();
  }
  for (uint32_t i = 0; i < req.count; ++i) {
    if (req.modes[i] > 3) return InvalidArgument();
  }
  size_t bytes = 0;
  HKE_RETURN_IF_ERROR(LegacyAddressWatchBytes(req.count, req.mask_items, req.event_items, &bytes));
  if (capacity < bytes) return BufferTooSmall();
  auto* b = static_cast<unsigned char*>(buf);
  size_t pos = sizeof(DbgAddressWatchArgs);
  Put(b, &pos, &req.count, 4);
  for (uint32_t i = 0; i < req.count; ++i) Put(b, &pos, &req.modes[i], 4);
  for (uint32_t i = 0; i < req.count; ++i) Put(b, &pos, &req.addresses[i], 8);
  for (uint32_t i = 0; i < req.mask_items; ++i) Put(b, &pos, &req.masks[i], 8);
  for (uint32_t i = 0; i < req.event_items; ++i) Put(b, &pos, &req.events[i], 8);
  PutHeader<DbgAddressWatchArgs>(b, req.gpu_id, pos);
  *out_bytes = pos;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// PC_SAMPLE
// ---------------------------------------------------------------------------

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
  if (reply.op != sent.op || reply.gpu_id != sent.gpu_id) return Protocol();
  if (reply.sample_info_ptr != sent.sample_info_ptr) {
    // A QUERY while sessions run: the DKMS kernel steps the pointer past
    // the stochastic record it wrote (sent pointer + count fit, so no wrap).
    const bool stepped = sent.op == kPcsOpQueryCapabilities && sent.sample_info_ptr != 0 &&
                         reply.sample_info_ptr == sent.sample_info_ptr + sizeof(PcSampleInfo);
    if (!stepped) return Protocol();
  }
  uint32_t value = 0;
  if (sent.op == kPcsOpQueryCapabilities) {
    if (reply.num_sample_info > kMaxPcSampleInfos) return Protocol();
    value = reply.num_sample_info;
  } else if (sent.op == kPcsOpCreate) {
    if (reply.trace_id == 0 || reply.trace_id > kMaxPcSampleTraceId) return Protocol();
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
