// hke_platform_ops over kfdsim's C ABI. Flags are translated from the
// portable HKE_* values to the host values kfdsim expects.
#include "platform/sim/inprocess/sim_platform.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "hsakmt/hsakmt_linux.h"

namespace {

kfdsim_t* Sim(void* self) { return static_cast<kfdsim_t*>(self); }

// Everything that is not the simulator's (anonymous memory, clocks, the
// process id, descriptors the simulator does not own) is the host's: the
// Linux table does it.
const hke_platform_ops& Host() { return *hke_linux_platform_ops(); }

int HostProt(uint32_t prot) {
  int p = PROT_NONE;
  if (prot & HKE_PROT_READ) p |= PROT_READ;
  if (prot & HKE_PROT_WRITE) p |= PROT_WRITE;
  if (prot & HKE_PROT_EXEC) p |= PROT_EXEC;
  return p;
}

int HostMapFlags(uint32_t flags) {
  int f = (flags & HKE_MAP_SHARED) ? MAP_SHARED : MAP_PRIVATE;
  if (flags & HKE_MAP_FIXED) f |= MAP_FIXED;
  if (flags & HKE_MAP_ANONYMOUS) f |= MAP_ANONYMOUS;
  if (flags & HKE_MAP_NORESERVE) f |= MAP_NORESERVE;
  if (flags & HKE_MAP_FIXED_NOREPLACE) f |= MAP_FIXED_NOREPLACE;
  return f;
}

// A regular file of the board opened for reading (e.g. /proc/cpuinfo,
// streamed with read_fd): a host memfd holding a copy of its content, so
// read_fd and close go to the host.
int OpenServedFile(kfdsim_t* sim, const char* path, uint32_t flags, int* out_fd) {
  if ((flags & HKE_OPEN_RDWR) != 0) return EACCES;
  std::string text(1 << 16, '\0');
  size_t n = 0;
  int r = kfdsim_read_file(sim, path, &text[0], text.size(), &n);
  while (r == EFBIG && text.size() < (size_t{1} << 28)) {
    text.resize(text.size() * 4);
    r = kfdsim_read_file(sim, path, &text[0], text.size(), &n);
  }
  if (r != 0) return r;
  const int fd = memfd_create("kfdsim-file", (flags & HKE_OPEN_CLOEXEC) ? MFD_CLOEXEC : 0u);
  if (fd < 0) return errno;
  size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd, text.data() + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = w < 0 ? errno : EIO;
      ::close(fd);
      return e;
    }
    done += static_cast<size_t>(w);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    const int e = errno;
    ::close(fd);
    return e;
  }
  *out_fd = fd;
  return 0;
}

int Open(void* self, const char* path, uint32_t flags, int* out_fd) {
  if (path == nullptr || out_fd == nullptr) return EINVAL;
  if (kfdsim_iommu_pmu_owns_path(Sim(self), path)) return EACCES;  // read_file/list_dir only
  if (!kfdsim_owns_path(Sim(self), path)) return ENOENT;
  uint32_t kind = 0;
  if (kfdsim_file_kind(Sim(self), path, &kind) == 0 && kind == KFDSIM_FILE_REGULAR) {
    return OpenServedFile(Sim(self), path, flags, out_fd);
  }
  int f = (flags & HKE_OPEN_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & HKE_OPEN_CLOEXEC) f |= O_CLOEXEC;
  if (flags & HKE_OPEN_DIRECTORY) f |= O_DIRECTORY;
  return kfdsim_open(Sim(self), path, f, out_fd);
}

int Close(void* self, int fd) {
  if (kfdsim_perf_owns_fd(Sim(self), fd)) return kfdsim_perf_close(Sim(self), fd);
  if (kfdsim_owns_fd(Sim(self), fd)) return kfdsim_close(Sim(self), fd);
  return Host().close(nullptr, fd);
}

// One descriptor lookup (an fstat) per ioctl: kfdsim_owns_fd followed by
// kfdsim_ioctl would identify the descriptor twice.
int Ioctl(void* self, int fd, uint32_t request, void* arg) {
  int owned = 0;
  const int r = kfdsim_ioctl_owned(Sim(self), fd, request, arg, &owned);
  return owned ? r : EBADF;
}

// A new mapping lies where nothing was mapped, or replaced what was
// (MAP_FIXED): either way no SVM range may remain there (the simulated MMU
// notifier; the simulator's own fds tell it themselves), and a fixed
// mapping drops the NUMA policy of what it replaced.
int Mmap(void* self, void* addr, size_t length, uint32_t prot, uint32_t flags, int fd,
         uint64_t offset, void** out_addr) {
  if (out_addr == nullptr || length == 0) return EINVAL;
  int r = 0;
  if ((flags & HKE_MAP_ANONYMOUS) == 0 && kfdsim_owns_fd(Sim(self), fd)) {
    r = kfdsim_mmap(Sim(self), addr, length, HostProt(prot), HostMapFlags(flags), fd, offset,
                    out_addr);
  } else {
    r = Host().mmap(nullptr, addr, length, prot, flags, fd, offset, out_addr);
    if (r == 0) kfdsim_host_unmapped(Sim(self), *out_addr, length);
  }
  if (r == 0 && (flags & HKE_MAP_FIXED) != 0) kfdsim_mem_policy_forget(Sim(self), addr, length);
  return r;
}

int Munmap(void* self, void* addr, size_t length) {
  const int r = Host().munmap(nullptr, addr, length);
  if (r == 0) {
    kfdsim_host_unmapped(Sim(self), addr, length);
    kfdsim_mem_policy_forget(Sim(self), addr, length);
  }
  return r;
}

