// hke-bench: times each case on this project's library ("ours") and on
// Debian's libhsakmt 5.2.3 ("debian") side by side in one process, both
// served by the simulator's LD_PRELOAD front end, so that both pay the same
// simulated-kernel and file cost.
//
//   LD_PRELOAD=.../libkfdsim-preload.so KFDSIM_BOARD=apu-embedded hke-bench [options]
//
// For each case and library: median and p99 wall time per operation (an
// iteration, or one of the operations a batching case does per iteration),
// heap allocations per operation (see heap_count.h for how they are
// charged), and the ratio Debian/ours of the medians. A Markdown table goes to stdout;
// --records appends one JSON object per (case, library) for report.py.
// tools/bench/run.sh runs every board and tree; README.md explains the rest.
//
// Single-threaded. Exit status: 0 when every case ran, was reported as not
// implemented in ours or was skipped (a host limit, named in the row), 1 on
// a harness or library failure, 2 on bad usage.
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tools/bench/bench.h"
#include "tools/bench/heap_count.h"

// Callgrind's client requests (no-ops outside valgrind): worst-case's
// instruction run starts instrumentation only when the timed iterations
// begin (--instr-atstart=no), so populating 10^5 allocations runs at
// valgrind's uninstrumented speed.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HKE_BENCH_START_INSTRUMENTATION() CALLGRIND_START_INSTRUMENTATION
#else
#define HKE_BENCH_START_INSTRUMENTATION() ((void)0)
#endif

