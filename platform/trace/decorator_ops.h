// Internal to the trace and faults decorators (C++ only): reading an inner
// operations table that may come from an older port.
//
// A port compiled against an older hsakmt_platform.h has a smaller
// `struct_size`; an operation that lies beyond it is treated as NULL, so
// the decorator neither reads past the port's table nor offers the
// operation itself.
#ifndef HKE_PLATFORM_TRACE_DECORATOR_OPS_H_
#define HKE_PLATFORM_TRACE_DECORATOR_OPS_H_

#include <cstddef>

#include "hsakmt/hsakmt_platform.h"

namespace hke::platform {

// Copy of `inner` with every operation the port does not provide set to
// NULL, and struct_size/abi_version set to this build's values. False when
// `inner` is NULL or lacks one of the required operations (open, close,
// ioctl, read_file); `*out` is then untouched.
inline bool NormalizeInnerOps(const hke_platform_ops* inner, hke_platform_ops* out) {
  if (inner == nullptr) return false;
  hke_platform_ops ops{};
  const size_t have = inner->struct_size;
#define HKE_COPY_OP_(member)                                                         \
  if (offsetof(hke_platform_ops, member) + sizeof(inner->member) <= have) {          \
    ops.member = inner->member;                                                      \
  }
  HKE_COPY_OP_(open)
  HKE_COPY_OP_(close)
  HKE_COPY_OP_(ioctl)
  HKE_COPY_OP_(mmap)
  HKE_COPY_OP_(munmap)
  HKE_COPY_OP_(madvise)
  HKE_COPY_OP_(read_file)
  HKE_COPY_OP_(list_dir)
  HKE_COPY_OP_(clock_ns)
  HKE_COPY_OP_(cpu_count)
  HKE_COPY_OP_(process_id)
  HKE_COPY_OP_(read_fd)
  HKE_COPY_OP_(page_size)
  HKE_COPY_OP_(marketing_name)
  HKE_COPY_OP_(amdgpu_device)
  HKE_COPY_OP_(amdgpu_device_release)
  HKE_COPY_OP_(perf_open)
  HKE_COPY_OP_(perf_enable)
  HKE_COPY_OP_(perf_read)
  HKE_COPY_OP_(mem_policy)
  HKE_COPY_OP_(mutex_init)
  HKE_COPY_OP_(mutex_lock)
  HKE_COPY_OP_(mutex_unlock)
  HKE_COPY_OP_(mutex_destroy)
  HKE_COPY_OP_(read_file_at)
  HKE_COPY_OP_(list_dir_fd)
#undef HKE_COPY_OP_
  if (ops.open == nullptr || ops.close == nullptr || ops.ioctl == nullptr ||
      ops.read_file == nullptr) {
    return false;
  }
  // A device handle that cannot be released is not offered.
  if (ops.amdgpu_device_release == nullptr) ops.amdgpu_device = nullptr;
  // perf counters come as all three operations or none.
  if (ops.perf_open == nullptr || ops.perf_enable == nullptr || ops.perf_read == nullptr) {
    ops.perf_open = nullptr;
    ops.perf_enable = nullptr;
    ops.perf_read = nullptr;
  }
  // mutexes come as all four operations or none.
  if (ops.mutex_init == nullptr || ops.mutex_lock == nullptr || ops.mutex_unlock == nullptr ||
      ops.mutex_destroy == nullptr) {
    ops.mutex_init = nullptr;
    ops.mutex_lock = nullptr;
    ops.mutex_unlock = nullptr;
    ops.mutex_destroy = nullptr;
  }
  ops.struct_size = sizeof(hke_platform_ops);
  ops.abi_version = HKE_PLATFORM_ABI_VERSION;
  *out = ops;
  return true;
}

// The table a decorator publishes: its own operation for every operation
// the (normalised) inner table has, NULL where the inner one is NULL, so a
// missing operation stays missing through any stack of decorators.
inline hke_platform_ops DecoratedOps(const hke_platform_ops& own, const hke_platform_ops& inner) {
  hke_platform_ops ops = own;
  ops.struct_size = sizeof(hke_platform_ops);
  ops.abi_version = HKE_PLATFORM_ABI_VERSION;
#define HKE_MASK_OP_(member) \
  if (inner.member == nullptr) ops.member = nullptr;
  HKE_MASK_OP_(mmap)
  HKE_MASK_OP_(munmap)
  HKE_MASK_OP_(madvise)
  HKE_MASK_OP_(list_dir)
  HKE_MASK_OP_(clock_ns)
  HKE_MASK_OP_(cpu_count)
  HKE_MASK_OP_(process_id)
  HKE_MASK_OP_(read_fd)
  HKE_MASK_OP_(page_size)
  HKE_MASK_OP_(marketing_name)
  HKE_MASK_OP_(amdgpu_device)
  HKE_MASK_OP_(amdgpu_device_release)
  HKE_MASK_OP_(perf_open)
  HKE_MASK_OP_(perf_enable)
  HKE_MASK_OP_(perf_read)
  HKE_MASK_OP_(mem_policy)
  HKE_MASK_OP_(mutex_init)
  HKE_MASK_OP_(mutex_lock)
  HKE_MASK_OP_(mutex_unlock)
  HKE_MASK_OP_(mutex_destroy)
  HKE_MASK_OP_(read_file_at)
  HKE_MASK_OP_(list_dir_fd)
#undef HKE_MASK_OP_
  return ops;
}

// The mutex operations of a decorator: passed to the inner table as they
// are (neither traced nor faulted: a lock is not an OS request the library
// makes on a caller's behalf, and a failed lock has no status to report).
// `State` has inner_ops and inner_self; `Of` turns the decorator's self
// into it.
template <typename State, State* (*Of)(void*)>
struct ForwardMutexOps {
  static int Init(void* self, void* m) {
    State* s = Of(self);
    return s->inner_ops->mutex_init(s->inner_self, m);
  }
  static void Lock(void* self, void* m) {
    State* s = Of(self);
    s->inner_ops->mutex_lock(s->inner_self, m);
  }
  static void Unlock(void* self, void* m) {
    State* s = Of(self);
    s->inner_ops->mutex_unlock(s->inner_self, m);
  }
  static void Destroy(void* self, void* m) {
    State* s = Of(self);
    s->inner_ops->mutex_destroy(s->inner_self, m);
  }
};

}  // namespace hke::platform

#endif  // HKE_PLATFORM_TRACE_DECORATOR_OPS_H_
