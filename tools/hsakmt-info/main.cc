// hsakmt-info: what the thunk sees on this machine, or on a simulated board.
//
//   hsakmt-info [--sim BOARD|TREE] [--linux] [--check] [--json] [--smoke]
//
// Without options it uses the real /dev/kfd when one can be opened, and the
// built-in simulated board "apu-embedded" otherwise. --sim picks a built-in
// board by name or a captured sysfs topology tree (a directory holding
// nodes/); --linux insists on the real device; --check prints what the
// simulator filled in or corrected in the board; --json prints one JSON
// object (schema in tools/hsakmt-info/README.md); --smoke then runs an
// SDMA copy through a user queue on every GPU node (smoke.cc) and fails
// when one does not complete with the right bytes.
//
// Everything it prints about the machine comes from the library's public
// API on the default context, configured (hke_default_context_configure)
// with the Linux platform or the in-process simulator's: hsaKmtOpenKFD,
// hsaKmtGetVersion, hsaKmtAcquireSystemProperties, hsaKmtGetNodeProperties
// and the memory, cache and io-link getters, hsaKmtGetClockCounters. The
// layout follows rocminfo: the system, then one agent per node with its
// memory banks (the LDS, scratch, SVM and MMIO apertures among them),
// caches and io links. Only --check reads the simulator directly.
//
// Errors are one line on stderr ("hsakmt-info: <what failed>: <why>") and
// exit status 1 (2 for a usage error); the library's warnings are one line
// each on stderr.
#include <sys/stat.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "platform/sim/topology/report.h"
#include "tools/hsakmt-info/smoke.h"

namespace {

constexpr const char* kDefaultBoard = "apu-embedded";

struct Options {
  bool json = false;
  bool check = false;
  bool force_linux = false;
  bool smoke = false;
  const char* sim = nullptr;
};

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: hsakmt-info [--sim BOARD|TREE] [--linux] [--check] [--json] [--smoke]\n"
               "  --sim X    simulate built-in board X or the captured topology tree X\n"
               "  --linux    use the real /dev/kfd (fail if there is none)\n"
               "  --check    show what the simulator filled in or corrected\n"
               "  --json     one JSON object on stdout\n"
               "  --smoke    also copy 1 MiB system->VRAM through an SDMA queue on every GPU\n"
               "built-in boards:");
  for (const std::string& b : kfdsim::BuiltinBoardNames()) std::fprintf(out, " %s", b.c_str());
  std::fprintf(out, "\n");
}

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

// ---- diagnostics and errors ---------------------------------------------------

// The library explains failures through the diagnostics callback: warnings
// are printed at once (one line each); the latest error is kept for the one
// line that reports the failed call.
std::string g_last_error;

void OnDiag(void*, const hke_diag_record* r) {
  std::string text = std::string(r->area != nullptr ? r->area : "?") + ": " +
                     (r->message != nullptr ? r->message : "");
  if (r->path != nullptr) text += std::string(" @ ") + r->path;
  if (r->line != 0) text += Format(":%u", r->line);
  if (r->level == HKE_DIAG_ERROR) {
    g_last_error = text;
  } else if (r->level == HKE_DIAG_WARNING) {
    std::fprintf(stderr, "hsakmt-info: warning: %s\n", text.c_str());
  }
}

