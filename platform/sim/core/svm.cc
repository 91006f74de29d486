// kfdsim SVM: the SVM ioctl's attribute store, migrations, GPU retry
// faults with XNACK, the MMU notifier's unmaps, and their SMI records.
//
// Model (the kernel's kfd_svm.c and kfd_migrate.c, as of Linux 6.x):
//  - svm_ holds disjoint page-aligned ranges [start, end). A range keeps
//    its attributes (preferred and prefetch location, per-GPU ACCESS or
//    ACCESS_IN_PLACE, flags, granularity), where its pages are
//    (actual_loc: 0 for system memory, else the gpu_id whose VRAM holds
//    them), which GPUs' page tables map it, and mapped_to_gpu.
//  - SET_ATTR (svm_range_set_attr): the attributes are checked first
//    (unknown type, a location or access gpu_id the process does not have
//    or whose GPU has no SVM support (neither SOC15 nor an APU) -> EINVAL),
//    then the range (svm_range_is_valid: a page outside every host mapping
//    -> EFAULT; a KFD BO mapped to a GPU overlapping it -> EADDRINUSE).
//    Ranges are split at the request's boundaries, the gaps get new
//    ranges with the defaults (ACCESS on every SVM GPU with XNACK on,
//    none otherwise), and every range inside gets the attributes in
//    order (svm_range_apply_attrs: ACCESS sets access and clears
//    in-place, ACCESS_IN_PLACE the reverse, NO_ACCESS clears both;
//    SET/CLR_FLAGS or and clear; granularity is clamped to 0x3F). A range
//    whose attributes already match and that is mapped is left alone
//    (svm_range_is_same_attrs; a PREFETCH_LOC never matches). Then, per
//    range: the prefetch migration (svm_range_best_prefetch_location:
//    the prefetch GPU unless a GPU with access is neither that GPU nor in
//    its xGMI hive, or the GPU is an APP APU, then system memory) and the
//    mapping (validate_and_map: with XNACK off every GPU with ACCESS or
//    ACCESS_IN_PLACE when an access or flags attribute came or the range
//    migrated; with XNACK on the in-place GPUs, the ACCESS GPU holding
//    the pages, and the ACCESS GPUs of a range already mapped or
//    GPU_ALWAYS_MAPPED).
//  - GET_ATTR (svm_range_get_attr): the range first (EFAULT, EADDRINUSE),
//    then the types (ACCESS_IN_PLACE, NO_ACCESS and unknown -> EINVAL).
//    The fold runs over the ranges intersecting the request only (gaps
//    do not count): a location is the common value, UNDEFINED when a
//    range has none or they differ; SET_FLAGS is the AND of the flags,
//    CLR_FLAGS the complement of their OR (all 32 bits); GRANULARITY the
//    minimum; an ACCESS query answers ACCESS when every range gives the
//    GPU access, ACCESS_IN_PLACE when every range gives it in-place
//    access, else NO_ACCESS (an unknown gpu_id -> EINVAL, the attributes
//    before it already written). No range at all: the defaults.
//  - Migrations send MIGRATE_START / MIGRATE_END to the SMI clients of
//    the GPU whose VRAM is involved ("<ns> -<pid> @<page>(<pages>)
//    <from>-><to> <prefetch>:<preferred> <trigger>" / "... <from>-><to>
//    <trigger>"); GPU to GPU goes through system memory (two pairs). A
//    range whose pages are already where they are asked to be sends none.
//  - GPU access (the engines, SvmGpuTouch): a GPU whose page tables map
//    the range reaches the host pages. With XNACK off anything else
//    faults (an APU falls back to its shared page tables). With XNACK on
//    it is a retry fault (svm_range_restore_pages): host memory outside
//    every range gets an unregistered range (the 2 MiB-aligned window
//    around the page, clipped to its VMA and the neighbours);
//    the best restore location decides (preferred location when it is
//    this GPU, system memory, or in its hive; this GPU with ACCESS;
//    where the pages are with ACCESS_IN_PLACE; no access -> the fault is
//    not recovered), PAGE_FAULT_START "<ns> -<pid> @<page>(<gpu_id>)
//    W|R", the granularity-aligned block is migrated (trigger
//    PAGEFAULT_GPU), the GPU maps the range, PAGE_FAULT_END "... M|U".
//  - Host unmaps (svm_range_unmap_from_cpu): a range mapped to a GPU
//    sends UNMAP_FROM_GPU ("<ns> -<pid> @<page>(<pages>) <gpu_id> 2") to
//    each GPU with access; the unmapped part is removed, the rest keeps
//    its attributes and location. The front ends report the unmaps they
//    see (HostUnmapped); SVM and ALLOC calls re-check the ranges they
//    touch against the host mappings (/proc/self/maps) to catch the rest.
//
// Not modelled: VRAM accounting of migrated ranges, eviction, partial
// residency (actual_loc is per range), the 2 MiB split of large new
// ranges, heap/stack detection for unregistered ranges (the kernel
// prefers system memory there), ranges that wrap the 64-bit space (the
// kernel's checks overflow; EINVAL here).
//
// Threading: everything under proc_mu_; SMI records are sent with
// SmiEmit (smi_mu_, taken after proc_mu_).
#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