namespace hkebench {
namespace {

constexpr const char* kDefaultDebianLibrary = "/usr/lib/x86_64-linux-gnu/libhsakmt.so.1";
constexpr const char* kLibraryNames[kLibraryCount] = {"ours", "debian"};

struct Options {
  double budget_s = 2.0;        // timed wall time per library and case, at least
  uint64_t min_iterations = 20;
  uint64_t max_iterations = 100000;
  uint64_t fixed_iterations = 0;  // nonzero: exactly this many, no budget
  bool only[kLibraryCount] = {true, true};
  const char* case_filter = nullptr;
  const char* target = nullptr;
  const char* records = nullptr;
  const char* debian_path = kDefaultDebianLibrary;
  const char* heap_stacks = nullptr;  // file for attributed allocations' stacks
  bool header = true;
  bool list = false;
};

// ---- cases ---------------------------------------------------------------------
// One row per case. The cases still to come (README.md, "To come") add rows
// here with a factory per side in ours.cc and debian.cc. A name with a slash
// is one variant of a family ("alloc-map-free/vram-64M"); report.py puts a
// family in one table.
struct CaseDef {
  const char* name;
  const char* issue;  // the issue that defines it
  CaseFactory factory[kLibraryCount];
  CaseParams params;
  // Run each library in a process of its own (hke-bench runs itself again
  // with --only) when both are selected. A process has one GPU VM per device:
  // ACQUIRE_VM binds it to one render-node file and refuses another with
  // EBUSY, for the life of the process, so two thunks that both map memory
  // cannot share a process. It also keeps query-pointer's two populations
  // from sharing vm.max_map_count.
  bool own_process;
};

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

CaseParams AllocParams(uint64_t size, bool vram) {
  CaseParams p;
  p.size = size;
  p.vram = vram;
  return p;
}

CaseParams LiveParams(uint32_t live) {
  CaseParams p;
  p.live = live;
  return p;
}

CaseParams QueueParams(QueueKind kind) {
  CaseParams p;
  p.queue = kind;
  return p;
}

CaseParams WorstParams(uint32_t live, bool reserve_svm) {
  CaseParams p;
  p.live = live;
  p.reserve_svm = reserve_svm;
  return p;
}

CaseParams LatencyParams(bool wait_event) {
  CaseParams p;
  p.wait_event = wait_event;
  return p;
}

#define HKE_ALLOC_CASE(label, size, vram)                                                   \
  {"alloc-map-free/" label, "5", {&OursAllocMapFree, &DebianAllocMapFree}, AllocParams(size, vram), \
   true}
#define HKE_WORST_CASE(label, live, reserve)                                       \
  {"worst-case/" label, "21", {&OursWorstCase, &DebianWorstCase}, WorstParams(live, reserve), \
   true}
#define HKE_QUERY_CASE(label, live) \
  {"query-pointer/" label, "5", {&OursQueryPointer, &DebianQueryPointer}, LiveParams(live), true}

const CaseDef kCases[] = {
    {"open-close", "4", {&OursOpenClose, &DebianOpenClose}, CaseParams(), false},
    // Own process per library: ours binds the GPU VMs in Acquire, Debian in
    // OpenKFD; one process cannot hold both (own_process above).
    {"topology-cycle", "4", {&OursTopologyCycle, &DebianTopologyCycle}, CaseParams(), true},
    // Ours parses sysfs on every Acquire (HKE_CONFIG_REPARSE_TOPOLOGY), as a
    // context's first Acquire does; Debian's cycle is topology-cycle's. Its
    // own process also because it re-creates our default context, whose new
    // render nodes could not ACQUIRE_VM again in a process that bound them.
    {"topology-cycle-cold", "4", {&OursTopologyCycleCold, &DebianTopologyCycle}, CaseParams(),
     true},
    HKE_ALLOC_CASE("sys-4K", 4 * kKiB, false),
    HKE_ALLOC_CASE("sys-64K", 64 * kKiB, false),
    HKE_ALLOC_CASE("sys-2M", 2 * kMiB, false),
    HKE_ALLOC_CASE("sys-64M", 64 * kMiB, false),
    HKE_ALLOC_CASE("vram-4K", 4 * kKiB, true),
    HKE_ALLOC_CASE("vram-64K", 64 * kKiB, true),
    HKE_ALLOC_CASE("vram-2M", 2 * kMiB, true),
    HKE_ALLOC_CASE("vram-64M", 64 * kMiB, true),
    // 10^5 live allocations need more mappings than the default
    // vm.max_map_count (65530) allows; that case reports "skipped" there and
    // 50000 is the largest that runs (README.md).
    HKE_QUERY_CASE("100", 100),
    HKE_QUERY_CASE("1000", 1000),
    HKE_QUERY_CASE("10000", 10000),
    HKE_QUERY_CASE("50000", 50000),
    HKE_QUERY_CASE("100000", 100000),
    // Per-call times (and, under callgrind, instructions) of Alloc, Free,
    // Map, Unmap and QueryPointerInfo with N live mapped allocations of mixed
    // sizes, churned in random order; kernel-placed VA and reserved SVM
    // (HSA_RESERVE_SVM). Own process: memory (above), and the VA mode is
    // chosen before the device opens.
    HKE_WORST_CASE("kernel-100", 100, false),
    HKE_WORST_CASE("kernel-1000", 1000, false),
    HKE_WORST_CASE("kernel-10000", 10000, false),
    HKE_WORST_CASE("kernel-100000", 100000, false),
    HKE_WORST_CASE("reserved-100", 100, true),
    HKE_WORST_CASE("reserved-1000", 1000, true),
    HKE_WORST_CASE("reserved-10000", 10000, true),
    HKE_WORST_CASE("reserved-100000", 100000, true),
    // Own process per library: both map memory (ACQUIRE_VM rule above).
    {"queue-create-destroy/sdma", "7", {&OursQueueCreateDestroy, &DebianQueueCreateDestroy},
     QueueParams(kQueueSdma), true},
    {"queue-create-destroy/aql", "7", {&OursQueueCreateDestroy, &DebianQueueCreateDestroy},
     QueueParams(kQueueAql), true},
    // Needs the simulator's engine thread; without it every iteration fails
    // after 5 s with "no completion" (never a hang).
    {"doorbell-latency/sdma-poll", "7", {&OursDoorbellLatency, &DebianDoorbellLatency},
     LatencyParams(false), true},
    {"doorbell-latency/sdma-event", "7", {&OursDoorbellLatency, &DebianDoorbellLatency},
     LatencyParams(true), true},
    // SetEvent here, WaitOnEvent blocked in a waiter thread of the case.
    {"event-set-wake", "6", {&OursEventSetWake, &DebianEventSetWake}, CaseParams(), true},
    // The same, each SetEvent timed only once the waiter sleeps in the
    // simulated kernel (CaseRun::Prepare, untimed).
    {"event-wake-parked", "6", {&OursEventWakeParked, &DebianEventWakeParked}, CaseParams(), true},
    // SetEvent + WaitOnEvent(0) on one thread (per-call cost, instructions).
    {"event-set-wait", "6", {&OursEventSetWait, &DebianEventSetWait}, CaseParams(), true},
};

#undef HKE_ALLOC_CASE
#undef HKE_QUERY_CASE
#undef HKE_WORST_CASE

// ---- measured-region markers ----------------------------------------------------
// Every timed iteration goes through exactly one of these, so that
// `valgrind --tool=callgrind --toggle-collect=hke_bench_measured_<lib>`
// counts the instructions of the timed iterations of that library and
// nothing else. noipa (GCC) keeps the two from being merged or inlined;
// clang has no noipa and does not merge distinct extern functions.

}  // namespace
}  // namespace hkebench

