// kfdsim::Simulator: a software KFD. It answers the kernel UAPI of /dev/kfd
// and of the amdgpu render nodes (ioctl, mmap, open, close) for one
// simulated process on one Board, so that unmodified thunks (through an
// LD_PRELOAD shim) and this project's library (through an in-process
// platform) run without a GPU. The C ABI for front ends is platform/sim/sim.h.
//
// Meaning: one Simulator is one process as the KFD sees it (the kernel keys
// its kfd_process by mm, so the state survives closing every /dev/kfd fd;
// ResetProcess() drops it, e.g. for a fork child). Device fds are real
// memfd descriptors; the simulator recognises them, and their dup()s, by
// inode. Handlers follow the kernel's validation order and errno values
// (see the per-subsystem .cc files); deliberate deviations are listed in
// platform/sim/core/README.md.
//
// Implementation is split by subsystem, each a set of member functions in
// its own file: devices.cc (fds), memory.cc (BOs, VM, apertures, mmap),
// events.cc, queues.cc, drm.cc (render node), process.cc (the remaining
// per-process ioctls, SVM), dispatch.cc (ioctl table, size rule, faults,
// trace), tamper.cc (the reply tamper seam), engines/ (packet engines),
// shader/ (the shader cores that run kernel dispatches).
//
// Threading: every public member is thread-safe. Locks, always taken in
// this order when nested: dev_mu_ (device files) -> proc_mu_ (memory,
// queues, VM, SVM, per-process flags) -> ev_mu_ (events; WAIT_EVENTS
// sleeps on ev_cv_ holding only ev_mu_) ; hook_mu_ (trace sink, faults,
// queue hook, reply tamper) is a leaf, and so is engine_.mu (the packet
// engines' thread control, core/engines/scheduler.cc). No global state:
// everything hangs off the object.
#ifndef HKE_PLATFORM_SIM_CORE_SIMULATOR_H_
#define HKE_PLATFORM_SIM_CORE_SIMULATOR_H_

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <pthread.h>

#include "lib/kfd/abi.h"
#include "platform/sim/board.h"
#include "platform/sim/core/share_registry.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace shader {
struct QueueShaderState;  // core/shader/bridge.h
struct Wave;
}  // namespace shader

// Receives one trace line (`length` bytes ending in '\n', NUL after it).
using TraceSink = void (*)(void* user, const char* line, size_t length);

// What a queue hook sees: the queue as created, plus the doorbell value
// read from the process doorbell page when the queue was stepped.
struct QueueView {
  uint32_t queue_id = 0;
  uint32_t gpu_id = 0;
  uint32_t queue_type = 0;  // hke::kfd::kQueueType*
  uint64_t ring_base_address = 0;
  uint32_t ring_size = 0;  // bytes, after the kernel's clamp
  uint64_t read_pointer_address = 0;
  uint64_t write_pointer_address = 0;
  uint64_t doorbell_value = 0;
};
// Packet-execution seam: called (without simulator locks held) each time a
// queue is stepped with RingDoorbell().
using QueueHook = void (*)(void* user, const QueueView& queue);
// Reply tamper seam (core/tamper.cc): sees the argument of an ioctl that
// reached a handler (`reply`: a copy of `size` bytes, as the caller would
// receive it; nullptr/0 when there is none) and the handler's result; may
// rewrite the copy (copied back when the request returns data) and returns
// the result the caller gets. For tests of hostile kernel replies.
using ReplyTamper = int (*)(void* user, uint32_t request, void* reply, size_t size, int result);

// Key of one opened device file: the memfd inode behind every fd of it.
struct FileKey {
  uint64_t dev = 0;
  uint64_t ino = 0;
  bool operator<(const FileKey& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
  bool operator==(const FileKey& o) const { return dev == o.dev && ino == o.ino; }
};

// The queue sizes a KFD node has (kfd_queue_ctx_save_restore_size): what
// CREATE_QUEUE's buffer checks compare with (queue_buffers.cc). All 0
// before gfx 8.0.1.
struct KernelQueueSizes {
  uint32_t ctl_stack_size = 0;
  uint32_t cwsr_size = 0;          // ctl_stack_size + work-group data, per XCC
  uint32_t debug_memory_size = 0;  // per XCC
  uint32_t eop_buffer_size = 0;
};
// The node's sizes with host page size `page`; sysfs values (cwsr_size,
// ctl_stack_size in `g`) win over the computation.
KernelQueueSizes ComputeKernelQueueSizes(const GpuDesc& g, uint64_t page);
// The first KFD minor whose kernels all check queue buffers (Linux 6.12
// added the check at KFD 1.16, so 1.16 kernels may or may not have it).
inline constexpr uint32_t kMinorQueueBufferCheck = 17;

// Marks the calling thread as one of the simulator's own (core/svm.cc):
// host unmaps reported from it are ignored, so an interposed mmap/munmap
// reached from its allocations never re-enters the simulator's locks.
void MarkInternalThread();

class Simulator {
 public:
  explicit Simulator(Board board);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const BoardDesc& desc() const { return board_.desc; }
  const Board& board() const { return board_; }
  // The board's file provider; may be null for a hand-built board.
  const FileProvider* files() const { return board_.files.get(); }

  // ---- front-end entry points (all return 0 or a positive errno) ----
  // True for /dev/kfd, /dev/dri/renderD<n> and paths the provider owns.
  bool OwnsPath(const std::string& path) const;
  // Opens /dev/kfd or /dev/dri/renderD<minor> (host O_* flags; O_CLOEXEC is
  // honoured). ENOENT for other paths and for minors not on the board.
  int Open(const char* path, int flags, int* out_fd);
  // Closes a descriptor (a simulated one or not) with the real close().
  int Close(int fd);
  // True when `fd` is an open descriptor of a simulated device file.
  bool OwnsFd(int fd);
  // Issues `request` on `fd`; `arg` points at the caller's argument.
  int Ioctl(int fd, unsigned long request, void* arg);
  // Ioctl with *owned telling whether fd is a simulated device (when not,
  // nothing was done and the lookup's error is returned): one descriptor
  // lookup where OwnsFd + Ioctl make two.
  int IoctlIfOwned(int fd, unsigned long request, void* arg, bool* owned);
  // mmap with host PROT_/MAP_ values on a simulated fd (kfd or render).
  int Mmap(void* addr, size_t length, int prot, int flags, int fd, uint64_t offset,
           void** out_addr);
  // Mmap with *owned telling whether fd is a simulated device (as
  // IoctlIfOwned).
  int MmapIfOwned(void* addr, size_t length, int prot, int flags, int fd, uint64_t offset,
                  void** out_addr, bool* owned);
  int Munmap(void* addr, size_t length);

