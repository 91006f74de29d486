// The simulator's side of kernel dispatch: AQL kernel dispatch packets and
// PM4 SET_SH_REG/DISPATCH_DIRECT turned into a shader::Dispatch, the GPU
// page table the waves see (the process's BO table, SVM ranges, an APU's
// host pages) and the reports of what stopped a kernel.
//
// AQL (hsa_kernel_dispatch_packet_t): setup dims @2 (bits 1:0), workgroup
// size u16 x/y/z @4/6/8, grid size u32 x/y/z @12/16/20, private segment
// size @24, group segment size @28, kernel_object @32, kernarg_address
// @40. Checked in this order: kernel_object null -> EC_QUEUE_PACKET_
// DISPATCH_CODE_INVALID; dims 0 or a zero/oversized size -> DIM_INVALID;
// a workgroup of more than 1024 work-items -> WORK_GROUP_SIZE_INVALID;
// group segment over 64 KiB -> GROUP_SEGMENT_SIZE_INVALID; a GPU that is
// not GFX9-family -> EC_QUEUE_PACKET_UNSUPPORTED. The kernel descriptor
// (64 bytes at kernel_object; the code-object v3+ layout, whose fields
// also sit at these offsets in the v2 amd_kernel_code_t): entry byte
// offset i64 @16, compute_pgm_rsrc3 @44, rsrc1 @48, rsrc2 @52,
// kernel_code_properties u16 @56. User SGPRs in the enable-bit order of
// kernel_code_properties: private segment buffer (4), dispatch ptr (2),
// queue ptr (2), kernarg segment ptr (2), dispatch id (2), flat scratch
// init (2), private segment size (1); the CP loads rsrc2 USER_SGPR of them.
// The queue's amd_queue_t is found where ROCR puts it (read_dispatch_id at
// +128, write_dispatch_id at +56: read_pointer_address - 128); it gives
// the queue ptr, the private segment buffer V# (scratch_resource_
// descriptor @144) and the scratch base (scratch_backing_memory_location
// @160, size @168). A queue without one uses the SET_SCRATCH_BACKING_VA
// address and a V# built from it (swizzled, 4-byte elements, index stride
// 64, ADD_TID), and a queue ptr of 0.
//
// PM4: SET_SH_REG (0x76) into the compute SH registers 0x2e00-0x2e4f (other
// SH registers are accepted and ignored); DISPATCH_DIRECT (0x15) with
// workgroup counts: entry = COMPUTE_PGM_LO/HI << 8, user SGPRs from
// COMPUTE_USER_DATA_*, workgroup size from COMPUTE_NUM_THREAD_*, LDS from
// rsrc2 LDS_SIZE (128-dword granules), scratch per wave from
// COMPUTE_TMPRING_SIZE.WAVESIZE (1 KiB units) at the SET_SCRATCH_BACKING_VA
// address.
//
// GPU page table for waves (ShaderVm): a BO mapped to this GPU holding the
// address (VRAM/GTT and imports through a host mapping of the GPU's backing
// memfd, cached per queue across steps (HostMapCache); USERPTR through the
// user pages), else an SVM range (GPU_RO flag: read-only; NO_ACCESS: unmapped),
// else on an APU the process's own pages (page by page). Writable: the BO
// was allocated WRITABLE. Doorbell and MMIO BOs are not memory to a wave.
//
// Reports: a wave exception stops the queue with its queue exception code
// (EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION, _ABORT, _TRAP, _MEMORY_VIOLATION),
// reported through the CWSR error payload like every queue error; a memory
// fault also sets every MEMORY event with the faulting page (failure
// NotPresent or ReadOnly), as the KFD's VM fault handler does. s_sendmsg
// MSG_INTERRUPT reaches kfd_signal_event_interrupt with the 24-bit data.
//
// Threading: proc_mu_ held (the packet engines' step).
#include "platform/sim/core/shader/bridge.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "lib/core/checked.h"
#include "platform/sim/core/shader/gfx.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

// Wave-instructions a kernel may run per engine step before the engine
// moves on (and releases the simulator's lock).
constexpr uint64_t kKernelStepBudget = 1u << 20;
// PM4 dispatches run to completion inside their packet, up to this many.
constexpr uint64_t kPm4Limit = uint64_t{1} << 34;

