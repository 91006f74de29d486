// Test fixture for the kfdsim core: hand-built boards (no topology loader)
// with a tiny file provider, and helpers that issue ioctls like a thunk.
#ifndef HKE_TESTS_SIM_CORE_SIM_FIXTURE_H_
#define HKE_TESTS_SIM_CORE_SIM_FIXTURE_H_

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/kfd/abi.h"
#include "lib/kfd/drm_abi.h"
#include "platform/sim/board.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/sim.h"

namespace simtest {

namespace k = hke::kfd;

// Serves a fixed map of paths; everything under /dev and /sys/devices/virtual/kfd is owned.
class MapProvider : public kfdsim::FileProvider {
 public:
  std::map<std::string, std::pair<kfdsim::FileKind, std::string>> entries;

  int Kind(const std::string& path, kfdsim::FileKind* out) const override {
    auto it = entries.find(path);
    if (it == entries.end()) return ENOENT;
    *out = it->second.first;
    return 0;
  }
  int Read(const std::string& path, std::string* out) const override {
    auto it = entries.find(path);
    if (it == entries.end()) return ENOENT;
    if (it->second.first == kfdsim::FileKind::kDir) return EISDIR;
    *out = it->second.second;
    return 0;
  }
  int List(const std::string& path, std::vector<kfdsim::DirEntry>* out) const override {
    auto it = entries.find(path);
    if (it == entries.end()) return ENOENT;
    if (it->second.first != kfdsim::FileKind::kDir) return ENOTDIR;
    for (const auto& [p, e] : entries) {
      if (p.size() > path.size() + 1 && p.compare(0, path.size(), path) == 0 &&
          p[path.size()] == '/' && p.find('/', path.size() + 1) == std::string::npos) {
        out->push_back(kfdsim::DirEntry{p.substr(path.size() + 1), e.first});
      }
    }
    return 0;
  }
  bool Owns(const std::string& path) const override {
    return path.rfind("/dev/", 0) == 0 || path.rfind("/sys/devices/virtual/kfd", 0) == 0;
  }
};

constexpr uint32_t kGpuA = 0xd161;  // gfx90a dGPU, renderD128, 64 MiB VRAM, large BAR
constexpr uint32_t kGpuB = 0x1234;  // gfx1030 dGPU, renderD129, 32 MiB VRAM, small BAR
constexpr uint32_t kGpuApu = 0x2222;
constexpr uint64_t kVramA = 64ull << 20;
constexpr uint64_t kVramB = 32ull << 20;

inline kfdsim::GpuDesc Gfx90a() {
  kfdsim::GpuDesc g;
  g.node_id = 1;
  g.gpu_id = kGpuA;
  g.render_minor = 128;
  g.device_id = 0x740f;
  g.pci_rev = 2;
  g.gfx_target_version = 90010;
  g.drm_family = 141;
  g.vram_bytes = kVramA;
  g.vram_visible_bytes = kVramA;
  g.gtt_bytes = 256ull << 20;
  g.simd_count = 416;
  g.simd_per_cu = 4;
  g.cu_count = 104;
  g.array_count = 8;
  g.simd_arrays_per_engine = 1;
  g.cu_per_simd_array = 13;
  g.max_waves_per_simd = 8;
  g.num_sdma_engines = 2;
  g.num_sdma_xgmi_engines = 3;
  g.num_sdma_queues_per_engine = 8;
  g.num_cp_queues = 24;
  g.num_gws = 64;
  g.max_engine_clk_fcompute = 1700;
  g.gb_addr_config = 0x2a114042;
  return g;
}

inline kfdsim::GpuDesc Gfx1030() {
  kfdsim::GpuDesc g = Gfx90a();
  g.node_id = 2;
  g.gpu_id = kGpuB;
  g.render_minor = 129;
  g.device_id = 0x73bf;
  g.gfx_target_version = 100300;
  g.drm_family = 143;
  g.vram_bytes = kVramB;
  g.vram_visible_bytes = 16ull << 20;
  g.num_gws = 0;
  g.gb_addr_config = 0x44;
  return g;
}

inline kfdsim::Board MakeBoard(std::vector<kfdsim::GpuDesc> gpus, uint32_t minor = 17) {
  kfdsim::Board b;
  b.desc.name = "test";
  b.desc.kfd_major = 1;
  b.desc.kfd_minor = minor;
  b.desc.cpu_count = 2;
  b.desc.node_count = static_cast<uint32_t>(gpus.size() + 1);
  auto files = std::make_unique<MapProvider>();
  files->entries["/dev/kfd"] = {kfdsim::FileKind::kDevice, ""};
  for (const auto& g : gpus) {
    files->entries["/dev/dri/renderD" + std::to_string(g.render_minor)] = {
        kfdsim::FileKind::kDevice, ""};
  }
  files->entries["/sys/devices/virtual/kfd/kfd/topology"] = {kfdsim::FileKind::kDir, ""};
  files->entries["/sys/devices/virtual/kfd/kfd/topology/generation_id"] = {
      kfdsim::FileKind::kFile, "1\n"};
  b.desc.gpus = std::move(gpus);
  b.files = std::move(files);
  return b;
}

inline kfdsim::Board TwoGpuBoard(uint32_t minor = 17) { return MakeBoard({Gfx90a(), Gfx1030()}, minor); }

inline kfdsim::Board ApuBoard() {
  kfdsim::GpuDesc g = Gfx90a();
  g.gpu_id = kGpuApu;
  g.is_apu = true;
  g.vram_bytes = 0;
  g.vram_visible_bytes = 0;
  g.gfx_target_version = 90012;
  return MakeBoard({g});
}

// A simulator plus the fds a thunk would hold.
struct Sim {
  std::unique_ptr<kfdsim::Simulator> sim;
  int kfd = -1;
  std::map<uint32_t, int> render;  // minor -> fd

