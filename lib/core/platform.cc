#include "lib/core/platform.h"

#include <cstddef>

#include "lib/core/errno.h"

namespace hke {
namespace {

Status FromRc(int rc) { return rc == 0 ? Status::Ok() : Status::Errno(rc); }

}  // namespace

// An operation is usable when the port's table is long enough to contain it
// (tables from older ports are shorter) and the pointer is set.
#define HKE_HAS_OP(table, op)                                                      \
  ((table).ops != nullptr &&                                                       \
   (table).ops->struct_size >= offsetof(hke_platform_ops, op) + sizeof((table).ops->op) && \
   (table).ops->op != nullptr)

Platform::Platform(hke_platform p, uint32_t ioctl_retries)
    : p_(p), ioctl_retries_(ioctl_retries != 0 ? ioctl_retries : kDefaultIoctlRetries) {
  if (HKE_HAS_OP(p_, ioctl)) ioctl_ = p_.ops->ioctl;
  if (HKE_HAS_OP(p_, process_id)) process_id_ = p_.ops->process_id;
}

bool Platform::Valid(const hke_platform& p) {
  return p.ops != nullptr && p.ops->abi_version == HKE_PLATFORM_ABI_VERSION &&
         HKE_HAS_OP(p, open) && HKE_HAS_OP(p, close) && HKE_HAS_OP(p, ioctl) &&
         HKE_HAS_OP(p, read_file);
}

Status Platform::Open(const char* path, uint32_t flags, int* out_fd) const {
  if (!HKE_HAS_OP(p_, open)) return Unsupported();
  int fd = -1;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->open(p_.self, path, flags | HKE_OPEN_CLOEXEC, &fd)));
  *out_fd = fd;
  return Status::Ok();
}

Status Platform::Close(int* fd) const {
  if (fd == nullptr || *fd < 0) return Status::Ok();
  const int value = *fd;
  *fd = -1;
  if (!HKE_HAS_OP(p_, close)) return Unsupported();
  return FromRc(p_.ops->close(p_.self, value));
}

Status Platform::Ioctl(int fd, uint32_t request, void* arg) const {
  if (ioctl_ == nullptr) return Unsupported();
  int rc = 0;
  for (uint32_t attempt = 0;; ++attempt) {
    rc = ioctl_(p_.self, fd, request, arg);
    if (rc != err::kEINTR && rc != err::kEAGAIN) break;
    if (attempt >= ioctl_retries_) break;
  }
  return FromRc(rc);
}

Status Platform::Mmap(void* addr, size_t length, uint32_t prot, uint32_t flags, int fd,
                      uint64_t offset, void** out_addr) const {
  if (!HKE_HAS_OP(p_, mmap)) return Unsupported();
  void* r = nullptr;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->mmap(p_.self, addr, length, prot, flags, fd, offset, &r)));
  *out_addr = r;
  return Status::Ok();
}

Status Platform::Munmap(void* addr, size_t length) const {
  if (!HKE_HAS_OP(p_, munmap)) return Unsupported();
  return FromRc(p_.ops->munmap(p_.self, addr, length));
}

Status Platform::Madvise(void* addr, size_t length, uint32_t advice) const {
  if (!HKE_HAS_OP(p_, madvise)) return Unsupported();
  return FromRc(p_.ops->madvise(p_.self, addr, length, advice));
}

Status Platform::ReadFile(const char* path, char* buf, size_t capacity, size_t* out_length) const {
  if (!HKE_HAS_OP(p_, read_file)) return Unsupported();
  size_t n = 0;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->read_file(p_.self, path, buf, capacity, &n)));
  if (n > capacity) return Protocol();  // a platform that overran the buffer
  *out_length = n;
  return Status::Ok();
}

bool Platform::HasReadFileAt() const { return HKE_HAS_OP(p_, read_file_at); }

Status Platform::ReadFileAt(int dirfd, const char* name, char* buf, size_t capacity,
                            size_t* out_length) const {
  if (!HasReadFileAt()) return Unsupported();
  size_t n = 0;
  HKE_RETURN_IF_ERROR(
      FromRc(p_.ops->read_file_at(p_.self, dirfd, name, buf, capacity, &n)));
  if (n > capacity) return Protocol();  // a platform that overran the buffer
  *out_length = n;
  return Status::Ok();
}

