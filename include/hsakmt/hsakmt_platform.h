/*
 * hsakmt-embedded platform table: the only way the library reaches the OS.
 *
 * A board port implements one `hke_platform_ops` table in C or C++ and hands
 * it, together with an opaque `self` pointer, to hke_context_init(). The
 * library never calls open/ioctl/mmap/read itself; every file, device and
 * clock operation goes through this table. The backends shipped with the
 * project live in platform/: `linux` (plain libc calls), `trace` and `faults`
 * (decorators that wrap another table), and the KFD simulator.
 *
 * Conventions, for every operation:
 *  - The return value is 0 on success or a positive Linux errno value (the
 *    asm-generic numbering used by x86, arm, arm64 and riscv). A port to an
 *    OS with other errno numbers translates them.
 *  - Outputs are written only on success.
 *  - Flags are the portable HKE_* values below, never the host's O_* or
 *    PROT_* numbers; the backend translates them.
 *  - Paths are absolute, NUL-terminated and as the library composed them
 *    (e.g. "/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties"); a
 *    backend may serve them from anywhere.
 *  - Threading: the library may call any operation from any thread at the
 *    same time; a table must be thread-safe or the caller must serialise
 *    all use of the contexts that share it.
 *  - An operation that the platform does not provide may be NULL; the
 *    library then reports HKE_STATUS_UNSUPPORTED for the features that need
 *    it. `open`, `close`, `ioctl` and `read_file` are required.
 *  - The table must not change while a context uses it (from
 *    hke_context_init to hke_context_deinit): the library may resolve its
 *    operations once.
 */
#ifndef HSAKMT_HSAKMT_PLATFORM_H_
#define HSAKMT_HSAKMT_PLATFORM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the table layout. Appending operations does not change it
 * (struct_size tells which ones a port has); it changes only for a layout
 * that older ports cannot be read as. */
#define HKE_PLATFORM_ABI_VERSION 1u

/* Bytes of storage the library gives each platform mutex (mutex_init). */
#define HKE_PLATFORM_MUTEX_BYTES 64u

/* Open flags (portable). */
#define HKE_OPEN_READ 0x1u      /* read-only */
#define HKE_OPEN_RDWR 0x2u      /* read-write */
#define HKE_OPEN_CLOEXEC 0x4u   /* close on exec (the library always sets it) */
#define HKE_OPEN_DIRECTORY 0x8u /* must be a directory */

/* Memory protection (portable). */
#define HKE_PROT_NONE 0x0u
#define HKE_PROT_READ 0x1u
#define HKE_PROT_WRITE 0x2u
#define HKE_PROT_EXEC 0x4u

/* Mapping flags (portable). */
#define HKE_MAP_SHARED 0x01u
#define HKE_MAP_PRIVATE 0x02u
#define HKE_MAP_FIXED 0x04u
#define HKE_MAP_ANONYMOUS 0x08u
#define HKE_MAP_NORESERVE 0x10u
#define HKE_MAP_FIXED_NOREPLACE 0x20u

/* madvise advice (portable). */
#define HKE_ADVICE_DONTFORK 1u
#define HKE_ADVICE_DOFORK 2u
#define HKE_ADVICE_HUGEPAGE 3u

/* NUMA memory policy modes of mem_policy (portable; Linux MPOL_*). */
#define HKE_MPOL_DEFAULT 0u   /* no policy of its own: the process default */
#define HKE_MPOL_PREFERRED 1u /* pages from the node while it has free memory, else elsewhere */
#define HKE_MPOL_BIND 2u      /* pages only from the node */

/* Clocks. */
#define HKE_CLOCK_MONOTONIC 0u
#define HKE_CLOCK_MONOTONIC_RAW 1u
#define HKE_CLOCK_BOOTTIME 2u
#define HKE_CLOCK_REALTIME 3u

/* Directory entry kinds reported by list_dir. */
#define HKE_DIRENT_UNKNOWN 0u
#define HKE_DIRENT_FILE 1u
#define HKE_DIRENT_DIR 2u
#define HKE_DIRENT_OTHER 3u

/*
 * Called once per directory entry ("." and ".." are never reported). `name`
 * is valid only during the call. Return 0 to continue, nonzero to stop the
 * listing early (list_dir then returns 0).
 */
typedef int (*hke_dirent_fn)(void* user, const char* name, uint32_t kind);

