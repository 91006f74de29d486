/*
 * kfdsim C ABI: the simulated KFD as the front ends see it (the LD_PRELOAD
 * shim and the in-process platform backend). A front end maps paths and
 * descriptors to these calls and does nothing else; every kernel behaviour
 * lives in the core (platform/sim/core/simulator.h).
 *
 * Conventions: functions return 0 or a positive Linux errno. Flags are the
 * host's O_*, PROT_* and MAP_* values (the simulator is Linux-only). A
 * kfdsim_t is one simulated process on one board; there are no globals.
 * Every function is thread-safe; kfdsim_destroy must not race other calls
 * on the same handle.
 */
#ifndef HKE_PLATFORM_SIM_SIM_H_
#define HKE_PLATFORM_SIM_SIM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KFDSIM_API __attribute__((visibility("default")))
#else
#define KFDSIM_API
#endif

typedef struct kfdsim_handle kfdsim_t;

/* Receives one trace line: `length` bytes ending in '\n' (a NUL follows).
 * Called from the calling thread, possibly from several at once. */
typedef void (*kfdsim_trace_fn)(void* user, const char* line, size_t length);

/* File kinds of kfdsim_file_kind / kfdsim_list_dir (== kfdsim::FileKind). */
#define KFDSIM_FILE_NONE 0u
#define KFDSIM_FILE_REGULAR 1u
#define KFDSIM_FILE_DIR 2u
#define KFDSIM_FILE_DEVICE 3u
#define KFDSIM_FILE_SYMLINK 4u /* only in kfdsim_drm_sysfs */

typedef struct kfdsim_options {
  uint32_t struct_size;    /* sizeof(kfdsim_options) */
  uint32_t kfd_minor;      /* KFD minor the board reports; 0 = 17 */
  uint32_t cpu_count;      /* 0 = derived from the board */
  uint32_t reserved;
  const char* tree_dir;    /* captured sysfs tree (directory mirroring /), or NULL */
  const char* board_name;  /* built-in board, used when tree_dir is NULL */
  kfdsim_trace_fn trace;   /* optional */
  void* trace_user;
  /* amdgpu module parameters the machine was booted with, "name=value,..."
   * (emu_mode, noretry, sched_policy, mes, cwsr_enable), or NULL for the
   * module defaults; served under /sys/module/amdgpu/parameters. */
  const char* amdgpu_params;
} kfdsim_options;

/* Loads the board (tree_dir, else board_name) and creates a simulator.
 * On failure *out is untouched and `error` (if not NULL) receives a
 * NUL-terminated message of at most error_len bytes. */
KFDSIM_API int kfdsim_create(const kfdsim_options* options, kfdsim_t** out, char* error,
                             size_t error_len);
KFDSIM_API void kfdsim_destroy(kfdsim_t* sim);

/* ---- devices ---- */
/* Nonzero for /dev/kfd, /dev/dri/renderD<n> and every path the board's
 * file provider owns (those must never fall through to the host). */
KFDSIM_API int kfdsim_owns_path(kfdsim_t* sim, const char* path);
KFDSIM_API int kfdsim_open(kfdsim_t* sim, const char* path, int flags, int* out_fd);
KFDSIM_API int kfdsim_close(kfdsim_t* sim, int fd);
/* Nonzero when fd (or a dup of it) is a simulated device descriptor. */
KFDSIM_API int kfdsim_owns_fd(kfdsim_t* sim, int fd);
KFDSIM_API int kfdsim_ioctl(kfdsim_t* sim, int fd, unsigned long request, void* arg);
/* kfdsim_ioctl when fd (or a dup of it) is a simulated device descriptor:
 * *owned = 1 and the ioctl's result. For any other descriptor *owned = 0,
 * nothing is done and the result is to be ignored. One descriptor lookup
 * where kfdsim_owns_fd + kfdsim_ioctl make two. */
KFDSIM_API int kfdsim_ioctl_owned(kfdsim_t* sim, int fd, unsigned long request, void* arg, int* owned);
/* getpid() of the calling process without a system call: read once, and
 * again in a child created by fork(). */
KFDSIM_API int kfdsim_pid(void);
KFDSIM_API int kfdsim_mmap(kfdsim_t* sim, void* addr, size_t length, int prot, int flags, int fd,
                           uint64_t offset, void** out_addr);