#if defined(__clang__)
#define HKE_BENCH_MARKER __attribute__((noinline))
#else
#define HKE_BENCH_MARKER __attribute__((noinline, noipa))
#endif

extern "C" HKE_BENCH_MARKER void hke_bench_measured_ours(
    hkebench::CaseRun* run, hkebench::Work* work, hkebench::Outcome* out) {
  *out = run->Iterate(work);
}

extern "C" HKE_BENCH_MARKER void hke_bench_measured_debian(
    hkebench::CaseRun* run, hkebench::Work* work, hkebench::Outcome* out) {
  *out = run->Iterate(work);
}

// One marker per operation that worst-case times call by call
// (bench.h, CallMarker): --toggle-collect=hke_bench_call_* with
// --dump-after=hke_bench_call_* gives one callgrind dump per call. The
// empty asm after the call keeps it from becoming a tail jump, which
// callgrind would not see return through the marker.
#define HKE_BENCH_CALL_MARKER(op)                                                   \
  extern "C" HKE_BENCH_MARKER void hke_bench_call_##op(hkebench::CallThunk fn, void* ctx) { \
    fn(ctx);                                                                        \
    __asm__ volatile("" ::: "memory");                                              \
  }
HKE_BENCH_CALL_MARKER(alloc)
HKE_BENCH_CALL_MARKER(free)
HKE_BENCH_CALL_MARKER(map)
HKE_BENCH_CALL_MARKER(unmap)
HKE_BENCH_CALL_MARKER(query)
#undef HKE_BENCH_CALL_MARKER

namespace hkebench {

CallMarkerFn CallMarker(CallOp op) {
  static constexpr CallMarkerFn kCallMarkers[kCallOpCount] = {
      &hke_bench_call_alloc, &hke_bench_call_free, &hke_bench_call_map, &hke_bench_call_unmap,
      &hke_bench_call_query};
  return kCallMarkers[op];
}

}  // namespace hkebench