const char* StatusName(HSAKMT_STATUS s) {
  switch (s) {
    case HSAKMT_STATUS_SUCCESS: return "SUCCESS";
    case HSAKMT_STATUS_ERROR: return "ERROR";
    case HSAKMT_STATUS_DRIVER_MISMATCH: return "DRIVER_MISMATCH";
    case HSAKMT_STATUS_INVALID_PARAMETER: return "INVALID_PARAMETER";
    case HSAKMT_STATUS_INVALID_HANDLE: return "INVALID_HANDLE";
    case HSAKMT_STATUS_INVALID_NODE_UNIT: return "INVALID_NODE_UNIT";
    case HSAKMT_STATUS_NO_MEMORY: return "NO_MEMORY";
    case HSAKMT_STATUS_BUFFER_TOO_SMALL: return "BUFFER_TOO_SMALL";
    case HSAKMT_STATUS_NOT_IMPLEMENTED: return "NOT_IMPLEMENTED";
    case HSAKMT_STATUS_NOT_SUPPORTED: return "NOT_SUPPORTED";
    case HSAKMT_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case HSAKMT_STATUS_OUT_OF_RESOURCES: return "OUT_OF_RESOURCES";
    case HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED: return "KERNEL_IO_CHANNEL_NOT_OPENED";
    case HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR: return "KERNEL_COMMUNICATION_ERROR";
    case HSAKMT_STATUS_KERNEL_ALREADY_OPENED: return "KERNEL_ALREADY_OPENED";
    case HSAKMT_STATUS_HSAMMU_UNAVAILABLE: return "HSAMMU_UNAVAILABLE";
    case HSAKMT_STATUS_WAIT_FAILURE: return "WAIT_FAILURE";
    case HSAKMT_STATUS_WAIT_TIMEOUT: return "WAIT_TIMEOUT";
    case HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED: return "MEMORY_ALREADY_REGISTERED";
    case HSAKMT_STATUS_MEMORY_NOT_REGISTERED: return "MEMORY_NOT_REGISTERED";
    case HSAKMT_STATUS_MEMORY_ALIGNMENT: return "MEMORY_ALIGNMENT";
  }
  return "unknown status";
}

// "<call> failed with HSAKMT_STATUS_<name> (<n>)[: <library diagnostic>]"
std::string CallFailed(const std::string& call, HSAKMT_STATUS s) {
  std::string m = Format("%s failed with HSAKMT_STATUS_%s (%d)", call.c_str(), StatusName(s),
                         static_cast<int>(s));
  if (!g_last_error.empty()) m += ": " + g_last_error;
  g_last_error.clear();
  return m;
}

// ---- what the API returned ------------------------------------------------------

// A node with SIMDs is a GPU agent (an APU's combined node included).
bool IsGpu(const HsaNodeProperties& p) { return p.NumFComputeCores != 0; }

// A cache's size in bytes. HsaCacheProperties.CacheSize is in KiB for the
// caches the KFD lists (GPU nodes) and in bytes for the CPU caches the
// library reads from /sys/devices/system/cpu on a node without a KFD GPU
// (upstream's units; rocminfo prints both as KB). A CPU node whose caches
// the KFD itself lists (an old APU's ACPI CRAT) would be misread as bytes:
// the API does not say where a cache came from.
uint64_t CacheBytes(const HsaNodeProperties& p, const HsaCacheProperties& c) {
  return p.KFDGpuID == 0 ? uint64_t{c.CacheSize} : uint64_t{c.CacheSize} << 10;
}

struct NodeInfo {
  HsaNodeProperties props{};
  std::vector<HsaMemoryProperties> mem;
  std::vector<HsaCacheProperties> caches;
  std::vector<HsaIoLinkProperties> links;
};

struct SystemInfo {
  HsaVersionInfo version{};
  HsaSystemProperties sys{};
  HSAKMT_STATUS clock_status = HSAKMT_STATUS_ERROR;
  HsaClockCounters clock{};
  std::vector<NodeInfo> nodes;
};

