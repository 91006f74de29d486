// Fault sweep: hsaKmtAcquireSystemProperties (the sysfs topology, the
// render nodes, DEV_INFO, the apertures and the GPU VM bring-up), every
// node/bank/cache/link getter, hsaKmtReleaseSystemProperties.
#include <vector>

#include "doctest/doctest.h"
#include "tests/fault_sweep/sweep.h"

namespace {

using sweep::Run;

class Topology : public sweep::Body {
 public:
  void Prepare(Run& r) override { r.Require("hsaKmtOpenKFD", hsaKmtOpenKFD()); }
  void Act(Run& r) override {
    HsaSystemProperties sys;
    if (r.Step("hsaKmtAcquireSystemProperties", [&] { return hsaKmtAcquireSystemProperties(&sys); },
               {{&sys, sizeof(sys)}}) != HSAKMT_STATUS_SUCCESS) {
      return;
    }
    for (uint32_t n = 0; n < sys.NumNodes; ++n) {
      HsaNodeProperties p;
      if (r.Step("hsaKmtGetNodeProperties", [&] { return hsaKmtGetNodeProperties(n, &p); },
                 {{&p, sizeof(p)}}) != HSAKMT_STATUS_SUCCESS) {
        continue;
      }
      std::vector<HsaMemoryProperties> banks(p.NumMemoryBanks + 1);
      r.Step("hsaKmtGetNodeMemoryProperties",
             [&] { return hsaKmtGetNodeMemoryProperties(n, p.NumMemoryBanks, banks.data()); },
             {{banks.data(), p.NumMemoryBanks * sizeof(HsaMemoryProperties)}});
      std::vector<HsaCacheProperties> caches(p.NumCaches + 1);
      r.Step("hsaKmtGetNodeCacheProperties",
             [&] { return hsaKmtGetNodeCacheProperties(n, 0, p.NumCaches, caches.data()); },
             {{caches.data(), p.NumCaches * sizeof(HsaCacheProperties)}});
      std::vector<HsaIoLinkProperties> links(p.NumIOLinks + 1);
      r.Step("hsaKmtGetNodeIoLinkProperties",
             [&] { return hsaKmtGetNodeIoLinkProperties(n, p.NumIOLinks, links.data()); },
             {{links.data(), p.NumIOLinks * sizeof(HsaIoLinkProperties)}});
    }
    r.Step("hsaKmtReleaseSystemProperties", [] { return hsaKmtReleaseSystemProperties(); });
  }
};

}  // namespace

TEST_CASE(
    "fault sweep (file reads sampled: first and last of each path pattern): "
    "AcquireSystemProperties and every node/bank/cache/link getter fail cleanly or degrade with a "
    "warning") {
  sweep::Scenario s;
  s.name = "topology";
  s.changes_vm = true;
  s.sample_files = true;
  s.make = [] { return std::make_unique<Topology>(); };
  sweep::Report(s, sweep::Sweep(s));
}
