// The device module's state in a context: the /dev/kfd descriptor, its
// reference count and interface version, the process that opened it, and
// the GPU render nodes (/dev/dri/renderD<minor>) the context opened.
//
// Ownership: the context holds one DeviceState (Context::device(), the
// composition root lib/context/context.h); the descriptors in it are owned
// by the context and closed by lib/device (kfd_device.cc), the only code
// that writes these fields. Other modules read what they need through
// lib/device/kfd_device.h (Facts, KfdMinor, KfdFd, RenderNodeFd, ...).
//
// Threading: every field is written under the context lock (Context::lock(),
// rank kDevice), except `forked`, which CheckOpen may also set without it.
// Open and Close also run under the exclusive open gate, so what they
// write (descriptor, reference count, version, pid) is fixed for every
// call that holds the gate shared, which may read it without the lock
// (CheckOpen and KfdFd do, on every call's fast path). `forked` may change under
// such a call (any thread's kernel reply can detect the fork), so it is
// atomic; the render nodes change under a call and are read under the lock
// only.
#ifndef HKE_LIB_DEVICE_STATE_H_
#define HKE_LIB_DEVICE_STATE_H_

#include <atomic>
#include <cstdint>

#include "lib/core/config.h"

namespace hke::device {

// A GPU render node the context opened (/dev/dri/renderD<minor>). The
// descriptor stays open while the device is open: the KFD ties a process's
// GPU VM to it (ACQUIRE_VM), and BO mappings go through it.
struct RenderNode {
  uint32_t minor = 0;
  int fd = -1;  // owned
  // libdrm device of `fd` (platform amdgpu_device), taken on the first
  // hsaKmtGetAMDGPUDeviceHandle and released just before `fd` is closed;
  // nullptr until then. Owned.
  void* amdgpu = nullptr;
};

// `forked`: an atomic flag that the state's reset by assignment can copy.
class ForkFlag {
 public:
  ForkFlag() = default;
  ForkFlag(const ForkFlag& o) : v_(o.v_.load()) {}
  ForkFlag& operator=(const ForkFlag& o) {
    v_.store(o.v_.load());
    return *this;
  }
  ForkFlag& operator=(bool b) {
    v_.store(b);
    return *this;
  }
  operator bool() const { return v_.load(); }

 private:
  std::atomic<bool> v_{false};
};

// The KFD device state of a context.
struct DeviceState {
  int kfd_fd = -1;             // owned; -1 when closed
  uint32_t open_count = 0;     // hsaKmtOpenKFD reference count
  int32_t open_pid = 0;        // process that opened kfd_fd
  ForkFlag forked;             // set once a fork was detected; cleared by reopen
  uint32_t version_major = 0;  // from GET_VERSION
  uint32_t version_minor = 0;
  RenderNode render[config::kMaxGpus];  // opened render nodes, [0, num_render)
  uint32_t num_render = 0;
  // Process that opened the render nodes. They outlive hsaKmtCloseKFD (the
  // kernel binds each GPU's VM to the first render file a process gives
  // ACQUIRE_VM, so a reopen must use the same descriptors, as upstream
  // does); a forked child closes the inherited ones at its first open.
  int32_t render_pid = 0;
};

}  // namespace hke::device

#endif  // HKE_LIB_DEVICE_STATE_H_