/* kfdsim_mmap when fd is a simulated device descriptor (*owned = 1); for
 * any other descriptor *owned = 0 and nothing is done (as
 * kfdsim_ioctl_owned). */
KFDSIM_API int kfdsim_mmap_owned(kfdsim_t* sim, void* addr, size_t length, int prot, int flags,
                                 int fd, uint64_t offset, void** out_addr, int* owned);
KFDSIM_API int kfdsim_munmap(kfdsim_t* sim, void* addr, size_t length);

/* ---- files served by the board ---- */
KFDSIM_API int kfdsim_file_kind(kfdsim_t* sim, const char* path, uint32_t* out_kind);
/* Copies the file into buf. When it is longer than `capacity`, returns
 * EFBIG and sets *out_length to the full length (buf then holds a prefix). */
KFDSIM_API int kfdsim_read_file(kfdsim_t* sim, const char* path, char* buf, size_t capacity,
                                size_t* out_length);
/* Calls fn once per entry; a nonzero return from fn stops the listing. */
typedef int (*kfdsim_dirent_fn)(void* user, const char* name, uint32_t kind);
KFDSIM_API int kfdsim_list_dir(kfdsim_t* sim, const char* path, kfdsim_dirent_fn fn, void* user);
/* ---- DRM device identity (core/drm.cc) ---- */
/* The device number a real render node has (226:<minor>), for a simulated
 * render-node descriptor (fd >= 0) or its /dev/dri path (fd < 0, path set);
 * ENOENT otherwise. Front ends report it from fstat/stat. */
KFDSIM_API int kfdsim_device_number(kfdsim_t* sim, int fd, const char* path, uint32_t* out_major,
                                    uint32_t* out_minor);
/* Walks the sysfs entries that describe the render nodes' devices (see
 * Simulator::DrmSysfs): kind KFDSIM_FILE_DIR, KFDSIM_FILE_REGULAR (data =
 * contents) or KFDSIM_FILE_SYMLINK (data = relative target); parents come
 * first. A nonzero return from fn stops the walk. */
typedef int (*kfdsim_sysfs_fn)(void* user, const char* path, uint32_t kind, const char* data,
                               size_t length);
KFDSIM_API int kfdsim_drm_sysfs(kfdsim_t* sim, kfdsim_sysfs_fn fn, void* user);
/* CPU count the board reports (get_nprocs). */
KFDSIM_API uint32_t kfdsim_cpu_count(kfdsim_t* sim);

/* ---- observability and injection ---- */
KFDSIM_API void kfdsim_set_trace(kfdsim_t* sim, kfdsim_trace_fn fn, void* user);
/* Fails calls of the request whose low 16 bits (type << 8 | nr) are
 * request_key with `error`: from its `nth` call (1-based) on, `count` times
 * (0 = every later call). The handler does not run for these calls. */
KFDSIM_API void kfdsim_add_fault(kfdsim_t* sim, uint32_t request_key, int error, uint32_t nth,
                                 uint32_t count);
KFDSIM_API void kfdsim_clear_faults(kfdsim_t* sim);
/* Reply tamper, for tests of hostile kernel replies: called once per ioctl
 * the simulator dispatched (KFD or render node; not for injected faults,
 * unknown requests or foreign fds), after the handler ran, successful or
 * not. `request` is the caller's request number; `reply` is a copy of the
 * caller's argument as it would receive it (`size` = the request's size
 * field; NULL and 0 when there is no readable argument) and `result` the
 * handler's result (0 or a positive errno). The tamper may rewrite the
 * copy, which is copied back when the request returns data (_IOC_READ),
 * and returns the result the caller gets. Data the handler wrote through
 * pointers inside the argument (e.g. the aperture array of
 * GET_PROCESS_APERTURES_NEW) is already in the caller's memory and is
 * edited there. Trace lines show the tampered reply and end in
 * " tampered" when the result or the copied-back bytes changed. */
typedef int (*kfdsim_tamper_fn)(void* user, uint32_t request, void* reply, size_t size,
                                int result);
/* Installs the tamper (fn NULL clears it). Like the trace sink it is kept
 * under the simulator's leaf hook lock and called with no simulator lock
 * held, from the calling thread, possibly from several threads at once; a
 * call already in flight may still reach the tamper it read before a
 * replacement. */
KFDSIM_API void kfdsim_set_tamper(kfdsim_t* sim, kfdsim_tamper_fn fn, void* user);
/* Sets every MEMORY event with this fault (flags bit 0 not present, bit 1
 * read-only, bit 2 no-execute, bit 3 imprecise). */