  explicit Sim(kfdsim::Board board) : sim(std::make_unique<kfdsim::Simulator>(std::move(board))) {
    REQUIRE(sim->Open("/dev/kfd", O_RDWR | O_CLOEXEC, &kfd) == 0);
    for (const auto& g : sim->desc().gpus) {
      int fd = -1;
      REQUIRE(sim->Open(("/dev/dri/renderD" + std::to_string(g.render_minor)).c_str(),
                        O_RDWR | O_CLOEXEC, &fd) == 0);
      render[g.render_minor] = fd;
    }
  }
  ~Sim() {
    sim.reset();
    for (const auto& [p, n] : host) munmap(p, n);
    if (kfd >= 0) close(kfd);
    for (auto& [m, fd] : render) {
      (void)m;
      close(fd);
    }
  }

  template <typename T>
  int Io(uint32_t request, T* arg, int fd = -1) {
    return sim->Ioctl(fd < 0 ? kfd : fd, request, arg);
  }

  int Acquire(uint32_t gpu_id, uint32_t minor) {
    k::AcquireVmArgs a{};
    a.drm_fd = static_cast<uint32_t>(render[minor]);
    a.gpu_id = gpu_id;
    return Io(k::kIocAcquireVm, &a);
  }
  void AcquireAll() {
    for (const auto& g : sim->desc().gpus) REQUIRE(Acquire(g.gpu_id, g.render_minor) == 0);
  }

  int Alloc(uint32_t gpu_id, uint64_t size, uint32_t flags, k::AllocMemoryOfGpuArgs* out,
            uint64_t va = 0x7f0000000000ull) {
    std::memset(out, 0, sizeof(*out));
    out->va_addr = va;
    out->size = size;
    out->gpu_id = gpu_id;
    out->flags = flags;
    return Io(k::kIocAllocMemoryOfGpu, out);
  }
  int Free(uint64_t handle) {
    k::FreeMemoryOfGpuArgs a{};
    a.handle = handle;
    return Io(k::kIocFreeMemoryOfGpu, &a);
  }