constexpr uint64_t kAmdQueueWriteId = 56;
constexpr uint64_t kAmdQueueReadId = 128;
constexpr uint64_t kAmdQueueScratchRsrc = 144;
constexpr uint64_t kAmdQueueScratchBase = 160;
constexpr uint64_t kAmdQueueScratchSize = 168;

template <typename T>
T Field(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof(v));
  return v;
}

enum class RegionKind : uint8_t { kFile, kUser };

}  // namespace

namespace shader {

namespace {
// Address space the cached mappings of one queue may take.
constexpr uint64_t kMapBudget = sizeof(void*) == 4 ? (uint64_t{256} << 20) : (uint64_t{64} << 30);
}  // namespace

HostMapCache::~HostMapCache() {
  for (const Entry& e : entries_) munmap(e.host, static_cast<size_t>(e.size));
}

uint8_t* HostMapCache::Map(int fd, uint64_t ino, uint64_t offset, uint64_t size) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->fd == fd && it->offset == offset && it->size == size) {
      if (it->ino == ino) return static_cast<uint8_t*>(it->host);
      munmap(it->host, static_cast<size_t>(it->size));  // the descriptor names another file now
      mapped_ -= it->size;
      entries_.erase(it);
      break;
    }
  }
  if (size == 0 || size > kMapBudget || size > SIZE_MAX) return nullptr;
  while (!entries_.empty() && mapped_ + size > kMapBudget) {
    munmap(entries_.front().host, static_cast<size_t>(entries_.front().size));
    mapped_ -= entries_.front().size;
    entries_.erase(entries_.begin());
  }
  void* p = mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                 static_cast<off_t>(offset));
  if (p == MAP_FAILED) return nullptr;
  entries_.push_back(Entry{fd, ino, offset, size, p});
  mapped_ += size;
  return static_cast<uint8_t*>(p);
}

}  // namespace shader

// The GPU page table as waves see it (see the file comment).
class ShaderVm final : public shader::VmBackend {
 public:
  ShaderVm(Simulator* sim, int gpu, shader::HostMapCache* maps) : sim_(sim), maps_(maps) {
    const GpuDesc& d = sim->board_.desc.gpus[static_cast<size_t>(gpu)];
    gpu_id_ = d.gpu_id;
    apu_ = d.is_apu;
  }
  ~ShaderVm() override = default;
  ShaderVm(const ShaderVm&) = delete;
  ShaderVm& operator=(const ShaderVm&) = delete;

  bool Resolve(uint64_t va, shader::Region* out) override {
    for (const Simulator::GpuProc& owner : sim_->gpus_) {
      for (const auto& [idx, bo] : owner.bos) {
        (void)idx;
        uint64_t end = 0;
        if (bo.va == 0 || !hke::CheckedAdd(bo.va, bo.size, &end) || va < bo.va || va >= end) continue;
        if (std::find(bo.mapped.begin(), bo.mapped.end(), gpu_id_) == bo.mapped.end()) continue;
        out->lo = bo.va;
        out->hi = end;
        out->writable = (bo.flags & k::kAllocMemWritable) != 0;
        out->host = nullptr;
        Extra x;
        if (bo.storage) {
          const int fd = sim_->StorageFd(*bo.storage);  // an import of another process: its memfd
          if (fd < 0) return false;
          const uint64_t file_off = sim_->StorageFileOffset(*bo.storage);
          out->host = Map(fd, file_off, bo.storage->size);
          x.kind = RegionKind::kFile;
          x.fd = fd;
          x.base = file_off;
        } else if (bo.flags & k::kAllocMemUserptr) {
          x.kind = RegionKind::kUser;
          x.base = bo.userptr;
        } else {
          return false;  // doorbell / MMIO BOs are not memory
        }
        extra_[out->lo] = x;
        return true;
      }
    }
    auto it = sim_->svm_.upper_bound(va);
    if (it != sim_->svm_.begin()) {
      --it;
      if (va >= it->first && va < it->second.end) {
        auto acc = it->second.access.find(gpu_id_);
        if (acc != it->second.access.end() && acc->second == k::kSvmAttrNoAccess) return false;
        out->lo = it->first;
        out->hi = it->second.end;
        out->host = nullptr;
        out->writable = (it->second.flags & k::kSvmFlagGpuRo) == 0;
        extra_[out->lo] = Extra{RegionKind::kUser, -1, it->first};
        return true;
      }
    }
    if (apu_ && UserRangeOk(va, 1)) {  // the process's own pages, one at a time
      const uint64_t page = va & ~uint64_t{4095};
      out->lo = page;
      out->hi = page + 4096;
      out->host = nullptr;
      out->writable = true;  // a write to a read-only host page fails in Copy
      extra_[out->lo] = Extra{RegionKind::kUser, -1, page};
      return true;
    }
    return false;
  }