typedef struct hke_platform_ops {
  /* sizeof(hke_platform_ops) as the port was compiled; lets the library
   * accept tables from older ports that lack appended operations. */
  uint32_t struct_size;
  /* HKE_PLATFORM_ABI_VERSION the port was written against. */
  uint32_t abi_version;

  /* Opens a device node or file. */
  int (*open)(void* self, const char* path, uint32_t flags, int* out_fd);
  /* Closes a descriptor. The descriptor is released even when an error is
   * returned (Linux semantics); the library never retries a close. */
  int (*close)(void* self, int fd);
  /* Issues an ioctl. `request` is the full Linux request code; the size of
   * the argument is _IOC_SIZE(request). EINTR/EAGAIN are returned as is;
   * the library owns the retry policy. */
  int (*ioctl)(void* self, int fd, uint32_t request, void* arg);
  /* Maps `length` bytes. `fd` is -1 for anonymous mappings. `offset` is the
   * full 64-bit file offset (KFD doorbell offsets use the top bits). */
  int (*mmap)(void* self, void* addr, size_t length, uint32_t prot, uint32_t flags,
              int fd, uint64_t offset, void** out_addr);
  /* Unmaps a range mapped by mmap. */
  int (*munmap)(void* self, void* addr, size_t length);
  /* Gives advice on a range (HKE_ADVICE_*). May be NULL. */
  int (*madvise)(void* self, void* addr, size_t length, uint32_t advice);
  /* Reads a whole small file into `buf` (at most `capacity` bytes, no NUL is
   * added). A file longer than `capacity` fails with EFBIG and writes
   * nothing to *out_length (the buffer contents are then unspecified).
   * Meant for files that hand their whole text to one read (regular files,
   * sysfs and single-value procfs attributes): a port may take a read
   * shorter than asked as the end of the file (the Linux backend does, so
   * a file costs open, one read and close). */
  int (*read_file)(void* self, const char* path, char* buf, size_t capacity,
                   size_t* out_length);
  /* Lists a directory, calling `fn` for each entry. May be NULL. */
  int (*list_dir)(void* self, const char* path, hke_dirent_fn fn, void* user);
  /* Reads a clock (HKE_CLOCK_*) in nanoseconds. May be NULL. */
  int (*clock_ns)(void* self, uint32_t clock, uint64_t* out_ns);
  /* Number of CPUs the topology should assume (get_nprocs). May be NULL. */
  int (*cpu_count)(void* self, uint32_t* out_count);
  /* Identifier of the calling process, for fork detection. May be NULL. */
  int (*process_id)(void* self, int32_t* out_pid);
  /* Reads from a descriptor (SMI event fds, dmabuf checks). May be NULL.
   * Returns the byte count in *out_length; 0 means end of file. */
  int (*read_fd)(void* self, int fd, void* buf, size_t capacity, size_t* out_length);
  /* Page size of the platform. May be NULL (then 4096). */
  int (*page_size)(void* self, size_t* out_size);

  /* Operations appended after the first layout: a port compiled against an
   * older header has a smaller struct_size and is read as lacking them. */

  /* Marketing name of an AMD GPU (e.g. "AMD Instinct MI210") from its PCI
   * device id and revision, as the amdgpu.ids table of libdrm names it.
   * Writes at most `capacity` bytes to `buf`, NUL included (a longer name
   * is cut). ENOENT when the table has no entry for the pair (the library
   * then uses libdrm's generic name), another errno when the table cannot
   * be read. May be NULL (no marketing names). */
  int (*marketing_name)(void* self, uint32_t device_id, uint32_t revision, char* buf,
                        size_t capacity);
  /* The libdrm_amdgpu device of an open render-node descriptor (what
   * amdgpu_device_initialize returns for it): *out_handle receives the
   * amdgpu_device_handle, owned by the platform until amdgpu_device_release.
   * The library asks at most once per render node and context, and
   * releases the handle before it closes the descriptor.
   * hsaKmtGetAMDGPUDeviceHandle hands it out. May be NULL (a build without
   * libdrm, the simulator): that call then reports NOT_SUPPORTED. */
  int (*amdgpu_device)(void* self, int render_fd, void** out_handle);
  /* Releases a handle amdgpu_device returned (amdgpu_device_deinitialize).
   * May be NULL only when amdgpu_device is. */
  void (*amdgpu_device_release)(void* self, void* handle);
  /* Host performance counters (Linux perf_event), for the privileged PMC
   * block (the AMD IOMMU PMU). All three may be NULL (no privileged
   * counters: hsaKmtPmcAcquireTraceAccess then reports NOT_SUPPORTED); a
   * port provides all three or none.
   * Opens one system-wide counter, as perf_event_open(attr, pid -1, cpu 0,
   * group -1, 0) with attr.type = `type` (the PMU's
   * /sys/bus/event_source/devices/<pmu>/type), attr.config = `config`,
   * created disabled, read format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING.
   * The descriptor is released with `close`. */
  int (*perf_open)(void* self, uint32_t type, uint64_t config, int* out_fd);
  /* Starts (`enable` 1) or stops (`enable` 0) counting on a descriptor of
   * perf_open (PERF_EVENT_IOC_ENABLE / PERF_EVENT_IOC_DISABLE). */
  int (*perf_enable)(void* self, int fd, uint32_t enable);
  /* Reads a descriptor of perf_open: out_values[0] the count,
   * out_values[1] the time enabled and out_values[2] the time running, in
   * nanoseconds. A short read is EIO. */
  int (*perf_read)(void* self, int fd, uint64_t out_values[3]);
  /* NUMA placement of memory the library maps itself, as Linux
   * mbind(addr, length, mode | MPOL_F_STATIC_NODES, {node}, ...): pages of
   * [addr, addr + length) faulted in from now on come from the host's NUMA
   * node `node` (/sys/devices/system/node/node<node>), preferably
   * (HKE_MPOL_PREFERRED) or only (HKE_MPOL_BIND); HKE_MPOL_DEFAULT drops
   * the range's own policy (`node` is then ignored). `addr` is page
   * aligned and the range mapped; pages already present are not moved.
   * A policy belongs to the mapping: unmapping the range or mapping over
   * it drops the policy too, so the library never resets one before it
   * releases a range. Errors as mbind's: EINVAL for an unknown mode or a
   * node the host cannot allocate from, EFAULT for an unmapped hole,
   * EPERM when policies are forbidden (a seccomp filter), ENOSYS when the
   * host has no NUMA support. The library binds paged system memory of a
   * dGPU with it (lib/README.md, "NUMA placement"). May be NULL: no
   * placement, pages come from wherever the OS puts them. */
  int (*mem_policy)(void* self, void* addr, size_t length, uint32_t mode, uint32_t node);

  /* Mutexes (optional: all four or none). The library keeps each of a
   * context's locks in HKE_PLATFORM_MUTEX_BYTES bytes of its own storage,
   * aligned to 8 bytes and zeroed before mutex_init; a port whose mutex is
   * larger keeps a handle to its own object there. mutex_init prepares the
   * storage (0, or an errno: that lock then spins), mutex_lock blocks until
   * the calling thread owns the mutex, mutex_unlock releases it (always
   * from the thread that locked it; never recursive), mutex_destroy ends
   * it when the context is deinitialised. The storage never moves between
   * init and destroy. A waiter should sleep, not spin: the library holds
   * some locks across kernel calls and the diagnostics callback. A
   * real-time port passes its RTOS mutex (with priority inheritance where
   * the RTOS has it); the Linux backend uses a futex. NULL: the library's
   * locks spin. */
  int (*mutex_init)(void* self, void* mutex);
  void (*mutex_lock)(void* self, void* mutex);
  void (*mutex_unlock)(void* self, void* mutex);
  void (*mutex_destroy)(void* self, void* mutex);

  /* read_file relative to a directory: reads the file `name` (a relative
   * path, which may hold '/', e.g. "caches/3/properties") below the
   * directory open on `dirfd` (a descriptor `open` returned for a path
   * with HKE_OPEN_DIRECTORY; the library closes it with `close`), as Linux
   * openat(dirfd, name, O_RDONLY | O_CLOEXEC). Same contract as read_file
   * (whole file, EFBIG above `capacity`, *out_length written only on
   * success, a short read may end the file). Lets the topology reader
   * open a node's directory once and its files by short names (the
   * kernel walks only the short name). May be NULL: the library then
   * reads every file by its absolute path with read_file. */
  int (*read_file_at)(void* self, int dirfd, const char* name, char* buf, size_t capacity,
                      size_t* out_length);
  /* list_dir through a descriptor: lists the directory open on `dirfd` (a
   * descriptor `open` returned for a path with HKE_OPEN_DIRECTORY) from
   * its first entry, with list_dir's rules (`fn` once per entry, "." and
   * ".." never reported, a nonzero return from `fn` stops the listing and
   * 0 is returned). Opens and closes nothing: the descriptor stays open
   * (the library closes it with `close`) and stays usable for
   * read_file_at; each call lists from the start again, wherever an
   * earlier one left the descriptor. Linux: lseek(dirfd, 0, SEEK_SET),
   * then getdents64 on it. Lets the topology reader list a directory it
   * holds open for read_file_at without opening it a second time; the
   * library uses it only on a table that also has read_file_at. May be
   * NULL: the library then lists by path with list_dir. */
  int (*list_dir_fd)(void* self, int dirfd, hke_dirent_fn fn, void* user);
} hke_platform_ops;

/* A platform instance: an operations table plus its state. Neither pointer
 * is owned by the library; both must outlive every context using them. */
typedef struct hke_platform {
  const hke_platform_ops* ops;
  void* self;
} hke_platform;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HSAKMT_HSAKMT_PLATFORM_H_ */
