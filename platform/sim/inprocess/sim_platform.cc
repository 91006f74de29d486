// hke_platform_ops over kfdsim's C ABI. Flags are translated from the
// portable HKE_* values to the host values kfdsim expects.
#include "platform/sim/inprocess/sim_platform.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

namespace {

kfdsim_t* Sim(void* self) { return static_cast<kfdsim_t*>(self); }

int Open(void* self, const char* path, uint32_t flags, int* out_fd) {
  if (path == nullptr || out_fd == nullptr) return EINVAL;
  int f = (flags & HKE_OPEN_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & HKE_OPEN_CLOEXEC) f |= O_CLOEXEC;
  if (flags & HKE_OPEN_DIRECTORY) f |= O_DIRECTORY;
  if (!kfdsim_owns_path(Sim(self), path)) return ENOENT;
  return kfdsim_open(Sim(self), path, f, out_fd);
}

int Close(void* self, int fd) {
  if (kfdsim_owns_fd(Sim(self), fd)) return kfdsim_close(Sim(self), fd);
  return ::close(fd) == 0 ? 0 : errno;
}

int Ioctl(void* self, int fd, uint32_t request, void* arg) {
  if (!kfdsim_owns_fd(Sim(self), fd)) return EBADF;
  return kfdsim_ioctl(Sim(self), fd, request, arg);
}

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

int Mmap(void* self, void* addr, size_t length, uint32_t prot, uint32_t flags, int fd,
         uint64_t offset, void** out_addr) {
  if (out_addr == nullptr || length == 0) return EINVAL;
  if ((flags & HKE_MAP_ANONYMOUS) == 0 && kfdsim_owns_fd(Sim(self), fd)) {
    return kfdsim_mmap(Sim(self), addr, length, HostProt(prot), HostMapFlags(flags), fd, offset,
                       out_addr);
  }
  void* p = ::mmap(addr, length, HostProt(prot), HostMapFlags(flags), fd,
                   static_cast<off_t>(offset));
  if (p == MAP_FAILED) return errno;
  *out_addr = p;
  return 0;
}

int Munmap(void*, void* addr, size_t length) {
  return ::munmap(addr, length) == 0 ? 0 : errno;
}

int Madvise(void*, void* addr, size_t length, uint32_t advice) {
  int a = 0;
  switch (advice) {
    case HKE_ADVICE_DONTFORK: a = MADV_DONTFORK; break;
    case HKE_ADVICE_DOFORK: a = MADV_DOFORK; break;
    case HKE_ADVICE_HUGEPAGE: a = MADV_HUGEPAGE; break;
    default: return EINVAL;
  }
  return ::madvise(addr, length, a) == 0 ? 0 : errno;
}

int ReadFile(void* self, const char* path, char* buf, size_t capacity, size_t* out_length) {
  if (path == nullptr || out_length == nullptr) return EINVAL;
  if (!kfdsim_owns_path(Sim(self), path)) return ENOENT;
  size_t n = 0;
  const int r = kfdsim_read_file(Sim(self), path, buf, capacity, &n);
  if (r != 0) return r;  // EFBIG leaves *out_length alone, per the platform contract
  *out_length = n;
  return 0;
}

int ListDir(void* self, const char* path, hke_dirent_fn fn, void* user) {
  if (path == nullptr || fn == nullptr) return EINVAL;
  if (!kfdsim_owns_path(Sim(self), path)) return ENOENT;
  // kfdsim's kinds equal the platform's HKE_DIRENT_* for file and dir; a
  // device node is reported as "other".
  struct Relay {
    hke_dirent_fn fn;
    void* user;
  } relay{fn, user};
  return kfdsim_list_dir(
      Sim(self), path,
      [](void* u, const char* name, uint32_t kind) {
        auto* r = static_cast<Relay*>(u);
        uint32_t k = HKE_DIRENT_UNKNOWN;
        if (kind == KFDSIM_FILE_REGULAR) k = HKE_DIRENT_FILE;
        if (kind == KFDSIM_FILE_DIR) k = HKE_DIRENT_DIR;
        if (kind == KFDSIM_FILE_DEVICE) k = HKE_DIRENT_OTHER;
        return r->fn(r->user, name, k);
      },
      &relay);
}

int ClockNs(void*, uint32_t clock, uint64_t* out_ns) {
  if (out_ns == nullptr) return EINVAL;
  clockid_t id;
  switch (clock) {
    case HKE_CLOCK_MONOTONIC: id = CLOCK_MONOTONIC; break;
    case HKE_CLOCK_MONOTONIC_RAW: id = CLOCK_MONOTONIC_RAW; break;
    case HKE_CLOCK_BOOTTIME: id = CLOCK_BOOTTIME; break;
    case HKE_CLOCK_REALTIME: id = CLOCK_REALTIME; break;
    default: return EINVAL;
  }
  struct timespec ts;
  if (::clock_gettime(id, &ts) != 0) return errno;
  *out_ns = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return 0;
}

int CpuCount(void* self, uint32_t* out_count) {
  if (out_count == nullptr) return EINVAL;
  const uint32_t n = kfdsim_cpu_count(Sim(self));
  if (n == 0) return EIO;
  *out_count = n;
  return 0;
}

int ProcessId(void*, int32_t* out_pid) {
  if (out_pid == nullptr) return EINVAL;
  *out_pid = static_cast<int32_t>(::getpid());
  return 0;
}

int ReadFd(void*, int fd, void* buf, size_t capacity, size_t* out_length) {
  if (out_length == nullptr) return EINVAL;
  const ssize_t n = ::read(fd, buf, capacity);
  if (n < 0) return errno;
  *out_length = static_cast<size_t>(n);
  return 0;
}

int PageSize(void*, size_t* out_size) {
  if (out_size == nullptr) return EINVAL;
  const long n = ::sysconf(_SC_PAGESIZE);
  if (n <= 0) return EIO;
  *out_size = static_cast<size_t>(n);
  return 0;
}

const hke_platform_ops kSimOps = {
    sizeof(hke_platform_ops), HKE_PLATFORM_ABI_VERSION,
    Open, Close, Ioctl, Mmap, Munmap, Madvise, ReadFile, ListDir, ClockNs, CpuCount,
    ProcessId, ReadFd, PageSize,
};

}  // namespace

extern "C" hke_platform hke_sim_platform(kfdsim_t* sim) {
  hke_platform p;
  p.ops = &kSimOps;
  p.self = sim;
  return p;
}
