// Faults decorator and its spec parser/formatter. The spec grammar is in
// faults.h and platform/README.md.
#include "hsakmt/hsakmt_faults.h"

#include <errno.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/kfd/ioctl_table.h"
#include "platform/trace/decorator_ops.h"

namespace {

struct FaultsState {
  // Table handed out by hke_faults_platform(); an entry is NULL exactly when
  // the inner platform lacks that operation.
  hke_platform_ops ops;
  // The wrapped platform; read only through entries present in `ops`.
  const hke_platform_ops* inner_ops;
  void* inner_self;
  // rules[0..rule_count) are immutable once published by the release store
  // in hke_faults_add_rule.
  std::atomic<size_t> rule_count;
  hke_faults_rule rules[HKE_FAULTS_MAX_RULES];
  // Calls matched by each rule; the k-th match is call k for that rule.
  std::atomic<uint64_t> matches[HKE_FAULTS_MAX_RULES];
  std::atomic<uint64_t> calls[HKE_FAULTS_OP_COUNT];
  std::atomic<uint64_t> injected;
};

static_assert(sizeof(FaultsState) <= HKE_FAULTS_STATE_SIZE, "raise HKE_FAULTS_STATE_SIZE");
static_assert(alignof(FaultsState) <= alignof(hke_faults), "hke_faults is under-aligned");

FaultsState* StateOf(void* self) { return static_cast<FaultsState*>(self); }
FaultsState* StateOf(hke_faults* f) {
  return std::launder(reinterpret_cast<FaultsState*>(f->opaque.bytes));
}
const FaultsState* StateOf(const hke_faults* f) {
  return std::launder(reinterpret_cast<const FaultsState*>(f->opaque.bytes));
}

constexpr const char* kOpNames[HKE_FAULTS_OP_COUNT] = {
    "open",     "close",    "ioctl",     "mmap",       "munmap",  "madvise",  "read_file",
    "list_dir", "clock_ns", "cpu_count", "process_id", "read_fd", "page_size", "mem_policy"};

constexpr const char kKfdPrefix[] = "AMDKFD_IOC_";

// A byte range of the spec.
struct Token {
  const char* p;
  size_t n;
  bool Is(const char* s) const { return std::strlen(s) == n && std::memcmp(s, p, n) == 0; }
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool LookupOp(Token t, uint32_t* out) {
  for (uint32_t i = 0; i < HKE_FAULTS_OP_COUNT; ++i) {
    if (t.Is(kOpNames[i])) {
      *out = i;
      return true;
    }
  }
  return false;
}

// Table entry named `t`, in full or without the "AMDKFD_IOC_" prefix.
const hke::kfd::IoctlInfo* LookupRequestName(Token t) {
  size_t count = 0;
  const hke::kfd::IoctlInfo* table = hke::kfd::IoctlTable(&count);
  const size_t prefix = sizeof(kKfdPrefix) - 1;
  for (size_t i = 0; i < count; ++i) {
    const char* name = table[i].name;
    if (name == nullptr) continue;
    if (t.Is(name)) return &table[i];
    if (std::strncmp(name, kKfdPrefix, prefix) == 0 && t.Is(name + prefix)) return &table[i];
  }
  return nullptr;
}

bool ParseRequest(Token t, uint32_t* out) {
  if (t.n > 2 && t.p[0] == '0' && (t.p[1] == 'x' || t.p[1] == 'X')) {
    if (t.n > 10) return false;  // more than 8 hex digits
    uint32_t v = 0;
    for (size_t i = 2; i < t.n; ++i) {
      const int d = HexValue(t.p[i]);
      if (d < 0) return false;
      v = (v << 4) | static_cast<uint32_t>(d);
    }
    if (v == 0) return false;
    *out = v;
    return true;
  }
  const hke::kfd::IoctlInfo* info = LookupRequestName(t);
  if (info == nullptr) return false;
  *out = info->request;
  return true;
}

// Decimal digits only, no sign; false when empty, not a number or > max.
bool ParseDecimal(Token t, uint64_t max, uint64_t* out) {
  if (t.n == 0) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < t.n; ++i) {
    if (!IsDigit(t.p[i])) return false;
    if (!hke::CheckedMul<uint64_t>(v, 10, &v) ||
        !hke::CheckedAdd<uint64_t>(v, static_cast<uint64_t>(t.p[i] - '0'), &v) || v > max) {
      return false;
    }
  }
  *out = v;
  return true;
}

bool ParseNth(Token t, uint32_t* out_when, uint64_t* out_nth) {
  if (t.Is("*")) {
    *out_when = HKE_FAULTS_WHEN_EVERY;
    *out_nth = 0;
    return true;
  }
  uint32_t when = HKE_FAULTS_WHEN_NTH;
  if (t.n != 0 && t.p[t.n - 1] == '+') {
    when = HKE_FAULTS_WHEN_FROM;
    --t.n;
  }
  uint64_t v = 0;
  if (!ParseDecimal(t, UINT64_MAX, &v) || v == 0) return false;
  *out_when = when;
  *out_nth = v;
  return true;
}

bool ParseErrno(Token t, int32_t* out) {
  uint64_t v = 0;
  if (t.n != 0 && IsDigit(t.p[0])) {
    if (!ParseDecimal(t, HKE_FAULTS_MAX_ERRNO, &v) || v == 0) return false;
    *out = static_cast<int32_t>(v);
    return true;
  }
  if (t.n < 2 || t.p[0] != 'E') return false;
  for (int e = 1; e <= HKE_FAULTS_MAX_ERRNO; ++e) {
    const char* name = hke::err::ErrnoName(e);
    if (name != nullptr && t.Is(name)) {
      *out = e;
      return true;
    }
  }
  return false;
}

// Cursor over the spec that never looks at or past `len`.
struct Cursor {
  const char* s;
  size_t len;
  size_t pos;