  // ---- device identity (drm.cc): what libdrm reads to tell GPUs apart ----
  // The character-device number (226:<render minor>) of a simulated render
  // node, given a descriptor (fd >= 0) or its /dev/dri path (fd < 0).
  // ENOENT for anything else, /dev/kfd included.
  int DeviceNumber(int fd, const char* path, uint32_t* major, uint32_t* minor);
  // The sysfs entries behind the render nodes' device numbers: per GPU a
  // device directory (PCI ids, uevent with PCI_SLOT_NAME, subsystem link)
  // with drm/card<i> and drm/renderD<minor>, and the /sys/dev/char/226:<n>
  // links to them. fn(user, path, kind, data, length) is called once per
  // entry, parents first; kind is KFDSIM_FILE_DIR, KFDSIM_FILE_REGULAR
  // (data: the contents) or KFDSIM_FILE_SYMLINK (data: the link target,
  // relative). A nonzero return stops the walk. Immutable board data only.
  using SysfsEntryFn = int (*)(void* user, const char* path, uint32_t kind, const char* data,
                               size_t length);
  void DrmSysfs(SysfsEntryFn fn, void* user) const;

  // ---- observability and injection ----
  void SetTraceSink(TraceSink sink, void* user);
  // Fails the `nth` (1-based; 0 = every) call of the request whose low 16
  // bits (type << 8 | nr) are `request_key` with `error`, `count` times
  // (0 = unlimited). The handler does not run for an injected failure.
  void AddFault(uint32_t request_key, int error, uint32_t nth, uint32_t count);
  void ClearFaults();
  // Requests answered ENOTTY/EINVAL because they are unknown, so far.
  uint64_t unknown_requests() const { return unknown_requests_.load(); }
  uint32_t last_unknown_request() const { return last_unknown_request_.load(); }

  // A GPU page fault: sets every MEMORY event with this data (the kernel
  // also sends SIGSEGV; the simulator does not). EINVAL for an unknown gpu.
  int InjectMemoryException(uint32_t gpu_id, uint64_t va,
                            const hke::kfd::MemoryExceptionFailure& failure,
                            uint32_t error_type);
  // A GPU reset: sets every HW_EXCEPTION event with this data and sends
  // the GPU_PRE_RESET and GPU_POST_RESET SMI records.
  int InjectHwException(uint32_t gpu_id, uint32_t reset_type, uint32_t reset_cause,
                        uint32_t memory_lost);
  // Sends the SMI record "<event hex> <fields>\n" to every SMI descriptor
  // of `gpu_id` whose mask (the last 8-byte value its owner wrote) has the
  // event's bit, as the kernel's kfd_smi_event_add does (a client whose
  // buffer is full misses the record). Returns the number of descriptors
  // written, or -EINVAL for an unknown gpu / an event outside 1..63.
  int SmiEmit(uint32_t gpu_id, uint32_t event, const std::string& fields);
  // The event interrupt: every signal event whose slot in the event page is
  // no longer "unsignaled" is acknowledged (slot reset) and set. Returns the
  // number of events set.
  uint32_t SignalInterrupt();
  // Sets an event's age (tests of the wrap rule). EINVAL when unknown.
  int SetEventAge(uint32_t event_id, uint64_t age);

  void SetQueueHook(QueueHook hook, void* user);
  // Installs (nullptr clears) the reply tamper; see ReplyTamper and
  // core/tamper.cc. Called without simulator locks held.
  void SetReplyTamper(ReplyTamper fn, void* user);
  // Reads the queue's doorbell and calls the hook; a queue disabled by
  // UPDATE_QUEUE (Queue::active) is ignored (0, no hook). EINVAL for an
  // unknown queue, ENODEV when the doorbell page was never created.
  int RingDoorbell(uint32_t queue_id);

  // ---- packet engines (core/engines/, README there) ----
  // kThread (the default): a background engine thread, started by the
  // first CREATE_QUEUE, polls every queue's doorbell and executes packets.
  // kManual: nothing runs until StepQueues() (deterministic tests).
  enum class EngineMode { kManual, kThread };
  // Switching to kManual stops and joins the thread. Must not be called
  // with simulator locks held or from a queue hook.
  void SetEngineMode(EngineMode mode);
  EngineMode engine_mode();
  // Processes every queue until none makes progress (bounded: at most
  // kStepPasses passes of kStepBudget packets per queue, so a ring that
  // feeds itself cannot spin forever). Returns the packets completed.
  // Thread-safe; may run beside the engine thread (queues step one at a
  // time under proc_mu_).
  static constexpr uint32_t kStepPasses = 64;
  static constexpr uint32_t kStepBudget = 256;
  uint64_t StepQueues();
  // Engine-side state of one queue (state = kQueueState*).
  static constexpr uint32_t kQueueStateIdle = 0;     // rptr == wptr
  static constexpr uint32_t kQueueStatePending = 1;  // packets announced, not yet run
  static constexpr uint32_t kQueueStateWaiting = 2;  // stalled on a poll or barrier
  static constexpr uint32_t kQueueStateError = 3;    // stopped by a queue error
  static constexpr uint32_t kQueueStateDisabled = 4; // inactive: no ring or percentage 0
  struct QueueStatus {
    uint32_t state = kQueueStateIdle;
    uint32_t exception_code = 0;  // hke::kfd::kEc* of the error, 0 when none
    uint64_t read_index = 0;      // bytes (SDMA), dwords (PM4), packets (AQL)
    uint64_t packets_done = 0;
    uint64_t fault_va = 0;        // GPU VA of a memory fault, 0 otherwise
    std::string reason;           // why the queue stopped or waits
  };
  // EINVAL for an unknown queue.
  int GetQueueStatus(uint32_t queue_id, QueueStatus* out);
  // Wave-instructions the shader cores executed since the simulator was
  // created (core/shader/; kernels of every queue). Thread-safe.
  uint64_t ShaderInstructions();
  // Stops and joins the engine thread (it restarts on the next CREATE_QUEUE
  // in kThread mode). Same calling rules as SetEngineMode.
  void StopEngineThread();