KFDSIM_API int kfdsim_inject_memory_exception(kfdsim_t* sim, uint32_t gpu_id, uint64_t va,
                                              uint32_t failure_flags, uint32_t error_type);
KFDSIM_API int kfdsim_inject_hw_exception(kfdsim_t* sim, uint32_t gpu_id, uint32_t reset_type,
                                          uint32_t reset_cause, uint32_t memory_lost);
/* Sends the SMI record "<event hex> <fields>\n" to the SMI descriptors
 * (SMI_EVENTS) of gpu_id that selected the event. Returns how many got it,
 * or -EINVAL (unknown gpu, event outside 1..63, NULL fields). Memory and HW
 * exceptions send their VMFAULT / GPU reset records themselves. */
KFDSIM_API int kfdsim_smi_emit(kfdsim_t* sim, uint32_t gpu_id, uint32_t event, const char* fields);
/* The GPU event interrupt: sets the signal events whose slots were written.
 * Returns how many were set. */
KFDSIM_API uint32_t kfdsim_signal_interrupt(kfdsim_t* sim);
/* Drops the per-process state (a fork child starting over). Stops the
 * engine thread first (it restarts on the next CREATE_QUEUE). */
KFDSIM_API void kfdsim_reset_process(kfdsim_t* sim);
/* Secondary kfd_processes (AMDKFD_IOC_CREATE_PROCESS) alive now; each ends
 * when its /dev/kfd descriptor is closed. 0 for NULL. */
KFDSIM_API uint32_t kfdsim_secondary_count(kfdsim_t* sim);

/* What the simulated kfd_process (the primary) holds now: a leak check for
 * tests ("after the last close the process holds nothing"). */
typedef struct kfdsim_process_stats {
  uint32_t struct_size;   /* sizeof(kfdsim_process_stats), set by the caller */
  uint32_t bos;           /* live BOs on every GPU, events pages apart */
  uint32_t event_page_bos; /* BOs CREATE_EVENT took as the events page (kept
                            * by the kernel until the process ends) */
  uint32_t gpu_mappings;  /* (BO, GPU) pairs mapped, events pages apart */
  uint32_t queues;        /* user queues */
  uint32_t events;        /* events */
  uint32_t svm_ranges;    /* SVM ranges with attributes */
  uint32_t kfd_fds;       /* open /dev/kfd descriptors the simulator knows */
  uint32_t render_fds;    /* open render-node descriptors the simulator knows */
  uint32_t gem_objects;   /* BOs created on render nodes (GEM) still alive:
                           * held by a handle or a dma-buf descriptor */
} kfdsim_process_stats;
/* EINVAL for NULL arguments or a struct_size smaller than the struct. */
KFDSIM_API int kfdsim_process_stats_get(kfdsim_t* sim, kfdsim_process_stats* out);

/* ---- SVM (platform/sim/core/svm.cc) ---- */
/* The host unmapped [addr, addr + length) (the kernel's MMU notifier):
 * SVM ranges there are split or removed, with UNMAP_FROM_GPU SMI records
 * for the GPUs they were mapped on. Front ends call it after every munmap
 * and every new mapping they see (a new mapping lies where nothing was
 * mapped, or replaced pages with MAP_FIXED: no range may remain there).
 * The SVM and ALLOC_MEMORY_OF_GPU calls re-check the ranges they touch
 * against the host mappings, so unmaps nobody reported are noticed there
 * unless something was mapped at the address again in between. */
KFDSIM_API void kfdsim_host_unmapped(kfdsim_t* sim, const void* addr, size_t length);
typedef struct kfdsim_svm_range_info {
  uint32_t struct_size;   /* sizeof(kfdsim_svm_range_info), set by the caller */
  uint32_t actual_loc;    /* 0: system memory, else the gpu_id whose VRAM holds it */
  uint64_t start, end;    /* the SVM range holding the address */
  uint32_t mapped_to_gpu; /* 1 once a GPU's page tables map it */
  uint32_t mapped_gpus;   /* how many GPUs map it */
} kfdsim_svm_range_info;
/* ENOENT when no SVM range holds addr; EINVAL for NULL or a small struct. */
KFDSIM_API int kfdsim_svm_range(kfdsim_t* sim, uint64_t addr, kfdsim_svm_range_info* out);
/* GPU gpu_id touches [va, va + size) as its packet engines would: 0 when
 * SVM memory is reachable there (with XNACK on, after a recovered retry
 * fault that sent PAGE_FAULT_START/END and migration SMI records), ENOENT
 * when it is not SVM memory, EFAULT for a GPU fault, EINVAL for an unknown
 * gpu. */