  bool AtEnd() const { return pos >= len; }
  char Peek() const { return s[pos]; }
  // The run of bytes up to the next ':', '=', ',' or the end.
  Token Field() {
    const size_t start = pos;
    while (pos < len && s[pos] != ':' && s[pos] != '=' && s[pos] != ',') ++pos;
    return Token{s + start, pos - start};
  }
};

struct ParseResult {
  uint32_t status;
  size_t offset;
};

ParseResult Fail(uint32_t status, size_t offset) { return ParseResult{status, offset}; }

ParseResult ParseSpec(const char* spec, size_t len, size_t capacity, hke_faults_rule* rules,
                      size_t* out_count) {
  size_t n = 0;
  Cursor c{spec, len, 0};
  if (len == 0) {
    *out_count = 0;
    return Fail(HKE_FAULTS_PARSE_OK, 0);
  }
  for (;;) {
    const size_t rule_start = c.pos;
    hke_faults_rule r{};

    const Token op = c.Field();
    if (!LookupOp(op, &r.op)) return Fail(HKE_FAULTS_PARSE_BAD_OP, rule_start);
    if (!c.AtEnd() && c.Peek() == '=') {
      const size_t eq = c.pos++;
      if (r.op != HKE_FAULTS_OP_IOCTL) return Fail(HKE_FAULTS_PARSE_BAD_REQUEST, eq);
      const size_t at = c.pos;
      if (!ParseRequest(c.Field(), &r.request)) return Fail(HKE_FAULTS_PARSE_BAD_REQUEST, at);
      r.match_request = 1;
    }
    if (c.AtEnd() || c.Peek() != ':') return Fail(HKE_FAULTS_PARSE_EXPECTED_COLON, c.pos);
    ++c.pos;

    size_t at = c.pos;
    if (!ParseNth(c.Field(), &r.when, &r.nth)) return Fail(HKE_FAULTS_PARSE_BAD_NTH, at);
    if (c.AtEnd() || c.Peek() != ':') return Fail(HKE_FAULTS_PARSE_EXPECTED_COLON, c.pos);
    ++c.pos;

    at = c.pos;
    if (!ParseErrno(c.Field(), &r.error)) return Fail(HKE_FAULTS_PARSE_BAD_ERRNO, at);
    if (!c.AtEnd() && c.Peek() != ',') return Fail(HKE_FAULTS_PARSE_EXPECTED_COMMA, c.pos);

    if (n >= capacity) return Fail(HKE_FAULTS_PARSE_TOO_MANY_RULES, rule_start);
    rules[n++] = r;
    if (c.AtEnd()) break;
    ++c.pos;  // the ','; an empty rule after it fails as BAD_OP at `len`
  }
  *out_count = n;
  return Fail(HKE_FAULTS_PARSE_OK, 0);
}

bool RequestMatches(uint32_t wanted, uint32_t request) {
  if (request == wanted) return true;
  const hke::kfd::IoctlInfo* info = hke::kfd::FindIoctl(request);
  return info != nullptr && info->request == wanted;
}

bool Fires(const hke_faults_rule& r, uint64_t k) {
  switch (r.when) {
    case HKE_FAULTS_WHEN_NTH: return k == r.nth;
    case HKE_FAULTS_WHEN_EVERY: return true;
    case HKE_FAULTS_WHEN_FROM: return k >= r.nth;
    default: return false;
  }
}

// Counts the call and returns the errno to inject, or 0 to forward.
int Check(FaultsState* s, uint32_t op, uint32_t request) {
  s->calls[op].fetch_add(1, std::memory_order_relaxed);
  const size_t n = s->rule_count.load(std::memory_order_acquire);
  int inject = 0;
  for (size_t i = 0; i < n; ++i) {
    const hke_faults_rule& r = s->rules[i];
    if (r.op != op) continue;
    if (r.match_request != 0 && !RequestMatches(r.request, request)) continue;
    const uint64_t k = s->matches[i].fetch_add(1, std::memory_order_relaxed) + 1;
    if (inject == 0 && Fires(r, k)) inject = r.error;
  }
  if (inject != 0) s->injected.fetch_add(1, std::memory_order_relaxed);
  return inject;
}

int Open(void* self, const char* path, uint32_t flags, int* out_fd) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_OPEN, 0)) return e;
  return s->inner_ops->open(s->inner_self, path, flags, out_fd);
}