  bool Copy(const shader::Region& r, uint64_t va, void* buf, size_t n, bool write) override {
    auto it = extra_.find(r.lo);
    if (it == extra_.end()) return false;
    const Extra& x = it->second;
    const uint64_t at = x.base + (va - r.lo);
    if (x.kind == RegionKind::kFile) {
      const ssize_t got = write ? pwrite(x.fd, buf, n, static_cast<off_t>(at))
                                : pread(x.fd, buf, n, static_cast<off_t>(at));
      return got == static_cast<ssize_t>(n);
    }
    if (!UserRangeOk(at, n)) return false;
    return (write ? UserWrite(at, buf, n) : UserRead(buf, at, n)) == 0;
  }

 private:
  struct Extra {
    RegionKind kind = RegionKind::kUser;
    int fd = -1;
    uint64_t base = 0;  // file offset or user address of region.lo
  };

  // A host mapping of a BO's backing through the queue's cache (null when
  // it cannot be made, e.g. a large BO on a 32-bit host: the file path
  // serves it then).
  uint8_t* Map(int fd, uint64_t offset, uint64_t size) {
    auto it = inodes_.find(fd);
    if (it == inodes_.end()) {
      struct stat st {};
      it = inodes_.emplace(fd, fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0).first;
    }
    if (it->second == 0) return nullptr;
    return maps_->Map(fd, it->second, offset, size);
  }

  Simulator* sim_;
  shader::HostMapCache* maps_;
  uint32_t gpu_id_ = 0;
  bool apu_ = false;
  std::map<int, uint64_t> inodes_;   // backing fd -> inode, read once per step
  std::map<uint64_t, Extra> extra_;  // region.lo -> how to copy
};

namespace {

// The simulator's services to a running dispatch.
class Hooks final : public shader::DispatchHooks {
 public:
  Hooks(bool debug, std::vector<uint32_t>* interrupts) : debug_(debug), interrupts_(interrupts) {}
  void Interrupt(uint32_t data) override { interrupts_->push_back(data); }
  bool debug_trap_enabled() const override { return debug_; }
  uint64_t ShaderClock() override { return MonotonicRawNs(); }
  uint64_t RealTime() override { return MonotonicRawNs() / 10; }

 private:
  bool debug_;
  std::vector<uint32_t>* interrupts_;
};

}  // namespace

uint64_t Simulator::ShaderInstructions() {
  std::lock_guard<std::mutex> pl(proc_mu_);
  return shader_instructions_;
}

void Simulator::ShaderErrorLocked(Queue& q, const shader::Wave& w) {
  const uint32_t code = shader::WaveExceptionCode(w);
  if (w.error == shader::WaveError::kMemoryViolation) {
    k::MemoryExceptionFailure failure{};
    if (w.fault_kind == shader::Fault::kReadOnly) {
      failure.ReadOnly = 1;
    } else {
      failure.NotPresent = 1;
    }
    const uint64_t page = w.fault_va & ~uint64_t{4095};
    (void)InjectMemoryException(q.view.gpu_id, page, failure, 0);
    q.engine.fault_va = w.fault_va;
    StopQueueLocked(q, code, "kernel memory violation: " + w.reason);
    return;
  }
  StopQueueLocked(q, code, "kernel stopped: " + w.reason);
}

namespace {

// Runs `st.dispatch` for up to `budget` wave-instructions through `vm`.
shader::Dispatch::Status RunFor(ShaderVm& vm, shader::QueueShaderState& st, bool debug,
                                uint64_t budget, std::vector<uint32_t>* interrupts,
                                uint64_t* executed) {
  Hooks hooks(debug, interrupts);
  const uint64_t before = st.dispatch->wave_instructions();
  const shader::Dispatch::Status s = st.dispatch->Run(&vm, &hooks, budget);
  *executed = st.dispatch->wave_instructions() - before;
  st.wave_instructions += *executed;
  return s;
}

}  // namespace

