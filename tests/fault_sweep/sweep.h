// The fault-injection sweep harness (issue #9 item 3, issue #5 item 5).
//
// A scenario is a short sequence of hsaKmt* calls on the default context,
// run on a FRESH in-process simulator each time:
//
//   prepare  (not faulted)  e.g. OpenKFD + AcquireSystemProperties
//   arrange  (not faulted)  objects the swept calls work on
//   act      (faulted)      the swept calls, each one a Run::Step; act
//                           releases whatever its own successful steps made
//   cleanup  (not faulted)  releases what arrange made
//
// The platform stack is  library -> Ledger -> faults decorator -> simulator.
// The Ledger (sweep_support.cc) records every platform call the library makes and
// the resources the library holds through the platform (descriptors,
// mapped address ranges); the faults decorator (hsakmt_faults.h) fails
// the chosen call; the simulator's trace gives the kernel BOs (ALLOC,
// IMPORT_DMABUF, IPC_IMPORT_HANDLE vs FREE, by handle).
//
// Sweep: one counting run (no rule) gives the number of calls of each
// operation during `act`; then for every operation, every call k and every
// errno relevant to that call, a run fails exactly call k (or, for the
// "persistent EINTR" case, call k and the bounded retries that follow it)
// and the harness checks the contract (README.md): no crash; the step that
// saw the failure returns a status other than SUCCESS unless the failure is
// retried away or tolerated (Tolerated() in sweep_support.cc, each case
// justified there); outputs untouched on failure; the library's state and
// the platform agree (descriptors, mappings, BOs) after act and after
// cleanup; no slot, range node, descriptor, mapping or BO leaked; the
// context still works (open, acquire, alloc, map, unmap, free, close); and
// after the last close and the context's teardown nothing is left (the
// process's descriptor count and /proc/self/maps are back to where they
// were before the simulator was created).
//
// Single-threaded by design (the default context is global); the harness
// owns the default context's configuration for the duration of a run.
#ifndef HKE_TESTS_FAULT_SWEEP_SWEEP_H_
#define HKE_TESTS_FAULT_SWEEP_SWEEP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_faults.h"

namespace sweep {

// Disjoint [start, end) address ranges.
class RangeSet {
 public:
  void Add(uint64_t start, uint64_t end);
  void Remove(uint64_t start, uint64_t end);
  bool Empty() const { return r_.empty(); }
  uint64_t Bytes() const;
  bool operator==(const RangeSet& o) const { return r_ == o.r_; }
  bool operator!=(const RangeSet& o) const { return r_ != o.r_; }
  // "[0x7f..-0x7f..) 12288 B, ..." (at most `max` ranges).
  std::string Describe(size_t max = 6) const;
  const std::map<uint64_t, uint64_t>& ranges() const { return r_; }