  // ---- SVM (svm.cc) ----
  // The MMU notifier: the host unmapped [addr, addr + length) (a munmap,
  // or a new mapping there). SVM ranges there are split or removed as
  // svm_range_unmap_from_cpu does, with the UNMAP_FROM_GPU SMI records of
  // the GPUs they were mapped on. Front ends call it after every munmap
  // and mmap they see; SVM and ALLOC calls also re-check the ranges they
  // touch against the host mappings (unmaps nobody reported).
  void HostUnmapped(uint64_t addr, uint64_t length);
  // A GPU of the board touching [va, va + size) as its engines would:
  // 0 when SVM memory there is reachable (after a recovered retry fault
  // with XNACK on: PAGE_FAULT_START/END and migration SMI records),
  // ENOENT when it is not SVM memory, EFAULT for a GPU fault, EINVAL for
  // an unknown gpu.
  int SvmGpuTouch(uint32_t gpu_id, uint64_t va, uint64_t size, bool write);
  struct SvmRangeInfo {
    uint64_t start = 0, end = 0;  // the range holding the address
    uint32_t actual_loc = 0;      // 0: system memory, else the gpu_id holding it
    bool mapped_to_gpu = false;
    uint32_t mapped_gpus = 0;     // GPUs whose page tables map it
  };
  // ENOENT when no SVM range holds `addr`.
  int SvmRangeAt(uint64_t addr, SvmRangeInfo* out);

  // ---- state queries (tests, front ends) ----
  int MemoryUsage(uint32_t gpu_id, uint64_t* vram_used, uint64_t* gtt_used);
  size_t BoCount();
  // Render-node BOs alive (held by a GEM handle or a dma-buf).
  size_t GemObjectCount();
  size_t QueueCount();
  bool VmAcquired(uint32_t gpu_id);
  // Drops all per-process state (BOs, events, queues, VMs, SVM) and every
  // secondary process. The primary's open device files stay valid; the
  // files a secondary process owned are forgotten with it (their
  // descriptors then answer ENOTTY, as a fork child's inherited secondary
  // descriptors would be useless too). Waiters blocked in WAIT_EVENTS
  // return EIO.
  void ResetProcess();
  // Secondary kfd_processes alive now (core/secondary.cc).
  size_t SecondaryCount();
  // What the primary process holds now (kfdsim_process_stats).
  struct ProcessStats {
    uint32_t bos = 0, event_page_bos = 0, gpu_mappings = 0, queues = 0, events = 0,
             svm_ranges = 0, kfd_fds = 0, render_fds = 0, gem_objects = 0;
  };
  ProcessStats Stats();

  // ---- implementation types (used across the subsystem files) ----
  enum class DevKind { kKfd, kRender };
  struct DeviceFile {
    DevKind kind = DevKind::kKfd;
    int gpu = -1;          // index into desc().gpus for render files
    std::vector<int> fds;  // descriptors the simulator knows for this file
    int pin_fd = -1;       // internal dup keeping the inode alive (ACQUIRE_VM)
  };
  // One ioctl or mmap in flight: the device file it targets.
  struct IoctlCtx {
    int fd = -1;
    FileKey key;
    DevKind kind = DevKind::kKfd;
    int gpu = -1;
    uint32_t user_size = 0;
  };

 private:
  // ---------------- devices.cc ----------------
  // Finds the device file behind `fd` (fstat identity). 0, EBADF (not a
  // descriptor) or ENOTTY (not a simulated device).
  int LookupFd(int fd, IoctlCtx* ctx);
  int RenderMinorGpu(uint32_t minor) const;

