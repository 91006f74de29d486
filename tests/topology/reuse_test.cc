// Reuse of the sysfs parse across Release/Close (lib/api/topology.cc,
// TopologyState in lib/topology/state.h): an Acquire after Release or a
// reopen reads only generation_id while it is unchanged and serves exactly
// what a full parse served; a changed generation_id, a changed render-node
// visibility, a fresh context or HKE_CONFIG_REPARSE_TOPOLOGY parse again; a
// failed parse or a failed generation_id read leaves nothing reusable
// behind. Also the snapshot pieces the reuse rests on
// (Snapshot::ReadGeneration, NodeFilter::begin_attempt).
//
// File reads are counted by a wrapper platform over the in-process
// simulator (non-discovery contexts need its render nodes, DEV_INFO and
// apertures) and by tests/support/fake_platform.h for discovery-only
// contexts and the snapshot-level checks.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "lib/core/diag.h"
#include "lib/core/platform.h"
#include "lib/topology/snapshot.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "tests/support/fake_platform.h"
#include "tests/support/sim_board.h"

namespace {

constexpr const char* kRoot = "/sys/devices/virtual/kfd/kfd/topology";
const std::string kGeneration = std::string(kRoot) + "/generation_id";

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
// context through a wrapper platform that counts file reads, can serve
// replacement text for chosen files, fail chosen reads and opens, and
// pretend to be another process; diagnostics go to `log`.
class SimBoard {
 public:
  SimBoard(const char* tree, const char* board, uint32_t flags = 0) : sim_board_(tree, board) {
    inner_ = sim_board_.platform();
    // Every operation forwards to the simulator's table with its own self;
    // open, read_file, list_dir and process_id are also observed or steered.
    ops_.struct_size = sizeof(ops_);
    ops_.abi_version = HKE_PLATFORM_ABI_VERSION;
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
    ops_.read_fd = [](void* self, int fd, void* buf, size_t cap, size_t* out) {
      return Of(self)->In().read_fd(Of(self)->inner_.self, fd, buf, cap, out);
    };
    ops_.page_size = [](void* self, size_t* out) {
      return Of(self)->In().page_size(Of(self)->inner_.self, out);
    };
    ops_.marketing_name = [](void* self, uint32_t did, uint32_t rev, char* buf, size_t cap) {
      return Of(self)->In().marketing_name(Of(self)->inner_.self, did, rev, buf, cap);
    };
    ops_.open = [](void* self, const char* path, uint32_t f, int* out) {
      SimBoard* b = Of(self);
      ++b->opens[path];
      auto it = b->refuse.find(path);
      if (it != b->refuse.end()) return it->second;
      return b->In().open(b->inner_.self, path, f, out);
    };
    ops_.read_file = [](void* self, const char* path, char* buf, size_t cap, size_t* n) {
      SimBoard* b = Of(self);
      ++b->reads;
      ++b->reads_of[path];
      if (b->before_read) b->before_read(path);
      auto err = b->read_errors.find(path);
      if (err != b->read_errors.end()) return err->second;
      auto it = b->replace.find(path);
      if (it != b->replace.end()) {
        if (it->second.size() > cap) return EFBIG;
        std::memcpy(buf, it->second.data(), it->second.size());
        *n = it->second.size();
        return 0;
      }
      return b->In().read_file(b->inner_.self, path, buf, cap, n);
    };
    ops_.list_dir = [](void* self, const char* path, hke_dirent_fn fn, void* user) {
      SimBoard* b = Of(self);
      ++b->reads;
      return b->In().list_dir(b->inner_.self, path, fn, user);
    };
    ops_.process_id = [](void* self, int32_t* out) {
      SimBoard* b = Of(self);
      if (b->pid != 0) {
        *out = b->pid;
        return 0;
      }
      return b->In().process_id(b->inner_.self, out);
    };
    Configure(flags);
  }
  SimBoard(const SimBoard&) = delete;
  SimBoard& operator=(const SimBoard&) = delete;

  // (Re)creates the default context on this board: a fresh context.
  void Configure(uint32_t flags) {
    sim_board_.UsePlatform(hke_platform{&ops_, this}, &DiagLog::Fn, &log, flags);
  }