namespace hkebench {
namespace {

using Marker = void (*)(CaseRun*, Work*, Outcome*);
constexpr Marker kMarkers[kLibraryCount] = {&hke_bench_measured_ours, &hke_bench_measured_debian};

// ---- results -------------------------------------------------------------------

struct Result {
  enum State { kNotRun, kOk, kNotImplemented, kSkipped, kFailed } state = kNotRun;
  std::string detail;        // failure text
  std::vector<double> ns;    // per timed iteration
  double elapsed_ns = 0;
  HeapCounts timed;          // plain counts over all timed iterations
  HeapCounts attributed;     // one attributed iteration
  Work work;                 // of one iteration
  double median_ns = 0;
  double p99_ns = 0;
  double min_ns = 0;
  double mean_ns = 0;
  // Per-call statistics of a case that times single calls (CaseRun::Calls):
  // a JSON object {"alloc":{"n":..,"median_ns":..,"p99_ns":..,"p999_ns":..,
  // "max_ns":..},...}, empty for the other cases.
  std::string calls_json;
};

// Operations per iteration (Work::ops; 0 counts as 1).
uint64_t OpsOf(const Work& w) { return w.ops == 0 ? 1 : w.ops; }

double Percentile(const std::vector<double>& sorted, double p) {
  // Nearest rank.
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  if (rank == 0) rank = 1;
  return sorted[std::min(rank, sorted.size()) - 1];
}

void Summarise(Result* r) {
  std::vector<double> s = r->ns;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  r->median_ns = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  r->p99_ns = Percentile(s, 0.99);
  r->min_ns = s.front();
  double sum = 0;
  for (double v : s) sum += v;
  r->mean_ns = sum / static_cast<double>(n);
}

std::string FormatTime(double ns) {
  char buf[32];
  if (ns >= 1e9) {
    std::snprintf(buf, sizeof(buf), "%.2f s", ns / 1e9);
  } else if (ns >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%.2f ms", ns / 1e6);
  } else if (ns >= 1e3) {
    std::snprintf(buf, sizeof(buf), "%.1f µs", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%.0f ns", ns);
  }
  return buf;
}

std::string FailureText(const Outcome& o, Library lib) {
  // The harness's own failures carry their whole explanation in `call`.
  if (o.status == kHarnessError) return o.call;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "%s returned %d", o.call, o.status);
  std::string text = buf;
  if (lib == kOurs && LastOursDiagnostic()[0] != '\0') {
    text += std::string(" (") + LastOursDiagnostic() + ")";
  }
  return text;
}

// Records a failed iteration; NOT_IMPLEMENTED in ours is an expected state
// while the library grows, not a failure; neither is a case this host
// cannot run (kHarnessSkipped).
void Fail(Result* r, const Outcome& o, Library lib) {
  if (o.status == kStatusNotImplemented) {
    r->state = Result::kNotImplemented;
    r->detail = std::string(o.call) + " is not implemented";
  } else if (o.status == kHarnessSkipped) {
    r->state = Result::kSkipped;
    r->detail = o.call;
  } else {
    r->state = Result::kFailed;
    r->detail = FailureText(o, lib);
  }
}

// Creates and sets up one library's run, warms it up and takes its
// attributed iteration. True when it is ready for timed iterations.
bool Prepare(const CaseDef& c, const Options& opt, int lib, std::unique_ptr<CaseRun>* run,
             Result* result) {
  Result& r = *result;
  std::string error;
  *run = c.factory[lib](c.params, &error);
  if (*run == nullptr) {
    r.state = Result::kFailed;
    r.detail = error;
    return false;
  }
  CaseRun& runner = **run;
  Outcome o = runner.Setup();
  if (o.status != kStatusSuccess) {
    Fail(&r, o, static_cast<Library>(lib));
    run->reset();
    return false;
  }
  // Warm-up (the first use writes the board's files, opens caches, ...),
  // then one attributed iteration; neither is timed.
  for (int i = 0; i < 2 && o.status == kStatusSuccess; ++i) {
    r.work = Work{};
    o = runner.Prepare();
    if (o.status == kStatusSuccess) o = runner.Iterate(&r.work);
  }
  // HKE_BENCH_NO_ATTRIBUTION=1 (per_call.py) leaves it out: callgrind
  // would charge its stack unwinding to the entry point that allocated.
  if (o.status == kStatusSuccess && std::getenv("HKE_BENCH_NO_ATTRIBUTION") == nullptr) {
    Work w;
    o = runner.Prepare();
    HeapScope scope(&r.attributed, /*attributed=*/true);
    if (o.status == kStatusSuccess) o = runner.Iterate(&w);
  }
  if (o.status != kStatusSuccess) {
    Fail(&r, o, static_cast<Library>(lib));
    run->reset();
    return false;
  }
  r.ns.reserve(opt.fixed_iterations != 0 ? opt.fixed_iterations : opt.max_iterations);
  runner.BeginTimed();
  HKE_BENCH_START_INSTRUMENTATION();
  return true;
}

// Timed iterations of the active libraries, interleaved while more than one
// runs so that both see the same machine conditions.
void TimeRuns(const Options& opt, std::unique_ptr<CaseRun> runs[kLibraryCount],
              bool active[kLibraryCount], Result results[kLibraryCount]) {
  while (active[kOurs] || active[kDebian]) {
    for (int lib = 0; lib < kLibraryCount; ++lib) {
      if (!active[lib]) continue;
      Result& r = results[lib];
      Work w;
      Outcome o;
      std::chrono::steady_clock::time_point t0, t1;
      o = runs[lib]->Prepare();
      if (o.status == kStatusSuccess) {
        HeapScope scope(&r.timed, /*attributed=*/false);
        t0 = std::chrono::steady_clock::now();
        kMarkers[lib](runs[lib].get(), &w, &o);
        t1 = std::chrono::steady_clock::now();
      }
      if (o.status != kStatusSuccess) {
        Fail(&r, o, static_cast<Library>(lib));
        r.ns.clear();
        active[lib] = false;
        continue;
      }
      if (!(w == r.work)) {
        r.state = Result::kFailed;
        r.detail = "the work of one iteration changed between iterations";
        active[lib] = false;
        continue;
      }
      const double ns = static_cast<double>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
      r.ns.push_back(ns / static_cast<double>(OpsOf(w)));
      r.elapsed_ns += ns;
      const uint64_t n = r.ns.size();
      const bool done = opt.fixed_iterations != 0
                            ? n >= opt.fixed_iterations
                            : (n >= opt.min_iterations && r.elapsed_ns >= opt.budget_s * 1e9) ||
                                  n >= opt.max_iterations;
      if (done) {
        active[lib] = false;
        r.state = Result::kOk;
        Summarise(&r);
      }
    }
  }
}

// The per-call statistics of `calls` as Result::calls_json.
std::string CallsJson(const CallSamples& calls) {
  std::string out = "{";
  for (int op = 0; op < kCallOpCount; ++op) {
    std::vector<double> s = calls.ns[op];
    if (s.empty()) continue;
    std::sort(s.begin(), s.end());
    const size_t n = s.size();
    const double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    char buf[192];
    std::snprintf(buf, sizeof(buf),
                  "%s\"%s\":{\"n\":%zu,\"median_ns\":%.1f,\"p99_ns\":%.1f,\"p999_ns\":%.1f,"
                  "\"max_ns\":%.1f}",
                  out.size() > 1 ? "," : "", kCallOpNames[op], n, median, Percentile(s, 0.99),
                  Percentile(s, 0.999), s.back());
    out += buf;
  }
  return out + "}";
}

void RunCase(const CaseDef& c, const Options& opt, Result results[kLibraryCount]) {
  std::unique_ptr<CaseRun> runs[kLibraryCount];
  bool active[kLibraryCount] = {false, false};
  for (int lib = 0; lib < kLibraryCount; ++lib) {
    if (!opt.only[lib]) continue;
    active[lib] = Prepare(c, opt, lib, &runs[lib], &results[lib]);
  }
  TimeRuns(opt, runs, active, results);
  for (int lib = 0; lib < kLibraryCount; ++lib) {
    if (runs[lib] == nullptr || results[lib].state != Result::kOk) continue;
    if (const CallSamples* calls = runs[lib]->Calls()) results[lib].calls_json = CallsJson(*calls);
  }
}

// ---- output --------------------------------------------------------------------

// A count that may be a fraction (allocations per operation).
std::string Count(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), v == std::floor(v) ? "%.0f" : "%.2f", v);
  return buf;
}