  // ---------------- memory.cc ----------------
  struct Storage {  // a range of a GPU's backing memfd, shared by imports
    int gpu = -1;
    uint64_t offset = 0;
    uint64_t size = 0;
    int refs = 0;
    // Render-node (GEM) BOs: the memory is accounted as long as the
    // storage lives, and released with it (1 VRAM, 2 GTT, 0 none). KFD BOs
    // account at ALLOC/FREE instead.
    int account = 0;
    // A storage another process of the machine exported (share.cc): the
    // pages live in `file` (that process's backing memfd, opened through
    // the share registry) at `file_offset`; `offset` is then only a range
    // reserved in this GPU's mmap space. -1: the GPU's own backing memfd.
    int file = -1;
    uint64_t file_offset = 0;
    bool shared = false;  // published in (or attached from) the share registry
    ShareKey share{};
    // KFD BOs of this process on the storage (GpuProc::bos); while there
    // are any, GpuProc::bo_storages lists it.
    uint32_t kfd_bos = 0;
  };
  struct Bo {
    uint64_t va = 0;
    uint64_t size = 0;
    uint32_t flags = 0;
    uint64_t mmap_offset = 0;  // what ALLOC returned
    uint64_t userptr = 0;
    std::shared_ptr<Storage> storage;  // VRAM/GTT (and imports) only
    std::vector<uint32_t> mapped;      // gpu_ids this BO is mapped to
    bool event_page = false;
    bool counts_vram = false;
  };
  struct GpuProc {
    bool vm_acquired = false;
    FileKey vm_file;
    int backing_fd = -1;  // memfd behind every VRAM/GTT BO of this GPU
    uint64_t backing_len = 0;
    uint64_t top = 0;  // bump pointer in the backing memfd
    std::map<uint64_t, uint64_t> free_ranges;  // offset -> size
    // Freed ranges other processes still hold through the share registry:
    // returned to free_ranges once the share has no holder (share.cc).
    struct Retired {
      uint64_t offset = 0, size = 0;
      ShareKey key{};
    };
    std::vector<Retired> retired;
    uint64_t vram_used = 0;
    uint64_t gtt_used = 0;
    // By IDR index (the low 32 bits of the handle); AddBoLocked and
    // EraseBoLocked keep bo_storages with it.
    IdTable<Bo> bos;
    // The storages of `bos` (non-empty ranges of the backing memfd's mmap
    // space, disjoint) by their first offset: the render-node mmap's lookup.
    std::unordered_map<uint64_t, const Storage*> bo_storages;
    int doorbell_fd = -1;        // the process doorbell slice of this GPU
    volatile uint8_t* doorbell_map = nullptr;
    int mmio_fd = -1;
    uint64_t tba = 0, tma = 0, scratch_va = 0;
    uint32_t default_policy = 0, alt_policy = 0;
    uint64_t alt_base = 0, alt_size = 0;
    std::vector<bool> doorbell_used;
    // RLC_SPM (profile.cc): SPM taken by this process, the destination
    // buffer the simulated RLC streams into, its fill and the record counter.
    bool spm_acquired = false;
    uint64_t spm_buf = 0;
    uint32_t spm_buf_size = 0;
    uint32_t spm_filled = 0;
    uint32_t spm_records = 0;
    // PC_SAMPLE (profile.cc): sessions by trace id, and per method (host
    // trap, stochastic) the configuration shared by its sessions.
    struct PcsTrace {
      uint32_t method = 0;
      bool enabled = false;
    };
    std::map<uint32_t, PcsTrace> pcs_traces;
    uint32_t pcs_next_id = 1;
    hke::kfd::PcSampleInfo pcs_config[2] = {};
    uint32_t pcs_users[2] = {};
  };
  int GpuIndex(uint32_t gpu_id) const;  // -1 when unknown (0 is never a GPU)
  bool IsSoc15(int gpu) const;
  uint64_t DoorbellSlice(int gpu) const;
  void FillApertures(int gpu, hke::kfd::ProcessDeviceApertures* out) const;
  // Process-device binding: 0, or ENODEV when ACQUIRE_VM has not been done.
  int Bind(int gpu) const;
  int AllocBacking(int gpu, uint64_t size, uint64_t* offset);
  void FreeBacking(int gpu, uint64_t offset, uint64_t size);
  int EnsureFd(int* fd, const char* name, uint64_t size);
  void DropStorage(const std::shared_ptr<Storage>& s);  // proc_mu_ held
  // Stores a BO of GPU `g` at the lowest free index (returned) / destroys
  // the BO at `idx` (which must exist), keeping g.bo_storages. proc_mu_ held.
  uint32_t AddBoLocked(GpuProc& g, Bo bo);
  void EraseBoLocked(GpuProc& g, uint32_t idx);
  // The storage of a BO of `g` holding mmap offset `offset`, or null: O(1)
  // for a BO's first offset (where thunks map), a walk over the BOs for an
  // offset inside one.
  const Storage* BoStorageAtLocked(const GpuProc& g, uint64_t offset) const;
  // ---------------- share.cc (under proc_mu_) ----------------
  // The memfd and offset holding a storage's pages.
  int StorageFd(const Storage& s) const;
  uint64_t StorageFileOffset(const Storage& s) const { return s.file >= 0 ? s.file_offset : s.offset; }
  ShareRegistry* SharesLocked();  // the machine's registry, or null
  // Publishes the storage machine-wide (once): 0, or the registry's errno.
  int PublishLocked(const std::shared_ptr<Storage>& s, uint32_t flags);
  // A storage for a share of another process on `gpu` (EINVAL: unknown,
  // another GPU, or gone).
  int AttachShareLocked(const ShareKey& key, int gpu, std::shared_ptr<Storage>* out, ShareInfo* info);
  // The storage an import of `key` on `gpu` aliases: this process's own
  // (exported or imported before) or a new attach (refs 0, for the caller's
  // AddAliasBo). EINVAL: unknown, another GPU, or gone.
  int ImportShareLocked(const ShareKey& key, int gpu, std::shared_ptr<Storage>* out, ShareInfo* info);
  // A live storage of this process with that share key, or null.
  std::shared_ptr<Storage> FindSharedLocked(const ShareKey& key) const;
  // The last reference of a published storage is gone: true when the
  // caller must not free the range (another process still holds it).
  bool ReleaseShareLocked(Storage* s);
  void ReclaimRetiredLocked(int gpu);
  // The share key a dma-buf descriptor of another process names (its memfd name).
  static bool ForeignDmabufKey(uint32_t fd, ShareKey* key);
  int EnsureDoorbellPage(int gpu);                     // proc_mu_ held
  int MmapKfd(void* addr, size_t length, int prot, int flags, uint64_t offset, void** out);
  int MmapRender(const IoctlCtx& ctx, void* addr, size_t length, int prot, int flags,
                 uint64_t offset, void** out);

  int IocGetProcessApertures(IoctlCtx& c, void* d);
  int IocGetProcessAperturesNew(IoctlCtx& c, void* d);
  int IocAcquireVm(IoctlCtx& c, void* d);
  int IocAllocMemory(IoctlCtx& c, void* d);
  int IocFreeMemory(IoctlCtx& c, void* d);
  int IocMapMemory(IoctlCtx& c, void* d);
  int IocUnmapMemory(IoctlCtx& c, void* d);
  int IocAvailableMemory(IoctlCtx& c, void* d);
  int IocExportDmabuf(IoctlCtx& c, void* d);
  int IocGetDmabufInfo(IoctlCtx& c, void* d);
  int IocImportDmabuf(IoctlCtx& c, void* d);
  int IocIpcExport(IoctlCtx& c, void* d);
  uint64_t AddAliasBo(int gpu, uint32_t gpu_id, uint64_t va, const std::shared_ptr<Storage>& storage,
                      uint32_t flags);
  int IocIpcImport(IoctlCtx& c, void* d);