Status Platform::ListDir(const char* path, hke_dirent_fn fn, void* user) const {
  if (!HKE_HAS_OP(p_, list_dir)) return Unsupported();
  return FromRc(p_.ops->list_dir(p_.self, path, fn, user));
}

bool Platform::HasListDirFd() const { return HKE_HAS_OP(p_, list_dir_fd); }

Status Platform::ListDirFd(int dirfd, hke_dirent_fn fn, void* user) const {
  if (!HasListDirFd()) return Unsupported();
  return FromRc(p_.ops->list_dir_fd(p_.self, dirfd, fn, user));
}

Status Platform::ClockNs(uint32_t clock, uint64_t* out_ns) const {
  if (!HKE_HAS_OP(p_, clock_ns)) return Unsupported();
  uint64_t v = 0;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->clock_ns(p_.self, clock, &v)));
  *out_ns = v;
  return Status::Ok();
}

Status Platform::CpuCount(uint32_t* out_count) const {
  if (!HKE_HAS_OP(p_, cpu_count)) return Unsupported();
  uint32_t v = 0;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->cpu_count(p_.self, &v)));
  *out_count = v;
  return Status::Ok();
}

Status Platform::ProcessId(int32_t* out_pid) const {
  if (process_id_ == nullptr) return Unsupported();
  int32_t v = 0;
  HKE_RETURN_IF_ERROR(FromRc(process_id_(p_.self, &v)));
  *out_pid = v;
  return Status::Ok();
}

Status Platform::ReadFd(int fd, void* buf, size_t capacity, size_t* out_length) const {
  if (!HKE_HAS_OP(p_, read_fd)) return Unsupported();
  size_t n = 0;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->read_fd(p_.self, fd, buf, capacity, &n)));
  if (n > capacity) return Protocol();
  *out_length = n;
  return Status::Ok();
}

Status Platform::PageSize(size_t* out_size) const {
  size_t v = 4096;
  if (HKE_HAS_OP(p_, page_size)) {
    HKE_RETURN_IF_ERROR(FromRc(p_.ops->page_size(p_.self, &v)));
    if (v == 0 || (v & (v - 1)) != 0) return Protocol();
  }
  *out_size = v;
  return Status::Ok();
}

Status Platform::AmdgpuDevice(int render_fd, void** out_handle) const {
  if (!HKE_HAS_OP(p_, amdgpu_device) || !HKE_HAS_OP(p_, amdgpu_device_release)) {
    return Unsupported();
  }
  void* h = nullptr;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->amdgpu_device(p_.self, render_fd, &h)));
  if (h == nullptr) return Protocol();
  *out_handle = h;
  return Status::Ok();
}

void Platform::AmdgpuDeviceRelease(void* handle) const {
  if (handle == nullptr || !HKE_HAS_OP(p_, amdgpu_device_release)) return;
  p_.ops->amdgpu_device_release(p_.self, handle);
}

bool Platform::HasPerf() const {
  return HKE_HAS_OP(p_, perf_open) && HKE_HAS_OP(p_, perf_enable) && HKE_HAS_OP(p_, perf_read);
}

Status Platform::PerfOpen(uint32_t type, uint64_t config, int* out_fd) const {
  if (!HasPerf()) return Unsupported();
  int fd = -1;
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->perf_open(p_.self, type, config, &fd)));
  if (fd < 0) return Protocol();
  *out_fd = fd;
  return Status::Ok();
}

Status Platform::PerfEnable(int fd, bool enable) const {
  if (!HasPerf()) return Unsupported();
  return FromRc(p_.ops->perf_enable(p_.self, fd, enable ? 1u : 0u));
}

Status Platform::PerfRead(int fd, uint64_t out_values[3]) const {
  if (!HasPerf()) return Unsupported();
  uint64_t v[3] = {0, 0, 0};
  HKE_RETURN_IF_ERROR(FromRc(p_.ops->perf_read(p_.self, fd, v)));
  out_values[0] = v[0];
  out_values[1] = v[1];
  out_values[2] = v[2];
  return Status::Ok();
}

bool Platform::HasMemPolicy() const { return HKE_HAS_OP(p_, mem_policy); }

Status Platform::MemPolicy(void* addr, size_t length, uint32_t mode, uint32_t node) const {
  if (!HasMemPolicy()) return Unsupported();
  return FromRc(p_.ops->mem_policy(p_.self, addr, length, mode, node));
}

}  // namespace hke
