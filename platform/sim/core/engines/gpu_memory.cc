// kfdsim GPU memory access: what a simulated engine (SDMA, CP, AQL packet
// processor) sees when it reads or writes a GPU virtual address.
//
// Translation, in this order:
//  1. A BO of any GPU of the process that is mapped to this GPU
//     (MAP_MEMORY_TO_GPU named its gpu_id) and contains the whole range:
//     VRAM/GTT (and dma-buf/IPC imports) read and write the GPU's backing
//     memfd with pread/pwrite at storage offset + (va - bo.va); USERPTR BOs
//     go to the user pages at userptr + (va - bo.va). A DOORBELL BO is the
//     owning GPU's process doorbell slice: a write stores into it exactly as
//     a CPU doorbell write does (aligned 32/64-bit words atomically, with
//     release order) and wakes the engines, so the queue whose doorbell it
//     is runs (a GPU ringing another queue, e.g. a PM4 WRITE_DATA or SDMA
//     write/fence); a read returns the doorbell. MMIO BOs are not memory:
//     an access faults.
//  2. SVM ranges (GPU VA == host VA) covering the range and mapped on this
//     GPU (core/svm.cc; with XNACK on, a retry fault maps them): the host
//     pages.
//  3. On an APU only, any other user address: the host pages (the GPU
//     shares the process page tables, as with IOMMUv2/ATS; this is also how
//     a kernel-allocated event page is reached there).
//  Otherwise the access faults (EFAULT); the caller reports a GPU memory
//  fault. A range that crosses the end of a BO or SVM range is refused
//  (EFAULT) rather than split: engines touch at most one buffer per access,
//  and a copy that runs off its buffer is a fault on real hardware too.
//  Every va + n is computed with checked arithmetic.
//
// Atomicity: each access is one pread/pwrite or process_vm_* call, so a
// read-modify-write (the AQL completion-signal decrement) is atomic with
// respect to other engines (all run under proc_mu_) but NOT with respect to
// concurrent CPU stores to the same word. Runtimes do not store to a
// signal's value while the GPU owns its decrement, so this is enough for
// the simulator; mapping every backing memfd to use __atomic ops would
// need remapping as the backing file grows.
//
// Threading: proc_mu_ held by the caller (the BO table and SVM map).
#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "lib/core/checked.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

enum class Target { kNone, kBacking, kUser, kDoorbell };

struct Resolved {
  Target target = Target::kNone;
  int fd = -1;           // backing memfd (kBacking)
  uint64_t address = 0;  // file offset (kBacking), user address (kUser), slice offset (kDoorbell)
  volatile uint8_t* doorbells = nullptr;  // the owning GPU's doorbell slice (kDoorbell)
};

// A doorbell slice access: whole aligned words move atomically (release
// stores, acquire loads, as the CPU side and the engines' doorbell reads
// use); any other span byte by byte.
void DoorbellIo(volatile uint8_t* slice, uint64_t offset, void* buf, uint64_t n, bool write) {
  auto* p = static_cast<uint8_t*>(buf);
  uint8_t* base = const_cast<uint8_t*>(slice) + offset;
  if ((n == 8 || n == 4) && offset % n == 0) {
    if (n == 8) {
      uint64_t v = 0;
      if (write) {
        std::memcpy(&v, p, 8);
        __atomic_store_n(reinterpret_cast<uint64_t*>(base), v, __ATOMIC_RELEASE);
      } else {
        v = __atomic_load_n(reinterpret_cast<uint64_t*>(base), __ATOMIC_ACQUIRE);
        std::memcpy(p, &v, 8);
      }
    } else {
      uint32_t v = 0;
      if (write) {
        std::memcpy(&v, p, 4);
        __atomic_store_n(reinterpret_cast<uint32_t*>(base), v, __ATOMIC_RELEASE);
      } else {
        v = __atomic_load_n(reinterpret_cast<uint32_t*>(base), __ATOMIC_ACQUIRE);
        std::memcpy(p, &v, 4);
      }
    }
    return;
  }
  for (uint64_t i = 0; i < n; ++i) {
    if (write) {
      __atomic_store_n(base + i, p[i], __ATOMIC_RELEASE);
    } else {
      p[i] = __atomic_load_n(base + i, __ATOMIC_ACQUIRE);
    }
  }
}

