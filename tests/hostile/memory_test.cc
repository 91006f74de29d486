// Hostile replies to the memory ioctls: ALLOC (handles, offsets, the MMIO
// page of the VM bring-up), MAP/UNMAP progress, AVAILABLE_MEMORY, XNACK,
// SVM GET_ATTR, dma-buf info/import/export, IPC import and SMI_EVENTS.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "tests/hostile/support.h"

using hostile::Case;
using hostile::Env;
using hostile::Fill;
using hostile::Hit;
using hostile::Outcome;
using hostile::Untouched;
namespace k = hke::kfd;

namespace {

constexpr HSAKMT_STATUS kKce = HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR;
constexpr const char* kDgpu = "datacenter-4gpu";
constexpr uint64_t kSize = 1 << 20;

// Edits a successful reply of type T (the copy the caller gets back).
template <typename T>
std::function<int(Hit&, Env&)> Edit(std::function<void(T&, Env&)> edit) {
  return [edit](Hit& h, Env& e) {
    T* a = h.As<T>();
    if (h.result != 0 || a == nullptr) return h.result;
    edit(*a, e);
    h.applied = true;
    return 0;
  };
}

uint64_t WithGpu(uint64_t handle, uint32_t gpu_id) {
  return (uint64_t{gpu_id} << 32) | (handle & 0xFFFFFFFFull);
}

// ---- ALLOC_MEMORY_OF_GPU (hsaKmtAllocMemory) ----

Outcome AllocCall(Env& e) {
  void* p;
  Fill(&p);
  const HSAKMT_STATUS st =
      hsaKmtAllocMemory(e.gpu_nodes.at(0), kSize, hostile::VramFlags(), &p);
  return Outcome{st, Untouched(p)};
}

void AllocWorks(Env& e) {
  void* p = nullptr;
  REQUIRE(hsaKmtAllocMemory(e.gpu_nodes.at(0), kSize, hostile::VramFlags(), &p) ==
          HSAKMT_STATUS_SUCCESS);
  static_cast<volatile char*>(p)[kSize - 1] = 1;
  CHECK(hsaKmtFreeMemory(p, kSize) == HSAKMT_STATUS_SUCCESS);
  hostile::MemoryWorks(e);
}

// A victim allocation on the first GPU, whose handle a hostile reply names.
void WithVictim(Env& e) {
  hostile::OpenAcquire(e);
  e.victim = hostile::AllocVram(e, 0, 1 << 16, &e.victim_handle);
}

// The victim still exists in the kernel: it maps and unmaps.
void VictimIntact(Env& e) {
  REQUIRE(e.victim != nullptr);
  HSAuint64 alt = 0;
  CHECK(hsaKmtMapMemoryToGPU(e.victim, 1 << 16, &alt) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(e.victim) == HSAKMT_STATUS_SUCCESS);
}

Case AllocCase(const char* name, std::function<void(k::AllocMemoryOfGpuArgs&, Env&)> edit,
               int kernel_kept) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocAllocMemoryOfGpu;
  c.corrupt = Edit<k::AllocMemoryOfGpuArgs>(std::move(edit));
  c.setup = hostile::OpenAcquire;
  c.trigger = AllocCall;
  c.expect = kKce;
  c.diag = "ALLOC_MEMORY_OF_GPU reply is malformed";
  c.kernel_bos_kept = kernel_kept;
  c.after = AllocWorks;
  return c;
}

// ---- the MMIO_REMAP page of the VM bring-up ----

uint32_t MmioBanks(uint32_t node) {
  HsaNodeProperties p;
  REQUIRE(hsaKmtGetNodeProperties(node, &p) == HSAKMT_STATUS_SUCCESS);
  std::vector<HsaMemoryProperties> banks(p.NumMemoryBanks);
  REQUIRE(hsaKmtGetNodeMemoryProperties(node, p.NumMemoryBanks, banks.data()) ==
          HSAKMT_STATUS_SUCCESS);
  uint32_t n = 0;
  for (const HsaMemoryProperties& m : banks) n += m.HeapType == HSA_HEAPTYPE_MMIO_REMAP ? 1 : 0;
  return n;
}