int Close(void* self, int fd) {
  FaultsState* s = StateOf(self);
  const int e = Check(s, HKE_FAULTS_OP_CLOSE, 0);
  // The descriptor is released even when close fails, so the inner close
  // runs in any case; an injected errno replaces its result.
  const int r = s->inner_ops->close(s->inner_self, fd);
  return e != 0 ? e : r;
}

int Ioctl(void* self, int fd, uint32_t request, void* arg) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_IOCTL, request)) return e;
  return s->inner_ops->ioctl(s->inner_self, fd, request, arg);
}

int Mmap(void* self, void* addr, size_t length, uint32_t prot, uint32_t flags, int fd,
         uint64_t offset, void** out_addr) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_MMAP, 0)) return e;
  return s->inner_ops->mmap(s->inner_self, addr, length, prot, flags, fd, offset, out_addr);
}

int Munmap(void* self, void* addr, size_t length) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_MUNMAP, 0)) return e;
  return s->inner_ops->munmap(s->inner_self, addr, length);
}

int Madvise(void* self, void* addr, size_t length, uint32_t advice) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_MADVISE, 0)) return e;
  return s->inner_ops->madvise(s->inner_self, addr, length, advice);
}

int ReadFile(void* self, const char* path, char* buf, size_t capacity, size_t* out_length) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_READ_FILE, 0)) return e;
  return s->inner_ops->read_file(s->inner_self, path, buf, capacity, out_length);
}

// Counted and failed as read_file (hsakmt_faults.h).
int ReadFileAt(void* self, int dirfd, const char* name, char* buf, size_t capacity,
               size_t* out_length) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_READ_FILE, 0)) return e;
  return s->inner_ops->read_file_at(s->inner_self, dirfd, name, buf, capacity, out_length);
}

int ListDir(void* self, const char* path, hke_dirent_fn fn, void* user) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_LIST_DIR, 0)) return e;
  return s->inner_ops->list_dir(s->inner_self, path, fn, user);
}

// Counted and failed as list_dir (hsakmt_faults.h).
int ListDirFd(void* self, int dirfd, hke_dirent_fn fn, void* user) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_LIST_DIR, 0)) return e;
  return s->inner_ops->list_dir_fd(s->inner_self, dirfd, fn, user);
}