// Allocations of the attributed iteration, per operation.
std::string AllocCell(const Result& r) {
  const HeapCounts& a = r.attributed;
  const double ops = static_cast<double>(OpsOf(r.work));
  return Count(static_cast<double>(a.own + a.libc + a.unattributed) / ops) + " (own " +
         Count(static_cast<double>(a.own) / ops) + ", libc " +
         Count(static_cast<double>(a.libc) / ops) + ")";
}

// nodes/banks/caches/links for the topology cases; the bytes allocated or
// the live allocations for the memory cases; "—" for a case that counts
// nothing (open-close, the queue cases).
std::string WorkCell(const Work& w) {
  char buf[96];
  if (w == Work{}) return "—";
  if (w.live != 0) {
    std::snprintf(buf, sizeof(buf), "%llu live", static_cast<unsigned long long>(w.live));
  } else if (w.bytes != 0) {
    std::snprintf(buf, sizeof(buf), "%llu bytes", static_cast<unsigned long long>(w.bytes));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu/%llu/%llu/%llu",
                  static_cast<unsigned long long>(w.nodes),
                  static_cast<unsigned long long>(w.mem_banks),
                  static_cast<unsigned long long>(w.caches),
                  static_cast<unsigned long long>(w.io_links));
  }
  return buf;
}

std::string StateCell(const Result& r) {
  switch (r.state) {
    case Result::kNotImplemented: return "n/a (not implemented)";
    case Result::kSkipped: return "skipped: " + r.detail;
    case Result::kFailed: return "error: " + r.detail;
    case Result::kNotRun: return "not run";
    case Result::kOk: break;
  }
  return "";
}

void PrintHeader() {
  std::printf(
      "| case | target | library | iterations | median/op | p99/op | heap allocs/op | "
      "work | Debian/ours |\n"
      "|---|---|---|---:|---:|---:|---:|---|---:|\n");
}

void PrintRows(const CaseDef& c, const char* target, const Result results[kLibraryCount]) {
  for (int lib = 0; lib < kLibraryCount; ++lib) {
    const Result& r = results[lib];
    if (r.state == Result::kNotRun) continue;
    std::string ratio = "—";
    if (lib == kDebian) {
      const Result& ours = results[kOurs];
      ratio = "n/a";
      if (r.state == Result::kOk && ours.state == Result::kOk && ours.median_ns > 0) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%.2f×", r.median_ns / ours.median_ns);
        ratio = buf;
      }
    }
    if (r.state == Result::kOk) {
      std::printf("| %s | %s | %s | %zu | %s | %s | %s | %s | %s |\n", c.name, target,
                  kLibraryNames[lib], r.ns.size(), FormatTime(r.median_ns).c_str(),
                  FormatTime(r.p99_ns).c_str(), AllocCell(r).c_str(), WorkCell(r.work).c_str(),
                  ratio.c_str());
    } else {
      const std::string s = StateCell(r);
      std::printf("| %s | %s | %s | — | %s | — | — | — | %s |\n", c.name, target,
                  kLibraryNames[lib], s.c_str(), ratio.c_str());
    }
  }
  std::fflush(stdout);
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

