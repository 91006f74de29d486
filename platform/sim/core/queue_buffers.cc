// kfdsim queue buffer checks: the kernel's validation of the buffers a new
// queue names (kfd_queue.c kfd_queue_acquire_buffers / kfd_queue_buffer_get,
// Linux 6.12), and the hold a live queue keeps on them.
//
// Kernel facts followed (every refusal is EINVAL):
//  - A buffer is accepted when the GPU page holding its address is the
//    first page of a mapping in that GPU's VM (a BO mapped to that gpu_id)
//    and, when an expected size of at least one GPU page (4 KiB) is given,
//    the mapping is exactly that many pages long.
//  - Write and read pointers: a one-host-page mapping each. The ring: its
//    size (after the 1 KiB clamp; halved for AQL on gfx7/gfx8, whose rings
//    appear twice their size).
//  - Compute queues (PM4 and AQL) only: an EOP address needs the node's EOP
//    size (32 KiB Tonga, 4 KiB from gfx8) and a mapping of it; ctl_stack_size
//    must equal the node's, ctx_save_restore_size be at least the node's
//    cwsr_size, and the CWSR area be a mapping of exactly
//    (ctx_save_restore_size + debug area) * XCCs, page aligned, or else lie in
//    SVM ranges mapped to the GPU (ACCESS or ACCESS_IN_PLACE for it) with
//    GPU_ALWAYS_MAPPED. The node's sizes are those its sysfs states
//    (cwsr_size, ctl_stack_size) or else the kernel's computation
//    (kfd_queue_ctx_save_restore_size, written out here on purpose rather
//    than shared with the library, so that the check can catch the
//    library's sizing); before Carrizo (gfx 8.0.1) every size is 0.
//  - A live queue holds its buffers: UNMAP_MEMORY_FROM_GPU of one from the
//    queue's GPU, and FREE_MEMORY_OF_GPU of one, are EBUSY until the queue
//    is destroyed.
//
// Version: the check appeared in Linux 6.12 (KFD 1.16); every kernel
// reporting KFD 1.17 or later has it, kernels reporting 1.16 may not
// (6.10, 6.11). The simulator checks from KFD 1.17 (kMinorQueueBufferCheck)
// and lets a board reporting 1.16 or less keep the older kernels' rule (no
// check), so runtimes of that era (Debian's ROCm 5.2.3) can be simulated on
// the kernels they were built for.
//
// Threading: proc_mu_ held by the callers.
#include <errno.h>

#include <algorithm>

#include "lib/core/checked.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

constexpr uint64_t kGpuPage = 4096;  // AMDGPU_GPU_PAGE_SIZE

uint32_t VgprPerCu(uint32_t gfx) {
  if (gfx == 90402 || gfx == 90010 || gfx == 90008 || gfx == 90500) return 0x80000;
  if (gfx == 110000 || gfx == 110001 || gfx == 120000 || gfx == 120001) return 0x60000;
  return 0x40000;
}

}  // namespace

KernelQueueSizes ComputeKernelQueueSizes(const GpuDesc& g, uint64_t page) {
  KernelQueueSizes s;
  const uint32_t gfx = g.gfx_target_version;
  if (gfx < 80001 || g.simd_per_cu == 0) return s;
  const uint64_t xcc = g.num_xcc == 0 ? 1 : g.num_xcc;
  const uint64_t cu = g.simd_count / g.simd_per_cu / xcc;
  uint64_t waves = cu * 32;
  if (gfx < 100100) {
    const uint64_t cap =
        g.simd_arrays_per_engine == 0 ? 0 : uint64_t{g.array_count} / g.simd_arrays_per_engine * 512;
    waves = std::min<uint64_t>(cu * 40, cap);
  }
  const uint64_t lds = gfx == 90500 ? uint64_t{g.lds_size_in_kb} << 10 : 0x10000;
  const uint64_t wg = AlignUp(cu * (VgprPerCu(gfx) + 0x4000 + lds + 0x1000), page);
  uint64_t ctl = AlignUp(40 + waves * (gfx >= 100100 ? 12 : 8) + 8, page);
  if (gfx / 10000 == 10) ctl = std::min<uint64_t>(ctl, 0x7000);
  s.ctl_stack_size = static_cast<uint32_t>(ctl);
  s.cwsr_size = static_cast<uint32_t>(ctl + wg);
  s.debug_memory_size = static_cast<uint32_t>(AlignUp(waves * 32, 64));
  s.eop_buffer_size = gfx == 80002 ? 0x8000u : 4096u;
  // What the node's sysfs states wins (the kernel serves its own values).
  if (g.ctl_stack_size != 0) s.ctl_stack_size = g.ctl_stack_size;
  if (g.cwsr_size != 0) s.cwsr_size = g.cwsr_size;
  return s;
}

bool Simulator::QueueBufferChecksOn() const {
  return board_.desc.kfd_minor >= kMinorQueueBufferCheck;
}

