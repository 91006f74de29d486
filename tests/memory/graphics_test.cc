// Graphics interop on the in-process simulator: a BO created on the
// simulated render node with the GEM requests libdrm's amdgpu_bo_alloc /
// amdgpu_bo_set_metadata / amdgpu_bo_cpu_map / amdgpu_bo_export issue, then
// imported with hsaKmtRegisterGraphicsHandleToNodes: the import carries the
// BO's metadata (kept until deregistration), reaches the same pages, and
// everything is released at the end. (tests/sim_preload/graphics_interop.c
// does the same with the real libdrm under the LD_PRELOAD front end.)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/core/config.h"
#include "lib/kfd/abi.h"
#include "platform/sim/core/gem_abi.h"
#include "tests/memory/support.h"

using memtest::OpenAcquire;
using memtest::SimBoard;
namespace gem = kfdsim::gem;

namespace {

constexpr uint32_t kGpu = 2;  // datacenter-4gpu: nodes 2..5 are GPUs

// A BO on the render node of `node`, driven as libdrm drives it.
struct GemBo {
  GemBo(SimBoard& b, uint32_t node, uint64_t size, uint64_t domain, const std::string& meta)
      : sim(b.sim()), size(size) {
    HsaNodeProperties np;
    REQUIRE(hsaKmtGetNodeProperties(node, &np) == HSAKMT_STATUS_SUCCESS);
    const std::string path = "/dev/dri/renderD" + std::to_string(np.DrmRenderMinor);
    REQUIRE(kfdsim_open(sim, path.c_str(), O_RDWR | O_CLOEXEC, &render) == 0);
    gem::GemCreate c{};
    c.in.bo_size = size;
    c.in.alignment = 4096;
    c.in.domains = domain;
    c.in.domain_flags = gem::kCreateCpuAccessRequired;
    REQUIRE(kfdsim_ioctl(sim, render, gem::kIocGemCreate, &c) == 0);
    handle = c.out.handle;
    if (!meta.empty()) {
      gem::GemMetadata m{};
      m.handle = handle;
      m.op = gem::kMetadataOpSet;
      m.data.flags = 1;
      m.data.data_size_bytes = static_cast<uint32_t>(meta.size());
      std::memcpy(m.data.data, meta.data(), meta.size());
      REQUIRE(kfdsim_ioctl(sim, render, gem::kIocGemMetadata, &m) == 0);
    }
    gem::GemMmap mm{};
    mm.in.handle = handle;
    REQUIRE(kfdsim_ioctl(sim, render, gem::kIocGemMmap, &mm) == 0);
    REQUIRE(kfdsim_mmap(sim, nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, render,
                        mm.out.addr_ptr, &cpu) == 0);
    gem::PrimeHandle p{handle, gem::kPrimeCloexec | gem::kPrimeRdwr, -1};
    REQUIRE(kfdsim_ioctl(sim, render, gem::kIocPrimeHandleToFd, &p) == 0);
    dmabuf = p.fd;
  }
  // amdgpu_bo_free: unmap, GEM_CLOSE; then the render fd and the dma-buf go.
  ~GemBo() {
    kfdsim_munmap(sim, cpu, size);
    gem::GemClose c{handle, 0};
    CHECK(kfdsim_ioctl(sim, render, gem::kIocGemClose, &c) == 0);
    CHECK(kfdsim_close(sim, render) == 0);
    close(dmabuf);
  }
  kfdsim_t* sim;
  uint64_t size;
  int render = -1;
  uint32_t handle = 0;
  void* cpu = nullptr;
  int dmabuf = -1;
};

kfdsim_process_stats SimStats(SimBoard& b) {
  kfdsim_process_stats st{};
  st.struct_size = sizeof(st);
  REQUIRE(kfdsim_process_stats_get(b.sim(), &st) == 0);
  return st;
}

}  // namespace