// pread/pwrite the whole range (short transfers retried).
int FileIo(int fd, uint64_t offset, void* buf, uint64_t n, bool write) {
  auto* p = static_cast<uint8_t*>(buf);
  while (n > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, 1u << 30));
    const ssize_t r = write ? pwrite(fd, p, chunk, static_cast<off_t>(offset))
                            : pread(fd, p, chunk, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return EFAULT;  // beyond the backing file: not memory
    p += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<uint64_t>(r);
  }
  return 0;
}

}  // namespace

int Simulator::GpuRead(int gpu, uint64_t va, void* dst, uint64_t n) {
  return GpuAccess(gpu, va, dst, n, /*write=*/false);
}

int Simulator::GpuWrite(int gpu, uint64_t va, const void* src, uint64_t n) {
  return GpuAccess(gpu, va, const_cast<void*>(src), n, /*write=*/true);
}

int Simulator::GpuAccess(int gpu, uint64_t va, void* buf, uint64_t n, bool write) {
  if (n == 0) return 0;
  uint64_t end = 0;
  if (va == 0 || !hke::CheckedAdd(va, n, &end)) return EFAULT;
  const uint32_t gpu_id = board_.desc.gpus[static_cast<size_t>(gpu)].gpu_id;
  Resolved res;
  for (size_t owner_index = 0; owner_index < gpus_.size(); ++owner_index) {
    const GpuProc& owner = gpus_[owner_index];
    for (const auto& [idx, bo] : owner.bos) {
      (void)idx;
      uint64_t bo_end = 0;
      if (bo.va == 0 || !hke::CheckedAdd(bo.va, bo.size, &bo_end)) continue;
      if (va < bo.va || va >= bo_end) continue;
      // This BO holds the start; it must hold the whole range and be mapped here.
      if (end > bo_end) return EFAULT;
      if (std::find(bo.mapped.begin(), bo.mapped.end(), gpu_id) == bo.mapped.end()) {
        continue;  // another VM's BO at the same VA (each GPU has its own VM)
      }
      const uint64_t delta = va - bo.va;
      if (bo.storage) {
        const int fd = StorageFd(*bo.storage);  // an import of another process: its memfd
        if (fd < 0) return EFAULT;
        res.target = Target::kBacking;
        res.fd = fd;
        if (!hke::CheckedAdd(StorageFileOffset(*bo.storage), delta, &res.address)) return EFAULT;
      } else if (bo.flags & k::kAllocMemUserptr) {
        res.target = Target::kUser;
        if (!hke::CheckedAdd(bo.userptr, delta, &res.address)) return EFAULT;
      } else if ((bo.flags & k::kAllocMemDoorbell) && owner.doorbell_map != nullptr &&
                 end - bo.va <= DoorbellSlice(static_cast<int>(owner_index))) {
        res.target = Target::kDoorbell;
        res.doorbells = owner.doorbell_map;
        res.address = delta;
      } else {
        return EFAULT;  // MMIO BOs are not memory
      }
      break;
    }
    if (res.target != Target::kNone) break;
  }
  if (res.target == Target::kNone) {
    bool svm_hit = false;
    if (SvmGpuAccessLocked(gpu, va, end, write, &svm_hit) != 0) return EFAULT;
    if (svm_hit) {
      res.target = Target::kUser;
      res.address = va;
    }
  }
  if (res.target == Target::kNone && board_.desc.gpus[static_cast<size_t>(gpu)].is_apu &&
      UserRangeOk(va, n)) {
    res.target = Target::kUser;
    res.address = va;
  }
  switch (res.target) {
    case Target::kBacking:
      return FileIo(res.fd, res.address, buf, n, write);
    case Target::kUser: {
      if (!UserRangeOk(res.address, n)) return EFAULT;
      const size_t len = static_cast<size_t>(n);
      const int r = write ? UserWrite(res.address, buf, len) : UserRead(buf, res.address, len);
      return r == 0 ? 0 : EFAULT;
    }
    case Target::kDoorbell:
      DoorbellIo(res.doorbells, res.address, buf, n, write);
      if (write) {
        // A doorbell rung: the engine thread polls now rather than after
        // its idle back-off (StepQueues' next pass sees it anyway).
        {
          std::lock_guard<std::mutex> l(engine_.mu);
          engine_.kick = true;
        }
        engine_.cv.notify_all();
      }
      return 0;
    case Target::kNone:
      break;
  }
  return EFAULT;
}

}  // namespace kfdsim
