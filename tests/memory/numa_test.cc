// NUMA placement of paged system memory (lib/memory/numa.h): which NUMA
// node and mode the platform's mem_policy receives for each flag
// combination and node kind, on a two-socket board (datacenter-4gpu: CPU
// nodes 0 and 1, GPUs 2 and 3 behind node 0, GPUs 4 and 5 behind node 1)
// and a one-node board (apu-embedded); what a refused policy call or a
// host without the node does to the allocation; a platform without the
// operation; and that the policy goes with the memory. The simulator
// records every policy (kfdsim_mem_policy_get), so the tests read the node
// and mode the pages got, not the library's intent.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_faults.h"
#include "lib/kfd/abi.h"
#include "tests/memory/support.h"

using memtest::Flags;
using memtest::SimBoard;

namespace {

constexpr uint64_t kSize = 2 * 1024 * 1024;
constexpr uint32_t kCpu0 = 0, kCpu1 = 1, kGpu2 = 2, kGpu3 = 3, kGpu4 = 4, kGpu5 = 5;

kfdsim_mem_policy_info Policy(SimBoard& b, const void* p) {
  kfdsim_mem_policy_info i{};
  i.struct_size = sizeof(i);
  REQUIRE(kfdsim_mem_policy_get(b.sim(), p, &i) == 0);
  return i;
}

HsaMemFlags Paged(bool no_substitute = false) {
  HsaMemFlags f = Flags();
  f.ui32.HostAccess = 1;
  f.ui32.NoSubstitute = no_substitute ? 1 : 0;
  return f;
}

void OpenAcquire() {
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
}

// The sim platform behind a faults decorator, so tests can count and fail
// mem_policy calls.
struct Faulted {
  explicit Faulted(SimBoard& b) : board(b) {
    REQUIRE(hke_faults_init(&faults, b.platform()) == 0);
    b.UsePlatform(hke_faults_platform(&faults));
  }
  // The context must not outlive the decorator's state.
  ~Faulted() {
    while (hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS) {
    }
    board.UsePlatform(board.platform());
  }
  Faulted(const Faulted&) = delete;
  Faulted& operator=(const Faulted&) = delete;
  uint64_t PolicyCalls() const { return hke_faults_calls(&faults, HKE_FAULTS_OP_MEM_POLICY); }
  void Fail(const std::string& spec) {
    size_t off = 0;
    REQUIRE(hke_faults_add_spec(&faults, spec.data(), spec.size(), &off) == HKE_FAULTS_PARSE_OK);
  }
  SimBoard& board;
  hke_faults faults;
};

// Diagnostics at `level` from index `from` on whose text contains `what`.
size_t CountDiags(SimBoard& b, size_t from, uint32_t level, const char* what) {
  const std::vector<SimBoard::DiagRecord> r = b.DiagRecords();
  size_t n = 0;
  for (size_t i = from; i < r.size(); ++i) {
    if (r[i].level == level && r[i].text.find(what) != std::string::npos) ++n;
  }
  return n;
}

// The sim's table with list_dir of the host's NUMA directory answering
// only `node0` (a host with one NUMA node under a two-socket KFD
// topology); every other call goes to the simulator.
hke_platform g_inner{};
hke_platform_ops g_one_node_ops{};

int OneNodeListDir(void*, const char* path, hke_dirent_fn fn, void* user) {
  if (std::strcmp(path, "/sys/devices/system/node") == 0) {
    (void)fn(user, "possible", HKE_DIRENT_FILE);
    (void)fn(user, "node0", HKE_DIRENT_DIR);
    return 0;
  }
  return g_inner.ops->list_dir(g_inner.self, path, fn, user);
}

hke_platform OneNodeHost(SimBoard& b) {
  g_inner = b.platform();
  g_one_node_ops = *g_inner.ops;
  g_one_node_ops.list_dir = &OneNodeListDir;
  return hke_platform{&g_one_node_ops, g_inner.self};
}

}  // namespace

