// See util.h.
#include "platform/sim/core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace kfdsim {
namespace {

// -1 unknown, 0 unusable, 1 usable.
std::atomic<int> g_vm_copy_usable{-1};

// The process id, 0 until first asked for and again in a forked child
// (cleared by the atfork handler before fork returns there).
std::atomic<int> g_pid{0};

void ForgetPid() { g_pid.store(0, std::memory_order_relaxed); }

// The calling thread's stack [lo, hi), read once per thread (hi == 0: not
// known, e.g. pthread_getattr_np failed).
struct StackBounds {
  bool read = false;
  uintptr_t lo = 0, hi = 0;
};
// Initial-exec TLS (read on every argument copy): the core is linked into
// programs and into the preload, which is loaded with the program.
__attribute__((tls_model("initial-exec"))) thread_local StackBounds t_stack;

// True when [addr, addr + n) lies in the calling thread's stack between the
// current frame and the stack's top: those pages are mapped and writable
// (the frames of this call's callers), so a plain copy cannot fault. Code
// running on another stack (a signal's alternate stack, a coroutine) or an
// argument anywhere else takes the checked path.
bool OnCallersStack(uint64_t addr, size_t n) {
  if (!t_stack.read) {
    t_stack.read = true;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* base = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &base, &size) == 0 && base != nullptr) {
        t_stack.lo = reinterpret_cast<uintptr_t>(base);
        t_stack.hi = t_stack.lo + size;
      }
      pthread_attr_destroy(&attr);
    }
  }
  volatile char here = 0;
  const uintptr_t frame = reinterpret_cast<uintptr_t>(&here);
  if (t_stack.hi == 0 || frame < t_stack.lo || frame >= t_stack.hi) return false;
  return addr >= frame && addr < t_stack.hi && n <= t_stack.hi - addr;
}

// Where process_vm_readv/writev are refused (seccomp, qemu-user), copies
// through a pipe instead: the kernel checks the user range on write(2) from
// it or read(2) into it, so a bad pointer still gives EFAULT instead of a
// crash in the simulator.
int PipeCopy(bool write, void* local, uint64_t remote, size_t n) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return errno;
  char* user = reinterpret_cast<char*>(static_cast<uintptr_t>(remote));
  char* mine = static_cast<char*>(local);
  int result = 0;
  constexpr size_t kChunk = 4096;  // always fits the pipe buffer
  for (size_t done = 0; done < n && result == 0;) {
    const size_t len = n - done < kChunk ? n - done : kChunk;
    const char* from = write ? mine + done : user + done;
    char* to = write ? user + done : mine + done;
    const ssize_t w = ::write(fds[1], from, len);
    if (w != static_cast<ssize_t>(len)) {
      result = w < 0 ? (errno == EFAULT ? EFAULT : errno) : EIO;
      break;
    }
    const ssize_t r = ::read(fds[0], to, len);
    if (r != static_cast<ssize_t>(len)) {
      result = r < 0 ? (errno == EFAULT ? EFAULT : errno) : EIO;
      break;
    }
    done += len;
  }
  ::close(fds[0]);
  ::close(fds[1]);
  return result;
}

// Whether process_vm_readv/writev work on the own process. Probed once with
// a buffer known to be valid: under qemu-user for a 32-bit guest the calls
// exist but see host addresses, so they fail on every guest pointer.
bool VmCopyUsable() {
  int state = g_vm_copy_usable.load(std::memory_order_relaxed);
  if (state < 0) {
    uint64_t probe_src = 0x6b666473696dull;
    uint64_t probe_dst = 0;
    struct iovec l = {&probe_dst, sizeof(probe_dst)};
    struct iovec r = {&probe_src, sizeof(probe_src)};
    const ssize_t got = process_vm_readv(SelfPid(), &l, 1, &r, 1, 0);
    state = (got == static_cast<ssize_t>(sizeof(probe_dst)) && probe_dst == probe_src) ? 1 : 0;
    g_vm_copy_usable.store(state, std::memory_order_relaxed);
  }
  return state == 1;
}

