// Linux backend of the platform table. Each operation translates the
// portable HKE_* flags to the host's values, makes one libc call (or, for
// perf_event_open and mbind, which glibc does not wrap, one system call
// through syscall()) and turns -1/errno into a positive errno return.
#include "hsakmt/hsakmt_linux.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <linux/mempolicy.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#ifdef HKE_HAVE_LIBDRM
#include <amdgpu.h>
#endif

#include <atomic>
#include <climits>
#include <cstring>
#include <new>

#include "lib/core/errno.h"

namespace {

// lib/ matches errno values without including <errno.h>; they must agree.
static_assert(EPERM == hke::err::kEPERM && ENOENT == hke::err::kENOENT && EINTR == hke::err::kEINTR &&
                  EIO == hke::err::kEIO && EBADF == hke::err::kEBADF && EAGAIN == hke::err::kEAGAIN &&
                  ENOMEM == hke::err::kENOMEM && EACCES == hke::err::kEACCES &&
                  EFAULT == hke::err::kEFAULT && EBUSY == hke::err::kEBUSY &&
                  EEXIST == hke::err::kEEXIST && ENODEV == hke::err::kENODEV &&
                  ENOTDIR == hke::err::kENOTDIR && EINVAL == hke::err::kEINVAL &&
                  ENOTTY == hke::err::kENOTTY && EFBIG == hke::err::kEFBIG &&
                  ENOSPC == hke::err::kENOSPC && ERANGE == hke::err::kERANGE &&
                  ENOSYS == hke::err::kENOSYS && EPROTO == hke::err::kEPROTO &&
                  EOVERFLOW == hke::err::kEOVERFLOW && EOPNOTSUPP == hke::err::kEOPNOTSUPP &&
                  EADDRINUSE == hke::err::kEADDRINUSE && ETIMEDOUT == hke::err::kETIMEDOUT &&
                  EALREADY == hke::err::kEALREADY && ESRCH == hke::err::kESRCH &&
                  ENODATA == hke::err::kENODATA && EMFILE == hke::err::kEMFILE &&
                  ENXIO == hke::err::kENXIO && E2BIG == hke::err::kE2BIG && EISDIR == hke::err::kEISDIR,
              "host errno numbering differs from the asm-generic values lib/ expects");

int LastError() { return errno > 0 ? errno : EIO; }

int OpenFlags(uint32_t flags, int* out) {
  const uint32_t known = HKE_OPEN_READ | HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC | HKE_OPEN_DIRECTORY;
  if ((flags & ~known) != 0) return EINVAL;
  if ((flags & HKE_OPEN_READ) && (flags & HKE_OPEN_RDWR)) return EINVAL;
  int f = (flags & HKE_OPEN_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & HKE_OPEN_CLOEXEC) f |= O_CLOEXEC;
  if (flags & HKE_OPEN_DIRECTORY) f |= O_DIRECTORY;
  *out = f;
  return 0;
}

int Open(void*, const char* path, uint32_t flags, int* out_fd) {
  if (path == nullptr || out_fd == nullptr) return EINVAL;
  int f = 0;
  if (int e = OpenFlags(flags, &f)) return e;
  int fd = ::open(path, f);
  if (fd < 0) return LastError();
  *out_fd = fd;
  return 0;
}

int Close(void*, int fd) {
  // Linux releases the descriptor even when close reports EINTR; never retry.
  return ::close(fd) == 0 ? 0 : LastError();
}

int Ioctl(void*, int fd, uint32_t request, void* arg) {
  return ::ioctl(fd, static_cast<unsigned long>(request), arg) == 0 ? 0 : LastError();
}

int Mmap(void*, void* addr, size_t length, uint32_t prot, uint32_t flags, int fd, uint64_t offset,
         void** out_addr) {
  if (out_addr == nullptr || length == 0) return EINVAL;
  if ((prot & ~(HKE_PROT_READ | HKE_PROT_WRITE | HKE_PROT_EXEC)) != 0) return EINVAL;
  const uint32_t known = HKE_MAP_SHARED | HKE_MAP_PRIVATE | HKE_MAP_FIXED | HKE_MAP_ANONYMOUS |
                         HKE_MAP_NORESERVE | HKE_MAP_FIXED_NOREPLACE;
  if ((flags & ~known) != 0) return EINVAL;
  if (((flags & HKE_MAP_SHARED) != 0) == ((flags & HKE_MAP_PRIVATE) != 0)) return EINVAL;
  int p = PROT_NONE;
  if (prot & HKE_PROT_READ) p |= PROT_READ;
  if (prot & HKE_PROT_WRITE) p |= PROT_WRITE;
  if (prot & HKE_PROT_EXEC) p |= PROT_EXEC;
  int f = (flags & HKE_MAP_SHARED) ? MAP_SHARED : MAP_PRIVATE;
  if (flags & HKE_MAP_FIXED) f |= MAP_FIXED;
  if (flags & HKE_MAP_ANONYMOUS) f |= MAP_ANONYMOUS;
  if (flags & HKE_MAP_NORESERVE) f |= MAP_NORESERVE;
  if (flags & HKE_MAP_FIXED_NOREPLACE) f |= MAP_FIXED_NOREPLACE;
  // off_t is 64-bit here (_FILE_OFFSET_BITS=64); KFD offsets with bit 63 set
  // pass through as the same bit pattern.
  static_assert(sizeof(off_t) == 8, "platform/ must be built with 64-bit off_t");
  off_t off;
  std::memcpy(&off, &offset, sizeof(off));
  void* r = ::mmap(addr, length, p, f, fd, off);
  if (r == MAP_FAILED) return LastError();
  *out_addr = r;
  return 0;
}

int Munmap(void*, void* addr, size_t length) {
  return ::munmap(addr, length) == 0 ? 0 : LastError();
}

int Madvise(void*, void* addr, size_t length, uint32_t advice) {
  int a = 0;
  switch (advice) {
    case HKE_ADVICE_DONTFORK: a = MADV_DONTFORK; break;
    case HKE_ADVICE_DOFORK: a = MADV_DOFORK; break;
    case HKE_ADVICE_HUGEPAGE: a = MADV_HUGEPAGE; break;
    default: return EINVAL;
  }
  return ::madvise(addr, length, a) == 0 ? 0 : LastError();
}

// Reads the whole file open on `fd` (read_file's rules) and closes it.
int ReadWhole(int fd, char* buf, size_t capacity, size_t* out_length) {
  size_t used = 0;
  int error = 0;
  for (;;) {
    // Read one byte past the capacity to tell "exactly full" from "too long".
    char probe;
    char* dst = used < capacity ? buf + used : &probe;
    size_t want = used < capacity ? capacity - used : 1;
    ssize_t n = ::read(fd, dst, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = LastError();
      break;
    }
    if (n == 0) break;
    if (used >= capacity) {
      error = EFBIG;
      break;
    }
    used += static_cast<size_t>(n);
    // A read shorter than asked ended the file: a regular file returns
    // less only at its end, and a sysfs attribute hands its whole text
    // (at most a page) to the first read. This saves the read that would
    // only see end of file (one system call per topology file).
    if (static_cast<size_t>(n) < want) break;
  }
  ::close(fd);
  if (error != 0) return error;
  *out_length = used;
  return 0;
}

int ReadFile(void*, const char* path, char* buf, size_t capacity, size_t* out_length) {
  if (path == nullptr || out_length == nullptr || (buf == nullptr && capacity != 0)) return EINVAL;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return LastError();
  return ReadWhole(fd, buf, capacity, out_length);
}

// The kernel walks only `name` from the directory (read_file walks the
// whole absolute path for every file).
int ReadFileAt(void*, int dirfd, const char* name, char* buf, size_t capacity,
               size_t* out_length) {
  if (dirfd < 0 || name == nullptr || name[0] == '\0' || name[0] == '/' ||
      out_length == nullptr || (buf == nullptr && capacity != 0)) {
    return EINVAL;
  }
  const int fd = ::openat(dirfd, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return LastError();
  return ReadWhole(fd, buf, capacity, out_length);
}

// Reports the entries of the directory open on `fd` from its current
// position to its end (list_dir's rules), with getdents64() into a stack
// buffer: opendir() would allocate a DIR.
int ListEntries(int fd, hke_dirent_fn fn, void* user) {
  alignas(struct dirent64) char buf[4096];
  for (;;) {
    const ssize_t n = ::getdents64(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return LastError();
    }
    if (n == 0) return 0;
    for (ssize_t off = 0; off < n;) {
      const auto* e = reinterpret_cast<const struct dirent64*>(buf + off);
      if (e->d_reclen == 0 || off + e->d_reclen > n) return EIO;  // a malformed record
      off += e->d_reclen;
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      uint32_t kind = HKE_DIRENT_UNKNOWN;
      switch (e->d_type) {
        case DT_REG: kind = HKE_DIRENT_FILE; break;
        case DT_DIR: kind = HKE_DIRENT_DIR; break;
        case DT_UNKNOWN: kind = HKE_DIRENT_UNKNOWN; break;
        default: kind = HKE_DIRENT_OTHER; break;
      }
      if (fn(user, e->d_name, kind) != 0) return 0;
    }
  }
}

// Lists a directory: opened like a file (a plain open() also keeps the
// LD_PRELOAD simulator's path redirection working), listed, closed.
int ListDir(void*, const char* path, hke_dirent_fn fn, void* user) {
  if (path == nullptr || fn == nullptr) return EINVAL;
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return LastError();
  const int error = ListEntries(fd, fn, user);
  ::close(fd);
  return error;
}

// Lists the directory open on `dirfd` from its start; the descriptor stays
// open. A descriptor that is not a directory fails getdents64 (ENOTDIR).
int ListDirFd(void*, int dirfd, hke_dirent_fn fn, void* user) {
  if (dirfd < 0 || fn == nullptr) return EINVAL;
  if (::lseek(dirfd, 0, SEEK_SET) < 0) return LastError();
  return ListEntries(dirfd, fn, user);
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
  if (::clock_gettime(id, &ts) != 0) return LastError();
  *out_ns = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return 0;
}

int CpuCount(void*, uint32_t* out_count) {
  if (out_count == nullptr) return EINVAL;
  int n = ::get_nprocs();
  if (n <= 0) return EIO;
  *out_count = static_cast<uint32_t>(n);
  return 0;
}

// The process id, cached: the library asks on every device call (fork
// detection), and getpid() is a system call. A fork child refreshes the
// cache from a pthread_atfork handler, registered on first use. (A child
// made without fork handlers, e.g. a raw clone, keeps the parent's id; the
// library then detects the fork by the kernel's EBADF instead.)
// (pthread_once, not std::call_once: C programs link this archive without
// libstdc++.)
std::atomic<int32_t> g_cached_pid{0};
pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

void RefreshPidInChild() { g_cached_pid.store(static_cast<int32_t>(::getpid()), std::memory_order_relaxed); }
void RegisterAtFork() { (void)pthread_atfork(nullptr, nullptr, &RefreshPidInChild); }

int ProcessId(void*, int32_t* out_pid) {
  if (out_pid == nullptr) return EINVAL;
  int32_t pid = g_cached_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    (void)pthread_once(&g_atfork_once, &RegisterAtFork);
    pid = static_cast<int32_t>(::getpid());
    g_cached_pid.store(pid, std::memory_order_relaxed);
  }
  *out_pid = pid;
  return 0;
}

int ReadFd(void*, int fd, void* buf, size_t capacity, size_t* out_length) {
  if (out_length == nullptr || (buf == nullptr && capacity != 0)) return EINVAL;
  ssize_t n = ::read(fd, buf, capacity);
  if (n < 0) return LastError();
  *out_length = static_cast<size_t>(n);
  return 0;
}

int PageSize(void*, size_t* out_size) {
  if (out_size == nullptr) return EINVAL;
  long n = ::sysconf(_SC_PAGESIZE);
  if (n <= 0) return EIO;
  *out_size = static_cast<size_t>(n);
  return 0;
}

// libdrm's table of marketing names; a build may point elsewhere.
#ifndef HKE_AMDGPU_IDS_PATH
#define HKE_AMDGPU_IDS_PATH "/usr/share/libdrm/amdgpu.ids"
#endif

// Parses a hex field of amdgpu.ids the way libdrm does (strtol base 16,
// leading blanks allowed, nothing after the digits).
bool HexField(const char* s, size_t n, uint32_t* out) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i == n) return false;
  uint64_t v = 0;
  for (; i < n; ++i) {
    const char c = s[i];
    uint32_t d;
    if (c >= '0' && c <= '9') d = static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f') d = static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = static_cast<uint32_t>(c - 'A' + 10);
    else return false;
    v = (v << 4) | d;
    if (v > UINT32_MAX) return false;
  }
  *out = static_cast<uint32_t>(v);
  return true;
}