// Acquire and every getter; *error names the failing call.
bool Collect(SystemInfo* info, std::string* error) {
  HSAKMT_STATUS s = hsaKmtGetVersion(&info->version);
  if (s != HSAKMT_STATUS_SUCCESS) {
    *error = CallFailed("hsaKmtGetVersion", s);
    return false;
  }
  s = hsaKmtAcquireSystemProperties(&info->sys);
  if (s != HSAKMT_STATUS_SUCCESS) {
    *error = CallFailed("hsaKmtAcquireSystemProperties", s);
    return false;
  }
  for (uint32_t n = 0; n < info->sys.NumNodes; ++n) {
    NodeInfo ni;
    s = hsaKmtGetNodeProperties(n, &ni.props);
    if (s != HSAKMT_STATUS_SUCCESS) {
      *error = CallFailed(Format("hsaKmtGetNodeProperties(node %u)", n), s);
      return false;
    }
    const HsaNodeProperties& p = ni.props;
    ni.mem.resize(p.NumMemoryBanks);
    ni.caches.resize(p.NumCaches);
    ni.links.resize(p.NumIOLinks);
    if (!ni.mem.empty()) {
      s = hsaKmtGetNodeMemoryProperties(n, p.NumMemoryBanks, ni.mem.data());
      if (s != HSAKMT_STATUS_SUCCESS) {
        *error = CallFailed(Format("hsaKmtGetNodeMemoryProperties(node %u)", n), s);
        return false;
      }
    }
    if (!ni.caches.empty()) {
      s = hsaKmtGetNodeCacheProperties(n, p.CComputeIdLo, p.NumCaches, ni.caches.data());
      if (s != HSAKMT_STATUS_SUCCESS) {
        *error = CallFailed(Format("hsaKmtGetNodeCacheProperties(node %u)", n), s);
        return false;
      }
    }
    if (!ni.links.empty()) {
      s = hsaKmtGetNodeIoLinkProperties(n, p.NumIOLinks, ni.links.data());
      if (s != HSAKMT_STATUS_SUCCESS) {
        *error = CallFailed(Format("hsaKmtGetNodeIoLinkProperties(node %u)", n), s);
        return false;
      }
    }
    info->nodes.push_back(std::move(ni));
  }
  // The timestamp frequency (optional: reported as unknown when the library
  // or device lacks it) of the first GPU node, node 0 without GPUs.
  uint32_t clock_node = 0;
  for (uint32_t n = static_cast<uint32_t>(info->nodes.size()); n-- > 0;) {
    if (IsGpu(info->nodes[n].props)) clock_node = n;
  }
  info->clock_status = hsaKmtGetClockCounters(clock_node, &info->clock);
  g_last_error.clear();
  return true;
}

// ---- presentation helpers -------------------------------------------------------

std::string Ascii(const HSAuint8* s, size_t capacity) {
  std::string out;
  for (size_t i = 0; i < capacity && s[i] != 0; ++i) out += static_cast<char>(s[i]);
  return out;
}