Simulator::KernelStep Simulator::AqlKernelDispatchLocked(Queue& q, const uint8_t* pkt,
                                                          uint64_t index, uint64_t slot) {
  if (!q.engine.shader) q.engine.shader = std::make_shared<shader::QueueShaderState>();
  shader::QueueShaderState& st = *q.engine.shader;
  const std::string at = " at index " + std::to_string(index);
  if (!st.dispatch || st.packet != index) {
    st.dispatch.reset();
    const GpuDesc& desc = board_.desc.gpus[static_cast<size_t>(q.gpu)];
    const uint64_t kernel_object = Field<uint64_t>(pkt, 32);
    const uint32_t dims = Field<uint16_t>(pkt, 2) & 3u;
    const uint32_t wg[3] = {Field<uint16_t>(pkt, 4), Field<uint16_t>(pkt, 6), Field<uint16_t>(pkt, 8)};
    const uint32_t grid[3] = {Field<uint32_t>(pkt, 12), Field<uint32_t>(pkt, 16), Field<uint32_t>(pkt, 20)};
    const uint32_t private_bytes = Field<uint32_t>(pkt, 24);
    const uint32_t group_bytes = Field<uint32_t>(pkt, 28);
    if (kernel_object == 0) {
      StopQueueLocked(q, k::kEcQueuePacketDispatchCodeInvalid,
                      "AQL kernel dispatch packet" + at + " has a null kernel_object");
      return KernelStep::kStopped;
    }
    bool dims_ok = dims != 0;
    for (uint32_t d = 0; d < 3 && dims_ok; ++d) {
      if (wg[d] == 0 || grid[d] == 0) dims_ok = false;
      if (d >= dims && (wg[d] != 1 || grid[d] != 1)) dims_ok = false;
    }
    if (!dims_ok) {
      StopQueueLocked(q, k::kEcQueuePacketDispatchDimInvalid,
                      "AQL kernel dispatch packet" + at + " has invalid dimensions or sizes");
      return KernelStep::kStopped;
    }
    if (uint64_t{wg[0]} * wg[1] * wg[2] > 1024) {
      StopQueueLocked(q, k::kEcQueuePacketDispatchWorkGroupSizeInvalid,
                      "AQL kernel dispatch packet" + at + ": workgroup larger than 1024 work-items");
      return KernelStep::kStopped;
    }
    if (group_bytes > 65536) {
      StopQueueLocked(q, k::kEcQueuePacketDispatchGroupSegmentSizeInvalid,
                      "AQL kernel dispatch packet" + at + ": group segment larger than 64 KiB");
      return KernelStep::kStopped;
    }
    const shader::GfxTraits* traits = shader::TraitsFor(desc.gfx_target_version);
    if (traits == nullptr) {
      StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                      "AQL kernel dispatch packet" + at + ": the simulator executes GFX9-family "
                      "kernels only (gfx_target_version " + std::to_string(desc.gfx_target_version) + ")");
      return KernelStep::kStopped;
    }
    uint8_t kd[64];
    if (GpuRead(q.gpu, kernel_object, kd, sizeof(kd)) != 0) {
      GpuFaultLocked(q, kernel_object, "AQL kernel descriptor read");
      return KernelStep::kStopped;
    }
    shader::KernelSetup ks;
    ks.traits = traits;
    const int64_t entry_offset = Field<int64_t>(kd, 16);
    ks.entry = kernel_object + static_cast<uint64_t>(entry_offset);
    ks.rsrc3 = Field<uint32_t>(kd, 44);
    ks.rsrc1 = Field<uint32_t>(kd, 48);
    ks.rsrc2 = Field<uint32_t>(kd, 52);
    const uint32_t props = Field<uint16_t>(kd, 56);
    for (int d = 0; d < 3; ++d) {
      ks.grid[d] = grid[d];
      ks.wg[d] = wg[d];
    }
    ks.lds_bytes = group_bytes;
    ks.private_bytes = private_bytes;
    ks.cu_count = desc.cu_count == 0 ? 1 : desc.cu_count;
    k::ProcessDeviceApertures ap{};
    FillApertures(q.gpu, &ap);
    ks.shared_base_hi = static_cast<uint32_t>(ap.lds_base >> 32);
    ks.private_base_hi = static_cast<uint32_t>(ap.scratch_base >> 32);
    // The queue's amd_queue_t, when the pointers sit where ROCR puts them.
    uint64_t queue_va = 0;
    uint32_t rsrc[4] = {0, 0, 0, 0};
    uint64_t scratch_size = 0;
    if (q.view.write_pointer_address >= kAmdQueueWriteId &&
        q.view.read_pointer_address == q.view.write_pointer_address - kAmdQueueWriteId + kAmdQueueReadId) {
      queue_va = q.view.write_pointer_address - kAmdQueueWriteId;
      uint8_t tail[32];
      if (GpuRead(q.gpu, queue_va + kAmdQueueScratchRsrc, tail, sizeof(tail)) == 0) {
        std::memcpy(rsrc, tail, 16);
        ks.scratch_base = Field<uint64_t>(tail, kAmdQueueScratchBase - kAmdQueueScratchRsrc);
        scratch_size = Field<uint64_t>(tail, kAmdQueueScratchSize - kAmdQueueScratchRsrc);
      }
    }
    if (ks.scratch_base == 0) ks.scratch_base = gpus_[static_cast<size_t>(q.gpu)].scratch_va << 16;
    if (rsrc[0] == 0 && rsrc[1] == 0 && ks.scratch_base != 0) {
      rsrc[0] = static_cast<uint32_t>(ks.scratch_base);
      rsrc[1] = static_cast<uint32_t>(ks.scratch_base >> 32) & 0xFFFFu;
      rsrc[1] |= 1u << 31;  // SWIZZLE_ENABLE
      rsrc[2] = scratch_size != 0 && scratch_size < 0xFFFFFFFFull ? static_cast<uint32_t>(scratch_size)
                                                                   : 0xFFFFFFFFu;
      rsrc[3] = (1u << 19) | (3u << 21) | (1u << 23);  // 4-byte elements, stride 64, ADD_TID
    }
    // User SGPRs in enable-bit order.
    unsigned n = 0;
    auto put64 = [&](uint64_t v) {
      ks.user_sgpr[n++] = static_cast<uint32_t>(v);
      ks.user_sgpr[n++] = static_cast<uint32_t>(v >> 32);
    };
    if (props & 0x01) {
      for (uint32_t r : rsrc) ks.user_sgpr[n++] = r;
    }
    if (props & 0x02) put64(slot);
    if (props & 0x04) put64(queue_va);
    if (props & 0x08) put64(Field<uint64_t>(pkt, 40));
    if (props & 0x10) put64(index);
    if (props & 0x20) put64(ks.scratch_base);
    if (props & 0x40) ks.user_sgpr[n++] = private_bytes;
    st.dispatch = std::make_unique<shader::Dispatch>(ks);
    st.packet = index;
  }
  ShaderVm vm(this, q.gpu, &st.maps);
  std::vector<uint32_t> interrupts;
  uint64_t executed = 0;
  const shader::Dispatch::Status s =
      RunFor(vm, st, debug_trap_enabled_, kKernelStepBudget, &interrupts, &executed);
  shader_instructions_ += executed;
  for (uint32_t data : interrupts) RaiseInterruptLocked(data, 24);
  switch (s) {
    case shader::Dispatch::Status::kRunning:
      q.engine.reason = "AQL kernel dispatch" + at + " running (" +
                        std::to_string(st.dispatch->workgroups_done()) + " of " +
                        std::to_string(st.dispatch->workgroup_count()) + " workgroups done)";
      return KernelStep::kRunning;
    case shader::Dispatch::Status::kError:
      ShaderErrorLocked(q, st.dispatch->error_wave());
      st.dispatch.reset();
      return KernelStep::kStopped;
    case shader::Dispatch::Status::kDone:
      break;
  }
  st.dispatch.reset();
  return KernelStep::kDone;
}

