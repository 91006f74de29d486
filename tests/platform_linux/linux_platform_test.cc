// Contracts of the Linux platform table on real files (a scratch directory).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>

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

TEST_CASE("linux open refuses unknown flag bits instead of guessing") {
  const hke_platform p = hke_linux_platform();
  int fd = -1;
  CHECK(p.ops->open(p.self, "/dev/null", 0x80000000u, &fd) == EINVAL);
  CHECK(fd == -1);
  REQUIRE(p.ops->open(p.self, "/dev/null", HKE_OPEN_READ | HKE_OPEN_CLOEXEC, &fd) == 0);
  CHECK((::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
  CHECK(p.ops->close(p.self, fd) == 0);
}