namespace {

using Mappings = std::vector<std::pair<uint64_t, uint64_t>>;

// Appends the parts of [start, end) outside every mapping to `out`.
void UnmappedRuns(const Mappings& maps, uint64_t start, uint64_t end,
                  std::vector<std::pair<uint64_t, uint64_t>>* out) {
  uint64_t cursor = start;
  for (const auto& [lo, hi] : maps) {
    if (cursor >= end) break;
    if (hi <= cursor) continue;
    if (lo > cursor) out->emplace_back(cursor, std::min(lo, end));
    cursor = std::max(cursor, hi);
  }
  if (cursor < end) out->emplace_back(cursor, end);
}

bool Has(const std::vector<uint32_t>& v, uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

void Add(std::vector<uint32_t>* v, uint32_t x) {
  if (!Has(*v, x)) v->push_back(x);
}

}  // namespace

bool Simulator::SvmSupported(int gpu) const {
  return IsSoc15(gpu) || board_.desc.gpus[static_cast<size_t>(gpu)].is_apu;
}

bool Simulator::SvmOverlaps(uint64_t start, uint64_t size) const {
  if (size == 0) return false;
  const uint64_t end = start + size;
  auto it = svm_.upper_bound(start);
  if (it != svm_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > start) return true;
  }
  return it != svm_.end() && it->first < end;
}

Simulator::SvmMap::iterator Simulator::SvmFind(uint64_t addr) {
  auto it = svm_.upper_bound(addr);
  if (it == svm_.begin()) return svm_.end();
  --it;
  return addr < it->second.end ? it : svm_.end();
}

Simulator::SvmMap::iterator Simulator::SvmSplit(uint64_t at) {
  auto it = SvmFind(at);
  if (it == svm_.end()) return svm_.lower_bound(at);
  if (it->first == at) return it;
  SvmRange tail = it->second;
  it->second.end = at;
  return svm_.emplace(at, std::move(tail)).first;
}

Simulator::SvmRange Simulator::SvmDefaults() const {
  SvmRange r;
  if (xnack_enabled_) {
    for (size_t g = 0; g < board_.desc.gpus.size(); ++g) {
      if (SvmSupported(static_cast<int>(g))) r.access[board_.desc.gpus[g].gpu_id] = k::kSvmAttrAccess;
    }
  }
  return r;
}