  // What the simulator serves for `path`, before any replacement.
  std::string Served(const std::string& path) {
    std::vector<char> buf(1 << 20);
    size_t n = 0;
    REQUIRE(kfdsim_read_file(sim_board_.sim(), path.c_str(), buf.data(), buf.size(), &n) == 0);
    return std::string(buf.data(), n);
  }
  // The generation_id the board serves now (replacement first).
  uint32_t Generation() {
    auto it = replace.find(kGeneration);
    return static_cast<uint32_t>(std::stoul(it != replace.end() ? it->second : Served(kGeneration)));
  }
  // Serves generation + 1 from now on.
  void BumpGeneration() { replace[kGeneration] = std::to_string(Generation() + 1) + "\n"; }

  DiagLog log;
  uint64_t reads = 0;                   // read_file + list_dir calls
  std::map<std::string, int> reads_of;  // read_file calls per path
  std::map<std::string, int> opens;
  std::map<std::string, int> refuse;       // open(path) fails with this errno
  std::map<std::string, int> read_errors;  // read_file(path) fails with this errno
  std::map<std::string, std::string> replace;  // read_file(path) serves this text
  std::function<void(const std::string&)> before_read;
  int32_t pid = 0;  // nonzero: the process id reported

 private:
  static SimBoard* Of(void* self) { return static_cast<SimBoard*>(self); }
  const hke_platform_ops& In() const { return *inner_.ops; }

  hke_platform inner_{};
  hke_platform_ops ops_{};
  // Last: destroyed first, it closes the device through the wrapper while
  // the members above still live, then restores the host platform.
  hketest::SimBoard sim_board_;
};

// Everything the API returns about the topology, as bytes, so that two
// acquires can be compared field for field: `bytes` all of it except the
// MMIO_REMAP banks' addresses (the page is mapped wherever each open of the
// device put it), `parse` what comes from sysfs alone (the memory banks,
// which carry the open device's apertures, and the node's bank count are
// left out).
struct Dump {
  HSAKMT_STATUS status = HSAKMT_STATUS_ERROR;
  uint32_t nodes = 0;
  std::vector<unsigned char> bytes;
  std::vector<unsigned char> parse;
  std::string failed;  // the call that failed
};

template <typename T>
void Append(std::vector<unsigned char>* out, const T* p, size_t n = 1) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  out->insert(out->end(), b, b + sizeof(T) * n);
}

// Acquire and every getter of every node; leaves the snapshot acquired.
Dump AcquireAll() {
  Dump d;
  HsaSystemProperties sys;
  std::memset(&sys, 0, sizeof(sys));
  d.status = hsaKmtAcquireSystemProperties(&sys);
  if (d.status != HSAKMT_STATUS_SUCCESS) {
    d.failed = "acquire";
    return d;
  }
  d.nodes = sys.NumNodes;
  Append(&d.bytes, &sys);
  Append(&d.parse, &sys);
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties p;
    std::memset(&p, 0, sizeof(p));
    HSAKMT_STATUS s = hsaKmtGetNodeProperties(n, &p);
    if (s != HSAKMT_STATUS_SUCCESS) {
      d.status = s;
      d.failed = "node " + std::to_string(n);
      return d;
    }
    Append(&d.bytes, &p);
    HsaNodeProperties q = p;
    q.NumMemoryBanks = 0;
    Append(&d.parse, &q);
    std::vector<HsaMemoryProperties> mem(p.NumMemoryBanks);
    std::vector<HsaCacheProperties> caches(p.NumCaches);
    std::vector<HsaIoLinkProperties> links(p.NumIOLinks);
    if (!mem.empty()) s = hsaKmtGetNodeMemoryProperties(n, p.NumMemoryBanks, mem.data());
    if (s == HSAKMT_STATUS_SUCCESS && !caches.empty()) {
      s = hsaKmtGetNodeCacheProperties(n, 0, p.NumCaches, caches.data());
    }
    if (s == HSAKMT_STATUS_SUCCESS && !links.empty()) {
      s = hsaKmtGetNodeIoLinkProperties(n, p.NumIOLinks, links.data());
    }
    if (s != HSAKMT_STATUS_SUCCESS) {
      d.status = s;
      d.failed = "banks/caches/links of node " + std::to_string(n);
      return d;
    }
    for (HsaMemoryProperties& m : mem) {
      if (m.HeapType == HSA_HEAPTYPE_MMIO_REMAP) m.VirtualBaseAddress = 0;
    }
    Append(&d.bytes, mem.data(), mem.size());
    Append(&d.bytes, caches.data(), caches.size());
    Append(&d.bytes, links.data(), links.size());
    Append(&d.parse, caches.data(), caches.size());
    Append(&d.parse, links.data(), links.size());
  }
  return d;
}

