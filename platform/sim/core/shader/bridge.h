// kfdsim shader cores: what a queue keeps for its kernels (internal to the
// simulator core; the packet engines hold one per queue that dispatched).
//
// Ownership and threading: owned by the Queue (QueueEngine::shader); used
// with the simulator's proc_mu_ held.
#ifndef HKE_PLATFORM_SIM_CORE_SHADER_BRIDGE_H_
#define HKE_PLATFORM_SIM_CORE_SHADER_BRIDGE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "platform/sim/core/shader/dispatch.h"

namespace kfdsim::shader {

// Host mappings of ranges of the GPUs' backing memfds that waves touched,
// kept across engine steps so a kernel does not fault its buffers in again
// every step. A mapping is a view of the file range, valid whatever BO owns
// the range now; an entry is used only while its descriptor still names the
// same file (inode). Bounded: the oldest mappings are dropped first.
class HostMapCache {
 public:
  HostMapCache() = default;
  ~HostMapCache();
  HostMapCache(const HostMapCache&) = delete;
  HostMapCache& operator=(const HostMapCache&) = delete;
  // The host address of [offset, offset + size) of `fd` (inode `ino`), or
  // null when it cannot be mapped (the caller falls back to pread/pwrite).
  uint8_t* Map(int fd, uint64_t ino, uint64_t offset, uint64_t size);

 private:
  struct Entry {
    int fd;
    uint64_t ino, offset, size;
    void* host;
  };
  std::vector<Entry> entries_;
  uint64_t mapped_ = 0;
};

struct QueueShaderState {
  // The dispatch in progress and the packet it belongs to (AQL: packet
  // index; PM4: ring dword of the DISPATCH_DIRECT).
  std::unique_ptr<Dispatch> dispatch;
  uint64_t packet = 0;
  // PM4: the compute SH registers SET_SH_REG wrote, by offset from 0x2e00
  // (COMPUTE_DISPATCH_INITIATOR) up to COMPUTE_USER_DATA_15 (0x2e4f).
  uint32_t sh[0x50] = {};
  // Wave-instructions executed by this queue's kernels so far.
  uint64_t wave_instructions = 0;
  HostMapCache maps;
};

// PM4 compute SH register offsets from 0x2e00.
enum : uint32_t {
  kShNumThreadX = 0x07,
  kShPgmLo = 0x0c,
  kShPgmHi = 0x0d,
  kShPgmRsrc1 = 0x12,
  kShPgmRsrc2 = 0x13,
  kShTmpringSize = 0x18,
  kShPgmRsrc3 = 0x28,
  kShUserData0 = 0x40,
};

}  // namespace kfdsim::shader

#endif  // HKE_PLATFORM_SIM_CORE_SHADER_BRIDGE_H_
