// What other subsystems need from the topology API layer (lib/api/topology.cc).
#ifndef HKE_LIB_API_TOPOLOGY_ACCESS_H_
#define HKE_LIB_API_TOPOLOGY_ACCESS_H_

#include "lib/context/context.h"
#include "lib/core/status.h"

namespace hke::api {

// Takes the topology lock, takes a snapshot when the context has none for
// the current open epoch (as hsaKmtAcquireSystemProperties would; the
// snapshot stays acquired), and brings the memory subsystem's VM up.
// Must be called without the topology and memory locks held.
Status EnsureTopologyAndVm(Context& ctx);

}  // namespace hke::api

#endif  // HKE_LIB_API_TOPOLOGY_ACCESS_H_
