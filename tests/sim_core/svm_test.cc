// kfdsim SVM (core/svm.cc): the kernel's attribute merge and fold rules,
// range validation, prefetch migrations, XNACK retry faults, host unmaps
// (the MMU notifier), and the SMI records of all of them.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_embedded.h"
#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

constexpr uint32_t kGpuC = 0xc0de;  // a second gfx90a (XNACK-capable), renderD130

// Two gfx90a GPUs; `hive` nonzero puts both in one xGMI hive.
kfdsim::Board TwoGfx90a(uint64_t hive) {
  kfdsim::GpuDesc a = Gfx90a();
  kfdsim::GpuDesc c = Gfx90a();
  c.node_id = 2;
  c.gpu_id = kGpuC;
  c.render_minor = 130;
  a.hive_id = hive;
  c.hive_id = hive;
  return MakeBoard({a, c});
}

// Page-aligned anonymous host memory the test owns (unmapped at the end,
// straight through libc: the simulator is not told).
struct Host {
  explicit Host(size_t pages) : size(pages * 4096) {
    p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
  }
  ~Host() { munmap(p, size); }
  uint64_t at(size_t page) const { return reinterpret_cast<uintptr_t>(p) + page * 4096; }
  void* p;
  size_t size;
};

struct Req {
  k::SvmArgs head;
  k::SvmAttribute attrs[8];
};

int SvmOp(Sim& s, uint32_t op, uint64_t start, uint64_t size, std::vector<k::SvmAttribute>* attrs) {
  Req r{};
  r.head.start_addr = start;
  r.head.size = size;
  r.head.op = op;
  r.head.nattr = static_cast<uint32_t>(attrs->size());
  for (size_t i = 0; i < attrs->size(); ++i) r.attrs[i] = (*attrs)[i];
  const uint32_t req = k::IocWithSize(
      k::kIocSvm, static_cast<uint32_t>(sizeof(k::SvmArgs) + attrs->size() * sizeof(k::SvmAttribute)));
  const int e = s.Io(req, &r);
  for (size_t i = 0; i < attrs->size(); ++i) (*attrs)[i] = r.attrs[i];
  return e;
}

int Set(Sim& s, uint64_t start, uint64_t size, std::vector<k::SvmAttribute> attrs) {
  return SvmOp(s, k::kSvmOpSetAttr, start, size, &attrs);
}

int SetXnack(Sim& s, int32_t on) {
  k::SetXnackModeArgs x{};
  x.xnack_enabled = on;
  return s.Io(k::kIocSetXnackMode, &x);
}

// An SMI descriptor of `gpu_id` selecting `events`; reads every record sent so far.
struct Smi {
  Smi(Sim& s, uint32_t gpu_id, std::vector<uint32_t> events) {
    k::SmiEventsArgs a{};
    a.gpuid = gpu_id;
    REQUIRE(s.Io(k::kIocSmiEvents, &a) == 0);
    fd = static_cast<int>(a.anon_fd);
    uint64_t mask = 0;
    for (uint32_t e : events) mask |= k::SmiEventMask(e);
    REQUIRE(write(fd, &mask, sizeof(mask)) == 8);
  }
  ~Smi() { close(fd); }
  std::vector<hke_smi_record> Read() {
    char buf[8192];
    const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    std::vector<hke_smi_record> out;
    size_t at = 0;
    while (n > 0 && at < static_cast<size_t>(n)) {
      hke_smi_record r{};
      size_t used = 0;
      REQUIRE(hke_smi_record_parse(buf + at, static_cast<size_t>(n) - at, &r, &used) == HKE_OK);
      out.push_back(r);
      at += used;
    }
    return out;
  }
  int fd = -1;
};