KFDSIM_API int kfdsim_svm_gpu_touch(kfdsim_t* sim, uint32_t gpu_id, uint64_t va, uint64_t size,
                                    int write);

/* ---- packet engines (platform/sim/core/engines/README.md) ----
 * SDMA, PM4 and AQL packets written to user queues are executed by the
 * simulated GPU. In KFDSIM_ENGINES_THREAD mode (the default) a background
 * thread, started by the first CREATE_QUEUE, polls the doorbells; in
 * KFDSIM_ENGINES_MANUAL mode nothing runs until kfdsim_step_queues. */
#define KFDSIM_ENGINES_THREAD 0u
#define KFDSIM_ENGINES_MANUAL 1u
/* EINVAL for an unknown mode. Switching to MANUAL joins the thread; do not
 * call it from a trace, tamper or queue-hook callback. */
KFDSIM_API int kfdsim_set_engine_mode(kfdsim_t* sim, uint32_t mode);
/* Runs every queue until none makes progress (bounded, so a self-feeding
 * ring cannot spin forever); deterministic in MANUAL mode. Adds the number
 * of packets retired to *packets_done when not NULL. */
KFDSIM_API int kfdsim_step_queues(kfdsim_t* sim, uint64_t* packets_done);

/* Queue states of kfdsim_queue_status. */
#define KFDSIM_QUEUE_IDLE 0u     /* everything announced has run */
#define KFDSIM_QUEUE_PENDING 1u  /* the doorbell announced packets not yet run */
#define KFDSIM_QUEUE_WAITING 2u  /* stalled: POLL_REGMEM, barrier, partial packet */
#define KFDSIM_QUEUE_ERROR 3u    /* stopped by a queue error; never runs again */
#define KFDSIM_QUEUE_DISABLED 4u /* inactive after UPDATE_QUEUE (no ring or percentage 0):
                                    its doorbell is ignored until an update enables it */

typedef struct kfdsim_queue_info {
  uint32_t struct_size;    /* sizeof(kfdsim_queue_info), set by the caller */
  uint32_t state;          /* KFDSIM_QUEUE_* */
  uint32_t exception_code; /* kernel exception code (EC_*) of the error, else 0 */
  uint32_t reserved;
  uint64_t exception_mask; /* KFD_EC_MASK(exception_code), else 0 */
  uint64_t read_index;     /* engine read pointer: bytes (SDMA), dwords (PM4), packets (AQL) */
  uint64_t packets_done;   /* packets retired so far */
  uint64_t fault_va;       /* GPU VA of the memory fault that stopped it, else 0 */
} kfdsim_queue_info;

/* Describes queue `queue_id` (the KFD queue id). `reason` (may be NULL)
 * receives a NUL-terminated text saying why the queue stopped or waits
 * (empty otherwise), truncated to reason_len bytes. `info` may be NULL;
 * EINVAL when info->struct_size is too small or the queue is unknown. */
KFDSIM_API int kfdsim_queue_status(kfdsim_t* sim, uint32_t queue_id, kfdsim_queue_info* info,
                                   char* reason, size_t reason_len);

/* Wave-instructions the simulated shader cores (core/shader/) executed
 * since the simulator was created, kernels of every queue counted. EINVAL
 * for NULL. */
KFDSIM_API int kfdsim_shader_instructions(kfdsim_t* sim, uint64_t* instructions);

/* ---- the AMD IOMMU PMU (platform/sim/core/iommu_pmu.h) ----
 * Served by the in-process platform only (the preload front end leaves the
 * host's perf PMUs alone): the files of /sys/bus/event_source/devices/
 * amd_iommu_0 (type KFDSIM_IOMMU_PMU_TYPE, one file per event
 * "csource=0x<id>"), the KFD's nodes/0/perf/iommu/max_concurrent, and
 * perf_event counters whose every read while enabled adds
 * (csource + 1) * 16 to the count and 1000 ns to both times.
 * Present on every board with 8 concurrent counters unless configured. */