// Release, Close, Open: the cycle after which the snapshot must be retaken.
void Reopen() {
  REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
}

std::string NodeDir(uint32_t n) { return std::string(kRoot) + "/nodes/" + std::to_string(n); }

// Replaces `key`'s value in a properties text.
std::string WithValue(const std::string& text, const std::string& key, const std::string& value) {
  const std::string k = key + " ";
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, k.size(), k) == 0) {
      return text.substr(0, pos) + k + value + text.substr(end);
    }
    pos = end + 1;
  }
  FAIL("key " << key << " not in the properties text");
  return text;
}

}  // namespace

TEST_CASE("after Release and after a reopen, Acquire reads only generation_id and serves the same "
          "topology, on every built-in board and fixture tree") {
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
    SimBoard b(t.tree, t.board);
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    const Dump cold = AcquireAll();
    INFO(cold.failed);
    REQUIRE(cold.status == HSAKMT_STATUS_SUCCESS);
    const uint64_t cold_reads = b.reads;
    CHECK(cold_reads > 3 * uint64_t{cold.nodes});  // the whole tree was read

    // Release and Acquire within one open.
    REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
    b.reads = 0;
    b.reads_of.clear();
    const Dump again = AcquireAll();
    REQUIRE(again.status == HSAKMT_STATUS_SUCCESS);
    CHECK(b.reads == 1);
    CHECK(b.reads_of[kGeneration] == 1);
    CHECK(again.bytes == cold.bytes);

    // Close and reopen: DEV_INFO and apertures come from the new open, the
    // parse is reused.
    Reopen();
    b.reads = 0;
    b.reads_of.clear();
    const Dump warm = AcquireAll();
    REQUIRE(warm.status == HSAKMT_STATUS_SUCCESS);
    CHECK(b.reads == 1);
    CHECK(b.reads_of[kGeneration] == 1);
    CHECK(warm.bytes == cold.bytes);
    REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("a changed generation_id parses again and serves the new topology") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump cold = AcquireAll();
  REQUIRE(cold.status == HSAKMT_STATUS_SUCCESS);
  const uint64_t cold_reads = b.reads;
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  HsaNodeProperties gpu;
  REQUIRE(hsaKmtGetNodeProperties(2, &gpu) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(gpu.NumCaches > 0);

  // The topology changes: new system properties and a GPU's first cache.
  const std::string sysprops = std::string(kRoot) + "/system_properties";
  const std::string cache0 = NodeDir(2) + "/caches/0/properties";
  b.replace[sysprops] = WithValue(b.Served(sysprops), "platform_oem", "4660");
  b.replace[cache0] = WithValue(b.Served(cache0), "size", "12345");
  b.BumpGeneration();

  for (bool reopen : {false, true}) {
    INFO("reopen " << reopen);
    if (reopen) {
      b.BumpGeneration();
      Reopen();
    } else {
      REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
    }
    b.reads = 0;
    b.reads_of.clear();
    const Dump d = AcquireAll();
    REQUIRE(d.status == HSAKMT_STATUS_SUCCESS);
    CHECK(b.reads == 1 + cold_reads);  // generation_id, then the whole tree again
    CHECK(b.reads_of[kGeneration] == 3);
    CHECK(d.bytes != cold.bytes);
    REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    CHECK(sys.PlatformOem == 4660);
    HsaCacheProperties c[1];
    REQUIRE(hsaKmtGetNodeCacheProperties(2, 0, 1, c) == HSAKMT_STATUS_SUCCESS);
    CHECK(c[0].CacheSize == 12345);
  }

  // And the new parse is reused in turn.
  Reopen();
  b.reads = 0;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == 1);
  CHECK(sys.PlatformOem == 4660);
}

