// Topology trees shaped like a 2018 kernel's (4.18/4.19) KFD sysfs, built
// in a scratch directory at test time: a copy of a captured fixture or of a
// built-in board's served tree without the node keys later kernels added
// (gfx_target_version, the SDMA/CP/GWS/XCC counts, domain, hive/unique ids,
// ...), with empty `name` files and no p2p links; and a synthetic tree of
// one GPU node per device-table family. Fixtures are read in place and never
// copied into the source tree. Not thread-safe; one object per test.
#ifndef HKE_TESTS_SUPPORT_OLD_KERNEL_TREE_H_
#define HKE_TESTS_SUPPORT_OLD_KERNEL_TREE_H_

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "lib/topology/device_table.h"
#include "platform/sim/sim.h"

namespace hketest {

// Node keys a 2018 kernel did not print.
inline const std::set<std::string>& NewerNodeKeys() {
  static const std::set<std::string> keys = {
      "gfx_target_version", "num_sdma_engines", "num_sdma_xgmi_engines",
      "num_sdma_queues_per_engine", "num_cp_queues", "num_gws", "num_xcc", "unique_id", "domain",
      "debug_prop", "sdma_fw_version", "hive_id", "family_id", "cwsr_size", "ctl_stack_size",
      "capability2", "p2p_links_count"};
  return keys;
}

class OldKernelTree {
 public:
  OldKernelTree() {
    char tmpl[] = "/tmp/hke-oldkfd-XXXXXX";
    const char* p = mkdtemp(tmpl);
    REQUIRE(p != nullptr);
    path_ = p;
  }
  ~OldKernelTree() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  OldKernelTree(const OldKernelTree&) = delete;
  OldKernelTree& operator=(const OldKernelTree&) = delete;

  const std::string& path() const { return path_; }

  // The captured tree at `dir`, stripped.
  void CopyFixture(const std::string& dir) { CopyHostDir(dir, ""); }

  // The topology tree the simulator serves for built-in `board`, stripped.
  void CopyBoard(const char* board) {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = board;
    kfdsim_t* sim = nullptr;
    char error[256] = {};
    REQUIRE(kfdsim_create(&o, &sim, error, sizeof(error)) == 0);
    CopyServedDir(sim, kTopology, "");
    kfdsim_destroy(sim);
  }

