// A scriptable in-memory platform for unit tests: records every call, serves
// files from a small table, answers the KFD GET_VERSION ioctl, and can fail
// chosen calls. Not thread-safe; one instance per test.
#ifndef HKE_TESTS_SUPPORT_FAKE_PLATFORM_H_
#define HKE_TESTS_SUPPORT_FAKE_PLATFORM_H_

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_platform.h"

namespace hke_test {

struct Call {
  std::string op;
  int fd = -1;
  uint32_t request = 0;
  std::string path;
};

class FakePlatform {
 public:
  static constexpr int kKfdFd = 100;

  FakePlatform() {
    ops_.struct_size = sizeof(ops_);
    ops_.abi_version = HKE_PLATFORM_ABI_VERSION;
    ops_.open = [](void* s, const char* p, uint32_t f, int* out) { return Self(s)->Open(p, f, out); };
    ops_.close = [](void* s, int fd) { return Self(s)->Close(fd); };
    ops_.ioctl = [](void* s, int fd, uint32_t r, void* a) { return Self(s)->Ioctl(fd, r, a); };
    ops_.read_file = [](void* s, const char* p, char* b, size_t c, size_t* n) {
      return Self(s)->ReadFile(p, b, c, n);
    };
    ops_.process_id = [](void* s, int32_t* out) {
      *out = Self(s)->pid;
      return 0;
    };
  }
  FakePlatform(const FakePlatform&) = delete;
  FakePlatform& operator=(const FakePlatform&) = delete;

  hke_platform platform() { return hke_platform{&ops_, this}; }
  hke_platform_ops& ops() { return ops_; }

  // Behaviour knobs.
  uint32_t version_major = 1;
  uint32_t version_minor = 17;
  int32_t pid = 1000;
  int open_error = 0;             // errno for open("/dev/kfd")
  std::vector<int> ioctl_errors;  // consumed front to back, 0 = succeed
  std::map<std::string, std::string> files;
  std::function<int(int, uint32_t, void*)> ioctl_hook;  // overrides the default ioctl
  // Files: called before every read_file lookup (may edit `files`).
  std::function<void(const std::string& path)> before_read;
  // Files: read_file of these paths fails with the errno given.
  std::map<std::string, int> read_errors;
  // Directories for list_dir besides those implied by `files` (e.g. empty ones).
  std::set<std::string> dirs;

  // Installs list_dir (absent by default): a directory lists the next path
  // component of every entry of `files` and `dirs` below it, files as
  // HKE_DIRENT_FILE and the rest as HKE_DIRENT_DIR; ENOENT when nothing is
  // below it and it is not in `dirs`.
  void EnableListDir() {
    ops_.list_dir = [](void* s, const char* p, hke_dirent_fn fn, void* u) {
      return Self(s)->ListDir(p, fn, u);
    };
  }

  // Observations.
  std::vector<Call> calls;
  std::vector<int> open_fds;

  size_t Count(const std::string& op) const {
    size_t n = 0;
    for (const auto& c : calls) n += c.op == op;
    return n;
  }
  size_t IoctlsOnFd(int fd) const {
    size_t n = 0;
    for (const auto& c : calls) n += c.op == "ioctl" && c.fd == fd;
    return n;
  }

 private:
  static FakePlatform* Self(void* s) { return static_cast<FakePlatform*>(s); }

  int Open(const char* path, uint32_t flags, int* out) {
    calls.push_back({"open", -1, 0, path});
    last_open_flags = flags;
    if (std::strcmp(path, "/dev/kfd") != 0) return ENOENT;
    if (open_error != 0) return open_error;
    int fd = kKfdFd + static_cast<int>(open_fds.size()) + closed_;
    open_fds.push_back(fd);
    *out = fd;
    return 0;
  }
  int Close(int fd) {
    calls.push_back({"close", fd, 0, ""});
    for (size_t i = 0; i < open_fds.size(); ++i) {
      if (open_fds[i] == fd) {
        open_fds.erase(open_fds.begin() + static_cast<long>(i));
        ++closed_;
        return 0;
      }
    }
    return EBADF;
  }
  int Ioctl(int fd, uint32_t request, void* arg) {
    calls.push_back({"ioctl", fd, request, ""});
    if (!ioctl_errors.empty()) {
      int e = ioctl_errors.front();
      ioctl_errors.erase(ioctl_errors.begin());
      if (e != 0) return e;
    }
    if (ioctl_hook) return ioctl_hook(fd, request, arg);
    if (request == 0x80084b01u) {  // AMDKFD_IOC_GET_VERSION
      uint32_t v[2] = {version_major, version_minor};
      std::memcpy(arg, v, sizeof(v));
      return 0;
    }
    return ENOTTY;
  }
  int ListDir(const char* path, hke_dirent_fn fn, void* user) {
    calls.push_back({"list_dir", -1, 0, path});
    const std::string prefix = std::string(path) + "/";
    std::map<std::string, uint32_t> entries;
    auto add = [&](const std::string& full, bool is_file) {
      if (full.compare(0, prefix.size(), prefix) != 0 || full.size() == prefix.size()) return;
      const std::string rest = full.substr(prefix.size());
      const size_t slash = rest.find('/');
      const std::string name = rest.substr(0, slash);
      const bool file = is_file && slash == std::string::npos;
      entries[name] = file ? HKE_DIRENT_FILE : HKE_DIRENT_DIR;
    };
    for (const auto& f : files) add(f.first, true);
    for (const auto& d : dirs) add(d, false);
    if (entries.empty() && dirs.count(path) == 0) return ENOENT;
    for (const auto& e : entries) {
      if (fn(user, e.first.c_str(), e.second) != 0) break;
    }
    return 0;
  }
  int ReadFile(const char* path, char* buf, size_t cap, size_t* out) {
    calls.push_back({"read_file", -1, 0, path});
    if (before_read) before_read(path);
    auto err = read_errors.find(path);
    if (err != read_errors.end()) return err->second;
    auto it = files.find(path);
    if (it == files.end()) return ENOENT;
    if (it->second.size() > cap) return EFBIG;
    std::memcpy(buf, it->second.data(), it->second.size());
    *out = it->second.size();
    return 0;
  }

 public:
  uint32_t last_open_flags = 0;

 private:
  int closed_ = 0;
  hke_platform_ops ops_{};
};

}  // namespace hke_test

#endif  // HKE_TESTS_SUPPORT_FAKE_PLATFORM_H_
