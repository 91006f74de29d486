// Contracts of the Linux platform table on real files (a scratch directory).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <linux/mempolicy.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "hsakmt/hsakmt_linux.h"

namespace {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    char templ[] = "/tmp/hke-linux-test.XXXXXX";
    REQUIRE(mkdtemp(templ) != nullptr);
    path = templ;
  }
  ~ScratchDir() {
    std::string cmd = "rm -rf '" + path + "'";
    (void)system(cmd.c_str());
  }
  void File(const std::string& name, const std::string& content) {
    int fd = ::open((path + "/" + name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    ::close(fd);
  }
  void Dir(const std::string& name) { REQUIRE(::mkdir((path + "/" + name).c_str(), 0755) == 0); }
};

int Collect(void* user, const char* name, uint32_t kind) {
  (*static_cast<std::map<std::string, uint32_t>*>(user))[name] = kind;
  return 0;
}

int StopAfterOne(void* user, const char*, uint32_t) {
  ++*static_cast<int*>(user);
  return 1;
}

}  // namespace

TEST_CASE("linux list_dir reports every entry with its kind and never . or ..") {
  ScratchDir d;
  for (int i = 0; i < 300; ++i) d.File("f" + std::to_string(i), "x");  // more than one getdents64 batch
  d.Dir("sub");
  const hke_platform p = hke_linux_platform();
  std::map<std::string, uint32_t> seen;
  REQUIRE(p.ops->list_dir(p.self, d.path.c_str(), &Collect, &seen) == 0);
  CHECK(seen.size() == 301);
  CHECK(seen.count(".") == 0);
  CHECK(seen.count("..") == 0);
  CHECK(seen["sub"] == HKE_DIRENT_DIR);
  CHECK(seen["f0"] == HKE_DIRENT_FILE);
  CHECK(seen["f299"] == HKE_DIRENT_FILE);
}

TEST_CASE("linux list_dir stops when the callback asks, and keeps the errno of a bad path") {
  ScratchDir d;
  d.File("a", "1");
  d.File("b", "2");
  const hke_platform p = hke_linux_platform();
  int calls = 0;
  CHECK(p.ops->list_dir(p.self, d.path.c_str(), &StopAfterOne, &calls) == 0);
  CHECK(calls == 1);
  std::map<std::string, uint32_t> seen;
  CHECK(p.ops->list_dir(p.self, (d.path + "/missing").c_str(), &Collect, &seen) == ENOENT);
  CHECK(p.ops->list_dir(p.self, (d.path + "/a").c_str(), &Collect, &seen) == ENOTDIR);
  CHECK(seen.empty());
}

TEST_CASE("linux read_file reads a whole file and refuses one longer than the buffer") {
  ScratchDir d;
  d.File("props", "simd_count 104\nwave_front_size 64\n");
  const hke_platform p = hke_linux_platform();
  char buf[64];
  size_t n = 12345;
  REQUIRE(p.ops->read_file(p.self, (d.path + "/props").c_str(), buf, sizeof(buf), &n) == 0);
  CHECK(std::string(buf, n) == "simd_count 104\nwave_front_size 64\n");
  size_t untouched = 777;
  CHECK(p.ops->read_file(p.self, (d.path + "/props").c_str(), buf, 10, &untouched) == EFBIG);
  CHECK(untouched == 777);
  // Exactly full is not too long.
  CHECK(p.ops->read_file(p.self, (d.path + "/props").c_str(), buf, 34, &n) == 0);
  CHECK(n == 34);
}