// The UTF-16 MarketingName as UTF-8 (unpaired surrogates become U+FFFD).
std::string Utf8(const HSAuint16* s, size_t capacity) {
  std::string out;
  for (size_t i = 0; i < capacity && s[i] != 0; ++i) {
    uint32_t c = s[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < capacity && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00u);
      ++i;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      c = 0xFFFD;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// "gfx" + major (decimal) + minor and stepping (hex), as the LLVM target
// names: 9.0.10 -> gfx90a, 11.0.2 -> gfx1102. Empty without a version.
std::string GfxName(const HSA_ENGINE_ID& e) {
  if (e.ui32.Major == 0) return "";
  return Format("gfx%u%x%x", static_cast<unsigned>(e.ui32.Major), static_cast<unsigned>(e.ui32.Minor),
                static_cast<unsigned>(e.ui32.Stepping));
}

// rocminfo's agent name: the gfx target of a GPU, the model name of a CPU.
std::string AgentName(const HsaNodeProperties& p) {
  if (IsGpu(p)) return GfxName(p.EngineId);
  return Utf8(p.MarketingName, HSA_PUBLIC_NAME_SIZE);
}

// PCI address "dddd:bb:dd.f" from Domain and LocationId (bus << 8 | dev << 3 | fn).
std::string PciAddress(const HsaNodeProperties& p) {
  return Format("%04x:%02x:%02x.%x", p.Domain, (p.LocationId >> 8) & 0xff,
                (p.LocationId >> 3) & 0x1f, p.LocationId & 0x7);
}

uint32_t ComputeUnits(const HsaNodeProperties& p) {
  return p.NumSIMDPerCU != 0 ? p.NumFComputeCores / p.NumSIMDPerCU : 0;
}

const char* HeapTypeName(HSA_HEAPTYPE t) {
  switch (t) {
    case HSA_HEAPTYPE_SYSTEM: return "SYSTEM";
    case HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC: return "FRAME_BUFFER_PUBLIC";
    case HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE: return "FRAME_BUFFER_PRIVATE";
    case HSA_HEAPTYPE_GPU_GDS: return "GPU_GDS";
    case HSA_HEAPTYPE_GPU_LDS: return "GPU_LDS";
    case HSA_HEAPTYPE_GPU_SCRATCH: return "GPU_SCRATCH";
    case HSA_HEAPTYPE_DEVICE_SVM: return "DEVICE_SVM";
    case HSA_HEAPTYPE_MMIO_REMAP: return "MMIO_REMAP";
    default: return "UNKNOWN";
  }
}

// Banks that are process apertures (their VirtualBaseAddress is the range).
bool IsAperture(HSA_HEAPTYPE t) {
  return t == HSA_HEAPTYPE_GPU_LDS || t == HSA_HEAPTYPE_GPU_SCRATCH ||
         t == HSA_HEAPTYPE_DEVICE_SVM || t == HSA_HEAPTYPE_MMIO_REMAP;
}

const char* LinkTypeName(HSA_IOLINKTYPE t) {
  switch (static_cast<uint32_t>(t)) {
    case HSA_IOLINKTYPE_UNDEFINED: return "UNDEFINED";
    case HSA_IOLINKTYPE_HYPERTRANSPORT: return "HYPERTRANSPORT";
    case HSA_IOLINKTYPE_PCIEXPRESS: return "PCIE";
    case HSA_IOLINKTYPE_AMBA: return "AMBA";
    case HSA_IOLINKTYPE_MIPI: return "MIPI";
    case HSA_IOLINK_TYPE_QPI_1_1: return "QPI";
    case HSA_IOLINK_TYPE_RAPID_IO: return "RAPID_IO";
    case HSA_IOLINK_TYPE_INFINIBAND: return "INFINIBAND";
    case HSA_IOLINK_TYPE_XGMI: return "XGMI";
    case HSA_IOLINK_TYPE_XGOP: return "XGOP";
    case HSA_IOLINK_TYPE_GZ: return "GZ";
    case HSA_IOLINK_TYPE_ETHERNET_RDMA: return "ETHERNET_RDMA";
    case HSA_IOLINK_TYPE_RDMA_OTHER: return "RDMA_OTHER";
    case HSA_IOLINK_TYPE_OTHER: return "OTHER";
    default: return "RESERVED";
  }
}

// The cache type flags as names: data, instruction, cpu, hsacu.
std::vector<const char*> CacheTypeNames(const HsaCacheType& t) {
  std::vector<const char*> v;
  if (t.ui32.Data) v.push_back("data");
  if (t.ui32.Instruction) v.push_back("instruction");
  if (t.ui32.CPU) v.push_back("cpu");
  if (t.ui32.HSACU) v.push_back("hsacu");
  return v;
}

std::string CacheTypeText(const HsaCacheType& t) {
  std::string s;
  for (const char* n : CacheTypeNames(t)) s += std::string(s.empty() ? "" : "+") + n;
  return s.empty() ? "none" : s;
}

std::string Bytes(uint64_t b) {
  if (b == 0) return "0";
  if (b % (1ull << 30) == 0) return Format("%" PRIu64 " GiB", b >> 30);
  if (b % (1ull << 20) == 0) return Format("%" PRIu64 " MiB", b >> 20);
  if (b % (1ull << 10) == 0) return Format("%" PRIu64 " KiB", b >> 10);
  return Format("%" PRIu64 " B", b);
}

std::string KfdVersion(const HsaVersionInfo& v) {
  return Format("%u.%u", v.KernelInterfaceMajorVersion, v.KernelInterfaceMinorVersion);
}

bool HasClock(const SystemInfo& info) {
  return info.clock_status == HSAKMT_STATUS_SUCCESS && info.clock.SystemClockFrequencyHz != 0;
}

// ---- text output (rocminfo's layout) ------------------------------------------

void Field(const char* name, const std::string& value) {
  std::printf("  %-28s%s\n", (std::string(name) + ":").c_str(), value.c_str());
}

void PrintText(const std::string& source, const SystemInfo& info) {
  hke_capacities caps;
  hke_build_capacities(&caps);
  std::printf("hsakmt-embedded (%s configuration, context %zu bytes)\n", hke_build_configuration(),
              hke_context_storage_size());
  std::printf("  platform   %s\n", source.c_str());
  std::printf("  KFD        interface %s\n", KfdVersion(info.version).c_str());
  std::printf("  capacity   %u nodes, %u GPUs, %u events, %u queues, %u VA objects\n", caps.max_nodes,
              caps.max_gpus, caps.max_events, caps.max_queues, caps.max_va_objects);

  std::printf("\nTopology nodes (%u):\n", info.sys.NumNodes);
  for (size_t n = 0; n < info.nodes.size(); ++n) {
    const HsaNodeProperties& p = info.nodes[n].props;
    if (IsGpu(p)) {
      std::printf("  node %-3zu GPU  gpu_id %-6u %-8s renderD%-4d %s\n", n, p.KFDGpuID,
                  GfxName(p.EngineId).c_str(), static_cast<int>(p.DrmRenderMinor),
                  Utf8(p.MarketingName, HSA_PUBLIC_NAME_SIZE).c_str());
    } else {
      std::printf("  node %-3zu CPU  %u cores  %s\n", n, p.NumCPUCores,
                  Utf8(p.MarketingName, HSA_PUBLIC_NAME_SIZE).c_str());
    }
  }

  std::printf("\n=====================\nHSA System Attributes\n=====================\n");
  Field("KFD version", KfdVersion(info.version));
  Field("Nodes", Format("%u", info.sys.NumNodes));
  Field("Platform OEM", Format("0x%x", info.sys.PlatformOem));
  Field("Platform ID", Format("0x%x", info.sys.PlatformId));
  Field("Platform revision", Format("%u", info.sys.PlatformRev));
  Field("Timestamp frequency",
        HasClock(info) ? Format("%" PRIu64 " Hz", info.clock.SystemClockFrequencyHz)
                       : Format("unknown (hsaKmtGetClockCounters: HSAKMT_STATUS_%s)",
                                StatusName(info.clock_status)));

  std::printf("\n==========\nHSA Agents\n==========\n");
  for (size_t n = 0; n < info.nodes.size(); ++n) {
    const NodeInfo& ni = info.nodes[n];
    const HsaNodeProperties& p = ni.props;
    const bool gpu = IsGpu(p);
    std::printf("*******\nAgent %zu (node %zu)\n*******\n", n + 1, n);
    Field("Name", AgentName(p));
    Field("Marketing name", Utf8(p.MarketingName, HSA_PUBLIC_NAME_SIZE));
    Field("AMD name", Ascii(p.AMDName, HSA_PUBLIC_NAME_SIZE));
    Field("Device type", gpu ? (p.NumCPUCores != 0 ? "GPU (with CPU cores)" : "GPU") : "CPU");
    if (gpu) {
      Field("gfx target", GfxName(p.EngineId));
      if (p.OverrideEngineId.ui32.Major != 0) {
        Field("gfx override", GfxName(p.OverrideEngineId));
      }
      Field("gpu_id (KFD)", Format("%u", p.KFDGpuID));
      Field("Render node", Format("/dev/dri/renderD%d", static_cast<int>(p.DrmRenderMinor)));
      Field("PCI address", PciAddress(p));
      Field("Location id / domain", Format("0x%x / 0x%x", p.LocationId, p.Domain));
      Field("Vendor id / device id", Format("0x%04x / 0x%04x", p.VendorId, p.DeviceId));
      Field("Family id", Format("%u", p.FamilyID));
      Field("Integrated", p.Integrated ? "yes (APU)" : "no");
      Field("XCCs", Format("%u", p.NumXcc));
      Field("Compute units", Format("%u", ComputeUnits(p)));
      Field("SIMDs", Format("%u (%u per CU)", p.NumFComputeCores, p.NumSIMDPerCU));
      Field("Shader engines", Format("%u (%u arrays each, %u CUs per array)", p.NumShaderBanks,
                                     p.NumArrays, p.NumCUPerArray));
      Field("Wavefront size", Format("%u lanes", p.WaveFrontSize));
      Field("Max waves per SIMD", Format("%u", p.MaxWavesPerSIMD));
      Field("Max engine clock", Format("%u MHz", p.MaxEngineClockMhzFCompute));
      Field("Local memory", Bytes(p.LocalMemSize));
      Field("LDS per work-group", Format("%u KiB", p.LDSSizeInKB));
      Field("SDMA engines", Format("%u PCIe, %u XGMI", p.NumSdmaEngines, p.NumSdmaXgmiEngines));
      if (p.HiveID != 0) Field("XGMI hive", Format("0x%" PRIx64, p.HiveID));
      if (p.UniqueID != 0) Field("Unique id", Format("0x%" PRIx64, p.UniqueID));
    }
    if (p.NumCPUCores != 0) {
      Field("CPU cores", Format("%u (first id %u)", p.NumCPUCores, p.CComputeIdLo));
      Field("Max clock (CPU)", Format("%u MHz", p.MaxEngineClockMhzCCompute));
    }

    std::printf("  Memory banks (%zu):\n", ni.mem.size());
    for (size_t i = 0; i < ni.mem.size(); ++i) {
      const HsaMemoryProperties& m = ni.mem[i];
      if (IsAperture(m.HeapType)) {
        std::printf("    %zu  %-20s aperture 0x%" PRIx64 ", %s\n", i, HeapTypeName(m.HeapType),
                    m.VirtualBaseAddress, Bytes(m.SizeInBytes).c_str());
      } else {
        std::printf("    %zu  %-20s %s, width %u bits, max clock %u MHz\n", i,
                    HeapTypeName(m.HeapType), Bytes(m.SizeInBytes).c_str(), m.Width,
                    m.MemoryClockMax);
      }
    }

    // Caches: identical ones (level, type, size, line) are counted together.
    std::printf("  Caches (%zu):\n", ni.caches.size());
    using CacheKey = std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>;  // level, type, bytes, line
    std::vector<CacheKey> order;
    std::map<CacheKey, size_t> count;
    for (const HsaCacheProperties& c : ni.caches) {
      const CacheKey key{c.CacheLevel, c.CacheType.Value, CacheBytes(p, c), c.CacheLineSize};
      if (count[key]++ == 0) order.push_back(key);
    }
    for (const auto& key : order) {
      HsaCacheType t;
      t.Value = std::get<1>(key);
      std::printf("    L%u %-22s %s, line %u B  x %zu\n", std::get<0>(key),
                  CacheTypeText(t).c_str(), Bytes(std::get<2>(key)).c_str(), std::get<3>(key),
                  count[key]);
    }

    std::printf("  IO links (%zu):\n", ni.links.size());
    for (const HsaIoLinkProperties& l : ni.links) {
      std::printf("    -> node %-3u %-14s weight %-3u bandwidth %u..%u MB/s, latency %u..%u ns\n",
                  l.NodeTo, LinkTypeName(l.IoLinkType), l.Weight, l.MinimumBandwidth,
                  l.MaximumBandwidth, l.MinimumLatency, l.MaximumLatency);
    }
  }
}

// ---- JSON output ----------------------------------------------------------------

std::string JsonString(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += static_cast<char>(c);
    } else if (c < 0x20) {
      r += Format("\\u%04x", c);
    } else {
      r += static_cast<char>(c);
    }
  }
  return r + "\"";
}