  // ---------------- gem.cc (proc_mu_ held unless noted) ----------------
  // A BO created on a render node (GEM_CREATE / GEM_USERPTR), or the GEM
  // view of a KFD BO imported there through its dma-buf. Shared by the
  // handles of every DRM file that has one and by its dma-buf; the last
  // reference drops the storage (GemRef's deleter, run under proc_mu_).
  struct GemObject {
    int gpu = -1;
    std::shared_ptr<Storage> storage;  // null for userptr objects
    uint64_t size = 0;                 // bytes, page aligned
    uint64_t alignment = 0, domains = 0, flags = 0;  // GEM_OP's create info
    uint64_t userptr = 0;
    uint64_t tiling = 0, metadata_flags = 0;
    std::vector<uint8_t> metadata;  // GEM_METADATA, at most 256 bytes
    FileKey dmabuf{};               // its dma-buf, when exported (dmabufs_ key)
    bool exported = false;
  };
  using GemRef = std::shared_ptr<GemObject>;
  struct GemFile {  // the GEM handles of one DRM file (IDR from 1)
    IdPool ids{1};
    std::map<uint32_t, GemRef> handles;
  };
  GemRef NewGemLocked(int gpu, const std::shared_ptr<Storage>& storage);
  int DrmGemIoctl(IoctlCtx& c, unsigned long request, void* arg, const char** trace_name,
                  bool* unknown);
  int IocGemClose(IoctlCtx& c, void* d);
  int IocPrimeHandleToFd(IoctlCtx& c, void* d);
  int IocPrimeFdToHandle(IoctlCtx& c, void* d);
  int IocGemCreate(IoctlCtx& c, void* d);
  int IocGemMmap(IoctlCtx& c, void* d);
  int IocGemMetadata(IoctlCtx& c, void* d);
  int IocGemWaitIdle(IoctlCtx& c, void* d);
  int IocGemOp(IoctlCtx& c, void* d);
  int IocGemUserptr(IoctlCtx& c, void* d);
  GemRef* GemLookupLocked(const IoctlCtx& c, uint32_t handle);
  // A new dma-buf fd for `storage` (sized like it, so lseek(SEEK_END)
  // gives the size), registered in dmabufs_ with its own storage reference.
  int NewDmabufLocked(const std::shared_ptr<Storage>& storage, uint32_t kfd_flags, GemRef gem,
                      bool cloexec, int* out_fd, FileKey* out_key);
  // Forgets the dma-bufs no descriptor of the process refers to any more
  // (the simulator's pin aside), as the kernel releases a dma-buf with its
  // last file reference.
  void DmabufCollectLocked();
  // The GEM handles of a DRM file die with it (drm_gem_release).
  void GemFileClosedLocked(const FileKey& key);
  // mmap of a GEM object this file has a handle to; ENOENT when none holds `offset`.
  int MmapGemLocked(const IoctlCtx& ctx, void* addr, size_t length, int prot, int flags,
                    uint64_t offset, void** out);

  // ---------------- events.cc ----------------
  struct Waiter;
  struct Event {
    uint32_t id = 0;
    uint32_t type = 0;
    bool auto_reset = false;
    bool signaled = false;
    uint64_t age = 1;
    hke::kfd::HsaMemoryExceptionData memory{};
    hke::kfd::HsaHwExceptionData hw{};
    std::vector<Waiter*> waiters;
  };
  struct Waiter {
    Event* event = nullptr;  // null once the event is destroyed
    bool activated = false;
    bool age_enabled = false;
  };
  void SetEventLocked(Event* ev);
  int KmapEventPage(uint64_t handle);  // proc_mu_ held
  void DropEventsLocked();             // ev_mu_ held

  int IocCreateEvent(IoctlCtx& c, void* d);
  int IocDestroyEvent(IoctlCtx& c, void* d);
  int IocSetEvent(IoctlCtx& c, void* d);
  int IocResetEvent(IoctlCtx& c, void* d);
  int IocWaitEvents(IoctlCtx& c, void* d);

  // ---------------- engines/ ----------------
  // What the simulated GPU keeps for one queue (the MQD's view): the
  // engine's own read pointer and the stop state. Under proc_mu_.
  struct QueueEngine {
    uint64_t rptr = 0;  // monotonic: bytes (SDMA), dwords (PM4), packet index (AQL)
    bool stopped = false;
    bool waiting = false;
    uint32_t exception_code = 0;
    uint64_t fault_va = 0;
    uint64_t packets = 0;
    std::string reason;
    // Kernel dispatches of this queue (core/shader/), created by the first.
    std::shared_ptr<shader::QueueShaderState> shader;
  };
  // ---------------- queues.cc ----------------
  struct Queue {
    QueueView view;
    int gpu = -1;
    uint32_t percentage = 0;
    uint32_t priority = 0;
    uint32_t doorbell_id = 0;
    uint64_t eop_address = 0, eop_size = 0, ctx_save_restore_address = 0;
    uint32_t ctx_save_restore_size = 0, ctl_stack_size = 0;
    std::vector<uint32_t> cu_mask;
    bool gws = false;
    uint64_t exception_status = 0;  // debug events raised on this queue
    bool holds_buffers = false;     // created with the buffer checks: UNMAP/FREE are EBUSY
    QueueEngine engine;
    // The kernel's QUEUE_IS_ACTIVE: a ring and a share of the hardware.
    // UPDATE_QUEUE with no ring or percentage 0 makes a queue inactive; the
    // engines ignore its doorbell until an update makes it active again.
    bool active() const {
      return view.ring_base_address != 0 && view.ring_size != 0 && (percentage & 0xFF) != 0;
    }
  };
  // queue_buffers.cc: the kernel's queue buffer checks (from KFD 1.17).
  bool QueueBufferChecksOn() const;
  int QueueBuffersCheckLocked(int gpu, const hke::kfd::CreateQueueArgs& a) const;
  int QueueBufferGetLocked(int gpu, uint64_t addr, uint64_t expected) const;
  int QueueBufferSvmLocked(int gpu, uint64_t addr, uint64_t size) const;
  // True when a live queue (of GPU index `gpu`, any when -1) holds `bo`.
  bool QueueHoldsLocked(int gpu, const Bo& bo) const;
  int IocCreateQueue(IoctlCtx& c, void* d);
  int IocDestroyQueue(IoctlCtx& c, void* d);
  int IocUpdateQueue(IoctlCtx& c, void* d);
  int IocSetCuMask(IoctlCtx& c, void* d);
  int IocGetQueueWaveState(IoctlCtx& c, void* d);
  int IocAllocQueueGws(IoctlCtx& c, void* d);

