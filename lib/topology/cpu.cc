// CPU model names from /proc/cpuinfo and CPU caches from the CPU cache
// directories, with upstream's rules (snapshot.h, derived.h).
#include <cstring>

#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/topology/derived.h"

namespace hke::topology {
namespace {

constexpr const char* kArea = "topology";
using Path = FixedText<kPathCapacity>;
using Message = FixedText<Diag::kMessageCapacity>;

// HsaCacheType bits.
constexpr uint32_t kCacheData = 0x1;
constexpr uint32_t kCacheInstruction = 0x2;
constexpr uint32_t kCacheCpu = 0x4;

bool StartsWith(const char* s, size_t n, const char* prefix) {
  const size_t p = std::strlen(prefix);
  return n >= p && std::memcmp(s, prefix, p) == 0;
}

// Like scanf's %u at the start of `s`: blanks skipped, then decimal
// digits; saturates at UINT32_MAX. *ok false when no digit follows.
uint32_t LeadingUnsigned(const char* s, size_t n, bool* ok) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  uint64_t v = 0;
  const size_t start = i;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; ++i) {
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > UINT32_MAX) v = UINT32_MAX;
  }
  *ok = i > start;
  return static_cast<uint32_t>(v);
}

// The text after "<key><spaces>: " of a cpuinfo line (upstream skips the
// two characters after the colon); null without a colon.
const char* ValueOf(const char* line, size_t n, size_t* out_n) {
  const void* colon = std::memchr(line, ':', n);
  if (colon == nullptr) return nullptr;
  size_t at = static_cast<size_t>(static_cast<const char*>(colon) - line) + 1;
  if (at < n) ++at;  // the blank after the colon
  *out_n = n - at;
  return line + at;
}

struct CpuListing {
  uint32_t* order;      // cpu numbers of "cpu<digit>..." entries, listing order
  uint32_t capacity;
  uint32_t count = 0;   // entries kept in order
  uint32_t prefixed = 0;  // entries whose name starts with "cpu" (upstream's count)
  bool overflow = false;
};

int OnCpuEntry(void* user, const char* name, uint32_t /*kind*/) {
  auto* l = static_cast<CpuListing*>(user);
  if (std::strncmp(name, "cpu", 3) != 0) return 0;
  ++l->prefixed;
  if (name[3] < '0' || name[3] > '9') return 0;  // cpulist, cpumap, cpufreq...
  bool ok = false;
  const uint32_t cpu = LeadingUnsigned(name + 3, std::strlen(name + 3), &ok);
  if (l->count >= l->capacity) {
    l->overflow = true;
    return 0;
  }
  l->order[l->count++] = cpu;
  return 0;
}

int CountIndexEntries(void* user, const char* name, uint32_t /*kind*/) {
  if (std::strncmp(name, "index", 5) == 0) ++*static_cast<uint32_t*>(user);
  return 0;
}

}  // namespace

void CpuReader::EndProcessor(uint32_t proc, const char* model) {
  if (proc >= limit_) return;
  if (proc + 1 > snap_.num_cpus_) snap_.num_cpus_ = proc + 1;
  const uint32_t apicid = s_.cpu_apicid[proc];
  for (uint32_t u = 0; u < snap_.num_nodes_; ++u) {
    NodeRecord& n = s_.nodes[u];
    if (n.Get32(kCpuCoresCount) == 0 || n.has_model_name != 0) continue;
    if (n.Get32(kCpuCoreIdBase) != apicid) continue;
    std::memcpy(n.model_name, model, kModelNameCapacity);
    n.has_model_name = 1;
  }
}