// One line of amdgpu.ids ("DID,\tRID,\tName"): the name when the ids match.
bool MatchIdsLine(const char* line, size_t n, uint32_t device_id, uint32_t revision,
                  const char** name, size_t* name_len) {
  const char* c1 = static_cast<const char*>(std::memchr(line, ',', n));
  if (c1 == nullptr) return false;
  uint32_t did = 0, rid = 0;
  if (!HexField(line, static_cast<size_t>(c1 - line), &did) || did != device_id) return false;
  const char* rest = c1 + 1;
  size_t rn = n - static_cast<size_t>(rest - line);
  const char* c2 = static_cast<const char*>(std::memchr(rest, ',', rn));
  if (c2 == nullptr) return false;
  if (!HexField(rest, static_cast<size_t>(c2 - rest), &rid) || rid != revision) return false;
  const char* nm = c2 + 1;
  size_t nn = n - static_cast<size_t>(nm - line);
  while (nn > 0 && (*nm == ' ' || *nm == '\t')) {
    ++nm;
    --nn;
  }
  const char* c3 = static_cast<const char*>(std::memchr(nm, ',', nn));  // libdrm stops at a comma
  if (c3 != nullptr) nn = static_cast<size_t>(c3 - nm);
  if (nn == 0) return false;
  *name = nm;
  *name_len = nn;
  return true;
}