int Simulator::SvmRangeValid(uint64_t start, uint64_t end) const {
  if (!HostRangeMapped(start, end - start)) return EFAULT;
  // svm_range_check_vm: a BO mapped in a GPU VM there.
  for (const GpuProc& g : gpus_) {
    for (const auto& [idx, bo] : g.bos) {
      (void)idx;
      if (bo.va == 0 || bo.mapped.empty() || bo.size == 0) continue;
      const uint64_t bo_end = bo.va + AlignUp(bo.size, page_size_);
      if (bo_end > bo.va && bo.va < end && start < bo_end) return EADDRINUSE;
    }
  }
  return 0;
}

void Simulator::SvmSendLocked(uint32_t gpu_id, uint32_t event, const std::string& fields) {
  (void)SmiEmit(gpu_id, event, fields);
}

bool Simulator::SvmSameHive(uint32_t a, uint32_t b) const {
  if (a == b) return true;
  const int ga = GpuIndex(a), gb = GpuIndex(b);
  if (ga < 0 || gb < 0) return false;
  const GpuDesc& da = board_.desc.gpus[static_cast<size_t>(ga)];
  const GpuDesc& db = board_.desc.gpus[static_cast<size_t>(gb)];
  return da.hive_id != 0 && da.hive_id == db.hive_id;
}

// Sends the records of moving pages [start, end) of `r` to `to` (0: system
// memory) and sets the range's location.
void Simulator::SvmMigrateLocked(SvmRange& r, uint64_t start, uint64_t end, uint32_t to,
                                 uint32_t trigger) {
  const uint32_t from = r.actual_loc;
  if (from == to) return;
  const uint64_t first = start / page_size_, pages = (end - start) / page_size_;
  const int pid = SelfPid();
  auto step = [&](uint32_t src, uint32_t dst) {
    const uint32_t node = dst != 0 ? dst : src;  // the GPU whose VRAM is involved
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%llu -%d @%llx(%llx) %x->%x %x:%x %d",
                  static_cast<unsigned long long>(BoottimeNs()), pid,
                  static_cast<unsigned long long>(first), static_cast<unsigned long long>(pages), src,
                  dst, r.prefetch, r.preferred, static_cast<int>(trigger));
    SvmSendLocked(node, k::kSmiEventMigrateStart, buf);
    std::snprintf(buf, sizeof(buf), "%llu -%d @%llx(%llx) %x->%x %d",
                  static_cast<unsigned long long>(BoottimeNs()), pid,
                  static_cast<unsigned long long>(first), static_cast<unsigned long long>(pages), src,
                  dst, static_cast<int>(trigger));
    SvmSendLocked(node, k::kSmiEventMigrateEnd, buf);
  };
  if (from != 0) step(from, 0);
  if (to != 0) step(0, to);
  r.actual_loc = to;
}

uint32_t Simulator::SvmBestPrefetch(const SvmRange& r) const {
  const uint32_t best = r.prefetch;
  if (best == k::kSvmLocationSysmem || best == k::kSvmLocationUndefined) return best;
  const int bo_gpu = GpuIndex(best);
  if (bo_gpu < 0) return k::kSvmLocationSysmem;
  const GpuDesc& d = board_.desc.gpus[static_cast<size_t>(bo_gpu)];
  if (d.is_apu && d.gfx_target_version >= 90400) return k::kSvmLocationSysmem;  // APP APU
  for (const auto& [gpu_id, type] : r.access) {
    if (xnack_enabled_ && type != k::kSvmAttrAccessInPlace) continue;
    if (!SvmSameHive(gpu_id, best)) return k::kSvmLocationSysmem;
  }
  return best;
}

