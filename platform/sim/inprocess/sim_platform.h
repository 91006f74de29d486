// The in-process simulator backend: an hke_platform whose operations call a
// kfdsim_t directly (no LD_PRELOAD), so the library runs on a simulated
// board inside tests, tools and sanitizer builds.
//
// Devices (/dev/kfd, render nodes) and every path the board owns are served
// by the simulator; anonymous mappings and descriptors the simulator does
// not own go to the host (so the library's own anonymous mmaps work).
// Paths the board does not own fail with ENOENT: nothing of the host's
// /sys or /proc leaks in.
//
// Ownership: the caller owns the kfdsim_t; it must outlive every context
// using the platform. Thread-safe as kfdsim is.
#ifndef HKE_PLATFORM_SIM_INPROCESS_SIM_PLATFORM_H_
#define HKE_PLATFORM_SIM_INPROCESS_SIM_PLATFORM_H_

#include "hsakmt/hsakmt_platform.h"
#include "platform/sim/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

// A platform bound to `sim` (self = sim).
hke_platform hke_sim_platform(kfdsim_t* sim);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HKE_PLATFORM_SIM_INPROCESS_SIM_PLATFORM_H_
