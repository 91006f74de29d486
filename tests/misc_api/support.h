// Helpers of the misc_api tests: node lookup on the acquired topology,
// a byte-pattern check for untouched outputs, and a Kaveri tree.
#ifndef HKE_TESTS_MISC_API_SUPPORT_H_
#define HKE_TESTS_MISC_API_SUPPORT_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/sim_board.h"

namespace misctest {

using hketest::FirstCpuNode;
using hketest::FirstGpuNode;

inline uint32_t NumNodes() {
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  return sys.NumNodes;
}

inline uint32_t GpuId(uint32_t node) {
  HsaNodeProperties p{};
  REQUIRE(hsaKmtGetNodeProperties(node, &p) == HSAKMT_STATUS_SUCCESS);
  return p.KFDGpuID;
}

// An object filled with 0xA5, to prove a failing call wrote nothing.
template <typename T>
struct Poisoned {
  Poisoned() { std::memset(&v, 0xA5, sizeof(v)); }
  bool untouched() const {
    const auto* b = reinterpret_cast<const unsigned char*>(&v);
    for (size_t i = 0; i < sizeof(v); ++i) {
      if (b[i] != 0xA5) return false;
    }
    return true;
  }
  T v;
};

inline size_t Count(const std::vector<std::string>& v, const std::string& s) {
  size_t n = 0;
  for (const std::string& x : v) n += x == s ? 1 : 0;
  return n;
}

inline std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += s + " ";
  return out;
}

// A copy of the mixed-gfx906-gfx1102-gfx1032 fixture whose GPU nodes (1-3)
// claim gfx 7.0.0 (Kaveri): the only GPU on which SET_MEMORY_POLICY is
// meaningful. Removed by the destructor.
class KaveriTree {
 public:
  KaveriTree() {
    namespace fs = std::filesystem;
    char tmpl[] = "/tmp/hke-kaveri-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
    const fs::path src =
        fs::path(HKE_SHARED_DIR) / "fixtures/topology/mixed-gfx906-gfx1102-gfx1032";
    REQUIRE(fs::is_directory(src));
    fs::copy(src, dir_, fs::copy_options::recursive);
    // Every GPU claims gfx 7.0.0: the simulator gives pre-gfx9 dGPUs one
    // shared GPUVM layout, which a mix with gfx9+ apertures would overlap.
    for (const char* node : {"1", "2", "3"}) {
      const fs::path props = fs::path(dir_) / "nodes" / node / "properties";
      std::ifstream in(props);
      REQUIRE(in.good());
      std::stringstream text;
      text << in.rdbuf();
      in.close();
      std::string s = text.str();
      // gfx 7.0.0 and a Kaveri device id (0x1304): the library takes the
      // GFX version from its device-id table first.
      for (const auto& [key, value] :
           {std::pair<std::string, std::string>{"gfx_target_version ", "70000"},
            {"device_id ", "4868"}}) {
        const size_t at = s.find("\n" + key);
        REQUIRE(at != std::string::npos);
        const size_t end = s.find('\n', at + 1);
        s.replace(at + 1, end - at - 1, key + value);
      }
      std::ofstream out(props, std::ios::trunc);
      out << s;
      REQUIRE(out.good());
    }
  }
  ~KaveriTree() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const char* path() const { return dir_.c_str(); }
  static constexpr uint32_t kKaveriNode = 3;

 private:
  std::string dir_;
};

}  // namespace misctest

#endif  // HKE_TESTS_MISC_API_SUPPORT_H_