  // Node 0: a CPU; node 1: a GPU of `family` as a 2018 kernel printed it
  // (no mem_banks, no caches: the simulator fills those in).
  void WriteFamilyNode(const hke::topology::DeviceFamily& family) {
    Write("generation_id", "1\n");
    Write("system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
    Write("nodes/0/properties",
          "cpu_cores_count 4\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\n"
          "io_links_count 1\ncpu_core_id_base 0\nsimd_id_base 0\nmax_waves_per_simd 0\n"
          "lds_size_in_kb 0\ngds_size_in_kb 0\nwave_front_size 0\narray_count 0\n"
          "simd_arrays_per_engine 0\ncu_per_simd_array 0\nsimd_per_cu 0\n"
          "max_slots_scratch_cu 0\nvendor_id 0\ndevice_id 0\nlocation_id 0\n"
          "drm_render_minor 0\nmax_engine_clk_fcompute 0\nlocal_mem_size 0\nfw_version 0\n"
          "capability 0\nmax_engine_clk_ccompute 3000\n");
    Write("nodes/0/gpu_id", "0\n");
    Write("nodes/0/name", "");
    Write("nodes/0/mem_banks/0/properties",
          "heap_type 0\nsize_in_bytes 17179869184\nflags 0\nwidth 64\nmem_clk_max 1600\n");
    Write("nodes/0/io_links/0/properties",
          "type 2\nversion_major 0\nversion_minor 0\nnode_from 0\nnode_to 1\nweight 20\n"
          "min_latency 0\nmax_latency 0\nmin_bandwidth 0\nmax_bandwidth 0\n"
          "recommended_transfer_size 0\nflags 1\n");
    std::ostringstream gpu;
    gpu << "cpu_cores_count 0\nsimd_count 64\nmem_banks_count 0\ncaches_count 0\n"
        << "io_links_count 1\ncpu_core_id_base 0\nsimd_id_base 2147487744\n"
        << "max_waves_per_simd 10\nlds_size_in_kb 64\ngds_size_in_kb 0\nwave_front_size 64\n"
        << "array_count 4\nsimd_arrays_per_engine 1\ncu_per_simd_array 4\nsimd_per_cu 4\n"
        << "max_slots_scratch_cu 32\nvendor_id 4098\ndevice_id " << family.ids[0]
        << "\nlocation_id 768\ndrm_render_minor 128\nmax_engine_clk_fcompute 1500\n"
        << "local_mem_size 0\nfw_version 400\ncapability 0\nmax_engine_clk_ccompute 3000\n";
    Write("nodes/1/properties", gpu.str());
    Write("nodes/1/gpu_id", "4660\n");
    Write("nodes/1/name", "");
    Write("nodes/1/io_links/0/properties",
          "type 2\nversion_major 0\nversion_minor 0\nnode_from 1\nnode_to 0\nweight 20\n"
          "min_latency 0\nmax_latency 0\nmin_bandwidth 0\nmax_bandwidth 0\n"
          "recommended_transfer_size 0\nflags 1\n");
  }

  void Write(const std::string& rel, const std::string& content) {
    const std::string full = path_ + "/" + rel;
    for (size_t p = path_.size() + 1; (p = full.find('/', p)) != std::string::npos; ++p) {
      ::mkdir(full.substr(0, p).c_str(), 0755);
    }
    std::ofstream f(full, std::ios::binary);
    f << content;
    REQUIRE(f.good());
  }

 private:
  static constexpr const char* kTopology = "/sys/devices/virtual/kfd/kfd/topology";

  static bool EndsWith(const std::string& s, const char* tail) {
    const std::string t(tail);
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
  }

  // What a 2018 kernel would have shown for `rel`; false: no such file.
  static bool OldKernelFile(const std::string& rel, std::string* content) {
    if (rel.find("p2p_links") != std::string::npos) return false;
    const bool node_file = rel.compare(0, 6, "nodes/") == 0 &&
                           rel.find('/', 6) == rel.rfind('/');  // nodes/N/<file>
    if (node_file && EndsWith(rel, "/name")) {
      content->clear();
      return true;
    }
    const bool node_props = node_file && EndsWith(rel, "/properties");
    const bool link_props = rel.find("/io_links/") != std::string::npos;
    if (!node_props && !link_props) return true;
    std::istringstream in(*content);
    std::string out, line;
    while (std::getline(in, line)) {
      const std::string key = line.substr(0, line.find(' '));
      if (node_props && NewerNodeKeys().count(key) != 0) continue;
      if (link_props && key == "recommended_sdma_engine_id_mask") continue;
      out += line + "\n";
    }
    *content = out;
    return true;
  }

  void Put(const std::string& rel, std::string content) {
    if (OldKernelFile(rel, &content)) Write(rel, content);
  }

  // std::filesystem: large-file safe on 32-bit targets (readdir/stat are not
  // without _FILE_OFFSET_BITS=64).
  void CopyHostDir(const std::string& dir, const std::string& rel) {
    namespace fs = std::filesystem;
    REQUIRE(fs::is_directory(dir));
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename() == "SOURCE.md") continue;
      const std::string r = fs::relative(e.path(), dir).generic_string();
      std::ifstream f(e.path(), std::ios::binary);
      std::ostringstream text;
      text << f.rdbuf();
      Put(rel.empty() ? r : rel + "/" + r, text.str());
    }
  }

  void CopyServedDir(kfdsim_t* sim, const std::string& dir, const std::string& rel) {
    struct Entry {
      std::string name;
      uint32_t kind;
    };
    std::vector<Entry> entries;
    REQUIRE(kfdsim_list_dir(
                sim, dir.c_str(),
                [](void* u, const char* name, uint32_t kind) {
                  static_cast<std::vector<Entry>*>(u)->push_back({name, kind});
                  return 0;
                },
                &entries) == 0);
    for (const Entry& e : entries) {
      const std::string src = dir + "/" + e.name;
      const std::string r = rel.empty() ? e.name : rel + "/" + e.name;
      if (e.kind == KFDSIM_FILE_DIR) {
        CopyServedDir(sim, src, r);
        continue;
      }
      std::vector<char> buf(1 << 16);
      size_t n = 0;
      REQUIRE(kfdsim_read_file(sim, src.c_str(), buf.data(), buf.size(), &n) == 0);
      Put(r, std::string(buf.data(), n));
    }
  }

  std::string path_;
};

}  // namespace hketest

#endif  // HKE_TESTS_SUPPORT_OLD_KERNEL_TREE_H_
