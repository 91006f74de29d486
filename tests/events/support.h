// A simulated board behind the default context for the events tests: the
// in-process simulator's platform table wrapped in a small decorator that
// watches WAIT_EVENTS (how many calls are inside the kernel, and the
// kfd_event_data each call passed), a diagnostics log, and the simulator's
// trace lines (one per kernel call) for ioctl assertions.
#ifndef HKE_TESTS_EVENTS_SUPPORT_H_
#define HKE_TESTS_EVENTS_SUPPORT_H_

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "doctest/doctest.h"
#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "lib/context/context.h"
#include "lib/events/events.h"
#include "lib/kfd/abi.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "tests/support/combined_apu_tree.h"
#include "tests/support/sim_board.h"

namespace evtest {

namespace k = hke::kfd;

// The low 16 bits of WAIT_EVENTS, for kfdsim_add_fault.
constexpr uint32_t kWaitKey = k::kIocWaitEvents & 0xFFFFu;

class SimBoard {
 public:
  // `tree` names a fixture under ../shared/fixtures/topology, else `board`
  // a built-in board.
  // `with_clock` false leaves the platform without clock_ns.
  SimBoard(const char* tree, const char* board, uint32_t kfd_minor = 0, bool with_clock = true) {
    std::string dir;
    if (tree != nullptr && tree[0] == '/') dir = tree;  // an absolute tree directory
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.kfd_minor = kfd_minor;
    if (tree != nullptr) {
      if (dir.empty()) dir = std::string(HKE_SHARED_DIR) + "/fixtures/topology/" + tree;
      o.tree_dir = dir.c_str();
    } else {
      o.board_name = board;
    }
    o.trace = &SimBoard::OnTrace;
    o.trace_user = this;
    char error[512] = {};
    const int rc = kfdsim_create(&o, &sim_, error, sizeof(error));
    INFO(error);
    REQUIRE(rc == 0);
    inner_ = hke_sim_platform(sim_);
    ops_ = *inner_.ops;
    ops_.ioctl = &SimBoard::OnIoctl;
    if (!with_clock) ops_.clock_ns = nullptr;
    hke_config c{};
    c.struct_size = sizeof(c);
    // The decorated table keeps the simulator as `self` (every other
    // operation is the simulator's own); the ioctl hook finds the board
    // through Current() (one board at a time).
    Current() = this;
    c.platform = hke_platform{&ops_, inner_.self};
    c.diag = &SimBoard::OnDiag;
    c.diag_user = this;
    REQUIRE(hke_default_context_configure(&c) == HKE_OK);
  }
  ~SimBoard() {
    while (hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS) {
    }
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_linux_platform();
    (void)hke_default_context_configure(&c);
    kfdsim_destroy(sim_);
    Current() = nullptr;
  }
  SimBoard(const SimBoard&) = delete;
  SimBoard& operator=(const SimBoard&) = delete;

  kfdsim_t* sim() { return sim_; }

  // Runs `hook` on the calling thread before every ioctl of `request`
  // reaches the simulator (null: none). Set it while no other thread makes
  // calls.
  void BeforeIoctl(uint32_t request, std::function<void()> hook) {
    hook_request_ = request;
    hook_ = std::move(hook);
  }

  // Stops recording trace lines and wait arrays (long stress runs); the
  // stats and the in-kernel wait count keep working.
  void Quiet() {
    kfdsim_set_trace(sim_, nullptr, nullptr);
    record_waits_.store(false);
  }
  void Loud() {
    kfdsim_set_trace(sim_, &SimBoard::OnTrace, this);
    record_waits_.store(true);
  }

  // OpenKFD + AcquireSystemProperties (the VM comes up with the topology).
  void Open() {
    REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys;
    REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
    num_nodes_ = sys.NumNodes;
  }
  uint32_t num_nodes() const { return num_nodes_; }

