// Human-readable summary of a loaded board (what a `--check` option prints):
// nodes, gpu_ids, render minors, gfx versions and every fill-in the loader
// made. Pure function of the Board; any thread.
#ifndef HKE_PLATFORM_SIM_TOPOLOGY_REPORT_H_
#define HKE_PLATFORM_SIM_TOPOLOGY_REPORT_H_

#include <string>

#include "platform/sim/board.h"

namespace kfdsim {

std::string DescribeBoard(const Board& board);

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_TOPOLOGY_REPORT_H_