bool WriteRecords(const char* path, const CaseDef& c, const char* target,
                  const Result results[kLibraryCount]) {
  FILE* f = std::fopen(path, "a");
  if (f == nullptr) return false;
  for (int lib = 0; lib < kLibraryCount; ++lib) {
    const Result& r = results[lib];
    if (r.state == Result::kNotRun) continue;
    const char* state = r.state == Result::kOk               ? "ok"
                        : r.state == Result::kNotImplemented ? "not_implemented"
                        : r.state == Result::kSkipped        ? "skipped"
                                                             : "error";
    const double iters = r.ns.empty() ? 1.0 : static_cast<double>(r.ns.size());
    // Times and allocation counts are per operation (Work::ops).
    const double ops = static_cast<double>(OpsOf(r.work));
    std::fprintf(f,
                 "{\"case\":\"%s\",\"issue\":\"%s\",\"target\":\"%s\",\"library\":\"%s\","
                 "\"state\":\"%s\",\"detail\":\"%s\",\"iterations\":%zu,\"ops_per_iter\":%llu,"
                 "\"median_ns\":%.1f,\"p99_ns\":%.1f,\"min_ns\":%.1f,\"mean_ns\":%.1f,"
                 "\"allocs_own\":%.4g,\"allocs_libc\":%.4g,\"allocs_simulator\":%.4g,"
                 "\"allocs_unattributed\":%.4g,\"allocs_timed_total_per_iter\":%.4g,"
                 "\"nodes\":%llu,\"mem_banks\":%llu,\"caches\":%llu,\"io_links\":%llu,"
                 "\"bytes\":%llu,\"live\":%llu%s%s}\n",
                 c.name, c.issue, JsonEscape(target).c_str(), kLibraryNames[lib], state,
                 JsonEscape(r.detail).c_str(), r.ns.size(),
                 static_cast<unsigned long long>(OpsOf(r.work)), r.median_ns, r.p99_ns, r.min_ns,
                 r.mean_ns, static_cast<double>(r.attributed.own) / ops,
                 static_cast<double>(r.attributed.libc) / ops,
                 static_cast<double>(r.attributed.simulator) / ops,
                 static_cast<double>(r.attributed.unattributed) / ops,
                 static_cast<double>(r.timed.total) / iters / ops,
                 static_cast<unsigned long long>(r.work.nodes),
                 static_cast<unsigned long long>(r.work.mem_banks),
                 static_cast<unsigned long long>(r.work.caches),
                 static_cast<unsigned long long>(r.work.io_links),
                 static_cast<unsigned long long>(r.work.bytes),
                 static_cast<unsigned long long>(r.work.live),
                 r.calls_json.empty() ? "" : ",\"calls\":", r.calls_json.c_str());
  }
  return std::fclose(f) == 0;
}

// ---- set-up --------------------------------------------------------------------

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: hke-bench [--budget S] [--min-iterations N] [--max-iterations N]\n"
               "                 [--iterations N] [--only ours|debian] [--case NAME]\n"
               "                 [--target LABEL] [--records FILE] [--debian-lib PATH]\n"
               "                 [--heap-stacks FILE] [--no-header] [--list]\n"
               "Run under libkfdsim-preload.so with KFDSIM_TOPOLOGY or KFDSIM_BOARD set\n"
               "(tools/bench/run.sh does). --case takes a case or a family (the part\n"
               "before '/', e.g. alloc-map-free). Cases:");
  for (const CaseDef& c : kCases) std::fprintf(out, " %s", c.name);
  std::fprintf(out, "\n");
}

bool ParseCount(const char* s, uint64_t* out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (end == s || *end != '\0' || v == 0) return false;
  *out = v;
  return true;
}

