// The snapshot over the Linux platform table on a tree on disk whose CPU
// cache directories are malformed (a gap in the index numbering, stray
// entries, a missing cache directory, one without index entries), with and
// without the optional list_dir_fd: the same caches, the same files read,
// the same diagnostics and failures, and each cache directory opened once
// with it (twice without: listed by path, then opened to read through).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hsakmt/hsakmt_faults.h"
#include "hsakmt/hsakmt_linux.h"
#include "lib/core/diag.h"
#include "lib/core/platform.h"
#include "lib/topology/snapshot.h"

namespace {

using namespace hke::topology;

using Snap = SnapshotStorage<4, 2, 16, 4>;

// A scratch directory holding the KFD tree (<dir>/kfd) and the host's CPU
// files (<dir>/sys/devices/system/..., <dir>/proc/cpuinfo).
struct Tree {
  std::string dir;
  Tree() {
    char templ[] = "/tmp/hke-list-dir-fd-topo.XXXXXX";
    REQUIRE(mkdtemp(templ) != nullptr);
    dir = templ;
    File("kfd/generation_id", "1\n");
    File("kfd/system_properties", "platform_oem 0\n");
    File("kfd/nodes/0/gpu_id", "0\n");
    File("kfd/nodes/0/properties",
         "cpu_cores_count 4\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\n"
         "io_links_count 0\ncpu_core_id_base 0\n");
    File("kfd/nodes/0/mem_banks/0/properties", "heap_type 0\nsize_in_bytes 1024\n");
    std::string info;
    for (int p = 0; p < 4; ++p) {
      info += "processor\t: " + std::to_string(p) + "\nmodel name\t: Test CPU\napicid\t\t: " +
              std::to_string(2 * p) + "\n\n";
    }
    File("proc/cpuinfo", info);
    const std::string node = "sys/devices/system/node/node0/";
    File(node + "cpulist", "0-3\n");  // named cpu*, not a CPU
    // cpu0: index0, index1, index3 (a gap at 2) and two entries that are not
    // index directories: 3 index* entries, so index0..index2 are read.
    Index(0, 0);
    Index(0, 1);
    Index(0, 3);
    File(node + "cpu0/cache/uevent", "");
    Mkdir(node + "cpu0/cache/power");
    // cpu1: index0, index2, index3 and a stray file named index*: 4 index*
    // entries, so index0..index3 are read (index1 is missing and skipped).
    Index(1, 0);
    Index(1, 2);
    Index(1, 3);
    File(node + "cpu1/cache/indexes", "");
    // cpu2: no cache directory. cpu3: a cache directory without indexes.
    Mkdir(node + "cpu2");
    File(node + "cpu3/cache/uevent", "");
  }
  ~Tree() { (void)system(("rm -rf '" + dir + "'").c_str()); }

  void Mkdir(const std::string& rel) {
    std::string at = dir;
    size_t from = 0;
    while (from <= rel.size()) {
      const size_t slash = rel.find('/', from);
      const size_t end = slash == std::string::npos ? rel.size() : slash;
      at += "/" + rel.substr(from, end - from);
      if (::mkdir(at.c_str(), 0755) != 0) REQUIRE(errno == EEXIST);
      from = end + 1;
    }
  }
  void File(const std::string& rel, const std::string& text) {
    const size_t slash = rel.rfind('/');
    if (slash != std::string::npos) Mkdir(rel.substr(0, slash));
    const int fd = ::open((dir + "/" + rel).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    ::close(fd);
  }
  // A private cache of `cpu`; its size in KiB, cpu * 10 + index + 1, tells
  // which index it came from.
  void Index(int cpu, int index) {
    const std::string d = "sys/devices/system/node/node0/cpu" + std::to_string(cpu) +
                          "/cache/index" + std::to_string(index) + "/";
    File(d + "level", std::to_string(index + 1) + "\n");
    File(d + "type", "Unified\n");
    File(d + "size", std::to_string(cpu * 10 + index + 1) + "K\n");
    File(d + "coherency_line_size", "64\n");
    File(d + "ways_of_associativity", "8\n");
    File(d + "physical_line_partition", "1\n");
    File(d + "shared_cpu_map", "0000000" + std::to_string(1 << cpu) + "\n");
    File(d + "shared_cpu_list", std::to_string(cpu) + "\n");
  }
};

// The Linux table with the host's CPU paths redirected into the scratch
// tree and every file operation recorded by the path it names (a relative
// name resolved against its directory descriptor). Single-threaded.
struct Recorder {
  std::string root;
  std::map<int, std::string> dirs;           // open directory descriptors: path
  std::multiset<std::string> reads;          // files read (read_file, read_file_at)
  std::multiset<std::string> path_listings;  // list_dir
  std::multiset<std::string> fd_listings;    // list_dir_fd
  std::multiset<std::string> dir_opens;      // open with HKE_OPEN_DIRECTORY, failed ones too

