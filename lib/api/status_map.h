// Mapping from the library's Status to upstream's HSAKMT_STATUS for the
// hsaKmt* compatibility API. The full Status (with its errno) is reported
// through the diagnostics callback; HSAKMT_STATUS is what upstream callers
// can test.
#ifndef HKE_LIB_API_STATUS_MAP_H_
#define HKE_LIB_API_STATUS_MAP_H_

#include "hsakmt/hsakmt.h"
#include "lib/core/status.h"

namespace hke::api {

// The general mapping: API reasons to their HSAKMT_STATUS twin, ENOMEM to
// NO_MEMORY, EINVAL to INVALID_PARAMETER, EPERM/EOPNOTSUPP/ENOTTY to
// NOT_SUPPORTED, ENOSPC to OUT_OF_RESOURCES, EBUSY to UNAVAILABLE, any other
// errno to ERROR. "Not open" and "forked child" both become
// KERNEL_IO_CHANNEL_NOT_OPENED, as upstream reports them.
HSAKMT_STATUS ToHsakmt(Status s);

}  // namespace hke::api

#endif  // HKE_LIB_API_STATUS_MAP_H_