void Simulator::SvmUnmapLocked(uint64_t start, uint64_t end) {
  if (start >= end) return;
  const int pid = SelfPid();
  auto it = svm_.upper_bound(start);
  if (it != svm_.begin() && std::prev(it)->second.end > start) --it;
  std::vector<uint64_t> starts;
  for (; it != svm_.end() && it->first < end; ++it) starts.push_back(it->first);
  for (uint64_t rs : starts) {
    SvmRange& r = svm_[rs];
    const uint64_t s = std::max(start, rs), e = std::min(end, r.end);
    if (r.mapped_to_gpu) {
      for (const auto& [gpu_id, type] : r.access) {
        (void)type;
        char buf[128];
        std::snprintf(buf, sizeof(buf), "%llu -%d @%llx(%llx) %x %d",
                      static_cast<unsigned long long>(BoottimeNs()), pid,
                      static_cast<unsigned long long>(s / page_size_),
                      static_cast<unsigned long long>((e - s) / page_size_), gpu_id,
                      static_cast<int>(k::kSvmUnmapTriggerUnmapFromCpu));
        SvmSendLocked(gpu_id, k::kSmiEventUnmapFromGpu, buf);
      }
    }
    // Keep the head and the tail; drop the unmapped part.
    const SvmRange whole = r;
    svm_.erase(rs);
    if (rs < s) {
      SvmRange head = whole;
      head.end = s;
      svm_.emplace(rs, std::move(head));
    }
    if (e < whole.end) {
      SvmRange tail = whole;
      svm_.emplace(e, std::move(tail));
    }
  }
}

void Simulator::SvmPruneLocked(uint64_t start, uint64_t end) {
  auto it = svm_.upper_bound(start);
  if (it != svm_.begin() && std::prev(it)->second.end > start) --it;
  if (it == svm_.end() || it->first >= end) return;  // nothing to check: no maps read
  Mappings maps;
  if (!ReadHostMappings(&maps)) return;  // cannot tell: keep the ranges
  std::vector<std::pair<uint64_t, uint64_t>> gone;
  for (; it != svm_.end() && it->first < end; ++it) {
    UnmappedRuns(maps, it->first, it->second.end, &gone);
  }
  for (const auto& [s, e] : gone) SvmUnmapLocked(s, e);
}

namespace {
// Set on the simulator's own threads (the engine thread): the mappings
// their allocations make or drop are never SVM memory, and such a thread
// may hold proc_mu_ when malloc reaches an interposed mmap/munmap.
// Initial-exec TLS, as util.cc's t_stack.
__attribute__((tls_model("initial-exec"))) thread_local bool t_internal_thread = false;
}  // namespace

void MarkInternalThread() { t_internal_thread = true; }

void Simulator::HostUnmapped(uint64_t addr, uint64_t length) {
  if (length == 0 || t_internal_thread) return;
  const uint64_t start = addr & ~(static_cast<uint64_t>(page_size_) - 1);
  uint64_t end = AlignUp(addr + length, page_size_);
  if (end < start) end = ~static_cast<uint64_t>(page_size_ - 1);
  std::lock_guard<std::mutex> pl(proc_mu_);
  SvmUnmapLocked(start, end);
}

Simulator::SvmMap::iterator Simulator::SvmCreateUnregisteredLocked(uint64_t va) {
  const uint64_t page = va & ~(static_cast<uint64_t>(page_size_) - 1);
  if (!UserRangeOk(page, page_size_)) return svm_.end();
  // svm_range_get_range_boundaries: the VMA holding the page, clipped to
  // the 2 MiB-aligned window around it and to the neighbouring ranges.
  Mappings maps;
  if (!ReadHostMappings(&maps)) return svm_.end();
  auto vma = std::find_if(maps.begin(), maps.end(),
                          [page](const std::pair<uint64_t, uint64_t>& m) {
                            return m.first <= page && page < m.second;
                          });
  if (vma == maps.end()) return svm_.end();  // not host memory
  const uint64_t window = uint64_t{512} * page_size_;  // 2 MiB of 4 KiB pages
  uint64_t lo = std::max(vma->first, page & ~(window - 1));
  uint64_t hi = std::min(vma->second, (page & ~(window - 1)) + window);
  auto next = svm_.upper_bound(page);
  if (next != svm_.end()) hi = std::min(hi, next->first);
  if (next != svm_.begin()) lo = std::max(lo, std::prev(next)->second.end);
  SvmRange r = SvmDefaults();
  r.end = hi;
  return svm_.emplace(lo, std::move(r)).first;
}