// Looks the pair up in amdgpu.ids: comment lines (#) and blank lines are
// skipped, the first other line is the table version; no heap, one pass.
int MarketingName(void*, uint32_t device_id, uint32_t revision, char* buf, size_t capacity) {
  if (buf == nullptr || capacity == 0) return EINVAL;
  int fd = ::open(HKE_AMDGPU_IDS_PATH, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return LastError();
  char chunk[4096];
  size_t used = 0;
  bool eof = false;
  bool skipping = false;  // inside a line longer than the chunk
  bool seen_version = false;
  int result = ENOENT;
  while (result == ENOENT) {
    if (!eof && used < sizeof(chunk)) {
      ssize_t n = ::read(fd, chunk + used, sizeof(chunk) - used);
      if (n < 0) {
        if (errno == EINTR) continue;
        result = LastError();
        break;
      }
      if (n == 0) eof = true;
      used += static_cast<size_t>(n);
    }
    size_t start = 0;
    while (result == ENOENT) {
      const char* nl = static_cast<const char*>(std::memchr(chunk + start, '\n', used - start));
      if (nl == nullptr && !(eof && start < used)) break;
      const size_t end = nl != nullptr ? static_cast<size_t>(nl - chunk) : used;
      const char* line = chunk + start;
      const size_t len = end - start;
      start = nl != nullptr ? end + 1 : end;
      if (skipping) {
        skipping = false;
        continue;
      }
      if (len == 0 || line[0] == '#') continue;
      if (!seen_version) {
        seen_version = true;
        continue;
      }
      const char* name = nullptr;
      size_t name_len = 0;
      if (MatchIdsLine(line, len, device_id, revision, &name, &name_len)) {
        const size_t n = name_len < capacity - 1 ? name_len : capacity - 1;
        std::memcpy(buf, name, n);
        buf[n] = '\0';
        result = 0;
      }
    }
    if (result != ENOENT) break;
    if (start > 0) {
      std::memmove(chunk, chunk + start, used - start);
      used -= start;
    } else if (used == sizeof(chunk)) {
      used = 0;
      skipping = true;
    }
    if (eof && used == 0) break;
  }
  ::close(fd);
  return result;
}

#ifdef HKE_HAVE_LIBDRM
// libdrm_amdgpu keeps one device per DRM file and counts references, so a
// second initialisation of the same descriptor returns the same handle.
int AmdgpuDevice(void*, int render_fd, void** out_handle) {
  if (out_handle == nullptr || render_fd < 0) return EINVAL;
  uint32_t major = 0;
  uint32_t minor = 0;
  amdgpu_device_handle h = nullptr;
  const int r = amdgpu_device_initialize(render_fd, &major, &minor, &h);
  if (r != 0) return r < 0 ? -r : EIO;
  if (h == nullptr) return EIO;
  *out_handle = h;
  return 0;
}

void AmdgpuDeviceRelease(void*, void* handle) {
  if (handle != nullptr) (void)amdgpu_device_deinitialize(static_cast<amdgpu_device_handle>(handle));
}
#endif

// perf_event_open has no libc wrapper. A system-wide counter of an uncore
// PMU such as amd_iommu: any process (pid -1) on CPU 0, created disabled,
// with the enabled/running times in every read. The kernel refuses it
// without CAP_PERFMON (or perf_event_paranoid allowing it) with EACCES.
int PerfOpen(void*, uint32_t type, uint64_t config, int* out_fd) {
  if (out_fd == nullptr) return EINVAL;
  struct perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = type;
  attr.config = config;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.disabled = 1;
  const long fd = ::syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return LastError();
  *out_fd = static_cast<int>(fd);
  return 0;
}

int PerfEnable(void*, int fd, uint32_t enable) {
  const unsigned long request = enable != 0 ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
  if (::ioctl(fd, request, 0) != 0) return LastError();
  return 0;
}

// The read format above gives three u64: value, time enabled, time running.
int PerfRead(void*, int fd, uint64_t out_values[3]) {
  if (out_values == nullptr) return EINVAL;
  uint64_t v[3] = {0, 0, 0};
  size_t done = 0;
  while (done < sizeof(v)) {
    const ssize_t n = ::read(fd, reinterpret_cast<char*>(v) + done, sizeof(v) - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return LastError();
    if (n == 0) return EIO;
    done += static_cast<size_t>(n);
  }
  out_values[0] = v[0];
  out_values[1] = v[1];
  out_values[2] = v[2];
  return 0;
}

// mbind(2) has no glibc wrapper (libnuma has one, and this archive needs
// only libc), so the system call is made directly. One node, as upstream
// binds: MPOL_F_STATIC_NODES keeps it that node when the task's cpuset
// changes. The kernel reads maxnode - 1 bits of the mask. Nodes at or past
// kMaxPolicyNodes (the largest MAX_NUMNODES a kernel is built with) are
// EINVAL, the kernel's answer for a node it cannot have. Every argument is
// passed as a full word (syscall() reads longs).
constexpr uint32_t kMaxPolicyNodes = 1024;

int MemPolicy(void*, void* addr, size_t length, uint32_t mode, uint32_t node) {
  long r = 0;
  if (mode == HKE_MPOL_DEFAULT) {
    r = ::syscall(SYS_mbind, addr, static_cast<unsigned long>(length),
                  static_cast<unsigned long>(MPOL_DEFAULT), static_cast<unsigned long*>(nullptr),
                  0ul, 0ul);
  } else {
    unsigned long host_mode = 0;
    if (mode == HKE_MPOL_PREFERRED) {
      host_mode = MPOL_PREFERRED;
    } else if (mode == HKE_MPOL_BIND) {
      host_mode = MPOL_BIND;
    } else {
      return EINVAL;
    }
    if (node >= kMaxPolicyNodes) return EINVAL;
    constexpr uint32_t kBits = sizeof(unsigned long) * CHAR_BIT;
    unsigned long mask[kMaxPolicyNodes / kBits] = {};
    mask[node / kBits] = 1ul << (node % kBits);
    r = ::syscall(SYS_mbind, addr, static_cast<unsigned long>(length),
                  host_mode | static_cast<unsigned long>(MPOL_F_STATIC_NODES), mask,
                  static_cast<unsigned long>(node) + 2, 0ul);
  }
  return r != 0 ? LastError() : 0;
}

// A futex mutex (three states: 0 free, 1 held, 2 held with possible
// sleepers). Every state change is an atomic operation on the word, so the
// futex calls only sleep and wake; a waiter spins briefly (a holder of a
// short section is out soon), then sleeps in FUTEX_WAIT until an unlock
// that saw state 2 wakes one sleeper. Private futexes: the storage is in
// this process's memory.
static_assert(sizeof(std::atomic<uint32_t>) <= HKE_PLATFORM_MUTEX_BYTES,
              "the futex word fits the library's mutex storage");

std::atomic<uint32_t>* FutexWord(void* mutex) { return static_cast<std::atomic<uint32_t>*>(mutex); }

int MutexInit(void*, void* mutex) {
  new (mutex) std::atomic<uint32_t>(0);
  return 0;
}

void MutexLock(void*, void* mutex) {
  std::atomic<uint32_t>* w = FutexWord(mutex);
  constexpr int kSpins = 100;
  for (int i = 0; i < kSpins; ++i) {
    uint32_t expected = 0;
    if (w->compare_exchange_weak(expected, 1, std::memory_order_acquire,
                                 std::memory_order_relaxed)) {
      return;
    }
  }
  // Mark the word contended; whoever held it wakes a sleeper on unlock.
  while (w->exchange(2, std::memory_order_acquire) != 0) {
    ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(w), FUTEX_WAIT_PRIVATE, 2u,
              static_cast<void*>(nullptr), static_cast<void*>(nullptr), 0u);
  }
}

void MutexUnlock(void*, void* mutex) {
  std::atomic<uint32_t>* w = FutexWord(mutex);
  if (w->exchange(0, std::memory_order_release) == 2) {
    ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(w), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr,
              0);
  }
}

