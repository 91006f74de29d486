// Hostile kernel replies: a simulated board behind the default context
// whose reply tamper (kfdsim_set_tamper) rewrites one request's replies,
// and the table-driven runner every hostile test uses.
//
// A Case names the request to corrupt, how (a function of the reply copy
// and the handler's result), the setup before it, the hsaKmt* call that
// triggers it (which pre-fills its outputs with a pattern and reports
// whether they were left untouched), the expected HSAKMT status and the
// diagnostic text. Run() then checks, in order: the corruption was applied;
// the status; the outputs; an error diagnostic (with the PROTOCOL status
// when the expected status is KERNEL_COMMUNICATION_ERROR) naming the
// problem, or the warning of a tolerated reply; no leak (the memory
// subsystem's object and range-node counts, the handle aperture, the event
// table and the simulator's BOs, except what the kernel made and the reply
// hid from the library); the memory invariants; the case's own checks; that
// the library still works once the tamper is removed; and, once the board
// is gone, that no descriptor outlived it.
//
// Threading: one test thread; the tamper runs on the calling thread.
#ifndef HKE_TESTS_HOSTILE_SUPPORT_H_
#define HKE_TESTS_HOSTILE_SUPPORT_H_

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "lib/context/context.h"
#include "lib/events/events.h"
#include "lib/kfd/abi.h"
#include "lib/kfd/drm_abi.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"

namespace hostile {

namespace k = hke::kfd;

// The pattern outputs are pre-filled with.
constexpr uint8_t kPattern = 0xA5;

template <typename T>
void Fill(T* p) {
  std::memset(static_cast<void*>(p), kPattern, sizeof(T));
}
template <typename T>
bool Untouched(const T& v) {
  const auto* b = reinterpret_cast<const uint8_t*>(&v);
  return std::all_of(b, b + sizeof(T), [](uint8_t x) { return x == kPattern; });
}

struct DiagRecord {
  uint32_t level;
  hke_status_t status;
  std::string area;
  std::string message;
};

// One call of the armed request, as the tamper sees it.
struct Hit {
  uint32_t request = 0;
  uint8_t* reply = nullptr;  // copy of the caller's argument (nullptr when none)
  size_t size = 0;
  int result = 0;            // the handler's result
  uint32_t n = 0;            // 1-based count of calls of the armed request
  bool applied = false;      // set by the corruption when it changed something
  // The reply as T, or nullptr when it is shorter than T.
  template <typename T>
  T* As() const {
    return reply != nullptr && size >= sizeof(T) ? reinterpret_cast<T*>(reply) : nullptr;
  }
};
// Returns the result the caller gets.
using Corrupt = std::function<int(Hit&)>;

class Board {
 public:
  explicit Board(const char* board, uint32_t flags = 0) {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = board;
    o.trace = &Board::OnTrace;
    o.trace_user = this;
    char error[512] = {};
    const int rc = kfdsim_create(&o, &sim_, error, sizeof(error));
    INFO(error);
    REQUIRE(rc == 0);
    platform_ = hke_sim_platform(sim_);
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = platform_;
    c.diag = &Board::OnDiag;
    c.diag_user = this;
    c.flags = flags;
    REQUIRE(hke_default_context_configure(&c) == HKE_OK);
  }
  ~Board() {
    kfdsim_set_tamper(sim_, nullptr, nullptr);
    HSAKMT_STATUS last = HSAKMT_STATUS_SUCCESS;
    while ((last = hsaKmtCloseKFD()) == HSAKMT_STATUS_SUCCESS) {
    }
    CHECK_MESSAGE(last == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED,
                  "hsaKmtCloseKFD failed (" << static_cast<int>(last) << "): the device stays open");
    // A close the library refuses would leave the default context open on
    // a simulator about to be destroyed: force it closed.
    if (last != HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED) hke_context_deinit(hke_default_context());
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_linux_platform();
    CHECK(hke_default_context_configure(&c) == HKE_OK);
    kfdsim_destroy(sim_);
  }
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;

  kfdsim_t* sim() { return sim_; }
  kfdsim::Simulator* core() { return kfdsim::Unwrap(sim_); }

