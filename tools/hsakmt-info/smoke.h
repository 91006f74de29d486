// hsakmt-info --smoke: an SDMA copy through the public API on each GPU node
// (see smoke.cc). Runs on the default context, which must be open with the
// topology acquired. Single-threaded.
#ifndef HKE_TOOLS_HSAKMT_INFO_SMOKE_H_
#define HKE_TOOLS_HSAKMT_INFO_SMOKE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"

namespace hkeinfo {

struct SmokeResult {
  uint32_t node = 0;
  bool ok = false;
  uint64_t bytes = 0;         // copied and verified
  uint64_t microseconds = 0;  // doorbell to the event's wake-up
  std::string error;          // the failed step, when !ok
};

// One round trip per node, in order; a failure on one node does not stop
// the others.
std::vector<SmokeResult> RunSmoke(const std::vector<uint32_t>& gpu_nodes);

}  // namespace hkeinfo

#endif  // HKE_TOOLS_HSAKMT_INFO_SMOKE_H_
