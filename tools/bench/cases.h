// The cases, each written once for both libraries as a template over `Api`:
//   OpenClose      hsaKmtOpenKFD + hsaKmtCloseKFD (the open handshake);
//   TopologyCycle  OpenKFD, AcquireSystemProperties, every node's
//                  node/memory/cache/io-link properties,
//                  ReleaseSystemProperties, CloseKFD.
//
// `Api` supplies the property types of its header (System, Node, Memory,
// Cache, Link) and static functions Open, Close, Acquire, Release,
// GetNode, GetMemory, GetCaches, GetLinks with the hsaKmt* signatures,
// returning the HSAKMT_STATUS as int. Included by ours.cc and debian.cc
// only; each instantiates it with its own types.
#ifndef HKE_TOOLS_BENCH_CASES_H_
#define HKE_TOOLS_BENCH_CASES_H_

#include <cstring>
#include <vector>

#include "tools/bench/bench.h"

namespace hkebench {

template <class Api>
class OpenClose final : public CaseRun {
 public:
  Outcome Iterate(Work*) override {
    int s = Api::Open();
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtOpenKFD"};
    s = Api::Close();
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtCloseKFD"};
    return Outcome{};
  }
};

template <class Api>
class TopologyCycle final : public CaseRun {
 public:
  // Output arrays of `per_node` entries each, allocated here, outside the
  // measured region.
  explicit TopologyCycle(size_t per_node) : mem_(per_node), caches_(per_node), links_(per_node) {}

  Outcome Iterate(Work* work) override {
    int s = Api::Open();
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtOpenKFD"};
    Outcome o = ReadAll(work);
    s = Api::Close();
    if (o.status == kStatusSuccess && s != kStatusSuccess) o = Outcome{s, "hsaKmtCloseKFD"};
    return o;
  }

 private:
  Outcome ReadAll(Work* work) {
    typename Api::System sys;
    std::memset(&sys, 0, sizeof(sys));
    int s = Api::Acquire(&sys);
    if (s != kStatusSuccess) return Outcome{s, "hsaKmtAcquireSystemProperties"};
    Outcome o = ReadNodes(sys.NumNodes, work);
    s = Api::Release();
    if (o.status == kStatusSuccess && s != kStatusSuccess) {
      o = Outcome{s, "hsaKmtReleaseSystemProperties"};
    }
    return o;
  }

  Outcome ReadNodes(uint32_t count, Work* work) {
    work->nodes += count;
    for (uint32_t n = 0; n < count; ++n) {
      typename Api::Node node;
      std::memset(&node, 0, sizeof(node));
      int s = Api::GetNode(n, &node);
      if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeProperties"};
      if (node.NumMemoryBanks > mem_.size() || node.NumCaches > caches_.size() ||
          node.NumIOLinks > links_.size()) {
        return Outcome{kHarnessError, "harness: per-node output arrays too small"};
      }
      if (node.NumMemoryBanks != 0) {
        s = Api::GetMemory(n, node.NumMemoryBanks, mem_.data());
        if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeMemoryProperties"};
      }
      if (node.NumCaches != 0) {
        s = Api::GetCaches(n, node.CComputeIdLo, node.NumCaches, caches_.data());
        if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeCacheProperties"};
      }
      if (node.NumIOLinks != 0) {
        s = Api::GetLinks(n, node.NumIOLinks, links_.data());
        if (s != kStatusSuccess) return Outcome{s, "hsaKmtGetNodeIoLinkProperties"};
      }
      work->mem_banks += node.NumMemoryBanks;
      work->caches += node.NumCaches;
      work->io_links += node.NumIOLinks;
    }
    return Outcome{};
  }

  std::vector<typename Api::Memory> mem_;
  std::vector<typename Api::Cache> caches_;
  std::vector<typename Api::Link> links_;
};

}  // namespace hkebench

#endif  // HKE_TOOLS_BENCH_CASES_H_