TEST_CASE("HKE_CONFIG_REPARSE_TOPOLOGY reads the whole tree on every Acquire") {
  SimBoard b(nullptr, "datacenter-4gpu", HKE_CONFIG_REPARSE_TOPOLOGY);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump cold = AcquireAll();
  REQUIRE(cold.status == HSAKMT_STATUS_SUCCESS);
  const uint64_t cold_reads = b.reads;
  REQUIRE(cold_reads > 10);
  // A second Acquire while acquired still serves the cached snapshot.
  HsaSystemProperties sys;
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == cold_reads);
  for (int round = 0; round < 2; ++round) {
    if (round == 0) {
      REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
    } else {
      Reopen();
    }
    b.reads = 0;
    const Dump d = AcquireAll();
    REQUIRE(d.status == HSAKMT_STATUS_SUCCESS);
    CHECK(b.reads == cold_reads);
    CHECK(d.bytes == cold.bytes);
  }
}

TEST_CASE("a fresh context parses again; its parse is then reused") {
  SimBoard b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump cold = AcquireAll();
  REQUIRE(cold.status == HSAKMT_STATUS_SUCCESS);
  const uint64_t cold_reads = b.reads;
  REQUIRE(hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  b.Configure(0);  // hke_context_deinit + init in place
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  b.reads = 0;
  const Dump fresh = AcquireAll();
  REQUIRE(fresh.status == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == cold_reads);
  CHECK(fresh.parse == cold.parse);
  Reopen();
  b.reads = 0;
  REQUIRE(AcquireAll().status == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == 1);
}

TEST_CASE("a failed re-parse leaves nothing reusable; the next good parse recovers") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump cold = AcquireAll();
  REQUIRE(cold.status == HSAKMT_STATUS_SUCCESS);
  const uint64_t cold_reads = b.reads;

  // The tree changes and one of its last files is malformed: the parse
  // fails after most of the snapshot was rebuilt.
  const std::string link = NodeDir(5) + "/io_links/0/properties";
  b.replace[link] = "type x\n";
  b.BumpGeneration();
  Reopen();
  b.reads = 0;
  HsaSystemProperties sys;
  std::memset(&sys, 0xA5, sizeof(sys));
  CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(b.reads > 10);
  CHECK(b.log.Mentions(link));
  HsaSystemProperties untouched;
  std::memset(&untouched, 0xA5, sizeof(untouched));
  CHECK(std::memcmp(&sys, &untouched, sizeof(sys)) == 0);
  HsaNodeProperties node;
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);

  // Same generation, same broken file: neither the half-built snapshot nor
  // the previous parse is served; the tree is read again and fails again.
  b.reads = 0;
  CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(b.reads > 10);
  Reopen();  // Release and Close succeed on a context whose Acquire failed
  b.reads = 0;
  CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR);
  CHECK(b.reads > 10);

  // The file is repaired (same generation_id): a full parse serves the tree,
  // and the one after it is reused.
  b.replace.erase(link);
  b.reads = 0;
  const Dump fixed = AcquireAll();
  REQUIRE(fixed.status == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == cold_reads);
  CHECK(fixed.bytes == cold.bytes);
  Reopen();
  b.reads = 0;
  const Dump warm = AcquireAll();
  REQUIRE(warm.status == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == 1);
  CHECK(warm.bytes == cold.bytes);
}

TEST_CASE("a generation_id that cannot be read on reuse fails Acquire like a parse, and the parse "
          "is forgotten") {
  SimBoard b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump cold = AcquireAll();
  REQUIRE(cold.status == HSAKMT_STATUS_SUCCESS);
  const uint64_t cold_reads = b.reads;
  Reopen();
  b.read_errors[kGeneration] = EIO;
  b.reads = 0;
  HsaSystemProperties sys;
  CHECK(hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == 1);
  CHECK(b.log.Mentions(kGeneration));
  HsaNodeProperties node;
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  b.read_errors.clear();
  b.reads = 0;
  b.reads_of.clear();
  const Dump d = AcquireAll();
  REQUIRE(d.status == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == cold_reads);
  CHECK(b.reads_of[kGeneration] == 2);
  CHECK(d.bytes == cold.bytes);
}

