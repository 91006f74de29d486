// The optional list_dir_fd through the trace and faults decorators, over
// the Linux table on a scratch directory: traced as its own line with the
// entry count, faulted as list_dir, and absent (NULL) through both when the
// inner table lacks it or predates it.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <set>
#include <string>

#include "hsakmt/hsakmt_faults.h"
#include "hsakmt/hsakmt_linux.h"
#include "hsakmt/hsakmt_trace.h"
#include "tests/platform_decorators/fake_inner.h"

namespace {

using hke_decorator_test::LineSink;

// A cache directory with two index directories and a stray file.
struct Scratch {
  std::string path;
  Scratch() {
    char templ[] = "/tmp/hke-list-dir-fd.XXXXXX";
    REQUIRE(mkdtemp(templ) != nullptr);
    path = templ;
    REQUIRE(::mkdir((path + "/index0").c_str(), 0755) == 0);
    REQUIRE(::mkdir((path + "/index1").c_str(), 0755) == 0);
    const int fd = ::open((path + "/uevent").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    ::close(fd);
  }
  ~Scratch() { (void)system(("rm -rf '" + path + "'").c_str()); }
};

int OpenDir(const hke_platform& p, const std::string& path) {
  int fd = -1;
  REQUIRE(p.ops->open(p.self, path.c_str(), HKE_OPEN_READ | HKE_OPEN_DIRECTORY | HKE_OPEN_CLOEXEC,
                      &fd) == 0);
  return fd;
}

int Collect(void* user, const char* name, uint32_t) {
  static_cast<std::set<std::string>*>(user)->insert(name);
  return 0;
}

bool HasListDirFd(const hke_platform& p) { return p.ops->list_dir_fd != nullptr; }
bool HasReadFileAt(const hke_platform& p) { return p.ops->read_file_at != nullptr; }

}  // namespace

TEST_CASE("trace prints list_dir_fd with its descriptor and the entries it reported") {
  Scratch d;
  LineSink sink;
  hke_trace trace;
  REQUIRE(hke_trace_init(&trace, hke_linux_platform(), LineSink::Fn, &sink) == 0);
  const hke_platform p = hke_trace_platform(&trace);
  REQUIRE(HasListDirFd(p));
  const int dirfd = OpenDir(p, d.path);
  std::set<std::string> seen;
  REQUIRE(p.ops->list_dir_fd(p.self, dirfd, &Collect, &seen) == 0);
  CHECK(seen == std::set<std::string>{"index0", "index1", "uevent"});
  REQUIRE(p.ops->close(p.self, dirfd) == 0);
  CHECK(p.ops->list_dir_fd(p.self, dirfd, &Collect, &seen) == EBADF);
  REQUIRE(sink.lines.size() == 4);
  const std::string fd = std::to_string(dirfd);
  CHECK(sink.lines[1] == "2 list_dir_fd dirfd=" + fd + " -> ok entries=3\n");
  CHECK(sink.lines[3] == "4 list_dir_fd dirfd=" + fd + " -> EBADF\n");
}

TEST_CASE("faults count list_dir_fd as list_dir and fail it with the rule's errno") {
  Scratch d;
  hke_faults faults;
  REQUIRE(hke_faults_init(&faults, hke_linux_platform()) == 0);
  REQUIRE(hke_faults_add_spec(&faults, "list_dir:2:EIO", 14, nullptr) == HKE_FAULTS_PARSE_OK);
  const hke_platform p = hke_faults_platform(&faults);
  REQUIRE(HasListDirFd(p));
  const int dirfd = OpenDir(p, d.path);
  std::set<std::string> seen;
  REQUIRE(p.ops->list_dir(p.self, d.path.c_str(), &Collect, &seen) == 0);
  seen.clear();
  CHECK(p.ops->list_dir_fd(p.self, dirfd, &Collect, &seen) == EIO);
  CHECK(seen.empty());  // failed before the inner table listed anything
  CHECK(p.ops->list_dir_fd(p.self, dirfd, &Collect, &seen) == 0);
  CHECK(seen.size() == 3);
  CHECK(hke_faults_calls(&faults, HKE_FAULTS_OP_LIST_DIR) == 3);
  CHECK(hke_faults_injected(&faults) == 1);
  REQUIRE(p.ops->close(p.self, dirfd) == 0);
}

TEST_CASE("the decorators leave list_dir_fd NULL when the inner table lacks or predates it") {
  hke_platform_ops null_op = *hke_linux_platform_ops();
  null_op.list_dir_fd = nullptr;
  hke_platform_ops older = *hke_linux_platform_ops();
  older.struct_size = static_cast<uint32_t>(offsetof(hke_platform_ops, list_dir_fd));
  for (const hke_platform_ops* ops : {&null_op, &older}) {
    const hke_platform inner{ops, nullptr};
    LineSink sink;
    hke_trace trace;
    REQUIRE(hke_trace_init(&trace, inner, LineSink::Fn, &sink) == 0);
    const hke_platform traced = hke_trace_platform(&trace);
    CHECK_FALSE(HasListDirFd(traced));
    // The older table still has read_file_at, which stays offered.
    CHECK(HasReadFileAt(traced));
    hke_faults faults;
    REQUIRE(hke_faults_init(&faults, inner) == 0);
    CHECK_FALSE(HasListDirFd(hke_faults_platform(&faults)));
    CHECK(HasReadFileAt(hke_faults_platform(&faults)));
  }
}