TEST_CASE("linux read_file_at reads below a directory descriptor with read_file's rules") {
  ScratchDir d;
  d.Dir("node");
  d.Dir("node/caches");
  d.File("node/caches/props", "simd_count 104\nwave_front_size 64\n");
  d.File("node/gpu_id", "4098\n");
  const hke_platform p = hke_linux_platform();
  REQUIRE(p.ops->struct_size >= offsetof(hke_platform_ops, read_file_at) + sizeof(void*));
  const bool has_op = p.ops->read_file_at != nullptr;
  REQUIRE(has_op);
  int dirfd = -1;
  REQUIRE(p.ops->open(p.self, (d.path + "/node").c_str(),
                      HKE_OPEN_READ | HKE_OPEN_DIRECTORY | HKE_OPEN_CLOEXEC, &dirfd) == 0);
  char buf[64];
  size_t n = 12345;
  // A name with '/' walks below the directory.
  REQUIRE(p.ops->read_file_at(p.self, dirfd, "caches/props", buf, sizeof(buf), &n) == 0);
  CHECK(std::string(buf, n) == "simd_count 104\nwave_front_size 64\n");
  REQUIRE(p.ops->read_file_at(p.self, dirfd, "gpu_id", buf, sizeof(buf), &n) == 0);
  CHECK(std::string(buf, n) == "4098\n");
  // Longer than the buffer: EFBIG, the length untouched; exactly full fits.
  size_t untouched = 777;
  CHECK(p.ops->read_file_at(p.self, dirfd, "caches/props", buf, 10, &untouched) == EFBIG);
  CHECK(untouched == 777);
  CHECK(p.ops->read_file_at(p.self, dirfd, "caches/props", buf, 34, &n) == 0);
  CHECK(n == 34);
  // The errno of the open is kept; nothing is published.
  CHECK(p.ops->read_file_at(p.self, dirfd, "missing", buf, sizeof(buf), &untouched) == ENOENT);
  CHECK(p.ops->read_file_at(p.self, dirfd, "gpu_id/x", buf, sizeof(buf), &untouched) == ENOTDIR);
  CHECK(untouched == 777);
  // Absolute or empty names and bad descriptors are refused, not opened.
  const std::string abs = d.path + "/node/gpu_id";
  CHECK(p.ops->read_file_at(p.self, dirfd, abs.c_str(), buf, sizeof(buf), &untouched) == EINVAL);
  CHECK(p.ops->read_file_at(p.self, dirfd, "", buf, sizeof(buf), &untouched) == EINVAL);
  CHECK(p.ops->read_file_at(p.self, -1, "gpu_id", buf, sizeof(buf), &untouched) == EINVAL);
  CHECK(untouched == 777);
  REQUIRE(p.ops->close(p.self, dirfd) == 0);
  // A descriptor that is not open.
  CHECK(p.ops->read_file_at(p.self, dirfd, "gpu_id", buf, sizeof(buf), &untouched) == EBADF);
}

// Opens a directory of the scratch tree as the library does for read_file_at.
int OpenDir(const hke_platform& p, const std::string& path) {
  int fd = -1;
  REQUIRE(p.ops->open(p.self, path.c_str(), HKE_OPEN_READ | HKE_OPEN_DIRECTORY | HKE_OPEN_CLOEXEC,
                      &fd) == 0);
  return fd;
}

TEST_CASE("linux list_dir_fd lists the directory open on a descriptor as list_dir lists its path") {
  ScratchDir d;
  d.Dir("cache");
  for (int i = 0; i < 300; ++i) d.File("cache/f" + std::to_string(i), "x");  // several batches
  d.Dir("cache/index0");
  d.File("cache/index0/level", "1\n");
  const hke_platform p = hke_linux_platform();
  REQUIRE(p.ops->struct_size >= offsetof(hke_platform_ops, list_dir_fd) + sizeof(void*));
  const bool has_op = p.ops->list_dir_fd != nullptr;
  REQUIRE(has_op);
  std::map<std::string, uint32_t> by_path;
  REQUIRE(p.ops->list_dir(p.self, (d.path + "/cache").c_str(), &Collect, &by_path) == 0);
  REQUIRE(by_path.size() == 301);
  const int dirfd = OpenDir(p, d.path + "/cache");
  std::map<std::string, uint32_t> by_fd;
  REQUIRE(p.ops->list_dir_fd(p.self, dirfd, &Collect, &by_fd) == 0);
  CHECK(by_fd == by_path);  // every entry with its kind, never . or ..
  // A second listing starts from the first entry again, also after one
  // the callback stopped early.
  int calls = 0;
  CHECK(p.ops->list_dir_fd(p.self, dirfd, &StopAfterOne, &calls) == 0);
  CHECK(calls == 1);
  std::map<std::string, uint32_t> again;
  REQUIRE(p.ops->list_dir_fd(p.self, dirfd, &Collect, &again) == 0);
  CHECK(again == by_path);
  // The descriptor stays open and usable for read_file_at.
  char buf[16];
  size_t n = 0;
  REQUIRE(p.ops->read_file_at(p.self, dirfd, "index0/level", buf, sizeof(buf), &n) == 0);
  CHECK(std::string(buf, n) == "1\n");
  REQUIRE(p.ops->close(p.self, dirfd) == 0);
}

TEST_CASE("linux list_dir_fd keeps the errno of a bad descriptor and reports nothing") {
  ScratchDir d;
  d.Dir("cache");
  d.File("cache/a", "1");
  const hke_platform p = hke_linux_platform();
  std::map<std::string, uint32_t> seen;
  // A descriptor of a regular file.
  int file_fd = -1;
  REQUIRE(p.ops->open(p.self, (d.path + "/cache/a").c_str(), HKE_OPEN_READ | HKE_OPEN_CLOEXEC,
                      &file_fd) == 0);
  CHECK(p.ops->list_dir_fd(p.self, file_fd, &Collect, &seen) == ENOTDIR);
  REQUIRE(p.ops->close(p.self, file_fd) == 0);
  // Refused before any system call: a negative descriptor, no callback.
  CHECK(p.ops->list_dir_fd(p.self, -1, &Collect, &seen) == EINVAL);
  const int dirfd = OpenDir(p, d.path + "/cache");
  CHECK(p.ops->list_dir_fd(p.self, dirfd, nullptr, nullptr) == EINVAL);
  REQUIRE(p.ops->close(p.self, dirfd) == 0);
  // A descriptor that is not open.
  CHECK(p.ops->list_dir_fd(p.self, dirfd, &Collect, &seen) == EBADF);
  CHECK(seen.empty());
}

