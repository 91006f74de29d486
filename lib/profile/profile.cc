// SPM and PC sampling; see profile.h.
#include "lib/profile/profile.h"

#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/kfd/encode.h"
#include "lib/node/node.h"

namespace hke::profile {

namespace {

constexpr const char* kArea = "profile";

uint64_t Addr(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

Status KernelFailure(Context& ctx, const char* what, Status s) {
  return ctx.diag().Failed(s, kArea, what);
}

// Resolves a GPU node (a CPU node has no SPM and no sampler).
Status ResolveGpu(Context& ctx, uint32_t node, const char* call, node::NodeTarget* out) {
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(node::Resolve(ctx, node, &n));
  if (n.gpu_id == 0) {
    FixedText<128> t;
    t.Append(call).Append(": node ").AppendU64(node).Append(" is a CPU node");
    return ctx.diag().Error(InvalidNode(), kArea, t.c_str());
  }
  *out = n;
  return Status::Ok();
}

uint32_t OpenMinor(Context& ctx) { return device::KfdMinor(ctx); }

// Open and KFD >= 1.16 (UNSUPPORTED with a diagnostic otherwise).
Status CheckPcSamplingVersion(Context& ctx, const char* call) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  const uint32_t minor = OpenMinor(ctx);
  if (minor < kfd::kMinorPcSampling) {
    FixedText<128> t;
    t.Append(call).Append(" needs KFD 1.16 (the kernel reports 1.").AppendU64(minor).Append(")");
    return ctx.diag().Error(Unsupported(), kArea, t.c_str());
  }
  return Status::Ok();
}

// ---- SPM ----

// Pins node's SPM bookkeeping for one call and returns the buffer size the
// kernel holds (0 when none or when it was recorded in an earlier open).
Status PinSpm(Context& ctx, uint32_t node, uint32_t* out_buf_size) {
  LockGuard g(ctx.profile_lock());
  SpmNode& s = ctx.profile().spm[node];
  if (s.busy) {
    FixedText<96> t;
    t.Append("another SPM call on node ").AppendU64(node).Append(" is in progress");
    return ctx.diag().Error(Status::Api(HKE_STATUS_UNAVAILABLE), kArea, t.c_str());
  }
  s.busy = true;
  *out_buf_size = s.epoch == ctx.open_epoch() ? s.buf_size : 0;
  return Status::Ok();
}

// Unpins; with `set`, records `buf_size` for the current open.
void UnpinSpm(Context& ctx, uint32_t node, bool set, uint32_t buf_size) {
  LockGuard g(ctx.profile_lock());
  SpmNode& s = ctx.profile().spm[node];
  if (set) {
    s.epoch = ctx.open_epoch();
    s.buf_size = buf_size;
  }
  s.busy = false;
}

Status SpmSimple(Context& ctx, uint32_t node, uint32_t op, const char* call) {
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(ResolveGpu(ctx, node, call, &n));
  kfd::SpmRequest req{};
  req.op = op;
  req.gpu_id = n.gpu_id;
  kfd::SpmArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodeRlcSpm(req, &a));
  uint32_t held = 0;
  HKE_RETURN_IF_ERROR(PinSpm(ctx, node, &held));
  const Status s = device::Ioctl(ctx, &a);
  // ACQUIRE starts without a buffer; RELEASE drops the one the kernel held.
  UnpinSpm(ctx, node, s.ok(), 0);
  if (!s.ok()) {
    return KernelFailure(ctx, op == kfd::kSpmOpAcquire ? "RLC_SPM ACQUIRE" : "RLC_SPM RELEASE", s);
  }
  return Status::Ok();
}

// ---- PC sampling ----

using TracePin = SlotCopyPin<TraceSlot, config::kMaxPcSamplingTraces, Mutex>;

// Finds the slot of a public id and pins it into `pin` (which works on a
// copy and unpins when it goes out of scope). INVALID_HANDLE (with a
// diagnostic) for an id that is not a live session of this open on `node`;
// UNAVAILABLE while another call uses it.
Status PinTrace(Context& ctx, uint32_t node, uint32_t id, const char* call, TracePin* pin) {
  PinResult r = PinResult::kUnknown;
  uint32_t owner = 0;
  {
    LockGuard g(ctx.profile_lock());
    r = PinSlot(ctx.profile().traces, ctx.profile_lock(), kTraceIdFormat, id, ctx.open_epoch(),
                &node, pin, &owner);
  }
  if (r == PinResult::kPinned) return Status::Ok();
  FixedText<128> m;
  m.Append(call).Append(": ");
  if (r == PinResult::kBusy) {
    m.Append("another call on trace id ").AppendHex(id).Append(" is in progress");
    return ctx.diag().Error(Status::Api(HKE_STATUS_UNAVAILABLE), kArea, m.c_str());
  }
  m.Append("trace id ").AppendHex(id);
  if (r == PinResult::kOtherNode) {
    m.Append(" belongs to node ").AppendU64(owner);
  } else {
    m.Append(" is not a live PC-sampling session");
  }
  return ctx.diag().Error(InvalidHandle(), kArea, m.c_str());
}

// One DESTROY/START/STOP for a pinned slot.
Status TraceOp(Context& ctx, const TraceSlot& t, uint32_t op, const char* what) {
  kfd::PcSampleRequest req{};
  req.op = op;
  req.gpu_id = t.gpu_id;
  req.trace_id = t.kernel_id;
  kfd::PcSampleArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodePcSample(req, &a));
  const kfd::PcSampleArgs sent = a;
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return KernelFailure(ctx, what, s);
  uint32_t ignored = 0;
  const Status dec = kfd::DecodePcSample(sent, a, &ignored);
  if (!dec.ok()) {
    return ctx.diag().Error(dec, kArea, "PC_SAMPLE reply changed its op, gpu_id or trace id");
  }
  return Status::Ok();
}

}  // namespace