int Simulator::SvmRestoreLocked(int gpu, SvmMap::iterator it, uint64_t va, bool write) {
  SvmRange& r = it->second;
  const GpuDesc& d = board_.desc.gpus[static_cast<size_t>(gpu)];
  const uint32_t gpu_id = d.gpu_id;
  // svm_range_best_restore_location
  int64_t best = -1;
  auto acc = r.access.find(gpu_id);
  if (d.is_apu && d.gfx_target_version >= 90400) {
    best = 0;
  } else if (r.preferred == gpu_id || r.preferred == k::kSvmLocationSysmem) {
    best = r.preferred;
  } else if (r.preferred != k::kSvmLocationUndefined && SvmSameHive(gpu_id, r.preferred)) {
    best = r.preferred;
  } else if (acc != r.access.end() && acc->second == k::kSvmAttrAccess) {
    best = gpu_id;
  } else if (acc != r.access.end() && acc->second == k::kSvmAttrAccessInPlace) {
    best = (r.actual_loc != 0 && SvmSameHive(gpu_id, r.actual_loc)) ? r.actual_loc : 0;
  }
  if (best < 0) return EFAULT;  // no access: the fault is not recovered
  const int pid = SelfPid();
  const uint64_t page = va / page_size_;
  char buf[128];
  std::snprintf(buf, sizeof(buf), "%llu -%d @%llx(%x) %c",
                static_cast<unsigned long long>(BoottimeNs()), pid,
                static_cast<unsigned long long>(page), gpu_id, write ? 'W' : 'R');
  SvmSendLocked(gpu_id, k::kSmiEventPageFaultStart, buf);
  const bool migration = r.actual_loc != 0 || best != 0;
  if (migration) {
    const uint64_t block = (uint64_t{1} << r.granularity) * page_size_;
    const uint64_t s = std::max(va / block * block, it->first);
    const uint64_t e = std::min(va / block * block + block, r.end);
    SvmMigrateLocked(r, s, e, static_cast<uint32_t>(best), k::kMigrateTriggerPagefaultGpu);
  }
  Add(&r.mapped_on, gpu_id);
  r.mapped_to_gpu = true;
  std::snprintf(buf, sizeof(buf), "%llu -%d @%llx(%x) %c",
                static_cast<unsigned long long>(BoottimeNs()), pid,
                static_cast<unsigned long long>(page), gpu_id, migration ? 'M' : 'U');
  SvmSendLocked(gpu_id, k::kSmiEventPageFaultEnd, buf);
  return 0;
}

int Simulator::SvmGpuAccessLocked(int gpu, uint64_t va, uint64_t end, bool write, bool* hit) {
  *hit = false;
  const GpuDesc& d = board_.desc.gpus[static_cast<size_t>(gpu)];
  uint64_t cursor = va;
  bool any = false;
  while (cursor < end) {
    auto it = SvmFind(cursor);
    if (it == svm_.end()) {
      if (!xnack_enabled_) return any ? EFAULT : 0;
      it = SvmCreateUnregisteredLocked(cursor);
      if (it == svm_.end()) return any ? EFAULT : 0;
    }
    if (!Has(it->second.mapped_on, d.gpu_id)) {
      if (!xnack_enabled_) return (d.is_apu && !any) ? 0 : EFAULT;
      if (SvmRestoreLocked(gpu, it, cursor, write) != 0) return EFAULT;
    }
    any = true;
    cursor = it->second.end;
  }
  *hit = true;
  return 0;
}

int Simulator::SvmGpuTouch(uint32_t gpu_id, uint64_t va, uint64_t size, bool write) {
  std::lock_guard<std::mutex> pl(proc_mu_);
  const int gpu = GpuIndex(gpu_id);
  if (gpu < 0) return EINVAL;
  if (size == 0 || va + size < va) return EFAULT;
  bool hit = false;
  if (int r = SvmGpuAccessLocked(gpu, va, va + size, write, &hit)) return r;
  return hit ? 0 : ENOENT;
}

