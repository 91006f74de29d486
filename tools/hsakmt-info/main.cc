// hsakmt-info: what the thunk sees on this machine.
//
//   hsakmt-info [--json]
//
// On a machine with /dev/kfd it opens the device through the Linux platform
// and prints the KFD interface version and the topology nodes' gpu_ids. On a
// machine without one it says so. The in-process simulated boards
// (--sim BOARD|TREE) arrive with the KFD simulator; until then --sim is
// refused with a clear message.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"

namespace {

struct Options {
  bool json = false;
  const char* sim = nullptr;
};

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: hsakmt-info [--json] [--sim BOARD|TREE]\n"
               "  --json        machine-readable output\n"
               "  --sim X       use the in-process KFD simulator (not built yet)\n");
}

void DiagToStderr(void*, const hke_diag_record* r) {
  std::fprintf(stderr, "hsakmt-info: %s: %s%s%s\n", r->area, r->message, r->path ? " @ " : "",
               r->path ? r->path : "");
}

struct NodeIds {
  std::vector<std::string> names;
};

int CollectNode(void* user, const char* name, uint32_t) {
  static_cast<NodeIds*>(user)->names.push_back(name);
  return 0;
}

std::string ReadSmall(const hke_platform& p, const std::string& path) {
  char buf[256];
  size_t n = 0;
  if (p.ops->read_file(p.self, path.c_str(), buf, sizeof(buf), &n) != 0) return "";
  std::string s(buf, n);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      opt.json = true;
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
  if (opt.sim != nullptr) {
    std::fprintf(stderr,
                 "hsakmt-info: --sim %s: the KFD simulator is not part of this build yet\n",
                 opt.sim);
    return 2;
  }

  hke_config cfg{};
  cfg.struct_size = sizeof(cfg);
  cfg.platform = hke_linux_platform();
  cfg.diag = opt.json ? nullptr : &DiagToStderr;
  hke_status_t s = hke_default_context_configure(&cfg);
  if (s != HKE_OK) {
    std::fprintf(stderr, "hsakmt-info: cannot configure the library: %s\n", hke_status_name(s));
    return 1;
  }

  hke_capacities caps;
  hke_build_capacities(&caps);
  const bool have_kfd = hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS;
  HsaVersionInfo v{};
  if (have_kfd && hsaKmtGetVersion(&v) != HSAKMT_STATUS_SUCCESS) v = HsaVersionInfo{};

  NodeIds nodes;
  const std::string root = "/sys/devices/virtual/kfd/kfd/topology";
  if (have_kfd) {
    const hke_platform p = hke_linux_platform();
    p.ops->list_dir(p.self, (root + "/nodes").c_str(), &CollectNode, &nodes);
  }

  if (opt.json) {
    std::printf("{\"configuration\":\"%s\",\"context_bytes\":%zu,\"kfd\":%s", hke_build_configuration(),
                hke_context_storage_size(), have_kfd ? "true" : "false");
    if (have_kfd) {
      std::printf(",\"kfd_version\":\"%u.%u\",\"nodes\":[", v.KernelInterfaceMajorVersion,
                  v.KernelInterfaceMinorVersion);
      const hke_platform p = hke_linux_platform();
      for (size_t i = 0; i < nodes.names.size(); ++i) {
        std::string gpu = ReadSmall(p, root + "/nodes/" + nodes.names[i] + "/gpu_id");
        std::printf("%s{\"node\":%s,\"gpu_id\":%s}", i ? "," : "", nodes.names[i].c_str(),
                    gpu.empty() ? "null" : gpu.c_str());
      }
      std::printf("]");
    }
    std::printf("}\n");
  } else {
    std::printf("hsakmt-embedded %s configuration\n", hke_build_configuration());
    std::printf("  context storage  %zu bytes\n", hke_context_storage_size());
    std::printf("  capacities       %u nodes, %u GPUs, %u events, %u queues, %u VA objects\n",
                caps.max_nodes, caps.max_gpus, caps.max_events, caps.max_queues,
                caps.max_va_objects);
    std::printf("  libdrm           %s\n", hke_linux_platform_has_libdrm() ? "yes" : "no");
    if (!have_kfd) {
      std::printf("KFD: not available on this machine (no usable /dev/kfd).\n"
                  "The simulated boards (--sim) come with the KFD simulator, which is not\n"
                  "built yet; nothing more can be shown here.\n");
    } else {
      std::printf("KFD interface %u.%u\n", v.KernelInterfaceMajorVersion,
                  v.KernelInterfaceMinorVersion);
      const hke_platform p = hke_linux_platform();
      for (const auto& n : nodes.names) {
        std::string gpu = ReadSmall(p, root + "/nodes/" + n + "/gpu_id");
        std::string name = ReadSmall(p, root + "/nodes/" + n + "/name");
        std::printf("  node %-3s gpu_id %-6s %s\n", n.c_str(), gpu.c_str(), name.c_str());
      }
    }
  }
  if (have_kfd) hsaKmtCloseKFD();
  return 0;
}
