#include "tests/sim_topology/sim_topology_support.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace simtest {

std::string FixtureDir(const char* name) {
  return std::string(HKE_SHARED_DIR) + "/fixtures/topology/" + name;
}

static void WalkInto(const kfdsim::FileProvider& files, const std::string& path,
                     std::map<std::string, std::string>* out) {
  kfdsim::FileKind kind = kfdsim::FileKind::kNone;
  if (files.Kind(path, &kind) != 0) return;
  if (kind == kfdsim::FileKind::kFile) {
    std::string s;
    if (files.Read(path, &s) == 0) (*out)[path] = s;
    return;
  }
  if (kind == kfdsim::FileKind::kDevice) {
    (*out)[path] = "<device>";
    return;
  }
  std::vector<kfdsim::DirEntry> entries;
  if (files.List(path, &entries) != 0) return;
  if (entries.empty()) (*out)[path + "/"] = "<empty dir>";
  for (const auto& e : entries) WalkInto(files, path + "/" + e.name, out);
}

std::map<std::string, std::string> Walk(const kfdsim::FileProvider& files,
                                        const std::string& root) {
  std::map<std::string, std::string> out;
  WalkInto(files, root, &out);
  return out;
}

std::map<std::string, std::string> WalkAll(const kfdsim::FileProvider& files) {
  std::map<std::string, std::string> out;
  for (const char* r : {"/sys/devices/virtual/kfd", "/sys/devices/system/node",
                        "/sys/devices/system/cpu", "/sys/module/amdgpu", "/proc/cpuinfo",
                        "/proc/modules", "/proc/cmdline", "/dev/kfd", "/dev/dri"}) {
    WalkInto(files, r, &out);
  }
  return out;
}

std::string ReadHostFile(const std::string& path, bool* ok) {
  std::ifstream f(path, std::ios::binary);
  *ok = static_cast<bool>(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Served(const kfdsim::Board& board, const std::string& path) {
  std::string s;
  if (board.files->Read(path, &s) != 0) return "<missing " + path + ">";
  return s;
}

size_t CountEntries(const kfdsim::Board& board, const std::string& dir) {
  std::vector<kfdsim::DirEntry> e;
  if (board.files->List(dir, &e) != 0) return 0;
  return e.size();
}

std::map<std::string, std::string> KeyValues(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    out[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return out;
}

size_t ThunkParsedBytes(const std::string& text) {
  const char* p = text.c_str();
  size_t consumed = 0;
  char name[256];
  unsigned long long value = 0;
  int prog = 0;
  while (std::sscanf(p + consumed, "%255s %llu\n%n", name, &value, &prog) == 2) {
    consumed += static_cast<size_t>(prog);
    prog = 0;
    if (consumed >= text.size()) break;
  }
  return consumed;
}

TempTree::TempTree() {
  char tmpl[] = "/tmp/kfdsim-topo-XXXXXX";
  const char* d = ::mkdtemp(tmpl);
  path_ = d != nullptr ? d : "/tmp/kfdsim-topo-failed";
}

TempTree::~TempTree() {
  const std::string cmd = "rm -rf '" + path_ + "'";
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", path_.c_str());
}

void TempTree::Mkdir(const std::string& rel) {
  std::string full = path_;
  size_t pos = 0;
  while (pos != std::string::npos) {
    const size_t next = rel.find('/', pos);
    full = path_ + "/" + rel.substr(0, next);
    ::mkdir(full.c_str(), 0755);
    pos = next == std::string::npos ? next : next + 1;
  }
}

void TempTree::Write(const std::string& rel, const std::string& content) {
  const size_t slash = rel.find_last_of('/');
  if (slash != std::string::npos) Mkdir(rel.substr(0, slash));
  std::ofstream f(path_ + "/" + rel, std::ios::binary);
  f << content;
}

void WriteSmallTree(TempTree* t) {
  t->Write("nodes/0/properties",
           "cpu_cores_count 4\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\n"
           "io_links_count 0\ncpu_core_id_base 0\nsimd_id_base 0\nmax_engine_clk_ccompute 3000\n");
  t->Write("nodes/1/properties",
           "cpu_cores_count 0\nsimd_count 416\nmem_banks_count 1\ncaches_count 0\n"
           "io_links_count 0\ncpu_core_id_base 0\nsimd_id_base 2147487744\n"
           "array_count 8\nsimd_arrays_per_engine 1\ncu_per_simd_array 14\nsimd_per_cu 4\n"
           "gfx_target_version 90010\nvendor_id 4098\ndevice_id 29711\nlocation_id 768\n"
           "domain 0\ndrm_render_minor 128\nlocal_mem_size 0\nnum_xcc 1\n");
}

}  // namespace simtest