// Read system calls this thread has made so far (syscr of
// /proc/thread-self/io); the pread that samples it counts itself once.
uint64_t ThreadReadCalls(int io_fd) {
  char text[1024];
  const ssize_t n = ::pread(io_fd, text, sizeof(text) - 1, 0);
  REQUIRE(n > 0);
  text[n] = '\0';
  const char* at = std::strstr(text, "syscr:");
  REQUIRE(at != nullptr);
  return std::strtoull(at + 6, nullptr, 10);
}

TEST_CASE("linux read_file reads a file shorter than the buffer with one read system call") {
  ScratchDir d;
  d.File("props", "simd_count 104\nwave_front_size 64\n");
  const int io = ::open("/proc/thread-self/io", O_RDONLY | O_CLOEXEC);
  REQUIRE(io >= 0);
  const hke_platform p = hke_linux_platform();
  char buf[64];
  size_t n = 0;
  const uint64_t t0 = ThreadReadCalls(io);
  const uint64_t t1 = ThreadReadCalls(io);  // a sample alone: t1 - t0 reads
  REQUIRE(p.ops->read_file(p.self, (d.path + "/props").c_str(), buf, sizeof(buf), &n) == 0);
  const uint64_t t2 = ThreadReadCalls(io);
  const std::string text(buf, n);
  // Exactly full still takes the probe that tells full from too long.
  size_t full = 0;
  REQUIRE(p.ops->read_file(p.self, (d.path + "/props").c_str(), buf, 34, &full) == 0);
  const uint64_t t3 = ThreadReadCalls(io);
  // Checked after the last sample: a failure report may read files itself.
  CHECK(text == "simd_count 104\nwave_front_size 64\n");
  // The short read ended the file: no second read to see end of file.
  CHECK(t2 - t1 - (t1 - t0) == 1);
  CHECK(full == 34);
  CHECK(t3 - t2 - (t1 - t0) == 2);
  ::close(io);
}

