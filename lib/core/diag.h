// Diagnostics sink of a context: turns a failure into one hke_diag_record
// for the caller's callback. Nothing is printed and nothing is stored; with
// no callback configured a report costs one branch.
//
// Thread-compatible: the message is built in a stack buffer per report.
#ifndef HKE_LIB_CORE_DIAG_H_
#define HKE_LIB_CORE_DIAG_H_

#include <cstdint>

#include "hsakmt/hsakmt_embedded.h"
#include "lib/core/status.h"
#include "lib/core/text.h"

namespace hke {

class Diag {
 public:
  static constexpr size_t kMessageCapacity = 256;

  Diag() = default;
  Diag(hke_diag_fn fn, void* user) : fn_(fn), user_(user) {}

  bool enabled() const { return fn_ != nullptr; }

  // Reports `message` (already formatted) at `level`, naming the status the
  // caller is about to return and optionally a file and line. Returns
  // `status` so a failure path can read `return diag.Error(...)`.
  Status Report(hke_diag_level level, Status status, const char* area, const char* message,
                const char* path = nullptr, uint32_t line = 0) const;

  Status Error(Status status, const char* area, const char* message, const char* path = nullptr,
               uint32_t line = 0) const {
    return Report(HKE_DIAG_ERROR, status, area, message, path, line);
  }

  // Reports "`what` failed: <status name>" as an error and returns `status`:
  // the message of a kernel call (an ioctl, mmap) that failed.
  Status Failed(Status status, const char* area, const char* what) const;

 private:
  hke_diag_fn fn_ = nullptr;
  void* user_ = nullptr;
};

}  // namespace hke

#endif  // HKE_LIB_CORE_DIAG_H_