int Simulator::SvmRangeAt(uint64_t addr, SvmRangeInfo* out) {
  if (out == nullptr) return EINVAL;
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto it = SvmFind(addr);
  if (it == svm_.end()) return ENOENT;
  out->start = it->first;
  out->end = it->second.end;
  out->actual_loc = it->second.actual_loc;
  out->mapped_to_gpu = it->second.mapped_to_gpu;
  out->mapped_gpus = static_cast<uint32_t>(it->second.mapped_on.size());
  return 0;
}

namespace {

// svm_range_is_same_attrs (a prefetch never matches: it always migrates).
template <typename Range>
bool SameAttrs(const Range& r, const k::SvmAttribute* attrs, uint32_t nattr) {
  for (uint32_t i = 0; i < nattr; ++i) {
    const uint32_t t = attrs[i].type, v = attrs[i].value;
    auto acc = r.access.find(v);
    switch (t) {
      case k::kSvmAttrPreferredLoc:
        if (r.preferred != v) return false;
        break;
      case k::kSvmAttrPrefetchLoc: return false;
      case k::kSvmAttrAccess:
      case k::kSvmAttrAccessInPlace:
        if (acc == r.access.end() || acc->second != t) return false;
        break;
      case k::kSvmAttrNoAccess:
        if (acc != r.access.end()) return false;
        break;
      case k::kSvmAttrSetFlags:
        if ((r.flags & v) != v) return false;
        break;
      case k::kSvmAttrClrFlags:
        if ((r.flags & v) != 0) return false;
        break;
      case k::kSvmAttrGranularity:
        if (r.granularity != v) return false;
        break;
      default: break;
    }
  }
  return true;
}

}  // namespace