TEST_CASE("linux open refuses unknown flag bits instead of guessing") {
  const hke_platform p = hke_linux_platform();
  int fd = -1;
  CHECK(p.ops->open(p.self, "/dev/null", 0x80000000u, &fd) == EINVAL);
  CHECK(fd == -1);
  REQUIRE(p.ops->open(p.self, "/dev/null", HKE_OPEN_READ | HKE_OPEN_CLOEXEC, &fd) == 0);
  CHECK((::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
  CHECK(p.ops->close(p.self, fd) == 0);
}

namespace {

// The kernel's own view of the policy at `addr` (get_mempolicy with
// MPOL_F_ADDR), read independently of the table under test.
struct HostPolicy {
  long rc = -1;
  int error = 0;
  int mode = -1;  // mode | mode flags
  unsigned long mask[1024 / (8 * sizeof(unsigned long))] = {};
};

HostPolicy ReadPolicy(void* addr) {
  HostPolicy h;
  h.rc = ::syscall(SYS_get_mempolicy, &h.mode, h.mask, 1024ul, addr, 2ul /* MPOL_F_ADDR */);
  h.error = h.rc != 0 ? errno : 0;
  return h;
}

bool OnlyNode0(const HostPolicy& h) {
  if (h.mask[0] != 1ul) return false;
  for (size_t i = 1; i < sizeof(h.mask) / sizeof(h.mask[0]); ++i) {
    if (h.mask[i] != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE(
    "linux mem_policy sets mbind's policy on a real anonymous mapping, node 0, and returns the "
    "kernel's refusals as errnos") {
  const hke_platform p = hke_linux_platform();
  REQUIRE((p.ops->mem_policy != nullptr));
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t len = 4 * page;
  void* m = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(m != MAP_FAILED);
  char* base = static_cast<char*>(m);
  // Refused before any system call: an unknown mode, a node past any
  // kernel's MAX_NUMNODES.
  CHECK(p.ops->mem_policy(p.self, base, len, 7, 0) == EINVAL);
  CHECK(p.ops->mem_policy(p.self, base, len, HKE_MPOL_BIND, 1024) == EINVAL);

  const HostPolicy before = ReadPolicy(base);
  if (before.rc != 0 && before.error == ENOSYS) {
    // No NUMA system calls at all: qemu-user implements neither mbind nor
    // get_mempolicy, nor does a kernel built without CONFIG_NUMA. The table
    // must say so (the library then stops binding for the open, with a
    // warning: tests/memory/numa_test.cc).
    MESSAGE("the host has no NUMA system calls (ENOSYS): checking that mem_policy reports it");
    CHECK(p.ops->mem_policy(p.self, base, len, HKE_MPOL_PREFERRED, 0) == ENOSYS);
    CHECK(p.ops->mem_policy(p.self, base, len, HKE_MPOL_BIND, 0) == ENOSYS);
    CHECK(p.ops->mem_policy(p.self, base, len, HKE_MPOL_DEFAULT, 0) == ENOSYS);
  } else {
    REQUIRE(before.rc == 0);
    CHECK(before.mode == MPOL_DEFAULT);

    REQUIRE(p.ops->mem_policy(p.self, base, len, HKE_MPOL_PREFERRED, 0) == 0);
    HostPolicy h = ReadPolicy(base + page);
    REQUIRE(h.rc == 0);
    CHECK(h.mode == (MPOL_PREFERRED | MPOL_F_STATIC_NODES));
    CHECK(OnlyNode0(h));

    REQUIRE(p.ops->mem_policy(p.self, base, len, HKE_MPOL_BIND, 0) == 0);
    std::memset(base, 0x5a, len);  // the pages fault in under the policy
    h = ReadPolicy(base + 3 * page);
    REQUIRE(h.rc == 0);
    CHECK(h.mode == (MPOL_BIND | MPOL_F_STATIC_NODES));
    CHECK(OnlyNode0(h));

    // DEFAULT drops it, on part of the range only.
    REQUIRE(p.ops->mem_policy(p.self, base, page, HKE_MPOL_DEFAULT, 5) == 0);
    CHECK(ReadPolicy(base).mode == MPOL_DEFAULT);
    CHECK(ReadPolicy(base + page).mode == (MPOL_BIND | MPOL_F_STATIC_NODES));

    // The kernel's refusals: an unaligned address, a node this host does
    // not have, a hole in the range.
    CHECK(p.ops->mem_policy(p.self, base + 1, page, HKE_MPOL_PREFERRED, 0) == EINVAL);
    CHECK(p.ops->mem_policy(p.self, base, len, HKE_MPOL_PREFERRED, 1023) == EINVAL);
    REQUIRE(::munmap(base + 2 * page, page) == 0);
    CHECK(p.ops->mem_policy(p.self, base, len, HKE_MPOL_PREFERRED, 0) == EFAULT);
  }
  ::munmap(base, len);
}

// The state letter of thread `tid` of this process (/proc/self/task/<tid>/stat):
// 'S' sleeping, 'R' running; 0 when it cannot be read.
static char ThreadState(pid_t tid) {
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[512] = {};
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  const char* paren = std::strrchr(buf, ')');  // the name may hold spaces
  return paren != nullptr && paren[1] == ' ' ? paren[2] : 0;
}

TEST_CASE("the Linux mutex excludes, and a thread that waits for it sleeps in the kernel") {
  const hke_platform p = hke_linux_platform();
  REQUIRE((p.ops->mutex_init != nullptr));
  REQUIRE((p.ops->mutex_lock != nullptr));
  REQUIRE((p.ops->mutex_unlock != nullptr));
  REQUIRE((p.ops->mutex_destroy != nullptr));
  alignas(8) unsigned char m[HKE_PLATFORM_MUTEX_BYTES] = {};
  REQUIRE(p.ops->mutex_init(p.self, m) == 0);

  // Exclusion: increments under the mutex from four threads are all kept.
  long counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        p.ops->mutex_lock(p.self, m);
        ++counter;
        p.ops->mutex_unlock(p.self, m);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(counter == 4 * 20000);

  // A waiter sleeps (state S) while the mutex is held, and gets it once it
  // is released. A spinning waiter would stay R (running) throughout.
  p.ops->mutex_lock(p.self, m);
  std::atomic<pid_t> waiter_tid{0};
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    waiter_tid.store(static_cast<pid_t>(::syscall(SYS_gettid)));
    p.ops->mutex_lock(p.self, m);
    got.store(true);
    p.ops->mutex_unlock(p.self, m);
  });
  while (waiter_tid.load() == 0) std::this_thread::yield();
  bool slept = false;
  for (int i = 0; i < 2000 && !slept; ++i) {
    slept = ThreadState(waiter_tid.load()) == 'S';
    if (!slept) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(slept);
  CHECK_FALSE(got.load());
  p.ops->mutex_unlock(p.self, m);
  waiter.join();
  CHECK(got.load());
  p.ops->mutex_destroy(p.self, m);
}
