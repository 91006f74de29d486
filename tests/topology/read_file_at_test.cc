// The snapshot over the Linux platform table on a captured tree on disk,
// with and without the optional read_file_at operation: the same parse,
// the same files read once each, and the same failures.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_faults.h"
#include "hsakmt/hsakmt_linux.h"
#include "lib/core/diag.h"
#include "lib/core/platform.h"
#include "lib/topology/snapshot.h"

namespace {

using namespace hke::topology;

using TestSnapshot = SnapshotStorage<128, 8, 256, 128, 1024, 8192, 8192>;

const std::string kTree = std::string(HKE_SHARED_DIR) + "/fixtures/topology/mi308x-8gpu-cpx";

// Counts of the Linux table's file operations (single-threaded test).
struct Counts {
  uint64_t read_file = 0;
  uint64_t read_file_at = 0;
  uint64_t dir_opens = 0;
};
Counts g_counts;

int CountingOpen(void* self, const char* path, uint32_t flags, int* out_fd) {
  if ((flags & HKE_OPEN_DIRECTORY) != 0) ++g_counts.dir_opens;
  return hke_linux_platform_ops()->open(self, path, flags, out_fd);
}
int CountingReadFile(void* self, const char* path, char* buf, size_t cap, size_t* out) {
  ++g_counts.read_file;
  return hke_linux_platform_ops()->read_file(self, path, buf, cap, out);
}
int CountingReadFileAt(void* self, int dirfd, const char* name, char* buf, size_t cap,
                       size_t* out) {
  ++g_counts.read_file_at;
  return hke_linux_platform_ops()->read_file_at(self, dirfd, name, buf, cap, out);
}

enum class Variant {
  kWithOp,      // the Linux table as it is
  kNullOp,      // read_file_at NULL
  kOlderTable,  // struct_size ends before read_file_at (a port built against an older header)
};

hke_platform_ops Table(Variant v) {
  hke_platform_ops ops = *hke_linux_platform_ops();
  ops.open = &CountingOpen;
  ops.read_file = &CountingReadFile;
  ops.read_file_at = &CountingReadFileAt;
  if (v == Variant::kNullOp) ops.read_file_at = nullptr;
  if (v == Variant::kOlderTable) {
    ops.struct_size = static_cast<uint32_t>(offsetof(hke_platform_ops, read_file_at));
  }
  return ops;
}

struct DiagLog {
  std::vector<std::string> errors;
  static void Fn(void* user, const hke_diag_record* r) {
    if (r->level != HKE_DIAG_ERROR) return;
    static_cast<DiagLog*>(user)->errors.push_back(std::string(r->message) + " @ " +
                                                  (r->path ? r->path : ""));
  }
};

struct Result {
  hke::Status status;
  std::vector<std::string> errors;
  std::unique_ptr<TestSnapshot> snap = std::make_unique<TestSnapshot>();
};

Result Take(hke_platform p) {
  Result r;
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  TakeOptions o;
  o.root = kTree.c_str();
  o.cpu_details = true;  // the CPU cache files of the host, read the same way
  r.status = r.snap->Take(hke::Platform(p, 0), diag, o);
  r.errors = log.errors;
  return r;
}

Result TakeVariant(Variant v, const hke_faults_rule* rule = nullptr) {
  const hke_platform_ops ops = Table(v);
  hke_platform inner{&ops, nullptr};
  if (rule == nullptr) return Take(inner);
  hke_faults faults;
  REQUIRE(hke_faults_init(&faults, inner) == 0);
  REQUIRE(hke_faults_add_rule(&faults, rule) == 0);
  return Take(hke_faults_platform(&faults));
}

// Every record of two valid snapshots is equal.
void CheckSame(const Snapshot& a, const Snapshot& b) {
  REQUIRE(a.valid());
  REQUIRE(b.valid());
  REQUIRE(a.num_nodes() == b.num_nodes());
  for (uint32_t n = 0; n < a.num_nodes(); ++n) {
    CAPTURE(n);
    const NodeRecord& x = *a.node(n);
    const NodeRecord& y = *b.node(n);
    CHECK(std::memcmp(x.v32, y.v32, sizeof(x.v32)) == 0);
    CHECK(std::memcmp(x.v64, y.v64, sizeof(x.v64)) == 0);
    CHECK(x.gpu_id == y.gpu_id);
    CHECK(x.sysfs_id == y.sysfs_id);
    CHECK(std::string(x.name) == std::string(y.name));
    CHECK(std::string(x.model_name) == std::string(y.model_name));
    REQUIRE(x.num_mem_banks == y.num_mem_banks);
    REQUIRE(x.num_caches == y.num_caches);
    REQUIRE(x.num_links == y.num_links);
    for (uint32_t i = 0; i < x.num_mem_banks; ++i) {
      const MemBankRecord& p = *a.mem_bank(n, i);
      const MemBankRecord& q = *b.mem_bank(n, i);
      CHECK(p.size_in_bytes == q.size_in_bytes);
      CHECK(p.heap_type == q.heap_type);
      CHECK(p.flags == q.flags);
      CHECK(p.width == q.width);
      CHECK(p.mem_clk_max == q.mem_clk_max);
    }
    for (uint32_t i = 0; i < x.num_caches; ++i) {
      CHECK(std::memcmp(a.cache(n, i)->v, b.cache(n, i)->v, sizeof(a.cache(n, i)->v)) == 0);
      CHECK(std::memcmp(a.cache(n, i)->siblings, b.cache(n, i)->siblings,
                        sizeof(a.cache(n, i)->siblings)) == 0);
    }
    for (uint32_t i = 0; i < x.num_links; ++i) {
      CHECK(std::memcmp(a.link(n, i)->v, b.link(n, i)->v, sizeof(a.link(n, i)->v)) == 0);
    }
  }
}

}  // namespace