// Builds one JSON object member by member.
class JsonObject {
 public:
  JsonObject& Raw(const char* key, const std::string& json) {
    text_ += (text_.empty() ? "{" : ",") + JsonString(key) + ":" + json;
    return *this;
  }
  JsonObject& Str(const char* key, const std::string& v) { return Raw(key, JsonString(v)); }
  JsonObject& U64(const char* key, uint64_t v) { return Raw(key, Format("%" PRIu64, v)); }
  JsonObject& Int(const char* key, int64_t v) { return Raw(key, Format("%" PRId64, v)); }
  JsonObject& Bool(const char* key, bool v) { return Raw(key, v ? "true" : "false"); }
  JsonObject& NullableStr(const char* key, const std::string& v) {
    return Raw(key, v.empty() ? "null" : JsonString(v));
  }
  std::string Done() const { return text_.empty() ? "{}" : text_ + "}"; }

 private:
  std::string text_;
};

template <typename T, typename F>
std::string JsonArray(const std::vector<T>& items, F each) {
  std::string r = "[";
  for (size_t i = 0; i < items.size(); ++i) r += (i ? "," : "") + each(items[i]);
  return r + "]";
}

std::string NodeJson(uint32_t n, const NodeInfo& ni) {
  const HsaNodeProperties& p = ni.props;
  const bool gpu = IsGpu(p);
  JsonObject o;
  o.U64("node", n)
      .Str("type", gpu ? "GPU" : "CPU")
      .U64("gpu_id", p.KFDGpuID)
      .Str("name", AgentName(p))
      .Str("marketing_name", Utf8(p.MarketingName, HSA_PUBLIC_NAME_SIZE))
      .Str("amd_name", Ascii(p.AMDName, HSA_PUBLIC_NAME_SIZE))
      .U64("cpu_cores", p.NumCPUCores)
      .U64("simd_count", p.NumFComputeCores)
      .NullableStr("gfx", gpu ? GfxName(p.EngineId) : "")
      .NullableStr("gfx_override", gpu ? GfxName(p.OverrideEngineId) : "")
      .Int("render_minor", p.DrmRenderMinor)
      .U64("location_id", p.LocationId)
      .U64("domain", p.Domain)
      .Raw("pci_address", gpu ? JsonString(PciAddress(p)) : "null")
      .U64("vendor_id", p.VendorId)
      .U64("device_id", p.DeviceId)
      .U64("family_id", p.FamilyID)
      .Bool("integrated", p.Integrated != 0)
      .U64("num_xcc", p.NumXcc)
      .U64("compute_units", ComputeUnits(p))
      .U64("simds_per_cu", p.NumSIMDPerCU)
      .U64("shader_engines", p.NumShaderBanks)
      .U64("arrays_per_engine", p.NumArrays)
      .U64("cus_per_array", p.NumCUPerArray)
      .U64("wavefront_size", p.WaveFrontSize)
      .U64("max_waves_per_simd", p.MaxWavesPerSIMD)
      .U64("max_engine_clock_mhz", gpu ? p.MaxEngineClockMhzFCompute : p.MaxEngineClockMhzCCompute)
      .U64("local_mem_size", p.LocalMemSize)
      .U64("lds_size_kb", p.LDSSizeInKB)
      .U64("hive_id", p.HiveID)
      .U64("unique_id", p.UniqueID);
  o.Raw("mem_banks", JsonArray(ni.mem, [](const HsaMemoryProperties& m) {
    return JsonObject()
        .Str("heap_type", HeapTypeName(m.HeapType))
        .U64("heap_type_id", static_cast<uint32_t>(m.HeapType))
        .U64("size", m.SizeInBytes)
        .U64("width", m.Width)
        .U64("mem_clock_max_mhz", m.MemoryClockMax)
        .U64("virtual_base", m.VirtualBaseAddress)
        .Done();
  }));
  o.Raw("caches", JsonArray(ni.caches, [&p](const HsaCacheProperties& c) {
    return JsonObject()
        .U64("level", c.CacheLevel)
        .Raw("type", JsonArray(CacheTypeNames(c.CacheType),
                               [](const char* s) { return JsonString(s); }))
        .U64("type_bits", c.CacheType.Value)
        .U64("size", CacheBytes(p, c))
        .U64("line_size", c.CacheLineSize)
        .U64("processor_id_low", c.ProcessorIdLow)
        .U64("associativity", c.CacheAssociativity)
        .U64("latency", c.CacheLatency)
        .Done();
  }));
  o.Raw("io_links", JsonArray(ni.links, [](const HsaIoLinkProperties& l) {
    return JsonObject()
        .Str("type", LinkTypeName(l.IoLinkType))
        .U64("type_id", static_cast<uint32_t>(l.IoLinkType))
        .U64("from", l.NodeFrom)
        .U64("to", l.NodeTo)
        .U64("weight", l.Weight)
        .U64("min_bandwidth", l.MinimumBandwidth)
        .U64("max_bandwidth", l.MaximumBandwidth)
        .U64("min_latency", l.MinimumLatency)
        .U64("max_latency", l.MaximumLatency)
        .Done();
  }));
  return o.Done();
}