// The direct copy for arguments on the caller's stack, except under
// AddressSanitizer: there a hostile argument (a fuzzer's pointer into the
// caller's frames) would make the copy touch the caller's redzones, which
// the kernel writes, as the checked path does, without ASan seeing it. The
// checked path keeps the kernel's semantics and leaves ASan's reports to
// real bugs.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kDirectStackCopy = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kDirectStackCopy = false;
#else
constexpr bool kDirectStackCopy = true;
#endif
#else
constexpr bool kDirectStackCopy = true;
#endif

int VmCopy(bool write, void* local, uint64_t remote, size_t n) {
  if (n == 0) return 0;
  if (remote == 0) return EFAULT;
  if (kDirectStackCopy && OnCallersStack(remote, n)) {
    void* user = reinterpret_cast<void*>(static_cast<uintptr_t>(remote));
    std::memcpy(write ? user : local, write ? local : user, n);
    return 0;
  }
  if (VmCopyUsable()) {
    struct iovec l = {local, n};
    struct iovec r = {reinterpret_cast<void*>(static_cast<uintptr_t>(remote)), n};
    const int pid = SelfPid();
    const ssize_t got = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                              : process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (got >= 0 && static_cast<size_t>(got) == n) return 0;
    return EFAULT;
  }
  return PipeCopy(write, local, remote, n);
}

}  // namespace

int SelfPid() {
  int pid = g_pid.load(std::memory_order_relaxed);
  if (pid != 0) return pid;
  static std::once_flag once;
  std::call_once(once, [] { (void)pthread_atfork(nullptr, nullptr, ForgetPid); });
  pid = static_cast<int>(getpid());
  g_pid.store(pid, std::memory_order_relaxed);
  return pid;
}

int UserRead(void* dst, uint64_t user_src, size_t n) { return VmCopy(false, dst, user_src, n); }

int UserWrite(uint64_t user_dst, const void* src, size_t n) {
  return VmCopy(true, const_cast<void*>(src), user_dst, n);
}

bool UserRangeOk(uint64_t addr, uint64_t size) {
  // x86-64 TASK_SIZE_MAX; the other 64-bit targets have at least 47 bits.
  constexpr uint64_t kUserTop = (1ull << 47) - 4096;
  if (sizeof(void*) == 4) return addr <= 0xFFFFFFFFull && size <= 0x100000000ull - addr;
  return addr <= kUserTop && size <= kUserTop - addr;
}

namespace {

// Calls visit(lo, hi) for each mapping of /proc/self/maps, in address
// order, until it returns false. Reads with open/read into a stack buffer
// and allocates nothing, so the walk cannot itself create a mapping (an
// allocator that maps memory could otherwise fill the very hole a caller
// asks about). False when the file cannot be read.
template <typename Visit>
bool WalkHostMappings(Visit&& visit) {
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  size_t have = 0;      // bytes in buf
  bool skipping = false;  // inside the rest of an over-long line
  bool more = true;
  for (;;) {
    ssize_t n = 0;
    if (more) {
      n = ::read(fd, buf + have, sizeof(buf) - have);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) more = false;
    }
    have += n > 0 ? static_cast<size_t>(n) : 0;
    size_t pos = 0;
    bool stop = false;
    while (!stop) {
      const char* nl = static_cast<const char*>(std::memchr(buf + pos, '\n', have - pos));
      if (nl == nullptr) break;
      const size_t end = static_cast<size_t>(nl - buf);
      if (!skipping) {
        unsigned long long lo = 0, hi = 0;
        buf[end] = '\0';
        if (std::sscanf(buf + pos, "%llx-%llx", &lo, &hi) == 2 && lo < hi) stop = !visit(lo, hi);
      }
      skipping = false;
      pos = end + 1;
    }
    if (stop) break;
    if (pos == 0 && have == sizeof(buf)) {  // a line longer than the buffer
      unsigned long long lo = 0, hi = 0;
      buf[have - 1] = '\0';
      if (!skipping && std::sscanf(buf, "%llx-%llx", &lo, &hi) == 2 && lo < hi && !visit(lo, hi)) break;
      skipping = true;
      have = 0;
      continue;
    }
    std::memmove(buf, buf + pos, have - pos);
    have -= pos;
    if (!more) break;
  }
  ::close(fd);
  return true;
}

}  // namespace