// Corrupts the MMIO_REMAP allocation of the board's first GPU.
std::function<int(Hit&, Env&)> FirstMmio(uint64_t (*offset)(Env&)) {
  return [offset](Hit& h, Env& e) {
    auto* a = h.As<k::AllocMemoryOfGpuArgs>();
    if (h.result != 0 || a == nullptr || (a->flags & k::kAllocMemMmioRemap) == 0 ||
        a->gpu_id != e.b.core()->desc().gpus.at(0).gpu_id) {
      return h.result;
    }
    a->mmap_offset = offset(e);
    h.applied = true;
    return 0;
  };
}

Case MmioCase(const char* name, uint64_t (*offset)(Env&)) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocAllocMemoryOfGpu;
  c.corrupt = FirstMmio(offset);
  c.setup = hostile::Open;
  c.trigger = [](Env& e) {
    const HSAKMT_STATUS st = hsaKmtAcquireSystemProperties(&e.sys);
    return Outcome{st, true};
  };
  // A GPU whose MMIO page cannot be set up only loses its MMIO_REMAP bank.
  c.expect = HSAKMT_STATUS_SUCCESS;
  c.diag = "MMIO_REMAP page is unavailable";
  c.verify = [](Env& e) {
    CHECK(hostile::HasDiag(e.b.Diags(), HKE_DIAG_ERROR, "ALLOC_MEMORY_OF_GPU reply is malformed",
                           true));
    hostile::CollectGpus(e);
    REQUIRE(e.gpu_nodes.size() == 4);
    CHECK(MmioBanks(e.gpu_nodes[0]) == 0);
    for (size_t i = 1; i < e.gpu_nodes.size(); ++i) CHECK(MmioBanks(e.gpu_nodes[i]) == 1);
    // The refused page's BO was freed; the other GPUs keep theirs.
    CHECK(e.b.core()->BoCount() == 3);
    hke_memory_stats st{};
    st.struct_size = sizeof(st);
    REQUIRE(hke_memory_stats_get(hke_default_context(), &st) == HKE_OK);
    CHECK(st.live_objects == 3);
  };
  c.after = [](Env& e) {
    REQUIRE(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    hostile::OpenAcquire(e);
    for (uint32_t n : e.gpu_nodes) CHECK(MmioBanks(n) == 1);
    hostile::MemoryWorks(e);
  };
  return c;
}

// ---- MAP / UNMAP ----

void WithMem(Env& e) {
  hostile::OpenAcquire(e);
  e.mem = hostile::AllocVram(e, 0, kSize);
  e.mem_size = kSize;
}

void WithMappedMem(Env& e) {
  WithMem(e);
  HSAuint64 alt = 0;
  REQUIRE(hsaKmtMapMemoryToGPU(e.mem, e.mem_size, &alt) == HSAKMT_STATUS_SUCCESS);
}

Outcome MapCall(Env& e) {
  HSAuint64 alt;
  Fill(&alt);
  const HSAKMT_STATUS st = hsaKmtMapMemoryToGPU(e.mem, e.mem_size, &alt);
  return Outcome{st, Untouched(alt)};
}

// The object still maps, unmaps and frees; then the library works.
void MemStillWorks(Env& e) {
  HSAuint64 alt = 0;
  CHECK(hsaKmtMapMemoryToGPU(e.mem, e.mem_size, &alt) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtUnmapMemoryToGPU(e.mem) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(e.mem, e.mem_size) == HSAKMT_STATUS_SUCCESS);
  hostile::MemoryWorks(e);
}

Case MapCase(const char* name, std::function<int(Hit&, Env&)> corrupt) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocMapMemoryToGpu;
  c.corrupt = std::move(corrupt);
  c.setup = WithMem;
  c.trigger = MapCall;
  c.expect = kKce;
  c.diag = "MAP_MEMORY_TO_GPU reply is malformed";
  c.after = MemStillWorks;
  return c;
}

// ---- SVM GET_ATTR ----

constexpr uint64_t kSvmBytes = 4 * 4096;
constexpr unsigned kSvmAttrs = 3;

void WithSvmRange(Env& e) {
  hostile::OpenAcquire(e);
  REQUIRE(posix_memalign(&e.host, 4096, kSvmBytes) == 0);
}

void SvmRequest(HSA_SVM_ATTRIBUTE* a) {
  a[0] = HSA_SVM_ATTRIBUTE{HSA_SVM_ATTR_PREFERRED_LOC, 0};
  a[1] = HSA_SVM_ATTRIBUTE{HSA_SVM_ATTR_PREFETCH_LOC, 0};
  a[2] = HSA_SVM_ATTRIBUTE{HSA_SVM_ATTR_GRANULARITY, 0};
}