TEST_CASE("sim SVM GET folds ranges set in pieces as svm_range_get_attr does") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  Host h(8);
  // Piece 1: preferred A, GPU_EXEC and an unknown flag bit; piece 2:
  // preferred A, GPU_RO, granularity 3.
  REQUIRE(Set(s, h.at(0), 0x2000, {{k::kSvmAttrPreferredLoc, kGpuA},
                                   {k::kSvmAttrSetFlags, k::kSvmFlagGpuExec | 0x100}}) == 0);
  REQUIRE(Set(s, h.at(2), 0x2000, {{k::kSvmAttrPreferredLoc, kGpuA},
                                   {k::kSvmAttrSetFlags, k::kSvmFlagGpuRo | 0x100},
                                   {k::kSvmAttrGranularity, 3}}) == 0);
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrPreferredLoc, 0},
                                    {k::kSvmAttrPrefetchLoc, 0},
                                    {k::kSvmAttrSetFlags, 0},
                                    {k::kSvmAttrClrFlags, 0},
                                    {k::kSvmAttrGranularity, 0}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x4000, &g) == 0);
  const uint32_t common = k::kSvmFlagHostAccess | k::kSvmFlagCoherent | 0x100;
  CHECK(g[0].value == kGpuA);
  CHECK(g[1].value == k::kSvmLocationUndefined);  // never set
  CHECK(g[2].value == common);                     // AND over the pieces, every bit
  CHECK(g[3].value == ~(common | k::kSvmFlagGpuExec | k::kSvmFlagGpuRo));  // ~OR
  CHECK(g[4].value == 3);                          // the minimum
  // One piece alone reports its own values.
  g = {{k::kSvmAttrSetFlags, 0}, {k::kSvmAttrGranularity, 0}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x2000, &g) == 0);
  CHECK(g[0].value == (common | k::kSvmFlagGpuExec));
  CHECK(g[1].value == 9);
  // Different preferred locations fold to UNDEFINED; gaps do not count.
  REQUIRE(Set(s, h.at(2), 0x1000, {{k::kSvmAttrPreferredLoc, kGpuB}}) == 0);
  g = {{k::kSvmAttrPreferredLoc, 0}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x4000, &g) == 0);
  CHECK(g[0].value == k::kSvmLocationUndefined);
  g = {{k::kSvmAttrPreferredLoc, 0}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(3), 0x5000, &g) == 0);  // piece 2's tail + a gap
  CHECK(g[0].value == kGpuA);
}

TEST_CASE("sim SVM access attributes: ACCESS and ACCESS_IN_PLACE replace each other, NO_ACCESS clears") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  Host h(4);
  REQUIRE(Set(s, h.at(0), 0x2000, {{k::kSvmAttrAccess, kGpuA}, {k::kSvmAttrAccessInPlace, kGpuB}}) == 0);
  REQUIRE(Set(s, h.at(1), 0x1000, {{k::kSvmAttrAccessInPlace, kGpuA}, {k::kSvmAttrNoAccess, kGpuB}}) == 0);
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrAccess, kGpuA}, {k::kSvmAttrAccess, kGpuB}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x1000, &g) == 0);
  CHECK(g[0].type == k::kSvmAttrAccess);
  CHECK(g[1].type == k::kSvmAttrAccessInPlace);
  g = {{k::kSvmAttrAccess, kGpuA}, {k::kSvmAttrAccess, kGpuB}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(1), 0x1000, &g) == 0);
  CHECK(g[0].type == k::kSvmAttrAccessInPlace);
  CHECK(g[1].type == k::kSvmAttrNoAccess);
  // Over both pieces: A has ACCESS on one and IN_PLACE on the other.
  g = {{k::kSvmAttrAccess, kGpuA}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x2000, &g) == 0);
  CHECK(g[0].type == k::kSvmAttrNoAccess);
}

TEST_CASE("sim SVM GET checks the range before the attribute types, and refuses IN_PLACE/NO_ACCESS queries") {
  Sim s(TwoGpuBoard());
  Host h(2);
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrAccessInPlace, kGpuA}};
  CHECK(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x1000, &g) == EINVAL);
  g = {{k::kSvmAttrNoAccess, kGpuA}};
  CHECK(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x1000, &g) == EINVAL);
  // Outside the address space: EFAULT even with a bad type.
  g = {{k::kSvmAttrNoAccess, kGpuA}};
  CHECK(SvmOp(s, k::kSvmOpGetAttr, 0x7ffffffff000ull, 0x2000, &g) == EFAULT);
  CHECK(SvmOp(s, k::kSvmOpGetAttr, 0xffff800000000000ull, 0x1000, &g) == EFAULT);
  // An ACCESS query of an unknown gpu_id: EINVAL, earlier attributes already written.
  g = {{k::kSvmAttrGranularity, 0}, {k::kSvmAttrAccess, 0xbad}};
  CHECK(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x1000, &g) == EINVAL);
  CHECK(g[0].value == 9);
}

