// hke_context: all state of one KFD client, in caller-owned storage.
//
// A context is created by hke_context_init() in storage the caller provides
// and destroyed by hke_context_deinit(). It holds the platform, the
// diagnostics sink and the device state (the /dev/kfd descriptor, the
// interface version, the process that opened it). Later subsystems
// (topology, apertures, events, queues) add their fixed-capacity arenas
// here; nothing is heap-allocated.
//
// Threading: calls on one context are serialised by its lock; different
// contexts are independent.
#ifndef HKE_LIB_CONTEXT_CONTEXT_H_
#define HKE_LIB_CONTEXT_CONTEXT_H_

#include <atomic>
#include <cstdint>

#include "hsakmt/hsakmt_embedded.h"
#include "lib/core/diag.h"
#include "lib/core/platform.h"
#include "lib/core/status.h"

namespace hke {

// A minimal lock for short critical sections (open/close bookkeeping). The
// platform offers no mutex yet; waits here are bounded by the few
// instructions other holders spend inside.
class SpinLock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

class LockGuard {
 public:
  explicit LockGuard(SpinLock& l) : l_(l) { l_.lock(); }
  ~LockGuard() { l_.unlock(); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  SpinLock& l_;
};

// The KFD device state of a context.
struct DeviceState {
  int kfd_fd = -1;             // owned; -1 when closed
  uint32_t open_count = 0;     // hsaKmtOpenKFD reference count
  int32_t open_pid = 0;        // process that opened kfd_fd
  bool forked = false;         // set once a fork was detected; cleared by reopen
  uint32_t version_major = 0;  // from GET_VERSION
  uint32_t version_minor = 0;
};

class Context {
 public:
  static constexpr uint32_t kMagic = 0x484b4543u;  // "HKEC"

  Context(const hke_config& config, const Platform& platform);

  bool valid() const { return magic_ == kMagic; }
  void Invalidate() { magic_ = 0; }

  const Platform& platform() const { return platform_; }
  const Diag& diag() const { return diag_; }
  const hke_config& config() const { return config_; }
  const char* topology_root() const;
  bool discovery_only() const { return (config_.flags & HKE_CONFIG_DISCOVERY_ONLY) != 0; }

  SpinLock& lock() { return lock_; }
  DeviceState& device() { return device_; }
  const DeviceState& device() const { return device_; }

 private:
  uint32_t magic_;
  hke_config config_;
  Platform platform_;
  Diag diag_;
  SpinLock lock_;
  DeviceState device_;
};

// Checks a configuration; reports the reason through its diag callback.
Status ValidateConfig(const hke_config* config);

}  // namespace hke

// The public opaque type is the C++ context itself.
struct hke_context {
  hke::Context impl;
};

#endif  // HKE_LIB_CONTEXT_CONTEXT_H_