void Simulator::Pm4SetShRegLocked(Queue& q, uint32_t offset, const uint32_t* values, uint64_t n) {
  if (!q.engine.shader) q.engine.shader = std::make_shared<shader::QueueShaderState>();
  shader::QueueShaderState& st = *q.engine.shader;
  constexpr uint32_t kComputeBase = 0x200;  // 0x2e00 - 0x2c00
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t reg = uint64_t{offset} + i;
    if (reg >= kComputeBase && reg < kComputeBase + 0x50) st.sh[reg - kComputeBase] = values[i];
  }
}

Simulator::KernelStep Simulator::Pm4DispatchDirectLocked(Queue& q, const uint32_t dims[3],
                                                          uint64_t packet) {
  if (!q.engine.shader) q.engine.shader = std::make_shared<shader::QueueShaderState>();
  shader::QueueShaderState& st = *q.engine.shader;
  const GpuDesc& desc = board_.desc.gpus[static_cast<size_t>(q.gpu)];
  const shader::GfxTraits* traits = shader::TraitsFor(desc.gfx_target_version);
  if (traits == nullptr) {
    StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                    "PM4 DISPATCH_DIRECT: the simulator executes GFX9-family kernels only");
    return KernelStep::kStopped;
  }
  const uint32_t* sh = st.sh;
  shader::KernelSetup ks;
  ks.traits = traits;
  ks.entry = (uint64_t{sh[shader::kShPgmLo]} | uint64_t{sh[shader::kShPgmHi] & 0xFFFF} << 32) << 8;
  ks.rsrc1 = sh[shader::kShPgmRsrc1];
  ks.rsrc2 = sh[shader::kShPgmRsrc2];
  ks.rsrc3 = sh[shader::kShPgmRsrc3];
  for (unsigned i = 0; i < 16; ++i) ks.user_sgpr[i] = sh[shader::kShUserData0 + i];
  uint64_t wg_items = 1;
  for (int d = 0; d < 3; ++d) {
    ks.wg[d] = sh[shader::kShNumThreadX + d] & 0xFFFF;
    if (ks.wg[d] == 0 || dims[d] == 0) {
      StopQueueLocked(q, k::kEcQueuePacketDispatchDimInvalid,
                      "PM4 DISPATCH_DIRECT with a zero dimension or COMPUTE_NUM_THREAD");
      return KernelStep::kStopped;
    }
    wg_items *= ks.wg[d];
    const uint64_t items = uint64_t{dims[d]} * ks.wg[d];
    if (items > 0xFFFFFFFFull) {
      StopQueueLocked(q, k::kEcQueuePacketDispatchDimInvalid, "PM4 DISPATCH_DIRECT grid too large");
      return KernelStep::kStopped;
    }
    ks.grid[d] = static_cast<uint32_t>(items);
  }
  if (wg_items > 1024) {
    StopQueueLocked(q, k::kEcQueuePacketDispatchWorkGroupSizeInvalid,
                    "PM4 DISPATCH_DIRECT workgroup larger than 1024 work-items");
    return KernelStep::kStopped;
  }
  ks.lds_bytes = shader::Rsrc2(ks.rsrc2).lds_granules() * 512u;
  const uint32_t wavesize = (sh[shader::kShTmpringSize] >> 12) & 0x1FFF;
  ks.private_bytes = wavesize * 1024u / 64u;
  ks.scratch_base = gpus_[static_cast<size_t>(q.gpu)].scratch_va << 16;
  ks.cu_count = desc.cu_count == 0 ? 1 : desc.cu_count;
  k::ProcessDeviceApertures ap{};
  FillApertures(q.gpu, &ap);
  ks.shared_base_hi = static_cast<uint32_t>(ap.lds_base >> 32);
  ks.private_base_hi = static_cast<uint32_t>(ap.scratch_base >> 32);
  st.dispatch = std::make_unique<shader::Dispatch>(ks);
  st.packet = packet;
  ShaderVm vm(this, q.gpu, &st.maps);
  std::vector<uint32_t> interrupts;
  uint64_t executed = 0;
  const shader::Dispatch::Status s =
      RunFor(vm, st, debug_trap_enabled_, kPm4Limit, &interrupts, &executed);
  shader_instructions_ += executed;
  for (uint32_t data : interrupts) RaiseInterruptLocked(data, 24);
  KernelStep out = KernelStep::kDone;
  if (s == shader::Dispatch::Status::kError) {
    ShaderErrorLocked(q, st.dispatch->error_wave());
    out = KernelStep::kStopped;
  } else if (s == shader::Dispatch::Status::kRunning) {
    StopQueueLocked(q, k::kEcQueuePacketUnsupported,
                    "PM4 DISPATCH_DIRECT ran more than " + std::to_string(kPm4Limit) +
                        " wave-instructions (PM4 kernels run to completion in their packet)");
    out = KernelStep::kStopped;
  }
  st.dispatch.reset();
  return out;
}

}  // namespace kfdsim