  std::vector<std::string> Trace() {
    std::lock_guard<std::mutex> g(mu_);
    return trace_;
  }
  void ClearTrace() {
    std::lock_guard<std::mutex> g(mu_);
    trace_.clear();
  }
  // Trace lines of ioctls and mmaps reduced to their names: ioctls by name
  // without prefix ("!" appended on failure), mmaps as "mmap:<dev>".
  std::vector<std::string> Calls() {
    std::vector<std::string> out;
    for (const std::string& l : Trace()) {
      if (l.find(" ioctl ") != std::string::npos) {
        std::string name = NameOf(l);
        if (l.find("-> ok") == std::string::npos) name += "!";
        out.push_back(name);
      } else if (l.find(" mmap ") != std::string::npos) {
        const size_t d = l.find("dev=");
        const size_t e = l.find(' ', d);
        out.push_back("mmap:" + l.substr(d + 4, e - d - 4));
      }
    }
    return out;
  }
  std::vector<std::string> Ioctls() {
    std::vector<std::string> out;
    for (const std::string& c : Calls()) {
      if (c.rfind("mmap:", 0) != 0) out.push_back(c);
    }
    return out;
  }
  size_t Count(const std::string& name) {
    size_t n = 0;
    for (const std::string& c : Calls()) n += c == name;
    return n;
  }
  // The `in=` (or `out=`) bytes of every traced ioctl named `name`.
  std::vector<std::vector<uint8_t>> Args(const std::string& name, const char* field = "in=") {
    std::vector<std::vector<uint8_t>> out;
    for (const std::string& l : Trace()) {
      if (l.find(" ioctl ") == std::string::npos || NameOf(l) != name) continue;
      const size_t p = l.find(field);
      if (p == std::string::npos) continue;
      std::vector<uint8_t> bytes;
      for (size_t i = p + std::strlen(field); i + 1 < l.size() && std::isxdigit(l[i]); i += 2) {
        bytes.push_back(static_cast<uint8_t>(std::stoul(l.substr(i, 2), nullptr, 16)));
      }
      out.push_back(bytes);
    }
    return out;
  }
  // mmap trace lines.
  std::vector<std::string> Mmaps() {
    std::vector<std::string> out;
    for (const std::string& l : Trace()) {
      if (l.find(" mmap ") != std::string::npos) out.push_back(l);
    }
    return out;
  }
  // An ioctl line's name without prefix. The simulator names a call whose
  // failure was injected "?": the event requests are named by their code.
  static std::string NameOf(const std::string& l) {
    const size_t n = l.find("name=");
    const size_t e = l.find(' ', n);
    std::string name = l.substr(n + 5, e - n - 5);
    for (const char* prefix : {"AMDKFD_IOC_", "DRM_IOCTL_"}) {
      if (name.rfind(prefix, 0) == 0) name = name.substr(std::strlen(prefix));
    }
    if (name != "?") return name;
    const size_t r = l.find("req=0x");
    const uint32_t req = static_cast<uint32_t>(std::stoul(l.substr(r + 6), nullptr, 16));
    const std::pair<uint32_t, const char*> known[] = {
        {k::kIocCreateEvent, "CREATE_EVENT"}, {k::kIocDestroyEvent, "DESTROY_EVENT"},
        {k::kIocSetEvent, "SET_EVENT"},       {k::kIocResetEvent, "RESET_EVENT"},
        {k::kIocWaitEvents, "WAIT_EVENTS"},
    };
    for (const auto& kv : known) {
      if (kv.first == req) return kv.second;
    }
    return name;
  }
  // One traced block read as its ABI structure (tests/support/sim_board.h).
  template <typename T>
  static T As(const std::vector<uint8_t>& b) {
    return hketest::SimBoard::As<T>(b);
  }

  std::vector<std::string> Diags() {
    std::lock_guard<std::mutex> g(mu_);
    return diags_;
  }
  std::string AllDiags() {
    std::string s;
    for (const auto& d : Diags()) s += d + "\n";
    return s;
  }

  // WAIT_EVENTS calls now inside the simulator.
  int WaitsInside() const { return inside_.load(); }
  // The kfd_event_data arrays WAIT_EVENTS calls passed, in call order.
  std::vector<std::vector<k::EventData>> WaitData() {
    std::lock_guard<std::mutex> g(mu_);
    return wait_data_;
  }

  hke::events::Stats Stats() {
    hke::events::Stats st{};
    REQUIRE(hke::events::GetStats(hke_default_context()->impl, &st).ok());
    return st;
  }

