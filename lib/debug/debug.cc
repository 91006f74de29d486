// The debugger calls; see debug.h.
#include "lib/debug/debug.h"

#include "hsakmt/hsakmttypes.h"
#include "lib/context/context.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/device/round_trip.h"
#include "lib/kfd/encode.h"
#include "lib/memory/memory.h"
#include "lib/node/node.h"
#include "lib/queues/queues.h"
#include "lib/topology/acquire.h"
#include "lib/topology/keys.h"

namespace hke::debug {

namespace {

constexpr const char* kArea = "debug";

Status KernelFailure(Context& ctx, const char* what, Status s) {
  return ctx.diag().Failed(s, kArea, what);
}

uint64_t Addr(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// The open device's minor version, pid and descriptor.
struct OpenFacts {
  uint32_t minor;
  uint32_t pid;
  int32_t fd;
};

Status ReadOpenFacts(Context& ctx, OpenFacts* out) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  HKE_RETURN_IF_ERROR(RequirePrimary(ctx, kArea, "debugging (DBG_TRAP)"));
  const device::DeviceFacts d = device::Facts(ctx);
  *out = OpenFacts{d.version_minor, static_cast<uint32_t>(d.open_pid), d.kfd_fd};
  return Status::Ok();
}

// Open and KFD >= 1.13 (UNSUPPORTED with a diagnostic otherwise).
Status DebuggerFacts(Context& ctx, const char* call, OpenFacts* out) {
  OpenFacts f{};
  HKE_RETURN_IF_ERROR(ReadOpenFacts(ctx, &f));
  if (f.minor < kfd::kMinorDebugger) {
    FixedText<128> t;
    t.Append(call).Append(" needs KFD 1.13 (the kernel reports 1.").AppendU64(f.minor).Append(")");
    return ctx.diag().Error(Unsupported(), kArea, t.c_str());
  }
  if (f.pid == 0) {
    return ctx.diag().Error(Unsupported(), kArea,
                            "the platform reports no process id; DBG_TRAP names the process");
  }
  *out = f;
  return Status::Ok();
}

// Holds a call's busy flag for its scope once Take succeeded.
class BusyGuard {
 public:
  BusyGuard() = default;
  ~BusyGuard() {
    if (flag_ != nullptr) flag_->store(0, std::memory_order_release);
  }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

  // false when another thread holds `flag`.
  bool Take(std::atomic<uint32_t>& flag) {
    if (flag.exchange(1, std::memory_order_acquire) != 0) return false;
    flag_ = &flag;
    return true;
  }