int ClockNs(void* self, uint32_t clock, uint64_t* out_ns) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_CLOCK_NS, 0)) return e;
  return s->inner_ops->clock_ns(s->inner_self, clock, out_ns);
}

int CpuCount(void* self, uint32_t* out_count) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_CPU_COUNT, 0)) return e;
  return s->inner_ops->cpu_count(s->inner_self, out_count);
}

int ProcessId(void* self, int32_t* out_pid) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_PROCESS_ID, 0)) return e;
  return s->inner_ops->process_id(s->inner_self, out_pid);
}

int ReadFd(void* self, int fd, void* buf, size_t capacity, size_t* out_length) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_READ_FD, 0)) return e;
  return s->inner_ops->read_fd(s->inner_self, fd, buf, capacity, out_length);
}

int PageSize(void* self, size_t* out_size) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_PAGE_SIZE, 0)) return e;
  return s->inner_ops->page_size(s->inner_self, out_size);
}

// A table lookup, not an OS call: passed through without fault rules.
int MarketingName(void* self, uint32_t device_id, uint32_t revision, char* buf, size_t capacity) {
  FaultsState* s = StateOf(self);
  return s->inner_ops->marketing_name(s->inner_self, device_id, revision, buf, capacity);
}

// libdrm's device handle: passed through (libdrm's own ioctls on the render
// node do not go through the platform table).
int AmdgpuDevice(void* self, int render_fd, void** out_handle) {
  FaultsState* s = StateOf(self);
  return s->inner_ops->amdgpu_device(s->inner_self, render_fd, out_handle);
}

void AmdgpuDeviceRelease(void* self, void* handle) {
  FaultsState* s = StateOf(self);
  s->inner_ops->amdgpu_device_release(s->inner_self, handle);
}

// Host perf counters: passed through (no rule kind names them; a test that
// needs them to fail wraps the table itself).
int PerfOpen(void* self, uint32_t type, uint64_t config, int* out_fd) {
  FaultsState* s = StateOf(self);
  return s->inner_ops->perf_open(s->inner_self, type, config, out_fd);
}

int PerfEnable(void* self, int fd, uint32_t enable) {
  FaultsState* s = StateOf(self);
  return s->inner_ops->perf_enable(s->inner_self, fd, enable);
}

int PerfRead(void* self, int fd, uint64_t out_values[3]) {
  FaultsState* s = StateOf(self);
  return s->inner_ops->perf_read(s->inner_self, fd, out_values);
}

int MemPolicy(void* self, void* addr, size_t length, uint32_t mode, uint32_t node) {
  FaultsState* s = StateOf(self);
  if (int e = Check(s, HKE_FAULTS_OP_MEM_POLICY, 0)) return e;
  return s->inner_ops->mem_policy(s->inner_self, addr, length, mode, node);
}

using Mutexes = hke::platform::ForwardMutexOps<FaultsState, StateOf>;

}  // namespace

extern "C" uint32_t hke_faults_parse(const char* spec, size_t len, hke_faults_rule* out_rules,
                                     size_t capacity, size_t* out_count,
                                     size_t* out_error_offset) {
  if ((spec == nullptr && len != 0) || out_count == nullptr ||
      (out_rules == nullptr && capacity != 0)) {
    if (out_error_offset != nullptr) *out_error_offset = 0;
    return HKE_FAULTS_PARSE_NULL_ARGUMENT;
  }
  if (capacity > HKE_FAULTS_MAX_RULES) capacity = HKE_FAULTS_MAX_RULES;
  hke_faults_rule rules[HKE_FAULTS_MAX_RULES];
  size_t count = 0;
  const ParseResult r = ParseSpec(spec, len, capacity, rules, &count);
  if (r.status != HKE_FAULTS_PARSE_OK) {
    if (out_error_offset != nullptr) *out_error_offset = r.offset;
    return r.status;
  }
  for (size_t i = 0; i < count; ++i) out_rules[i] = rules[i];
  *out_count = count;
  return HKE_FAULTS_PARSE_OK;
}