  // A BO of `size` at a fresh VA (GTT, or a USERPTR of fresh anonymous
  // memory, whose VA is its host address), mapped to `gpu_id`; its VA.
  uint64_t MappedBo(uint32_t gpu_id, uint64_t size, bool userptr = false,
                    uint64_t* handle = nullptr) {
    size = (size + 4095) / 4096 * 4096;
    k::AllocMemoryOfGpuArgs a{};
    uint64_t va = 0;
    if (userptr) {
      void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      REQUIRE(p != MAP_FAILED);
      host.emplace_back(p, size);
      va = reinterpret_cast<uintptr_t>(p);
      REQUIRE(Alloc(gpu_id, size, k::kAllocMemUserptr | k::kAllocMemWritable, &a, va) == 0);
      a.mmap_offset = va;
    } else {
      va = next_va;
      next_va += (size + 0xFFFFull) & ~0xFFFFull;
      next_va += 0x10000;  // a hole: a buffer never runs into the next
      REQUIRE(Alloc(gpu_id, size, k::kAllocMemGtt | k::kAllocMemWritable, &a, va) == 0);
    }
    k::MapMemoryToGpuArgs m{};
    m.handle = a.handle;
    m.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu_id);
    m.n_devices = 1;
    REQUIRE(Io(k::kIocMapMemoryToGpu, &m) == 0);
    if (handle != nullptr) *handle = a.handle;
    return va;
  }

  // CREATE_QUEUE arguments whose buffers pass the kernel's checks (KFD 1.17,
  // platform/sim/core/queue_buffers.cc): a ring BO of `ring_size`, one page
  // for the read (offset 0) and write (offset 8) pointers, and for compute
  // queues the node's EOP buffer and CWSR area (host memory, USERPTR) with
  // the node's control stack size. The VMs must be acquired.
  k::CreateQueueArgs QueueArgs(uint32_t gpu_id, uint32_t type = k::kQueueTypeComputeAql,
                               uint32_t ring_size = 0x10000) {
    k::CreateQueueArgs q{};
    q.ring_base_address = MappedBo(gpu_id, ring_size < 4096 ? 4096 : ring_size);
    q.ring_size = ring_size;
    q.gpu_id = gpu_id;
    q.queue_type = type;
    q.queue_percentage = 100;
    q.queue_priority = 7;
    q.read_pointer_address = MappedBo(gpu_id, 4096);
    q.write_pointer_address = q.read_pointer_address + 8;
    if (type != k::kQueueTypeCompute && type != k::kQueueTypeComputeAql) return q;
    const kfdsim::GpuDesc* g = nullptr;
    for (const auto& d : sim->desc().gpus) g = d.gpu_id == gpu_id ? &d : g;
    REQUIRE(g != nullptr);
    const kfdsim::KernelQueueSizes n = kfdsim::ComputeKernelQueueSizes(*g, 4096);
    if (n.eop_buffer_size != 0) {
      q.eop_buffer_address = MappedBo(gpu_id, n.eop_buffer_size);
      q.eop_buffer_size = n.eop_buffer_size;
    }
    q.ctl_stack_size = n.ctl_stack_size;
    q.ctx_save_restore_size = n.cwsr_size;
    const uint64_t xcc = g->num_xcc == 0 ? 1 : g->num_xcc;
    const uint64_t total = (uint64_t{n.cwsr_size} + n.debug_memory_size) * xcc;
    if (total != 0) q.ctx_save_restore_address = MappedBo(gpu_id, total, /*userptr=*/true);
    return q;
  }

  std::vector<std::pair<void*, size_t>> host;  // USERPTR memory, unmapped last
  // Fresh GPU VAs for MappedBo (below 4 GiB on 32-bit targets).
  uint64_t next_va = sizeof(void*) == 4 ? 0x40000000ull : 0x7e0000000000ull;
};

constexpr uint32_t kVramFlags = k::kAllocMemVram | k::kAllocMemWritable | k::kAllocMemNoSubstitute;
constexpr uint32_t kGttFlags = k::kAllocMemGtt | k::kAllocMemWritable | k::kAllocMemNoSubstitute;

}  // namespace simtest

#endif  // HKE_TESTS_SIM_CORE_SIM_FIXTURE_H_
