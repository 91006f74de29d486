// kfdsim_board_gpus: prints what a simulated board contains, in a form the
// preload test scripts parse. The expectations of those tests (how many GPU
// agents, which gfx names) come from here, i.e. from the same board loader
// the preload uses, never from counts written into the scripts.
//
//   kfdsim_board_gpus <tree-dir | built-in board name>
// An argument containing '/' is a captured tree (a missing one is an
// error, never a fallback to a board name).
//
// Output (stdout), one record per line:
//   board name=<name> nodes=<node_count> gpus=<gpu_count> cpus=<cpu_count>
//   gpu node=<node_id> gfx=<gfxNNN> version=<gfx_target_version> apu=<0|1>
// followed by the loader's human-readable DescribeBoard report on stderr.
// Exit status: 0 on success, 1 when the board cannot be loaded.
#include <cstdio>
#include <string>

#include "platform/sim/board.h"
#include "platform/sim/topology/report.h"

namespace {

// gfx_target_version is decimal MMmmss; the ISA name writes major in
// decimal, then minor and stepping as one hex digit each (90010 -> gfx90a).
std::string GfxName(uint32_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "gfx%u%x%x", v / 10000, (v / 100) % 100, v % 100);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <tree-dir | board-name>\n", argv[0]);
    return 2;
  }
  const std::string arg = argv[1];
  const bool is_tree = arg.find('/') != std::string::npos;
  kfdsim::Board board;
  std::string error;
  const kfdsim::LoadOptions options;
  const int r = is_tree ? kfdsim::LoadTreeBoard(arg, options, &board, &error)
                        : kfdsim::LoadBuiltinBoard(arg, options, &board, &error);
  if (r != 0) {
    std::fprintf(stderr, "kfdsim_board_gpus: cannot load %s: %s (errno %d)\n", arg.c_str(),
                 error.c_str(), r);
    return 1;
  }
  const kfdsim::BoardDesc& d = board.desc;
  std::printf("board name=%s nodes=%u gpus=%zu cpus=%u\n", d.name.c_str(), d.node_count,
              d.gpus.size(), d.cpu_count);
  for (const kfdsim::GpuDesc& g : d.gpus) {
    std::printf("gpu node=%u gfx=%s version=%u apu=%d\n", g.node_id,
                GfxName(g.gfx_target_version).c_str(), g.gfx_target_version, g.is_apu ? 1 : 0);
  }
  std::fputs(kfdsim::DescribeBoard(board).c_str(), stderr);
  return 0;
}