  // Corrupts every later call whose type and nr are those of `request`.
  void Arm(uint32_t request, Corrupt fn) {
    {
      std::lock_guard<std::mutex> g(mu_);
      type_ = k::IocType(request);
      nr_ = k::IocNr(request);
      corrupt_ = std::move(fn);
      calls_ = 0;
      applied_ = 0;
    }
    kfdsim_set_tamper(sim_, &Board::OnTamper, this);
  }
  void Disarm() { kfdsim_set_tamper(sim_, nullptr, nullptr); }
  uint32_t calls() {
    std::lock_guard<std::mutex> g(mu_);
    return calls_;
  }
  uint32_t applied() {
    std::lock_guard<std::mutex> g(mu_);
    return applied_;
  }

  std::vector<DiagRecord> Diags() {
    std::lock_guard<std::mutex> g(mu_);
    return diags_;
  }
  void ClearDiags() {
    std::lock_guard<std::mutex> g(mu_);
    diags_.clear();
  }
  std::string AllDiags() {
    std::string s;
    for (const DiagRecord& d : Diags()) {
      s += (d.level == HKE_DIAG_ERROR ? "E " : d.level == HKE_DIAG_WARNING ? "W " : "I ");
      s += d.area + ": " + d.message + " [" + hke_status_name(d.status) + "]\n";
    }
    return s;
  }
  std::vector<std::string> Trace() {
    std::lock_guard<std::mutex> g(mu_);
    return trace_;
  }
  void ClearTrace() {
    std::lock_guard<std::mutex> g(mu_);
    trace_.clear();
  }
  // The last `max` trace lines, for failure messages.
  std::string LastTrace(size_t max = 12) {
    const std::vector<std::string> t = Trace();
    std::string s;
    for (size_t i = t.size() > max ? t.size() - max : 0; i < t.size(); ++i) {
      s += t[i].size() > 400 ? t[i].substr(0, 400) + "...\n" : t[i];
    }
    return s;
  }
  // Trace lines of the ioctl named `name` (without prefix), in order.
  std::vector<std::string> Lines(const std::string& name) {
    std::vector<std::string> out;
    for (const std::string& l : Trace()) {
      if (l.find(" ioctl ") != std::string::npos && l.find("_" + name + " ") != std::string::npos) {
        out.push_back(l);
      }
    }
    return out;
  }

 private:
  static void OnTrace(void* user, const char* line, size_t length) {
    auto* b = static_cast<Board*>(user);
    std::lock_guard<std::mutex> g(b->mu_);
    b->trace_.emplace_back(line, length);
  }
  static void OnDiag(void* user, const hke_diag_record* r) {
    auto* b = static_cast<Board*>(user);
    std::lock_guard<std::mutex> g(b->mu_);
    b->diags_.push_back(DiagRecord{r->level, r->status, r->area != nullptr ? r->area : "",
                                   r->message != nullptr ? r->message : ""});
  }
  static int OnTamper(void* user, uint32_t request, void* reply, size_t size, int result) {
    auto* b = static_cast<Board*>(user);
    Corrupt fn;
    Hit h;
    {
      std::lock_guard<std::mutex> g(b->mu_);
      if (k::IocType(request) != b->type_ || k::IocNr(request) != b->nr_) return result;
      fn = b->corrupt_;
      h.n = ++b->calls_;
    }
    h.request = request;
    h.reply = static_cast<uint8_t*>(reply);
    h.size = size;
    h.result = result;
    const int out = fn(h);
    if (h.applied) {
      std::lock_guard<std::mutex> g(b->mu_);
      ++b->applied_;
    }
    return out;
  }

