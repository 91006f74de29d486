// The API coverage table (issue #8 item 7): one row per hsaKmt* function of
// include/hsakmt/hsakmt.h, each with a success path and an error path that
// run on a fresh simulated board behind the default context.
//
// A path returns an Outcome (pass/fail and a message) and reports the
// status of the function under test through Env::Expect, so the runner can
// hold every row to the "no NOT_IMPLEMENTED" rule. Rows are grouped by area
// in the rows_*_support.cc files; coverage_test.cc checks the table against
// the header and runs it.
#ifndef HKE_TESTS_API_COVERAGE_COVERAGE_H_
#define HKE_TESTS_API_COVERAGE_COVERAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "tests/misc_api/support.h"
#include "tests/support/sim_board.h"

namespace covtest {

using misctest::Poisoned;

// What a row expects of its success path.
enum class Kind {
  kReal,           // SUCCESS, and something observable happened
  kDocumented,     // the documented status of kDocumentedOutcomes (no model of it here)
  kByDesign,       // NOT_IMPLEMENTED as upstream (kNotImplementedByDesign)
};

// The board a row runs on.
enum class Board {
  kDatacenter,  // "datacenter-4gpu": 1 CPU + 4 MI210 (gfx90a), KFD 1.17
  kKaveri,      // misctest::KaveriTree: the only GPU SET_MEMORY_POLICY applies to
};

struct Outcome {
  bool pass;
  std::string message;
};

class Env;
using Path = Outcome (*)(Env&);

struct Row {
  const char* name;  // the hsaKmt* function
  Kind kind;
  Path success;
  Path error;
  Board board = Board::kDatacenter;
};

// One documented outcome: a function whose success path the simulator
// cannot reach, and the exact status it answers instead.
struct Documented {
  const char* name;
  HSAKMT_STATUS status;
  const char* why;
};

extern const Documented kDocumentedOutcomes[];
extern const size_t kDocumentedOutcomeCount;
extern const char* const kNotImplementedByDesign[];
extern const size_t kNotImplementedByDesignCount;

const char* StatusName(HSAKMT_STATUS s);

// The state one path runs in: the board, and helpers for the setup most
// rows share. Setup helpers REQUIRE success (a failure aborts the path and
// fails its row). Objects the helpers make are released by the last close
// (the destructor closes the device) or by the destructor itself.
class Env {
 public:
  explicit Env(hketest::SimBoard& board) : b_(board) {}
  ~Env();
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  hketest::SimBoard& board() { return b_; }
  kfdsim_t* sim() { return b_.sim(); }

  // Opens the device and acquires the topology (once per Env).
  void Open();
  uint32_t Gpu();  // the first GPU node (opens)
  uint32_t Gpu2();  // the second GPU node (opens)
  uint32_t Cpu();  // the first CPU node (opens)
  uint32_t NumNodes();
  uint32_t GpuId(uint32_t node);

  // Host-visible VRAM of Gpu(), not mapped.
  void* Vram(uint64_t size = 1u << 16);
  // GTT mapped to Gpu(), zeroed.
  void* Gtt(uint64_t size = 4096);
  // Page-aligned anonymous host memory (unmapped by the destructor).
  void* Host(uint64_t size = 1u << 16);
  // A SIGNAL event on Gpu().
  HsaEvent* Event(bool manual_reset = true, bool signaled = false);
  // An SDMA queue and an AQL compute queue (with a save area) on Gpu().
  HSA_QUEUEID Sdma();
  HSA_QUEUEID Aql();
  // A handle that was a queue: created and destroyed.
  HSA_QUEUEID StaleQueue();

  // The trace from here on.
  void Mark() { b_.ClearTrace(); }
  // A successful ioctl `name` (without prefix) since Mark().
  bool Saw(const std::string& name);
  // No ioctl at all since Mark().
  bool Quiet();
  bool DiagHas(const std::string& text);

  // The status of the call under test, with what else the path requires.
  Outcome Expect(HSAKMT_STATUS got, HSAKMT_STATUS want, bool observed, const std::string& what);
  Outcome Ok(HSAKMT_STATUS got, bool observed, const std::string& what) {
    return Expect(got, HSAKMT_STATUS_SUCCESS, observed, what);
  }
  const std::vector<HSAKMT_STATUS>& statuses() const { return statuses_; }

 private:
  hketest::SimBoard& b_;
  bool open_ = false;
  std::vector<HSAKMT_STATUS> statuses_;
  std::vector<std::pair<void*, size_t>> host_;
};

// The rows of each area.
void AddDeviceRows(std::vector<Row>* rows);   // open/close, topology, node, fixed-status calls
void AddMemoryRows(std::vector<Row>* rows);
void AddEventQueueRows(std::vector<Row>* rows);
void AddDebugProfileRows(std::vector<Row>* rows);  // debugger, SPM, PC sampling, PMC

}  // namespace covtest

#endif  // HKE_TESTS_API_COVERAGE_COVERAGE_H_