TEST_CASE("a render node that comes back, or is gone in a forked child, parses again with the "
          "new visibility") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.refuse["/dev/dri/renderD129"] = ENOENT;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump hidden = AcquireAll();
  REQUIRE(hidden.status == HSAKMT_STATUS_SUCCESS);
  CHECK(hidden.nodes == 5);
  for (uint32_t n = 0; n < hidden.nodes; ++n) {
    HsaNodeProperties p;
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(p.DrmRenderMinor != 129);
  }

  // Still missing: the parse is reused (the filter tried the node again).
  const int tries = b.opens["/dev/dri/renderD129"];
  Reopen();
  b.reads = 0;
  b.reads_of.clear();
  const Dump still = AcquireAll();
  REQUIRE(still.status == HSAKMT_STATUS_SUCCESS);
  CHECK(still.nodes == 5);
  CHECK(b.reads == 1);
  CHECK(b.opens["/dev/dri/renderD129"] == tries + 1);
  CHECK(still.bytes == hidden.bytes);

  // Back (generation_id unchanged): parsed again, visible again.
  b.refuse.clear();
  Reopen();
  b.reads = 0;
  b.reads_of.clear();
  const Dump back = AcquireAll();
  REQUIRE(back.status == HSAKMT_STATUS_SUCCESS);
  CHECK(back.nodes == 6);
  CHECK(b.reads_of[kGeneration] == 3);  // the reuse check, then a parse
  const uint64_t full_reads = b.reads - 1;

  // A forked child, where renderD129 is missing: the child opens its own
  // render nodes, the filter hides the GPU, the tree is parsed again.
  b.refuse["/dev/dri/renderD129"] = ENOENT;
  b.pid = 424242;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  b.reads = 0;
  b.reads_of.clear();
  const Dump child = AcquireAll();
  REQUIRE(child.status == HSAKMT_STATUS_SUCCESS);
  CHECK(child.nodes == 5);
  CHECK(b.reads_of[kGeneration] == 3);
  CHECK(b.reads > 10);
  CHECK(b.reads < 1 + full_reads);  // the hidden GPU's files are not read
  CHECK(child.parse == hidden.parse);
}

TEST_CASE("a render node failing with another error on reuse fails Acquire, naming the node, and "
          "the parse is forgotten") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.refuse["/dev/dri/renderD130"] = ENOENT;  // hidden at first
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump first = AcquireAll();
  REQUIRE(first.status == HSAKMT_STATUS_SUCCESS);
  REQUIRE(first.nodes == 5);
  b.refuse["/dev/dri/renderD130"] = EACCES;
  Reopen();
  b.reads = 0;
  HsaSystemProperties sys;
  CHECK(hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == 1);
  CHECK(b.log.Mentions("/dev/dri/renderD130"));
  HsaNodeProperties node;
  CHECK(hsaKmtGetNodeProperties(0, &node) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  b.refuse.clear();
  b.reads_of.clear();
  const Dump d = AcquireAll();
  REQUIRE(d.status == HSAKMT_STATUS_SUCCESS);
  CHECK(d.nodes == 6);
  CHECK(b.reads_of[kGeneration] == 2);  // a parse, no reuse check: the parse was forgotten
}

TEST_CASE("only the filter decisions of the attempt Take returns are re-checked") {
  // generation_id moves during the first attempt, whose filter saw
  // renderD129 missing; the second attempt sees it. The kept parse must
  // record the second attempt's decisions only, so the next Acquire reuses
  // it.
  SimBoard b(nullptr, "datacenter-4gpu");
  b.refuse["/dev/dri/renderD129"] = ENOENT;
  int generation_reads = 0;
  b.before_read = [&](const std::string& path) {
    if (path != kGeneration || ++generation_reads != 2) return;
    b.BumpGeneration();  // the first attempt ends on a new generation
    b.refuse.clear();
  };
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump first = AcquireAll();
  REQUIRE(first.status == HSAKMT_STATUS_SUCCESS);
  CHECK(generation_reads == 4);  // two attempts
  CHECK(first.nodes == 6);
  b.before_read = nullptr;
  Reopen();
  b.reads = 0;
  const Dump warm = AcquireAll();
  REQUIRE(warm.status == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == 1);
  CHECK(warm.bytes == first.bytes);
}

TEST_CASE("a forked child reopens and reuses the parent's parse with its own render nodes") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump parent = AcquireAll();
  REQUIRE(parent.status == HSAKMT_STATUS_SUCCESS);
  const int render_opens = b.opens["/dev/dri/renderD128"];
  b.pid = 424242;  // now "in the child"
  HsaSystemProperties sys;
  CHECK(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);  // the child's own open
  b.reads = 0;
  const Dump child = AcquireAll();
  REQUIRE(child.status == HSAKMT_STATUS_SUCCESS);
  CHECK(b.reads == 1);
  CHECK(child.parse == parent.parse);
  CHECK(b.opens["/dev/dri/renderD128"] == render_opens + 1);  // the child's own
}