TEST_CASE("sim SVM SET checks the attributes before the range, and refuses GPUs without SVM support") {
  kfdsim::GpuDesc old = Gfx90a();
  old.node_id = 2;
  old.gpu_id = 0x8888;
  old.render_minor = 131;
  old.gfx_target_version = 80003;  // gfx803 dGPU: no SVM
  Sim s(MakeBoard({Gfx90a(), old}));
  Host h(1);
  CHECK(Set(s, 0xffff800000000000ull, 0x1000, {{k::kSvmAttrAccess, 0x8888}}) == EINVAL);
  CHECK(Set(s, 0xffff800000000000ull, 0x1000, {{k::kSvmAttrAccess, kGpuA}}) == EFAULT);
  CHECK(Set(s, h.at(0), 0x1000, {{k::kSvmAttrPrefetchLoc, 0x8888}}) == EINVAL);
  CHECK(Set(s, h.at(0), 0x1000, {{k::kSvmAttrPrefetchLoc, k::kSvmLocationUndefined}}) == EINVAL);
  CHECK(Set(s, h.at(0), 0x1000, {{k::kSvmAttrPreferredLoc, k::kSvmLocationUndefined}}) == 0);
}

TEST_CASE("sim SVM refuses a range over a KFD BO mapped to a GPU (EADDRINUSE)") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  // A BO not mapped yet is no GPU VM mapping to collide with.
  Host unmapped_bo(4);
  k::AllocMemoryOfGpuArgs a;
  REQUIRE(s.Alloc(kGpuA, 0x1000, kGttFlags, &a, unmapped_bo.at(1)) == 0);
  CHECK(Set(s, unmapped_bo.at(0), 0x4000, {{k::kSvmAttrGranularity, 4}}) == 0);
  // A mapped one is.
  Host h(4);
  REQUIRE(s.Alloc(kGpuA, 0x1000, kGttFlags, &a, h.at(1)) == 0);
  uint32_t ids[1] = {kGpuA};
  k::MapMemoryToGpuArgs m{};
  m.handle = a.handle;
  m.device_ids_array_ptr = reinterpret_cast<uintptr_t>(ids);
  m.n_devices = 1;
  REQUIRE(s.Io(k::kIocMapMemoryToGpu, &m) == 0);
  CHECK(Set(s, h.at(0), 0x4000, {{k::kSvmAttrGranularity, 4}}) == EADDRINUSE);
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrGranularity, 0}};
  CHECK(SvmOp(s, k::kSvmOpGetAttr, h.at(1), 0x1000, &g) == EADDRINUSE);
  CHECK(Set(s, h.at(2), 0x2000, {{k::kSvmAttrGranularity, 4}}) == 0);  // beside it: fine
}