// 0 ok, 2 usage error (message printed).
int ParseOptions(int argc, char** argv, Options* opt) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    auto need = [&]() {
      if (v == nullptr) std::fprintf(stderr, "hke-bench: %s needs a value\n", a.c_str());
      return v != nullptr;
    };
    if (a == "--budget") {
      if (!need()) return 2;
      char* end = nullptr;
      opt->budget_s = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(opt->budget_s >= 0)) {
        std::fprintf(stderr, "hke-bench: bad --budget '%s'\n", v);
        return 2;
      }
      ++i;
    } else if (a == "--min-iterations" || a == "--max-iterations" || a == "--iterations") {
      if (!need()) return 2;
      uint64_t* dst = a == "--min-iterations"   ? &opt->min_iterations
                      : a == "--max-iterations" ? &opt->max_iterations
                                                : &opt->fixed_iterations;
      if (!ParseCount(v, dst)) {
        std::fprintf(stderr, "hke-bench: bad %s '%s' (a positive count)\n", a.c_str(), v);
        return 2;
      }
      ++i;
    } else if (a == "--only") {
      if (!need()) return 2;
      const std::string w = v;
      if (w != "ours" && w != "debian") {
        std::fprintf(stderr, "hke-bench: --only takes ours or debian\n");
        return 2;
      }
      opt->only[kOurs] = w == "ours";
      opt->only[kDebian] = w == "debian";
      ++i;
    } else if (a == "--case") {
      if (!need()) return 2;
      opt->case_filter = v;
      ++i;
    } else if (a == "--target") {
      if (!need()) return 2;
      opt->target = v;
      ++i;
    } else if (a == "--records") {
      if (!need()) return 2;
      opt->records = v;
      ++i;
    } else if (a == "--debian-lib") {
      if (!need()) return 2;
      opt->debian_path = v;
      ++i;
    } else if (a == "--heap-stacks") {
      if (!need()) return 2;
      opt->heap_stacks = v;
      ++i;
    } else if (a == "--no-header") {
      opt->header = false;
    } else if (a == "--list") {
      opt->list = true;
    } else if (a == "-h" || a == "--help") {
      Usage(stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "hke-bench: unknown option '%s'\n", a.c_str());
      Usage(stderr);
      return 2;
    }
  }
  if (opt->min_iterations > opt->max_iterations) opt->max_iterations = opt->min_iterations;
  return 0;
}

// The label of the simulated board: the tree's directory name or the board.
std::string TargetLabel(const Options& opt) {
  if (opt.target != nullptr) return opt.target;
  const char* tree = std::getenv("KFDSIM_TOPOLOGY");
  if (tree != nullptr && tree[0] != '\0') {
    std::string t = tree;
    while (t.size() > 1 && t.back() == '/') t.pop_back();
    const size_t slash = t.rfind('/');
    return slash == std::string::npos ? t : t.substr(slash + 1);
  }
  const char* board = std::getenv("KFDSIM_BOARD");
  return board != nullptr ? board : "";
}

// --case NAME selects that case, or every variant of the family NAME
// ("alloc-map-free" selects "alloc-map-free/sys-4K", ...).
bool Selected(const CaseDef& c, const Options& opt) {
  if (opt.case_filter == nullptr) return true;
  const size_t n = std::strlen(opt.case_filter);
  return std::strcmp(c.name, opt.case_filter) == 0 ||
         (std::strncmp(c.name, opt.case_filter, n) == 0 && c.name[n] == '/');
}

// Runs case `c` once per library, each in a new process of this program
// (/proc/self/exe with --only <library> --case <c> and the timing, target,
// records and library options of this run), one after the other. Each child
// prints its own row (its Debian/ours cell is n/a: the ratio is in
// report.py's tables) and appends its record. False when a child failed.
bool RunInOwnProcesses(const CaseDef& c, const Options& opt, const std::string& target) {
  bool ok = true;
  for (int lib = 0; lib < kLibraryCount; ++lib) {
    char budget[32];
    std::snprintf(budget, sizeof(budget), "%.17g", opt.budget_s);
    std::vector<std::string> args = {"hke-bench", "--only", kLibraryNames[lib], "--case", c.name,
                                     "--target", target, "--budget", budget, "--no-header",
                                     "--min-iterations", std::to_string(opt.min_iterations),
                                     "--max-iterations", std::to_string(opt.max_iterations)};
    if (opt.fixed_iterations != 0) {
      args.insert(args.end(), {"--iterations", std::to_string(opt.fixed_iterations)});
    }
    if (opt.records != nullptr) args.insert(args.end(), {"--records", opt.records});
    if (lib == kDebian) args.insert(args.end(), {"--debian-lib", opt.debian_path});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    std::fflush(stdout);
    pid_t pid = 0;
    int status = 0;
    const int e = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ);
    const char* problem = nullptr;
    char text[96];
    if (e != 0) {
      std::snprintf(text, sizeof(text), "cannot start a process for it (%s)", std::strerror(e));
      problem = text;
    } else if (waitpid(pid, &status, 0) != pid) {
      problem = "lost its process";
    } else if (WIFSIGNALED(status)) {
      std::snprintf(text, sizeof(text), "its process died of signal %d", WTERMSIG(status));
      problem = text;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ok = false;  // the child printed its own error row
    }
    if (problem != nullptr) {
      std::printf("| %s | %s | %s | — | error: %s | — | — | — | — |\n", c.name, target.c_str(),
                  kLibraryNames[lib], problem);
      std::fflush(stdout);
      ok = false;
    }
  }
  return ok;
}