bool ReadHostMappings(std::vector<std::pair<uint64_t, uint64_t>>* out) {
  out->clear();
  return WalkHostMappings([out](uint64_t lo, uint64_t hi) {
    out->emplace_back(lo, hi);
    return true;
  });
}

bool HostRangeMapped(uint64_t start, uint64_t size) {
  const uint64_t end = start + size;
  if (end < start) return false;
  uint64_t covered = start;  // [start, covered) is known mapped
  const bool read = WalkHostMappings([&covered, end](uint64_t lo, uint64_t hi) {
    if (lo <= covered && covered < hi) covered = hi;  // sorted by address
    return covered < end && lo <= covered;
  });
  if (!read) return true;  // cannot tell: do not refuse
  return covered >= end;
}

std::string ErrnoName(int error) {
  switch (error) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case ENODEV: return "ENODEV";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case ENOTTY: return "ENOTTY";
    case EFBIG: return "EFBIG";
    case ENOSPC: return "ENOSPC";
    case ERANGE: return "ERANGE";
    case ENOSYS: return "ENOSYS";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EADDRINUSE: return "EADDRINUSE";
    case ETIMEDOUT: return "ETIMEDOUT";
    case 524: return "ENOTSUPP";
    default: return "E" + std::to_string(error);
  }
}

void AppendHex(std::string* out, const void* data, size_t n, size_t max_bytes) {
  static const char kDigits[] = "0123456789abcdef";
  const auto* b = static_cast<const unsigned char*>(data);
  const size_t shown = n < max_bytes ? n : max_bytes;
  for (size_t i = 0; i < shown; ++i) {
    out->push_back(kDigits[b[i] >> 4]);
    out->push_back(kDigits[b[i] & 0xf]);
  }
  if (shown < n) out->append("...");
}

std::string HexU64(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  char buf[19];
  int i = 18;
  buf[i] = '\0';
  do {
    buf[--i] = kDigits[v & 0xf];
    v >>= 4;
  } while (v != 0);
  buf[--i] = 'x';
  buf[--i] = '0';
  return std::string(buf + i);
}

namespace {
uint64_t ClockNs(clockid_t id) {
  struct timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

uint64_t MonotonicRawNs() { return ClockNs(CLOCK_MONOTONIC_RAW); }
uint64_t BoottimeNs() { return ClockNs(CLOCK_BOOTTIME); }

// ---- IdPool ----

uint64_t IdPool::LowestFree() const {
  if (levels_.empty()) return 0;
  // Every id the levels cover is taken: the first one past them.
  if (levels_.back()[0] == ~uint64_t{0}) return uint64_t{1} << (6 * levels_.size());
  // From the top, the first word that is not full, down to the id.
  uint64_t i = 0;
  for (size_t l = levels_.size(); l-- > 0;) {
    const std::vector<uint64_t>& words = levels_[l];
    const uint64_t w = i < words.size() ? words[static_cast<size_t>(i)] : 0;
    i = i * 64 + static_cast<uint64_t>(__builtin_ctzll(~w));
  }
  return i;
}

void IdPool::Mark(uint64_t i) {
  // A new top level while i lies past what the levels cover; its bit 0
  // says whether the old top word is full.
  while (levels_.empty() || (i >> (6 * levels_.size())) != 0) {
    const bool full = !levels_.empty() && levels_.back()[0] == ~uint64_t{0};
    levels_.push_back({full ? uint64_t{1} : uint64_t{0}});
  }
  for (std::vector<uint64_t>& words : levels_) {
    const size_t w = static_cast<size_t>(i / 64);  // i < 2^32: fits a 32-bit size_t
    if (w >= words.size()) words.resize(w + 1, 0);
    words[w] |= uint64_t{1} << (i % 64);
    if (words[w] != ~uint64_t{0}) break;
    i = w;  // the word became full: mark it one level up
  }
}

void IdPool::Release(uint32_t id) {
  if (!InUse(id)) return;
  uint64_t i = id - base_;
  for (std::vector<uint64_t>& words : levels_) {
    const size_t w = static_cast<size_t>(i / 64);
    const bool was_full = words[w] == ~uint64_t{0};
    words[w] &= ~(uint64_t{1} << (i % 64));
    if (!was_full) break;
    i = w;  // the word is no longer full: clear its bit one level up
  }
}

}  // namespace kfdsim