  std::string Host(const char* path) const {
    const std::string p = path;
    if (p.rfind("/sys/devices/system/", 0) == 0 || p == "/proc/cpuinfo") return root + p;
    return p;
  }
  // The path the library named, for the records.
  std::string Named(int dirfd, const char* name) const {
    auto it = dirs.find(dirfd);
    return (it == dirs.end() ? std::string("?") : it->second) + "/" + name;
  }
};
Recorder* g_rec = nullptr;
const hke_platform_ops* Linux() { return hke_linux_platform_ops(); }

int RecOpen(void* self, const char* path, uint32_t flags, int* out_fd) {
  const std::string host = g_rec->Host(path);
  if ((flags & HKE_OPEN_DIRECTORY) != 0) g_rec->dir_opens.insert(path);
  const int r = Linux()->open(self, host.c_str(), flags, out_fd);
  if (r == 0 && (flags & HKE_OPEN_DIRECTORY) != 0) g_rec->dirs[*out_fd] = path;
  return r;
}
int RecClose(void* self, int fd) {
  g_rec->dirs.erase(fd);
  return Linux()->close(self, fd);
}
int RecReadFile(void* self, const char* path, char* buf, size_t cap, size_t* out) {
  g_rec->reads.insert(path);
  return Linux()->read_file(self, g_rec->Host(path).c_str(), buf, cap, out);
}
int RecReadFileAt(void* self, int dirfd, const char* name, char* buf, size_t cap, size_t* out) {
  g_rec->reads.insert(g_rec->Named(dirfd, name));
  return Linux()->read_file_at(self, dirfd, name, buf, cap, out);
}
int RecListDir(void* self, const char* path, hke_dirent_fn fn, void* user) {
  g_rec->path_listings.insert(path);
  return Linux()->list_dir(self, g_rec->Host(path).c_str(), fn, user);
}
int RecListDirFd(void* self, int dirfd, hke_dirent_fn fn, void* user) {
  auto it = g_rec->dirs.find(dirfd);
  g_rec->fd_listings.insert(it == g_rec->dirs.end() ? std::string("?") : it->second);
  return Linux()->list_dir_fd(self, dirfd, fn, user);
}
int FourCpus(void*, uint32_t* out) {
  *out = 4;
  return 0;
}

enum class Variant {
  kWithOp,        // read_file_at and list_dir_fd
  kNullOp,        // list_dir_fd NULL
  kOlderTable,    // struct_size ends before list_dir_fd (read_file_at kept)
  kNoReadFileAt,  // list_dir_fd without read_file_at: not used (nothing is held open)
};

hke_platform_ops Table(Variant v) {
  hke_platform_ops ops = *Linux();
  ops.open = &RecOpen;
  ops.close = &RecClose;
  ops.read_file = &RecReadFile;
  ops.read_file_at = &RecReadFileAt;
  ops.list_dir = &RecListDir;
  ops.list_dir_fd = &RecListDirFd;
  ops.cpu_count = &FourCpus;
  if (v == Variant::kNullOp) ops.list_dir_fd = nullptr;
  if (v == Variant::kOlderTable) {
    ops.struct_size = static_cast<uint32_t>(offsetof(hke_platform_ops, list_dir_fd));
  }
  if (v == Variant::kNoReadFileAt) ops.read_file_at = nullptr;
  return ops;
}

struct Result {
  hke::Status status;
  std::vector<std::string> diags;  // every level: level status message @ path
  std::vector<std::pair<uint32_t, uint32_t>> caches;  // ProcessorIdLow, CacheSize in KiB
  std::vector<HsaCacheProperties> raw;
  Recorder rec;
};

struct DiagLog {
  std::vector<std::string> lines;
  static void Fn(void* user, const hke_diag_record* r) {
    static_cast<DiagLog*>(user)->lines.push_back(std::to_string(r->level) + " " +
                                                 std::to_string(r->status) + " " + r->message +
                                                 " @ " + (r->path ? r->path : ""));
  }
};

template <typename Storage = Snap>
Result TakeVariant(const Tree& tree, Variant v, const hke_faults_rule* rule = nullptr) {
  Result r;
  r.rec.root = tree.dir;
  g_rec = &r.rec;
  const hke_platform_ops ops = Table(v);
  hke_platform p{&ops, nullptr};
  hke_faults faults;
  if (rule != nullptr) {
    REQUIRE(hke_faults_init(&faults, p) == 0);
    REQUIRE(hke_faults_add_rule(&faults, rule) == 0);
    p = hke_faults_platform(&faults);
  }
  DiagLog log;
  hke::Diag diag(&DiagLog::Fn, &log);
  TakeOptions o;
  const std::string root = tree.dir + "/kfd";
  o.root = root.c_str();
  o.cpu_details = true;
  auto snap = std::make_unique<Storage>();
  r.status = snap->Take(hke::Platform(p, 0), diag, o);
  r.diags = log.lines;
  if (r.status.ok()) {
    HsaNodeProperties np;
    REQUIRE(snap->FillNodeProperties(0, &np).ok());
    r.raw.resize(np.NumCaches);
    if (np.NumCaches != 0) REQUIRE(snap->FillCacheProperties(0, np.NumCaches, r.raw.data()).ok());
    for (const HsaCacheProperties& c : r.raw) r.caches.emplace_back(c.ProcessorIdLow, c.CacheSize / 1024);
  }
  g_rec = nullptr;
  CHECK(r.rec.dirs.empty());  // every directory descriptor was closed
  return r;
}

void CheckSame(const Result& a, const Result& b) {
  CHECK(a.status == b.status);
  CHECK(a.diags == b.diags);
  CHECK(a.caches == b.caches);
  REQUIRE(a.raw.size() == b.raw.size());
  for (size_t i = 0; i < a.raw.size(); ++i) {
    CHECK(std::memcmp(&a.raw[i], &b.raw[i], sizeof(a.raw[i])) == 0);
  }
  CHECK(a.rec.reads == b.rec.reads);
}

const std::string kNode0 = "/sys/devices/system/node/node0";
std::string CacheDir(int cpu) { return kNode0 + "/cpu" + std::to_string(cpu) + "/cache"; }

}  // namespace

TEST_CASE("list_dir_fd: malformed CPU cache directories parse as by path, each opened once") {
  Tree tree;
  const Result with = TakeVariant(tree, Variant::kWithOp);
  REQUIRE(with.status.ok());
  // The index* entries are counted and index0 .. count-1 read: cpu0 (3
  // entries) keeps index0 and index1, not index3 beyond the gap; cpu1 (4
  // entries, one a stray file) keeps index0, index2 and index3. apicid =
  // 2 * cpu; sizes cpu * 10 + index + 1 KiB. (The CPUs come in the
  // directory's listing order, so the caches are compared as a set.)
  const std::multiset<std::pair<uint32_t, uint32_t>> expected = {
      {0, 1}, {0, 2}, {2, 11}, {2, 13}, {2, 14}};
  CHECK(std::multiset<std::pair<uint32_t, uint32_t>>(with.caches.begin(), with.caches.end()) ==
        expected);
  // Every cache directory that exists is listed through its descriptor,
  // none by path, and opened once; the missing one (cpu2) costs a failed
  // open and then its listing by path (ENOENT, silent).
  const std::multiset<std::string> fd_listed = {
      tree.dir + "/kfd/nodes", CacheDir(0), CacheDir(1), CacheDir(3)};
  CHECK(with.rec.fd_listings == fd_listed);
  CHECK(with.rec.path_listings == std::multiset<std::string>{kNode0, CacheDir(2)});
  for (int cpu : {0, 1, 2, 3}) CHECK(with.rec.dir_opens.count(CacheDir(cpu)) == 1);
  CHECK(with.rec.dir_opens.count(tree.dir + "/kfd/nodes") == 1);

  for (Variant v : {Variant::kNullOp, Variant::kOlderTable, Variant::kNoReadFileAt}) {
    CAPTURE(static_cast<int>(v));
    const Result without = TakeVariant(tree, v);
    CheckSame(with, without);
    CHECK(without.rec.fd_listings.empty());
    // Listed by path: nodes/, node0 and every cache directory.
    for (int cpu : {0, 1, 2, 3}) CHECK(without.rec.path_listings.count(CacheDir(cpu)) == 1);
    CHECK(without.rec.path_listings.count(tree.dir + "/kfd/nodes") == 1);
    if (v != Variant::kNoReadFileAt) {
      // Opened again to read through: the cache directories with index
      // entries, and nodes/.
      CHECK(without.rec.dir_opens.count(CacheDir(0)) == 1);
      CHECK(without.rec.dir_opens.count(CacheDir(1)) == 1);
      CHECK(without.rec.dir_opens.count(tree.dir + "/kfd/nodes") == 1);
    } else {
      CHECK(without.rec.dir_opens.empty());  // nothing to read through
    }
  }
}

TEST_CASE("list_dir_fd: a fault on a listing fails the same directory as on list_dir") {
  // The faults decorator counts list_dir_fd as list_dir, so rule k fails
  // the same listing in both tables: nodes/ (k 1: the snapshot fails),
  // node0 (k 2: no caches), each CPU's cache directory (k 3..6: that
  // CPU's caches are skipped with a warning unless the errno is ENOENT).
  for (uint64_t k = 1; k <= 7; ++k) {
    for (int e : {EIO, ENOENT, EACCES}) {
      CAPTURE(k);
      CAPTURE(e);
      Tree tree;
      hke_faults_rule rule{};
      rule.op = HKE_FAULTS_OP_LIST_DIR;
      rule.when = HKE_FAULTS_WHEN_NTH;
      rule.nth = k;
      rule.error = e;
      const Result with = TakeVariant(tree, Variant::kWithOp, &rule);
      const Result without = TakeVariant(tree, Variant::kNullOp, &rule);
      CheckSame(with, without);
      if (k == 1) CHECK_FALSE(with.status.ok());
    }
  }
}

TEST_CASE("list_dir_fd: a fault on a cache file read, and too many caches, fail as without it") {
  Tree tree;
  for (uint64_t k : {4, 6, 9, 20}) {
    CAPTURE(k);
    hke_faults_rule rule{};
    rule.op = HKE_FAULTS_OP_READ_FILE;
    rule.when = HKE_FAULTS_WHEN_NTH;
    rule.nth = k;
    rule.error = EIO;
    CheckSame(TakeVariant(tree, Variant::kWithOp, &rule),
              TakeVariant(tree, Variant::kNullOp, &rule));
  }
  // Four caches per node fit, the fifth does not.
  using Small = SnapshotStorage<4, 2, 4, 4>;
  const Result with = TakeVariant<Small>(tree, Variant::kWithOp);
  const Result without = TakeVariant<Small>(tree, Variant::kNullOp);
  CHECK(with.status == hke::Exhausted());
  CheckSame(with, without);
  bool named = false;
  for (const std::string& d : with.diags) {
    named = named || d.find("kMaxCachesPerNode") != std::string::npos;
  }
  CHECK(named);
}