// True when open() resolves into libkfdsim-preload.so.
bool UnderPreload() {
  void* open_fn = dlsym(RTLD_DEFAULT, "open");
  Dl_info info;
  if (open_fn == nullptr || dladdr(open_fn, &info) == 0 || info.dli_fname == nullptr) return false;
  return std::strstr(info.dli_fname, "kfdsim-preload") != nullptr;
}

int Main(int argc, char** argv) {
  Options opt;
  if (int rc = ParseOptions(argc, argv, &opt); rc != 0) return rc;
  if (opt.list) {
    for (const CaseDef& c : kCases) std::printf("%s\tissue %s\n", c.name, c.issue);
    return 0;
  }
  const std::string target = TargetLabel(opt);
  if (target.empty() || !UnderPreload()) {
    std::fprintf(stderr,
                 "hke-bench: not running under the simulator: set LD_PRELOAD to "
                 "libkfdsim-preload.so and KFDSIM_TOPOLOGY=<tree> or KFDSIM_BOARD=<name> "
                 "(tools/bench/run.sh does)\n");
    return 1;
  }
  if (opt.case_filter != nullptr) {
    bool any = false;
    for (const CaseDef& c : kCases) any = any || Selected(c, opt);
    if (!any) {
      std::fprintf(stderr, "hke-bench: unknown case '%s'\n", opt.case_filter);
      return 2;
    }
  }

  std::string error;
  if (opt.only[kDebian] && !DebianLoad(opt.debian_path, &error)) {
    std::fprintf(stderr, "hke-bench: %s\n", error.c_str());
    return 1;
  }
  // Debian's library is RTLD_LOCAL and the executable must export no hsaKmt*
  // symbol: otherwise Debian's internal calls could bind to ours.
  if (dlsym(RTLD_DEFAULT, "hsaKmtOpenKFD") != nullptr) {
    std::fprintf(stderr,
                 "hke-bench: hsaKmtOpenKFD is visible in the global symbol scope; link hke-bench "
                 "without exporting its symbols (no -rdynamic)\n");
    return 1;
  }
  if (opt.only[kOurs] && !OursSetup(&error)) {
    std::fprintf(stderr, "hke-bench: %s\n", error.c_str());
    return 1;
  }
  const char* why = nullptr;
  if (!HeapCountSetup(&why)) {
    std::fprintf(stderr, "hke-bench: %s\n", why);
    return 1;
  }

  if (opt.heap_stacks != nullptr) {
    const int fd = open(opt.heap_stacks, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      std::fprintf(stderr, "hke-bench: cannot write %s\n", opt.heap_stacks);
      return 1;
    }
    HeapCountSetStackFd(fd);  // stays open until exit
  }

  if (opt.header) PrintHeader();
  int rc = 0;
  for (const CaseDef& c : kCases) {
    if (!Selected(c, opt)) continue;
    if (c.own_process && opt.only[kOurs] && opt.only[kDebian]) {
      if (!RunInOwnProcesses(c, opt, target)) rc = 1;
      continue;
    }
    Result results[kLibraryCount];
    RunCase(c, opt, results);
    PrintRows(c, target.c_str(), results);
    if (opt.records != nullptr && !WriteRecords(opt.records, c, target.c_str(), results)) {
      std::fprintf(stderr, "hke-bench: cannot write %s\n", opt.records);
      rc = 1;
    }
    for (const Result& r : results) {
      if (r.state == Result::kFailed) rc = 1;
    }
  }
  return rc;
}

}  // namespace
}  // namespace hkebench

int main(int argc, char** argv) { return hkebench::Main(argc, argv); }