TEST_CASE(
    "paged system memory of a CPU node is bound to that node's NUMA node: PREFERRED, or BIND "
    "with NoSubstitute, over exactly the allocation") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire();
  struct Case {
    uint32_t node;
    bool no_substitute;
    uint32_t mode;
  };
  const Case cases[] = {{kCpu0, false, KFDSIM_MPOL_PREFERRED},
                        {kCpu1, false, KFDSIM_MPOL_PREFERRED},
                        {kCpu0, true, KFDSIM_MPOL_BIND},
                        {kCpu1, true, KFDSIM_MPOL_BIND}};
  for (const Case& c : cases) {
    CAPTURE(c.node);
    CAPTURE(c.no_substitute);
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(c.node, kSize, Paged(c.no_substitute), &p) == HSAKMT_STATUS_SUCCESS);
    const kfdsim_mem_policy_info i = Policy(b, p);
    CHECK(i.mode == c.mode);
    CHECK(i.node == c.node);
    CHECK(i.start == reinterpret_cast<uintptr_t>(p));
    CHECK(i.length == kSize);
    // The pages are usable and the policy stays on the allocation only.
    std::memset(p, 0x5a, kSize);
    CHECK(Policy(b, static_cast<char*>(p) + kSize).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
  }
  CHECK(kfdsim_mem_policy_count(b.sim()) == 0);
}

