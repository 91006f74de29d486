// A simulated board behind the default context, shared by the test areas
// that drive the hsaKmt* API (memory, queues): the in-process simulator's
// platform table, a diagnostics log, and the simulator's trace lines (one
// per kernel call) for ioctl assertions. Not thread-safe to construct; the
// trace and diagnostics logs are.
#ifndef HKE_TESTS_SUPPORT_SIM_BOARD_H_
#define HKE_TESTS_SUPPORT_SIM_BOARD_H_

#include <cctype>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "doctest/doctest.h"
#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"

namespace hketest {

class SimBoard {
 public:
  // `tree` names a fixture under ../shared/fixtures/topology (or is an
  // absolute path to a tree), else `board` a built-in board. `flags` are
  // hke_config flags.
  // `amdgpu_params`: the amdgpu parameters the machine booted with
  // ("noretry=0", kfdsim_options::amdgpu_params), NULL for the defaults.
  SimBoard(const char* tree, const char* board, uint32_t flags = 0, uint32_t kfd_minor = 0,
           const char* amdgpu_params = nullptr) {
    std::string dir;
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.kfd_minor = kfd_minor;
    o.amdgpu_params = amdgpu_params;
    if (tree != nullptr) {
      // An absolute path names a tree a test prepared itself.
      dir = tree[0] == '/' ? std::string(tree)
                           : std::string(HKE_SHARED_DIR) + "/fixtures/topology/" + tree;
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
    platform_ = hke_sim_platform(sim_);
    flags_ = flags;
    UsePlatform(platform_);
  }
  ~SimBoard() {
    while (hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS) {
    }
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_linux_platform();
    (void)hke_default_context_configure(&c);
    kfdsim_destroy(sim_);
  }
  SimBoard(const SimBoard&) = delete;
  SimBoard& operator=(const SimBoard&) = delete;

  kfdsim_t* sim() { return sim_; }
  // The simulator's platform table, and a replacement for it behind the
  // default context (e.g. a decorator over platform()); device closed.
  hke_platform platform() const { return platform_; }
  void UsePlatform(hke_platform p) { UsePlatform(p, &SimBoard::OnDiag, this, flags_); }
  // The same with the caller's diagnostics callback and hke_config flags
  // (a fresh default context; Diags() then records nothing).
  void UsePlatform(hke_platform p, hke_diag_fn diag, void* diag_user, uint32_t flags) {
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = p;
    c.diag = diag;
    c.diag_user = diag_user;
    c.flags = flags;
    REQUIRE(hke_default_context_configure(&c) == HKE_OK);
  }

  // Trace lines recorded so far, and a reset.
  std::vector<std::string> Trace() {
    std::lock_guard<std::mutex> g(mu_);
    return trace_;
  }
  void ClearTrace() {
    std::lock_guard<std::mutex> g(mu_);
    trace_.clear();
  }
  // The ioctl names (name=...) of the recorded trace, in order.
  std::vector<std::string> Ioctls() {
    std::vector<std::string> out;
    for (const std::string& l : Trace()) {
      if (l.find(" ioctl ") == std::string::npos) continue;
      const size_t n = l.find("name=");
      const size_t e = l.find(' ', n);
      std::string name = l.substr(n + 5, e - n - 5);
      for (const char* prefix : {"AMDKFD_IOC_", "DRM_IOCTL_"}) {
        if (name.rfind(prefix, 0) == 0) name = name.substr(std::strlen(prefix));
      }
      if (l.find("-> ok") == std::string::npos) name += "!";
      out.push_back(name);
    }
    return out;
  }
  // The `in=` (or `out=`) bytes of every traced ioctl named `name` (without
  // prefix), in order.
  std::vector<std::vector<uint8_t>> Args(const std::string& name, const char* field = "in=") {
    std::vector<std::vector<uint8_t>> out;
    for (const std::string& l : Trace()) {
      if (l.find(" ioctl ") == std::string::npos) continue;
      if (l.find("_" + name + " ") == std::string::npos) continue;
      if (l.find(field) == std::string::npos) continue;
      out.push_back(FieldBytes(l, field));
    }
    return out;
  }
  // The bytes of the hex field `field` ("in=" / "out=") of one trace line,
  // empty when the line has none. No assertions: trace callbacks use it.
  static std::vector<uint8_t> FieldBytes(const std::string& line, const char* field) {
    std::vector<uint8_t> bytes;
    const size_t p = line.find(field);
    if (p == std::string::npos) return bytes;
    for (size_t i = p + std::strlen(field);
         i + 1 < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])) &&
         std::isxdigit(static_cast<unsigned char>(line[i + 1]));
         i += 2) {
      bytes.push_back(static_cast<uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
    }
    return bytes;
  }
  // One traced argument block read as the ABI structure `T` (lib/kfd/abi.h):
  // the block must be exactly that structure's bytes (the trace records the
  // whole block the request code sizes), so a test names fields instead of
  // byte offsets and a layout change fails here instead of misreading.
  template <typename T>
  static T As(const std::vector<uint8_t>& b) {
    static_assert(std::is_trivially_copyable<T>::value, "an ABI argument block");
    REQUIRE(b.size() == sizeof(T));
    T v{};
    std::memcpy(&v, b.data(), sizeof(T));
    return v;
  }
  // As<T> without assertions, for trace callbacks: false (and `out`
  // untouched) unless the block is exactly T's bytes.
  template <typename T>
  static bool TryAs(const std::vector<uint8_t>& b, T* out) {
    static_assert(std::is_trivially_copyable<T>::value, "an ABI argument block");
    if (b.size() != sizeof(T)) return false;
    std::memcpy(out, b.data(), sizeof(T));
    return true;
  }
  // A block with a variable tail (SVM's attribute records): its fixed head.
  template <typename T>
  static T Head(const std::vector<uint8_t>& b) {
    static_assert(std::is_trivially_copyable<T>::value, "an ABI argument block");
    REQUIRE(b.size() >= sizeof(T));
    T v{};
    std::memcpy(&v, b.data(), sizeof(T));
    return v;
  }
  // The whole records `E` that follow the fixed head `H` in such a block.
  template <typename H, typename E>
  static std::vector<E> Tail(const std::vector<uint8_t>& b) {
    static_assert(std::is_trivially_copyable<E>::value, "an ABI record");
    REQUIRE(b.size() >= sizeof(H));
    REQUIRE((b.size() - sizeof(H)) % sizeof(E) == 0);
    std::vector<E> out((b.size() - sizeof(H)) / sizeof(E));
    if (!out.empty()) std::memcpy(out.data(), b.data() + sizeof(H), out.size() * sizeof(E));
    return out;
  }
  hke_memory_stats Stats() {
    hke_memory_stats st{};
    st.struct_size = sizeof(st);
    REQUIRE(hke_memory_stats_get(hke_default_context(), &st) == HKE_OK);
    return st;
  }
  std::vector<std::string> Diags() {
    std::lock_guard<std::mutex> g(mu_);
    return diags_;
  }
  std::string LastDiag() {
    std::lock_guard<std::mutex> g(mu_);
    return diags_.empty() ? std::string() : diags_.back();
  }
  // The status the last diagnostics record carried (0 when there is none).
  hke_status_t LastDiagStatus() {
    std::lock_guard<std::mutex> g(mu_);
    return diag_statuses_.empty() ? hke_status_t{0} : diag_statuses_.back();
  }
  // Every diagnostic with its level and status ("area: message" as Diags()).
  struct DiagRecord {
    uint32_t level;
    hke_status_t status;
    std::string text;
  };
  std::vector<DiagRecord> DiagRecords() {
    std::lock_guard<std::mutex> g(mu_);
    return records_;
  }