  // ---------------- engines/ (proc_mu_ held unless noted) ----------------
  // gpu_memory.cc: the GPU's view of memory; 0 or EFAULT (no mapping).
  int GpuRead(int gpu, uint64_t va, void* dst, uint64_t n);
  int GpuWrite(int gpu, uint64_t va, const void* src, uint64_t n);
  int GpuAccess(int gpu, uint64_t va, void* buf, uint64_t n, bool write);
  // scheduler.cc
  uint64_t ReadDoorbellLocked(const Queue& q) const;
  // Runs up to `budget` packets; true when the queue made progress.
  bool StepQueueLocked(Queue& q, uint32_t budget, uint64_t* done);
  void StopQueueLocked(Queue& q, uint32_t exception_code, const std::string& reason);
  // A GPU page fault raised by queue `q` at `va` (memory events + stop).
  void GpuFaultLocked(Queue& q, uint64_t va, const char* what);
  // kfd_signal_event_interrupt(pasid, partial_id, valid_id_bits).
  void EventInterruptLocked(uint32_t partial_id, uint32_t valid_id_bits);
  // An interrupt raised by a packet: queued, delivered (EventInterruptLocked)
  // once the step has written the read pointer back, as the interrupt
  // reaches the KFD only after the engine moved past the packet.
  void RaiseInterruptLocked(uint32_t partial_id, uint32_t valid_id_bits);
  void EngineQueueCreatedLocked();  // starts or wakes the thread
  void EngineThreadMain();          // the thread's loop; takes proc_mu_ itself
  // Packet processors: progress (packets retired) through *done.
  bool StepSdmaLocked(Queue& q, uint32_t budget, uint64_t* done);
  bool StepPm4Locked(Queue& q, uint32_t budget, uint64_t* done);
  bool StepAqlLocked(Queue& q, uint32_t budget, uint64_t* done);
  // Reads `n` bytes of the ring at byte offset `off` (modulo the ring size).
  int RingRead(const Queue& q, uint64_t off, void* dst, uint64_t n);

  // ---------------- shader/bridge.cc (proc_mu_ held) ----------------
  // Kernel dispatches on the simulated shader cores. kDone: the kernel
  // finished (the caller completes the packet); kRunning: it ran out of
  // this step's budget and continues on the next step; kStopped: the queue
  // stopped (a wave exception, a memory fault, a bad packet).
  enum class KernelStep { kDone, kRunning, kStopped };
  // AQL kernel dispatch packet `pkt` (64 bytes) at ring index `index`,
  // stored at GPU VA `slot`.
  KernelStep AqlKernelDispatchLocked(Queue& q, const uint8_t* pkt, uint64_t index, uint64_t slot);
  // PM4 SET_SH_REG (register offset from 0x2c00 and values) and
  // DISPATCH_DIRECT (workgroup counts) at ring dword `packet`.
  void Pm4SetShRegLocked(Queue& q, uint32_t offset, const uint32_t* values, uint64_t n);
  KernelStep Pm4DispatchDirectLocked(Queue& q, const uint32_t dims[3], uint64_t packet);
  // Reports a wave that stopped the dispatch (exception and memory events).
  void ShaderErrorLocked(Queue& q, const shader::Wave& w);
  // Wave-instructions the shader cores executed for this process so far.
  uint64_t shader_instructions_ = 0;
  // The waves' view of this process's GPU page table (bridge.cc) reads the
  // BO table and the SVM ranges.
  friend class ShaderVm;

  // ---------------- svm.cc (proc_mu_ held unless noted) ----------------
  struct SvmRange {
    uint64_t end = 0;  // exclusive
    uint32_t preferred = hke::kfd::kSvmLocationUndefined;
    uint32_t prefetch = hke::kfd::kSvmLocationUndefined;
    uint32_t flags = hke::kfd::kSvmFlagHostAccess | hke::kfd::kSvmFlagCoherent;
    uint32_t granularity = 9;
    // gpu_id -> kSvmAttrAccess or kSvmAttrAccessInPlace (the kernel's
    // bitmap_access / bitmap_aip); a GPU not listed has no access.
    std::map<uint32_t, uint32_t> access;
    uint32_t actual_loc = 0;         // 0: system memory, else the gpu_id holding the pages
    bool mapped_to_gpu = false;      // the kernel's prange->mapped_to_gpu
    std::vector<uint32_t> mapped_on;  // gpu_ids whose page tables map the range
  };
  using SvmMap = std::map<uint64_t, SvmRange>;
  bool SvmOverlaps(uint64_t start, uint64_t size) const;
  bool SvmSupported(int gpu) const;  // the kernel's bitmap_supported
  SvmMap::iterator SvmFind(uint64_t addr);
  SvmMap::iterator SvmSplit(uint64_t at);  // range starting at `at` after the split
  SvmRange SvmDefaults() const;
  // The MMU notifier's unmap (svm_range_unmap_from_cpu) of [start, end).
  void SvmUnmapLocked(uint64_t start, uint64_t end);
  // Unmaps the parts of ranges overlapping [start, end) that are no longer
  // host memory (host unmaps the simulator did not see).
  void SvmPruneLocked(uint64_t start, uint64_t end);
  // 0, EFAULT (not host memory) or EADDRINUSE (a mapped KFD BO overlaps).
  int SvmRangeValid(uint64_t start, uint64_t end) const;
  void SvmSendLocked(uint32_t gpu_id, uint32_t event, const std::string& fields);
  void SvmMigrateLocked(SvmRange& r, uint64_t start, uint64_t end, uint32_t to, uint32_t trigger);
  uint32_t SvmBestPrefetch(const SvmRange& r) const;
  bool SvmSameHive(uint32_t a, uint32_t b) const;
  // A GPU retry fault (XNACK on) at `va` in range `it`: 0 when recovered.
  int SvmRestoreLocked(int gpu, SvmMap::iterator it, uint64_t va, bool write);
  // An unregistered range around `va` (XNACK fault on host memory not in
  // any range); svm_.end() when the page is not host memory.
  SvmMap::iterator SvmCreateUnregisteredLocked(uint64_t va);
  // The GPU's access to SVM memory [va, end): 0 with *hit (host pages at
  // va), 0 without (not SVM memory), or EFAULT.
  int SvmGpuAccessLocked(int gpu, uint64_t va, uint64_t end, bool write, bool* hit);
  int IocSvm(IoctlCtx& c, void* d);