std::string SmokeJson(const std::vector<hkeinfo::SmokeResult>& results) {
  return JsonArray(results, [](const hkeinfo::SmokeResult& r) {
    return JsonObject()
        .U64("node", r.node)
        .Bool("ok", r.ok)
        .U64("bytes", r.bytes)
        .U64("microseconds", r.microseconds)
        .NullableStr("error", r.error)
        .Done();
  });
}

void PrintSmokeText(const std::vector<hkeinfo::SmokeResult>& results) {
  std::printf("\nSmoke test (SDMA copy system -> VRAM, fence, trap, event wait):\n");
  for (const auto& r : results) {
    if (r.ok) {
      std::printf("  node %u: ok, %" PRIu64 " bytes verified, %" PRIu64 " us doorbell to wake-up\n",
                  r.node, r.bytes, r.microseconds);
    } else {
      std::printf("  node %u: FAILED: %s\n", r.node, r.error.c_str());
    }
  }
}

void PrintJson(const std::string& source, const SystemInfo& info, bool check,
               const std::string& check_report, const std::vector<hkeinfo::SmokeResult>* smoke) {
  JsonObject o;
  o.Str("source", source)
      .Str("configuration", hke_build_configuration())
      .U64("context_bytes", hke_context_storage_size())
      .Raw("kfd_version", JsonObject()
                              .U64("major", info.version.KernelInterfaceMajorVersion)
                              .U64("minor", info.version.KernelInterfaceMinorVersion)
                              .Done())
      .Str("topology_api", "implemented")
      .Raw("system", JsonObject()
                         .U64("nodes", info.sys.NumNodes)
                         .U64("platform_oem", info.sys.PlatformOem)
                         .U64("platform_id", info.sys.PlatformId)
                         .U64("platform_rev", info.sys.PlatformRev)
                         .Raw("timestamp_frequency_hz",
                              HasClock(info) ? Format("%" PRIu64, info.clock.SystemClockFrequencyHz)
                                             : "null")
                         .Done());
  std::string nodes = "[";
  for (size_t n = 0; n < info.nodes.size(); ++n) {
    nodes += (n ? "," : "") + NodeJson(static_cast<uint32_t>(n), info.nodes[n]);
  }
  o.Raw("nodes", nodes + "]");
  if (check) o.Str("check", check_report);
  if (smoke != nullptr) o.Raw("smoke", SmokeJson(*smoke));
  std::printf("%s\n", o.Done().c_str());
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
    } else if (std::strcmp(argv[i], "--smoke") == 0) {
      opt.smoke = true;
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

  // The default context on the chosen platform: the hsaKmt* calls below run
  // on it.
  hke_config cfg{};
  cfg.struct_size = sizeof(cfg);
  cfg.platform = platform;
  cfg.diag = &OnDiag;
  hke_status_t s = hke_default_context_configure(&cfg);
  if (s != HKE_OK) {
    std::fprintf(stderr, "hsakmt-info: cannot configure the library: %s%s%s\n", hke_status_name(s),
                 g_last_error.empty() ? "" : ": ", g_last_error.c_str());
    if (sim != nullptr) kfdsim_destroy(sim);
    return 1;
  }

  int rc = 0;
  const HSAKMT_STATUS open_status = hsaKmtOpenKFD();
  if (open_status != HSAKMT_STATUS_SUCCESS) {
    std::fprintf(stderr, "hsakmt-info: %s on %s\n", CallFailed("hsaKmtOpenKFD", open_status).c_str(),
                 source.c_str());
    rc = 1;
  } else {
    SystemInfo info;
    std::string error;
    if (!Collect(&info, &error)) {
      std::fprintf(stderr, "hsakmt-info: %s\n", error.c_str());
      rc = 1;
    } else {
      std::string check_report;
      if (opt.check && sim != nullptr) {
        check_report = kfdsim::DescribeBoard(kfdsim::Unwrap(sim)->board());
      }
      std::vector<hkeinfo::SmokeResult> smoke;
      if (opt.smoke) {
        std::vector<uint32_t> gpus;
        for (size_t n = 0; n < info.nodes.size(); ++n) {
          if (IsGpu(info.nodes[n].props)) gpus.push_back(static_cast<uint32_t>(n));
        }
        smoke = hkeinfo::RunSmoke(gpus);
        for (const auto& r : smoke) {
          if (!r.ok) {
            std::fprintf(stderr, "hsakmt-info: smoke test on node %u failed: %s\n", r.node,
                         r.error.c_str());
            rc = 1;
          }
        }
      }
      if (opt.json) {
        PrintJson(source, info, opt.check, check_report, opt.smoke ? &smoke : nullptr);
      } else {
        PrintText(source, info);
        if (opt.check) std::printf("\nSimulator check:\n%s", check_report.c_str());
        if (opt.smoke) PrintSmokeText(smoke);
      }
      (void)hsaKmtReleaseSystemProperties();
    }
    (void)hsaKmtCloseKFD();
  }
  if (sim != nullptr) kfdsim_destroy(sim);
  return rc;
}