Outcome SvmGetCall(Env& e) {
  HSA_SVM_ATTRIBUTE attrs[kSvmAttrs];
  SvmRequest(attrs);
  HSA_SVM_ATTRIBUTE sent[kSvmAttrs];
  std::memcpy(sent, attrs, sizeof(sent));
  const HSAKMT_STATUS st = hsaKmtSVMGetAttr(e.host, kSvmBytes, kSvmAttrs, attrs);
  return Outcome{st, std::memcmp(sent, attrs, sizeof(sent)) == 0};
}

void SvmGetWorks(Env& e) {
  HSA_SVM_ATTRIBUTE attrs[kSvmAttrs];
  SvmRequest(attrs);
  CHECK(hsaKmtSVMGetAttr(e.host, kSvmBytes, kSvmAttrs, attrs) == HSAKMT_STATUS_SUCCESS);
  CHECK(attrs[0].type == HSA_SVM_ATTR_PREFERRED_LOC);
  CHECK(attrs[2].type == HSA_SVM_ATTR_GRANULARITY);
  hostile::MemoryWorks(e);
}

struct SvmReply {
  k::SvmArgs* head;
  k::SvmAttribute* attrs;
};

Case SvmCase(const char* name, std::function<void(SvmReply&)> edit) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocSvm;
  c.corrupt = [edit](Hit& h, Env&) {
    auto* head = h.As<k::SvmArgs>();
    if (h.result != 0 || head == nullptr || head->op != k::kSvmOpGetAttr ||
        h.size < sizeof(k::SvmArgs) + head->nattr * sizeof(k::SvmAttribute)) {
      return h.result;
    }
    SvmReply r{head, reinterpret_cast<k::SvmAttribute*>(h.reply + sizeof(k::SvmArgs))};
    edit(r);
    h.applied = true;
    return 0;
  };
  c.setup = WithSvmRange;
  c.trigger = SvmGetCall;
  c.expect = kKce;
  c.diag = "SVM GET_ATTR reply is malformed";
  c.after = SvmGetWorks;
  return c;
}

// ---- dma-buf and IPC ----

void WithDmabuf(Env& e) {
  WithMem(e);
  HSAuint64 off = 0;
  REQUIRE(hsaKmtExportDMABufHandle(e.mem, e.mem_size, &e.dmabuf_fd, &off) == HSAKMT_STATUS_SUCCESS);
}

Outcome ImportCall(Env& e) {
  HsaGraphicsResourceInfo info;
  Fill(&info);
  HSAuint32 nodes[] = {e.gpu_nodes.at(0)};
  const HSAKMT_STATUS st =
      hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(e.dmabuf_fd), &info, 1, nodes);
  return Outcome{st, Untouched(info)};
}

void ImportWorks(Env& e) {
  HsaGraphicsResourceInfo info;
  HSAuint32 nodes[] = {e.gpu_nodes.at(0)};
  REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(e.dmabuf_fd), &info, 1,
                                              nodes) == HSAKMT_STATUS_SUCCESS);
  CHECK(uint64_t{info.SizeInBytes} == e.mem_size);
  CHECK(hsaKmtDeregisterMemory(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtFreeMemory(e.mem, e.mem_size) == HSAKMT_STATUS_SUCCESS);
  hostile::MemoryWorks(e);
}

Case DmabufCase(const char* name, uint32_t request, std::function<int(Hit&, Env&)> corrupt,
                const char* diag, int kernel_kept) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = request;
  c.corrupt = std::move(corrupt);
  c.setup = WithDmabuf;
  c.trigger = ImportCall;
  c.expect = kKce;
  c.diag = diag;
  c.kernel_bos_kept = kernel_kept;
  c.after = ImportWorks;
  return c;
}

// A shared VRAM buffer on the first GPU and a victim on the second.
void WithShare(Env& e) {
  WithMem(e);
  REQUIRE(hsaKmtShareMemory(e.mem, e.mem_size, &e.share) == HSAKMT_STATUS_SUCCESS);
  e.victim = hostile::AllocVram(e, 1, 1 << 16, &e.victim_handle);
}