TEST_CASE(
    "paged system memory asked of a GPU node is bound to the CPU node nearest that GPU; "
    "GTTAccess asks node 0") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire();
  struct Case {
    uint32_t node;
    bool gtt_access;
    uint32_t numa;
  };
  // GPUs 2/3 hang off CPU node 0, 4/5 off CPU node 1 (PCIe weight 20; the
  // weight-52 links through the other socket do not count).
  const Case cases[] = {{kGpu2, false, 0}, {kGpu3, false, 0}, {kGpu4, false, 1},
                        {kGpu5, false, 1}, {kGpu5, true, 0},  {kCpu1, true, 0}};
  for (const Case& c : cases) {
    CAPTURE(c.node);
    CAPTURE(c.gtt_access);
    HsaMemFlags f = Paged();
    f.ui32.GTTAccess = c.gtt_access ? 1 : 0;
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(c.node, kSize, f, &p) == HSAKMT_STATUS_SUCCESS);
    const kfdsim_mem_policy_info i = Policy(b, p);
    CHECK(i.mode == KFDSIM_MPOL_PREFERRED);
    CHECK(i.node == c.numa);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("NoNUMABind, non-paged system memory and VRAM make no policy call") {
  SimBoard b(nullptr, "datacenter-4gpu");
  Faulted f(b);
  OpenAcquire();
  std::vector<std::pair<uint32_t, HsaMemFlags>> cases;
  for (bool no_substitute : {false, true}) {
    HsaMemFlags nobind = Paged(no_substitute);
    nobind.ui32.NoNUMABind = 1;
    cases.push_back({kCpu1, nobind});
    cases.push_back({kGpu4, nobind});
  }
  HsaMemFlags gtt = Paged();
  gtt.ui32.NonPaged = 1;
  cases.push_back({kCpu1, gtt});
  HsaMemFlags vram = Flags();
  vram.ui32.NonPaged = 1;
  vram.ui32.HostAccess = 1;
  cases.push_back({kGpu4, vram});
  for (const auto& c : cases) {
    CAPTURE(c.first);
    CAPTURE(c.second.Value);
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(c.first, kSize, c.second, &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
  }
  CHECK(f.PolicyCalls() == 0);
  // The same decorator does see a plain paged allocation's call.
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(), &p) == HSAKMT_STATUS_SUCCESS);
  CHECK(f.PolicyCalls() == 1);
  CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("a queue's paged host buffer (the CWSR area) is bound near the queue's GPU, not near node 0; its pointer page is GTT and bound nowhere") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire();
  HsaMemFlags gtt = Paged();
  gtt.ui32.NonPaged = 1;
  void* ring = nullptr;
  REQUIRE(hsaKmtAllocMemory(kGpu4, 4096, gtt, &ring) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(kfdsim_mem_policy_count(b.sim()) == 0);
  // The kernel takes a ring only in a BO mapped on the queue's GPU.
  HSAuint64 ring_gpu = 0;
  REQUIRE(hsaKmtMapMemoryToGPU(ring, 4096, &ring_gpu) == HSAKMT_STATUS_SUCCESS);
  HsaQueueResource r{};
  REQUIRE(hsaKmtCreateQueue(kGpu4, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  // The SDMA queue's only host buffer, the pointer page, is non-paged
  // (current upstream): the kernel places it, no policy.
  CHECK(kfdsim_mem_policy_count(b.sim()) == 0);
  CHECK(Policy(b, reinterpret_cast<void*>(r.QueueRptrValue)).mode == KFDSIM_MPOL_DEFAULT);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  // A PM4 compute queue adds the CWSR area: paged, bound near GPU 4.
  b.ClearTrace();
  REQUIRE(hsaKmtCreateQueue(kGpu4, HSA_QUEUE_COMPUTE, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                            nullptr, &r) == HSAKMT_STATUS_SUCCESS);
  const auto creates = b.Args("CREATE_QUEUE");
  REQUIRE(creates.size() == 1);
  const auto c = SimBoard::As<hke::kfd::CreateQueueArgs>(creates[0]);
  REQUIRE(c.ctx_save_restore_address != 0);
  CHECK(kfdsim_mem_policy_count(b.sim()) == 1);
  const kfdsim_mem_policy_info i = Policy(b, reinterpret_cast<void*>(c.ctx_save_restore_address));
  CHECK(i.mode == KFDSIM_MPOL_PREFERRED);
  CHECK(i.node == 1);
  CHECK(hsaKmtDestroyQueue(r.QueueId) == HSAKMT_STATUS_SUCCESS);
  CHECK(kfdsim_mem_policy_count(b.sim()) == 0);
  CHECK(hsaKmtUnmapMemoryToGPU(ring) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(ring, 4096) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE(
    "on a board with one NUMA node (apu-embedded) nothing is bound, and NoSubstitute still "
    "allocates") {
  SimBoard b(nullptr, "apu-embedded");
  Faulted f(b);
  OpenAcquire();
  const uint32_t cpu = hketest::FirstCpuNode();
  const uint32_t gpu = hketest::FirstGpuNode();
  for (uint32_t node : {cpu, gpu}) {
    for (bool no_substitute : {false, true}) {
      CAPTURE(node);
      CAPTURE(no_substitute);
      void* p = nullptr;
      REQUIRE(hsaKmtAllocMemory(node, kSize, Paged(no_substitute), &p) == HSAKMT_STATUS_SUCCESS);
      std::memset(p, 1, kSize);
      CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
      CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
    }
  }
  CHECK(f.PolicyCalls() == 0);
  CHECK(kfdsim_mem_policy_count(b.sim()) == 0);
}

TEST_CASE(
    "a CPU node the host does not list as a NUMA node: skipped with a warning, or ERROR with "
    "NoSubstitute; a host without a NUMA directory binds nothing for node 0") {
  SUBCASE("one NUMA node under a two-socket topology") {
    SimBoard b(nullptr, "datacenter-4gpu");
    b.UsePlatform(OneNodeHost(b));
    OpenAcquire();
    const size_t d0 = b.DiagRecords().size();
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(), &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(CountDiags(b, d0, HKE_DIAG_WARNING, "this host has no NUMA node 1") == 1);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);

    // Node 0 is the host's only node: nothing to choose, even for BIND.
    REQUIRE(hsaKmtAllocMemory(kCpu0, kSize, Paged(true), &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);

    const uint32_t live = b.Stats().live_objects;
    const size_t d1 = b.DiagRecords().size();
    b.ClearTrace();
    void* q = reinterpret_cast<void*>(0x1234);
    CHECK(hsaKmtAllocMemory(kCpu1, kSize, Paged(true), &q) == HSAKMT_STATUS_ERROR);
    CHECK(q == reinterpret_cast<void*>(0x1234));
    CHECK(CountDiags(b, d1, HKE_DIAG_ERROR, "NoSubstitute: this host has no NUMA node 1") == 1);
    const std::vector<SimBoard::DiagRecord> r = b.DiagRecords();
    REQUIRE(r.size() > d1);
    CHECK(hke_status_domain(r.back().status) == HKE_DOMAIN_ERRNO);
    CHECK(hke_status_code(r.back().status) == EFAULT);
    // Nothing was left: no object, no BO, no mapping with a policy.
    CHECK(b.Stats().live_objects == live);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
    CHECK(b.Ioctls().empty());
    CHECK(kfdsim_mem_policy_count(b.sim()) == 0);
  }
  SUBCASE("no /sys/devices/system/node (a kernel without NUMA)") {
    SimBoard b(nullptr, "datacenter-4gpu");
    Faulted f(b);
    OpenAcquire();
    f.Fail("list_dir:*:ENOENT");
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(kCpu0, kSize, Paged(true), &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
    void* q = nullptr;
    CHECK(hsaKmtAllocMemory(kCpu1, kSize, Paged(true), &q) == HSAKMT_STATUS_ERROR);
    REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(), &q) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtFreeMemory(q, kSize) == HSAKMT_STATUS_SUCCESS);
    CHECK(f.PolicyCalls() == 0);
    // The directory is listed once per open, not per allocation.
    CHECK(hke_faults_rule_matches(&f.faults, 0) == 1);
  }
}

TEST_CASE(
    "a refused policy (EPERM from a seccomp filter, ENOSYS without NUMA) allocates unbound with "
    "one warning and stops binding until the next open") {
  for (const char* err : {"EPERM", "ENOSYS"}) {
    CAPTURE(err);
    SimBoard b(nullptr, "datacenter-4gpu");
    Faulted f(b);
    OpenAcquire();
    f.Fail(std::string("mem_policy:*:") + err);
    const size_t d0 = b.DiagRecords().size();
    void* p = nullptr;
    void* q = nullptr;
    REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(true), &p) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(true), &q) == HSAKMT_STATUS_SUCCESS);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(f.PolicyCalls() == 1);
    CHECK(CountDiags(b, d0, HKE_DIAG_WARNING, "refuses NUMA policies") == 1);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtFreeMemory(q, kSize) == HSAKMT_STATUS_SUCCESS);
    // A new open tries again (and binds once the platform lets it).
    REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    hke_faults_clear_rules(&f.faults);
    OpenAcquire();
    REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(true), &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(f.PolicyCalls() == 2);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_BIND);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE(
    "any other policy failure is a warning without NoSubstitute; with NoSubstitute the "
    "allocation is ERROR with the errno in the diagnostic and leaves nothing behind") {
  for (const char* err : {"EINVAL", "ENOMEM", "EFAULT", "EIO"}) {
    CAPTURE(err);
    SimBoard b(nullptr, "datacenter-4gpu");
    Faulted f(b);
    OpenAcquire();
    f.Fail(std::string("mem_policy:*:") + err);

    size_t d = b.DiagRecords().size();
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(kGpu5, kSize, Paged(), &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(CountDiags(b, d, HKE_DIAG_WARNING, "binding to NUMA node 1 failed") == 1);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);

    const uint32_t live = b.Stats().live_objects;
    d = b.DiagRecords().size();
    b.ClearTrace();
    void* q = reinterpret_cast<void*>(0x5678);
    CHECK(hsaKmtAllocMemory(kGpu5, kSize, Paged(true), &q) == HSAKMT_STATUS_ERROR);
    CHECK(q == reinterpret_cast<void*>(0x5678));
    CHECK(CountDiags(b, d, HKE_DIAG_ERROR, (std::string("(") + err + ")").c_str()) == 1);
    CHECK(b.Stats().live_objects == live);
    CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
    CHECK(b.Ioctls().empty());  // no userptr BO was made
    // Every call was the platform's only: two allocations, two calls.
    CHECK(f.PolicyCalls() == 2);
  }
}