 private:
  std::map<uint64_t, uint64_t> r_;  // start -> end
};

// One platform call as the library made it (through the faults layer, so
// an injected failure shows its errno).
struct Call {
  uint32_t op = 0;       // hke_faults_op
  int result = 0;        // 0 or the errno
  uint32_t request = 0;  // ioctl request code
  int fd = -1;           // open: the descriptor; close/ioctl/mmap/read_fd: the argument
  uint64_t addr = 0;     // mmap: the result (or the hint when it failed); munmap/madvise
  uint64_t len = 0;
  uint32_t prot = 0;   // mmap
  uint32_t flags = 0;  // mmap, open
  std::string path;    // open, read_file, list_dir
  // "ioctl AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", "open /dev/kfd",
  // "mmap anon PROT_NONE len=12288", "read_file /sys/...".
  std::string Describe() const;
};

// What one injected fault is.
struct Fault {
  uint32_t op = 0;          // hke_faults_op
  uint64_t k = 0;           // 1-based call number of `op` during act
  int error = 0;            // errno
  bool persistent = false;  // EINTR on call k and on every retry of it
  std::string Describe() const;
};

// What one step (one hsaKmt* call inside act) did.
struct StepRecord {
  std::string api;
  HSAKMT_STATUS status = HSAKMT_STATUS_SUCCESS;
  bool injected = false;  // the fault fired during this step
  size_t first_diag = 0;  // diagnostics [first_diag, end_diag) came from this step
  size_t end_diag = 0;
};

struct Diag {
  uint32_t level;
  std::string text;  // "memory: ALLOC_MEMORY_OF_GPU failed: ENOMEM (ENOMEM)"
};

class Run;

// One scenario body; a fresh instance per run.
class Body {
 public:
  virtual ~Body() = default;
  // Default: OpenKFD + AcquireSystemProperties (brings the GPU VM up).
  virtual void Prepare(Run& r);
  virtual void Arrange(Run&) {}
  virtual void Act(Run& r) = 0;
  virtual void Cleanup(Run&) {}
};

struct Scenario {
  std::string name;
  const char* board = "datacenter-4gpu";  // built-in kfdsim board
  // Logical CPUs of the board (kfdsim LoadOptions). It only changes the
  // CPU cache directories the topology reads; 4 keeps a run short (the
  // board's own 256 CPUs mean ~4,000 file reads per Acquire). 0: the board's.
  uint32_t cpu_count = 4;
  uint32_t flags = 0;  // hke_config flags
  std::function<std::unique_ptr<Body>()> make;
  // Whether act may leave the VM/MMIO state different from after prepare
  // (open, topology, close). Otherwise the memory stats after cleanup must
  // equal those after prepare exactly.
  bool changes_vm = false;
  // Sweep only the first and the last read_file/list_dir/read_fd call of
  // each path pattern (numbers folded); the test name then says so.
  bool sample_files = false;
};

// The result of sweeping one scenario.
struct SweepResult {
  uint64_t runs = 0;
  double seconds = 0;                          // wall time of the sweep (reported, never asserted)
  uint64_t calls[HKE_FAULTS_OP_COUNT] = {};    // per op, in the counting run
  uint64_t sampled[HKE_FAULTS_OP_COUNT] = {};  // calls swept per op when sampling (0: all)
  // Faulted runs by what the step the fault hit did: "failed" (a status
  // other than SUCCESS), "retried" (one EINTR), "tolerated", "succeeded"
  // (SUCCESS, not tolerated: a violation), "not hit".
  std::map<std::string, uint64_t> outcomes;
  std::vector<std::string> violations;       // one line each, self-contained
  std::vector<std::string> reference_steps;  // "api -> STATUS" of the counting run
  std::string call_list;                     // every counted call of act, numbered per op
};

// Sweeps one scenario: the counting run, then one run per (call, errno)
// of FaultsFor().
SweepResult Sweep(const Scenario& s);

// Runs `s` once without a fault (the counting run) and returns its
// violations; for the harness's own tests.
std::vector<std::string> ReferenceViolations(const Scenario& s);

// Reports `r` through doctest: one FAIL_CHECK per violation and a summary.
void Report(const Scenario& s, const SweepResult& r);

// The errnos swept for one call (README.md, "What is injected").
std::vector<Fault> FaultsFor(const Call& c, uint64_t k);

// Ioctl retries the harness configures (hke_config.max_ioctl_retries): a
// persistent EINTR fails the call and these retries.
constexpr uint32_t kIoctlRetries = 4;

// The context of one run, as act/arrange/cleanup see it.
class Run {
 public:
  // One hsaKmt* call of act. `outs` are pure outputs: filled with a pattern
  // before the call and compared when the call fails.
  struct Out {
    void* p;
    size_t n;
  };
  HSAKMT_STATUS Step(const char* api, const std::function<HSAKMT_STATUS()>& fn,
                     std::vector<Out> outs = {});
  // Step; when it fails, the same call once more as "<api> (retry)", which
  // must succeed: a single fault must not make an object unreleasable.
  HSAKMT_STATUS MustRecover(const char* api, const std::function<HSAKMT_STATUS()>& fn);
  // A call outside act (prepare/arrange/cleanup) that must succeed.
  void Require(const char* api, HSAKMT_STATUS got);
  // Records a contract violation found by the scenario itself.
  void Violation(const std::string& what);

  // datacenter-4gpu: node 0/1 CPUs, 2..5 GPUs. Found at prepare.
  uint32_t cpu_node() const { return cpu_node_; }
  uint32_t gpu_node(size_t i = 0) const { return gpu_nodes_.at(i); }
  size_t num_gpus() const { return gpu_nodes_.size(); }
  // Finds the CPU and GPU nodes (needs an acquired topology).
  void FindNodes();
  // The platform as the library sees it in this run (ledger -> faults ->
  // simulator). For the harness's own tests: a call made through it counts
  // as the library's.
  hke_platform platform();

  // Implementation detail of sweep_support.cc.
  struct Impl;
  explicit Run(Impl* impl) : impl_(impl) {}

 private:
  Impl* impl_;
  uint32_t cpu_node_ = 0;
  std::vector<uint32_t> gpu_nodes_;
};

// Shorthand for HsaMemFlags.
inline HsaMemFlags Flags() {
  HsaMemFlags f;
  f.Value = 0;
  return f;
}

}  // namespace sweep

#endif  // HKE_TESTS_FAULT_SWEEP_SWEEP_H_
