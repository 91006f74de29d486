// The open gate of a context: what keeps opening and closing apart from
// every other call.
//
// Contract:
//  - Every public call that uses the open device (memory, events, queues,
//    topology, node, debugger, profiling, counters) runs inside a shared
//    hold, taken by the API layer (lib/api) before the call looks at any
//    state and released when it returns. Calls inside the library never take
//    the gate; they run under their caller's hold.
//  - Open and close (OpenReference / CloseReference, context teardown) hold
//    it exclusively: they wait until no call is inside, and calls that
//    arrive meanwhile wait until they are done. So a call sees one open
//    epoch from start to end: the VM bring-up, the events page and the
//    doorbells it makes belong to the open the last close will tear down,
//    and the device fields Open writes (version, descriptor, process id)
//    are read by calls only after Open published them.
//  - A blocking wait (WAIT_EVENTS) leaves the gate for the time it spends
//    in the kernel (LeaveShared/EnterShared around the call), so a close
//    never waits for a waiter; the waiter re-checks its events afterwards.
//  - Writers go first: once one waits, new calls wait too, so a close is
//    not starved by a steady stream of calls. A shared hold is therefore
//    never taken inside another one (no nesting), which the API layer
//    guarantees by taking it only at the entry points.
//
// Waiting spins, unlike the subsystems' locks (lib/core/lock.h), which
// sleep on a platform mutex when the table has one; holders of the
// exclusive side make kernel calls, so a waiting call can spin for as long
// as an open or close takes.
//
// Fork: a child has only the thread that forked, which is not inside a
// call, so any holds the child inherited belong to threads that do not
// exist there. EnterExclusive in a process other than the one that last
// held the gate (see `owner_pid`) starts from an empty gate.
#ifndef HKE_LIB_CONTEXT_OPEN_GATE_H_
#define HKE_LIB_CONTEXT_OPEN_GATE_H_

#include <atomic>
#include <cstdint>

#include "lib/core/lock.h"

namespace hke {

class OpenGate {
 public:
  void EnterShared() {
    for (;;) {
      uint32_t s = state_.load(std::memory_order_relaxed);
      if ((s & kWriter) == 0 &&
          state_.compare_exchange_weak(s, s + 1, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
        return;
      }
    }
  }
  void LeaveShared() { state_.fetch_sub(1, std::memory_order_release); }

  // `pid` is the calling process's id (0 when the platform has none).
  void EnterExclusive(int32_t pid) {
    const int32_t owner = owner_pid_.load(std::memory_order_relaxed);
    if (pid != 0 && owner != 0 && owner != pid) state_.store(0, std::memory_order_relaxed);
    for (;;) {
      uint32_t s = state_.load(std::memory_order_relaxed);
      if ((s & kWriter) == 0 &&
          state_.compare_exchange_weak(s, s | kWriter, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
        break;
      }
    }
    while ((state_.load(std::memory_order_acquire) & ~kWriter) != 0) {
    }
    if (pid != 0) owner_pid_.store(pid, std::memory_order_relaxed);
  }
  void LeaveExclusive() { state_.fetch_and(~kWriter, std::memory_order_release); }

  // True while some call holds the gate (shared or exclusive): the check
  // every device call makes (device::CheckOpen) that it was reached through
  // an entry point.
  bool Held() const { return state_.load(std::memory_order_relaxed) != 0; }

 private:
  static constexpr uint32_t kWriter = 0x80000000u;
  std::atomic<uint32_t> state_{0};  // kWriter | number of shared holds
  std::atomic<int32_t> owner_pid_{0};
};

// A shared hold for the scope of one call.
using SharedGate = BasicLockGuard<OpenGate, &OpenGate::EnterShared, &OpenGate::LeaveShared>;

}  // namespace hke

#endif  // HKE_LIB_CONTEXT_OPEN_GATE_H_
