// hsakmt-embedded Linux platform: hke_platform_ops implemented with plain libc calls
// (open, close, ioctl, mmap, ...), never raw syscall(), so that an
// LD_PRELOAD simulator can serve an unmodified build.
//
// The table is stateless: `self` is unused and may be NULL, and every
// operation is thread-safe as far as the underlying libc call is.
#ifndef HSAKMT_HSAKMT_LINUX_H_
#define HSAKMT_HSAKMT_LINUX_H_

#include "hsakmt/hsakmt_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

// The Linux operations table (static storage, never NULL).
const hke_platform_ops* hke_linux_platform_ops(void);

// A ready hke_platform for the Linux table.
hke_platform hke_linux_platform(void);

// True when the backend was built with libdrm (amdgpu device handles).
int hke_linux_platform_has_libdrm(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HSAKMT_HSAKMT_LINUX_H_