// ---------------------------------------------------------------------------
// SPM
// ---------------------------------------------------------------------------

Status SpmAcquire(Context& ctx, uint32_t node) {
  return SpmSimple(ctx, node, kfd::kSpmOpAcquire, "hsaKmtSPMAcquire");
}

Status SpmRelease(Context& ctx, uint32_t node) {
  return SpmSimple(ctx, node, kfd::kSpmOpRelease, "hsaKmtSPMRelease");
}

Status SpmSetDestBuffer(Context& ctx, uint32_t node, uint32_t size, uint64_t dest,
                        uint32_t* timeout_ms, uint32_t* out_copied, bool* out_loss) {
  if (timeout_ms == nullptr || out_copied == nullptr || out_loss == nullptr) {
    return InvalidArgument();
  }
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(ResolveGpu(ctx, node, "hsaKmtSPMSetDestBuffer", &n));
  kfd::SpmRequest req{};
  req.op = kfd::kSpmOpSetDestBuf;
  req.gpu_id = n.gpu_id;
  req.dest_buf = dest;
  req.buf_size = dest != 0 ? size : 0;  // without a buffer the kernel ignores the size
  req.timeout_ms = *timeout_ms;
  kfd::SpmArgs a{};
  const Status enc = kfd::EncodeRlcSpm(req, &a);
  if (!enc.ok()) {
    FixedText<128> t;
    t.Append("SPM destination buffer of ").AppendU64(size).Append(
        " bytes: at least 32 and a multiple of 32 are needed, within the address space");
    return ctx.diag().Error(enc, kArea, t.c_str());
  }
  uint32_t held = 0;
  HKE_RETURN_IF_ERROR(PinSpm(ctx, node, &held));
  const kfd::SpmArgs sent = a;
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) {
    UnpinSpm(ctx, node, false, 0);
    return KernelFailure(ctx, "RLC_SPM SET_DEST_BUF", s);
  }
  kfd::SpmResult r{};
  const Status dec = kfd::DecodeRlcSpm(sent, a, held, &r);
  // The kernel holds the new buffer whatever its reply says.
  UnpinSpm(ctx, node, true, req.buf_size);
  if (!dec.ok()) {
    FixedText<160> t;
    t.Append("RLC_SPM SET_DEST_BUF reply: ").AppendU64(a.bytes_copied).Append(
        " bytes copied into a buffer of ").AppendU64(held).Append(", timeout ").AppendU64(
        a.timeout).Append(" ms left of ").AppendU64(sent.timeout);
    return ctx.diag().Error(dec, kArea, t.c_str());
  }
  *timeout_ms = r.remaining_ms;
  *out_copied = r.bytes_copied;
  *out_loss = r.data_lost;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// PC sampling
// ---------------------------------------------------------------------------

Status PcSamplingSupport(Context& ctx) {
  return CheckPcSamplingVersion(ctx, "PC sampling");
}

