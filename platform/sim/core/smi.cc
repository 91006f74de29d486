// kfdsim SMI events: SMI_EVENTS and the records the simulator sends.
//
// Decisions (kernel behaviour unless stated):
//  - SMI_EVENTS: unknown gpu -> EINVAL. The descriptor is one end of a Unix
//    stream socket pair (the kernel's is an anonymous inode); it is not
//    close-on-exec, as the kernel's is not.
//  - The owner selects events by writing a u64 mask (bit i-1 for event i);
//    each complete 8-byte write replaces the mask. The simulator reads the
//    writes when it next sends a record. The kernel's ALL_PROCESS bit
//    (events of other processes) makes no difference: there is one process.
//  - Records are "<event hex> <fields>\n" (kfd_smi_event_add). A client
//    whose socket buffer is full misses the record (the kernel drops it
//    when the client's fifo is full); a client that closed its end is
//    forgotten.
//  - Sent by the simulator: VMFAULT ("<pid hex>:<task name>") with every GPU
//    memory fault (InjectMemoryException, which the engines' faults go
//    through), GPU_PRE_RESET and GPU_POST_RESET ("<seq hex> <cause>", the
//    cause RAS_ERROR when the injected reset has a cause, else MODE_RESET)
//    with every injected HW exception; anything through kfdsim_smi_emit.
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

int Simulator::IocSmiEvents(IoctlCtx&, void* d) {
  auto* a = static_cast<k::SmiEventsArgs*>(d);
  if (GpuIndex(a->gpuid) < 0) return EINVAL;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return errno;
  fcntl(sv[0], F_SETFD, 0);  // the kernel's SMI fd is not close-on-exec
  std::lock_guard<std::mutex> sl(smi_mu_);
  SmiClient c;
  c.fd = sv[1];
  c.gpu_id = a->gpuid;
  smi_clients_.push_back(c);
  a->anon_fd = static_cast<uint32_t>(sv[0]);
  return 0;
}

void Simulator::SmiReadMasksLocked() {
  for (SmiClient& c : smi_clients_) {
    uint8_t buf[256];
    for (;;) {
      const ssize_t n = recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (n <= 0) break;
      for (ssize_t i = 0; i < n; ++i) {
        c.partial[c.partial_len++] = buf[i];
        if (c.partial_len == sizeof(c.partial)) {
          std::memcpy(&c.mask, c.partial, sizeof(c.mask));
          c.partial_len = 0;
        }
      }
    }
  }
}

void Simulator::SmiResetLocked() {
  for (SmiClient& c : smi_clients_) close(c.fd);
  smi_clients_.clear();
}

int Simulator::SmiEmit(uint32_t gpu_id, uint32_t event, const std::string& fields) {
  if (GpuIndex(gpu_id) < 0 || event == 0 || event >= 64) return -EINVAL;
  char head[16];
  std::snprintf(head, sizeof(head), "%x ", event);
  const std::string record = head + fields + "\n";
  std::lock_guard<std::mutex> sl(smi_mu_);
  SmiReadMasksLocked();
  int sent = 0;
  for (size_t i = 0; i < smi_clients_.size();) {
    SmiClient& c = smi_clients_[i];
    if (c.gpu_id != gpu_id || (c.mask & (1ull << (event - 1))) == 0) {
      ++i;
      continue;
    }
    const ssize_t n = send(c.fd, record.data(), record.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EPIPE) {
      close(c.fd);
      smi_clients_.erase(smi_clients_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (n == static_cast<ssize_t>(record.size())) ++sent;
    ++i;
  }
  return sent;
}

}  // namespace kfdsim
