// C ABI of kfdsim (sim.h) over kfdsim::Simulator. Board loading lives in
// sim_create.cc so that this file does not depend on the topology loaders.
//
// Threading: as thread-safe as the Simulator; the handle itself is
// immutable between kfdsim_create/WrapBoard and kfdsim_destroy.
#include "platform/sim/sim.h"

#include <errno.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "platform/sim/core/iommu_pmu.h"
#include "platform/sim/core/mem_policy.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

static_assert(KFDSIM_IOMMU_PMU_TYPE == kfdsim::IommuPmu::kPerfType, "one perf type");
static_assert(KFDSIM_MPOL_DEFAULT == kfdsim::MemPolicies::kDefault &&
                  KFDSIM_MPOL_PREFERRED == kfdsim::MemPolicies::kPreferred &&
                  KFDSIM_MPOL_BIND == kfdsim::MemPolicies::kBind,
              "one set of policy modes");

namespace {

size_t HostPageSize() {
  const long ps = sysconf(_SC_PAGESIZE);
  return ps > 0 ? static_cast<size_t>(ps) : 4096;
}

}  // namespace

struct kfdsim_handle {
  kfdsim::Simulator sim;
  kfdsim::IommuPmu pmu;
  kfdsim::MemPolicies policies;
  explicit kfdsim_handle(kfdsim::Board board)
      : sim(std::move(board)), policies(sim.desc().numa_nodes, HostPageSize()) {}
};

namespace kfdsim {

kfdsim_t* WrapBoard(Board board) { return new (std::nothrow) kfdsim_handle(std::move(board)); }

Simulator* Unwrap(kfdsim_t* sim) { return sim == nullptr ? nullptr : &sim->sim; }

}  // namespace kfdsim