  // ---------------- process.cc ----------------
  int IocGetVersion(IoctlCtx& c, void* d);
  int IocSetMemoryPolicy(IoctlCtx& c, void* d);
  int IocGetClockCounters(IoctlCtx& c, void* d);
  int IocDeprecatedDebug(IoctlCtx& c, void* d);
  int IocSetScratchBackingVa(IoctlCtx& c, void* d);
  int IocGetTileConfig(IoctlCtx& c, void* d);
  int IocSetTrapHandler(IoctlCtx& c, void* d);
  int IocSmiEvents(IoctlCtx& c, void* d);
  int IocSetXnackMode(IoctlCtx& c, void* d);
  int IocCriu(IoctlCtx& c, void* d);
  int IocRuntimeEnable(IoctlCtx& c, void* d);
  int IocDbgTrap(IoctlCtx& c, void* d);
  int IocCreateProcess(IoctlCtx& c, void* d);

  // ---------------- secondary.cc ----------------
  // Secondary kfd_processes (AMDKFD_IOC_CREATE_PROCESS): each is a
  // Simulator of its own (same board description, no file provider) that
  // owns the /dev/kfd file it was created on and the render files it
  // acquires VMs with. The primary (root) routes every call on those
  // files to it; the secondary uses the root's trace sink, faults and
  // tamper. Lock order: root dev_mu_ -> secondary dev_mu_; the root never
  // holds a lock while it calls into a secondary.
  std::shared_ptr<Simulator> RouteOf(int fd);  // root: the secondary owning fd, or null
  // Root: hands the render file `key` to `sec` when no process bound a VM
  // to it yet; false otherwise.
  bool AdoptRenderFile(const FileKey& key, Simulator* sec);
  // Root: destroys `sec` once its /dev/kfd file is closed (the kernel's
  // release of a secondary process); files still open return to the root.
  void ReapIfClosed(const std::shared_ptr<Simulator>& sec);
  void DropSecondaries();  // root; no simulator lock held
  bool IsSecondary() const { return root_ != nullptr; }
  int IocDkmsDebug(IoctlCtx& c, void* d);

  // ---------------- profile.cc ----------------
  int IocRlcSpm(IoctlCtx& c, void* d);
  int IocPcSample(IoctlCtx& c, void* d);

  // ---------------- drm.cc ----------------
  int DrmIoctl(IoctlCtx& c, unsigned long request, void* arg, const char** trace_name,
               bool* unknown);

  // ---------------- dispatch.cc ----------------
  struct Fault {
    uint32_t key = 0;
    int error = 0;
    uint32_t nth = 0;
    uint32_t remaining = 0;  // 0 = unlimited
    uint32_t seen = 0;
  };
  int KfdIoctl(IoctlCtx& c, unsigned long request, void* arg, const char** trace_name,
               bool* unknown);
  bool TakeFault(uint32_t key, int* error);
  // ---------------- tamper.cc ----------------
  // Offers a handled call's reply to the tamper; returns the result the
  // caller gets and sets *tampered when the tamper changed it or the reply.
  int TamperReply(uint32_t request, void* arg, int result, bool* tampered);
  void Trace(const std::string& body);
  bool tracing();

 public:
  using Handler = int (Simulator::*)(IoctlCtx&, void*);

 private:
  Board board_;
  size_t page_size_ = 4096;

  std::mutex dev_mu_;
  std::map<FileKey, DeviceFile> files_;
  // secondary.cc. Root: files owned by a secondary -> that secondary (under
  // dev_mu_; route_count_ mirrors its size so the common path skips the
  // lookup). Secondary: root_ and its /dev/kfd file.
  std::map<FileKey, std::shared_ptr<Simulator>> routes_;
  std::atomic<size_t> route_count_{0};
  Simulator* root_ = nullptr;
  FileKey own_key_{};

