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
// Threading: everything runs on the main thread.
#ifndef HKE_TOOLS_BENCH_BENCH_H_
#define HKE_TOOLS_BENCH_BENCH_H_

#include <cstdint>
#include <memory>
#include <string>

namespace hkebench {

enum Library : int { kOurs = 0, kDebian = 1, kLibraryCount = 2 };

// The harness's own failures (a buffer it sized too small, ...), never a
// library status.
constexpr int kHarnessError = -1;

// HSAKMT_STATUS values the driver names (identical in both headers).
constexpr int kStatusSuccess = 0;
constexpr int kStatusNotImplemented = 10;

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
  bool operator==(const Work& o) const {
    return nodes == o.nodes && mem_banks == o.mem_banks && caches == o.caches &&
           io_links == o.io_links;
  }
};

// One case on one library. Iterate() is the measured region: the ours side
// must not allocate in it (the driver counts and reports).
class CaseRun {
 public:
  virtual ~CaseRun() = default;
  virtual Outcome Iterate(Work* work) = 0;
};

using CaseFactory = std::unique_ptr<CaseRun> (*)(std::string* error);

// ---- ours.cc -----------------------------------------------------------------
// Configures the default context with the Linux platform (so every libc
// call goes through the simulator's preload, as Debian's do). Diagnostics
// are kept in a fixed buffer; LastOursDiagnostic() returns the latest one.
bool OursSetup(std::string* error);
const char* LastOursDiagnostic();
std::unique_ptr<CaseRun> OursOpenClose(std::string* error);
std::unique_ptr<CaseRun> OursTopologyCycle(std::string* error);

// ---- debian.cc ---------------------------------------------------------------
// dlopen(path, RTLD_NOW | RTLD_LOCAL) and dlsym of every entry point the
// cases use.
bool DebianLoad(const char* path, std::string* error);
std::unique_ptr<CaseRun> DebianOpenClose(std::string* error);
std::unique_ptr<CaseRun> DebianTopologyCycle(std::string* error);

}  // namespace hkebench

#endif  // HKE_TOOLS_BENCH_BENCH_H_
