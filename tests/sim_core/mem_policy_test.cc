// The simulated host's mbind (platform/sim/core/mem_policy.h) through the
// C ABI: the board's NUMA nodes, the kernel's refusals, ranges split by
// later policies, and policies dropped with their mapping.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "platform/sim/sim.h"
#include "tests/sim_core/sim_fixture.h"

namespace {

struct Mapping {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t len;
  char* p;
  explicit Mapping(size_t pages) : len(pages * page) {
    void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    p = static_cast<char*>(m);
  }
  ~Mapping() { munmap(p, len); }
  char* Page(size_t i) const { return p + i * page; }
};

kfdsim_mem_policy_info Get(kfdsim_t* sim, const void* addr) {
  kfdsim_mem_policy_info i{};
  i.struct_size = sizeof(i);
  REQUIRE(kfdsim_mem_policy_get(sim, addr, &i) == 0);
  return i;
}

struct Loaded {
  kfdsim_t* sim = nullptr;
  explicit Loaded(const char* board) {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = board;
    o.cpu_count = 4;
    char err[256] = {};
    INFO(err);
    REQUIRE(kfdsim_create(&o, &sim, err, sizeof(err)) == 0);
  }
  ~Loaded() { kfdsim_destroy(sim); }
};

}  // namespace

TEST_CASE(
    "simulated mbind records one node per range on the board's NUMA nodes and refuses what the "
    "kernel refuses") {
  Loaded l("datacenter-4gpu");  // NUMA nodes 0 and 1 (its two CPU nodes)
  Mapping m(4);
  CHECK(kfdsim_mem_policy_count(l.sim) == 0);
  CHECK(Get(l.sim, m.p).mode == KFDSIM_MPOL_DEFAULT);

  REQUIRE(kfdsim_mem_policy_set(l.sim, m.p, m.len, KFDSIM_MPOL_PREFERRED, 1) == 0);
  kfdsim_mem_policy_info i = Get(l.sim, m.Page(3));
  CHECK(i.mode == KFDSIM_MPOL_PREFERRED);
  CHECK(i.node == 1);
  CHECK(i.start == reinterpret_cast<uintptr_t>(m.p));
  CHECK(i.length == m.len);
  // A length that is not a page multiple covers the partial page.
  REQUIRE(kfdsim_mem_policy_set(l.sim, m.p, m.page + 1, KFDSIM_MPOL_BIND, 0) == 0);
  CHECK(Get(l.sim, m.Page(1)).mode == KFDSIM_MPOL_BIND);
  CHECK(Get(l.sim, m.Page(2)).mode == KFDSIM_MPOL_PREFERRED);

  // Node 2 is a GPU node of the KFD topology, not a NUMA node of the host.
  CHECK(kfdsim_mem_policy_set(l.sim, m.p, m.len, KFDSIM_MPOL_BIND, 2) == EINVAL);
  CHECK(kfdsim_mem_policy_set(l.sim, m.p, m.len, 3, 0) == EINVAL);
  CHECK(kfdsim_mem_policy_set(l.sim, m.p + 1, m.page, KFDSIM_MPOL_BIND, 0) == EINVAL);
  // An empty range succeeds and records nothing.
  CHECK(kfdsim_mem_policy_set(l.sim, m.Page(3), 0, KFDSIM_MPOL_BIND, 0) == 0);
  CHECK(Get(l.sim, m.Page(3)).node == 1);
  // A hole: EFAULT, and the old policies stay as they were.
  REQUIRE(munmap(m.Page(2), m.page) == 0);
  CHECK(kfdsim_mem_policy_set(l.sim, m.p, m.len, KFDSIM_MPOL_BIND, 0) == EFAULT);
  CHECK(Get(l.sim, m.Page(3)).mode == KFDSIM_MPOL_PREFERRED);
  // A short info block is refused.
  kfdsim_mem_policy_info shortinfo{};
  shortinfo.struct_size = 8;
  CHECK(kfdsim_mem_policy_get(l.sim, m.p, &shortinfo) == EINVAL);
}

TEST_CASE("a later policy splits an earlier one, DEFAULT drops a part, and unmapping drops all") {
  Loaded l("datacenter-4gpu");
  Mapping m(4);
  REQUIRE(kfdsim_mem_policy_set(l.sim, m.p, m.len, KFDSIM_MPOL_BIND, 0) == 0);
  REQUIRE(kfdsim_mem_policy_set(l.sim, m.Page(1), 2 * m.page, KFDSIM_MPOL_PREFERRED, 1) == 0);
  CHECK(kfdsim_mem_policy_count(l.sim) == 3);
  kfdsim_mem_policy_info i = Get(l.sim, m.Page(0));
  CHECK(i.mode == KFDSIM_MPOL_BIND);
  CHECK(i.length == m.page);
  i = Get(l.sim, m.Page(2));
  CHECK(i.mode == KFDSIM_MPOL_PREFERRED);
  CHECK(i.node == 1);
  CHECK(i.start == reinterpret_cast<uintptr_t>(m.Page(1)));
  i = Get(l.sim, m.Page(3));
  CHECK(i.mode == KFDSIM_MPOL_BIND);
  CHECK(i.start == reinterpret_cast<uintptr_t>(m.Page(3)));

  REQUIRE(kfdsim_mem_policy_set(l.sim, m.Page(3), m.page, KFDSIM_MPOL_DEFAULT, 0) == 0);
  CHECK(Get(l.sim, m.Page(3)).mode == KFDSIM_MPOL_DEFAULT);
  CHECK(kfdsim_mem_policy_count(l.sim) == 2);

  // The front end reports an unmap (or a fixed mapping over the range).
  kfdsim_mem_policy_forget(l.sim, m.Page(0), m.page + 1);
  CHECK(Get(l.sim, m.Page(0)).mode == KFDSIM_MPOL_DEFAULT);
  CHECK(Get(l.sim, m.Page(1)).mode == KFDSIM_MPOL_DEFAULT);
  CHECK(Get(l.sim, m.Page(2)).mode == KFDSIM_MPOL_PREFERRED);
  REQUIRE(kfdsim_mem_policy_set(l.sim, m.p, m.page, KFDSIM_MPOL_BIND, 1) == 0);
  CHECK(kfdsim_mem_policy_count(l.sim) == 2);
  // A fork child starts without them.
  kfdsim_reset_process(l.sim);
  CHECK(kfdsim_mem_policy_count(l.sim) == 0);
}

TEST_CASE("a one-node board and a hand-built board without host files have NUMA node 0 only") {
  Mapping m(1);
  Loaded apu("apu-embedded");
  CHECK(kfdsim_mem_policy_set(apu.sim, m.p, m.len, KFDSIM_MPOL_BIND, 0) == 0);
  CHECK(kfdsim_mem_policy_set(apu.sim, m.p, m.len, KFDSIM_MPOL_BIND, 1) == EINVAL);
  kfdsim_t* h = kfdsim::WrapBoard(simtest::TwoGpuBoard());
  REQUIRE(h != nullptr);
  CHECK(kfdsim_mem_policy_set(h, m.p, m.len, KFDSIM_MPOL_PREFERRED, 0) == 0);
  CHECK(kfdsim_mem_policy_set(h, m.p, m.len, KFDSIM_MPOL_PREFERRED, 1) == EINVAL);
  kfdsim_destroy(h);
}
