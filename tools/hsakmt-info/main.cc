// hsakmt-info: what the thunk sees on this machine, or on a simulated board.
//
//   hsakmt-info [--sim BOARD|TREE] [--linux] [--check] [--json]
//
// Without options it uses the real /dev/kfd when one can be opened, and the
// built-in simulated board "apu-embedded" otherwise. --sim picks a built-in
// board by name or a captured sysfs topology tree (a directory holding
// nodes/); --linux insists on the real device; --check prints what the
// simulator filled in or corrected in the board; --json prints one JSON
// object (schema in tools/hsakmt-info/README.md).
//
// Everything goes through the library (the default context, configured with
// the Linux or the in-process simulator platform): the KFD interface version
// from hsaKmtOpenKFD/hsaKmtGetVersion, and the sysfs topology nodes read
// through the same platform table the library uses. Errors are one line on
// stderr and a nonzero exit status.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "platform/sim/topology/report.h"

namespace {

constexpr const char* kDefaultBoard = "apu-embedded";
constexpr const char* kTopologyRoot = "/sys/devices/virtual/kfd/kfd/topology";

struct Options {
  bool json = false;
  bool check = false;
  bool force_linux = false;
  const char* sim = nullptr;
};

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: hsakmt-info [--sim BOARD|TREE] [--linux] [--check] [--json]\n"
               "  --sim X    simulate built-in board X or the captured topology tree X\n"
               "  --linux    use the real /dev/kfd (fail if there is none)\n"
               "  --check    show what the simulator filled in or corrected\n"
               "  --json     one JSON object on stdout\n"
               "built-in boards:");
  for (const std::string& b : kfdsim::BuiltinBoardNames()) std::fprintf(out, " %s", b.c_str());
  std::fprintf(out, "\n");
}

void DiagToStderr(void*, const hke_diag_record* r) {
  std::fprintf(stderr, "hsakmt-info: %s: %s%s%s\n", r->area, r->message, r->path ? " @ " : "",
               r->path ? r->path : "");
}

struct NodeInfo {
  std::string id;
  std::string gpu_id;
  std::string name;
  std::string gfx;  // gfx name derived from gfx_target_version, empty for CPUs
  unsigned long long cpu_cores = 0;
  unsigned long long simd = 0;
};

int CollectName(void* user, const char* name, uint32_t) {
  static_cast<std::vector<std::string>*>(user)->push_back(name);
  return 0;
}

bool ReadText(const hke_platform& p, const std::string& path, std::string* out) {
  std::vector<char> buf(8192);
  size_t n = 0;
  if (p.ops->read_file(p.self, path.c_str(), buf.data(), buf.size(), &n) != 0) return false;
  out->assign(buf.data(), n);
  return true;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

unsigned long long PropValue(const std::string& props, const char* key) {
  const std::string k = std::string(key) + " ";
  size_t pos = 0;
  while (pos < props.size()) {
    size_t end = props.find('\n', pos);
    if (end == std::string::npos) end = props.size();
    if (props.compare(pos, k.size(), k) == 0) {
      return std::strtoull(props.c_str() + pos + k.size(), nullptr, 10);
    }
    pos = end + 1;
  }
  return 0;
}

std::string GfxName(unsigned long long v) {
  if (v == 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "gfx%llu%llx%llx", v / 10000, (v / 100) % 100, v % 100);
  return buf;
}

// Reads the topology nodes through the library's platform table.
bool ReadNodes(const hke_platform& p, std::vector<NodeInfo>* out) {
  std::vector<std::string> names;
  const std::string nodes_dir = std::string(kTopologyRoot) + "/nodes";
  if (p.ops->list_dir == nullptr || p.ops->list_dir(p.self, nodes_dir.c_str(), &CollectName, &names) != 0) {
    return false;
  }
  std::vector<unsigned long> ids;
  for (const auto& n : names) {
    if (!n.empty() && n.find_first_not_of("0123456789") == std::string::npos) ids.push_back(std::stoul(n));
  }
  std::sort(ids.begin(), ids.end());
  for (unsigned long id : ids) {
    NodeInfo ni;
    ni.id = std::to_string(id);
    const std::string dir = nodes_dir + "/" + ni.id;
    std::string props;
    ReadText(p, dir + "/gpu_id", &ni.gpu_id);
    ni.gpu_id = Trim(ni.gpu_id);
    ReadText(p, dir + "/name", &ni.name);
    ni.name = Trim(ni.name);
    if (ReadText(p, dir + "/properties", &props)) {
      ni.cpu_cores = PropValue(props, "cpu_cores_count");
      ni.simd = PropValue(props, "simd_count");
      if (ni.simd != 0) ni.gfx = GfxName(PropValue(props, "gfx_target_version"));
    }
    out->push_back(ni);
  }
  return true;
}

std::string JsonString(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    r += c;
  }
  return r + "\"";
}