  mutable std::mutex proc_mu_;
  std::vector<GpuProc> gpus_;
  std::map<uint32_t, Queue> queues_;
  IdPool queue_ids_;
  SvmMap svm_;  // start -> range, non-overlapping
  struct Dmabuf {
    std::shared_ptr<Storage> storage;
    uint32_t flags = 0;  // allocation flags of the exported BO
    int pin_fd = -1;     // internal dup keeping the inode (the key) alive
    GemRef gem;          // the GEM object (render-node exports, or made on first import)
  };
  // KFD allocation flags GET_DMABUF_INFO reports for a dma-buf.
  static uint32_t DmabufKfdFlags(const Dmabuf& b);
  std::map<FileKey, Dmabuf> dmabufs_;  // exported dma-buf fds, by inode
  std::map<FileKey, GemFile> gem_files_;  // GEM handles per DRM file (gem.cc)
  // IPC share handles (DKMS IPC_EXPORT_HANDLE): 4 words -> the storage.
  struct IpcShare {
    std::shared_ptr<Storage> storage;
    uint32_t flags = 0;
  };
  std::map<std::array<uint32_t, 4>, IpcShare> ipc_;
  uint32_t ipc_serial_ = 0;
  std::shared_ptr<ShareRegistry> shares_;  // share.cc, opened on first export/import
  bool shares_tried_ = false;
  const uint64_t share_owner_ = NextShareOwner();  // this simulator in the registry's holders
  static uint64_t NextShareOwner();
  // SMI descriptors (smi.cc), under smi_mu_ (taken after any other lock).
  struct SmiClient {
    int fd = -1;            // the simulator's end of the socket pair
    uint32_t gpu_id = 0;
    uint64_t mask = 0;      // bit (event - 1) set: the client wants the event
    uint8_t partial[8] = {};
    size_t partial_len = 0;  // bytes of an incomplete mask write
  };
  std::mutex smi_mu_;
  std::vector<SmiClient> smi_clients_;
  std::atomic<uint32_t> reset_seq_{0};  // GPU resets so far (SMI reset records)
  void SmiReadMasksLocked();
  void SmiResetLocked();
  bool xnack_enabled_ = false;
  // kfd_process_xnack_mode: XNACK can be on for this process (`supported`:
  // counting GPUs that switch per process); a new process's default is
  // XnackModeOk(false) (process.cc).
  bool XnackModeOk(bool supported) const;
  bool runtime_enabled_ = false;
  uint64_t runtime_r_debug_ = 0;
  bool runtime_ttmp_ = false;
  // DBG_TRAP state (process.cc): debug trapping of the calling process,
  // its exception mask, and the queues SUSPEND_QUEUES stopped.
  bool debug_trap_enabled_ = false;
  uint64_t debug_exception_mask_ = 0;
  std::vector<uint32_t> suspended_queues_;
  // Debug events (debug_events.cc, under proc_mu_): the debugger's event
  // descriptor (a dup of ENABLE's dbg_fd, owned here; -1 when none or when
  // dbg_fd is a simulated device file, which the kernel cannot write) and
  // the raised exception status of the process and of each GPU (a queue's
  // is Queue::exception_status).
  int debug_event_fd_ = -1;
  uint64_t process_exception_status_ = 0;
  std::vector<uint64_t> device_exception_status_;
  // Raises `mask` (one kind: queue, device or process codes) on queue
  // `queue_id`, GPU index `gpu` or the process, and writes one byte to the
  // debugger's descriptor when it is subscribed to one of the bits (the
  // kernel's kfd_dbg_ev_raise). True when subscribed. No-op without
  // DBG_TRAP ENABLE.
  bool DebugEventRaiseLocked(uint64_t mask, int gpu, uint32_t queue_id);
  // One event byte to the debugger's descriptor (never blocks).
  void DebugEventNotifyLocked();
  // ENABLE's descriptor taken (0 or an errno), DISABLE's release, and the
  // state a DISABLE or a process reset leaves.
  int DebugEventFdTakeLocked(int dbg_fd, bool simulated_device);
  void DebugEventsResetLocked();
  // True when `fd` is one of this simulator's device files (no side effect).
  bool IsSimulatedDeviceFd(int fd);
  // Event page (under proc_mu_ for the handle, ev_mu_ for the slots).
  uint64_t event_page_handle_ = 0;  // user BO handle (dGPU), 0 when none

  std::mutex ev_mu_;
  std::condition_variable ev_cv_;
  std::map<uint32_t, std::unique_ptr<Event>> events_;
  IdPool signal_ids_{0};
  IdPool other_ids_{0x40000000u};  // KFD_FIRST_NONSIGNAL_EVENT_ID
  volatile uint64_t* slots_ = nullptr;  // simulator's view of the event page
  size_t slots_map_len_ = 0;
  int page_fd_ = -1;          // fd the EVENTS mmap maps (not owned when user page)
  bool page_fd_owned_ = false;
  uint64_t page_fd_offset_ = 0;
  uint64_t signal_mapped_size_ = 0;
  uint32_t signal_event_count_ = 0;

  std::mutex hook_mu_;
  // Whether a trace sink, a fault and a reply tamper are set: written with
  // hook_mu_ held, read without it first, so a call with no hook armed
  // takes no lock for them. An ioctl racing the call that arms a hook may
  // or may not see it, as it could with the lock.
  std::atomic<bool> trace_armed_{false};
  std::atomic<bool> faults_armed_{false};
  std::atomic<bool> tamper_armed_{false};
  TraceSink trace_sink_ = nullptr;
  void* trace_user_ = nullptr;
  std::vector<Fault> faults_;
  std::map<uint32_t, uint32_t> call_counts_;
  QueueHook queue_hook_ = nullptr;
  void* queue_hook_user_ = nullptr;
  ReplyTamper tamper_ = nullptr;
  void* tamper_user_ = nullptr;
  std::atomic<uint64_t> seq_{1};
  std::atomic<uint64_t> unknown_requests_{0};
  std::atomic<uint32_t> last_unknown_request_{0};

  // The engine thread (core/engines/scheduler.cc). Declared last so that it
  // is destroyed first: its destructor stops and joins the thread before any
  // state the thread touches goes away (~Simulator's body has already run
  // ResetProcess, so the thread is idle by then). `mu` is a leaf lock (taken
  // under proc_mu_ by CREATE_QUEUE, never held while taking proc_mu_); the
  // thread sleeps on `cv` and never sleeps holding proc_mu_.
  struct EngineThread {
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    bool kick = false;
    EngineMode mode = EngineMode::kThread;
    bool started = false;  // `thread` is joinable (forgotten in a fork child)
    pthread_t thread{};
    int owner_pid = 0;     // process that started it
    ~EngineThread();
    void Stop();  // joins; no-op without a thread
    // In a fork child the thread does not exist: forget it (mu is reset).
    void ForgetIfForked();
  };
  // Interrupts raised during the current queue step (under proc_mu_).
  std::vector<std::pair<uint32_t, uint32_t>> pending_interrupts_;
  EngineThread engine_;

  // fork() safety (fork.cc): every live simulator is registered, and
  // pthread_atfork handlers take all of its locks (in the order dev_mu_,
  // proc_mu_, ev_mu_, smi_mu_, engine_.mu, hook_mu_) around a fork, so a
  // child never inherits a lock that another thread, e.g. the engine
  // thread, held at that moment.
  void RegisterForFork();
  void UnregisterForFork();
 public:
  void LockForFork();
  void UnlockForFork();
};

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_CORE_SIMULATOR_H_