TEST_CASE("a table without read_file_at parses a tree on disk exactly as one with it") {
  g_counts = {};
  const Result with = TakeVariant(Variant::kWithOp);
  const Counts with_counts = g_counts;
  REQUIRE(with.status.ok());
  CHECK(with.snap->num_nodes() == 34);

  for (Variant v : {Variant::kNullOp, Variant::kOlderTable}) {
    CAPTURE(static_cast<int>(v));
    g_counts = {};
    const Result without = TakeVariant(v);
    REQUIRE(without.status.ok());
    CheckSame(*with.snap, *without.snap);
    // Without the operation every file is read by its path, no directory
    // is opened to read through, and read_file_at is never called.
    CHECK(g_counts.read_file_at == 0);
    // With it, the same files are read, each once: most through
    // read_file_at, the files outside nodes/ (generation_id,
    // system_properties) by path.
    CHECK(with_counts.read_file + with_counts.read_file_at == g_counts.read_file);
    CHECK(with_counts.dir_opens > g_counts.dir_opens);
  }
  CHECK(with_counts.read_file_at > 2000);  // the tree's node files (2732 files, counts bound them)
  CHECK(with_counts.read_file == 3);  // generation_id twice and system_properties
}

TEST_CASE("a fault on a read through read_file_at fails the snapshot as the same fault on read_file") {
  // The faults decorator counts read_file_at as read_file, so rule k fails
  // the same file in both tables: the k-th file the parse reads.
  const uint64_t ks[] = {1, 2, 3, 4, 5, 17, 100, 1000};
  const int errnos[] = {EIO, ENOENT, EPERM, EFBIG, EACCES};
  for (uint64_t k : ks) {
    for (int e : errnos) {
      CAPTURE(k);
      CAPTURE(e);
      hke_faults_rule rule{};
      rule.op = HKE_FAULTS_OP_READ_FILE;
      rule.when = HKE_FAULTS_WHEN_NTH;
      rule.nth = k;
      rule.error = e;
      const Result with = TakeVariant(Variant::kWithOp, &rule);
      const Result without = TakeVariant(Variant::kNullOp, &rule);
      CHECK(with.status == without.status);
      CHECK(with.errors == without.errors);
      CHECK(with.snap->valid() == without.snap->valid());
      // A fault on a node file is a failed snapshot (k 1..5 and the later
      // ones hit files the parse needs), except EPERM on a gpu_id, which
      // hides that node in both.
      if (!with.status.ok()) CHECK_FALSE(with.errors.empty());
    }
  }
}