int Simulator::IocSvm(IoctlCtx& c, void* d) {
  auto* a = static_cast<k::SvmArgs*>(d);
  if (IsSecondary()) return EOPNOTSUPP;  // SVM is the primary process's
  const uint64_t need = sizeof(k::SvmArgs) + uint64_t{a->nattr} * sizeof(k::SvmAttribute);
  if (need > std::max<uint64_t>(c.user_size, sizeof(k::SvmArgs))) return EINVAL;
  // kfd_ioctl_svm
  if ((a->start_addr & (page_size_ - 1)) != 0 || (a->size & (page_size_ - 1)) != 0) return EINVAL;
  if (a->start_addr == 0 || a->size == 0 || a->start_addr + a->size < a->start_addr) return EINVAL;
  if (a->op != k::kSvmOpSetAttr && a->op != k::kSvmOpGetAttr) return EINVAL;
  auto* attrs = reinterpret_cast<k::SvmAttribute*>(static_cast<uint8_t*>(d) + sizeof(k::SvmArgs));
  const uint32_t nattr = a->nattr;
  const uint64_t start = a->start_addr, end = a->start_addr + a->size;
  std::lock_guard<std::mutex> pl(proc_mu_);
  auto svm_gpu = [this](uint32_t v) {
    const int g = GpuIndex(v);
    return g >= 0 && SvmSupported(g);
  };
  if (a->op == k::kSvmOpSetAttr) {
    // svm_range_check_attr
    for (uint32_t i = 0; i < nattr; ++i) {
      const uint32_t t = attrs[i].type, v = attrs[i].value;
      switch (t) {
        case k::kSvmAttrPreferredLoc:
          if (v != k::kSvmLocationSysmem && v != k::kSvmLocationUndefined && !svm_gpu(v)) return EINVAL;
          break;
        case k::kSvmAttrPrefetchLoc:
          if (v != k::kSvmLocationSysmem && !svm_gpu(v)) return EINVAL;
          break;
        case k::kSvmAttrAccess:
        case k::kSvmAttrAccessInPlace:
        case k::kSvmAttrNoAccess:
          if (!svm_gpu(v)) return EINVAL;
          break;
        case k::kSvmAttrSetFlags:
        case k::kSvmAttrClrFlags:
        case k::kSvmAttrGranularity:
          break;
        default:
          return EINVAL;
      }
    }
  }
  // Host unmaps nobody reported, then svm_range_is_valid.
  SvmPruneLocked(0, ~uint64_t{0});
  if (int r = SvmRangeValid(start, end)) return r;
  if (a->op == k::kSvmOpSetAttr) {
    // svm_range_add: split at the boundaries, fill the gaps.
    SvmSplit(start);
    SvmSplit(end);
    uint64_t cursor = start;
    for (auto it = svm_.lower_bound(start); cursor < end;) {
      const uint64_t next = (it == svm_.end() || it->first >= end) ? end : it->first;
      if (cursor < next) {
        SvmRange r = SvmDefaults();
        r.end = next;
        svm_.emplace(cursor, std::move(r));
      }
      if (it == svm_.end() || it->first >= end) break;
      cursor = it->second.end;
      ++it;
    }
    bool update_mapping = false;
    for (uint32_t i = 0; i < nattr; ++i) {
      const uint32_t t = attrs[i].type;
      if (t == k::kSvmAttrSetFlags || t == k::kSvmAttrClrFlags) update_mapping = true;
      if (!xnack_enabled_ && (t == k::kSvmAttrAccess || t == k::kSvmAttrAccessInPlace ||
                              t == k::kSvmAttrNoAccess)) {
        update_mapping = true;
      }
    }
    for (auto it = svm_.lower_bound(start); it != svm_.end() && it->first < end; ++it) {
      SvmRange& r = it->second;
      if (r.mapped_to_gpu && SameAttrs(r, attrs, nattr)) continue;
      // svm_range_apply_attrs
      for (uint32_t i = 0; i < nattr; ++i) {
        const uint32_t t = attrs[i].type, v = attrs[i].value;
        switch (t) {
          case k::kSvmAttrPreferredLoc: r.preferred = v; break;
          case k::kSvmAttrPrefetchLoc: r.prefetch = v; break;
          case k::kSvmAttrAccess:
          case k::kSvmAttrAccessInPlace: r.access[v] = t; break;
          case k::kSvmAttrNoAccess: r.access.erase(v); break;
          case k::kSvmAttrSetFlags: r.flags |= v; break;
          case k::kSvmAttrClrFlags: r.flags &= ~v; break;
          case k::kSvmAttrGranularity: r.granularity = std::min(v, 0x3Fu); break;
          default: break;
        }
      }
      // svm_range_trigger_migration
      const uint32_t best = SvmBestPrefetch(r);
      bool migrated = false;
      if (best != k::kSvmLocationUndefined && !(best == 0 && r.actual_loc == 0)) {
        SvmMigrateLocked(r, it->first, r.end, best, k::kMigrateTriggerPrefetch);
        migrated = true;
      }
      if (migrated && (!xnack_enabled_ || (r.flags & k::kSvmFlagGpuAlwaysMapped)) && r.mapped_to_gpu) {
        continue;  // the restore work remaps it where it is mapped
      }
      if (!migrated && !update_mapping) continue;
      // svm_range_validate_and_map: the GPUs it maps the range on.
      std::vector<uint32_t> gpus;
      for (const auto& [gpu_id, type] : r.access) {
        if (!xnack_enabled_ || type == k::kSvmAttrAccessInPlace) gpus.push_back(gpu_id);
      }
      if (xnack_enabled_) {
        auto acc = r.access.find(r.actual_loc);
        if (r.actual_loc != 0 && acc != r.access.end() && acc->second == k::kSvmAttrAccess) {
          Add(&gpus, r.actual_loc);
        }
        if (gpus.empty() && (r.mapped_to_gpu || (r.flags & k::kSvmFlagGpuAlwaysMapped))) {
          for (const auto& [gpu_id, type] : r.access) {
            if (type == k::kSvmAttrAccess) gpus.push_back(gpu_id);
          }
        }
      }
      for (uint32_t g : gpus) Add(&r.mapped_on, g);
      if (!gpus.empty()) r.mapped_to_gpu = true;
    }
    return 0;
  }
  // GET: the types, then the fold over the ranges intersecting the request.
  bool want_pref = false, want_prefetch = false, want_access = false, want_flags = false,
       want_gran = false;
  for (uint32_t i = 0; i < nattr; ++i) {
    switch (attrs[i].type) {
      case k::kSvmAttrPreferredLoc: want_pref = true; break;
      case k::kSvmAttrPrefetchLoc: want_prefetch = true; break;
      case k::kSvmAttrAccess: want_access = true; break;
      case k::kSvmAttrSetFlags:
      case k::kSvmAttrClrFlags: want_flags = true; break;
      case k::kSvmAttrGranularity: want_gran = true; break;
      default: return EINVAL;
    }
  }
  (void)want_access;
  uint32_t location = k::kSvmLocationUndefined, prefetch = k::kSvmLocationUndefined;
  uint32_t flags_and = 0xFFFFFFFFu, flags_or = 0, granularity = 0xFF;
  std::map<uint32_t, uint32_t> access;  // gpu_id -> the common type (absent: no access)
  auto it = svm_.upper_bound(start);
  if (it != svm_.begin() && std::prev(it)->second.end > start) --it;
  if (it == svm_.end() || it->first >= end) {
    const SvmRange def = SvmDefaults();
    flags_and = flags_or = def.flags;
    granularity = def.granularity;
    for (const auto& [gpu_id, type] : def.access) {
      if (type == k::kSvmAttrAccess) access[gpu_id] = type;
    }
  } else {
    bool first = true;
    for (; it != svm_.end() && it->first < end; ++it) {
      const SvmRange& r = it->second;
      if (want_pref) {
        if (r.preferred == k::kSvmLocationUndefined ||
            (location != k::kSvmLocationUndefined && location != r.preferred)) {
          location = k::kSvmLocationUndefined;
          want_pref = false;
        } else {
          location = r.preferred;
        }
      }
      if (want_prefetch) {
        if (r.prefetch == k::kSvmLocationUndefined ||
            (prefetch != k::kSvmLocationUndefined && prefetch != r.prefetch)) {
          prefetch = k::kSvmLocationUndefined;
          want_prefetch = false;
        } else {
          prefetch = r.prefetch;
        }
      }
      if (first) {
        access = r.access;
      } else {
        for (auto x = access.begin(); x != access.end();) {
          auto y = r.access.find(x->first);
          if (y == r.access.end() || y->second != x->second) {
            x = access.erase(x);
          } else {
            ++x;
          }
        }
      }
      if (want_flags) {
        flags_and &= r.flags;
        flags_or |= r.flags;
      }
      if (want_gran) granularity = std::min(granularity, r.granularity);
      first = false;
    }
  }
  for (uint32_t i = 0; i < nattr; ++i) {
    k::SvmAttribute& at = attrs[i];
    switch (at.type) {
      case k::kSvmAttrPreferredLoc: at.value = location; break;
      case k::kSvmAttrPrefetchLoc: at.value = prefetch; break;
      case k::kSvmAttrAccess: {
        if (GpuIndex(at.value) < 0) return EINVAL;
        auto x = access.find(at.value);
        at.type = x == access.end() ? k::kSvmAttrNoAccess : x->second;
        break;
      }
      case k::kSvmAttrSetFlags: at.value = flags_and; break;
      case k::kSvmAttrClrFlags: at.value = ~flags_or; break;
      case k::kSvmAttrGranularity: at.value = granularity; break;
      default: break;
    }
  }
  return 0;
}


}  // namespace kfdsim