// ---- discovery-only contexts over the fake platform -------------------------

namespace {

// A two-node tree (CPU + GPU) the fake platform serves; discovery-only
// contexts need no device, render node or ioctl.
struct FakeTree {
  hke_test::FakePlatform fake;
  DiagLog log;

  explicit FakeTree(uint32_t flags) {
    fake.EnableListDir();
    const std::string r = kRoot;
    fake.files[r + "/generation_id"] = "7\n";
    fake.files[r + "/system_properties"] = "platform_oem 1\nplatform_id 2\nplatform_rev 3\n";
    fake.files[NodeDir(0) + "/gpu_id"] = "0\n";
    fake.files[NodeDir(0) + "/properties"] =
        "cpu_cores_count 4\nsimd_count 0\nmem_banks_count 1\ncaches_count 1\n"
        "io_links_count 1\np2p_links_count 0\n";
    fake.files[NodeDir(0) + "/mem_banks/0/properties"] = "heap_type 0\nsize_in_bytes 4096\n";
    fake.files[NodeDir(0) + "/caches/0/properties"] = "level 1\nsize 32\ntype 1\n";
    fake.files[NodeDir(0) + "/io_links/0/properties"] = "type 2\nnode_from 0\nnode_to 1\nweight 20\n";
    fake.files[NodeDir(1) + "/gpu_id"] = "4660\n";
    fake.files[NodeDir(1) + "/properties"] =
        "cpu_cores_count 0\nsimd_count 64\nmem_banks_count 1\ncaches_count 0\n"
        "io_links_count 1\np2p_links_count 0\ngfx_target_version 90012\ndrm_render_minor 128\n";
    fake.files[NodeDir(1) + "/mem_banks/0/properties"] = "heap_type 1\nsize_in_bytes 8192\n";
    fake.files[NodeDir(1) + "/io_links/0/properties"] = "type 2\nnode_from 1\nnode_to 0\nweight 20\n";
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = fake.platform();
    c.diag = &DiagLog::Fn;
    c.diag_user = &log;
    c.flags = HKE_CONFIG_DISCOVERY_ONLY | flags;
    REQUIRE(hke_default_context_configure(&c) == HKE_OK);
  }
  ~FakeTree() {
    while (hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS) {
    }
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_linux_platform();
    (void)hke_default_context_configure(&c);
  }
  size_t Reads() const { return fake.Count("read_file") + fake.Count("list_dir"); }
};

}  // namespace

TEST_CASE("discovery-only contexts reuse the parse too, and re-parse on a new generation_id") {
  FakeTree t(0);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const Dump cold = AcquireAll();
  REQUIRE(cold.status == HSAKMT_STATUS_SUCCESS);
  REQUIRE(cold.nodes == 2);
  const size_t cold_reads = t.Reads();
  CHECK(cold_reads >= 12);
  Reopen();
  const size_t before = t.fake.calls.size();
  const Dump warm = AcquireAll();
  REQUIRE(warm.status == HSAKMT_STATUS_SUCCESS);
  CHECK(warm.bytes == cold.bytes);
  REQUIRE(t.fake.calls.size() == before + 1);
  CHECK(t.fake.calls.back().op == "read_file");
  CHECK(t.fake.calls.back().path == kGeneration);
  for (const auto& c : t.fake.calls) CHECK(c.path.rfind("/dev/", 0) != 0);  // no device opened

  // The GPU's memory grows with a new generation.
  t.fake.files[NodeDir(1) + "/mem_banks/0/properties"] = "heap_type 1\nsize_in_bytes 16384\n";
  t.fake.files[std::string(kRoot) + "/generation_id"] = "8\n";
  Reopen();
  const size_t reads = t.Reads();
  const Dump changed = AcquireAll();
  REQUIRE(changed.status == HSAKMT_STATUS_SUCCESS);
  CHECK(t.Reads() - reads == 1 + cold_reads);
  HsaMemoryProperties m[1];
  REQUIRE(hsaKmtGetNodeMemoryProperties(1, 1, m) == HSAKMT_STATUS_SUCCESS);
  CHECK(m[0].SizeInBytes == 16384);
}