TEST_CASE("sim SVM prefetch moves the range and sends MIGRATE_START/END to the GPU involved") {
  Sim s(TwoGfx90a(/*hive=*/0x77));
  s.AcquireAll();
  Smi smi_a(s, kGpuA, {k::kSmiEventMigrateStart, k::kSmiEventMigrateEnd});
  Smi smi_c(s, kGpuC, {k::kSmiEventMigrateStart, k::kSmiEventMigrateEnd});
  Host h(4);
  REQUIRE(Set(s, h.at(0), 0x4000, {{k::kSvmAttrAccess, kGpuA}, {k::kSvmAttrPrefetchLoc, kGpuA}}) == 0);
  kfdsim::Simulator::SvmRangeInfo info;
  REQUIRE(s.sim->SvmRangeAt(h.at(2), &info) == 0);
  CHECK(info.actual_loc == kGpuA);
  auto recs = smi_a.Read();
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].event == k::kSmiEventMigrateStart);
  CHECK(recs[0].address == h.at(0) / 4096);
  CHECK(recs[0].size == 4);
  CHECK(recs[0].from_node == 0);
  CHECK(recs[0].to_node == kGpuA);
  CHECK(recs[0].prefetch_node == kGpuA);
  CHECK(recs[0].preferred_node == k::kSvmLocationUndefined);
  CHECK(recs[0].trigger == static_cast<int32_t>(k::kMigrateTriggerPrefetch));
  CHECK(recs[0].pid == static_cast<uint32_t>(getpid()));
  CHECK(recs[1].event == k::kSmiEventMigrateEnd);
  CHECK(recs[1].to_node == kGpuA);
  // The same location again: the pages are there, nothing moves.
  REQUIRE(Set(s, h.at(0), 0x4000, {{k::kSvmAttrPrefetchLoc, kGpuA}}) == 0);
  CHECK(smi_a.Read().empty());
  // To the other GPU of the hive: through system memory, records on each GPU.
  REQUIRE(Set(s, h.at(0), 0x4000, {{k::kSvmAttrPrefetchLoc, kGpuC}}) == 0);
  REQUIRE(s.sim->SvmRangeAt(h.at(0), &info) == 0);
  CHECK(info.actual_loc == kGpuC);
  recs = smi_a.Read();
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].from_node == kGpuA);
  CHECK(recs[0].to_node == 0);
  recs = smi_c.Read();
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].from_node == 0);
  CHECK(recs[0].to_node == kGpuC);
  // Half of it back to system memory: the range splits, one half moves.
  REQUIRE(Set(s, h.at(0), 0x2000, {{k::kSvmAttrPrefetchLoc, k::kSvmLocationSysmem}}) == 0);
  REQUIRE(s.sim->SvmRangeAt(h.at(0), &info) == 0);
  CHECK(info.actual_loc == 0);
  CHECK(info.end == h.at(2));
  REQUIRE(s.sim->SvmRangeAt(h.at(3), &info) == 0);
  CHECK(info.actual_loc == kGpuC);
  recs = smi_c.Read();
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].from_node == kGpuC);
  CHECK(recs[0].to_node == 0);
  CHECK(recs[0].size == 2);
  // The GET of the prefetch location reports what was set, per piece.
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrPrefetchLoc, 0}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x2000, &g) == 0);
  CHECK(g[0].value == k::kSvmLocationSysmem);
  g = {{k::kSvmAttrPrefetchLoc, 0}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x4000, &g) == 0);
  CHECK(g[0].value == k::kSvmLocationUndefined);
}

TEST_CASE("sim SVM prefetch to a GPU stays in system memory when a GPU outside its hive has access") {
  Sim s(TwoGfx90a(/*hive=*/0));
  s.AcquireAll();
  Smi smi(s, kGpuA, {k::kSmiEventMigrateStart});
  Host h(2);
  REQUIRE(Set(s, h.at(0), 0x2000, {{k::kSvmAttrAccess, kGpuA}, {k::kSvmAttrAccessInPlace, kGpuC},
                                   {k::kSvmAttrPrefetchLoc, kGpuA}}) == 0);
  kfdsim::Simulator::SvmRangeInfo info;
  REQUIRE(s.sim->SvmRangeAt(h.at(0), &info) == 0);
  CHECK(info.actual_loc == 0);
  CHECK(smi.Read().empty());
}

TEST_CASE("sim host munmap of part of an SVM range splits it; a later mapping there succeeds") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  Smi smi(s, kGpuA, {k::kSmiEventUnmapFromGpu});
  Host h(4);
  REQUIRE(Set(s, h.at(0), 0x4000, {{k::kSvmAttrAccess, kGpuA}, {k::kSvmAttrGranularity, 5}}) == 0);
  k::AllocMemoryOfGpuArgs a;
  CHECK(s.Alloc(kGpuA, 0x1000, kGttFlags, &a, h.at(1)) == EADDRINUSE);
  REQUIRE(munmap(reinterpret_cast<void*>(h.at(1)), 0x1000) == 0);
  s.sim->HostUnmapped(h.at(1), 0x1000);
  // Two ranges remain, with their attributes.
  kfdsim::Simulator::SvmRangeInfo info;
  REQUIRE(s.sim->SvmRangeAt(h.at(0), &info) == 0);
  CHECK(info.end == h.at(1));
  CHECK(s.sim->SvmRangeAt(h.at(1), &info) == ENOENT);
  REQUIRE(s.sim->SvmRangeAt(h.at(3), &info) == 0);
  CHECK(info.start == h.at(2));
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrGranularity, 0}, {k::kSvmAttrAccess, kGpuA}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(2), 0x2000, &g) == 0);
  CHECK(g[0].value == 5);
  CHECK(g[1].type == k::kSvmAttrAccess);
  // The range was mapped to A: A's SMI clients hear of the unmap.
  auto recs = smi.Read();
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].event == k::kSmiEventUnmapFromGpu);
  CHECK(recs[0].address == h.at(1) / 4096);
  CHECK(recs[0].size == 1);
  CHECK(recs[0].node == kGpuA);
  CHECK(recs[0].trigger == static_cast<int32_t>(k::kSvmUnmapTriggerUnmapFromCpu));
  // The address is free for a new mapping.
  CHECK(s.Alloc(kGpuA, 0x1000, kGttFlags, &a, h.at(1)) == 0);
  // Unmapping everything removes both ranges.
  s.sim->HostUnmapped(h.at(0), 0x4000);
  CHECK(s.sim->Stats().svm_ranges == 0);
}

