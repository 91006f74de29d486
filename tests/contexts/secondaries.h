// Test helper: the secondary contexts a test opened, closed when it ends
// (also when a REQUIRE ends it early), so a failing test cannot leave the
// library's fixed slots taken for the next one. Declare it after the
// SimBoard: it must close its contexts while the simulator still exists.
#ifndef HKE_TESTS_CONTEXTS_SECONDARIES_H_
#define HKE_TESTS_CONTEXTS_SECONDARIES_H_

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "hsakmt/hsakmtctx.h"

namespace ctxtest {

class Secondaries {
 public:
  Secondaries() = default;
  Secondaries(const Secondaries&) = delete;
  Secondaries& operator=(const Secondaries&) = delete;
  ~Secondaries() {
    for (HsaKFDContext* c : open_) (void)hsaKmtCloseSecondaryKFDCtx(c);
  }
  // hsaKmtOpenSecondaryKFDCtx; the context is remembered on success.
  HSAKMT_STATUS TryOpen(HsaKFDContext** out) {
    const HSAKMT_STATUS r = hsaKmtOpenSecondaryKFDCtx(out);
    if (r == HSAKMT_STATUS_SUCCESS) open_.push_back(*out);
    return r;
  }
  HsaKFDContext* Open() {
    HsaKFDContext* c = nullptr;
    REQUIRE(TryOpen(&c) == HSAKMT_STATUS_SUCCESS);
    return c;
  }
  // hsaKmtCloseSecondaryKFDCtx; forgotten on success.
  HSAKMT_STATUS Close(HsaKFDContext* c) {
    const HSAKMT_STATUS r = hsaKmtCloseSecondaryKFDCtx(c);
    if (r == HSAKMT_STATUS_SUCCESS) open_.erase(std::remove(open_.begin(), open_.end(), c), open_.end());
    return r;
  }

 private:
  std::vector<HsaKFDContext*> open_;
};

}  // namespace ctxtest

#endif  // HKE_TESTS_CONTEXTS_SECONDARIES_H_
