// Opening and closing the KFD device of a context, and the checks every
// device call makes first.
//
// Semantics (upstream-compatible where upstream is sound):
//  - Open is reference counted. The first open opens /dev/kfd (O_RDWR |
//    O_CLOEXEC), runs the GET_VERSION handshake (major must be 1) and
//    records the opening process. Later opens only count and report
//    OpenResult::kAlreadyOpen.
//  - Close drops one reference; the last one closes the descriptor.
//  - Fork: a child inherits the context but the kernel refuses the parent's
//    descriptor (EBADF). A process-id change or an EBADF reply marks the
//    context forked: every device call then returns FORKED_CHILD until the
//    child opens again, which forgets the inherited state without issuing
//    any ioctl on inherited descriptors, and opens afresh. A close in the
//    child succeeds and counts the inherited references down (upstream's
//    answer); the last one forgets the inherited state the same way.
//  - Discovery-only contexts count opens but never open /dev/kfd.
//  - Render nodes (/dev/dri/renderD<minor>) are opened on demand by the
//    topology (a GPU whose node cannot be opened is hidden), at most
//    config::kMaxGpus of them, and stay open after the last close: the
//    kernel binds a GPU's VM to the first render file the process hands to
//    ACQUIRE_VM and refuses another (EBUSY), so a reopen in the same process
//    must reuse them (upstream keeps them too). A forked child closes the
//    inherited ones at its first open; context teardown closes them.
//    Closing them, like closing /dev/kfd, issues no ioctl.
//
// The functions take the context lock, except CheckOpen, KfdFd and
// OpenEpoch, which read without it inside the open gate (state.h); none
// may be called with it held.
#ifndef HKE_LIB_DEVICE_KFD_DEVICE_H_
#define HKE_LIB_DEVICE_KFD_DEVICE_H_

#include <cstdint>

#include "lib/context/context.h"
#include "lib/core/status.h"
#include "lib/kfd/abi.h"

namespace hke::device {

constexpr const char* kKfdPath = "/dev/kfd";

// What Open did, for callers that must tell a first open from a recount.
enum class OpenResult : uint8_t { kOpened, kAlreadyOpen };

// Opens (or re-references) the device. On failure nothing changes: no
// descriptor stays open and the reference count is as before.
Status Open(Context& ctx, OpenResult* out_result);

// Drops one reference. FAILED_PRECONDITION when not open. In a forked child
// it drops an inherited reference without any ioctl; the last one closes
// the inherited descriptors (as a reopen would), so the device is closed.
Status Close(Context& ctx);

// Releases everything regardless of the reference count (context teardown).
// In a forked child the inherited descriptor is closed without ioctls.
void ForceClose(Context& ctx);

// The check at the top of every device call: open, and not a forked child.
// INTERNAL (with a diagnostic) when the caller holds no open gate: every
// device call must come through an entry point (lib/context/open_gate.h).
Status CheckOpen(Context& ctx);

// The descriptor a KFD ioctl goes to: FAILED_PRECONDITION when the device
// is not open, FORKED_CHILD in a child already known to be forked. Inside
// a hold of the open gate it reads without the context lock, as CheckOpen.
Status KfdFd(Context& ctx, int* out_fd);

// The fork rule, for every KFD ioctl's result: the kernel refuses a
// descriptor inherited across fork with EBADF, so EBADF marks the context
// forked and becomes FORKED_CHILD (with a diagnostic under `area`); any
// other result is returned as it is.
Status KfdReply(Context& ctx, Status s, const char* area);

// Issues a KFD ioctl on the context's descriptor with the platform's retry
// policy; KfdFd's refusals, then KfdReply's rule. Takes the request
// explicitly: for SVM (its size field is the payload length) and the
// deprecated debugger requests sent as byte buffers; everything else uses
// Ioctl below.
Status KfdIoctl(Context& ctx, uint32_t request, void* arg);

// KfdIoctl with the request of the argument structure (kfd::IoctlOf, from
// the one list lib/kfd/ioctl_list.h).
template <class Args>
Status Ioctl(Context& ctx, Args* a) {
  static_assert(!kfd::IoctlOf<Args>::kVariable,
                "a variable-size request needs its size field: use KfdIoctl");
  return KfdIoctl(ctx, kfd::IoctlOf<Args>::kRequest, a);
}

// The version from the handshake; FAILED_PRECONDITION when not open.
Status GetVersion(Context& ctx, uint32_t* out_major, uint32_t* out_minor);

constexpr const char* kRenderNodePrefix = "/dev/dri/renderD";

// Opens /dev/dri/renderD<minor> (O_RDWR | O_CLOEXEC) unless it is open
// already. *out_available is false when the node does not exist or the
// process may not open it (ENOENT, EPERM: upstream then hides the GPU);
// other errors fail. RESOURCE_EXHAUSTED (naming config::kMaxGpus) when
// kMaxGpus nodes are open. FAILED_PRECONDITION when the device is not open.
Status OpenRenderNode(Context& ctx, uint32_t minor, bool* out_available);

// The descriptor of an open render node; FAILED_PRECONDITION when the node
// is not open.
Status RenderNodeFd(Context& ctx, uint32_t minor, int* out_fd);

// The libdrm device of the open render node `minor` (platform
// amdgpu_device), taken once per node and kept until the node's descriptor
// is closed. UNSUPPORTED when the platform has no libdrm devices;
// FAILED_PRECONDITION when the node is not open.
Status AmdgpuDevice(Context& ctx, uint32_t minor, void** out_handle);

// True when the next Close would close the device (one reference left and
// not a forked child): the caller's last chance to release kernel objects.
bool LastReference(Context& ctx);

// Context::open_epoch() (an atomic; it advances only under the exclusive
// gate, so it is fixed for the length of a shared hold).
uint32_t OpenEpoch(Context& ctx);

// What Open recorded, read together under the context lock, for the
// modules above that need the descriptor (an mmap of /dev/kfd), the
// interface version or the opening process: kfd_fd -1, version 0 and pid 0
// when the device is closed. No check: callers make theirs first
// (CheckOpen), as every device call does.
struct DeviceFacts {
  int kfd_fd;
  uint32_t version_minor;
  int32_t open_pid;
};
DeviceFacts Facts(Context& ctx);

// The KFD interface minor version of the open device (0 when closed), read
// under the context lock: what the version checks of the modules above
// compare against kfd::kMinor*.
uint32_t KfdMinor(Context& ctx);

// True while any hsaKmtOpenKFD reference is held (a forked child's
// inherited ones included).
bool Referenced(Context& ctx);

}  // namespace hke::device

#endif  // HKE_LIB_DEVICE_KFD_DEVICE_H_