 private:
  static void OnTrace(void* user, const char* line, size_t length) {
    auto* b = static_cast<SimBoard*>(user);
    std::lock_guard<std::mutex> g(b->mu_);
    b->trace_.emplace_back(line, length);
  }
  static void OnDiag(void* user, const hke_diag_record* r) {
    auto* b = static_cast<SimBoard*>(user);
    std::lock_guard<std::mutex> g(b->mu_);
    b->diags_.push_back(std::string(r->area) + ": " + r->message);
    b->diag_statuses_.push_back(r->status);
    b->records_.push_back(DiagRecord{r->level, r->status, b->diags_.back()});
  }

  kfdsim_t* sim_ = nullptr;
  hke_platform platform_{};
  std::mutex mu_;
  std::vector<std::string> trace_;
  std::vector<std::string> diags_;
  std::vector<hke_status_t> diag_statuses_;
  std::vector<DiagRecord> records_;
  uint32_t flags_ = 0;
};

inline HsaMemFlags Flags() {
  HsaMemFlags f;
  f.Value = 0;
  return f;
}

// Acquires the topology and returns the first node with SIMDs (a GPU).
inline uint32_t FirstGpuNode() {
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.NumFComputeCores != 0) return n;
  }
  FAIL("no GPU node");
  return 0;
}

// Acquires the topology and returns the first node without SIMDs (a CPU).
inline uint32_t FirstCpuNode() {
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.NumFComputeCores == 0) return n;
  }
  FAIL("no CPU node");
  return 0;
}

}  // namespace hketest

#endif  // HKE_TESTS_SUPPORT_SIM_BOARD_H_
