// The hsaKmt topology API on the default context over the in-process
// simulator: status contracts (open check, node ids, counts, NULL outputs
// untouched on failure), the cached snapshot, render-node filtering,
// discovery-only contexts, and the key fields of every fixture tree and
// built-in board.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "tests/support/sim_board.h"

namespace {

constexpr const char* kRoot = "/sys/devices/virtual/kfd/kfd/topology";

struct DiagLog {
  std::vector<std::string> messages;
  static void Fn(void* user, const hke_diag_record* r) {
    static_cast<DiagLog*>(user)->messages.push_back(std::string(r->message) + " @ " +
                                                    (r->path != nullptr ? r->path : ""));
  }
  bool Mentions(const std::string& s) const {
    for (const auto& m : messages) {
      if (m.find(s) != std::string::npos) return true;
    }
    return false;
  }
};

// The shared simulated board (tests/support/sim_board.h) behind the default
// context through a wrapper platform that counts file reads and device
// opens and can refuse chosen paths; diagnostics go to `log`.
class Board {
 public:
  Board(const char* tree, const char* board, uint32_t flags = 0) : sim_board_(tree, board) {
    inner_ = sim_board_.platform();
    // Every operation forwards to the simulator's table with its own self.
    ops_.struct_size = sizeof(ops_);
    ops_.abi_version = HKE_PLATFORM_ABI_VERSION;
    ops_.open = [](void* self, const char* path, uint32_t flags, int* out) {
      auto* b = static_cast<Board*>(self);
      ++b->opens[path];
      auto it = b->refuse.find(path);
      if (it != b->refuse.end()) return it->second;
      return b->In().open(b->inner_.self, path, flags, out);
    };
    ops_.read_file = [](void* self, const char* path, char* buf, size_t cap, size_t* n) {
      auto* b = static_cast<Board*>(self);
      ++b->reads;
      return b->In().read_file(b->inner_.self, path, buf, cap, n);
    };
    ops_.list_dir = [](void* self, const char* path, hke_dirent_fn fn, void* user) {
      auto* b = static_cast<Board*>(self);
      ++b->reads;
      return b->In().list_dir(b->inner_.self, path, fn, user);
    };
    ops_.close = [](void* self, int fd) { return Of(self)->In().close(Of(self)->inner_.self, fd); };
    ops_.ioctl = [](void* self, int fd, uint32_t r, void* a) {
      return Of(self)->In().ioctl(Of(self)->inner_.self, fd, r, a);
    };
    ops_.mmap = [](void* self, void* addr, size_t len, uint32_t prot, uint32_t flags, int fd,
                   uint64_t off, void** out) {
      return Of(self)->In().mmap(Of(self)->inner_.self, addr, len, prot, flags, fd, off, out);
    };
    ops_.munmap = [](void* self, void* addr, size_t len) {
      return Of(self)->In().munmap(Of(self)->inner_.self, addr, len);
    };
    ops_.madvise = [](void* self, void* addr, size_t len, uint32_t advice) {
      return Of(self)->In().madvise(Of(self)->inner_.self, addr, len, advice);
    };
    ops_.clock_ns = [](void* self, uint32_t clock, uint64_t* out) {
      return Of(self)->In().clock_ns(Of(self)->inner_.self, clock, out);
    };
    ops_.cpu_count = [](void* self, uint32_t* out) {
      return Of(self)->In().cpu_count(Of(self)->inner_.self, out);
    };
    ops_.process_id = [](void* self, int32_t* out) {
      return Of(self)->In().process_id(Of(self)->inner_.self, out);
    };
    ops_.read_fd = [](void* self, int fd, void* buf, size_t cap, size_t* out) {
      return Of(self)->In().read_fd(Of(self)->inner_.self, fd, buf, cap, out);
    };
    ops_.page_size = [](void* self, size_t* out) {
      return Of(self)->In().page_size(Of(self)->inner_.self, out);
    };
    ops_.marketing_name = [](void* self, uint32_t did, uint32_t rev, char* buf, size_t cap) {
      return Of(self)->In().marketing_name(Of(self)->inner_.self, did, rev, buf, cap);
    };
    sim_board_.UsePlatform(hke_platform{&ops_, this}, &DiagLog::Fn, &log, flags);
  }
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;