Status CpuReader::ReadCpuInfo() {
  uint32_t nprocs = 0;
  const Status cs = platform_.CpuCount(&nprocs);
  if (!cs.ok() && !cs.is_api(HKE_STATUS_UNSUPPORTED)) {
    (void)diag_.Report(HKE_DIAG_WARNING, cs, kArea,
                       "the platform's CPU count failed; assuming the largest supported");
  }
  if (!cs.ok() || nprocs == 0) nprocs = s_.max_cpus;
  limit_ = nprocs < s_.max_cpus ? nprocs : s_.max_cpus;
  for (uint32_t i = 0; i < limit_; ++i) s_.cpu_apicid[i] = 0;

  int fd = -1;
  Status s = platform_.Open(kCpuInfoPath, HKE_OPEN_READ | HKE_OPEN_CLOEXEC, &fd);
  if (!s.ok()) {
    (void)diag_.Report(HKE_DIAG_WARNING, s, kArea, "cannot open cpuinfo; CPU names stay empty",
                       kCpuInfoPath);
    return Status::Ok();
  }

  // Lines are assembled in the snapshot's file buffer; a line longer than
  // the buffer (none that matters is) is skipped.
  char* const buf = s_.buffer;
  const size_t cap = s_.buffer_size;
  size_t used = 0;
  bool skipping = false;
  bool eof = false;
  bool stop = false;
  uint32_t proc = 0;      // lines before the first "processor" describe processor 0
  bool described = false;  // some line of the current processor was seen
  char model[kModelNameCapacity] = {};
  while (!stop) {
    if (!eof && used < cap) {
      size_t n = 0;
      s = platform_.ReadFd(fd, buf + used, cap - used, &n);
      if (!s.ok()) {
        (void)diag_.Report(HKE_DIAG_WARNING, s, kArea, "reading cpuinfo failed; kept what was read",
                           kCpuInfoPath);
        eof = true;
      } else if (n == 0) {
        eof = true;
      } else {
        used += n;
      }
    }
    size_t start = 0;
    for (;;) {
      const void* nl = std::memchr(buf + start, '\n', used - start);
      if (nl == nullptr && !(eof && start < used)) break;
      const size_t end = nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - buf)
                                       : used;
      const char* line = buf + start;
      const size_t len = end - start;
      const bool had_newline = nl != nullptr;
      start = had_newline ? end + 1 : end;
      if (skipping) {
        skipping = false;
        continue;
      }
      size_t vn = 0;
      const char* v = nullptr;
      if (StartsWith(line, len, "processor") && (v = ValueOf(line, len, &vn)) != nullptr) {
        bool ok = false;
        const uint32_t next = LeadingUnsigned(v, vn, &ok);
        if (described) EndProcessor(proc, model);
        std::memset(model, 0, sizeof(model));
        proc = next;
        described = true;
        if (proc >= limit_) {
          // Upstream stops at a processor beyond get_nprocs(); a processor
          // beyond the capacity stops here too.
          if (proc < nprocs) {
            Message m;
            m.Append("cpuinfo names processor ").AppendU64(proc).Append("; only ");
            m.AppendU64(limit_).Append(" are kept (raise hke::topology::kMaxCpus)");
            (void)diag_.Report(HKE_DIAG_WARNING, Status::Ok(), kArea, m.c_str(), kCpuInfoPath);
          }
          stop = true;
          break;
        }
      } else if (StartsWith(line, len, "model name") &&
                 (v = ValueOf(line, len, &vn)) != nullptr) {
        // Upstream keeps at most 63 characters, and drops the last one of a
        // final line that has no newline.
        size_t take = had_newline ? vn : (vn > 0 ? vn - 1 : 0);
        if (take > kModelNameCapacity - 1) take = kModelNameCapacity - 1;
        std::memset(model, 0, sizeof(model));
        std::memcpy(model, v, take);
        described = true;
      } else if (StartsWith(line, len, "apicid") && (v = ValueOf(line, len, &vn)) != nullptr) {
        bool ok = false;
        const uint32_t a = LeadingUnsigned(v, vn, &ok);
        if (proc < limit_) s_.cpu_apicid[proc] = a;
        described = true;
      }
    }
    if (stop) break;
    if (start > 0) {
      std::memmove(buf, buf + start, used - start);
      used -= start;
    } else if (used == cap) {
      used = 0;  // one line fills the buffer: drop it up to its newline
      skipping = true;
    }
    if (eof && used == 0) break;
  }
  if (!stop && described) EndProcessor(proc, model);
  (void)platform_.Close(&fd);
  return Status::Ok();
}

bool CpuReader::ReadOptional(const char* path, size_t* out_length, DirFiles* dir) {
  const Status s =
      dir != nullptr
          ? dir->Read(path, std::strlen(path), s_.buffer, s_.buffer_size, out_length)
          : platform_.ReadFile(path, s_.buffer, s_.buffer_size, out_length);
  if (s.ok()) return true;
  if (!s.is_errno(err::kENOENT)) {
    (void)diag_.Report(HKE_DIAG_WARNING, s, kArea, "a CPU cache file cannot be read; it reads as 0",
                       path);
  }
  return false;
}

bool CpuReader::ListOptional(const char* path, hke_dirent_fn fn, void* user, DirFiles* dir) {
  const Status s = dir != nullptr ? dir->List(fn, user) : platform_.ListDir(path, fn, user);
  if (s.ok()) return true;
  if (!s.is_errno(err::kENOENT)) {
    (void)diag_.Report(HKE_DIAG_WARNING, s, kArea, "a CPU directory cannot be listed; skipped",
                       path);
  }
  return false;
}

uint32_t CpuReader::ReadUnsigned(const char* path, bool* found, DirFiles* dir) {
  size_t n = 0;
  *found = false;
  if (!ReadOptional(path, &n, dir)) return 0;
  bool ok = false;
  const uint32_t v = LeadingUnsigned(s_.buffer, n, &ok);
  *found = ok;
  return ok ? v : 0;
}

