#include "lib/device/kfd_device.h"

#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/kfd/abi.h"

namespace hke::device {
namespace {

constexpr const char* kArea = "open";

Status ForkedChild() { return Status::Api(HKE_STATUS_FORKED_CHILD); }

// True when the calling process is not the one that opened the device.
// A platform without process ids relies on EBADF detection alone.
bool ProcessChanged(const Context& ctx) {
  if (ctx.device().open_pid == 0) return false;  // unknown at open: EBADF detection only
  int32_t pid = 0;
  if (!ctx.platform().CurrentPid(&pid)) return false;
  return pid != ctx.device().open_pid;
}

void CloseRenderNodes(Context& ctx) {
  DeviceState& d = ctx.device();
  for (uint32_t i = 0; i < d.num_render; ++i) {
    ctx.platform().AmdgpuDeviceRelease(d.render[i].amdgpu);
    d.render[i].amdgpu = nullptr;
    (void)ctx.platform().Close(&d.render[i].fd);
  }
  d.num_render = 0;
}

// Forgets the device state of a forked child. The inherited descriptors are
// closed (a close is not an ioctl and releases nothing of the parent's), and
// nothing else is sent to the kernel.
void ResetInherited(Context& ctx) {
  DeviceState& d = ctx.device();
  (void)ctx.platform().Close(&d.kfd_fd);
  CloseRenderNodes(ctx);
  d = DeviceState{};
}

// Turns the fresh descriptor `fd` into a secondary kfd_process
// (AMDKFD_IOC_CREATE_PROCESS, KFD >= 1.19). It must be the first
// process-level call on the descriptor: until it, the descriptor stands for
// the process's primary kfd_process. Kernels before 1.19 do not know the
// request (ENOTTY); the check on the version says so before asking.
Status BecomeSecondary(Context& ctx, int fd, uint32_t minor) {
  if (minor < kfd::kMinorCreateProcess) {
    FixedText<128> m;
    m.Append("a secondary context needs KFD 1.").AppendU64(kfd::kMinorCreateProcess)
        .Append(" (CREATE_PROCESS); this kernel has 1.").AppendU64(minor);
    return ctx.diag().Error(Unsupported(), kArea, m.c_str());
  }
  const Status s = ctx.platform().Ioctl(fd, kfd::kIocCreateProcess, nullptr);
  if (!s.ok()) {
    FixedText<128> m;
    m.Append("CREATE_PROCESS failed: ").Append(StatusName(s));
    // ENOTTY: the kernel does not know the request; EINVAL: it refuses to
    // make this descriptor a secondary process. Either way the feature is
    // missing here (the diagnostic keeps the errno).
    const bool refused = s.is_errno(err::kENOTTY) || s.is_errno(err::kEINVAL);
    return ctx.diag().Error(refused ? Unsupported() : s, kArea, m.c_str());
  }
  return Status::Ok();
}

Status OpenLocked(Context& ctx, OpenResult* out_result) {
  DeviceState& d = ctx.device();
  if (d.open_count != 0 && (d.forked || (d.kfd_fd >= 0 && ProcessChanged(ctx)))) {
    ResetInherited(ctx);
  }
  if (d.open_count != 0) {
    if (d.open_count == UINT32_MAX) {
      return ctx.diag().Error(Overflow(), kArea, "open reference count would overflow");
    }
    ++d.open_count;
    *out_result = OpenResult::kAlreadyOpen;
    return Status::Ok();
  }

  int32_t pid = 0;
  // Optional: without it fork detection relies on the kernel's EBADF.
  const Status ps = ctx.platform().ProcessId(&pid);
  if (!ps.ok()) {
    pid = 0;
    if (!ps.is_api(HKE_STATUS_UNSUPPORTED)) {
      (void)ctx.diag().Report(HKE_DIAG_WARNING, ps, kArea,
                              "the process id is unavailable; forks are detected by EBADF only");
    }
  }
  if (d.num_render != 0 && d.render_pid != pid) CloseRenderNodes(ctx);  // a fork child's

  if (ctx.discovery_only()) {
    d.open_count = 1;
    d.open_pid = pid;
    ctx.advance_open_epoch();
    *out_result = OpenResult::kOpened;
    return Status::Ok();
  }

  int fd = -1;
  Status s = ctx.platform().Open(kKfdPath, HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &fd);
  if (!s.ok()) {
    FixedText<128> m;
    m.Append("cannot open ").Append(kKfdPath).Append(": ").Append(StatusName(s));
    return ctx.diag().Error(s, kArea, m.c_str(), kKfdPath);
  }

  kfd::GetVersionArgs v{};
  s = ctx.platform().Ioctl(fd, kfd::kIocGetVersion, &v);
  if (s.ok() && v.major_version != kfd::kKfdMajorVersion) {
    FixedText<128> m;
    m.Append("KFD interface ").AppendU64(v.major_version).AppendChar('.').AppendU64(v.minor_version)
        .Append(" is not major version 1");
    (void)ctx.platform().Close(&fd);
    return ctx.diag().Error(Status::Api(HKE_STATUS_VERSION_MISMATCH), kArea, m.c_str());
  }
  if (!s.ok()) {
    FixedText<128> m;
    m.Append("GET_VERSION failed: ").Append(StatusName(s));
    (void)ctx.platform().Close(&fd);
    return ctx.diag().Error(s, kArea, m.c_str());
  }

  if (ctx.secondary()) {
    s = BecomeSecondary(ctx, fd, v.minor_version);
    if (!s.ok()) {
      (void)ctx.platform().Close(&fd);
      return s;
    }
  }

  d.kfd_fd = fd;
  d.open_count = 1;
  d.open_pid = pid;
  d.forked = false;
  d.version_major = v.major_version;
  d.version_minor = v.minor_version;
  ctx.advance_open_epoch();
  *out_result = OpenResult::kOpened;
  return Status::Ok();
}

}  // namespace

Status Open(Context& ctx, OpenResult* out_result) {
  if (out_result == nullptr) return InvalidArgument();
  LockGuard g(ctx.lock());
  OpenResult r = OpenResult::kOpened;
  HKE_RETURN_IF_ERROR(OpenLocked(ctx, &r));
  *out_result = r;
  return Status::Ok();
}

Status Close(Context& ctx) {
  LockGuard g(ctx.lock());
  DeviceState& d = ctx.device();
  if (d.open_count == 0) return FailedPrecondition();
  if (d.forked || (d.kfd_fd >= 0 && ProcessChanged(ctx))) {
    // A forked child drops a reference it inherited (upstream's child
    // counts them down too). Nothing reaches the kernel; the last one closes
    // the child's copies of the descriptors (releasing nothing of the
    // parent's) so the child's next open starts afresh.
    d.forked = true;
    if (--d.open_count == 0) ResetInherited(ctx);
    return Status::Ok();
  }
  if (--d.open_count == 0) {
    Status s = ctx.platform().Close(&d.kfd_fd);
    // A secondary kfd_process dies with its descriptor, and its GPU VMs
    // with it: its render nodes are of no use to a later open, which makes
    // a new process (and opens them again).
    if (ctx.secondary()) CloseRenderNodes(ctx);
    // The render nodes stay open for the next open of this process (see
    // DeviceState::render_pid).
    const int32_t render_pid = d.open_pid;
    const uint32_t num_render = d.num_render;
    RenderNode render[config::kMaxGpus];
    for (uint32_t i = 0; i < num_render; ++i) render[i] = d.render[i];
    d = DeviceState{};
    for (uint32_t i = 0; i < num_render; ++i) d.render[i] = render[i];
    d.num_render = num_render;
    d.render_pid = render_pid;
    if (!s.ok()) {
      // The descriptor is released either way (Linux close semantics).
      (void)ctx.diag().Report(HKE_DIAG_WARNING, s, kArea, "close of /dev/kfd reported an error");
    }
  }
  return Status::Ok();
}

void ForceClose(Context& ctx) {
  LockGuard g(ctx.lock());
  ResetInherited(ctx);
}

Status CheckOpen(Context& ctx) {
  if (!ctx.open_gate().Held()) {
    // A device call outside every entry point's hold could race a close.
    return ctx.diag().Error(Status::Api(HKE_STATUS_INTERNAL), kArea,
                            "a device call was made outside the open gate (lib/context/open_gate.h)");
  }
  // No lock: the shared gate fixes what Open wrote, and `forked` is atomic
  // (lib/device/state.h).
  DeviceState& d = ctx.device();
  if (d.open_count == 0) return FailedPrecondition();
  if (d.forked) return ForkedChild();
  if (d.kfd_fd >= 0 && ProcessChanged(ctx)) {
    d.forked = true;
    return ForkedChild();
  }
  return Status::Ok();
}

Status KfdFd(Context& ctx, int* out_fd) {
  // Inside a hold of the open gate (every entry point's), what Open wrote
  // is fixed and `forked` is atomic, as in CheckOpen: no lock. A caller
  // outside every hold (none in the library today) takes the lock.
  const DeviceState& d = ctx.device();
  const auto read = [&]() -> Status {
    if (d.open_count == 0 || d.kfd_fd < 0) return FailedPrecondition();
    if (d.forked) return ForkedChild();
    *out_fd = d.kfd_fd;
    return Status::Ok();
  };
  if (ctx.open_gate().Held()) return read();
  LockGuard g(ctx.lock());
  return read();
}

Status KfdReply(Context& ctx, Status s, const char* area) {
  if (!s.is_errno(err::kEBADF)) return s;
  {
    LockGuard g(ctx.lock());
    ctx.device().forked = true;
  }
  return ctx.diag().Error(ForkedChild(), area,
                          "the kernel refused the KFD descriptor (EBADF): forked child");
}

Status KfdIoctl(Context& ctx, uint32_t request, void* arg) {
  int fd = -1;
  HKE_RETURN_IF_ERROR(KfdFd(ctx, &fd));
  return KfdReply(ctx, ctx.platform().Ioctl(fd, request, arg), kArea);
}

Status GetVersion(Context& ctx, uint32_t* out_major, uint32_t* out_minor) {
  if (out_major == nullptr || out_minor == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(CheckOpen(ctx));
  LockGuard g(ctx.lock());
  *out_major = ctx.device().version_major;
  *out_minor = ctx.device().version_minor;
  return Status::Ok();
}

Status OpenRenderNode(Context& ctx, uint32_t minor, bool* out_available) {
  if (out_available == nullptr) return InvalidArgument();
  {
    LockGuard g(ctx.lock());
    const DeviceState& d = ctx.device();
    if (d.open_count == 0) return FailedPrecondition();
    if (d.forked) return ForkedChild();
    for (uint32_t i = 0; i < d.num_render; ++i) {
      if (d.render[i].minor == minor) {
        *out_available = true;
        return Status::Ok();
      }
    }
  }
  FixedText<64> path;
  path.Append(kRenderNodePrefix).AppendU64(minor);
  int fd = -1;
  const Status s = ctx.platform().Open(path.c_str(), HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &fd);
  if (s.is_errno(err::kENOENT) || s.is_errno(err::kEPERM)) {
    *out_available = false;  // hidden from this process, as upstream
    return Status::Ok();
  }
  if (!s.ok()) {
    FixedText<128> m;
    m.Append("cannot open the render node: ").Append(StatusName(s));
    return ctx.diag().Error(s, kArea, m.c_str(), path.c_str());
  }
  LockGuard g(ctx.lock());
  DeviceState& d = ctx.device();
  for (uint32_t i = 0; i < d.num_render; ++i) {
    if (d.render[i].minor == minor) {  // another thread opened it meanwhile
      (void)ctx.platform().Close(&fd);
      *out_available = true;
      return Status::Ok();
    }
  }
  if (d.open_count == 0 || d.forked || d.num_render >= config::kMaxGpus) {
    (void)ctx.platform().Close(&fd);
    if (d.open_count == 0) return FailedPrecondition();
    if (d.forked) return ForkedChild();
    FixedText<128> m;
    m.Append("more than ").AppendU64(config::kMaxGpus);
    m.Append(" GPU render nodes (raise hke::config::kMaxGpus)");
    return ctx.diag().Error(Exhausted(), kArea, m.c_str(), path.c_str());
  }
  d.render[d.num_render++] = RenderNode{minor, fd};
  d.render_pid = d.open_pid;
  *out_available = true;
  return Status::Ok();
}

Status RenderNodeFd(Context& ctx, uint32_t minor, int* out_fd) {
  if (out_fd == nullptr) return InvalidArgument();
  LockGuard g(ctx.lock());
  const DeviceState& d = ctx.device();
  for (uint32_t i = 0; i < d.num_render; ++i) {
    if (d.render[i].minor == minor) {
      *out_fd = d.render[i].fd;
      return Status::Ok();
    }
  }
  return FailedPrecondition();
}

Status AmdgpuDevice(Context& ctx, uint32_t minor, void** out_handle) {
  if (out_handle == nullptr) return InvalidArgument();
  int fd = -1;
  {
    LockGuard g(ctx.lock());
    const DeviceState& d = ctx.device();
    for (uint32_t i = 0; i < d.num_render; ++i) {
      if (d.render[i].minor != minor) continue;
      if (d.render[i].amdgpu != nullptr) {
        *out_handle = d.render[i].amdgpu;
        return Status::Ok();
      }
      fd = d.render[i].fd;
    }
  }
  if (fd < 0) return FailedPrecondition();
  // libdrm's initialisation issues its own ioctls: no lock is held across
  // it. A thread that lost the race releases its reference.
  void* h = nullptr;
  HKE_RETURN_IF_ERROR(ctx.platform().AmdgpuDevice(fd, &h));
  void* extra = nullptr;
  void* result = nullptr;
  {
    LockGuard g(ctx.lock());
    DeviceState& d = ctx.device();
    for (uint32_t i = 0; i < d.num_render; ++i) {
      if (d.render[i].minor != minor || d.render[i].fd != fd) continue;
      if (d.render[i].amdgpu == nullptr) d.render[i].amdgpu = h;
      else extra = h;
      result = d.render[i].amdgpu;
    }
    if (result == nullptr) extra = h;  // the node was closed meanwhile
  }
  ctx.platform().AmdgpuDeviceRelease(extra);
  if (result == nullptr) return FailedPrecondition();
  *out_handle = result;
  return Status::Ok();
}

bool LastReference(Context& ctx) {
  LockGuard g(ctx.lock());
  const DeviceState& d = ctx.device();
  return d.open_count == 1 && !d.forked && d.kfd_fd >= 0 && !ProcessChanged(ctx);
}

uint32_t OpenEpoch(Context& ctx) { return ctx.open_epoch(); }

DeviceFacts Facts(Context& ctx) {
  LockGuard g(ctx.lock());
  const DeviceState& d = ctx.device();
  return DeviceFacts{d.kfd_fd, d.version_minor, d.open_pid};
}

uint32_t KfdMinor(Context& ctx) {
  LockGuard g(ctx.lock());
  return ctx.device().version_minor;
}

bool Referenced(Context& ctx) {
  LockGuard g(ctx.lock());
  return ctx.device().open_count != 0;
}

}  // namespace hke::device
