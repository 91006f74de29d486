// The loader's intermediate form: a KFD topology as text files, before any
// fill-in. Captured trees (tree_reader.cc) and built-in boards
// (builtin_boards.cc) both produce a RawTree; Normalise() (normalise.cc)
// turns either into a served Board, so both go through one code path.
//
// Ownership: plain values, built and consumed on the loading thread.
#ifndef HKE_PLATFORM_SIM_TOPOLOGY_RAW_TREE_H_
#define HKE_PLATFORM_SIM_TOPOLOGY_RAW_TREE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "platform/sim/board.h"
#include "platform/sim/topology/prop_text.h"

namespace kfdsim {
namespace topo {

// One numbered child of a node: mem_banks/M, caches/C, io_links/L, p2p_links/L.
struct RawEntry {
  uint32_t index = 0;  // number of the captured directory (may have gaps)
  std::string origin;  // where it came from, for messages ("nodes/2/caches/5")
  PropText props;
  bool has_used_memory = false;  // mem_banks/M/used_memory
  std::string used_memory;
};

struct RawNode {
  std::string origin;  // "nodes/<N>"
  PropText props;
  bool has_gpu_id = false;
  std::string gpu_id;  // file text as captured
  bool has_name = false;
  std::string name;  // file text as captured
  std::vector<RawEntry> mem_banks;
  std::vector<RawEntry> caches;
  std::vector<RawEntry> io_links;
  std::vector<RawEntry> p2p_links;
};

// Facts a built-in board states that a captured sysfs tree cannot carry.
struct HostHints {
  std::string cpu_vendor;      // "AuthenticAMD"/"GenuineIntel"; empty: guess from links
  std::string cpu_model_name;  // empty: derived from vendor and core count
};

struct RawTree {
  std::string name;
  std::string root;  // prefix for messages: the tree directory or "builtin:<name>"

  bool has_generation_id = false;
  std::string generation_id;
  bool has_system_properties = false;
  std::string system_properties;
  std::vector<RawNode> nodes;  // index == sysfs node id
  HostHints hints;
};

// Reads a captured tree directory. 0 or an errno; *error names the file.
int ReadTreeDir(const std::string& dir, RawTree* out, std::string* error);

// Authors a built-in board. 0 or ENOENT for an unknown name.
int BuildBuiltinTree(const std::string& name, RawTree* out);
std::vector<std::string> BuiltinNames();

// Fills in, corrects and serves `tree`. 0 or an errno; on failure *out is
// untouched and *error names the offending file.
int Normalise(RawTree tree, const LoadOptions& options, Board* out, std::string* error);

}  // namespace topo
}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_TOPOLOGY_RAW_TREE_H_