extern "C" const char* hke_faults_parse_status_name(uint32_t status) {
  switch (status) {
    case HKE_FAULTS_PARSE_OK: return "ok";
    case HKE_FAULTS_PARSE_NULL_ARGUMENT: return "null argument";
    case HKE_FAULTS_PARSE_BAD_OP: return "unknown operation";
    case HKE_FAULTS_PARSE_BAD_REQUEST: return "bad ioctl request";
    case HKE_FAULTS_PARSE_BAD_NTH: return "bad call number";
    case HKE_FAULTS_PARSE_BAD_ERRNO: return "bad errno";
    case HKE_FAULTS_PARSE_EXPECTED_COLON: return "expected ':'";
    case HKE_FAULTS_PARSE_EXPECTED_COMMA: return "expected ','";
    case HKE_FAULTS_PARSE_TOO_MANY_RULES: return "too many rules";
    default: return "unknown";
  }
}

extern "C" const char* hke_faults_op_name(uint32_t op) {
  return op < HKE_FAULTS_OP_COUNT ? kOpNames[op] : nullptr;
}

extern "C" int hke_faults_rule_valid(const hke_faults_rule* r) {
  if (r == nullptr || r->op >= HKE_FAULTS_OP_COUNT || r->reserved != 0) return 0;
  if (r->error < 1 || r->error > HKE_FAULTS_MAX_ERRNO) return 0;
  switch (r->when) {
    case HKE_FAULTS_WHEN_NTH:
    case HKE_FAULTS_WHEN_FROM:
      if (r->nth == 0) return 0;
      break;
    case HKE_FAULTS_WHEN_EVERY:
      if (r->nth != 0) return 0;
      break;
    default: return 0;
  }
  if (r->match_request == 0) return r->request == 0 ? 1 : 0;
  return r->match_request == 1 && r->op == HKE_FAULTS_OP_IOCTL && r->request != 0 ? 1 : 0;
}

extern "C" int hke_faults_format(const hke_faults_rule* rules, size_t count, char* buf,
                                 size_t capacity, size_t* out_length) {
  if ((rules == nullptr && count != 0) || buf == nullptr || out_length == nullptr) return EINVAL;
  for (size_t i = 0; i < count; ++i) {
    if (!hke_faults_rule_valid(&rules[i])) return EINVAL;
  }
  if (capacity == 0) return ERANGE;
  hke::TextBuilder t(buf, capacity);
  for (size_t i = 0; i < count; ++i) {
    const hke_faults_rule& r = rules[i];
    if (i != 0) t.AppendChar(',');
    t.Append(kOpNames[r.op]);
    if (r.match_request != 0) {
      t.AppendChar('=');
      // A name only when it parses back to this exact code.
      const hke::kfd::IoctlInfo* info = hke::kfd::FindIoctl(r.request);
      if (info != nullptr && info->request == r.request && info->name != nullptr &&
          LookupRequestName(Token{info->name, std::strlen(info->name)}) == info) {
        t.Append(info->name);
      } else {
        t.AppendHex(r.request);
      }
    }
    t.AppendChar(':');
    if (r.when == HKE_FAULTS_WHEN_EVERY) {
      t.AppendChar('*');
    } else {
      t.AppendU64(r.nth);
      if (r.when == HKE_FAULTS_WHEN_FROM) t.AppendChar('+');
    }
    t.AppendChar(':');
    const char* name = hke::err::ErrnoName(r.error);
    if (name != nullptr) {
      t.Append(name);
    } else {
      t.AppendI64(r.error);
    }
  }
  if (t.truncated()) return ERANGE;
  *out_length = t.size();
  return 0;
}