 private:
  std::atomic<uint32_t>* flag_ = nullptr;
};

// Starts a call that runs alone on its context: the debugger facts, then
// the call's busy flag (UNAVAILABLE while another thread runs the call).
Status BeginExclusive(Context& ctx, const char* call, std::atomic<uint32_t>& flag,
                      BusyGuard* busy, OpenFacts* f) {
  HKE_RETURN_IF_ERROR(DebuggerFacts(ctx, call, f));
  if (busy->Take(flag)) return Status::Ok();
  FixedText<96> m;
  m.Append(call).Append(" is already running on this context");
  return ctx.diag().Error(Status::Api(HKE_STATUS_UNAVAILABLE), kArea, m.c_str());
}

// A snapshot larger than the context's block: RESOURCE_EXHAUSTED naming
// the bound (`what`: " devices, more than config::kMaxGpus").
Status TooMany(Context& ctx, uint32_t available, const char* what) {
  FixedText<128> m;
  m.Append("the kernel has ").AppendU64(available).Append(what);
  return ctx.diag().Error(Exhausted(), kArea, m.c_str());
}

// The frame of the snapshot calls: the outputs checked, BeginExclusive,
// then `take(facts, &count)` fills `block`; the block, the count and the
// entry size are published only on success.
template <typename Take>
Status SnapshotCall(Context& ctx, const char* call, std::atomic<uint32_t>& flag, void* block,
                    size_t entry_size, void** out_data, uint32_t* out_count,
                    uint32_t* out_entry_size, Take take) {
  if (out_data == nullptr || out_count == nullptr || out_entry_size == nullptr) {
    return InvalidArgument();
  }
  OpenFacts f{};
  BusyGuard busy;
  HKE_RETURN_IF_ERROR(BeginExclusive(ctx, call, flag, &busy, &f));
  uint32_t count = 0;
  HKE_RETURN_IF_ERROR(take(f, &count));
  *out_data = block;
  *out_count = count;
  *out_entry_size = static_cast<uint32_t>(entry_size);
  return Status::Ok();
}

// One GET_QUEUE_SNAPSHOT; `count` 0 asks for the number only.
Status QueueSnapshotOnce(Context& ctx, uint32_t pid, DebugState& d, uint32_t count,
                         kfd::SnapshotResult* out) {
  kfd::DbgTrapArgs a{};
  size_t room = 0;
  HKE_RETURN_IF_ERROR(kfd::SnapshotBufferBytes(sizeof(kfd::QueueSnapshotEntry), count, &room));
  HKE_RETURN_IF_ERROR(kfd::EncodeQueueSnapshot(pid, 0, count != 0 ? Addr(d.queues) : 0,
                                               count != 0 ? sizeof(d.queues) : 0, count, &a));
  return device::RoundTrip(ctx, kArea, "DBG_TRAP GET_QUEUE_SNAPSHOT", &a, kfd::DecodeSnapshot,
                           "GET_QUEUE_SNAPSHOT reply changed its request or grew the entry size",
                           out);
}

}  // namespace

Status CheckRuntimeDebugSupport(Context& ctx) {
  OpenFacts f{};
  HKE_RETURN_IF_ERROR(ReadOpenFacts(ctx, &f));
  HKE_RETURN_IF_ERROR(memory::EnsureTopologyAndVm(ctx));
  {
    const topology::Reader topo(ctx);
    if (!topo->acquired()) return FailedPrecondition();
    const uint32_t n = topo->snapshot().num_nodes();
    for (uint32_t i = 0; i < n; ++i) {
      const topology::NodeRecord* r = topo->snapshot().node(i);
      if (r == nullptr) continue;
      // Upstream skips nodes with CPU cores and no SIMDs; an APU node is
      // checked like a dGPU.
      if (r->Get32(topology::kCpuCoresCount) != 0 && r->Get32(topology::kSimdCount) == 0) continue;
      HSA_CAPABILITY cap;
      cap.Value = r->Get32(topology::kCapability);
      if (cap.ui32.DebugSupportedFirmware == 0) {
        FixedText<128> m;
        m.Append("node ").AppendU64(i).Append(
            " has no debug-capable firmware (Capability.DebugSupportedFirmware is 0)");
        return ctx.diag().Error(Unsupported(), kArea, m.c_str());
      }
    }
  }
  if (f.minor < kfd::kMinorDebugger) {
    FixedText<128> t;
    t.Append("runtime debugging needs KFD 1.13 (the kernel reports 1.")
        .AppendU64(f.minor)
        .Append(")");
    return ctx.diag().Error(Unsupported(), kArea, t.c_str());
  }
  return Status::Ok();
}

Status RuntimeEnable(Context& ctx, uint64_t r_debug, bool setup_ttmp) {
  HKE_RETURN_IF_ERROR(CheckRuntimeDebugSupport(ctx));
  const uint32_t mode =
      kfd::kRuntimeEnableModeEnable | (setup_ttmp ? kfd::kRuntimeEnableModeTtmpSave : 0u);
  kfd::RuntimeEnableArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodeRuntimeEnable(r_debug, mode, &a));
  const kfd::RuntimeEnableArgs sent = a;
  const uint32_t epoch = device::OpenEpoch(ctx);
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) {
    if (s.is_errno(err::kEBUSY)) {
      return ctx.diag().Error(s, kArea, "RUNTIME_ENABLE: the runtime is already enabled (EBUSY)");
    }
    if (s.is_errno(err::kEEXIST)) {
      return ctx.diag().Error(s, kArea,
                              "RUNTIME_ENABLE: queues exist already; enable the runtime before "
                              "creating queues (EEXIST)");
    }
    return KernelFailure(ctx, "RUNTIME_ENABLE", s);
  }
  uint32_t caps = 0;
  const Status d = kfd::DecodeRuntimeEnable(sent, a, &caps);
  if (!d.ok()) return ctx.diag().Error(d, kArea, "RUNTIME_ENABLE reply changed its request");
  LockGuard g(ctx.debug_lock());
  DebugState& st = ctx.debug();
  st.runtime_caps = caps;
  st.caps_epoch = epoch;
  st.caps_valid = true;
  return Status::Ok();
}