bool CpuReader::ParseCpuMap(size_t n, uint32_t* siblings, uint32_t* first) {
  // shared_cpu_map: comma-separated 32-bit hex groups, most significant
  // first; each set bit is a processor whose apicid joins the sibling map,
  // and the lowest one is the first CPU of shared_cpu_list.
  bool any = false;
  size_t a = 0;
  while (a < n && (s_.buffer[a] == ' ' || s_.buffer[a] == '\t' || s_.buffer[a] == '\n')) ++a;
  size_t b = a;
  while (b < n && s_.buffer[b] != ' ' && s_.buffer[b] != '\t' && s_.buffer[b] != '\n') ++b;
  uint32_t groups = 0;
  for (size_t i = a; i < b; ++i) groups += s_.buffer[i] == ',' ? 1u : 0u;
  ++groups;
  size_t i = a;
  for (uint32_t g = groups; g-- > 0 && i <= b;) {
    uint32_t mask = 0;
    for (; i < b && s_.buffer[i] != ','; ++i) {
      const char ch = s_.buffer[i];
      uint32_t d = 0;
      if (ch >= '0' && ch <= '9') {
        d = static_cast<uint32_t>(ch - '0');
      } else if (ch >= 'a' && ch <= 'f') {
        d = static_cast<uint32_t>(ch - 'a' + 10);
      } else if (ch >= 'A' && ch <= 'F') {
        d = static_cast<uint32_t>(ch - 'A' + 10);
      } else {
        break;
      }
      mask = (mask << 4) | d;
    }
    while (i < b && s_.buffer[i] != ',') ++i;
    ++i;  // past the comma
    for (uint32_t bit = 0; bit < 32; ++bit) {
      if ((mask & (1u << bit)) == 0) continue;
      const uint64_t proc = static_cast<uint64_t>(g) * 32 + bit;
      if (!any || proc < *first) *first = proc > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(proc);
      any = true;
      if (proc >= limit_) continue;
      const uint32_t apicid = s_.cpu_apicid[proc];
      if (apicid >= kSiblingBits) continue;  // beyond the public sibling map
      siblings[apicid / 32] |= 1u << (apicid % 32);
    }
  }
  return any;
}

Status CpuReader::AppendCache(uint32_t user, const char* index_dir, uint32_t cpu,
                               const uint32_t* siblings, DirFiles* dir) {
  NodeRecord& rec = s_.nodes[user];
  if (rec.num_caches >= s_.max_caches) {
    Message m;
    m.Append("CPU caches of node ").AppendU64(user).Append(" need more than ");
    m.AppendU64(s_.max_caches).Append(" entries (raise hke::config::kMaxCachesPerNode)");
    return diag_.Error(::hke::Exhausted(), kArea, m.c_str(), index_dir);
  }
  if (snap_.used_caches_ >= s_.cache_pool) {
    Message m;
    m.Append("the cache pool needs more than ").AppendU64(s_.cache_pool);
    m.Append(" entries (raise the cache pool, config::kMaxCachesTotal)");
    return diag_.Error(::hke::Exhausted(), kArea, m.c_str(), index_dir);
  }
  CacheRecord c;
  std::memset(&c, 0, sizeof(c));
  c.v[kProcessorIdLow] = cpu < limit_ ? s_.cpu_apicid[cpu] : 0;

  Path p;
  bool found = false;
  p.Append(index_dir).Append("/level");
  c.v[kLevel] = ReadUnsigned(p.c_str(), &found, dir);

  p.Clear();
  p.Append(index_dir).Append("/type");
  size_t n = 0;
  uint32_t type = kCacheCpu;
  if (ReadOptional(p.c_str(), &n, dir)) {
    size_t a = 0;
    while (a < n && (s_.buffer[a] == ' ' || s_.buffer[a] == '\t' || s_.buffer[a] == '\n')) ++a;
    size_t b = a;
    while (b < n && s_.buffer[b] != ' ' && s_.buffer[b] != '\t' && s_.buffer[b] != '\n') ++b;
    const char* t = s_.buffer + a;
    const size_t tn = b - a;
    if (tn == 4 && std::memcmp(t, "Data", 4) == 0) type |= kCacheData;
    if (tn == 11 && std::memcmp(t, "Instruction", 11) == 0) type |= kCacheInstruction;
    if (tn == 7 && std::memcmp(t, "Unified", 7) == 0) type |= kCacheData | kCacheInstruction;
  }
  c.v[kCacheType] = type;

  p.Clear();
  p.Append(index_dir).Append("/size");
  if (ReadOptional(p.c_str(), &n, dir)) {
    bool ok = false;
    uint32_t size = LeadingUnsigned(s_.buffer, n, &ok);
    size_t i = 0;
    while (i < n && (s_.buffer[i] == ' ' || s_.buffer[i] == '\t')) ++i;
    while (i < n && s_.buffer[i] >= '0' && s_.buffer[i] <= '9') ++i;
    if (ok && i < n) {
      // Upstream shifts in 32 bits: the unit multiplies modulo 2^32.
      if (s_.buffer[i] == 'K') size <<= 10;
      if (s_.buffer[i] == 'M') size <<= 20;
      if (s_.buffer[i] == 'G') size <<= 30;
    }
    c.v[kCacheSize] = size;
  }

  p.Clear();
  p.Append(index_dir).Append("/coherency_line_size");
  c.v[kCacheLineSize] = ReadUnsigned(p.c_str(), &found, dir);
  p.Clear();
  p.Append(index_dir).Append("/ways_of_associativity");
  c.v[kAssociation] = ReadUnsigned(p.c_str(), &found, dir);
  p.Clear();
  p.Append(index_dir).Append("/physical_line_partition");
  c.v[kCacheLinesPerTag] = ReadUnsigned(p.c_str(), &found, dir);

  std::memcpy(c.siblings, siblings, sizeof(c.siblings));
  s_.caches[snap_.used_caches_++] = c;
  ++rec.num_caches;
  return Status::Ok();
}