extern "C" int hke_faults_init(hke_faults* faults, hke_platform inner) {
  hke_platform_ops in{};
  if (faults == nullptr || !hke::platform::NormalizeInnerOps(inner.ops, &in)) return EINVAL;
  static const hke_platform_ops kOwn = {
      sizeof(hke_platform_ops), HKE_PLATFORM_ABI_VERSION,
      Open, Close, Ioctl, Mmap, Munmap, Madvise, ReadFile, ListDir, ClockNs, CpuCount,
      ProcessId, ReadFd, PageSize, MarketingName, AmdgpuDevice, AmdgpuDeviceRelease,
      PerfOpen, PerfEnable, PerfRead, MemPolicy,
      Mutexes::Init, Mutexes::Lock, Mutexes::Unlock, Mutexes::Destroy, ReadFileAt,
      ListDirFd,
  };
  const hke_platform_ops ops = hke::platform::DecoratedOps(kOwn, in);

  FaultsState* s = new (faults->opaque.bytes) FaultsState;
  s->ops = ops;
  s->inner_ops = inner.ops;
  s->inner_self = inner.self;
  s->rule_count.store(0, std::memory_order_relaxed);
  for (hke_faults_rule& r : s->rules) r = hke_faults_rule{};
  for (auto& m : s->matches) m.store(0, std::memory_order_relaxed);
  for (auto& c : s->calls) c.store(0, std::memory_order_relaxed);
  s->injected.store(0, std::memory_order_relaxed);
  return 0;
}

extern "C" hke_platform hke_faults_platform(hke_faults* faults) {
  FaultsState* s = StateOf(faults);
  hke_platform p;
  p.ops = &s->ops;
  p.self = s;
  return p;
}

extern "C" int hke_faults_add_rule(hke_faults* faults, const hke_faults_rule* rule) {
  if (faults == nullptr || !hke_faults_rule_valid(rule)) return EINVAL;
  FaultsState* s = StateOf(faults);
  const size_t n = s->rule_count.load(std::memory_order_relaxed);
  if (n >= HKE_FAULTS_MAX_RULES) return ENOSPC;
  s->rules[n] = *rule;
  s->matches[n].store(0, std::memory_order_relaxed);
  s->rule_count.store(n + 1, std::memory_order_release);
  return 0;
}

extern "C" uint32_t hke_faults_add_spec(hke_faults* faults, const char* spec, size_t len,
                                        size_t* out_error_offset) {
  if (faults == nullptr) {
    if (out_error_offset != nullptr) *out_error_offset = 0;
    return HKE_FAULTS_PARSE_NULL_ARGUMENT;
  }
  FaultsState* s = StateOf(faults);
  const size_t used = s->rule_count.load(std::memory_order_relaxed);
  hke_faults_rule rules[HKE_FAULTS_MAX_RULES];
  size_t count = 0;
  const uint32_t st = hke_faults_parse(spec, len, rules, HKE_FAULTS_MAX_RULES - used, &count,
                                       out_error_offset);
  if (st != HKE_FAULTS_PARSE_OK) return st;
  for (size_t i = 0; i < count; ++i) {
    // Parsed rules are valid and fit, so this cannot fail.
    (void)hke_faults_add_rule(faults, &rules[i]);
  }
  return HKE_FAULTS_PARSE_OK;
}

extern "C" void hke_faults_clear_rules(hke_faults* faults) {
  StateOf(faults)->rule_count.store(0, std::memory_order_release);
}

extern "C" size_t hke_faults_rule_count(const hke_faults* faults) {
  return StateOf(faults)->rule_count.load(std::memory_order_acquire);
}

extern "C" uint64_t hke_faults_calls(const hke_faults* faults, uint32_t op) {
  if (op >= HKE_FAULTS_OP_COUNT) return 0;
  return StateOf(faults)->calls[op].load(std::memory_order_relaxed);
}

extern "C" uint64_t hke_faults_rule_matches(const hke_faults* faults, size_t index) {
  const FaultsState* s = StateOf(faults);
  if (index >= s->rule_count.load(std::memory_order_acquire)) return 0;
  return s->matches[index].load(std::memory_order_relaxed);
}

extern "C" uint64_t hke_faults_injected(const hke_faults* faults) {
  return StateOf(faults)->injected.load(std::memory_order_relaxed);
}

extern "C" void hke_faults_reset_counters(hke_faults* faults) {
  FaultsState* s = StateOf(faults);
  for (auto& m : s->matches) m.store(0, std::memory_order_relaxed);
  for (auto& c : s->calls) c.store(0, std::memory_order_relaxed);
  s->injected.store(0, std::memory_order_relaxed);
}