TEST_CASE(
    "a platform without mem_policy (NULL, or an older port's shorter table) allocates paged "
    "memory unbound, NoSubstitute included") {
  for (bool older_port : {false, true}) {
    CAPTURE(older_port);
    hke_platform_ops ops{};  // outlives the board, whose destructor closes through it
    SimBoard b(nullptr, "datacenter-4gpu");
    ops = *b.platform().ops;
    if (older_port) {
      ops.struct_size = static_cast<uint32_t>(offsetof(hke_platform_ops, mem_policy));
    } else {
      ops.mem_policy = nullptr;
    }
    b.UsePlatform(hke_platform{&ops, b.platform().self});
    OpenAcquire();
    const size_t d0 = b.DiagRecords().size();
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(true), &p) == HSAKMT_STATUS_SUCCESS);
    std::memset(p, 2, kSize);
    CHECK(Policy(b, p).mode == KFDSIM_MPOL_DEFAULT);
    CHECK(b.DiagRecords().size() == d0);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
    REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE(
    "freeing bound memory drops its policy with the mapping and makes no policy call, in mmap "
    "and reserved-SVM mode") {
  for (uint32_t flags : {0u, static_cast<uint32_t>(HKE_CONFIG_RESERVE_SVM)}) {
    CAPTURE(flags);
    SimBoard b(nullptr, "datacenter-4gpu", flags);
    Faulted f(b);
    OpenAcquire();
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(kCpu1, kSize, Paged(), &p) == HSAKMT_STATUS_SUCCESS);
    HSAuint64 gpuva = 0;
    REQUIRE(hsaKmtMapMemoryToGPU(p, kSize, &gpuva) == HSAKMT_STATUS_SUCCESS);
    CHECK(Policy(b, p).node == 1);
    CHECK(hsaKmtUnmapMemoryToGPU(p) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
    CHECK(f.PolicyCalls() == 1);
    CHECK(kfdsim_mem_policy_count(b.sim()) == 0);
    // The last close releases a bound allocation the same way.
    REQUIRE(hsaKmtAllocMemory(kCpu0, kSize, Paged(), &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(kfdsim_mem_policy_count(b.sim()) == 1);
    REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    CHECK(kfdsim_mem_policy_count(b.sim()) == 0);
    CHECK(f.PolicyCalls() == 2);
  }
}
