// hke-bench: the case interface shared by the driver (main.cc) and the two
// library sides (ours.cc: this project's static library; debian.cc:
// Debian's libhsakmt.so.1 through dlopen).
//
// A case is one operation timed on both libraries (e.g. "topology-cycle").
// For each library the driver asks the side for a CaseRun (buffers and any
// setup happen there, outside the measured region), then calls Iterate()
// repeatedly; only Iterate() is timed and heap-counted. The two sides are
// separate translation units because they see different headers: ours.cc
// includes include/hsakmt/hsakmt.h, debian.cc Debian's /usr/include/hsakmt.h
// inside namespace `debian` (layouts differ: HsaNodeProperties is 368 bytes
// here, 356 in 5.2.3).
//
// Threading: everything runs on the main thread (the doorbell-latency case
// also depends on the simulator's engine thread, which the harness does not
// own).
#ifndef HKE_TOOLS_BENCH_BENCH_H_
#define HKE_TOOLS_BENCH_BENCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hkebench {

enum Library : int { kOurs = 0, kDebian = 1, kLibraryCount = 2 };

// The harness's own failures (a buffer it sized too small, ...), never a
// library status.
constexpr int kHarnessError = -1;

// A case that cannot run on this host (e.g. a kernel limit is too low);
// Outcome::call then says why. Reported as "skipped", never as a failure.
constexpr int kHarnessSkipped = -2;

// HSAKMT_STATUS values the driver names (identical in both headers).
constexpr int kStatusSuccess = 0;
constexpr int kStatusNotImplemented = 10;
constexpr int kStatusWaitTimeout = 31;

// Result of one iteration: a status and, on failure, the call that failed
// (static string).
struct Outcome {
  int status = kStatusSuccess;
  const char* call = "";
};

// What one iteration did, so that the report shows both libraries did the
// same job (a case fills the fields it has; the rest stay 0).
struct Work {
  uint64_t nodes = 0;
  uint64_t mem_banks = 0;
  uint64_t caches = 0;
  uint64_t io_links = 0;
  uint64_t bytes = 0;  // memory allocated (and freed) by the iteration
  uint64_t live = 0;   // allocations alive while the iteration ran
  // Operations the iteration timed (0 counts as 1): times and allocation
  // counts are reported per operation (query-pointer batches its queries so
  // that the clock's own cost stays small against one lookup).
  uint64_t ops = 0;
  bool operator==(const Work& o) const {
    return nodes == o.nodes && mem_banks == o.mem_banks && caches == o.caches &&
           io_links == o.io_links && bytes == o.bytes && live == o.live && ops == o.ops;
  }
};

// The queue kinds the queue cases create.
enum QueueKind : int { kQueueSdma = 0, kQueueAql = 1 };

// Parameters of a case row (main.cc's kCases); each case reads what it needs.
struct CaseParams {
  uint64_t size = 0;  // alloc-map-free: bytes per allocation
  bool vram = false;  // alloc-map-free: device memory of the first GPU node, else system memory
  uint32_t live = 0;  // query-pointer, worst-case: live allocations
  QueueKind queue = kQueueSdma;  // queue-create-destroy: SDMA (4 KiB ring) or AQL (64 KiB)
  bool wait_event = false;  // doorbell-latency: wait with hsaKmtWaitOnEvent, else poll the fence
  bool reserve_svm = false;  // worst-case: reserved SVM VA mode, else kernel-placed (mmap)
};

// The calls worst-case times one by one.
enum CallOp : int { kCallAlloc, kCallFree, kCallMap, kCallUnmap, kCallQuery, kCallOpCount };
constexpr const char* kCallOpNames[kCallOpCount] = {"alloc", "free", "map", "unmap", "query"};

// Wall time of each timed call, per operation (a case that times single
// calls fills it; the driver reports median, p99, p99.9 and max of each).
struct CallSamples {
  std::vector<double> ns[kCallOpCount];
};

