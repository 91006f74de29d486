// The locks of a context: a mutex from the platform table when the port
// offers one, a spin lock otherwise, each with a rank that fixes the order
// in which one thread may take them.
//
// Mutex: the platform's mutex operations (hsakmt_platform.h, mutex_*) over
// storage inside the lock: a Linux futex mutex in the Linux backend, a
// board's RTOS mutex (with priority inheritance, if the board wants it) in
// a port. A thread that waits sleeps, so a holder that blocks in the
// kernel (the memory lock is held across ALLOC/MAP ioctls, every lock
// across the diagnostics callback) costs the waiter no CPU. Without the
// operations, or when mutex_init fails, the lock spins: correct, but a
// waiter then burns its CPU for as long as the holder takes.
//
// SpinLock: for sections that make no call at all (no platform operation,
// no callback); waits are bounded by the few instructions inside.
//
// Ranks: a thread holding a lock of rank r may take only locks of higher
// rank; lib/README.md ("Locks") gives the ranks of a context's locks. Debug
// builds (no NDEBUG) check it on every acquisition, per thread, and trap on
// a violation, so a test that takes two locks the wrong way round fails at
// once instead of deadlocking one run in a thousand. Release builds carry no
// rank check.
//
// Threading: lock/unlock from any thread; Init before the lock is shared,
// Destroy after the last use. Not recursive. Not movable once initialised
// (a platform mutex may not move).
#ifndef HKE_LIB_CORE_LOCK_H_
#define HKE_LIB_CORE_LOCK_H_

#include <atomic>
#include <cstdint>

#include "hsakmt/hsakmt_platform.h"
#include "lib/core/status.h"

namespace hke {

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

// Lock ranks (the order of acquisition). Locks of equal rank are never
// held together by one thread.
enum class LockRank : uint8_t {
  kQueues = 1,
  kEventsSetup = 2,
  kTopology = 3,
  kMemory = 4,
  kEvents = 5,
  kDevice = 6,
  kLeaf = 7,  // debug, profile, pmc: nothing is taken while one is held
};

class Mutex {
 public:
  explicit Mutex(LockRank rank) : rank_(rank) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  // Uses `p`'s mutex operations when it has all four and mutex_init
  // succeeds; spins otherwise.
  void Init(const hke_platform& p);
  // Ends the platform mutex (mutex_destroy); the lock spins afterwards.
  void Destroy();

  // Inline: a lock is taken on every call's fast path, so the only call
  // left is the platform's own (or none, spinning).
  inline void lock();
  inline void unlock();

  // True when the lock sleeps (a platform mutex), false when it spins.
  bool sleeps() const { return ops_ != nullptr; }
  LockRank rank() const { return rank_; }

 private:
  const hke_platform_ops* ops_ = nullptr;  // non-null: platform mutex in storage_
  void* self_ = nullptr;
  SpinLock spin_;
  LockRank rank_;
  alignas(8) unsigned char storage_[HKE_PLATFORM_MUTEX_BYTES];
};

// Holds a lock for one scope: `Enter` on construction, `Leave` at scope
// exit (lock/unlock unless named, as OpenGate's shared side does).
template <typename L, void (L::*Enter)() = &L::lock, void (L::*Leave)() = &L::unlock>
class BasicLockGuard {
 public:
  explicit BasicLockGuard(L& l) : l_(l) { (l_.*Enter)(); }
  ~BasicLockGuard() { (l_.*Leave)(); }
  BasicLockGuard(const BasicLockGuard&) = delete;
  BasicLockGuard& operator=(const BasicLockGuard&) = delete;

 private:
  L& l_;
};

// The per-thread rank check of debug builds (lib/README.md "Locks"); no
// code in release builds. lock.h is internal to lib/: every translation
// unit that includes it is built with the library's NDEBUG setting (the
// in-tree targets are), or lock() and unlock() would differ between them.
#ifndef NDEBUG
void NoteLockAcquired(LockRank rank);
void NoteLockReleased(LockRank rank);
#else
inline void NoteLockAcquired(LockRank) {}
inline void NoteLockReleased(LockRank) {}
#endif

void Mutex::lock() {
  NoteLockAcquired(rank_);
  if (ops_ != nullptr) {
    ops_->mutex_lock(self_, storage_);
  } else {
    spin_.lock();
  }
}

void Mutex::unlock() {
  if (ops_ != nullptr) {
    ops_->mutex_unlock(self_, storage_);
  } else {
    spin_.unlock();
  }
  NoteLockReleased(rank_);
}

using LockGuard = BasicLockGuard<Mutex>;
using SpinGuard = BasicLockGuard<SpinLock>;

// Publishes to *out what `read` returns when run with `lock` held (a
// consistent snapshot of the state the lock guards); INVALID_ARGUMENT,
// with nothing read, for a null out.
template <typename T, typename L, typename Read>
Status ReadLocked(L& lock, T* out, Read read) {
  if (out == nullptr) return InvalidArgument();
  BasicLockGuard<L> g(lock);
  *out = read();
  return Status::Ok();
}

}  // namespace hke

#endif  // HKE_LIB_CORE_LOCK_H_