TEST_CASE("a render-node BO with metadata imports through RegisterGraphicsHandleToNodes with its metadata") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire(b);
  const uint32_t base_bos = SimStats(b).bos;  // the MMIO pages of the VM bring-up
  HSAuint64 avail_before = 0;
  REQUIRE(hsaKmtAvailableMemory(kGpu, &avail_before) == HSAKMT_STATUS_SUCCESS);
  const std::string meta = "surface: 1920x1080 tiled, dcc on";
  {
    GemBo bo(b, kGpu, 1 << 20, gem::kDomainVram, meta);
    std::memset(bo.cpu, 0x6b, 1 << 20);
    HSAuint64 avail = 0;
    REQUIRE(hsaKmtAvailableMemory(kGpu, &avail) == HSAKMT_STATUS_SUCCESS);
    CHECK(avail == avail_before - (1 << 20));  // the graphics BO uses the GPU's VRAM
    HSAuint32 nodes[] = {kGpu};
    HsaGraphicsResourceInfo info;
    std::memset(&info, 0, sizeof(info));
    b.ClearTrace();
    REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(bo.dmabuf), &info, 1, nodes) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(b.Ioctls() == std::vector<std::string>{"GET_DMABUF_INFO", "IMPORT_DMABUF"});
    // One GET_DMABUF_INFO with a 256-byte metadata buffer.
    const auto asked = b.Args("GET_DMABUF_INFO");
    REQUIRE(asked.size() == 1);
    const auto info_args = SimBoard::As<hke::kfd::GetDmabufInfoArgs>(asked[0]);
    CHECK(info_args.metadata_ptr != 0);
    CHECK(info_args.metadata_size == 256);
    CHECK(info.NodeId == kGpu);
    CHECK(uint64_t{info.SizeInBytes} == (1u << 20));
    REQUIRE(info.MetadataSizeInBytes == meta.size());
    REQUIRE(info.Metadata != nullptr);
    CHECK(std::string(static_cast<const char*>(info.Metadata), meta.size()) == meta);
    HsaPointerInfo pi;
    REQUIRE(hsaKmtQueryPointerInfo(info.MemoryAddress, &pi) == HSAKMT_STATUS_SUCCESS);
    CHECK(pi.Type == HSA_POINTER_REGISTERED_GRAPHICS);
    CHECK(pi.Node == kGpu);
    REQUIRE(hsaKmtMapMemoryToGPU(info.MemoryAddress, info.SizeInBytes, nullptr) == HSAKMT_STATUS_SUCCESS);
    // A second import of the same BO keeps a metadata copy of its own.
    HsaGraphicsResourceInfo again;
    REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(bo.dmabuf), &again, 1, nodes) ==
            HSAKMT_STATUS_SUCCESS);
    REQUIRE(again.Metadata != nullptr);
    CHECK(again.Metadata != info.Metadata);
    CHECK(std::memcmp(again.Metadata, meta.data(), meta.size()) == 0);
    CHECK(hsaKmtDeregisterMemory(again.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
    // The first import's metadata is still there after the second is gone.
    CHECK(std::string(static_cast<const char*>(info.Metadata), meta.size()) == meta);
    CHECK(hsaKmtUnmapMemoryToGPU(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
    CHECK(hsaKmtDeregisterMemory(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
  }
  // libdrm's free path and the closed descriptors released everything.
  CHECK(SimStats(b).gem_objects == 0);
  CHECK(SimStats(b).bos == base_bos);
  HSAuint64 avail_after = 0;
  REQUIRE(hsaKmtAvailableMemory(kGpu, &avail_after) == HSAKMT_STATUS_SUCCESS);
  CHECK(avail_after == avail_before);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}

TEST_CASE("a graphics import keeps the render-node BO alive after libdrm freed it, until deregistration") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire(b);
  const uint32_t base_bos = SimStats(b).bos;  // the MMIO pages of the VM bring-up
  HsaGraphicsResourceInfo info;
  {
    GemBo bo(b, kGpu, 65536, gem::kDomainGtt, "");
    HSAuint32 nodes[] = {kGpu};
    REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(bo.dmabuf), &info, 1, nodes) ==
            HSAKMT_STATUS_SUCCESS);
    CHECK(info.MetadataSizeInBytes == 0);
    CHECK(info.Metadata == nullptr);
  }
  CHECK(SimStats(b).gem_objects == 0);  // the GEM object is gone...
  CHECK(SimStats(b).bos == base_bos + 1);  // ...the KFD import holds the memory
  HsaPointerInfo pi;
  REQUIRE(hsaKmtQueryPointerInfo(info.MemoryAddress, &pi) == HSAKMT_STATUS_SUCCESS);
  CHECK(pi.Type == HSA_POINTER_REGISTERED_GRAPHICS);
  CHECK(hsaKmtDeregisterMemory(info.MemoryAddress) == HSAKMT_STATUS_SUCCESS);
  CHECK(SimStats(b).bos == base_bos);
}

TEST_CASE("graphics imports with metadata beyond the context's slots are refused whole, and slots come back") {
  SimBoard b(nullptr, "datacenter-4gpu");
  OpenAcquire(b);
  GemBo bo(b, kGpu, 4096, gem::kDomainVram, "m");
  HSAuint32 nodes[] = {kGpu};
  std::vector<void*> imports;
  for (uint32_t i = 0; i < hke::config::kMaxGraphicsMetadata; ++i) {
    HsaGraphicsResourceInfo info;
    REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(bo.dmabuf), &info, 1, nodes) ==
            HSAKMT_STATUS_SUCCESS);
    imports.push_back(info.MemoryAddress);
  }
  hke_memory_stats before = b.Stats();
  HsaGraphicsResourceInfo full;
  std::memset(&full, 0x5e, sizeof(full));
  const HsaGraphicsResourceInfo untouched = full;
  b.ClearTrace();
  CHECK(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(bo.dmabuf), &full, 1, nodes) ==
        HSAKMT_STATUS_OUT_OF_RESOURCES);
  CHECK(std::memcmp(&full, &untouched, sizeof(full)) == 0);
  CHECK(b.LastDiag().find("metadata slots") != std::string::npos);
  CHECK(b.Ioctls() == std::vector<std::string>{"GET_DMABUF_INFO"});  // nothing imported
  CHECK(b.Stats().live_objects == before.live_objects);
  CHECK(hsaKmtDeregisterMemory(imports.back()) == HSAKMT_STATUS_SUCCESS);
  imports.pop_back();
  REQUIRE(hsaKmtRegisterGraphicsHandleToNodes(static_cast<HSAuint64>(bo.dmabuf), &full, 1, nodes) ==
          HSAKMT_STATUS_SUCCESS);
  imports.push_back(full.MemoryAddress);
  for (void* p : imports) CHECK(hsaKmtDeregisterMemory(p) == HSAKMT_STATUS_SUCCESS);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
}