TEST_CASE("sim notices host unmaps nobody reported at the next SVM or ALLOC call") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  Host h(4);
  REQUIRE(Set(s, h.at(0), 0x4000, {{k::kSvmAttrAccess, kGpuA}}) == 0);
  // A direct munmap the simulator does not see.
  REQUIRE(munmap(reinterpret_cast<void*>(h.at(2)), 0x1000) == 0);
  k::AllocMemoryOfGpuArgs a;
  CHECK(s.Alloc(kGpuA, 0x1000, kGttFlags, &a, h.at(2)) == 0);
  kfdsim::Simulator::SvmRangeInfo info;
  CHECK(s.sim->SvmRangeAt(h.at(2), &info) == ENOENT);
  // The rest is still there; an SVM call prunes the whole table.
  REQUIRE(munmap(reinterpret_cast<void*>(h.at(0)), 0x1000) == 0);
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrAccess, kGpuA}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(3), 0x1000, &g) == 0);
  CHECK(g[0].type == k::kSvmAttrAccess);
  CHECK(s.sim->SvmRangeAt(h.at(0), &info) == ENOENT);
  CHECK(s.sim->Stats().svm_ranges == 2);  // pages 1 and 3
}

TEST_CASE("sim with XNACK off: a GPU reaches an SVM range only after SET gave it access") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  Host h(2);
  Smi smi(s, kGpuA, {k::kSmiEventPageFaultStart, k::kSmiEventPageFaultEnd});
  REQUIRE(Set(s, h.at(0), 0x2000, {{k::kSvmAttrSetFlags, k::kSvmFlagCoherent}}) == 0);
  CHECK(s.sim->SvmGpuTouch(kGpuA, h.at(0), 64, false) == EFAULT);
  REQUIRE(Set(s, h.at(0), 0x2000, {{k::kSvmAttrAccessInPlace, kGpuA}}) == 0);
  CHECK(s.sim->SvmGpuTouch(kGpuA, h.at(0), 0x2000, true) == 0);
  CHECK(s.sim->SvmGpuTouch(kGpuB, h.at(0), 64, false) == EFAULT);
  CHECK(s.sim->SvmGpuTouch(kGpuA, h.at(0) + 0x100000000ull, 64, false) == ENOENT);
  CHECK(smi.Read().empty());  // no retry faults without XNACK
}