Status RuntimeDisable(Context& ctx) {
  HKE_RETURN_IF_ERROR(CheckRuntimeDebugSupport(ctx));
  kfd::RuntimeEnableArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodeRuntimeEnable(0, 0, &a));
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return KernelFailure(ctx, "RUNTIME_ENABLE (disable)", s);
  LockGuard g(ctx.debug_lock());
  ctx.debug().caps_valid = false;
  ctx.debug().runtime_caps = 0;
  return Status::Ok();
}

Status RuntimeCapabilities(Context& ctx, uint32_t* out) {
  if (out == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  const uint32_t epoch = device::OpenEpoch(ctx);
  LockGuard g(ctx.debug_lock());
  const DebugState& st = ctx.debug();
  *out = st.caps_valid && st.caps_epoch == epoch ? st.runtime_caps : 0;
  return Status::Ok();
}

Status DbgEnable(Context& ctx, void** out_info, uint32_t* out_size) {
  if (out_info == nullptr || out_size == nullptr) return InvalidArgument();
  DebugState& st = ctx.debug();
  OpenFacts f{};
  BusyGuard busy;
  HKE_RETURN_IF_ERROR(BeginExclusive(ctx, "DbgEnable", st.enable_busy, &busy, &f));
  // The kernel writes into a scratch block; the published block changes
  // only on success.
  kfd::RuntimeInfo scratch{};
  kfd::DbgTrapArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodeDbgTrapEnable(f.pid, f.fd, 0, Addr(&scratch),
                                               static_cast<uint32_t>(sizeof(scratch)), &a));
  uint32_t filled = 0;
  HKE_RETURN_IF_ERROR(device::RoundTrip(ctx, kArea, "DBG_TRAP ENABLE", &a, kfd::DecodeDbgTrapEnable,
                                        "DBG_TRAP ENABLE reply changed its request", &filled));
  st.runtime_info = scratch;
  *out_info = &st.runtime_info;
  *out_size = filled;
  return Status::Ok();
}

Status DbgDisable(Context& ctx) {
  OpenFacts f{};
  HKE_RETURN_IF_ERROR(DebuggerFacts(ctx, "DbgDisable", &f));
  kfd::DbgTrapArgs a{};
  HKE_RETURN_IF_ERROR(kfd::EncodeDbgTrapDisable(f.pid, f.fd, &a));
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return KernelFailure(ctx, "DBG_TRAP DISABLE", s);
  return Status::Ok();
}

Status DeviceSnapshot(Context& ctx, void** out_data, uint32_t* out_count,
                      uint32_t* out_entry_size) {
  DebugState& st = ctx.debug();
  return SnapshotCall(
      ctx, "DbgGetDeviceData", st.devices_busy, st.devices, sizeof(kfd::DbgDeviceInfoEntry),
      out_data, out_count, out_entry_size, [&](const OpenFacts& f, uint32_t* count) {
        kfd::DbgTrapArgs a{};
        HKE_RETURN_IF_ERROR(kfd::EncodeDeviceSnapshot(f.pid, 0, Addr(st.devices),
                                                      sizeof(st.devices), config::kMaxGpus, &a));
        kfd::SnapshotResult r{};
        HKE_RETURN_IF_ERROR(device::RoundTrip(
            ctx, kArea, "DBG_TRAP GET_DEVICE_SNAPSHOT", &a, kfd::DecodeSnapshot,
            "GET_DEVICE_SNAPSHOT reply changed its request or grew the entry size", &r));
        if (r.available > r.filled) {
          return TooMany(ctx, r.available, " devices, more than config::kMaxGpus");
        }
        *count = r.filled;
        return Status::Ok();
      });
}