  kfdsim_t* sim() { return sim_board_.sim(); }
  std::string Served(const std::string& path) {
    std::vector<char> buf(1 << 20);
    size_t n = 0;
    REQUIRE(kfdsim_read_file(sim(), path.c_str(), buf.data(), buf.size(), &n) == 0);
    return std::string(buf.data(), n);
  }

  DiagLog log;
  std::map<std::string, int> opens;
  std::map<std::string, int> refuse;  // path -> errno returned by open
  uint64_t reads = 0;

 private:
  static Board* Of(void* self) { return static_cast<Board*>(self); }
  const hke_platform_ops& In() const { return *inner_.ops; }

  hke_platform inner_{};
  hke_platform_ops ops_{};
  // Last: destroyed first, it closes the device through the wrapper while
  // the counters above still live, then restores the host platform.
  hketest::SimBoard sim_board_;
};

std::map<std::string, std::string> KeyValues(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string k, v;
    if (ls >> k >> v) kv[k] = v;
  }
  return kv;
}
uint64_t U(const std::map<std::string, std::string>& kv, const char* key) {
  auto it = kv.find(key);
  return it == kv.end() ? 0 : std::stoull(it->second);
}

std::string Ascii(const HSAuint8* s) { return reinterpret_cast<const char*>(s); }
std::string Utf16(const HSAuint16* s) {
  std::string out;
  for (size_t i = 0; i < HSA_PUBLIC_NAME_SIZE && s[i] != 0; ++i) out += static_cast<char>(s[i]);
  return out;
}

template <typename T>
void Fill(T* p, size_t n = 1) {
  std::memset(static_cast<void*>(p), 0xA5, sizeof(T) * n);
}
template <typename T>
bool Untouched(const T* p, size_t n = 1) {
  std::vector<unsigned char> ref(sizeof(T) * n, 0xA5);
  return std::memcmp(p, ref.data(), ref.size()) == 0;
}

}  // namespace