TEST_CASE("sim with XNACK on: a GPU touching SVM memory takes a retry fault with PAGE_FAULT and MIGRATE records") {
  Sim s(TwoGfx90a(0));
  s.AcquireAll();
  REQUIRE(SetXnack(s, 1) == 0);
  Smi smi(s, kGpuA,
          {k::kSmiEventPageFaultStart, k::kSmiEventPageFaultEnd, k::kSmiEventMigrateStart,
           k::kSmiEventMigrateEnd});
  Host h(4);
  // New ranges give every GPU ACCESS with XNACK on; nothing is mapped yet.
  REQUIRE(Set(s, h.at(0), 0x4000, {{k::kSvmAttrGranularity, 1}}) == 0);
  CHECK(s.sim->SvmGpuTouch(kGpuA, h.at(1) + 8, 8, true) == 0);
  auto recs = smi.Read();
  REQUIRE(recs.size() == 4);
  CHECK(recs[0].event == k::kSmiEventPageFaultStart);
  CHECK(recs[0].address == h.at(1) / 4096);
  CHECK(recs[0].node == kGpuA);
  CHECK(recs[0].flag == 'W');
  // The granularity block (2 pages) around the fault, clipped to the range.
  const uint64_t block = h.at(1) / 0x2000 * 0x2000;
  const uint64_t block_start = std::max<uint64_t>(block, h.at(0));
  const uint64_t block_end = std::min<uint64_t>(block + 0x2000, h.at(4));
  CHECK(recs[1].event == k::kSmiEventMigrateStart);
  CHECK(recs[1].address == block_start / 4096);
  CHECK(recs[1].size == (block_end - block_start) / 4096);
  CHECK(recs[1].to_node == kGpuA);
  CHECK(recs[1].trigger == static_cast<int32_t>(k::kMigrateTriggerPagefaultGpu));
  CHECK(recs[2].event == k::kSmiEventMigrateEnd);
  CHECK(recs[3].event == k::kSmiEventPageFaultEnd);
  CHECK(recs[3].flag == 'M');
  kfdsim::Simulator::SvmRangeInfo info;
  REQUIRE(s.sim->SvmRangeAt(h.at(0), &info) == 0);
  CHECK(info.actual_loc == kGpuA);
  CHECK(info.mapped_to_gpu);
  // Mapped now: no second fault.
  CHECK(s.sim->SvmGpuTouch(kGpuA, h.at(2), 8, false) == 0);
  CHECK(smi.Read().empty());
  // No access for C: the fault is not recovered, and no PAGE_FAULT record.
  REQUIRE(Set(s, h.at(0), 0x4000, {{k::kSvmAttrNoAccess, kGpuC}}) == 0);
  Smi smi_c(s, kGpuC, {k::kSmiEventPageFaultStart});
  CHECK(s.sim->SvmGpuTouch(kGpuC, h.at(0), 8, false) == EFAULT);
  CHECK(smi_c.Read().empty());
}

TEST_CASE("sim with XNACK on: host memory outside every range gets an unregistered range on a GPU fault") {
  Sim s(TwoGfx90a(0));
  s.AcquireAll();
  REQUIRE(SetXnack(s, 1) == 0);
  Smi smi(s, kGpuC, {k::kSmiEventPageFaultStart, k::kSmiEventPageFaultEnd});
  Host h(3);
  CHECK(s.sim->SvmGpuTouch(kGpuC, h.at(1), 16, false) == 0);
  kfdsim::Simulator::SvmRangeInfo info;
  REQUIRE(s.sim->SvmRangeAt(h.at(1), &info) == 0);
  // The host mapping around the page, within the 2 MiB-aligned window.
  const uint64_t lo = h.at(1) & ~uint64_t{(2u << 20) - 1}, hi = lo + (2u << 20);
  CHECK(info.start >= lo);
  CHECK(info.end <= hi);
  CHECK(info.start <= std::max(h.at(0), lo));
  CHECK(info.end >= std::min(h.at(3), hi));
  auto recs = smi.Read();
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].flag == 'R');
  // The GET sees a range with the XNACK defaults.
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrAccess, kGpuA}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x3000, &g) == 0);
  CHECK(g[0].type == k::kSvmAttrAccess);
  // An address that is not host memory still faults.
  CHECK(s.sim->SvmGpuTouch(kGpuC, 0x10000, 16, false) == ENOENT);
}

TEST_CASE("sim SVM GET with no range reports the defaults (every SVM GPU has ACCESS with XNACK on)") {
  Sim s(TwoGfx90a(0));
  Host h(1);
  std::vector<k::SvmAttribute> g = {{k::kSvmAttrAccess, kGpuA}, {k::kSvmAttrSetFlags, 0},
                                    {k::kSvmAttrClrFlags, 0}, {k::kSvmAttrPreferredLoc, 1}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x1000, &g) == 0);
  CHECK(g[0].type == k::kSvmAttrNoAccess);
  CHECK(g[1].value == (k::kSvmFlagHostAccess | k::kSvmFlagCoherent));
  CHECK(g[2].value == ~(k::kSvmFlagHostAccess | k::kSvmFlagCoherent));
  CHECK(g[3].value == k::kSvmLocationUndefined);
  REQUIRE(SetXnack(s, 1) == 0);
  g = {{k::kSvmAttrAccess, kGpuC}};
  REQUIRE(SvmOp(s, k::kSvmOpGetAttr, h.at(0), 0x1000, &g) == 0);
  CHECK(g[0].type == k::kSvmAttrAccess);
}

}  // namespace
