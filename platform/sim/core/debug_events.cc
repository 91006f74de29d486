// kfdsim debug events: the exception status DBG_TRAP reports and the
// debugger's event descriptor (kfd_debug.c: kfd_dbg_trap_enable's
// dbg_ev_file, kfd_dbg_ev_raise, kfd_dbg_ev_query_debug_event).
//
// Kernel facts followed:
//  - ENABLE takes any open file as the event descriptor (fget: EBADF only
//    when the number is not open) and holds it until DISABLE (fput), so the
//    debugger may close its own number. Here the descriptor is dup'ed; a
//    simulated device file (the thunks pass their /dev/kfd descriptor) is
//    not kept: the kernel's write to /dev/kfd fails (no write method), and
//    writing into the simulator's memfd would corrupt it.
//  - A raise sets the code's bit on the queue (by queue id), the GPU or the
//    process, then writes one byte ('.') to the descriptor, at offset 0,
//    when the debugger's exception mask has one of the raised bits
//    (kernel_write with pos 0: a regular file gets byte 0 overwritten, a
//    FIFO or socket gets one more byte).
//  - Raised here: EC_QUEUE_NEW on CREATE_QUEUE, EC_PROCESS_RUNTIME on
//    RUNTIME_ENABLE and its disable while debugging, a queue's error code
//    when an engine stops it (the debugger, when subscribed, is told
//    instead of the runtime), and SET_EXCEPTIONS_ENABLED writes when a
//    status already raised matches the new mask.
//  - QUERY_DEBUG_EVENT reports the first queue, then device, then process
//    with a subscribed status (the whole status returned, the asked bits
//    cleared), EAGAIN when none. DISABLE clears every status.
//
// Deviations: the kernel may block the raiser on a full FIFO; here the
// byte is dropped when the descriptor is not writable (poll, no wait),
// and the status bits still record the event. RUNTIME_ENABLE/disable do
// not wait for the debugger's SEND_RUNTIME_EVENT (there is no debugger
// process to answer).
//
// Threading: everything under proc_mu_ (the kernel's event_mutex).
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/sim/core/simulator.h"

namespace kfdsim {

namespace k = hke::kfd;

bool Simulator::IsSimulatedDeviceFd(int fd) {
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) return false;
  const FileKey key{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  std::lock_guard<std::mutex> dl(dev_mu_);
  return files_.count(key) != 0;
}

int Simulator::DebugEventFdTakeLocked(int dbg_fd, bool simulated_device) {
  if (simulated_device) return 0;
  const int dup = fcntl(dbg_fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return errno == EBADF ? EBADF : errno;
  debug_event_fd_ = dup;
  return 0;
}

void Simulator::DebugEventsResetLocked() {
  if (debug_event_fd_ >= 0) close(debug_event_fd_);
  debug_event_fd_ = -1;
  process_exception_status_ = 0;
  device_exception_status_.assign(board_.desc.gpus.size(), 0);
  for (auto& [id, q] : queues_) {
    (void)id;
    q.exception_status = 0;
  }
}

void Simulator::DebugEventNotifyLocked() {
  if (debug_event_fd_ < 0) return;
  pollfd p{};
  p.fd = debug_event_fd_;
  p.events = POLLOUT;
  if (poll(&p, 1, 0) != 1 || (p.revents & POLLOUT) == 0) return;
  static const char kByte = '.';
  if (pwrite(debug_event_fd_, &kByte, 1, 0) < 0 && errno == ESPIPE) {
    (void)!write(debug_event_fd_, &kByte, 1);
  }
}

bool Simulator::DebugEventRaiseLocked(uint64_t mask, int gpu, uint32_t queue_id) {
  if (!debug_trap_enabled_) return false;
  if (device_exception_status_.size() != board_.desc.gpus.size()) {
    device_exception_status_.assign(board_.desc.gpus.size(), 0);
  }
  if (mask & k::kEcMaskDevice) {
    if (gpu >= 0 && static_cast<size_t>(gpu) < device_exception_status_.size()) {
      device_exception_status_[static_cast<size_t>(gpu)] |= mask & k::kEcMaskDevice;
    }
  } else if (mask & k::kEcMaskProcess) {
    process_exception_status_ |= mask & k::kEcMaskProcess;
  } else {
    auto it = queues_.find(queue_id);
    if (it != queues_.end() && it->second.gpu == gpu) it->second.exception_status |= mask;
  }
  if ((debug_exception_mask_ & mask) == 0) return false;
  DebugEventNotifyLocked();
  return true;
}

}  // namespace kfdsim