  kfdsim_t* sim_ = nullptr;
  hke_platform platform_{};
  std::mutex mu_;
  std::vector<std::string> trace_;
  std::vector<DiagRecord> diags_;
  uint8_t type_ = 0;
  uint8_t nr_ = 0;
  Corrupt corrupt_;
  uint32_t calls_ = 0;
  uint32_t applied_ = 0;
};

// What the library and the simulator hold at one moment.
struct Holdings {
  hke_memory_stats mem{};
  uint32_t events_live = 0;
  size_t sim_bos = 0;
};

// This process's open descriptors (without the one listing them).
inline std::vector<int> OpenFds() {
  std::vector<int> out;
  DIR* d = opendir("/proc/self/fd");
  REQUIRE(d != nullptr);
  const int self = dirfd(d);
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd != self) out.push_back(fd);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

inline Holdings Snapshot(Board& b) {
  Holdings h;
  h.mem.struct_size = sizeof(h.mem);
  REQUIRE(hke_memory_stats_get(hke_default_context(), &h.mem) == HKE_OK);
  hke::events::Stats es{};
  REQUIRE(hke::events::GetStats(hke_default_context()->impl, &es).ok());
  h.events_live = es.live;
  h.sim_bos = b.core()->BoCount();
  return h;
}

// What setup made, for the trigger and the checks.
struct Env {
  explicit Env(Board& board) : b(board) {}
  Board& b;
  std::vector<uint32_t> gpu_nodes;  // user node ids of the GPUs
  std::vector<uint32_t> gpu_ids;    // their KFD gpu_ids
  HsaSystemProperties sys{};
  void* mem = nullptr;              // an allocation of the case
  uint64_t mem_size = 0;
  void* victim = nullptr;           // an allocation a hostile handle names
  uint64_t victim_handle = 0;
  int dmabuf_fd = -1;
  HsaSharedMemoryHandle share{};
  HsaEvent* event = nullptr;        // a live event a hostile id names
  HsaEvent* event2 = nullptr;
  void* host = nullptr;             // malloc'd memory (SVM cases)
  int hidden_fd = -1;               // the real descriptor a corrupted reply replaced
  uint32_t hidden_id = 0;           // the real kernel id a corrupted reply replaced
  ~Env() {
    if (dmabuf_fd >= 0) close(dmabuf_fd);
    if (host != nullptr) free(host);
  }
  uint32_t OtherGpuId(uint32_t gpu_id) const {
    for (uint32_t id : gpu_ids) {
      if (id != gpu_id) return id;
    }
    return gpu_id ^ 0x5a5a;
  }
};

struct Outcome {
  HSAKMT_STATUS status;
  bool untouched;  // every output the call has still holds the pattern
};

struct Case {
  const char* name;
  const char* board;
  uint32_t request;                          // the request whose replies are corrupted
  std::function<int(Hit&, Env&)> corrupt;
  std::function<void(Env&)> setup;
  std::function<Outcome(Env&)> trigger;
  HSAKMT_STATUS expect;
  // Error diagnostic text for a failing call; warning text for a reply the
  // library tolerates; nullptr: no diagnostic required.
  const char* diag;
  int kernel_bos_kept = 0;  // BOs the kernel made that the reply hid from the library
  // The corruption hid a descriptor the kernel made (recorded in
  // Env::hidden_fd): it must still be open after the call, and is closed.
  bool hides_fd = false;
  std::function<void(Env&)> verify;  // case-specific checks right after the call
  std::function<void(Env&)> after;   // the library still works (tamper removed)
  uint32_t flags = 0;                // hke_config flags
};

// ---- common setup and trigger pieces ----

inline void Open(Env&) { REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS); }

inline void CollectGpus(Env& e) {
  e.gpu_nodes.clear();
  e.gpu_ids.clear();
  for (uint32_t n = 0; n < e.sys.NumNodes; ++n) {
    HsaNodeProperties p;
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.KFDGpuID != 0) {
      e.gpu_nodes.push_back(n);
      e.gpu_ids.push_back(p.KFDGpuID);
    }
  }
  REQUIRE(!e.gpu_nodes.empty());
}

inline void OpenAcquire(Env& e) {
  Open(e);
  REQUIRE(hsaKmtAcquireSystemProperties(&e.sys) == HSAKMT_STATUS_SUCCESS);
  CollectGpus(e);
}

inline HsaMemFlags VramFlags(bool host_access = true) {
  HsaMemFlags f;
  f.Value = 0;
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = host_access ? 1 : 0;
  return f;
}

// A VRAM allocation on GPU `index` (host-visible), returned with its KFD
// handle read from the ALLOC reply in the trace.
inline void* AllocVram(Env& e, size_t index, uint64_t size, uint64_t* out_handle = nullptr) {
  void* p = nullptr;
  e.b.ClearTrace();
  REQUIRE(hsaKmtAllocMemory(e.gpu_nodes.at(index), size, VramFlags(), &p) == HSAKMT_STATUS_SUCCESS);
  if (out_handle != nullptr) {
    const auto lines = e.b.Lines("ALLOC_MEMORY_OF_GPU");
    REQUIRE(lines.size() == 1);
    const size_t at = lines[0].find("out=");
    REQUIRE(at != std::string::npos);
    // AllocMemoryOfGpuArgs.handle: bytes 16..23, little endian.
    uint64_t h = 0;
    for (int i = 7; i >= 0; --i) {
      h = (h << 8) | std::stoul(lines[0].substr(at + 4 + 2 * (16 + static_cast<size_t>(i)), 2),
                                nullptr, 16);
    }
    *out_handle = h;
  }
  return p;
}

