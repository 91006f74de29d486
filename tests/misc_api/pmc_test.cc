// hsaKmtPmc*: the counter-property blob per GFX family (layout, UUIDs,
// caching, refused nodes), trace registration checks and context-owned
// trace ids, and the privileged IOMMU counters end to end on the
// simulator's IOMMU PMU (perf_event operations of the platform), including
// the platform refusing them.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "doctest/doctest.h"
#include "hsakmt/hsakmtctx.h"
#include "tests/misc_api/support.h"

using hketest::SimBoard;
using misctest::Poisoned;

namespace {

constexpr uint32_t kSqBlock = 14;
constexpr uint32_t kIommuBlock = 24;

// One block of a blob as the test walks it.
struct BlockView {
  HSA_UUID uuid;
  uint32_t num_counters;
  uint32_t num_concurrent;
  std::vector<HsaCounter> counters;
};

// Walks a blob by its own counts (as a caller must: records are packed
// back to back).
std::vector<BlockView> Walk(const HsaCounterProperties* p) {
  std::vector<BlockView> out;
  const auto* at = reinterpret_cast<const unsigned char*>(p) + 8;
  for (uint32_t b = 0; b < p->NumBlocks; ++b) {
    BlockView v;
    std::memcpy(&v.uuid, at, sizeof(v.uuid));
    std::memcpy(&v.num_counters, at + 16, 4);
    std::memcpy(&v.num_concurrent, at + 20, 4);
    at += 24;
    v.counters.resize(v.num_counters);
    if (v.num_counters != 0) std::memcpy(v.counters.data(), at, 32u * v.num_counters);
    at += 32u * v.num_counters;
    out.push_back(v);
  }
  return out;
}

bool SameUuid(const HSA_UUID& a, const HSA_UUID& b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

HsaCounter Counter(uint32_t block, uint64_t id, HSA_PROFILE_TYPE type) {
  HsaCounter c;
  std::memset(&c, 0, sizeof(c));
  c.Type = type;
  c.CounterId = id;
  c.CounterSizeInBits = 64;
  c.BlockIndex = block;
  return c;
}

HsaCounter Sq(uint64_t id) { return Counter(kSqBlock, id, HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE); }
HsaCounter Iommu(uint64_t id) {
  return Counter(kIommuBlock, id, HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE);
}

HSATraceId Register(uint32_t node, std::vector<HsaCounter> c, HsaPmcTraceRoot* root = nullptr) {
  HsaPmcTraceRoot r{};
  REQUIRE(hsaKmtPmcRegisterTrace(node, static_cast<HSAuint32>(c.size()), c.data(), &r) ==
          HSAKMT_STATUS_SUCCESS);
  if (root != nullptr) *root = r;
  return r.TraceId;
}

// GPU nodes of the acquired topology with their gfx_target_version.
std::vector<std::pair<uint32_t, uint32_t>> GpuNodes() {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t n = 0; n < misctest::NumNodes(); ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.NumFComputeCores == 0) continue;
    const uint32_t v = p.EngineId.ui32.Major * 10000 + p.EngineId.ui32.Minor * 100 +
                       p.EngineId.ui32.Stepping;
    out.emplace_back(n, v);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "GetCounterProperties on a gfx9 node (MI210) is upstream's gfx9 table plus the IOMMU block, "
    "packed, with the public block UUIDs, cached per table") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const auto gpus = GpuNodes();
  REQUIRE(gpus.size() == 4);
  HsaCounterProperties* p = nullptr;
  REQUIRE(hsaKmtPmcGetCounterProperties(gpus[0].first, &p) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(p != nullptr);
  CHECK(p->NumBlocks == 21);
  const std::vector<BlockView> blocks = Walk(p);
  uint32_t total = 0;
  uint32_t concurrent = 0;
  std::map<uint32_t, const BlockView*> by_index;
  for (const BlockView& v : blocks) {
    REQUIRE(!v.counters.empty());
    const uint32_t index = v.counters[0].BlockIndex;
    CAPTURE(index);
    by_index[index] = &v;
    total += v.num_counters;
    concurrent += v.num_concurrent;
    for (const HsaCounter& c : v.counters) {
      CHECK(c.BlockIndex == index);
      CHECK(c.Flags.ui32.Global == 1);
      if (index == kIommuBlock) {
        CHECK(c.Type == HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE);
        CHECK(c.CounterSizeInBits == 48);
        CHECK(c.CounterMask == 0xFFFFFFFFFFFFull);
      } else {
        CHECK(c.Type == HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE);
        CHECK(c.CounterSizeInBits == 64);
        CHECK(c.CounterMask == ~0ull);
      }
    }
  }
  CHECK(by_index.size() == 21);  // blocks in increasing index order, none twice
  CHECK(total == 3289 + 21);      // gfx9's counters and the simulated PMU's 21 events
  CHECK(concurrent == 158 + 8);  // gfx9 slots and the PMU's 8
  REQUIRE(by_index.count(kSqBlock) == 1);
  const BlockView& sq = *by_index[kSqBlock];
  CHECK(SameUuid(sq.uuid, HSA_PROFILEBLOCK_AMD_SQ));
  CHECK(sq.num_concurrent == 16);
  CHECK(sq.num_counters == 183 + 118);
  CHECK(sq.counters.front().CounterId == 1);
  CHECK(sq.counters[182].CounterId == 183);
  CHECK(sq.counters[183].CounterId == 255);
  CHECK(SameUuid(by_index[4]->uuid, HSA_PROFILEBLOCK_AMD_DB));  // upstream leaves DB's unset
  CHECK(SameUuid(by_index[0]->uuid, HSA_PROFILEBLOCK_AMD_CB));
  CHECK(SameUuid(by_index[23]->uuid, HSA_PROFILEBLOCK_AMD_WD));
  const BlockView& io = *by_index[kIommuBlock];
  CHECK(io.num_concurrent == 8);
  CHECK(io.counters.front().CounterId == 1);
  CHECK(io.counters.back().CounterId == 0x18);

  // Cached: the same pointer again, and for every GPU of the same table.
  for (const auto& g : gpus) {
    HsaCounterProperties* again = nullptr;
    REQUIRE(hsaKmtPmcGetCounterProperties(g.first, &again) == HSAKMT_STATUS_SUCCESS);
    CHECK(again == p);
  }
  // The Ctx twin on the default context (an HsaKFDContext is an
  // hke_context) answers the same blob.
  HsaCounterProperties* via_ctx = nullptr;
  CHECK(hsaKmtPmcGetCounterPropertiesCtx(reinterpret_cast<HsaKFDContext*>(hke_default_context()),
                                         gpus[0].first, &via_ctx) == HSAKMT_STATUS_SUCCESS);
  CHECK(via_ctx == p);
  CHECK(hsaKmtPmcGetCounterPropertiesCtx(nullptr, gpus[0].first, &via_ctx) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_CASE(
    "GetCounterProperties refuses a CPU node, a NULL output, an unknown node and a closed device, "
    "writing nothing") {
  SimBoard b(nullptr, "apu-embedded");
  Poisoned<HsaCounterProperties*> out;
  CHECK(hsaKmtPmcGetCounterProperties(1, &out.v) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t cpu = misctest::FirstCpuNode();
  CHECK(hsaKmtPmcGetCounterProperties(cpu, &out.v) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(misctest::Join(b.Diags()).find("is a CPU node") != std::string::npos);
  CHECK(hsaKmtPmcGetCounterProperties(misctest::NumNodes(), &out.v) ==
        HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtPmcGetCounterProperties(misctest::FirstGpuNode(), nullptr) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(out.untouched());
  // The APU (gfx90c) is gfx9 too.
  HsaCounterProperties* p = nullptr;
  REQUIRE(hsaKmtPmcGetCounterProperties(misctest::FirstGpuNode(), &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(p->NumBlocks == 21);
}

TEST_CASE(
    "GetCounterProperties per family on a mixed tree: gfx9 and gfx10 get their own blobs, gfx11 is "
    "INVALID_PARAMETER; without an IOMMU PMU there is no IOMMU block") {
  SimBoard b("mixed-gfx906-gfx1102-gfx1032", nullptr);
  REQUIRE(kfdsim_iommu_pmu_configure(b.sim(), 0) == 0);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  std::map<uint32_t, HsaCounterProperties*> by_major;
  int seen = 0;
  for (const auto& g : GpuNodes()) {
    CAPTURE(g.second);
    Poisoned<HsaCounterProperties*> out;
    const HSAKMT_STATUS s = hsaKmtPmcGetCounterProperties(g.first, &out.v);
    if (g.second >= 110000) {
      CHECK(s == HSAKMT_STATUS_INVALID_PARAMETER);
      CHECK(out.untouched());
      ++seen;
      continue;
    }
    REQUIRE(s == HSAKMT_STATUS_SUCCESS);
    by_major[g.second / 10000] = out.v;
    uint32_t total = 0;
    for (const BlockView& v : Walk(out.v)) {
      total += v.num_counters;
      CHECK(v.counters[0].BlockIndex != kIommuBlock);
    }
    if (g.second / 10000 == 9) {
      CHECK(out.v->NumBlocks == 20);
      CHECK(total == 3289);
    } else {
      CHECK(out.v->NumBlocks == 15);
      CHECK(total == 3390);
    }
    ++seen;
  }
  CHECK(seen == 3);
  REQUIRE(by_major.size() == 2);
  CHECK(by_major[9] != by_major[10]);
}

TEST_CASE(
    "RegisterTrace checks every counter and leaves TraceRoot untouched when it refuses; ids are "
    "checked before anything else") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const auto gpus = GpuNodes();
  const uint32_t node = gpus[0].first;
  Poisoned<HsaPmcTraceRoot> root;
  auto refused = [&](std::vector<HsaCounter> c) {
    return hsaKmtPmcRegisterTrace(node, static_cast<HSAuint32>(c.size()), c.data(), &root.v);
  };
  CHECK(refused({Sq(184)}) == HSAKMT_STATUS_INVALID_PARAMETER);          // not an SQ id
  CHECK(refused({Counter(25, 1, HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE)}) ==  // no such block
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(refused({Counter(kSqBlock, 1, HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE)}) ==
        HSAKMT_STATUS_INVALID_PARAMETER);  // a GPU counter typed privileged
  CHECK(refused({Counter(kIommuBlock, 1, HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE)}) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(refused({Iommu(0x14)}) == HSAKMT_STATUS_INVALID_PARAMETER);  // not a served event
  std::vector<HsaCounter> seventeen;
  for (uint64_t i = 1; i <= 17; ++i) seventeen.push_back(Sq(i));
  CHECK(refused(seventeen) == HSAKMT_STATUS_INVALID_PARAMETER);  // SQ has 16 slots
  CHECK(misctest::Join(b.Diags()).find("one more than its block's slots") != std::string::npos);
  CHECK(hsaKmtPmcRegisterTrace(node, 0, seventeen.data(), &root.v) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(hsaKmtPmcRegisterTrace(node, 1, nullptr, &root.v) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(root.untouched());
  seventeen.pop_back();

  HsaPmcTraceRoot r{};
  const HSATraceId id = Register(node, {Sq(1), Iommu(1), Iommu(5)}, &r);
  CHECK(r.NumberOfPasses == 1);
  CHECK(r.TraceBufferMinSizeBytes == 4096);
  CHECK(id != 0);
  const HSATraceId gpu_only = Register(node, seventeen, &r);
  CHECK(r.TraceBufferMinSizeBytes == 0);

  // Another node's id, forged ids, a PC-sampling-shaped id, id 0.
  REQUIRE(gpu_only == id + 1);  // the next slot, same first generation
  CHECK(hsaKmtPmcUnregisterTrace(gpus[1].first, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPmcAcquireTraceAccess(gpus[1].first, id) == HSAKMT_STATUS_INVALID_HANDLE);
  // ~0u is a node like any other (no wildcard).
  CHECK(hsaKmtPmcUnregisterTrace(0xFFFFFFFFu, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPmcAcquireTraceAccess(0xFFFFFFFFu, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPmcReleaseTraceAccess(0xFFFFFFFFu, id) == HSAKMT_STATUS_INVALID_HANDLE);
  for (HSATraceId forged : std::vector<HSATraceId>{id + 2, id ^ (HSATraceId{1} << 40), 0x80000100u,
                                                   ~HSATraceId{0}, id + 0x100}) {
    CAPTURE(forged);
    CHECK(hsaKmtPmcUnregisterTrace(node, forged) == HSAKMT_STATUS_INVALID_HANDLE);
    CHECK(hsaKmtPmcStartTrace(forged, &r, sizeof(r)) == HSAKMT_STATUS_INVALID_HANDLE);
    CHECK(hsaKmtPmcQueryTrace(forged) == HSAKMT_STATUS_INVALID_HANDLE);
    CHECK(hsaKmtPmcStopTrace(forged) == HSAKMT_STATUS_INVALID_HANDLE);
  }
  CHECK(hsaKmtPmcStopTrace(0) == HSAKMT_STATUS_INVALID_PARAMETER);

  // Unregistered: stale, also after the slot is reused.
  REQUIRE(hsaKmtPmcUnregisterTrace(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcUnregisterTrace(node, id) == HSAKMT_STATUS_INVALID_HANDLE);
  const HSATraceId reused = Register(node, {Sq(2)});
  CHECK(reused != id);
  CHECK(hsaKmtPmcReleaseTraceAccess(node, id) == HSAKMT_STATUS_INVALID_HANDLE);
  CHECK(hsaKmtPmcUnregisterTrace(node, reused) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcUnregisterTrace(node, gpu_only) == HSAKMT_STATUS_SUCCESS);

  // A CPU node has no counters.
  CHECK(hsaKmtPmcRegisterTrace(misctest::FirstCpuNode(), 1, seventeen.data(), &root.v) ==
        HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(root.untouched());
}

TEST_CASE("RegisterTrace: a full trace table is OUT_OF_RESOURCES and leaks no slot") {
  SimBoard b(nullptr, "apu-embedded");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = misctest::FirstGpuNode();
  std::vector<HsaCounter> c = {Sq(1)};
  std::vector<HSATraceId> ids;
  for (;;) {
    HsaPmcTraceRoot r{};
    const HSAKMT_STATUS s = hsaKmtPmcRegisterTrace(node, 1, c.data(), &r);
    if (s != HSAKMT_STATUS_SUCCESS) {
      CHECK(s == HSAKMT_STATUS_OUT_OF_RESOURCES);
      break;
    }
    ids.push_back(r.TraceId);
    REQUIRE(ids.size() <= 256);
  }
  CHECK(ids.size() >= 4);
  CHECK(std::set<HSATraceId>(ids.begin(), ids.end()).size() == ids.size());
  for (HSATraceId id : ids) CHECK(hsaKmtPmcUnregisterTrace(node, id) == HSAKMT_STATUS_SUCCESS);
  // Every slot is free again.
  for (size_t i = 0; i < ids.size(); ++i) {
    HsaPmcTraceRoot r{};
    CHECK(hsaKmtPmcRegisterTrace(node, 1, c.data(), &r) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE(
    "IOMMU counters end to end on the simulator: access opens perf counters, Query writes "
    "increasing values, Stop freezes them, Release and Unregister close everything") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = GpuNodes()[0].first;
  const HSATraceId id = Register(node, {Iommu(1), Sq(3), Iommu(5)});
  uint64_t buf[4] = {0xA5A5, 0xA5A5, 0xA5A5, 0xA5A5};
  CHECK(hsaKmtPmcStartTrace(id, buf, sizeof(buf)) == HSAKMT_STATUS_UNAVAILABLE);  // no access
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE);                     // not started
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 2);
  CHECK(hsaKmtPmcAcquireTraceAccess(node, id) == HSAKMT_STATUS_SUCCESS);  // a no-op
  CHECK(kfdsim_perf_open_count(b.sim()) == 2);
  CHECK(hsaKmtPmcStartTrace(id, buf, 15) == HSAKMT_STATUS_INVALID_PARAMETER);  // 2 x 8 needed
  CHECK(hsaKmtPmcStartTrace(id, nullptr, 4096) == HSAKMT_STATUS_INVALID_PARAMETER);
  REQUIRE(hsaKmtPmcStartTrace(id, buf, 16) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_SUCCESS);
  // The simulated PMU adds (csource + 1) * 16 per read while enabled.
  CHECK(buf[0] == 32);
  CHECK(buf[1] == 96);
  CHECK(buf[2] == 0xA5A5);
  REQUIRE(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_SUCCESS);
  CHECK(buf[0] == 64);
  CHECK(buf[1] == 192);
  REQUIRE(hsaKmtPmcStopTrace(id) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE);
  CHECK(buf[0] == 64);
  // Start again: counting resumes where it stopped.
  REQUIRE(hsaKmtPmcStartTrace(id, buf, 16) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_SUCCESS);
  CHECK(buf[0] == 96);
  REQUIRE(hsaKmtPmcReleaseTraceAccess(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE);  // release stopped it
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, id) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcStartTrace(id, buf, 16) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcUnregisterTrace(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);

  // The last close closes the descriptors of a trace left open; its id is
  // stale in the next open.
  const HSATraceId left = Register(node, {Iommu(2)});
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, left) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcStartTrace(left, buf, 8) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 1);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcQueryTrace(left) == HSAKMT_STATUS_INVALID_HANDLE);
}

TEST_CASE("a trace of GPU-block counters only: Start/Query/Stop move its state and write nothing") {
  SimBoard b(nullptr, "datacenter-4gpu");
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = GpuNodes()[0].first;
  const HSATraceId id = Register(node, {Sq(1), Sq(2)});
  uint64_t buf[2] = {7, 7};
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE);
  REQUIRE(hsaKmtPmcStartTrace(id, buf, sizeof(buf)) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_SUCCESS);
  CHECK(buf[0] == 7);
  CHECK(buf[1] == 7);
  CHECK(hsaKmtPmcStopTrace(id) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE);
  CHECK(hsaKmtPmcUnregisterTrace(node, id) == HSAKMT_STATUS_SUCCESS);
}

namespace {

std::atomic<int> g_open_calls{0};
std::atomic<int> g_fail_open_at{0};
std::atomic<int> g_fail_enable{0};

int FailingPerfOpen(void* self, uint32_t type, uint64_t config, int* out_fd) {
  if (++g_open_calls == g_fail_open_at.load()) return EACCES;
  return hke_sim_platform(static_cast<kfdsim_t*>(self)).ops->perf_open(self, type, config, out_fd);
}

int FailingPerfEnable(void* self, int fd, uint32_t enable) {
  if (enable != 0 && g_fail_enable.load() != 0) return g_fail_enable.load();
  return hke_sim_platform(static_cast<kfdsim_t*>(self)).ops->perf_enable(self, fd, enable);
}

// perf_enable that starts a last close on another thread the first time it
// is armed, and reports whether that close finished while the call was
// still inside (it must not: the close waits for the call). (Ints, not
// bools: a one-byte atomic exchange needs libatomic on riscv64.)
std::atomic<int> g_close_in_enable{0};
std::atomic<int> g_close_done{0};
std::atomic<int> g_close_done_inside{0};
std::atomic<int> g_close_status{-1};
std::thread g_closer;
int ClosingPerfEnable(void* self, int fd, uint32_t enable) {
  if (enable != 0 && g_close_in_enable.exchange(0) != 0) {
    g_closer = std::thread([] {
      g_close_status = hsaKmtCloseKFD();
      g_close_done = 1;
    });
    // Give the closer every chance to get ahead; it still cannot finish.
    for (int i = 0; i < 100 && g_close_done.load() == 0; ++i) std::this_thread::yield();
    g_close_done_inside = g_close_done.load();
  }
  return hke_sim_platform(static_cast<kfdsim_t*>(self)).ops->perf_enable(self, fd, enable);
}

void UseOps(SimBoard& b, hke_platform_ops* ops) {
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform.ops = ops;
  c.platform.self = b.sim();
  REQUIRE(hke_default_context_configure(&c) == HKE_OK);
}

}  // namespace

TEST_CASE(
    "the platform refusing perf_event: Acquire is ERROR and closes what it opened, Start is ERROR "
    "and leaves the trace stopped, no perf operations is NOT_SUPPORTED") {
  SimBoard b(nullptr, "datacenter-4gpu");
  hke_platform_ops ops = *hke_sim_platform(b.sim()).ops;
  ops.perf_open = FailingPerfOpen;
  ops.perf_enable = FailingPerfEnable;
  UseOps(b, &ops);
  g_open_calls = 0;
  g_fail_open_at = 2;
  g_fail_enable = 0;
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = GpuNodes()[0].first;
  const HSATraceId id = Register(node, {Iommu(1), Iommu(2), Iommu(3)});
  uint64_t buf[3] = {};
  CHECK(hsaKmtPmcAcquireTraceAccess(node, id) == HSAKMT_STATUS_ERROR);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);
  CHECK(hsaKmtPmcStartTrace(id, buf, sizeof(buf)) == HSAKMT_STATUS_UNAVAILABLE);  // no access
  g_fail_open_at = 0;
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 3);
  g_fail_enable = EIO;
  CHECK(hsaKmtPmcStartTrace(id, buf, sizeof(buf)) == HSAKMT_STATUS_ERROR);
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_UNAVAILABLE);  // still stopped
  g_fail_enable = 0;
  REQUIRE(hsaKmtPmcStartTrace(id, buf, sizeof(buf)) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_SUCCESS);
  CHECK(buf[0] == 32);  // the failed Start counted nothing
  REQUIRE(hsaKmtPmcUnregisterTrace(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);

  // A port without the perf operations.
  hke_platform_ops none = *hke_sim_platform(b.sim()).ops;
  none.perf_open = nullptr;
  none.perf_enable = nullptr;
  none.perf_read = nullptr;
  UseOps(b, &none);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const HSATraceId id2 = Register(node, {Iommu(1)});
  CHECK(hsaKmtPmcAcquireTraceAccess(node, id2) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(hsaKmtPmcUnregisterTrace(node, id2) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "a last close from another thread while StartTrace is in the kernel waits for the call, then "
    "closes every perf descriptor") {
  SimBoard b(nullptr, "datacenter-4gpu");
  hke_platform_ops ops = *hke_sim_platform(b.sim()).ops;
  ops.perf_enable = ClosingPerfEnable;
  UseOps(b, &ops);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  const uint32_t node = GpuNodes()[0].first;
  const HSATraceId id = Register(node, {Iommu(1)});
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, id) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 1);
  uint64_t buf[1] = {};
  g_close_done = 0;
  g_close_in_enable = 1;
  CHECK(hsaKmtPmcStartTrace(id, buf, sizeof(buf)) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(g_closer.joinable());
  g_closer.join();
  CHECK(g_close_in_enable.load() == 0);
  CHECK(g_close_done_inside.load() == 0);  // the close did not run inside the call
  CHECK(g_close_status.load() == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);  // the close released the started trace
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtPmcQueryTrace(id) == HSAKMT_STATUS_INVALID_HANDLE);
  const HSATraceId next = Register(node, {Iommu(2)});
  CHECK(next != id);
  REQUIRE(hsaKmtPmcAcquireTraceAccess(node, next) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 1);
  REQUIRE(hsaKmtPmcUnregisterTrace(node, next) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_perf_open_count(b.sim()) == 0);
  REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
}
