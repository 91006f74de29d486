// FileProvider over an in-memory path -> entry map, built once by the loader
// and read-only afterwards (so any thread may read it). Read/Kind/List on a
// served path are one hash lookup; aliased paths (/sys/class/kfd/kfd, the
// node<N>/cpu<K> links) cost one extra lookup per path component.
#ifndef HKE_PLATFORM_SIM_TOPOLOGY_FILE_MAP_H_
#define HKE_PLATFORM_SIM_TOPOLOGY_FILE_MAP_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "platform/sim/board.h"

namespace kfdsim {
namespace topo {

class MapFileProvider final : public FileProvider {
 public:
  // Building (loader only). Parent directories are created as needed.
  void AddFile(const std::string& path, std::string content);
  void AddDevice(const std::string& path);
  void AddDir(const std::string& path);
  // Paths under `from` resolve to the same path under `to` (like a symlink).
  // `from` itself is listed in its parent as a directory.
  void AddAlias(const std::string& from, const std::string& to);
  // A served namespace root: Owns() is true for it and everything below it.
  void AddRoot(const std::string& root);
  // Sorts every directory listing (numeric-aware). Call once, after building.
  void Finish();

  int Kind(const std::string& path, FileKind* out) const override;
  int Read(const std::string& path, std::string* out) const override;
  int List(const std::string& path, std::vector<DirEntry>* out) const override;
  bool Owns(const std::string& path) const override;

  // Every served file or device path (not aliases), sorted; for tests/reports.
  std::vector<std::string> AllPaths() const;

 private:
  struct Entry {
    FileKind kind = FileKind::kNone;
    std::string content;
    std::vector<DirEntry> children;
  };
  Entry* Ensure(const std::string& path, FileKind kind);
  // Adds (or re-kinds) `path` in its parent's listing, creating the parent.
  void ListInParent(const std::string& path, FileKind kind, bool scan);
  const Entry* Resolve(const std::string& path, int* err) const;

  std::unordered_map<std::string, Entry> entries_;
  std::vector<Entry*> dirs_;  // every directory entry, for Finish()
  std::unordered_map<std::string, std::string> aliases_;
  std::vector<std::string> roots_;
};

// Numeric-aware name order ("2" < "10", "cpu2" < "cpu10").
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace topo
}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_TOPOLOGY_FILE_MAP_H_