extern "C" {

void kfdsim_destroy(kfdsim_t* sim) { delete sim; }

int kfdsim_owns_path(kfdsim_t* sim, const char* path) {
  return sim != nullptr && path != nullptr && sim->sim.OwnsPath(path) ? 1 : 0;
}

int kfdsim_open(kfdsim_t* sim, const char* path, int flags, int* out_fd) {
  if (sim == nullptr) return EINVAL;
  return sim->sim.Open(path, flags, out_fd);
}

int kfdsim_close(kfdsim_t* sim, int fd) { return sim == nullptr ? EINVAL : sim->sim.Close(fd); }

int kfdsim_owns_fd(kfdsim_t* sim, int fd) { return sim != nullptr && sim->sim.OwnsFd(fd) ? 1 : 0; }

int kfdsim_ioctl(kfdsim_t* sim, int fd, unsigned long request, void* arg) {
  return sim == nullptr ? EINVAL : sim->sim.Ioctl(fd, request, arg);
}

int kfdsim_ioctl_owned(kfdsim_t* sim, int fd, unsigned long request, void* arg, int* owned) {
  if (owned == nullptr) return EINVAL;
  *owned = 0;
  if (sim == nullptr) return EINVAL;
  bool mine = false;
  const int r = sim->sim.IoctlIfOwned(fd, request, arg, &mine);
  *owned = mine ? 1 : 0;
  return r;
}

int kfdsim_pid(void) { return kfdsim::SelfPid(); }

int kfdsim_mmap_owned(kfdsim_t* sim, void* addr, size_t length, int prot, int flags, int fd,
                      uint64_t offset, void** out_addr, int* owned) {
  if (owned == nullptr) return EINVAL;
  *owned = 0;
  if (sim == nullptr) return EINVAL;
  bool mine = false;
  const int r = sim->sim.MmapIfOwned(addr, length, prot, flags, fd, offset, out_addr, &mine);
  *owned = mine ? 1 : 0;
  return r;
}

int kfdsim_mmap(kfdsim_t* sim, void* addr, size_t length, int prot, int flags, int fd,
                uint64_t offset, void** out_addr) {
  return sim == nullptr ? EINVAL : sim->sim.Mmap(addr, length, prot, flags, fd, offset, out_addr);
}

int kfdsim_munmap(kfdsim_t* sim, void* addr, size_t length) {
  return sim == nullptr ? EINVAL : sim->sim.Munmap(addr, length);
}

int kfdsim_file_kind(kfdsim_t* sim, const char* path, uint32_t* out_kind) {
  if (sim == nullptr || path == nullptr || out_kind == nullptr) return EINVAL;
  if (sim->sim.files() == nullptr) return ENOENT;
  kfdsim::FileKind kind = kfdsim::FileKind::kNone;
  const int r = sim->sim.files()->Kind(path, &kind);
  if (r == 0) *out_kind = static_cast<uint32_t>(kind);
  return r;
}

int kfdsim_read_file(kfdsim_t* sim, const char* path, char* buf, size_t capacity,
                     size_t* out_length) {
  if (sim == nullptr || path == nullptr || out_length == nullptr) return EINVAL;
  if (sim->sim.files() == nullptr) return ENOENT;
  std::string data;
  const int r = sim->sim.files()->Read(path, &data);
  if (r != 0) return r;
  const size_t n = data.size() < capacity ? data.size() : capacity;
  if (n != 0 && buf != nullptr) std::memcpy(buf, data.data(), n);
  *out_length = data.size();
  return data.size() > capacity ? EFBIG : 0;
}

int kfdsim_list_dir(kfdsim_t* sim, const char* path, kfdsim_dirent_fn fn, void* user) {
  if (sim == nullptr || path == nullptr || fn == nullptr) return EINVAL;
  if (sim->sim.files() == nullptr) return ENOENT;
  std::vector<kfdsim::DirEntry> entries;
  const int r = sim->sim.files()->List(path, &entries);
  if (r != 0) return r;
  for (const kfdsim::DirEntry& e : entries) {
    if (fn(user, e.name.c_str(), static_cast<uint32_t>(e.kind)) != 0) break;
  }
  return 0;
}

int kfdsim_device_number(kfdsim_t* sim, int fd, const char* path, uint32_t* out_major,
                         uint32_t* out_minor) {
  if (sim == nullptr || out_major == nullptr || out_minor == nullptr) return EINVAL;
  return sim->sim.DeviceNumber(fd, path, out_major, out_minor);
}

int kfdsim_drm_sysfs(kfdsim_t* sim, kfdsim_sysfs_fn fn, void* user) {
  if (sim == nullptr || fn == nullptr) return EINVAL;
  sim->sim.DrmSysfs(fn, user);
  return 0;
}

uint32_t kfdsim_cpu_count(kfdsim_t* sim) { return sim == nullptr ? 0 : sim->sim.desc().cpu_count; }

void kfdsim_set_trace(kfdsim_t* sim, kfdsim_trace_fn fn, void* user) {
  if (sim != nullptr) sim->sim.SetTraceSink(fn, user);
}

void kfdsim_add_fault(kfdsim_t* sim, uint32_t request_key, int error, uint32_t nth,
                      uint32_t count) {
  if (sim != nullptr) sim->sim.AddFault(request_key, error, nth, count);
}

void kfdsim_clear_faults(kfdsim_t* sim) {
  if (sim != nullptr) sim->sim.ClearFaults();
}

void kfdsim_set_tamper(kfdsim_t* sim, kfdsim_tamper_fn fn, void* user) {
  if (sim != nullptr) sim->sim.SetReplyTamper(fn, user);
}

int kfdsim_inject_memory_exception(kfdsim_t* sim, uint32_t gpu_id, uint64_t va,
                                   uint32_t failure_flags, uint32_t error_type) {
  if (sim == nullptr) return EINVAL;
  hke::kfd::MemoryExceptionFailure f{};
  f.NotPresent = failure_flags & 1u;
  f.ReadOnly = (failure_flags >> 1) & 1u;
  f.NoExecute = (failure_flags >> 2) & 1u;
  f.imprecise = (failure_flags >> 3) & 1u;
  return sim->sim.InjectMemoryException(gpu_id, va, f, error_type);
}

int kfdsim_smi_emit(kfdsim_t* sim, uint32_t gpu_id, uint32_t event, const char* fields) {
  if (sim == nullptr || fields == nullptr) return -EINVAL;
  return sim->sim.SmiEmit(gpu_id, event, fields);
}

int kfdsim_inject_hw_exception(kfdsim_t* sim, uint32_t gpu_id, uint32_t reset_type,
                               uint32_t reset_cause, uint32_t memory_lost) {
  if (sim == nullptr) return EINVAL;
  return sim->sim.InjectHwException(gpu_id, reset_type, reset_cause, memory_lost);
}

uint32_t kfdsim_signal_interrupt(kfdsim_t* sim) {
  return sim == nullptr ? 0 : sim->sim.SignalInterrupt();
}

void kfdsim_reset_process(kfdsim_t* sim) {
  if (sim == nullptr) return;
  sim->sim.StopEngineThread();
  sim->sim.ResetProcess();
  // A fork child has none of the parent's DONTFORK mappings, which are
  // the ones the library binds.
  sim->policies.Clear();
}

uint32_t kfdsim_secondary_count(kfdsim_t* sim) {
  if (sim == nullptr) return 0;
  return static_cast<uint32_t>(sim->sim.SecondaryCount());
}

int kfdsim_process_stats_get(kfdsim_t* sim, kfdsim_process_stats* out) {
  if (sim == nullptr || out == nullptr || out->struct_size < sizeof(kfdsim_process_stats)) {
    return EINVAL;
  }
  const kfdsim::Simulator::ProcessStats st = sim->sim.Stats();
  out->bos = st.bos;
  out->event_page_bos = st.event_page_bos;
  out->gpu_mappings = st.gpu_mappings;
  out->queues = st.queues;
  out->events = st.events;
  out->svm_ranges = st.svm_ranges;
  out->kfd_fds = st.kfd_fds;
  out->render_fds = st.render_fds;
  out->gem_objects = st.gem_objects;
  return 0;
}

void kfdsim_host_unmapped(kfdsim_t* sim, const void* addr, size_t length) {
  if (sim != nullptr) sim->sim.HostUnmapped(reinterpret_cast<uintptr_t>(addr), length);
}

int kfdsim_svm_range(kfdsim_t* sim, uint64_t addr, kfdsim_svm_range_info* out) {
  if (sim == nullptr || out == nullptr || out->struct_size < sizeof(kfdsim_svm_range_info)) {
    return EINVAL;
  }
  kfdsim::Simulator::SvmRangeInfo info;
  const int r = sim->sim.SvmRangeAt(addr, &info);
  if (r != 0) return r;
  out->actual_loc = info.actual_loc;
  out->start = info.start;
  out->end = info.end;
  out->mapped_to_gpu = info.mapped_to_gpu ? 1u : 0u;
  out->mapped_gpus = info.mapped_gpus;
  return 0;
}

int kfdsim_svm_gpu_touch(kfdsim_t* sim, uint32_t gpu_id, uint64_t va, uint64_t size, int write) {
  return sim == nullptr ? EINVAL : sim->sim.SvmGpuTouch(gpu_id, va, size, write != 0);
}

int kfdsim_set_engine_mode(kfdsim_t* sim, uint32_t mode) {
  if (sim == nullptr || mode > KFDSIM_ENGINES_MANUAL) return EINVAL;
  sim->sim.SetEngineMode(mode == KFDSIM_ENGINES_MANUAL ? kfdsim::Simulator::EngineMode::kManual
                                                       : kfdsim::Simulator::EngineMode::kThread);
  return 0;
}

int kfdsim_step_queues(kfdsim_t* sim, uint64_t* packets_done) {
  if (sim == nullptr) return EINVAL;
  const uint64_t n = sim->sim.StepQueues();
  if (packets_done != nullptr) *packets_done += n;
  return 0;
}

int kfdsim_shader_instructions(kfdsim_t* sim, uint64_t* instructions) {
  if (sim == nullptr || instructions == nullptr) return EINVAL;
  *instructions = sim->sim.ShaderInstructions();
  return 0;
}

int kfdsim_queue_status(kfdsim_t* sim, uint32_t queue_id, kfdsim_queue_info* info, char* reason,
                        size_t reason_len) {
  if (sim == nullptr) return EINVAL;
  if (info != nullptr && info->struct_size < sizeof(kfdsim_queue_info)) return EINVAL;
  kfdsim::Simulator::QueueStatus st;
  if (int r = sim->sim.GetQueueStatus(queue_id, &st)) return r;
  if (info != nullptr) {
    info->state = st.state;
    info->exception_code = st.exception_code;
    info->reserved = 0;
    info->exception_mask = hke::kfd::EcMask(st.exception_code);
    info->read_index = st.read_index;
    info->packets_done = st.packets_done;
    info->fault_va = st.fault_va;
  }
  if (reason != nullptr && reason_len != 0) {
    const size_t n = st.reason.size() < reason_len - 1 ? st.reason.size() : reason_len - 1;
    std::memcpy(reason, st.reason.data(), n);
    reason[n] = '\0';
  }
  return 0;
}

int kfdsim_iommu_pmu_configure(kfdsim_t* sim, uint32_t max_concurrent) {
  if (sim == nullptr) return EINVAL;
  sim->pmu.Configure(max_concurrent);
  return 0;
}

int kfdsim_iommu_pmu_owns_path(kfdsim_t* sim, const char* path) {
  return sim != nullptr && path != nullptr && sim->pmu.OwnsPath(path) ? 1 : 0;
}

int kfdsim_iommu_pmu_read_file(kfdsim_t* sim, const char* path, char* buf, size_t capacity,
                               size_t* out_length) {
  if (sim == nullptr || path == nullptr || out_length == nullptr) return EINVAL;
  std::string content;
  const int r = sim->pmu.ReadFile(path, &content);
  if (r != 0) return r;
  if (content.size() > capacity) return EFBIG;
  if (!content.empty()) std::memcpy(buf, content.data(), content.size());
  *out_length = content.size();
  return 0;
}

int kfdsim_iommu_pmu_list_dir(kfdsim_t* sim, const char* path, kfdsim_dirent_fn fn, void* user) {
  if (sim == nullptr || path == nullptr || fn == nullptr) return EINVAL;
  std::vector<std::pair<std::string, bool>> list;
  const int r = sim->pmu.ListDir(path, &list);
  if (r != 0) return r;
  for (const auto& e : list) {
    if (fn(user, e.first.c_str(), e.second ? KFDSIM_FILE_DIR : KFDSIM_FILE_REGULAR) != 0) break;
  }
  return 0;
}

int kfdsim_perf_open(kfdsim_t* sim, uint32_t type, uint64_t config, int* out_fd) {
  return sim == nullptr ? EINVAL : sim->pmu.Open(type, config, out_fd);
}

int kfdsim_perf_owns_fd(kfdsim_t* sim, int fd) {
  return sim != nullptr && sim->pmu.OwnsFd(fd) ? 1 : 0;
}

int kfdsim_perf_enable(kfdsim_t* sim, int fd, uint32_t enable) {
  return sim == nullptr ? EINVAL : sim->pmu.Enable(fd, enable != 0);
}

int kfdsim_perf_read(kfdsim_t* sim, int fd, uint64_t out_values[3]) {
  return sim == nullptr ? EINVAL : sim->pmu.Read(fd, out_values);
}

int kfdsim_perf_close(kfdsim_t* sim, int fd) { return sim == nullptr ? EINVAL : sim->pmu.Close(fd); }

uint32_t kfdsim_perf_open_count(kfdsim_t* sim) { return sim == nullptr ? 0 : sim->pmu.OpenCount(); }

int kfdsim_mem_policy_set(kfdsim_t* sim, void* addr, size_t length, uint32_t mode, uint32_t node) {
  return sim == nullptr ? EINVAL : sim->policies.Set(addr, length, mode, node);
}

int kfdsim_mem_policy_get(kfdsim_t* sim, const void* addr, kfdsim_mem_policy_info* out) {
  if (sim == nullptr || out == nullptr || out->struct_size < sizeof(kfdsim_mem_policy_info)) {
    return EINVAL;
  }
  const kfdsim::MemPolicies::Info i = sim->policies.Get(reinterpret_cast<uintptr_t>(addr));
  out->mode = i.mode;
  out->node = i.node;
  out->reserved = 0;
  out->start = i.start;
  out->length = i.length;
  return 0;
}

void kfdsim_mem_policy_forget(kfdsim_t* sim, void* addr, size_t length) {
  if (sim != nullptr) sim->policies.Forget(reinterpret_cast<uintptr_t>(addr), length);
}

uint32_t kfdsim_mem_policy_count(kfdsim_t* sim) {
  return sim == nullptr ? 0 : sim->policies.Count();
}

}  // extern "C"
