// What every lib/api source shares: the default context the hsaKmt*
// functions run on, the status of a call the context cannot serve, the
// status of a kernel call, and a pointer as the u64 the KFD ABI carries.
#ifndef HKE_LIB_API_ENTRY_H_
#define HKE_LIB_API_ENTRY_H_

#include <cstdint>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/status.h"

namespace hke::api {

// The default context (static storage), or null when it cannot be used.
inline Context* Default() {
  hke_context* c = hke_default_context();
  return c != nullptr ? &c->impl : nullptr;
}

// What an entry point returns when there is no usable default context.
inline constexpr HSAKMT_STATUS kNoContext = HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;

// A call whose kernel refusal upstream reports as ERROR: any errno is
// ERROR (the errno itself reaches the diagnostics callback); the library's
// own reasons map as ToHsakmt says.
inline HSAKMT_STATUS KernelCallStatus(Status s) {
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_ERROR;
  return ToHsakmt(s);
}

inline uint64_t Addr(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

}  // namespace hke::api

#endif  // HKE_LIB_API_ENTRY_H_