TEST_CASE("topology calls before OpenKFD fail with KERNEL_IO_CHANNEL_NOT_OPENED, outputs untouched") {
  Board b(nullptr, "apu-embedded");
  HsaSystemProperties sys;
  HsaNodeProperties node;
  HsaMemoryProperties mem[2];
  HsaCacheProperties cache[1];
  HsaIoLinkProperties link[1];
  Fill(&sys), Fill(&node), Fill(mem, 2), Fill(cache), Fill(link);
  CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(hsaKmtGetNodeMemoryProperties(0, 1, mem) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(hsaKmtGetNodeCacheProperties(0, 0, 1, cache) ==
        HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(hsaKmtGetNodeIoLinkProperties(0, 1, link) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  CHECK(Untouched(&sys));
  CHECK(Untouched(&node));
  CHECK(Untouched(mem, 2));
  CHECK(Untouched(cache));
  CHECK(Untouched(link));
  // NULL outputs of the getters are refused before the open check, as upstream.
  CHECK(hsaKmtGetNodeProperties(0, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(b.reads == 0);
}

TEST_CASE("getters before Acquire, after Release, and after a reopen report INVALID_NODE_UNIT") {
  Board b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaNodeProperties node;
  Fill(&node);
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
  Fill(&node);
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(Untouched(&node));
  // A snapshot taken before CloseKFD does not survive into the next open.
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(Untouched(&node));
}

TEST_CASE("Acquire takes the snapshot once and serves later calls from the cache") {
  Board b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties first, again;
  Fill(&again);
  CHECK(hsaKmtAcquireSystemProperties(nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  REQUIRE(hsaKmtAcquireSystemProperties(&first) == HSAKMT_STATUS_SUCCESS);
  CHECK(first.NumNodes == 6);
  const uint64_t reads = b.reads;
  CHECK(reads > 0);
  REQUIRE(hsaKmtAcquireSystemProperties(&again) == HSAKMT_STATUS_SUCCESS);
  CHECK(std::memcmp(&first, &again, sizeof(first)) == 0);
  HsaNodeProperties node;
  for (uint32_t n = 0; n < first.NumNodes; ++n) {
    REQUIRE(hsaKmtGetNodeProperties(n, &node) == HSAKMT_STATUS_SUCCESS);
  }
  CHECK(b.reads == reads);  // neither the second Acquire nor the getters read sysfs
  // Every GPU's render node was opened once, and /dev/kfd once.
  CHECK(b.opens["/dev/kfd"] == 1);
  for (uint32_t minor = 128; minor < 132; ++minor) {
    CHECK(b.opens["/dev/dri/renderD" + std::to_string(minor)] == 1);
  }
}

TEST_CASE("getters validate node ids, counts and NULL outputs, leaving outputs untouched") {
  Board b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(sys.NumNodes == 2);
  HsaNodeProperties gpu;
  REQUIRE(hsaKmtGetNodeProperties(1, &gpu) == HSAKMT_STATUS_SUCCESS);

  HsaNodeProperties node;
  Fill(&node);
  CHECK(hsaKmtGetNodeProperties(sys.NumNodes, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(Untouched(&node));

  std::vector<HsaMemoryProperties> mem(gpu.NumMemoryBanks + 1);
  Fill(mem.data(), mem.size());
  CHECK(hsaKmtGetNodeMemoryProperties(1, gpu.NumMemoryBanks + 1, mem.data()) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtGetNodeMemoryProperties(sys.NumNodes, 1, mem.data()) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtGetNodeMemoryProperties(1, 1, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(Untouched(mem.data(), mem.size()));

  std::vector<HsaCacheProperties> caches(gpu.NumCaches + 1);
  Fill(caches.data(), caches.size());
  CHECK(hsaKmtGetNodeCacheProperties(1, 0, gpu.NumCaches + 1, caches.data()) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtGetNodeCacheProperties(sys.NumNodes, 0, 1, caches.data()) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtGetNodeCacheProperties(1, 0, 1, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(Untouched(caches.data(), caches.size()));

  std::vector<HsaIoLinkProperties> links(gpu.NumIOLinks + 1);
  Fill(links.data(), links.size());
  CHECK(hsaKmtGetNodeIoLinkProperties(1, gpu.NumIOLinks + 1, links.data()) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtGetNodeIoLinkProperties(sys.NumNodes, 1, links.data()) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtGetNodeIoLinkProperties(1, 1, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(Untouched(links.data(), links.size()));

  // Fewer entries than the node has: exactly those are written.
  Fill(mem.data(), mem.size());
  REQUIRE(hsaKmtGetNodeMemoryProperties(1, 2, mem.data()) == HSAKMT_STATUS_SUCCESS);
  CHECK(mem[1].HeapType == HSA_HEAPTYPE_GPU_LDS);
  CHECK(Untouched(&mem[2], mem.size() - 2));
}

TEST_CASE("the APU board: synthetic banks from the apertures, names, DEV_INFO fields") {
  Board b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  HsaNodeProperties cpu, gpu;
  REQUIRE(hsaKmtGetNodeProperties(0, &cpu) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtGetNodeProperties(1, &gpu) == HSAKMT_STATUS_SUCCESS);
  CHECK(Utf16(cpu.MarketingName) == "AMD Ryzen Embedded V2748 with Radeon Graphics");
  CHECK(Ascii(cpu.AMDName) == Utf16(cpu.MarketingName));
  CHECK(cpu.NumCaches == 49);  // from the CPU cache directories: caches_count is 0
  CHECK(Ascii(gpu.AMDName) == "Renoir");  // 0x1636 is in the device table
  CHECK(uint32_t{gpu.EngineId.ui32.Major} == 9);
  CHECK(uint32_t{gpu.EngineId.ui32.Stepping} == 12);
  CHECK(gpu.Integrated == 1);  // DEV_INFO's FUSION flag
  CHECK(gpu.NumMemoryBanks == 5);  // VRAM carve-out + LDS + SCRATCH + DEVICE_SVM + MMIO_REMAP
  std::vector<HsaMemoryProperties> mem(gpu.NumMemoryBanks);
  REQUIRE(hsaKmtGetNodeMemoryProperties(1, gpu.NumMemoryBanks, mem.data()) ==
          HSAKMT_STATUS_SUCCESS);
  CHECK(mem[0].HeapType == HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC);
  CHECK(mem[1].HeapType == HSA_HEAPTYPE_GPU_LDS);
  CHECK(mem[1].SizeInBytes == 64 * 1024);
  CHECK(mem[1].VirtualBaseAddress == (1ull << 48));
  CHECK(mem[2].HeapType == HSA_HEAPTYPE_GPU_SCRATCH);
  CHECK(mem[2].SizeInBytes == (1ull << 32));
  CHECK(mem[2].VirtualBaseAddress == (2ull << 48));
  CHECK(mem[3].HeapType == HSA_HEAPTYPE_DEVICE_SVM);
  CHECK(mem[3].VirtualBaseAddress == 0x1000000);
  CHECK(mem[3].SizeInBytes == (1ull << 47) - 0x1000000);
  CHECK(mem[4].HeapType == HSA_HEAPTYPE_MMIO_REMAP);
  CHECK(mem[4].SizeInBytes == 4096);
  CHECK(mem[4].VirtualBaseAddress != 0);  // the page the memory subsystem mapped
}

TEST_CASE("a GPU whose render node is missing or forbidden is hidden, with its links") {
  for (int error : {ENOENT, EPERM}) {
    Board b(nullptr, "datacenter-4gpu");
    b.refuse["/dev/dri/renderD129"] = error;
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    CHECK(sys.NumNodes == 5);
    for (uint32_t n = 0; n < sys.NumNodes; ++n) {
      HsaNodeProperties p;
      REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
      CHECK(p.DrmRenderMinor != 129);
      std::vector<HsaIoLinkProperties> links(p.NumIOLinks);
      if (!links.empty()) {
        REQUIRE(hsaKmtGetNodeIoLinkProperties(n, p.NumIOLinks, links.data()) ==
                HSAKMT_STATUS_SUCCESS);
      }
      for (const auto& l : links) {
        CHECK(l.NodeFrom == n);
        CHECK(l.NodeTo < sys.NumNodes);
      }
    }
  }
}

TEST_CASE("a render node failing with another error fails Acquire, naming the node") {
  Board b(nullptr, "datacenter-4gpu");
  b.refuse["/dev/dri/renderD130"] = EACCES;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  Fill(&sys);
  CHECK(hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS);
  CHECK(Untouched(&sys));
  CHECK(b.log.Mentions("/dev/dri/renderD130"));
  HsaNodeProperties node;
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);
}

TEST_CASE("a discovery-only context reads the topology without /dev/kfd or render nodes") {
  Board b(nullptr, "datacenter-4gpu", HKE_CONFIG_DISCOVERY_ONLY);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  CHECK(sys.NumNodes == 6);
  CHECK(b.opens.count("/dev/kfd") == 0);
  CHECK(b.opens.count("/dev/dri/renderD128") == 0);
  HsaNodeProperties gpu;
  REQUIRE(hsaKmtGetNodeProperties(2, &gpu) == HSAKMT_STATUS_SUCCESS);
  CHECK(gpu.NumMemoryBanks == 1);  // no apertures: sysfs banks only
  CHECK(Ascii(gpu.AMDName) == "Aldebaran");
  CHECK(Utf16(gpu.MarketingName).empty());  // needs the render node's DEV_INFO
}

TEST_CASE("every fixture tree and built-in board: key fields through the API") {
  struct Target {
    const char* tree;
    const char* board;
  };
  const Target targets[] = {{nullptr, "apu-embedded"},
                            {nullptr, "datacenter-4gpu"},
                            {"mi210-8gpu-xgmi", nullptr},
                            {"mi300x-8gpu-cpx", nullptr},
                            {"mi308x-8gpu-cpx", nullptr},
                            {"mixed-gfx906-gfx1102-gfx1032", nullptr}};
  for (const Target& t : targets) {
    const std::string target = t.tree != nullptr ? t.tree : t.board;
    INFO(target);
    Board b(t.tree, t.board);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    const HSAKMT_STATUS s = hsaKmtAcquireSystemProperties(&sys);
    INFO((b.log.messages.empty() ? std::string() : b.log.messages.back()));
    REQUIRE(s == HSAKMT_STATUS_SUCCESS);
    uint32_t sysfs_nodes = 0;
    kfdsim_list_dir(
        b.sim(), (std::string(kRoot) + "/nodes").c_str(),
        [](void* u, const char*, uint32_t) {
          ++*static_cast<uint32_t*>(u);
          return 0;
        },
        &sysfs_nodes);
    CHECK(sys.NumNodes == sysfs_nodes);
    for (uint32_t n = 0; n < sys.NumNodes; ++n) {
      INFO("node " << n);
      const auto kv = KeyValues(b.Served(std::string(kRoot) + "/nodes/" + std::to_string(n) +
                                         "/properties"));
      HsaNodeProperties p;
      REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
      CHECK(p.NumIOLinks == U(kv, "io_links_count") + U(kv, "p2p_links_count"));
      if (p.NumFComputeCores == 0) {
        CHECK(p.NumMemoryBanks == U(kv, "mem_banks_count"));
        CHECK_FALSE(Utf16(p.MarketingName).empty());
        CHECK(Ascii(p.AMDName) == Utf16(p.MarketingName));
        if (U(kv, "caches_count") == 0) {
          CHECK(p.NumCaches > 0);
        } else {
          CHECK(p.NumCaches == U(kv, "caches_count"));
        }
        continue;
      }
      CHECK(p.NumCaches == U(kv, "caches_count"));
      CHECK(p.NumMemoryBanks == U(kv, "mem_banks_count") + 4);  // LDS, scratch, SVM, MMIO
      CHECK(uint32_t{p.EngineId.ui32.Major} == U(kv, "gfx_target_version") / 10000);
      CHECK(p.KFDGpuID != 0);
      CHECK_FALSE(Utf16(p.MarketingName).empty());
      CHECK_FALSE(Ascii(p.AMDName).empty());
      std::vector<HsaMemoryProperties> mem(p.NumMemoryBanks);
      REQUIRE(hsaKmtGetNodeMemoryProperties(n, p.NumMemoryBanks, mem.data()) ==
              HSAKMT_STATUS_SUCCESS);
      const size_t k = U(kv, "mem_banks_count");
      CHECK(mem[k].HeapType == HSA_HEAPTYPE_GPU_LDS);
      CHECK(mem[k].SizeInBytes == U(kv, "lds_size_in_kb") * 1024);
      CHECK(mem[k + 1].HeapType == HSA_HEAPTYPE_GPU_SCRATCH);
      CHECK(mem[k + 2].HeapType == HSA_HEAPTYPE_DEVICE_SVM);
      std::vector<HsaCacheProperties> caches(p.NumCaches);
      if (!caches.empty()) {
        REQUIRE(hsaKmtGetNodeCacheProperties(n, 0, p.NumCaches, caches.data()) ==
                HSAKMT_STATUS_SUCCESS);
        const auto c0 = KeyValues(b.Served(std::string(kRoot) + "/nodes/" + std::to_string(n) +
                                           "/caches/0/properties"));
        CHECK(caches[0].CacheSize == U(c0, "size"));
        CHECK(caches[0].CacheType.Value == U(c0, "type"));
      }
    }
    CHECK(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("the Linux platform names a GPU from libdrm's amdgpu.ids, ENOENT when unlisted") {
  const hke_platform_ops* ops = hke_linux_platform_ops();
  REQUIRE(static_cast<bool>(ops->marketing_name));
  char name[64];
  std::memset(name, 0xA5, sizeof(name));
  REQUIRE(ops->marketing_name(nullptr, 0x740F, 0x02, name, sizeof(name)) == 0);
  CHECK(std::string(name) == "AMD Instinct MI210");
  CHECK(ops->marketing_name(nullptr, 0x740F, 0xEE, name, sizeof(name)) == ENOENT);
  char small[8];
  REQUIRE(ops->marketing_name(nullptr, 0x740F, 0x02, small, sizeof(small)) == 0);
  CHECK(std::string(small) == "AMD Ins");  // cut to the capacity, NUL included
}
