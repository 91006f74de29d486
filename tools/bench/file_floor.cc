// file_floor: what one cold topology cycle's files cost in the kernel alone,
// the bound for topology-cycle-cold (tools/bench/README.md, "Cold topology").
//
// Given the files one cycle opened (topology_files.sh with
// HKE_BENCH_FILES_DIR set: <target>.<library>.files, one path a line, as the
// library named them), it times passes over them under the simulator's
// preload, which serves those paths:
//   raw      open + one read + close as direct system calls on the served
//            files (the preload is bypassed, its private root resolved
//            once): the kernel's part, which no library can go below;
//   raw+sim  the same plus the fstat the preload makes on every close;
//   raw rel  raw, but each file opened relative to a descriptor of its
//            directory (opened once, before timing): what shorter path
//            walks would save;
//   libc     open/read/close through libc, i.e. through the preload's
//            wrappers (path rewriting included): the floor a library that
//            opens these files pays on the simulator.
// Reported per pass (one cycle's files) as the median and minimum of
// --passes passes, and per file.
//
// Not part of the CMake build. Build and run from the repository root:
//   g++ -std=c++17 -O2 tools/bench/file_floor.cc -o /tmp/file_floor
//   KFDSIM_BOARD=apu-embedded LD_PRELOAD=build/release/platform/sim/preload/libkfdsim-preload.so
//     /tmp/file_floor FILES [--passes N]
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: file_floor FILES [--passes N]\n");
    return 2;
  }
  int passes = 50;
  if (argc >= 4 && std::strcmp(argv[2], "--passes") == 0) passes = std::atoi(argv[3]);
  std::vector<std::string> files;
  {
    FILE* f = std::fopen(argv[1], "r");
    if (f == nullptr) {
      std::perror(argv[1]);
      return 1;
    }
    char line[4096];
    while (std::fgets(line, sizeof(line), f) != nullptr) {
      line[std::strcspn(line, "\n")] = '\0';
      if (line[0] == '/') files.push_back(line);
    }
    std::fclose(f);
  }
  if (files.empty()) return 1;
  // The preload serves a path from its private root: learn the root from
  // one served descriptor, then address the files there directly.
  std::string root;
  {
    const int fd = open(files[0].c_str(), O_RDONLY | O_CLOEXEC);
    char link[64], real[4096];
    std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    const ssize_t n = fd < 0 ? -1 : readlink(link, real, sizeof(real) - 1);
    if (n <= 0) {
      std::fprintf(stderr, "file_floor: %s is not served (run under the preload)\n",
                   files[0].c_str());
      return 1;
    }
    real[n] = '\0';
    close(fd);
    root.assign(real, static_cast<size_t>(n) - std::min(files[0].size(), static_cast<size_t>(n)));
  }
  std::vector<std::string> served;
  for (const std::string& p : files) {
    // Files outside the private root (e.g. /usr/share/libdrm/amdgpu.ids)
    // are opened where they are.
    const std::string s = root + p;
    served.push_back(access(s.c_str(), R_OK) == 0 ? s : p);
  }
  // raw rel: a descriptor per directory and the name inside it.
  static std::vector<std::pair<int, std::string>> rel;
  {
    std::vector<std::pair<std::string, int>> dirs;
    for (const std::string& p : served) {
      const size_t slash = p.rfind('/');
      const std::string d = p.substr(0, slash);
      int dfd = -1;
      for (const auto& e : dirs) {
        if (e.first == d) dfd = e.second;
      }
      if (dfd < 0) {
        dfd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, d.c_str(), O_RDONLY | O_DIRECTORY));
        dirs.push_back({d, dfd});
      }
      rel.push_back({dfd, p.substr(slash + 1)});
    }
  }
  static std::vector<std::string> indexes;
  for (size_t i = 0; i < served.size(); ++i) indexes.push_back(std::to_string(i));
  static char buf[8192];
  struct Mode {
    const char* name;
    void (*one)(const std::string& path);
    const std::vector<std::string>* paths;
  };
  const Mode modes[] = {
      {"raw open+read+close", [](const std::string& p) {
         const long fd = syscall(SYS_openat, AT_FDCWD, p.c_str(), O_RDONLY | O_CLOEXEC);
         syscall(SYS_read, fd, buf, sizeof(buf));
         syscall(SYS_close, fd);
       }, &served},
      {"raw+sim (+fstat at close)", [](const std::string& p) {
         struct stat st;
         const long fd = syscall(SYS_openat, AT_FDCWD, p.c_str(), O_RDONLY | O_CLOEXEC);
         syscall(SYS_read, fd, buf, sizeof(buf));
         syscall(SYS_fstat, fd, &st);
         syscall(SYS_close, fd);
       }, &served},
      {"raw rel (openat at its dir)", [](const std::string& i) {
         const auto& r = rel[std::strtoul(i.c_str(), nullptr, 10)];
         const long fd = syscall(SYS_openat, r.first, r.second.c_str(), O_RDONLY | O_CLOEXEC);
         syscall(SYS_read, fd, buf, sizeof(buf));
         syscall(SYS_close, fd);
       }, &indexes},
      {"libc via the preload", [](const std::string& p) {
         const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
         (void)!read(fd, buf, sizeof(buf));
         close(fd);
       }, &files},
  };
  constexpr size_t kModes = sizeof(modes) / sizeof(modes[0]);
  std::vector<std::vector<double>> times(kModes);
  for (int i = 0; i < passes; ++i) {
    for (size_t m = 0; m < kModes; ++m) {  // interleaved: load changes hit every mode
      const auto t0 = std::chrono::steady_clock::now();
      for (const std::string& p : *modes[m].paths) modes[m].one(p);
      times[m].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::printf("%zu files, %d passes\n", files.size(), passes);
  for (size_t m = 0; m < kModes; ++m) {
    const double med = Median(times[m]);
    const double mn = *std::min_element(times[m].begin(), times[m].end());
    std::printf("%-28s median %8.2f ms  min %8.2f ms  (%.2f us/file)\n", modes[m].name, med, mn,
                med * 1000 / files.size());
  }
  return 0;
}