// The simulated host's mbind (the board's NUMA nodes, recorded only).
int MemPolicy(void* self, void* addr, size_t length, uint32_t mode, uint32_t node) {
  return kfdsim_mem_policy_set(Sim(self), addr, length, mode, node);
}

int Madvise(void*, void* addr, size_t length, uint32_t advice) {
  return Host().madvise(nullptr, addr, length, advice);
}

int ReadFile(void* self, const char* path, char* buf, size_t capacity, size_t* out_length) {
  if (path == nullptr || out_length == nullptr) return EINVAL;
  if (kfdsim_iommu_pmu_owns_path(Sim(self), path)) {
    return kfdsim_iommu_pmu_read_file(Sim(self), path, buf, capacity, out_length);
  }
  if (!kfdsim_owns_path(Sim(self), path)) return ENOENT;
  size_t n = 0;
  const int r = kfdsim_read_file(Sim(self), path, buf, capacity, &n);
  if (r != 0) return r;  // EFBIG leaves *out_length alone, per the platform contract
  *out_length = n;
  return 0;
}

int ListDir(void* self, const char* path, hke_dirent_fn fn, void* user) {
  if (path == nullptr || fn == nullptr) return EINVAL;
  const bool pmu = kfdsim_iommu_pmu_owns_path(Sim(self), path) != 0;
  if (!pmu && !kfdsim_owns_path(Sim(self), path)) return ENOENT;
  // kfdsim's file and directory kinds become HKE_DIRENT_FILE/DIR; a device
  // node is reported as "other".
  struct Relay {
    hke_dirent_fn fn;
    void* user;
  } relay{fn, user};
  const kfdsim_dirent_fn each = [](void* u, const char* name, uint32_t kind) {
    auto* r = static_cast<Relay*>(u);
    uint32_t k = HKE_DIRENT_UNKNOWN;
    if (kind == KFDSIM_FILE_REGULAR) k = HKE_DIRENT_FILE;
    if (kind == KFDSIM_FILE_DIR) k = HKE_DIRENT_DIR;
    if (kind == KFDSIM_FILE_DEVICE) k = HKE_DIRENT_OTHER;
    return r->fn(r->user, name, k);
  };
  if (pmu) return kfdsim_iommu_pmu_list_dir(Sim(self), path, each, &relay);
  return kfdsim_list_dir(Sim(self), path, each, &relay);
}

int ClockNs(void*, uint32_t clock, uint64_t* out_ns) { return Host().clock_ns(nullptr, clock, out_ns); }

int CpuCount(void* self, uint32_t* out_count) {
  if (out_count == nullptr) return EINVAL;
  const uint32_t n = kfdsim_cpu_count(Sim(self));
  if (n == 0) return EIO;
  *out_count = n;
  return 0;
}

int ProcessId(void*, int32_t* out_pid) { return Host().process_id(nullptr, out_pid); }

int ReadFd(void*, int fd, void* buf, size_t capacity, size_t* out_length) {
  return Host().read_fd(nullptr, fd, buf, capacity, out_length);
}

int PageSize(void*, size_t* out_size) { return Host().page_size(nullptr, out_size); }

// The host's amdgpu.ids answers, as it does for Debian's libdrm under the
// preload (the simulator serves DEV_INFO's revision, not the name table).
int MarketingName(void*, uint32_t device_id, uint32_t revision, char* buf, size_t capacity) {
  return Host().marketing_name(nullptr, device_id, revision, buf, capacity);
}

// The simulated IOMMU PMU's counters (kfdsim_perf_*).
int PerfOpen(void* self, uint32_t type, uint64_t config, int* out_fd) {
  return kfdsim_perf_open(Sim(self), type, config, out_fd);
}

int PerfEnable(void* self, int fd, uint32_t enable) {
  return kfdsim_perf_enable(Sim(self), fd, enable);
}

int PerfRead(void* self, int fd, uint64_t out_values[3]) {
  return kfdsim_perf_read(Sim(self), fd, out_values);
}

// The host's (futex) mutexes: a simulated board changes nothing about
// how the library's threads wait for each other.
int MutexInit(void*, void* m) { return Host().mutex_init(nullptr, m); }
void MutexLock(void*, void* m) { Host().mutex_lock(nullptr, m); }
void MutexUnlock(void*, void* m) { Host().mutex_unlock(nullptr, m); }
void MutexDestroy(void*, void* m) { Host().mutex_destroy(nullptr, m); }

const hke_platform_ops kSimOps = {
    sizeof(hke_platform_ops), HKE_PLATFORM_ABI_VERSION,
    Open, Close, Ioctl, Mmap, Munmap, Madvise, ReadFile, ListDir, ClockNs, CpuCount,
    ProcessId, ReadFd, PageSize, MarketingName,
    // No libdrm device handles: the simulated render nodes answer DRM
    // ioctls only through this table, which libdrm cannot use.
    nullptr, nullptr,
    PerfOpen, PerfEnable, PerfRead, MemPolicy,
    MutexInit, MutexLock, MutexUnlock, MutexDestroy,
    // No read_file_at or list_dir_fd: the served tree has no host
    // directories to hold open, so the library reads every file by its
    // path (read_file) and lists by path (list_dir).
    nullptr, nullptr,
};

}  // namespace

extern "C" hke_platform hke_sim_platform(kfdsim_t* sim) {
  hke_platform p;
  p.ops = &kSimOps;
  p.self = sim;
  return p;
}
