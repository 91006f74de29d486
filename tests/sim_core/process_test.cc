// kfdsim per-process ioctls: memory policy, clocks, tile config, trap
// handler, scratch, SMI, SVM attribute store, CRIU, deprecated debug calls.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

TEST_CASE("sim SET_MEMORY_POLICY accepts policies 0 and 1 only, for a bound GPU") {
  Sim s(TwoGpuBoard());
  k::SetMemoryPolicyArgs p{};
  p.alternate_aperture_base = 0x200000;
  p.alternate_aperture_size = 0x7fffffe00000ull;
  p.gpu_id = kGpuA;
  p.default_policy = 1;
  CHECK(s.Io(k::kIocSetMemoryPolicy, &p) == ESRCH);
  s.AcquireAll();
  CHECK(s.Io(k::kIocSetMemoryPolicy, &p) == 0);
  p.alternate_policy = 2;
  CHECK(s.Io(k::kIocSetMemoryPolicy, &p) == EINVAL);
  p.alternate_policy = 0;
  p.gpu_id = 5;
  CHECK(s.Io(k::kIocSetMemoryPolicy, &p) == EINVAL);
}

TEST_CASE("sim GET_CLOCK_COUNTERS reports nanosecond clocks at 1 GHz") {
  Sim s(TwoGpuBoard());
  k::GetClockCountersArgs c{};
  c.gpu_id = kGpuA;
  REQUIRE(s.Io(k::kIocGetClockCounters, &c) == 0);
  CHECK(c.system_clock_freq == 1000000000ull);
  CHECK(c.cpu_clock_counter != 0);
  CHECK(c.system_clock_counter != 0);
  CHECK(c.gpu_clock_counter != 0);
  c.gpu_id = 9;
  REQUIRE(s.Io(k::kIocGetClockCounters, &c) == 0);  // unknown gpu: still success
  CHECK(c.gpu_clock_counter == 0);
}

TEST_CASE("sim GET_TILE_CONFIG clamps counts and reports gb_addr_config") {
  Sim s(TwoGpuBoard());
  uint32_t tile[64], macro[4];
  std::memset(tile, 0xA5, sizeof(tile));
  k::GetTileConfigArgs t{};
  t.tile_config_ptr = reinterpret_cast<uintptr_t>(tile);
  t.macro_tile_config_ptr = reinterpret_cast<uintptr_t>(macro);
  t.num_tile_configs = 64;
  t.num_macro_tile_configs = 4;
  t.gpu_id = kGpuA;
  REQUIRE(s.Io(k::kIocGetTileConfig, &t) == 0);
  CHECK(t.num_tile_configs == 32);
  CHECK(t.num_macro_tile_configs == 4);
  CHECK(t.gb_addr_config == 0x2a114042u);
  CHECK(tile[0] == 0);
  CHECK(tile[32] == 0xA5A5A5A5u);
  t.gpu_id = 1;
  CHECK(s.Io(k::kIocGetTileConfig, &t) == EINVAL);
  t.gpu_id = kGpuA;
  t.tile_config_ptr = 8;
  t.num_tile_configs = 4;
  CHECK(s.Io(k::kIocGetTileConfig, &t) == EFAULT);
  CHECK(t.num_tile_configs == 0);
}

TEST_CASE("sim SET_TRAP_HANDLER and SET_SCRATCH_BACKING_VA need a known, bound GPU") {
  Sim s(TwoGpuBoard());
  k::SetTrapHandlerArgs t{};
  t.gpu_id = kGpuA;
  CHECK(s.Io(k::kIocSetTrapHandler, &t) == ESRCH);
  k::SetScratchBackingVaArgs v{};
  v.gpu_id = kGpuA;
  CHECK(s.Io(k::kIocSetScratchBackingVa, &v) == ESRCH);
  s.AcquireAll();
  CHECK(s.Io(k::kIocSetTrapHandler, &t) == 0);
  CHECK(s.Io(k::kIocSetScratchBackingVa, &v) == 0);
  t.gpu_id = 3;
  v.gpu_id = 3;
  CHECK(s.Io(k::kIocSetTrapHandler, &t) == EINVAL);
  CHECK(s.Io(k::kIocSetScratchBackingVa, &v) == EINVAL);
}

TEST_CASE("sim SMI_EVENTS returns a descriptor that accepts the event mask") {
  Sim s(TwoGpuBoard());
  k::SmiEventsArgs a{};
  a.gpuid = 4;
  CHECK(s.Io(k::kIocSmiEvents, &a) == EINVAL);
  a.gpuid = kGpuA;
  REQUIRE(s.Io(k::kIocSmiEvents, &a) == 0);
  const uint64_t mask = k::SmiEventMask(k::kSmiEventVmFault);
  CHECK(write(static_cast<int>(a.anon_fd), &mask, sizeof(mask)) == 8);
  close(static_cast<int>(a.anon_fd));
}

struct SvmReq {
  k::SvmArgs head;
  k::SvmAttribute attrs[4];
};

// Anonymous host memory for SVM ranges (the kernel wants them mapped).
struct HostArea {
  explicit HostArea(size_t n) : size(n) {
    p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
  }
  ~HostArea() { munmap(p, size); }
  uint64_t Aligned(uint64_t align) const {
    return (reinterpret_cast<uintptr_t>(p) + align - 1) & ~(align - 1);
  }
  void* p;
  size_t size;
};