bool IsDirectory(const char* path) {
  struct stat st;
  return ::stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      opt.json = true;
    } else if (std::strcmp(argv[i], "--check") == 0) {
      opt.check = true;
    } else if (std::strcmp(argv[i], "--linux") == 0) {
      opt.force_linux = true;
    } else if (std::strcmp(argv[i], "--sim") == 0 && i + 1 < argc) {
      opt.sim = argv[++i];
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      Usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "hsakmt-info: unknown argument '%s'\n", argv[i]);
      Usage(stderr);
      return 2;
    }
  }
  if (opt.force_linux && opt.sim != nullptr) {
    std::fprintf(stderr, "hsakmt-info: --linux and --sim exclude each other\n");
    return 2;
  }

  // Choose the platform: the real device when asked for or present.
  bool use_sim = opt.sim != nullptr;
  if (!use_sim && !opt.force_linux) {
    hke_platform lp = hke_linux_platform();
    int fd = -1;
    if (lp.ops->open(lp.self, "/dev/kfd", HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, &fd) == 0) {
      lp.ops->close(lp.self, fd);
    } else {
      use_sim = true;
    }
  }

  kfdsim_t* sim = nullptr;
  std::string source = "linux:/dev/kfd";
  hke_platform platform = hke_linux_platform();
  if (use_sim) {
    const char* what = opt.sim != nullptr ? opt.sim : kDefaultBoard;
    kfdsim_options so;
    std::memset(&so, 0, sizeof(so));
    so.struct_size = sizeof(so);
    if (IsDirectory(what)) {
      so.tree_dir = what;
      source = std::string("sim-tree:") + what;
    } else {
      so.board_name = what;
      source = std::string("sim-board:") + what;
    }
    char error[512] = {0};
    int r = kfdsim_create(&so, &sim, error, sizeof(error));
    if (r != 0) {
      std::fprintf(stderr, "hsakmt-info: cannot simulate '%s': %s\n", what,
                   error[0] ? error : std::strerror(r));
      return 1;
    }
    platform = hke_sim_platform(sim);
  } else if (opt.check) {
    std::fprintf(stderr, "hsakmt-info: --check applies to simulated boards only\n");
    return 2;
  }

  hke_config cfg{};
  cfg.struct_size = sizeof(cfg);
  cfg.platform = platform;
  cfg.diag = &DiagToStderr;
  hke_status_t s = hke_default_context_configure(&cfg);
  if (s != HKE_OK) {
    std::fprintf(stderr, "hsakmt-info: cannot configure the library: %s\n", hke_status_name(s));
    return 1;
  }

  HSAKMT_STATUS open_status = hsaKmtOpenKFD();
  if (open_status != HSAKMT_STATUS_SUCCESS) {
    std::fprintf(stderr, "hsakmt-info: hsaKmtOpenKFD failed with status %d on %s\n",
                 static_cast<int>(open_status), source.c_str());
    return 1;
  }
  HsaVersionInfo v{};
  if (hsaKmtGetVersion(&v) != HSAKMT_STATUS_SUCCESS) {
    std::fprintf(stderr, "hsakmt-info: hsaKmtGetVersion failed\n");
    return 1;
  }
  std::vector<NodeInfo> nodes;
  if (!ReadNodes(platform, &nodes)) {
    std::fprintf(stderr, "hsakmt-info: cannot list %s/nodes\n", kTopologyRoot);
    return 1;
  }
  HsaSystemProperties sp{};
  const HSAKMT_STATUS acquire = hsaKmtAcquireSystemProperties(&sp);

  hke_capacities caps;
  hke_build_capacities(&caps);
  std::string check_report;
  if (opt.check && sim != nullptr) check_report = kfdsim::DescribeBoard(kfdsim::Unwrap(sim)->board());

  if (opt.json) {
    std::printf("{\"source\":%s,\"configuration\":%s,\"context_bytes\":%zu,", JsonString(source).c_str(),
                JsonString(hke_build_configuration()).c_str(), hke_context_storage_size());
    std::printf("\"kfd_version\":{\"major\":%u,\"minor\":%u},", v.KernelInterfaceMajorVersion,
                v.KernelInterfaceMinorVersion);
    std::printf("\"topology_api\":%s,", acquire == HSAKMT_STATUS_SUCCESS ? "\"implemented\"" : "\"not_implemented\"");
    std::printf("\"nodes\":[");
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& n = nodes[i];
      std::printf("%s{\"node\":%s,\"gpu_id\":%s,\"name\":%s,\"cpu_cores\":%llu,\"simd_count\":%llu,\"gfx\":%s}",
                  i ? "," : "", n.id.c_str(), n.gpu_id.empty() ? "0" : n.gpu_id.c_str(),
                  JsonString(n.name).c_str(), n.cpu_cores, n.simd,
                  n.gfx.empty() ? "null" : JsonString(n.gfx).c_str());
    }
    std::printf("]");
    if (opt.check) std::printf(",\"check\":%s", JsonString(check_report).c_str());
    std::printf("}\n");
  } else {
    std::printf("hsakmt-embedded (%s configuration, context %zu bytes)\n", hke_build_configuration(),
                hke_context_storage_size());
    std::printf("  platform   %s\n", source.c_str());
    std::printf("  KFD        interface %u.%u\n", v.KernelInterfaceMajorVersion,
                v.KernelInterfaceMinorVersion);
    std::printf("  capacity   %u nodes, %u GPUs, %u events, %u queues, %u VA objects\n",
                caps.max_nodes, caps.max_gpus, caps.max_events, caps.max_queues,
                caps.max_va_objects);
    std::printf("Topology nodes (%zu):\n", nodes.size());
    for (const NodeInfo& n : nodes) {
      if (n.simd != 0) {
        std::printf("  node %-3s GPU  gpu_id %-6s %-8s %-14s %llu SIMDs\n", n.id.c_str(),
                    n.gpu_id.c_str(), n.gfx.c_str(), n.name.c_str(), n.simd);
      } else {
        std::printf("  node %-3s CPU  %llu cores\n", n.id.c_str(), n.cpu_cores);
      }
    }
    if (acquire != HSAKMT_STATUS_SUCCESS) {
      std::printf("The library's topology snapshot (hsaKmtAcquireSystemProperties) is not implemented\n"
                  "yet (status %d); the nodes above are read from sysfs through its platform.\n",
                  static_cast<int>(acquire));
    }
    if (opt.check) std::printf("\nSimulator check:\n%s", check_report.c_str());
  }
  hsaKmtCloseKFD();
  if (sim != nullptr) kfdsim_destroy(sim);
  return 0;
}