#define KFDSIM_IOMMU_PMU_TYPE 25u
/* `max_concurrent` 0 removes the PMU; EINVAL for a NULL sim. */
KFDSIM_API int kfdsim_iommu_pmu_configure(kfdsim_t* sim, uint32_t max_concurrent);
/* 1 for a path of the PMU's files (served or not). */
KFDSIM_API int kfdsim_iommu_pmu_owns_path(kfdsim_t* sim, const char* path);
/* As kfdsim_read_file / kfdsim_list_dir for those paths. */
KFDSIM_API int kfdsim_iommu_pmu_read_file(kfdsim_t* sim, const char* path, char* buf,
                                          size_t capacity, size_t* out_length);
KFDSIM_API int kfdsim_iommu_pmu_list_dir(kfdsim_t* sim, const char* path, kfdsim_dirent_fn fn,
                                         void* user);
/* perf_event_open / ENABLE-DISABLE / read / close of a PMU counter. */
KFDSIM_API int kfdsim_perf_open(kfdsim_t* sim, uint32_t type, uint64_t config, int* out_fd);
KFDSIM_API int kfdsim_perf_owns_fd(kfdsim_t* sim, int fd);
KFDSIM_API int kfdsim_perf_enable(kfdsim_t* sim, int fd, uint32_t enable);
KFDSIM_API int kfdsim_perf_read(kfdsim_t* sim, int fd, uint64_t out_values[3]);
KFDSIM_API int kfdsim_perf_close(kfdsim_t* sim, int fd);
/* Counters open now. */
KFDSIM_API uint32_t kfdsim_perf_open_count(kfdsim_t* sim);

/* ---- NUMA memory policies (platform/sim/core/mem_policy.h) ----
 * The simulated host's mbind(2), served by the in-process platform's
 * mem_policy (the preload front end leaves mbind to the host): a policy per
 * address range on the board's NUMA nodes (one per KFD CPU node, as
 * /sys/devices/system/node serves them), checked as the kernel checks it,
 * recorded and never applied to the real pages. The in-process platform
 * drops the policies of every range it unmaps or maps over (the kernel drops
 * them with the mapping); a process reset drops them all. */
#define KFDSIM_MPOL_DEFAULT 0u   /* == HKE_MPOL_DEFAULT */
#define KFDSIM_MPOL_PREFERRED 1u /* == HKE_MPOL_PREFERRED */
#define KFDSIM_MPOL_BIND 2u      /* == HKE_MPOL_BIND */

typedef struct kfdsim_mem_policy_info {
  uint32_t struct_size; /* sizeof(kfdsim_mem_policy_info), set by the caller */
  uint32_t mode;        /* KFDSIM_MPOL_*; DEFAULT when no policy covers the address */
  uint32_t node;        /* the one node of the mask (PREFERRED, BIND) */
  uint32_t reserved;
  uint64_t start;       /* the part of the range set that holds the address */
  uint64_t length;      /* 0 for DEFAULT */
} kfdsim_mem_policy_info;

/* mbind(addr, length, mode | MPOL_F_STATIC_NODES, {node}): EINVAL for an
 * unknown mode, an unaligned address or a node the board does not have,
 * EFAULT for an unmapped hole; DEFAULT drops the range's policies. */
KFDSIM_API int kfdsim_mem_policy_set(kfdsim_t* sim, void* addr, size_t length, uint32_t mode,
                                     uint32_t node);
/* The policy covering `addr` (EINVAL for a NULL or short `out`). */
KFDSIM_API int kfdsim_mem_policy_get(kfdsim_t* sim, const void* addr,
                                     kfdsim_mem_policy_info* out);
/* The mapping of [addr, addr + length) is gone or replaced: its policies too. */
KFDSIM_API void kfdsim_mem_policy_forget(kfdsim_t* sim, void* addr, size_t length);
/* Ranges that hold a policy other than DEFAULT now. */
KFDSIM_API uint32_t kfdsim_mem_policy_count(kfdsim_t* sim);

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifdef __cplusplus
#include <memory>

#include "platform/sim/board.h"

namespace kfdsim {
class Simulator;
// Wraps a board the caller built (tests, the in-process backend) in a C
// handle; never fails except for allocation. Release with kfdsim_destroy.
kfdsim_t* WrapBoard(Board board);
// The C++ simulator behind a handle.
Simulator* Unwrap(kfdsim_t* sim);
}  // namespace kfdsim
#endif

#endif /* HKE_PLATFORM_SIM_SIM_H_ */