// The same with the victim on the first GPU (the one the import is for).
void WithShareVictimSameGpu(Env& e) {
  WithMem(e);
  REQUIRE(hsaKmtShareMemory(e.mem, e.mem_size, &e.share) == HSAKMT_STATUS_SUCCESS);
  e.victim = hostile::AllocVram(e, 0, 1 << 16, &e.victim_handle);
}

// An exported dma-buf of the first GPU and a victim on the same GPU.
void WithDmabufVictim(Env& e) {
  WithDmabuf(e);
  e.victim = hostile::AllocVram(e, 0, 1 << 16, &e.victim_handle);
}

Outcome SharedImportCall(Env& e) {
  void* addr;
  HSAuint64 size;
  Fill(&addr);
  Fill(&size);
  const HSAKMT_STATUS st = hsaKmtRegisterSharedHandle(&e.share, &addr, &size);
  return Outcome{st, Untouched(addr) && Untouched(size)};
}

void SharedImportWorks(Env& e) {
  void* addr = nullptr;
  HSAuint64 size = 0;
  REQUIRE(hsaKmtRegisterSharedHandle(&e.share, &addr, &size) == HSAKMT_STATUS_SUCCESS);
  CHECK(size == e.mem_size);
  CHECK(hsaKmtDeregisterMemory(addr) == HSAKMT_STATUS_SUCCESS);
  VictimIntact(e);
  CHECK(hsaKmtFreeMemory(e.mem, e.mem_size) == HSAKMT_STATUS_SUCCESS);
  hostile::MemoryWorks(e);
}

Case IpcCase(const char* name, std::function<void(k::IpcImportHandleArgs&, Env&)> edit,
             const char* diag, int kernel_kept) {
  Case c{};
  c.name = name;
  c.board = kDgpu;
  c.request = k::kIocIpcImportHandle;
  c.corrupt = Edit<k::IpcImportHandleArgs>(std::move(edit));
  c.setup = WithShare;
  c.trigger = SharedImportCall;
  c.expect = kKce;
  c.diag = diag;
  c.kernel_bos_kept = kernel_kept;
  c.verify = VictimIntact;
  c.after = SharedImportWorks;
  return c;
}

}  // namespace

