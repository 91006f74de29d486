// Opening and closing a context's KFD connection, shared by hsaKmtOpenKFD /
// hsaKmtCloseKFD (the default context), hke_context_open / _close (any
// context) and the secondary-context slots (lib/api/secondary_contexts.cc).
#ifndef HKE_LIB_API_LIFECYCLE_H_
#define HKE_LIB_API_LIFECYCLE_H_

#include "lib/context/context.h"
#include "lib/core/status.h"

namespace hke::api {

// One reference-counted open; *out_already_open tells a later open from
// the first.
Status OpenReference(Context& ctx, bool* out_already_open);

// The secondary-context slot whose PMC trace tag is `tag` (1 + slot), when
// it is open; lib/api/secondary_contexts.cc installs it at its first open
// (so a program that never opens one links no slot), nullptr before.
using SecondaryOfTagFn = Context* (*)(uint32_t tag);
void InstallSecondaryOfTag(SecondaryOfTagFn fn);
Context* SecondaryOfTag(uint32_t tag);

// Drops one reference. The last one destroys every queue and event,
// releases every memory object and the MMIO pages while the descriptor
// still works, then closes /dev/kfd. Memory the kernel refuses to free
// keeps the device open: the close fails with that status and can be
// retried.
Status CloseReference(Context& ctx);

}  // namespace hke::api

#endif  // HKE_LIB_API_LIFECYCLE_H_
