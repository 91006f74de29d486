// A captured-style tree of an "old" APU (Kaveri-like) for tests that need
// upstream's APU paths (is_dgpu false): the built-in apu-embedded board
// with its GPU node also owning CPU cores. No fixture or built-in board has
// such a node. Shared by the events and memory tests.
#ifndef HKE_TESTS_SUPPORT_COMBINED_APU_TREE_H_
#define HKE_TESTS_SUPPORT_COMBINED_APU_TREE_H_

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "doctest/doctest.h"
#include "platform/sim/sim.h"

namespace hketest {

// Writes the tree into a fresh /tmp directory and returns it. Upstream
// (and the library) treat such a system as an APU, not a dGPU: the kernel
// allocates the events page, registration of system memory is a no-op,
// scratch is plain host memory.
inline std::string WriteCombinedApuTree() {
  kfdsim_options o{};
  o.struct_size = sizeof(o);
  o.board_name = "apu-embedded";
  kfdsim_t* sim = nullptr;
  char error[256] = {};
  REQUIRE(kfdsim_create(&o, &sim, error, sizeof(error)) == 0);
  char tmpl[] = "/tmp/hke-combined-apu-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string root = tmpl;
  const std::string topo = "/sys/devices/virtual/kfd/kfd/topology";
  struct Walk {
    kfdsim_t* sim;
    std::string root;
    std::string topo;
    void Dir(const std::string& rel) {
      REQUIRE(system(("mkdir -p '" + root + rel + "'").c_str()) == 0);
      std::vector<std::pair<std::string, uint32_t>> entries;
      auto fn = [](void* user, const char* name, uint32_t kind) -> int {
        static_cast<std::vector<std::pair<std::string, uint32_t>>*>(user)->emplace_back(name, kind);
        return 0;
      };
      REQUIRE(kfdsim_list_dir(sim, (topo + rel).c_str(), fn, &entries) == 0);
      for (const auto& e : entries) {
        const std::string child = rel + "/" + e.first;
        if (e.second == KFDSIM_FILE_DIR) {
          Dir(child);
          continue;
        }
        std::vector<char> buf(65536);
        size_t len = 0;
        REQUIRE(kfdsim_read_file(sim, (topo + child).c_str(), buf.data(), buf.size(), &len) == 0);
        std::string text(buf.data(), len);
        if (child == "/nodes/1/properties") {
          const std::string key = "cpu_cores_count 0";
          const size_t p = text.find(key);
          REQUIRE(p != std::string::npos);
          text.replace(p, key.size(), "cpu_cores_count 4");
        }
        FILE* f = std::fopen((root + child).c_str(), "w");
        REQUIRE(f != nullptr);
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
      }
    }
  } walk{sim, root, topo};
  walk.Dir("");
  kfdsim_destroy(sim);
  return root;
}

// The tree, written once per test process and removed at exit.
inline const char* CombinedApuTree() {
  struct Tree {
    std::string dir = WriteCombinedApuTree();
    ~Tree() {
      if (dir.rfind("/tmp/hke-combined-apu-", 0) == 0) (void)!system(("rm -rf '" + dir + "'").c_str());
    }
  };
  static const Tree tree;
  return tree.dir.c_str();
}

}  // namespace hketest

#endif  // HKE_TESTS_SUPPORT_COMBINED_APU_TREE_H_