 private:
  static SimBoard*& Current() {
    static SimBoard* board = nullptr;
    return board;
  }
  static int OnIoctl(void* self, int fd, uint32_t request, void* arg) {
    SimBoard* b = Current();
    if (b->hook_ && request == b->hook_request_) {
      const std::function<void()> hook = b->hook_;  // the hook may replace itself
      hook();
    }
    if (request != k::kIocWaitEvents) return b->inner_.ops->ioctl(self, fd, request, arg);
    const auto* a = static_cast<const k::WaitEventsArgs*>(arg);
    if (b->record_waits_.load()) {
      std::vector<k::EventData> copy(a->num_events);
      std::memcpy(copy.data(), reinterpret_cast<const void*>(static_cast<uintptr_t>(a->events_ptr)),
                  copy.size() * sizeof(k::EventData));
      std::lock_guard<std::mutex> g(b->mu_);
      b->wait_data_.push_back(std::move(copy));
    }
    b->inside_.fetch_add(1);
    const int rc = b->inner_.ops->ioctl(self, fd, request, arg);
    b->inside_.fetch_sub(1);
    return rc;
  }
  static void OnTrace(void* user, const char* line, size_t length) {
    auto* b = static_cast<SimBoard*>(user);
    std::lock_guard<std::mutex> g(b->mu_);
    b->trace_.emplace_back(line, length);
  }
  static void OnDiag(void* user, const hke_diag_record* r) {
    auto* b = static_cast<SimBoard*>(user);
    std::lock_guard<std::mutex> g(b->mu_);
    b->diags_.push_back(std::string(r->area) + ": " + r->message);
  }

  kfdsim_t* sim_ = nullptr;
  hke_platform inner_{};
  hke_platform_ops ops_{};
  uint32_t num_nodes_ = 0;
  std::atomic<int> inside_{0};
  std::atomic<bool> record_waits_{true};
  uint32_t hook_request_ = 0;
  std::function<void()> hook_;
  std::mutex mu_;
  std::vector<std::string> trace_;
  std::vector<std::string> diags_;
  std::vector<std::vector<k::EventData>> wait_data_;
};

using hketest::CombinedApuTree;

inline HsaEventDescriptor Desc(HSA_EVENTTYPE type = HSA_EVENTTYPE_SIGNAL, uint32_t node = 0) {
  HsaEventDescriptor d;
  std::memset(&d, 0, sizeof(d));
  d.EventType = type;
  d.NodeId = node;
  return d;
}

inline HsaEvent* Create(bool manual_reset = false, bool signaled = false,
                        HSA_EVENTTYPE type = HSA_EVENTTYPE_SIGNAL) {
  HsaEventDescriptor d = Desc(type);
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, manual_reset, signaled, &e) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(e != nullptr);
  return e;
}

// The table slot behind a handle the library handed out.
inline uint32_t SlotOf(const HsaEvent* e) {
  const HsaEvent* base = &hke_default_context()->impl.events().views[0];
  return static_cast<uint32_t>(static_cast<size_t>(e - base) / hke::events::kViews);
}

// The calling thread's kernel id.
inline pid_t ThreadId() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// True when thread `tid` of this process sleeps ('S' in /proc).
inline bool Sleeping(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t p = s.rfind(')');
  return p != std::string::npos && p + 2 < s.size() && s[p + 2] == 'S';
}

// Waits until `n` WAIT_EVENTS calls are inside the simulator and every
// thread in `tids` has slept there for several consecutive checks (the
// simulator blocks a registered waiter on a condition variable; it offers
// no waiter count). Ordering aid only: nothing is asserted on time.
inline void WaitUntilBlocked(SimBoard& b, int n, const std::vector<std::atomic<pid_t>*>& tids) {
  int stable = 0;
  for (int i = 0; i < 15000 && stable < 5; ++i) {
    bool all = b.WaitsInside() >= n;
    for (auto* t : tids) all = all && t->load() != 0 && Sleeping(t->load());
    stable = all ? stable + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(stable >= 5);
}

inline std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " ";
  return s;
}

}  // namespace evtest

#endif  // HKE_TESTS_EVENTS_SUPPORT_H_