// The library works: a VRAM allocation on the first GPU maps, unmaps and
// frees, and the memory invariants hold.
inline void MemoryWorks(Env& e) {
  void* p = nullptr;
  CHECK(hsaKmtAllocMemory(e.gpu_nodes.at(0), 1 << 16, VramFlags(), &p) == HSAKMT_STATUS_SUCCESS);
  if (p == nullptr) return;
  static_cast<volatile char*>(p)[10] = 7;
  HSAuint64 alt = 0;
  CHECK(hsaKmtMapMemoryToGPU(p, 1 << 16, &alt) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(p, 1 << 16) == HSAKMT_STATUS_SUCCESS);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}

inline bool HasDiag(const std::vector<DiagRecord>& d, uint32_t level, const char* text,
                    bool protocol) {
  for (const DiagRecord& r : d) {
    if (r.level != level || r.message.find(text) == std::string::npos) continue;
    if (protocol && !(hke_status_domain(r.status) == HKE_DOMAIN_API &&
                      hke_status_code(r.status) == HKE_STATUS_PROTOCOL)) {
      continue;
    }
    return true;
  }
  return false;
}

// Runs one case on a fresh board (see the file comment for the checks).
inline void RunOnBoard(const Case& c) {
  Board b(c.board, c.flags);
  Env env(b);
  if (c.setup) c.setup(env);
  const Holdings before = Snapshot(b);
  b.ClearDiags();
  b.ClearTrace();
  b.Arm(c.request, [&](Hit& h) { return c.corrupt(h, env); });
  const Outcome o = c.trigger(env);
  b.Disarm();
  INFO("diagnostics:\n" << b.AllDiags());
  INFO("trace (last lines):\n" << b.LastTrace());
  CHECK_MESSAGE(b.applied() >= 1, "the corruption was never applied");
  CHECK(o.status == c.expect);
  CHECK_MESSAGE(o.untouched, "an output was written by a failing (or corrupted) call");
  const std::vector<DiagRecord> diags = b.Diags();
  if (c.diag != nullptr) {
    if (c.expect == HSAKMT_STATUS_SUCCESS) {
      CHECK_MESSAGE(HasDiag(diags, HKE_DIAG_WARNING, c.diag, false),
                    "no warning containing \"" << std::string(c.diag) << "\"");
    } else {
      CHECK_MESSAGE(HasDiag(diags, HKE_DIAG_ERROR, c.diag,
                            c.expect == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR),
                    "no error diagnostic containing \"" << std::string(c.diag) << "\""
                        << std::string(c.expect == HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR
                                           ? " with status PROTOCOL"
                                           : ""));
    }
  }
  if (c.expect != HSAKMT_STATUS_SUCCESS) {
    const Holdings now = Snapshot(b);
    CHECK(now.mem.live_objects == before.mem.live_objects);
    CHECK(now.mem.range_nodes_used == before.mem.range_nodes_used);
    CHECK(now.mem.handle_aperture_free == before.mem.handle_aperture_free);
    CHECK(now.events_live == before.events_live);
    CHECK(now.sim_bos == before.sim_bos + static_cast<size_t>(c.kernel_bos_kept));
  }
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  if (c.verify) c.verify(env);
  if (c.hides_fd) {
    REQUIRE(env.hidden_fd >= 0);
    CHECK_MESSAGE(fcntl(env.hidden_fd, F_GETFD) != -1, "the hidden descriptor was closed");
    close(env.hidden_fd);
  }
  b.ClearDiags();
  if (c.after) c.after(env);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}

// RunOnBoard, then: once the board (the library's open and the simulator)
// is gone, this process has exactly the descriptors it had before.
inline void Run(const Case& c) {
  INFO("case: " << std::string(c.name) << " (board " << std::string(c.board) << ")");
  const std::vector<int> fds = OpenFds();
  RunOnBoard(c);
  CHECK_MESSAGE(OpenFds() == fds, "a descriptor leaked");
}

// Runs every case of a table, one doctest subcase each.
inline void RunAll(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SUBCASE(c.name) { Run(c); }
  }
}

}  // namespace hostile

#endif  // HKE_TESTS_HOSTILE_SUPPORT_H_
