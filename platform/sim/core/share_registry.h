// kfdsim share registry: the machine-wide table that lets a BO exported in
// one simulated process (an IPC share handle or a KFD dma-buf) be imported
// by another process of the same simulated machine.
//
// Meaning: one registry per machine, a file in /dev/shm named by the
// machine id (the board's name and GPU ids, and the user id). Each record
// (a "share") names one BO's storage: its 4 share words, the exporting
// gpu_id, the allocation flags, the size and the offset of the pages in the
// exporter's backing memfd, and the holders: every (process, simulator)
// that keeps the storage alive, with the descriptor number of that memfd in
// the holder's process. An importer opens /proc/<holder pid>/fd/<fd> (the
// same memfd, so the same pages) and becomes a holder itself; the pages
// are released when the last holder drops its hold (the kernel's rule: an
// imported BO keeps the memory after the exporter frees it). Holders whose
// process has ended are dropped at every scan (kill(pid, 0) == ESRCH).
//
// Ownership: a Registry is shared by every simulator of the process on the
// same machine (ForMachine). Threading: every call is thread-safe (a
// process mutex, held across fork by the simulators' fork handlers) and
// process-safe (flock on a descriptor each process opens for itself).
#ifndef HKE_PLATFORM_SIM_CORE_SHARE_REGISTRY_H_
#define HKE_PLATFORM_SIM_CORE_SHARE_REGISTRY_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace kfdsim {

using ShareKey = std::array<uint32_t, 4>;

struct ShareInfo {
  uint32_t gpu_id = 0;
  uint32_t flags = 0;        // allocation flags of the exported BO
  uint64_t size = 0;         // bytes (page multiple)
  uint64_t file_offset = 0;  // where the pages start in the backing memfd
};

class ShareRegistry {
 public:
  // The registry of `machine` (any string; hashed into the file name), or
  // null when the file cannot be opened or mapped.
  static std::shared_ptr<ShareRegistry> ForMachine(const std::string& machine);
  ~ShareRegistry();

  // A new share held by (this process, owner) through descriptor `fd`.
  // ENOSPC when the table is full.
  int Publish(const ShareInfo& info, int fd, uint64_t owner, ShareKey* key);
  // Describes a live share: 0 or EINVAL (unknown, or no holder left).
  int Lookup(const ShareKey& key, ShareInfo* info);
  // Becomes a holder of a live share: opens the pages' memfd through a
  // live holder (*fd, close-on-exec, owned by the caller). EINVAL when the
  // share is unknown or no holder's memfd can be opened; ENOSPC when the
  // share has no free holder slot.
  int Attach(const ShareKey& key, uint64_t owner, ShareInfo* info, int* fd);
  // Drops the hold of (this process, owner); returns the holders left
  // (0: the caller released the last one, or the share is gone).
  int Release(const ShareKey& key, uint64_t owner);
  // Whether the share still has a holder.
  bool Held(const ShareKey& key);
  // Drops every hold of (this process, owner) (a simulator going away).
  void ReleaseOwner(uint64_t owner);

  const std::string& path() const { return path_; }

  // The process mutex, for the simulators' fork handlers (fork.cc): taken
  // after every simulator lock, as registry calls nest inside proc_mu_.
  static void LockForFork();
  static void UnlockForFork();

  struct Table;

 private:
  ShareRegistry() = default;
  bool Lock();
  void Unlock();
  bool EnsureOpen();  // (re)opens the file in this process (after a fork)

  std::string path_;
  int fd_ = -1;
  int fd_pid_ = 0;
  Table* table_ = nullptr;
};

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_CORE_SHARE_REGISTRY_H_
