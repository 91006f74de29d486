// The optional read_file_at through the trace and faults decorators, over
// the Linux table on a scratch directory: traced as its own line, faulted
// as read_file, and absent (NULL) through both when the inner table lacks
// it or predates it.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

#include "hsakmt/hsakmt_faults.h"
#include "hsakmt/hsakmt_linux.h"
#include "hsakmt/hsakmt_trace.h"
#include "tests/platform_decorators/fake_inner.h"

namespace {

using hke_decorator_test::LineSink;

struct Scratch {
  std::string path;
  Scratch() {
    char templ[] = "/tmp/hke-read-file-at.XXXXXX";
    REQUIRE(mkdtemp(templ) != nullptr);
    path = templ;
    const int fd = ::open((path + "/gpu_id").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, "4098\n", 5) == 5);
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

bool HasReadFileAt(const hke_platform& p) { return p.ops->read_file_at != nullptr; }

}  // namespace

TEST_CASE("trace prints read_file_at with its descriptor, name and length") {
  Scratch d;
  LineSink sink;
  hke_trace trace;
  REQUIRE(hke_trace_init(&trace, hke_linux_platform(), LineSink::Fn, &sink) == 0);
  const hke_platform p = hke_trace_platform(&trace);
  REQUIRE(HasReadFileAt(p));
  const int dirfd = OpenDir(p, d.path);
  char buf[64];
  size_t n = 0;
  REQUIRE(p.ops->read_file_at(p.self, dirfd, "gpu_id", buf, sizeof(buf), &n) == 0);
  CHECK(n == 5);
  size_t untouched = 99;
  CHECK(p.ops->read_file_at(p.self, dirfd, "missing", buf, sizeof(buf), &untouched) == ENOENT);
  CHECK(untouched == 99);
  REQUIRE(p.ops->close(p.self, dirfd) == 0);
  REQUIRE(sink.lines.size() == 4);
  const std::string fd = std::to_string(dirfd);
  CHECK(sink.lines[1] == "2 read_file_at dirfd=" + fd + " name=gpu_id cap=64 -> ok len=5\n");
  CHECK(sink.lines[2] == "3 read_file_at dirfd=" + fd + " name=missing cap=64 -> ENOENT\n");
}

TEST_CASE("faults count read_file_at as read_file and fail it with the rule's errno") {
  Scratch d;
  hke_faults faults;
  REQUIRE(hke_faults_init(&faults, hke_linux_platform()) == 0);
  REQUIRE(hke_faults_add_spec(&faults, "read_file:2:EIO", 15, nullptr) == HKE_FAULTS_PARSE_OK);
  const hke_platform p = hke_faults_platform(&faults);
  REQUIRE(HasReadFileAt(p));
  const int dirfd = OpenDir(p, d.path);
  char buf[64];
  size_t n = 0;
  REQUIRE(p.ops->read_file(p.self, (d.path + "/gpu_id").c_str(), buf, sizeof(buf), &n) == 0);
  size_t untouched = 99;
  CHECK(p.ops->read_file_at(p.self, dirfd, "gpu_id", buf, sizeof(buf), &untouched) == EIO);
  CHECK(untouched == 99);
  CHECK(p.ops->read_file_at(p.self, dirfd, "gpu_id", buf, sizeof(buf), &n) == 0);
  CHECK(n == 5);
  CHECK(hke_faults_calls(&faults, HKE_FAULTS_OP_READ_FILE) == 3);
  CHECK(hke_faults_injected(&faults) == 1);
  REQUIRE(p.ops->close(p.self, dirfd) == 0);
}

TEST_CASE("the decorators leave read_file_at NULL when the inner table lacks or predates it") {
  hke_platform_ops null_op = *hke_linux_platform_ops();
  null_op.read_file_at = nullptr;
  hke_platform_ops older = *hke_linux_platform_ops();
  older.struct_size = static_cast<uint32_t>(offsetof(hke_platform_ops, read_file_at));
  for (const hke_platform_ops* ops : {&null_op, &older}) {
    const hke_platform inner{ops, nullptr};
    LineSink sink;
    hke_trace trace;
    REQUIRE(hke_trace_init(&trace, inner, LineSink::Fn, &sink) == 0);
    CHECK_FALSE(HasReadFileAt(hke_trace_platform(&trace)));
    hke_faults faults;
    REQUIRE(hke_faults_init(&faults, inner) == 0);
    CHECK_FALSE(HasReadFileAt(hke_faults_platform(&faults)));
  }
}