// kfd_queue_buffer_get: the mapping of `gpu`'s VM holding the page of
// `addr` starts there and, for a size of a page or more, spans exactly it.
int Simulator::QueueBufferGetLocked(int gpu, uint64_t addr, uint64_t expected) const {
  const uint32_t gpu_id = board_.desc.gpus[static_cast<size_t>(gpu)].gpu_id;
  const uint64_t page = addr / kGpuPage;
  const uint64_t pages = expected / kGpuPage;
  for (const GpuProc& owner : gpus_) {
    for (const auto& [idx, bo] : owner.bos) {
      (void)idx;
      if (bo.va == 0 || bo.size == 0) continue;
      if (std::find(bo.mapped.begin(), bo.mapped.end(), gpu_id) == bo.mapped.end()) continue;
      const uint64_t first = bo.va / kGpuPage;
      const uint64_t last = (bo.va + bo.size - 1) / kGpuPage;
      if (page < first || page > last) continue;
      if (page != first) return EINVAL;
      if (pages != 0 && page + pages - 1 != last) return EINVAL;
      return 0;
    }
  }
  return EINVAL;
}

// kfd_queue_buffer_svm_get: [addr, addr + size) lies in SVM ranges this
// GPU may access, each with GPU_ALWAYS_MAPPED.
int Simulator::QueueBufferSvmLocked(int gpu, uint64_t addr, uint64_t size) const {
  const uint32_t gpu_id = board_.desc.gpus[static_cast<size_t>(gpu)].gpu_id;
  uint64_t at = addr / page_size_ * page_size_;
  uint64_t end = 0;
  if (!hke::CheckedAdd(addr, size, &end)) return EINVAL;
  while (at < end) {
    auto it = svm_.upper_bound(at);
    if (it == svm_.begin()) return EINVAL;
    --it;
    if (at >= it->second.end) return EINVAL;
    auto acc = it->second.access.find(gpu_id);
    if (acc == it->second.access.end() ||
        (acc->second != k::kSvmAttrAccess && acc->second != k::kSvmAttrAccessInPlace)) {
      return EINVAL;
    }
    if ((it->second.flags & k::kSvmFlagGpuAlwaysMapped) == 0) return EINVAL;
    at = it->second.end;
  }
  return 0;
}

int Simulator::QueueBuffersCheckLocked(int gpu, const k::CreateQueueArgs& a) const {
  if (!QueueBufferChecksOn()) return 0;
  const GpuDesc& g = board_.desc.gpus[static_cast<size_t>(gpu)];
  const bool compute =
      a.queue_type == k::kQueueTypeCompute || a.queue_type == k::kQueueTypeComputeAql;
  uint64_t ring = a.ring_size;
  if (a.queue_type == k::kQueueTypeComputeAql && g.gfx_target_version >= 70000 &&
      g.gfx_target_version < 90000) {
    ring /= 2;
  }
  if (QueueBufferGetLocked(gpu, a.write_pointer_address, page_size_) != 0 ||
      QueueBufferGetLocked(gpu, a.read_pointer_address, page_size_) != 0 ||
      QueueBufferGetLocked(gpu, a.ring_base_address, ring) != 0) {
    return EINVAL;
  }
  if (!compute) return 0;
  const KernelQueueSizes node = ComputeKernelQueueSizes(g, page_size_);
  if (a.eop_buffer_address != 0) {
    if (a.eop_buffer_size != node.eop_buffer_size) return EINVAL;
    if (QueueBufferGetLocked(gpu, a.eop_buffer_address, a.eop_buffer_size) != 0) return EINVAL;
  }
  if (a.ctl_stack_size != node.ctl_stack_size) return EINVAL;
  if (a.ctx_save_restore_size < node.cwsr_size) return EINVAL;
  const uint64_t xcc = g.num_xcc == 0 ? 1 : g.num_xcc;
  const uint64_t total =
      AlignUp((uint64_t{a.ctx_save_restore_size} + node.debug_memory_size) * xcc, page_size_);
  if (QueueBufferGetLocked(gpu, a.ctx_save_restore_address, total) == 0) return 0;
  return QueueBufferSvmLocked(gpu, a.ctx_save_restore_address, total);
}

bool Simulator::QueueHoldsLocked(int gpu, const Bo& bo) const {
  if (bo.va == 0) return false;
  const uint64_t end = bo.va + bo.size;
  auto in = [&](uint64_t addr) { return addr != 0 && addr >= bo.va && addr < end; };
  for (const auto& [id, q] : queues_) {
    (void)id;
    if (!q.holds_buffers || (gpu >= 0 && q.gpu != gpu)) continue;
    const uint32_t gpu_id = board_.desc.gpus[static_cast<size_t>(q.gpu)].gpu_id;
    if (std::find(bo.mapped.begin(), bo.mapped.end(), gpu_id) == bo.mapped.end()) continue;
    if (in(q.view.ring_base_address) || in(q.view.read_pointer_address) ||
        in(q.view.write_pointer_address) || in(q.eop_address) ||
        in(q.ctx_save_restore_address)) {
      return true;
    }
  }
  return false;
}

}  // namespace kfdsim