Status PcSamplingQuery(Context& ctx, uint32_t node, kfd::PcSampleInfo* infos, uint32_t capacity,
                       uint32_t* out_count) {
  if (out_count == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(CheckPcSamplingVersion(ctx, "hsaKmtPcSamplingQueryCapabilities"));
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(ResolveGpu(ctx, node, "hsaKmtPcSamplingQueryCapabilities", &n));
  // The kernel writes into this stack copy; the caller's array is written
  // only once every record has been checked. Zeroed, so a reply counting
  // records it did not write fails the check (method 0) instead of
  // publishing stack contents.
  kfd::PcSampleInfo local[kfd::kMaxPcSampleInfos] = {};
  uint32_t room = infos != nullptr ? capacity : 0;
  if (room > kfd::kMaxPcSampleInfos) room = kfd::kMaxPcSampleInfos;
  kfd::PcSampleRequest req{};
  req.op = kfd::kPcsOpQueryCapabilities;
  req.gpu_id = n.gpu_id;
  req.info = room != 0 ? Addr(local) : 0;
  req.info_count = room;
  kfd::PcSampleArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodePcSample(req, &a));
  const kfd::PcSampleArgs sent = a;
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok() && !s.is_errno(err::kENOSPC)) {
    return KernelFailure(ctx, "PC_SAMPLE QUERY_CAPABILITIES", s);
  }
  uint32_t count = 0;
  const Status dec = kfd::DecodePcSample(sent, a, &count);
  if (!dec.ok()) {
    FixedText<128> t;
    t.Append("PC_SAMPLE QUERY_CAPABILITIES reply: ").AppendU64(a.num_sample_info).Append(
        " records (at most 64) or a changed request");
    return ctx.diag().Error(dec, kArea, t.c_str());
  }
  if (!s.ok()) {  // ENOSPC: the count needed must exceed what was offered
    if (count <= room) {
      FixedText<128> t;
      t.Append("PC_SAMPLE QUERY_CAPABILITIES answered ENOSPC for ").AppendU64(count).Append(
          " records with room for ").AppendU64(room);
      return ctx.diag().Error(Protocol(), kArea, t.c_str());
    }
    *out_count = count;
    FixedText<128> t;
    t.Append("PC sampling capabilities need ").AppendU64(count).Append(" records, the buffer holds ")
        .AppendU64(room);
    return ctx.diag().Error(BufferTooSmall(), kArea, t.c_str());
  }
  if (room == 0) {
    *out_count = count;
    return Status::Ok();
  }
  if (count > room) {
    // The running-session answer writes what fits and succeeds.
    *out_count = count;
    FixedText<128> t;
    t.Append("PC sampling sessions in use need ").AppendU64(count).Append(
        " records, the buffer holds ").AppendU64(room);
    return ctx.diag().Error(BufferTooSmall(), kArea, t.c_str());
  }
  for (uint32_t i = 0; i < count; ++i) {
    kfd::PcSampleInfo checked{};
    const Status ci = kfd::DecodePcSampleInfo(local[i], &checked);
    if (!ci.ok()) {
      FixedText<128> t;
      t.Append("PC sampling capability record ").AppendU64(i).Append(
          ": unknown method or type, or interval_min above interval_max");
      return ctx.diag().Error(ci, kArea, t.c_str());
    }
  }
  for (uint32_t i = 0; i < count; ++i) infos[i] = local[i];
  *out_count = count;
  return Status::Ok();
}

