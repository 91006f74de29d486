// kfdsim_create: loads a board through the topology loaders
// (platform/sim/topology/) and wraps it. Kept apart from sim.cc so that
// users of WrapBoard do not need the loaders linked.
#include <errno.h>

#include <cstdio>
#include <string>

#include "platform/sim/core/simulator.h"
#include "platform/sim/sim.h"

extern "C" int kfdsim_create(const kfdsim_options* options, kfdsim_t** out, char* error,
                             size_t error_len) {
  auto fail = [&](int r, const std::string& msg) {
    if (error != nullptr && error_len != 0) std::snprintf(error, error_len, "%s", msg.c_str());
    return r;
  };
  if (options == nullptr || out == nullptr || options->struct_size < sizeof(kfdsim_options)) {
    return fail(EINVAL, "kfdsim_create: bad arguments");
  }
  kfdsim::LoadOptions load;
  if (options->kfd_minor != 0) load.kfd_minor = options->kfd_minor;
  load.cpu_count = options->cpu_count;
  if (options->amdgpu_params != nullptr) load.amdgpu_params = options->amdgpu_params;
  kfdsim::Board board;
  std::string message;
  int r = 0;
  if (options->tree_dir != nullptr) {
    r = kfdsim::LoadTreeBoard(options->tree_dir, load, &board, &message);
  } else if (options->board_name != nullptr) {
    r = kfdsim::LoadBuiltinBoard(options->board_name, load, &board, &message);
  } else {
    return fail(EINVAL, "kfdsim_create: neither tree_dir nor board_name given");
  }
  if (r != 0) return fail(r, message);
  kfdsim_t* sim = kfdsim::WrapBoard(std::move(board));
  if (sim == nullptr) return fail(ENOMEM, "kfdsim_create: out of memory");
  if (options->trace != nullptr) kfdsim::Unwrap(sim)->SetTraceSink(options->trace, options->trace_user);
  *out = sim;
  return 0;
}