void MutexDestroy(void*, void*) {}

const hke_platform_ops kLinuxOps = {
    sizeof(hke_platform_ops),
    HKE_PLATFORM_ABI_VERSION,
    Open,
    Close,
    Ioctl,
    Mmap,
    Munmap,
    Madvise,
    ReadFile,
    ListDir,
    ClockNs,
    CpuCount,
    ProcessId,
    ReadFd,
    PageSize,
    MarketingName,
#ifdef HKE_HAVE_LIBDRM
    AmdgpuDevice,
    AmdgpuDeviceRelease,
#else
    nullptr,
    nullptr,
#endif
    PerfOpen,
    PerfEnable,
    PerfRead,
    MemPolicy,
    MutexInit,
    MutexLock,
    MutexUnlock,
    MutexDestroy,
    ReadFileAt,
    ListDirFd,
};

}  // namespace

extern "C" const hke_platform_ops* hke_linux_platform_ops(void) { return &kLinuxOps; }

extern "C" hke_platform hke_linux_platform(void) {
  hke_platform p;
  p.ops = &kLinuxOps;
  p.self = nullptr;
  return p;
}

extern "C" int hke_linux_platform_has_libdrm(void) {
#ifdef HKE_HAVE_LIBDRM
  return 1;
#else
  return 0;
#endif
}