Status PcSamplingCreate(Context& ctx, uint32_t node, kfd::PcSampleInfo* info, uint32_t* out_id) {
  if (info == nullptr || out_id == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(CheckPcSamplingVersion(ctx, "hsaKmtPcSamplingCreate"));
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(ResolveGpu(ctx, node, "hsaKmtPcSamplingCreate", &n));
  // Reserve a slot first: a session the kernel creates always has a name.
  // A session of an earlier open (the kernel dropped it at the close) is
  // reclaimed.
  uint32_t slot = 0;
  bool reserved = false;
  {
    LockGuard g(ctx.profile_lock());
    TraceTable& traces = ctx.profile().traces;
    const uint32_t epoch = ctx.open_epoch();
    reserved = traces.Allocate(&slot, [&](uint32_t i) { return traces[i].epoch != epoch; });
  }
  if (!reserved) {
    FixedText<96> t;
    t.Append("all ").AppendU64(config::kMaxPcSamplingTraces).Append(
        " PC-sampling sessions of the context are in use");
    return ctx.diag().Error(Exhausted(), kArea, t.c_str());
  }
  kfd::PcSampleInfo local = *info;
  kfd::PcSampleRequest req{};
  req.op = kfd::kPcsOpCreate;
  req.gpu_id = n.gpu_id;
  req.info = Addr(&local);
  req.info_count = 1;
  kfd::PcSampleArgs a{};
  Status s = kfd::EncodePcSample(req, &a);
  const kfd::PcSampleArgs sent = a;
  if (s.ok()) s = device::Ioctl(ctx, &a);
  uint32_t kernel_id = 0;
  Status bad;
  if (s.ok()) {
    bad = kfd::DecodePcSample(sent, a, &kernel_id);
    if (bad.ok()) {
      LockGuard g(ctx.profile_lock());
      TraceTable& traces = ctx.profile().traces;
      for (uint32_t i = 0; i < traces.high_water(); ++i) {
        const TraceSlot& t = traces[i];
        if (i != slot && traces.IsLive(i) && t.epoch == ctx.open_epoch() && t.gpu_id == n.gpu_id &&
            t.kernel_id == kernel_id) {
          bad = Protocol();
        }
      }
      if (bad.ok()) {
        TraceSlot& t = traces[slot];
        t.epoch = ctx.open_epoch();
        t.node = node;
        t.gpu_id = n.gpu_id;
        t.kernel_id = kernel_id;
        t.started = false;
        traces.Publish(slot);
        *out_id = static_cast<uint32_t>(traces.Encode(kTraceIdFormat, slot));
        return Status::Ok();
      }
    }
  }
  {
    LockGuard g(ctx.profile_lock());
    ctx.profile().traces.Abandon(slot);
  }
  if (!s.ok()) {
    if (s.is_errno(err::kEEXIST)) {
      // Another session runs with a different configuration; the kernel
      // wrote that configuration back, and upstream callers read it.
      kfd::PcSampleInfo current{};
      if (kfd::DecodePcSampleInfo(local, &current).ok()) *info = current;
    }
    return KernelFailure(ctx, "PC_SAMPLE CREATE", s);
  }
  FixedText<128> t;
  t.Append("PC_SAMPLE CREATE reply: trace id ").AppendU64(a.trace_id).Append(
      " is 0, above 0x7FFFFFFF, live already on this GPU, or the request changed");
  return ctx.diag().Error(bad, kArea, t.c_str());
}

Status PcSamplingDestroy(Context& ctx, uint32_t node, uint32_t id) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  TracePin pin;
  HKE_RETURN_IF_ERROR(PinTrace(ctx, node, id, "hsaKmtPcSamplingDestroy", &pin));
  TraceSlot& t = pin.item();
  if (t.started) {
    const Status s = TraceOp(ctx, t, kfd::kPcsOpStop, "PC_SAMPLE STOP (before DESTROY)");
    if (!s.ok() && !s.is_errno(err::kEALREADY)) return s;
    t.started = false;
  }
  const Status s = TraceOp(ctx, t, kfd::kPcsOpDestroy, "PC_SAMPLE DESTROY");
  if (s.ok()) {
    LockGuard g(ctx.profile_lock());
    ctx.profile().traces.Free(pin.slot());
  }
  return s;
}

namespace {

// START or STOP of a pinned session; EALREADY means the session already is
// in the wanted state, which the slot then records.
Status StartOrStop(Context& ctx, uint32_t node, uint32_t id, bool start) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  TracePin pin;
  HKE_RETURN_IF_ERROR(
      PinTrace(ctx, node, id, start ? "hsaKmtPcSamplingStart" : "hsaKmtPcSamplingStop", &pin));
  const Status s = TraceOp(ctx, pin.item(), start ? kfd::kPcsOpStart : kfd::kPcsOpStop,
                           start ? "PC_SAMPLE START" : "PC_SAMPLE STOP");
  if (s.ok() || s.is_errno(err::kEALREADY)) pin.item().started = start;
  return s;
}

}  // namespace

Status PcSamplingStart(Context& ctx, uint32_t node, uint32_t id) {
  return StartOrStop(ctx, node, id, true);
}

Status PcSamplingStop(Context& ctx, uint32_t node, uint32_t id) {
  return StartOrStop(ctx, node, id, false);
}

}  // namespace hke::profile