int Svm(Sim& s, SvmReq* r, uint32_t nattr) {
  r->head.nattr = nattr;
  const uint32_t req = k::IocWithSize(
      k::kIocSvm, static_cast<uint32_t>(sizeof(k::SvmArgs) + nattr * sizeof(k::SvmAttribute)));
  return s.Io(req, r);
}

TEST_CASE("sim SVM stores attributes per range and folds them on GET") {
  Sim s(TwoGpuBoard());
  s.AcquireAll();
  // SVM ranges are host memory of the process: a mapped 64 KiB-aligned area.
  HostArea host(0x40000);
  const uint64_t base = host.Aligned(0x10000);
  SvmReq r{};
  r.head.start_addr = base;
  r.head.size = 0x10000;
  r.head.op = k::kSvmOpSetAttr;
  r.attrs[0] = {k::kSvmAttrPreferredLoc, kGpuA};
  r.attrs[1] = {k::kSvmAttrAccessInPlace, kGpuB};
  r.attrs[2] = {k::kSvmAttrSetFlags, k::kSvmFlagGpuExec};
  REQUIRE(Svm(s, &r, 3) == 0);

  SvmReq g{};
  g.head.start_addr = base;
  g.head.size = 0x8000;
  g.head.op = k::kSvmOpGetAttr;
  g.attrs[0] = {k::kSvmAttrPreferredLoc, 0};
  g.attrs[1] = {k::kSvmAttrAccess, kGpuB};
  g.attrs[2] = {k::kSvmAttrSetFlags, 0};
  g.attrs[3] = {k::kSvmAttrAccess, kGpuA};
  REQUIRE(Svm(s, &g, 4) == 0);
  CHECK(g.attrs[0].value == kGpuA);
  CHECK(g.attrs[1].type == k::kSvmAttrAccessInPlace);
  CHECK((g.attrs[2].value & k::kSvmFlagGpuExec) != 0);
  CHECK(g.attrs[3].type == k::kSvmAttrNoAccess);

  // A range reaching past the stored one folds the stored range only
  // (svm_range_get_attr walks the ranges it finds; gaps do not count).
  g.head.size = 0x20000;
  g.attrs[0] = {k::kSvmAttrPreferredLoc, 0};
  REQUIRE(Svm(s, &g, 1) == 0);
  CHECK(g.attrs[0].value == kGpuA);

  // ALLOC over an SVM range: EADDRINUSE.
  k::AllocMemoryOfGpuArgs a;
  CHECK(s.Alloc(kGpuA, 4096, kGttFlags, &a, base + 0x4000) == EADDRINUSE);
}

TEST_CASE("sim SVM rejects unaligned ranges, unknown gpus and unknown attributes") {
  Sim s(TwoGpuBoard());
  SvmReq r{};
  r.head.start_addr = 0x100000001ull;
  r.head.size = 0x1000;
  CHECK(Svm(s, &r, 0) == EINVAL);
  r.head.start_addr = 0x100000000ull;
  r.head.size = 0;
  CHECK(Svm(s, &r, 0) == EINVAL);
  r.head.size = 0x1000;
  r.attrs[0] = {k::kSvmAttrAccess, 0xBAD};
  CHECK(Svm(s, &r, 1) == EINVAL);
  r.attrs[0] = {99, 0};
  CHECK(Svm(s, &r, 1) == EINVAL);
  // nattr larger than the request's size field carries.
  r.head.nattr = 3;
  CHECK(s.Io(k::kIocSvm, &r) == EINVAL);
}

TEST_CASE("sim SVM refuses a range with unmapped host pages: SET and GET EFAULT") {
  Sim s(TwoGpuBoard());
  HostArea host(0x3000);
  const uint64_t base = host.Aligned(0x1000);
  // The middle page goes away: the range has a hole.
  REQUIRE(munmap(reinterpret_cast<void*>(static_cast<uintptr_t>(base + 0x1000)), 0x1000) == 0);
  SvmReq r{};
  r.head.start_addr = base;
  r.head.size = 0x2000;
  r.head.op = k::kSvmOpSetAttr;
  r.attrs[0] = {k::kSvmAttrAccess, kGpuA};
  CHECK(Svm(s, &r, 1) == EFAULT);
  r.head.op = k::kSvmOpGetAttr;
  CHECK(Svm(s, &r, 1) == EFAULT);  // svm_range_get_attr returns svm_range_is_valid's error
  // The mapped first page alone is accepted.
  r.head.size = 0x1000;
  r.head.op = k::kSvmOpSetAttr;
  CHECK(Svm(s, &r, 1) == 0);
}

TEST_CASE("sim answers CRIU with EACCES and the deprecated debugger calls with EPERM") {
  Sim s(TwoGpuBoard());
  k::CriuArgs c{};
  CHECK(s.Io(k::kIocCriuOp, &c) == EACCES);
  k::DbgRegisterArgs d{};
  d.gpu_id = kGpuA;
  CHECK(s.Io(k::kIocDbgRegisterDeprecated, &d) == EPERM);
}

}  // namespace