Status QueueSnapshot(Context& ctx, void** out_data, uint32_t* out_count, uint32_t* out_entry_size,
                     bool suspend) {
  DebugState& st = ctx.debug();
  return SnapshotCall(
      ctx, "DbgGetQueueData", st.queues_busy, st.queues, sizeof(kfd::QueueSnapshotEntry),
      out_data, out_count, out_entry_size, [&](const OpenFacts& f, uint32_t* count) {
        kfd::SnapshotResult r{};
        HKE_RETURN_IF_ERROR(QueueSnapshotOnce(ctx, f.pid, st, 0, &r));
        if (r.available > config::kMaxQueues) {
          return TooMany(ctx, r.available, " queues, more than config::kMaxQueues");
        }
        const uint32_t want = r.available;
        if (want == 0) return Status::Ok();  // *count stays 0
        HKE_RETURN_IF_ERROR(QueueSnapshotOnce(ctx, f.pid, st, want, &r));
        if (suspend && r.filled != 0) {
          for (uint32_t i = 0; i < r.filled; ++i) st.queue_ids[i] = st.queues[i].queue_id;
          kfd::DbgTrapArgs a{};
          HKE_RETURN_IF_ERROR(kfd::EncodeDbgSuspendQueues(
              f.pid, Addr(st.queue_ids), r.filled, kfd::EcMask(kfd::kEcQueueNew), 0, &a));
          const Status s = device::Ioctl(ctx, &a);
          if (!s.ok()) return KernelFailure(ctx, "DBG_TRAP SUSPEND_QUEUES", s);
          HKE_RETURN_IF_ERROR(QueueSnapshotOnce(ctx, f.pid, st, want, &r));
        }
        *count = r.filled;
        return Status::Ok();
      });
}

