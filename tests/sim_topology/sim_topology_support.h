// Helpers shared by the sim_topology tests: walking a FileProvider, reading
// captured fixture files, and building hostile trees in temp directories.
#ifndef HKE_TESTS_SIM_TOPOLOGY_SUPPORT_H_
#define HKE_TESTS_SIM_TOPOLOGY_SUPPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "platform/sim/board.h"

namespace simtest {

constexpr const char* kTopo = "/sys/devices/virtual/kfd/kfd/topology";

std::string FixtureDir(const char* name);

// path -> content for every file below `root` (devices map to "<device>").
std::map<std::string, std::string> Walk(const kfdsim::FileProvider& files, const std::string& root);
// Every file of every served root.
std::map<std::string, std::string> WalkAll(const kfdsim::FileProvider& files);

std::string ReadHostFile(const std::string& path, bool* ok);
std::string Served(const kfdsim::Board& board, const std::string& path);
size_t CountEntries(const kfdsim::Board& board, const std::string& dir);

// key -> value of a `key value` text (the last value wins).
std::map<std::string, std::string> KeyValues(const std::string& text);

// Emulates the thunk's parse loop (sscanf "%s %llu\n%n"): returns how many
// bytes of `text` were consumed before the first line that does not match.
size_t ThunkParsedBytes(const std::string& text);

// A scratch directory removed when the object dies.
class TempTree {
 public:
  TempTree();
  ~TempTree();
  const std::string& path() const { return path_; }
  void Write(const std::string& rel, const std::string& content);
  void Mkdir(const std::string& rel);

 private:
  std::string path_;
};

// A minimal valid tree: CPU node 0 and one gfx90a GPU node 1, no links.
void WriteSmallTree(TempTree* t);

}  // namespace simtest

#endif  // HKE_TESTS_SIM_TOPOLOGY_SUPPORT_H_
