// An in-memory inner platform for the decorator tests: every operation is
// present, every call is recorded, a few files and one directory are
// served, and the ioctl answers deterministically. Thread-safe (one mutex)
// so concurrency tests can share it.
#ifndef HKE_TESTS_PLATFORM_DECORATORS_FAKE_INNER_H_
#define HKE_TESTS_PLATFORM_DECORATORS_FAKE_INNER_H_

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "hsakmt/hsakmt_platform.h"
#include "lib/kfd/ioc.h"

namespace hke_decorator_test {

class FakeInner {
 public:
  static constexpr uintptr_t kMapAddress = 0x7f001000u;  // fits a 32-bit address space too
  static constexpr uint64_t kClockNs = 123456789u;
  static constexpr uint32_t kCpus = 8;
  static constexpr int32_t kPid = 4242;
  static constexpr size_t kPageSize = 4096;
  static constexpr int kFirstFd = 3;

  FakeInner() {
    ops_.struct_size = sizeof(ops_);
    ops_.abi_version = HKE_PLATFORM_ABI_VERSION;
    ops_.open = [](void* s, const char* p, uint32_t f, int* out) {
      return Self(s)->Open(p, f, out);
    };
    ops_.close = [](void* s, int fd) { return Self(s)->Close(fd); };
    ops_.ioctl = [](void* s, int fd, uint32_t r, void* a) { return Self(s)->Ioctl(fd, r, a); };
    ops_.mmap = [](void* s, void* addr, size_t len, uint32_t prot, uint32_t flags, int fd,
                   uint64_t off, void** out) {
      Self(s)->Record("mmap");
      (void)addr, (void)len, (void)prot, (void)flags, (void)fd, (void)off;
      *out = reinterpret_cast<void*>(kMapAddress);
      return 0;
    };
    ops_.munmap = [](void* s, void*, size_t) {
      Self(s)->Record("munmap");
      return 0;
    };
    ops_.madvise = [](void* s, void*, size_t, uint32_t) {
      Self(s)->Record("madvise");
      return 0;
    };
    ops_.read_file = [](void* s, const char* p, char* b, size_t c, size_t* n) {
      return Self(s)->ReadFile(p, b, c, n);
    };
    ops_.list_dir = [](void* s, const char* p, hke_dirent_fn fn, void* u) {
      return Self(s)->ListDir(p, fn, u);
    };
    ops_.clock_ns = [](void* s, uint32_t, uint64_t* out) {
      Self(s)->Record("clock_ns");
      *out = kClockNs;
      return 0;
    };
    ops_.cpu_count = [](void* s, uint32_t* out) {
      Self(s)->Record("cpu_count");
      *out = kCpus;
      return 0;
    };
    ops_.process_id = [](void* s, int32_t* out) {
      Self(s)->Record("process_id");
      *out = kPid;
      return 0;
    };
    ops_.read_fd = [](void* s, int, void* buf, size_t cap, size_t* out) {
      Self(s)->Record("read_fd");
      // Serves the bytes 0x10, 0x11, ... up to 4 of them.
      const size_t n = cap < 4 ? cap : 4;
      for (size_t i = 0; i < n; ++i) {
        static_cast<unsigned char*>(buf)[i] = static_cast<unsigned char>(0x10 + i);
      }
      *out = n;
      return 0;
    };
    ops_.page_size = [](void* s, size_t* out) {
      Self(s)->Record("page_size");
      *out = kPageSize;
      return 0;
    };
    ops_.mem_policy = [](void* s, void*, size_t, uint32_t, uint32_t) {
      Self(s)->Record("mem_policy");
      return Self(s)->policy_result;
    };
    files["/sys/devices/virtual/kfd/kfd/topology/generation_id"] = "1\n";
    files["/dev/kfd"] = "";
    dirs["/sys/devices/virtual/kfd/kfd/topology/nodes"] = {"0", "1", "2"};
  }
  FakeInner(const FakeInner&) = delete;
  FakeInner& operator=(const FakeInner&) = delete;

  hke_platform platform() { return hke_platform{&ops_, this}; }
  hke_platform_ops& ops() { return ops_; }

  // Knobs.
  int ioctl_result = 0;  // returned by every ioctl (output is written only when 0)
  int policy_result = 0;  // returned by every mem_policy
  std::map<std::string, std::string> files;
  std::map<std::string, std::vector<std::string>> dirs;

  // Operation names in call order.
  std::vector<std::string> Calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  size_t CallCount(const std::string& op) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const std::string& c : calls_) n += c == op ? 1 : 0;
    return n;
  }
  std::vector<int> Closed() {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
  }

 private:
  static FakeInner* Self(void* s) { return static_cast<FakeInner*>(s); }

  void Record(const char* op) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(op);
  }

  int Open(const char* path, uint32_t, int* out) {
    Record("open");
    std::lock_guard<std::mutex> lock(mu_);
    if (path == nullptr || out == nullptr) return EINVAL;
    if (files.count(path) == 0) return ENOENT;
    *out = next_fd_++;
    return 0;
  }

  int Close(int fd) {
    Record("close");
    std::lock_guard<std::mutex> lock(mu_);
    closed_.push_back(fd);
    return 0;
  }

  // Read-write requests answer each input byte XOR 0xff; read-only requests
  // answer 0x5a bytes.
  int Ioctl(int, uint32_t request, void* arg) {
    Record("ioctl");
    if (ioctl_result != 0) return ioctl_result;
    const uint8_t dir = hke::kfd::IocDir(request);
    const uint32_t size = hke::kfd::IocSize(request);
    auto* b = static_cast<unsigned char*>(arg);
    if (dir == hke::kfd::kIocReadWrite) {
      for (uint32_t i = 0; i < size; ++i) b[i] = static_cast<unsigned char>(b[i] ^ 0xff);
    } else if (dir == hke::kfd::kIocRead) {
      std::memset(b, 0x5a, size);
    }
    return 0;
  }

  int ReadFile(const char* path, char* buf, size_t cap, size_t* out) {
    Record("read_file");
    if (path == nullptr || out == nullptr) return EINVAL;
    auto it = files.find(path);
    if (it == files.end()) return ENOENT;
    if (it->second.size() > cap) return EFBIG;
    std::memcpy(buf, it->second.data(), it->second.size());
    *out = it->second.size();
    return 0;
  }

  int ListDir(const char* path, hke_dirent_fn fn, void* user) {
    Record("list_dir");
    auto it = dirs.find(path);
    if (it == dirs.end()) return ENOENT;
    for (const std::string& e : it->second) {
      if (fn(user, e.c_str(), HKE_DIRENT_DIR) != 0) break;
    }
    return 0;
  }

  hke_platform_ops ops_{};
  std::mutex mu_;
  std::vector<std::string> calls_;
  std::vector<int> closed_;
  int next_fd_ = kFirstFd;
};

// Collects every line a trace sink receives.
struct LineSink {
  std::mutex mu;
  std::vector<std::string> lines;
  size_t calls = 0;
  bool nul_terminated = true;

  static void Fn(void* user, const char* line, size_t length) {
    auto* s = static_cast<LineSink*>(user);
    std::lock_guard<std::mutex> lock(s->mu);
    ++s->calls;
    if (line[length] != '\0') s->nul_terminated = false;
    s->lines.emplace_back(line, length);
  }
};

}  // namespace hke_decorator_test

#endif  // HKE_TESTS_PLATFORM_DECORATORS_FAKE_INNER_H_
