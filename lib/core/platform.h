// The library's view of the platform table: every call returns a Status
// that keeps the errno, checks for missing optional operations, and applies
// the context's bounded retry policy to ioctls interrupted by EINTR/EAGAIN.
//
// Holds no state beyond the table (and the two operations of every call's
// fast path, resolved from it at construction); thread safety is the
// table's own.
#ifndef HKE_LIB_CORE_PLATFORM_H_
#define HKE_LIB_CORE_PLATFORM_H_

#include <cstddef>
#include <cstdint>

#include "hsakmt/hsakmt_platform.h"
#include "lib/core/status.h"

namespace hke {

class Platform {
 public:
  static constexpr uint32_t kDefaultIoctlRetries = 16;

  Platform() = default;
  Platform(hke_platform p, uint32_t ioctl_retries);

  // True when the table has the required operations and a known layout.
  static bool Valid(const hke_platform& p);

  Status Open(const char* path, uint32_t flags, int* out_fd) const;
  // Closes `*fd` and sets it to -1 first, so a failed close can never lead
  // to closing a reused descriptor number later.
  Status Close(int* fd) const;
  // Retries EINTR and EAGAIN at most ioctl_retries times, then returns the
  // last error. Each attempt passes the same argument buffer.
  Status Ioctl(int fd, uint32_t request, void* arg) const;
  Status Mmap(void* addr, size_t length, uint32_t prot, uint32_t flags, int fd, uint64_t offset,
              void** out_addr) const;
  Status Munmap(void* addr, size_t length) const;
  Status Madvise(void* addr, size_t length, uint32_t advice) const;
  Status ReadFile(const char* path, char* buf, size_t capacity, size_t* out_length) const;
  // read_file_at: `name` relative to a directory descriptor from
  // Open(..., HKE_OPEN_DIRECTORY). UNSUPPORTED without the operation
  // (HasReadFileAt false: the caller reads by absolute path instead).
  bool HasReadFileAt() const;
  Status ReadFileAt(int dirfd, const char* name, char* buf, size_t capacity,
                    size_t* out_length) const;
  Status ListDir(const char* path, hke_dirent_fn fn, void* user) const;
  // list_dir_fd: lists the directory open on a descriptor from
  // Open(..., HKE_OPEN_DIRECTORY), opening nothing. UNSUPPORTED without
  // the operation (HasListDirFd false: the caller lists by path instead).
  bool HasListDirFd() const;
  Status ListDirFd(int dirfd, hke_dirent_fn fn, void* user) const;
  Status ClockNs(uint32_t clock, uint64_t* out_ns) const;
  Status CpuCount(uint32_t* out_count) const;
  Status ProcessId(int32_t* out_pid) const;
  // ProcessId for every call's fork check: false when the table has no
  // process_id or it fails. Inline: the check runs on every call.
  bool CurrentPid(int32_t* out_pid) const {
    return process_id_ != nullptr && process_id_(p_.self, out_pid) == 0;
  }
  Status ReadFd(int fd, void* buf, size_t capacity, size_t* out_length) const;
  Status PageSize(size_t* out_size) const;
  // The libdrm device of a render-node descriptor; UNSUPPORTED without the
  // operation. Release is a no-op for a NULL handle.
  Status AmdgpuDevice(int render_fd, void** out_handle) const;
  void AmdgpuDeviceRelease(void* handle) const;
  // Host perf_event counters (the three perf_* operations); UNSUPPORTED
  // unless the table has all three.
  bool HasPerf() const;
  Status PerfOpen(uint32_t type, uint64_t config, int* out_fd) const;
  Status PerfEnable(int fd, bool enable) const;
  // {count, time enabled, time running}, written only on success.
  Status PerfRead(int fd, uint64_t out_values[3]) const;
  // NUMA memory policy of a mapped range (HKE_MPOL_*); UNSUPPORTED without
  // the operation.
  bool HasMemPolicy() const;
  Status MemPolicy(void* addr, size_t length, uint32_t mode, uint32_t node) const;

  uint32_t ioctl_retries() const { return ioctl_retries_; }
  const hke_platform& raw() const { return p_; }

 private:
  hke_platform p_{nullptr, nullptr};
  uint32_t ioctl_retries_ = kDefaultIoctlRetries;
  // The operations every call's fast path makes, resolved once from the
  // table (null when it has none), so those calls skip the layout check.
  decltype(hke_platform_ops::ioctl) ioctl_ = nullptr;
  decltype(hke_platform_ops::process_id) process_id_ = nullptr;
};

}  // namespace hke

#endif  // HKE_LIB_CORE_PLATFORM_H_