Status TrapIoctl(Context& ctx, void* args, const uint64_t* queues, uint64_t* out_return) {
  if (args == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  HKE_RETURN_IF_ERROR(RequirePrimary(ctx, kArea, "DBG_TRAP"));
  kfd::DbgTrapArgs a{};
  const auto* src = static_cast<const unsigned char*>(args);
  auto* dst = reinterpret_cast<unsigned char*>(&a);
  for (size_t i = 0; i < sizeof(a); ++i) dst[i] = src[i];
  if (queues != nullptr) {
    uint64_t array = 0;
    uint32_t count = 0;
    if (a.op == kfd::kDbgTrapSuspendQueues) {
      array = a.suspend_queues.queue_array_ptr;
      count = a.suspend_queues.num_queues;
    } else if (a.op == kfd::kDbgTrapResumeQueues) {
      array = a.resume_queues.queue_array_ptr;
      count = a.resume_queues.num_queues;
    } else {
      return ctx.diag().Error(InvalidArgument(), kArea,
                              "DebugTrapIoctl: queue handles only go with SUSPEND_QUEUES or "
                              "RESUME_QUEUES");
    }
    if (count > config::kMaxQueues || (count != 0 && array == 0)) {
      return ctx.diag().Error(InvalidArgument(), kArea,
                              "DebugTrapIoctl: the queue array is NULL or longer than "
                              "config::kMaxQueues");
    }
    // Every handle is translated before the caller's array is written.
    uint32_t ids[config::kMaxQueues];
    for (uint32_t i = 0; i < count; ++i) {
      const Status s = queues::KernelQueueId(ctx, queues[i], &ids[i]);
      if (!s.ok()) {
        FixedText<96> m;
        m.Append("DebugTrapIoctl: queue handle ").AppendU64(i).Append(" is not a live queue");
        return ctx.diag().Error(s, kArea, m.c_str());
      }
    }
    auto* out_ids = reinterpret_cast<uint32_t*>(static_cast<uintptr_t>(array));
    for (uint32_t i = 0; i < count; ++i) out_ids[i] = ids[i];
  }
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return KernelFailure(ctx, "DBG_TRAP", s);
  const auto* rep = reinterpret_cast<const unsigned char*>(&a);
  auto* out = static_cast<unsigned char*>(args);
  for (size_t i = 0; i < sizeof(a); ++i) out[i] = rep[i];
  if (out_return != nullptr) *out_return = 0;
  return Status::Ok();
}

Status LegacyRegister(Context& ctx, uint32_t node, bool register_node) {
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(node::Resolve(ctx, node, &n));
  Status s;
  if (register_node) {
    kfd::DbgRegisterArgs a{};
    a.gpu_id = n.gpu_id;
    s = device::Ioctl(ctx, &a);
  } else {
    kfd::DbgUnregisterArgs a{};
    a.gpu_id = n.gpu_id;
    s = device::Ioctl(ctx, &a);
  }
  if (!s.ok()) {
    return KernelFailure(ctx,
                         register_node ? "DBG_REGISTER (deprecated; current kernels answer "
                                         "EPERM)"
                                       : "DBG_UNREGISTER (deprecated; current kernels "
                                         "answer EPERM)",
                         s);
  }
  return Status::Ok();
}

Status LegacyWaveControl(Context& ctx, uint32_t node, uint32_t operand, uint32_t mode,
                         uint32_t trap_id, uint64_t message, uint64_t memory_va) {
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(node::Resolve(ctx, node, &n));
  kfd::LegacyWaveControl req{n.gpu_id, operand, mode, trap_id, message, memory_va};
  alignas(8) unsigned char buf[kfd::kLegacyWaveControlBytes];
  size_t bytes = 0;
  const Status e = kfd::BuildLegacyWaveControl(req, buf, sizeof(buf), &bytes);
  if (!e.ok()) {
    return ctx.diag().Error(e, kArea, "DbgWavefrontControl: unknown operand or mode");
  }
  const Status s = device::KfdIoctl(ctx, kfd::kIocDbgWaveControlDeprecated, buf);
  if (!s.ok()) {
    return KernelFailure(ctx, "DBG_WAVE_CONTROL (deprecated; current kernels answer EPERM)", s);
  }
  return Status::Ok();
}

Status LegacyAddressWatch(Context& ctx, uint32_t node, uint32_t count, const uint32_t* modes,
                          const uint64_t* addresses, const uint64_t* masks,
                          const uint64_t* events) {
  if (count == 0 || modes == nullptr || addresses == nullptr || masks == nullptr) {
    return ctx.diag().Error(InvalidArgument(), kArea,
                            "DbgAddressWatch: no watch points, or a NULL mode, address or mask "
                            "array");
  }
  if (count > kfd::kLegacyMaxWatchPoints) {
    return ctx.diag().Error(OutOfRange(), kArea, "DbgAddressWatch: more than 100 watch points");
  }
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(node::Resolve(ctx, node, &n));
  kfd::LegacyAddressWatch req{};
  req.gpu_id = n.gpu_id;
  req.count = count;
  req.modes = modes;
  req.addresses = addresses;
  req.masks = masks;
  req.mask_items = masks[0] != 0 ? count : 1;
  req.events = events;
  req.event_items = events != nullptr ? count : 0;
  alignas(8) unsigned char buf[kfd::kLegacyAddressWatchMaxBytes];
  size_t bytes = 0;
  const Status e = kfd::BuildLegacyAddressWatch(req, buf, sizeof(buf), &bytes);
  if (!e.ok()) return ctx.diag().Error(e, kArea, "DbgAddressWatch: a watch mode is not 0..3");
  const Status s = device::KfdIoctl(ctx, kfd::kIocDbgAddressWatchDeprecated, buf);
  if (!s.ok()) {
    return KernelFailure(ctx, "DBG_ADDRESS_WATCH (deprecated; current kernels answer EPERM)", s);
  }
  return Status::Ok();
}

}  // namespace hke::debug