TEST_CASE("hostile ALLOC_MEMORY_OF_GPU replies fail AllocMemory and leave nothing the library could free") {
  using A = k::AllocMemoryOfGpuArgs;
  std::vector<Case> cases = {
      // The kernel made a BO the reply does not name: the library cannot
      // free it (kernel_kept 1) and must not free whatever the reply names.
      AllocCase("handle whose high half is another gpu_id",
                [](A& a, Env& e) { a.handle = WithGpu(a.handle, e.OtherGpuId(a.gpu_id)); }, 1),
      AllocCase("handle 0", [](A& a, Env&) { a.handle = 0; }, 1),
      AllocCase("handle with gpu_id 0xffffffff",
                [](A& a, Env&) { a.handle = WithGpu(a.handle, 0xFFFFFFFFu); }, 1),
      // A malformed reply that names our GPU: the library frees that BO.
      AllocCase("mmap_offset not page aligned", [](A& a, Env&) { a.mmap_offset += 8; }, 0),
  };
  {
    // The reply names a BO the library already owns: accepting it would
    // make two objects share one kernel BO (freeing one frees the other).
    Case c = AllocCase("handle of a live BO of the same GPU",
                       [](A& a, Env& e) { a.handle = e.victim_handle; }, 1);
    c.setup = WithVictim;
    c.verify = VictimIntact;
    cases.push_back(c);
  }
  {
    // The same with a malformed offset: the clean-up must not free the
    // live BO the reply names.
    Case c = AllocCase("handle of a live BO of the same GPU and an unaligned offset",
                       [](A& a, Env& e) {
                         a.handle = e.victim_handle;
                         a.mmap_offset += 8;
                       },
                       1);
    c.setup = WithVictim;
    c.verify = VictimIntact;
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}

TEST_CASE("a hostile MMIO_REMAP ALLOC reply costs only that GPU's MMIO bank, with a warning") {
  hostile::RunAll({
      MmioCase("MMIO offset of another GPU",
               [](Env& e) {
                 const uint32_t other = e.b.core()->desc().gpus.at(1).gpu_id;
                 return (uint64_t{k::kMmapTypeMmio} << k::kMmapTypeShift) |
                        (uint64_t{other & 0xFFFFu} << k::kMmapGpuIdShift);
               }),
      MmioCase("doorbell offset instead of the MMIO one",
               [](Env& e) {
                 const uint32_t own = e.b.core()->desc().gpus.at(0).gpu_id;
                 return (uint64_t{k::kMmapTypeDoorbell} << k::kMmapTypeShift) |
                        (uint64_t{own & 0xFFFFu} << k::kMmapGpuIdShift);
               }),
      MmioCase("MMIO offset with value bits",
               [](Env& e) {
                 const uint32_t own = e.b.core()->desc().gpus.at(0).gpu_id;
                 return (uint64_t{k::kMmapTypeMmio} << k::kMmapTypeShift) |
                        (uint64_t{own & 0xFFFFu} << k::kMmapGpuIdShift) | 0x1000;
               }),
  });
}

TEST_CASE("hostile MAP/UNMAP progress replies fail with KERNEL_COMMUNICATION_ERROR") {
  using M = k::MapMemoryToGpuArgs;
  std::vector<Case> cases = {
      MapCase("n_success above n_devices",
              Edit<M>([](M& a, Env&) { a.n_success = a.n_devices + 1; })),
      MapCase("n_success 0xffffffff", Edit<M>([](M& a, Env&) { a.n_success = 0xFFFFFFFFu; })),
      MapCase("success with devices left", Edit<M>([](M& a, Env&) { a.n_success = 1; })),
      MapCase("handle changed in the reply", Edit<M>([](M& a, Env&) { a.handle ^= 1; })),
      MapCase("n_devices changed in the reply", Edit<M>([](M& a, Env&) { a.n_devices = 1; })),
      MapCase("device array pointer changed in the reply",
              Edit<M>([](M& a, Env&) { a.device_ids_array_ptr += 4; })),
      // An interrupted call reports progress; the resumed call then
      // reports less than it was asked to resume from.
      MapCase("n_success going backwards after an interrupted call",
              [](Hit& h, Env&) {
                auto* a = h.As<M>();
                if (h.result != 0 || a == nullptr) return h.result;
                h.applied = true;
                if (h.n == 1) {
                  a->n_success = 2;
                  return EINTR;
                }
                a->n_success = 1;
                return 0;
              }),
  };
  {
    using U = k::UnmapMemoryFromGpuArgs;
    Case c{};
    c.name = "UNMAP n_success above n_devices";
    c.board = kDgpu;
    c.request = k::kIocUnmapMemoryFromGpu;
    c.corrupt = Edit<U>([](U& a, Env&) { a.n_success = a.n_devices + 1; });
    c.setup = WithMappedMem;
    c.trigger = [](Env& e) { return Outcome{hsaKmtUnmapMemoryToGPU(e.mem), true}; };
    c.expect = kKce;
    c.diag = "UNMAP_MEMORY_FROM_GPU reply is malformed";
    c.after = [](Env& e) {
      CHECK(hsaKmtUnmapMemoryToGPU(e.mem) == HSAKMT_STATUS_SUCCESS);
      MemStillWorks(e);
    };
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}

TEST_CASE("hostile AVAILABLE_MEMORY, SET_XNACK_MODE and SMI_EVENTS replies are refused") {
  std::vector<Case> cases;
  {
    using A = k::GetAvailableMemoryArgs;
    Case c{};
    c.name = "AVAILABLE_MEMORY with another gpu_id";
    c.board = kDgpu;
    c.request = k::kIocAvailableMemory;
    c.corrupt = Edit<A>([](A& a, Env& e) { a.gpu_id = e.OtherGpuId(a.gpu_id); });
    c.setup = hostile::OpenAcquire;
    c.trigger = [](Env& e) {
      HSAuint64 bytes;
      Fill(&bytes);
      const HSAKMT_STATUS st = hsaKmtAvailableMemory(e.gpu_nodes.at(0), &bytes);
      return Outcome{st, Untouched(bytes)};
    };
    c.expect = kKce;
    c.diag = "AVAILABLE_MEMORY reply is malformed";
    c.after = [](Env& e) {
      HSAuint64 bytes = 0;
      CHECK(hsaKmtAvailableMemory(e.gpu_nodes.at(0), &bytes) == HSAKMT_STATUS_SUCCESS);
      CHECK(bytes > 0);
      hostile::MemoryWorks(e);
    };
    cases.push_back(c);
  }
  for (int32_t bad : {7, -1, INT32_MIN}) {
    using X = k::SetXnackModeArgs;
    Case c{};
    c.name = bad == 7 ? "SET_XNACK_MODE query answered 7"
                      : bad == -1 ? "SET_XNACK_MODE query answered -1 (the query value)"
                                  : "SET_XNACK_MODE query answered INT32_MIN";
    c.board = kDgpu;
    c.request = k::kIocSetXnackMode;
    c.corrupt = Edit<X>([bad](X& a, Env&) { a.xnack_enabled = bad; });
    c.setup = hostile::OpenAcquire;
    c.trigger = [](Env&) {
      HSAint32 mode;
      Fill(&mode);
      const HSAKMT_STATUS st = hsaKmtGetXNACKMode(&mode);
      return Outcome{st, Untouched(mode)};
    };
    c.expect = kKce;
    c.diag = "SET_XNACK_MODE";
    c.after = [](Env& e) {
      HSAint32 mode = -5;
      CHECK(hsaKmtGetXNACKMode(&mode) == HSAKMT_STATUS_SUCCESS);
      CHECK((mode == 0 || mode == 1));
      hostile::MemoryWorks(e);
    };
    cases.push_back(c);
  }
  {
    using S = k::SmiEventsArgs;
    Case c{};
    c.name = "SMI_EVENTS negative descriptor";
    c.board = kDgpu;
    c.request = k::kIocSmiEvents;
    c.corrupt = Edit<S>([](S& a, Env& e) {
      e.hidden_fd = static_cast<int>(a.anon_fd);
      a.anon_fd = 0xFFFFFFFFu;
    });
    c.setup = hostile::OpenAcquire;
    c.trigger = [](Env& e) {
      int fd;
      Fill(&fd);
      const HSAKMT_STATUS st = hsaKmtOpenSMI(e.gpu_nodes.at(0), &fd);
      return Outcome{st, Untouched(fd)};
    };
    c.expect = kKce;
    c.diag = "SMI_EVENTS";
    c.hides_fd = true;  // our end of the socket pair
    c.after = [](Env& e) {
      int fd = -1;
      REQUIRE(hsaKmtOpenSMI(e.gpu_nodes.at(0), &fd) == HSAKMT_STATUS_SUCCESS);
      CHECK(fd >= 0);
      close(fd);
      hostile::MemoryWorks(e);
    };
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}

TEST_CASE("hostile SVM GET_ATTR replies fail SVMGetAttr and leave the attributes as sent") {
  hostile::RunAll({
      SvmCase("start changed", [](SvmReply& r) { r.head->start_addr += 4096; }),
      SvmCase("size changed", [](SvmReply& r) { r.head->size += 4096; }),
      SvmCase("op changed to SET_ATTR", [](SvmReply& r) { r.head->op = k::kSvmOpSetAttr; }),
      SvmCase("nattr changed", [](SvmReply& r) { r.head->nattr = 1; }),
      SvmCase("nattr 0xffffffff", [](SvmReply& r) { r.head->nattr = 0xFFFFFFFFu; }),
      SvmCase("unknown attribute type", [](SvmReply& r) { r.attrs[1].type = 0x77; }),
      // Only the access kinds may come back as another type (the kernel
      // reports ACCESS / ACCESS_IN_PLACE / NO_ACCESS as it finds them).
      SvmCase("PREFERRED_LOC answered as GRANULARITY",
              [](SvmReply& r) { r.attrs[0].type = k::kSvmAttrGranularity; }),
      SvmCase("PREFERRED_LOC naming a gpu_id not in the topology",
              [](SvmReply& r) { r.attrs[0].value = 0x7777; }),
  });
}

TEST_CASE("hostile dma-buf and IPC replies fail the import and free nothing the library does not own") {
  std::vector<Case> cases = {
      DmabufCase("GET_DMABUF_INFO with a gpu_id not in the topology", k::kIocGetDmabufInfo,
                 Edit<k::GetDmabufInfoArgs>([](k::GetDmabufInfoArgs& a, Env&) { a.gpu_id = 0x7777; }),
                 "GET_DMABUF_INFO", 0),
      DmabufCase("GET_DMABUF_INFO with size 0", k::kIocGetDmabufInfo,
                 Edit<k::GetDmabufInfoArgs>([](k::GetDmabufInfoArgs& a, Env&) { a.size = 0; }),
                 "GET_DMABUF_INFO", 0),
      DmabufCase("IMPORT_DMABUF handle of another GPU", k::kIocImportDmabuf,
                 Edit<k::ImportDmabufArgs>([](k::ImportDmabufArgs& a, Env& e) {
                   a.handle = WithGpu(a.handle, e.OtherGpuId(a.gpu_id));
                 }),
                 "IMPORT_DMABUF returned a handle of another GPU", 1),
      DmabufCase("IMPORT_DMABUF handle 0", k::kIocImportDmabuf,
                 Edit<k::ImportDmabufArgs>([](k::ImportDmabufArgs& a, Env&) { a.handle = 0; }),
                 "IMPORT_DMABUF", 1),
  };
  // A success reporting more metadata than the 256-byte buffer sent (no
  // kernel writes past it): refused, the blob not read.
  cases.push_back(DmabufCase("GET_DMABUF_INFO metadata_size beyond the buffer sent",
                             k::kIocGetDmabufInfo,
                             Edit<k::GetDmabufInfoArgs>([](k::GetDmabufInfoArgs& a, Env&) {
                               a.metadata_size = 0xFFFFFFFFu;
                             }),
                             "more metadata than the buffer", 0));
  // The reply names a live BO of the GPU asked for: importing it would
  // alias an allocation; the clean-up must not free it either.
  cases.push_back(IpcCase("IPC_IMPORT_HANDLE handle of another GPU naming a live BO there",
                          [](k::IpcImportHandleArgs& a, Env& e) { a.handle = e.victim_handle; },
                          "IPC_IMPORT_HANDLE returned a handle of another GPU", 1));
  {
    Case c = IpcCase("IPC_IMPORT_HANDLE handle of a live BO of the same GPU",
                     [](k::IpcImportHandleArgs& a, Env& e) { a.handle = e.victim_handle; },
                     "IPC_IMPORT_HANDLE", 1);
    c.setup = WithShareVictimSameGpu;
    cases.push_back(c);
  }
  {
    Case c = DmabufCase("IMPORT_DMABUF handle of a live BO of the same GPU", k::kIocImportDmabuf,
                        Edit<k::ImportDmabufArgs>([](k::ImportDmabufArgs& a, Env& e) {
                          a.handle = e.victim_handle;
                        }),
                        "IMPORT_DMABUF", 1);
    c.setup = WithDmabufVictim;
    c.verify = VictimIntact;
    cases.push_back(c);
  }
  cases.push_back(IpcCase("IPC_IMPORT_HANDLE handle 0",
                          [](k::IpcImportHandleArgs& a, Env&) { a.handle = 0; },
                          "IPC_IMPORT_HANDLE", 1));
  cases.push_back(IpcCase("IPC_IMPORT_HANDLE mmap_offset not page aligned",
                          [](k::IpcImportHandleArgs& a, Env&) { a.mmap_offset += 8; },
                          "IPC_IMPORT_HANDLE", 0));
  {
    using X = k::ExportDmabufArgs;
    Case c{};
    c.name = "EXPORT_DMABUF negative descriptor";
    c.board = kDgpu;
    c.request = k::kIocExportDmabuf;
    c.corrupt = Edit<X>([](X& a, Env& e) {
      e.hidden_fd = static_cast<int>(a.dmabuf_fd);
      a.dmabuf_fd = static_cast<uint32_t>(-16);
    });
    c.setup = WithMem;
    c.trigger = [](Env& e) {
      int fd;
      HSAuint64 off;
      Fill(&fd);
      Fill(&off);
      const HSAKMT_STATUS st = hsaKmtExportDMABufHandle(e.mem, e.mem_size, &fd, &off);
      return Outcome{st, Untouched(fd) && Untouched(off)};
    };
    c.expect = kKce;
    c.diag = "EXPORT_DMABUF returned a negative descriptor";
    c.hides_fd = true;  // the dma-buf
    c.after = [](Env& e) {
      int fd = -1;
      HSAuint64 off = 1;
      REQUIRE(hsaKmtExportDMABufHandle(e.mem, e.mem_size, &fd, &off) == HSAKMT_STATUS_SUCCESS);
      CHECK(fd >= 0);
      CHECK(off == 0);
      close(fd);
      CHECK(hsaKmtFreeMemory(e.mem, e.mem_size) == HSAKMT_STATUS_SUCCESS);
      hostile::MemoryWorks(e);
    };
    cases.push_back(c);
  }
  hostile::RunAll(cases);
}