Status CpuReader::ReadCpuCaches(uint32_t user) {
  NodeRecord& rec = s_.nodes[user];
  rec.first_cache = snap_.used_caches_;
  rec.num_caches = 0;

  Path dir;
  dir.Append(kCpuNodeRoot).Append("/node").AppendU64(user);
  CpuListing listing{s_.cpu_scratch, s_.max_cpus};
  if (dir.truncated() || !ListOptional(dir.c_str(), &OnCpuEntry, &listing)) {
    listing.prefixed = 0;
    listing.count = 0;
  }
  if (listing.prefixed == 0) {
    if (user != 0) {
      (void)diag_.Report(HKE_DIAG_WARNING, Status::Ok(), kArea,
                         "no CPU directories for this CPU node; it has no caches", dir.c_str());
      return Status::Ok();
    }
    // Without NUMA the CPUs are listed only under the CPU root.
    dir.Clear();
    dir.Append(kCpuRoot);
    listing = CpuListing{s_.cpu_scratch, s_.max_cpus};
    if (!ListOptional(dir.c_str(), &OnCpuEntry, &listing) || listing.count == 0) {
      (void)diag_.Report(HKE_DIAG_WARNING, Status::Ok(), kArea,
                         "no CPU directories; the CPU node has no caches", dir.c_str());
      return Status::Ok();
    }
  }
  if (listing.overflow) {
    Message m;
    m.Append("more CPU directories than ").AppendU64(s_.max_cpus);
    m.Append("; the rest are ignored (raise hke::topology::kMaxCpus)");
    (void)diag_.Report(HKE_DIAG_WARNING, Status::Ok(), kArea, m.c_str(), dir.c_str());
  }

  for (uint32_t k = 0; k < listing.count; ++k) {
    const uint32_t cpu = s_.cpu_scratch[k];
    Path cache_dir;
    cache_dir.Append(dir.c_str()).Append("/cpu").AppendU64(cpu).Append("/cache");
    if (cache_dir.truncated()) continue;
    // This CPU's cache directory is opened once: listed and its index
    // files read through the one descriptor (DirFiles).
    DirFiles files(platform_, cache_dir.c_str(), cache_dir.size());
    uint32_t indexes = 0;
    if (!ListOptional(cache_dir.c_str(), &CountIndexEntries, &indexes, &files)) continue;
    for (uint32_t idx = 0; idx < indexes; ++idx) {
      Path index_dir;
      index_dir.Append(cache_dir.c_str()).Append("/index").AppendU64(idx);
      // The first CPU sharing the cache and its siblings both come from
      // shared_cpu_map (the kernel prints shared_cpu_list from the same
      // mask), so one file answers both; shared_cpu_list only without it.
      Path p;
      p.Append(index_dir.c_str()).Append("/shared_cpu_map");
      if (p.truncated()) continue;
      uint32_t siblings[kSiblingBits / 32] = {};
      uint32_t first = 0;
      bool found = false;
      size_t n = 0;
      if (ReadOptional(p.c_str(), &n, &files)) {
        found = ParseCpuMap(n, siblings, &first);
      } else {
        p.Clear();
        p.Append(index_dir.c_str()).Append("/shared_cpu_list");
        first = ReadUnsigned(p.c_str(), &found, &files);
      }
      if (!found || first != cpu) continue;  // listed under the first CPU sharing it
      HKE_RETURN_IF_ERROR(AppendCache(user, index_dir.c_str(), cpu, siblings, &files));
    }
  }
  return Status::Ok();
}

}  // namespace hke::topology