// A library call wrapped for timing: `fn(ctx)` makes the call. CallMarker(op)
// returns that operation's marker (main.cc: hke_bench_call_<op>), through
// which the call must go, so that callgrind's --toggle-collect and
// --dump-after on the markers count each call's instructions on its own.
using CallThunk = void (*)(void* ctx);
using CallMarkerFn = void (*)(CallThunk fn, void* ctx);
CallMarkerFn CallMarker(CallOp op);

// One case on one library. Setup() runs once, unmeasured, before the first
// iteration (opening the device, populating allocations); a failure there
// is reported like a failed iteration. Iterate() is the measured region:
// the ours side must not allocate in it (the driver counts and reports).
// The destructor undoes Setup (frees, closes).
class CaseRun {
 public:
  virtual ~CaseRun() = default;
  virtual Outcome Setup() { return Outcome{}; }
  // Runs before every Iterate (warm-up, attributed and timed), outside the
  // timed region, the heap count and the instruction markers: brings the
  // case to the state its iteration starts from when reaching it is not
  // the operation measured (event-wake-parked waits for its waiter to
  // sleep in the simulated kernel).
  virtual Outcome Prepare() { return Outcome{}; }
  virtual Outcome Iterate(Work* work) = 0;
  // Called once after the warm-up and attributed iterations, before the
  // first timed one (a case that samples single calls starts keeping them).
  virtual void BeginTimed() {}
  // Per-call samples of the timed iterations, or null (the case times only
  // whole iterations).
  virtual const CallSamples* Calls() const { return nullptr; }
};

using CaseFactory = std::unique_ptr<CaseRun> (*)(const CaseParams& params, std::string* error);

// ---- ours.cc -----------------------------------------------------------------
// Configures the default context with the Linux platform (so every libc
// call goes through the simulator's preload, as Debian's do). Diagnostics
// are kept in a fixed buffer; LastOursDiagnostic() returns the latest one.
bool OursSetup(std::string* error);
const char* LastOursDiagnostic();
std::unique_ptr<CaseRun> OursOpenClose(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursTopologyCycle(const CaseParams& params, std::string* error);
// The same cycle with HKE_CONFIG_REPARSE_TOPOLOGY: every Acquire parses the
// sysfs tree, as the first Acquire of a context does (the default context
// is reconfigured for the run and back afterwards).
std::unique_ptr<CaseRun> OursTopologyCycleCold(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursAllocMapFree(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursQueryPointer(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursQueueCreateDestroy(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursDoorbellLatency(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursEventSetWake(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursEventWakeParked(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> OursEventSetWait(const CaseParams& params, std::string* error);
// worst-case on a default context configured with HKE_CONFIG_RESERVE_SVM
// when params.reserve_svm (reconfigured back when the run ends).
std::unique_ptr<CaseRun> OursWorstCase(const CaseParams& params, std::string* error);

// ---- debian.cc ---------------------------------------------------------------
// dlopen(path, RTLD_NOW | RTLD_LOCAL) and dlsym of every entry point the
// cases use.
bool DebianLoad(const char* path, std::string* error);
std::unique_ptr<CaseRun> DebianOpenClose(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianTopologyCycle(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianAllocMapFree(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianQueryPointer(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianQueueCreateDestroy(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianDoorbellLatency(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianEventSetWake(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianEventWakeParked(const CaseParams& params, std::string* error);
std::unique_ptr<CaseRun> DebianEventSetWait(const CaseParams& params, std::string* error);
// Sets HSA_RESERVE_SVM=1 in the environment when params.reserve_svm (read by
// Debian's hsaKmtOpenKFD), removes it otherwise.
std::unique_ptr<CaseRun> DebianWorstCase(const CaseParams& params, std::string* error);

}  // namespace hkebench

#endif  // HKE_TOOLS_BENCH_BENCH_H_