TEST_CASE("discovery-only with HKE_CONFIG_REPARSE_TOPOLOGY reads the tree on every Acquire") {
  FakeTree t(HKE_CONFIG_REPARSE_TOPOLOGY);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  REQUIRE(AcquireAll().status == HSAKMT_STATUS_SUCCESS);
  const size_t cold_reads = t.Reads();
  Reopen();
  REQUIRE(AcquireAll().status == HSAKMT_STATUS_SUCCESS);
  CHECK(t.Reads() == 2 * cold_reads);
}

TEST_CASE("a context refuses unknown flag bits but accepts HKE_CONFIG_REPARSE_TOPOLOGY") {
  hke_test::FakePlatform fake;
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = fake.platform();
  c.flags = HKE_CONFIG_REPARSE_TOPOLOGY | HKE_CONFIG_DISCOVERY_ONLY;
  CHECK(hke_default_context_configure(&c) == HKE_OK);
  c.flags = 0x80000000u;
  CHECK(hke_default_context_configure(&c) != HKE_OK);
  c.flags = 0;
  c.platform = hke_linux_platform();
  CHECK(hke_default_context_configure(&c) == HKE_OK);
}

// ---- the snapshot pieces ----------------------------------------------------

namespace {

struct Recorder {
  std::vector<std::string> events;
  static hke::Status Filter(void* user, uint32_t sysfs, uint32_t, uint32_t, bool* keep) {
    static_cast<Recorder*>(user)->events.push_back("node " + std::to_string(sysfs));
    *keep = true;
    return hke::Status::Ok();
  }
  static void Begin(void* user) { static_cast<Recorder*>(user)->events.push_back("begin"); }
};

using SmallSnapshot = hke::topology::SnapshotStorage<4, 2, 2, 2>;

}  // namespace

TEST_CASE("Snapshot::ReadGeneration reads one file and leaves the snapshot as it was") {
  FakeTree t(0);  // its files; the snapshot is driven directly here
  hke::Platform platform(t.fake.platform(), 0);
  hke::Diag diag(&DiagLog::Fn, &t.log);
  static SmallSnapshot snap;
  hke::topology::TakeOptions o;
  o.root = kRoot;
  REQUIRE(snap.Take(platform, diag, o).ok());
  REQUIRE(snap.generation() == 7);
  const uint32_t nodes = snap.num_nodes();
  t.fake.files[std::string(kRoot) + "/generation_id"] = "9\n";
  const size_t before = t.fake.calls.size();
  uint32_t g = 0;
  REQUIRE(snap.ReadGeneration(platform, diag, kRoot, &g).ok());
  CHECK(g == 9);
  CHECK(t.fake.calls.size() == before + 1);
  CHECK(snap.valid());
  CHECK(snap.generation() == 7);
  CHECK(snap.num_nodes() == nodes);
  REQUIRE(snap.node(1) != nullptr);
  CHECK(snap.node(1)->gpu_id == 4660);

  // A failure leaves *out and the snapshot alone and explains itself.
  t.fake.files[std::string(kRoot) + "/generation_id"] = "nine\n";
  g = 123;
  CHECK_FALSE(snap.ReadGeneration(platform, diag, kRoot, &g).ok());
  CHECK(g == 123);
  CHECK(snap.valid());
  CHECK(t.log.Mentions("generation_id"));
  t.fake.read_errors[std::string(kRoot) + "/generation_id"] = EACCES;
  CHECK(snap.ReadGeneration(platform, diag, kRoot, &g).is_errno(EACCES));
  CHECK(g == 123);
  CHECK(snap.valid());
}

TEST_CASE("NodeFilter::begin_attempt runs before each generation attempt's filter calls") {
  FakeTree t(0);
  hke::Platform platform(t.fake.platform(), 0);
  hke::Diag diag(&DiagLog::Fn, &t.log);
  static SmallSnapshot snap;
  int generation_reads = 0;
  t.fake.before_read = [&](const std::string& path) {
    if (path == std::string(kRoot) + "/generation_id" && ++generation_reads == 2) {
      t.fake.files[path] = "8\n";  // the first attempt ends on a new generation
    }
  };
  Recorder rec;
  hke::topology::TakeOptions o;
  o.root = kRoot;
  o.filter.fn = &Recorder::Filter;
  o.filter.user = &rec;
  o.filter.begin_attempt = &Recorder::Begin;
  REQUIRE(snap.Take(platform, diag, o).ok());
  CHECK(snap.generation() == 8);
  CHECK(rec.events == std::vector<std::string>{"begin", "node 1", "begin", "node 1"});
}
