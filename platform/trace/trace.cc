// Trace decorator: formats one line per platform call into a stack buffer
// and hands it to the sink. The grammar is documented in platform/README.md;
// changing it breaks saved traces and the tests that pin exact lines.
#include "hsakmt/hsakmt_trace.h"

#include <errno.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/kfd/ioc.h"
#include "lib/kfd/ioctl_table.h"
#include "platform/trace/decorator_ops.h"

namespace {

struct TraceState {
  // Table handed out by hke_trace_platform(); an entry is NULL exactly when
  // the inner platform lacks that operation.
  hke_platform_ops ops;
  // The wrapped platform; its table is only read through entries that are
  // present in `ops`, so an older, shorter table is never overrun.
  const hke_platform_ops* inner_ops;
  void* inner_self;
  hke_trace_sink_fn sink;
  void* sink_user;
  // Sequence number of the next call; starts at 1.
  std::atomic<uint64_t> next_seq;
};

static_assert(sizeof(TraceState) <= HKE_TRACE_STATE_SIZE, "raise HKE_TRACE_STATE_SIZE");
static_assert(alignof(TraceState) <= alignof(hke_trace), "hke_trace is under-aligned");
static_assert(HKE_TRACE_LINE_MAX >= 256, "lines must hold at least the fixed fields");
// Fixed fields of the longest line (ioctl) are under 200 characters; the two
// hex fields and the name must fit beside them.
static_assert(2 * (2 * HKE_TRACE_HEX_MAX + 3) + 400 <= HKE_TRACE_LINE_MAX,
              "hex fields do not fit in a line");
static_assert(HKE_TRACE_PATH_MAX + 3 + 200 <= HKE_TRACE_LINE_MAX, "paths do not fit in a line");

TraceState* StateOf(void* self) { return static_cast<TraceState*>(self); }

TraceState* StateOf(hke_trace* t) {
  return std::launder(reinterpret_cast<TraceState*>(t->opaque.bytes));
}

const TraceState* StateOf(const hke_trace* t) {
  return std::launder(reinterpret_cast<const TraceState*>(t->opaque.bytes));
}

struct FlagName {
  uint32_t bit;
  const char* name;
};

constexpr FlagName kOpenFlags[] = {{HKE_OPEN_READ, "READ"},
                                   {HKE_OPEN_RDWR, "RDWR"},
                                   {HKE_OPEN_CLOEXEC, "CLOEXEC"},
                                   {HKE_OPEN_DIRECTORY, "DIRECTORY"}};
constexpr FlagName kProtFlags[] = {
    {HKE_PROT_READ, "READ"}, {HKE_PROT_WRITE, "WRITE"}, {HKE_PROT_EXEC, "EXEC"}};
constexpr FlagName kMapFlags[] = {{HKE_MAP_SHARED, "SHARED"},
                                  {HKE_MAP_PRIVATE, "PRIVATE"},
                                  {HKE_MAP_FIXED, "FIXED"},
                                  {HKE_MAP_ANONYMOUS, "ANONYMOUS"},
                                  {HKE_MAP_NORESERVE, "NORESERVE"},
                                  {HKE_MAP_FIXED_NOREPLACE, "FIXED_NOREPLACE"}};

const char* AdviceName(uint32_t advice) {
  switch (advice) {
    case HKE_ADVICE_DONTFORK: return "DONTFORK";
    case HKE_ADVICE_DOFORK: return "DOFORK";
    case HKE_ADVICE_HUGEPAGE: return "HUGEPAGE";
    default: return nullptr;
  }
}

const char* PolicyModeName(uint32_t mode) {
  switch (mode) {
    case HKE_MPOL_DEFAULT: return "DEFAULT";
    case HKE_MPOL_PREFERRED: return "PREFERRED";
    case HKE_MPOL_BIND: return "BIND";
    default: return nullptr;
  }
}

const char* ClockName(uint32_t clock) {
  switch (clock) {
    case HKE_CLOCK_MONOTONIC: return "MONOTONIC";
    case HKE_CLOCK_MONOTONIC_RAW: return "MONOTONIC_RAW";
    case HKE_CLOCK_BOOTTIME: return "BOOTTIME";
    case HKE_CLOCK_REALTIME: return "REALTIME";
    default: return nullptr;
  }
}

// One trace line under construction, in the calling thread's stack.
class Line {
 public:
  Line(TraceState* s, const char* op) : state_(s), text_(buf_, HKE_TRACE_LINE_MAX) {
    text_.AppendU64(s->next_seq.fetch_add(1, std::memory_order_relaxed));
    text_.AppendChar(' ').Append(op);
  }
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

  // Starts " key=".
  Line& Key(const char* key) {
    text_.AppendChar(' ').Append(key).AppendChar('=');
    return *this;
  }
  Line& Str(const char* s) {
    text_.Append(s);
    return *this;
  }
  Line& Dec(uint64_t v) {
    text_.AppendU64(v);
    return *this;
  }
  Line& Int(int64_t v) {
    text_.AppendI64(v);
    return *this;
  }
  Line& Hex(uint64_t v) {
    text_.AppendHex(v);
    return *this;
  }
  Line& Ptr(const void* p) { return Hex(reinterpret_cast<uintptr_t>(p)); }

  // Named value, or the number when the value has no name.
  Line& Named(const char* name, uint32_t v) { return name != nullptr ? Str(name) : Dec(v); }

  // Set bits by name joined with '|', unknown bits as one hex number; 0 as `zero`.
  template <size_t N>
  Line& Flags(uint32_t v, const FlagName (&names)[N], const char* zero) {
    if (v == 0) return Str(zero);
    bool first = true;
    for (const FlagName& f : names) {
      if ((v & f.bit) == 0) continue;
      if (!first) text_.AppendChar('|');
      text_.Append(f.name);
      first = false;
      v &= ~f.bit;
    }
    if (v != 0) {
      if (!first) text_.AppendChar('|');
      text_.AppendHex(v);
    }
    return *this;
  }

  // Bytes as lower-case hex pairs, at most HKE_TRACE_HEX_MAX of them, then
  // "..." when some were left out. A NULL buffer prints "(null)".
  Line& Bytes(const void* p, size_t n) {
    if (p == nullptr) return Str("(null)");
    static const char kDigits[] = "0123456789abcdef";
    const auto* b = static_cast<const unsigned char*>(p);
    const size_t shown = n < HKE_TRACE_HEX_MAX ? n : HKE_TRACE_HEX_MAX;
    for (size_t i = 0; i < shown; ++i) {
      const char pair[2] = {kDigits[b[i] >> 4], kDigits[b[i] & 0xf]};
      text_.Append(pair, 2);
    }
    if (shown < n) text_.Append("...");
    return *this;
  }

  // A path with bytes outside '!'..'~' and '%' written as %XX, so a value
  // never contains a space; at most HKE_TRACE_PATH_MAX characters, then "...".
  Line& Path(const char* path) {
    if (path == nullptr) return Str("(null)");
    static const char kDigits[] = "0123456789ABCDEF";
    size_t used = 0;
    for (size_t i = 0; path[i] != '\0'; ++i) {
      const auto c = static_cast<unsigned char>(path[i]);
      const bool plain = c >= 0x21 && c <= 0x7e && c != '%';
      const size_t need = plain ? 1 : 3;
      if (used + need > HKE_TRACE_PATH_MAX) {
        text_.Append("...");
        break;
      }
      if (plain) {
        text_.AppendChar(static_cast<char>(c));
      } else {
        const char esc[3] = {'%', kDigits[c >> 4], kDigits[c & 0xf]};
        text_.Append(esc, 3);
      }
      used += need;
    }
    return *this;
  }

  // " -> ok" or " -> <ERRNO>".
  Line& Result(int r) {
    text_.Append(" -> ");
    if (r == 0) return Str("ok");
    const char* name = hke::err::ErrnoName(r);
    if (name != nullptr) return Str(name);
    text_.AppendChar('E');
    return Int(r);
  }

  // Terminates the line and hands it to the sink in one call.
  void Emit() {
    size_t n = text_.size();
    if (text_.truncated() && n >= 3) std::memcpy(buf_ + n - 3, "...", 3);
    buf_[n] = '\n';
    buf_[n + 1] = '\0';
    state_->sink(state_->sink_user, buf_, n + 1);
  }

 private:
  TraceState* state_;
  // HKE_TRACE_LINE_MAX - 1 characters, the '\n' and the NUL.
  char buf_[HKE_TRACE_LINE_MAX + 1];
  hke::TextBuilder text_;
};

int Open(void* self, const char* path, uint32_t flags, int* out_fd) {
  TraceState* s = StateOf(self);
  Line line(s, "open");
  line.Key("path").Path(path);
  line.Key("flags").Flags(flags, kOpenFlags, "0");
  const int r = s->inner_ops->open(s->inner_self, path, flags, out_fd);
  line.Result(r);
  if (r == 0 && out_fd != nullptr) line.Key("fd").Int(*out_fd);
  line.Emit();
  return r;
}

int Close(void* self, int fd) {
  TraceState* s = StateOf(self);
  Line line(s, "close");
  line.Key("fd").Int(fd);
  const int r = s->inner_ops->close(s->inner_self, fd);
  line.Result(r).Emit();
  return r;
}

int Ioctl(void* self, int fd, uint32_t request, void* arg) {
  TraceState* s = StateOf(self);
  const uint32_t size = hke::kfd::IocSize(request);
  const uint8_t dir = hke::kfd::IocDir(request);
  const char* name = hke::kfd::RequestName(request);
  Line line(s, "ioctl");
  line.Key("fd").Int(fd);
  line.Key("req").Hex(request);
  line.Key("name").Str(name != nullptr ? name : "?");
  line.Key("size").Dec(size);
  if ((dir & hke::kfd::kIocWrite) != 0 && size != 0) line.Key("in").Bytes(arg, size);
  const int r = s->inner_ops->ioctl(s->inner_self, fd, request, arg);
  line.Result(r);
  if (r == 0 && (dir & hke::kfd::kIocRead) != 0 && size != 0) line.Key("out").Bytes(arg, size);
  line.Emit();
  return r;
}

int Mmap(void* self, void* addr, size_t length, uint32_t prot, uint32_t flags, int fd,
         uint64_t offset, void** out_addr) {
  TraceState* s = StateOf(self);
  Line line(s, "mmap");
  line.Key("addr").Ptr(addr);
  line.Key("len").Dec(length);
  line.Key("prot").Flags(prot, kProtFlags, "NONE");
  line.Key("flags").Flags(flags, kMapFlags, "0");
  line.Key("fd").Int(fd);
  line.Key("offset").Hex(offset);
  const int r = s->inner_ops->mmap(s->inner_self, addr, length, prot, flags, fd, offset, out_addr);
  line.Result(r);
  if (r == 0 && out_addr != nullptr) line.Key("addr").Ptr(*out_addr);
  line.Emit();
  return r;
}

int Munmap(void* self, void* addr, size_t length) {
  TraceState* s = StateOf(self);
  Line line(s, "munmap");
  line.Key("addr").Ptr(addr);
  line.Key("len").Dec(length);
  const int r = s->inner_ops->munmap(s->inner_self, addr, length);
  line.Result(r).Emit();
  return r;
}

int Madvise(void* self, void* addr, size_t length, uint32_t advice) {
  TraceState* s = StateOf(self);
  Line line(s, "madvise");
  line.Key("addr").Ptr(addr);
  line.Key("len").Dec(length);
  line.Key("advice").Named(AdviceName(advice), advice);
  const int r = s->inner_ops->madvise(s->inner_self, addr, length, advice);
  line.Result(r).Emit();
  return r;
}

int ReadFile(void* self, const char* path, char* buf, size_t capacity, size_t* out_length) {
  TraceState* s = StateOf(self);
  Line line(s, "read_file");
  line.Key("path").Path(path);
  line.Key("cap").Dec(capacity);
  const int r = s->inner_ops->read_file(s->inner_self, path, buf, capacity, out_length);
  line.Result(r);
  if (r == 0 && out_length != nullptr) line.Key("len").Dec(*out_length);
  line.Emit();
  return r;
}

int ReadFileAt(void* self, int dirfd, const char* name, char* buf, size_t capacity,
               size_t* out_length) {
  TraceState* s = StateOf(self);
  Line line(s, "read_file_at");
  line.Key("dirfd").Int(dirfd);
  line.Key("name").Path(name);
  line.Key("cap").Dec(capacity);
  const int r = s->inner_ops->read_file_at(s->inner_self, dirfd, name, buf, capacity, out_length);
  line.Result(r);
  if (r == 0 && out_length != nullptr) line.Key("len").Dec(*out_length);
  line.Emit();
  return r;
}

// Counts the entries list_dir reports on their way to the caller's callback.
struct DirCounter {
  hke_dirent_fn fn;
  void* user;
  uint64_t entries;
};

int CountEntry(void* user, const char* name, uint32_t kind) {
  auto* c = static_cast<DirCounter*>(user);
  ++c->entries;
  return c->fn(c->user, name, kind);
}

int ListDir(void* self, const char* path, hke_dirent_fn fn, void* user) {
  TraceState* s = StateOf(self);
  Line line(s, "list_dir");
  line.Key("path").Path(path);
  DirCounter counter{fn, user, 0};
  // A NULL callback goes through unchanged so the inner platform rejects it.
  const int r = fn != nullptr ? s->inner_ops->list_dir(s->inner_self, path, CountEntry, &counter)
                              : s->inner_ops->list_dir(s->inner_self, path, fn, user);
  line.Result(r);
  if (r == 0) line.Key("entries").Dec(counter.entries);
  line.Emit();
  return r;
}

int ListDirFd(void* self, int dirfd, hke_dirent_fn fn, void* user) {
  TraceState* s = StateOf(self);
  Line line(s, "list_dir_fd");
  line.Key("dirfd").Int(dirfd);
  DirCounter counter{fn, user, 0};
  // A NULL callback goes through unchanged so the inner platform rejects it.
  const int r = fn != nullptr
                    ? s->inner_ops->list_dir_fd(s->inner_self, dirfd, CountEntry, &counter)
                    : s->inner_ops->list_dir_fd(s->inner_self, dirfd, fn, user);
  line.Result(r);
  if (r == 0) line.Key("entries").Dec(counter.entries);
  line.Emit();
  return r;
}

int ClockNs(void* self, uint32_t clock, uint64_t* out_ns) {
  TraceState* s = StateOf(self);
  Line line(s, "clock_ns");
  line.Key("clock").Named(ClockName(clock), clock);
  const int r = s->inner_ops->clock_ns(s->inner_self, clock, out_ns);
  line.Result(r);
  if (r == 0 && out_ns != nullptr) line.Key("ns").Dec(*out_ns);
  line.Emit();
  return r;
}

int CpuCount(void* self, uint32_t* out_count) {
  TraceState* s = StateOf(self);
  Line line(s, "cpu_count");
  const int r = s->inner_ops->cpu_count(s->inner_self, out_count);
  line.Result(r);
  if (r == 0 && out_count != nullptr) line.Key("count").Dec(*out_count);
  line.Emit();
  return r;
}

int ProcessId(void* self, int32_t* out_pid) {
  TraceState* s = StateOf(self);
  Line line(s, "process_id");
  const int r = s->inner_ops->process_id(s->inner_self, out_pid);
  line.Result(r);
  if (r == 0 && out_pid != nullptr) line.Key("pid").Int(*out_pid);
  line.Emit();
  return r;
}

int ReadFd(void* self, int fd, void* buf, size_t capacity, size_t* out_length) {
  TraceState* s = StateOf(self);
  Line line(s, "read_fd");
  line.Key("fd").Int(fd);
  line.Key("cap").Dec(capacity);
  const int r = s->inner_ops->read_fd(s->inner_self, fd, buf, capacity, out_length);
  line.Result(r);
  if (r == 0 && out_length != nullptr) {
    line.Key("len").Dec(*out_length);
    // Never show more than the caller's buffer, whatever the inner table claims.
    const size_t n = *out_length < capacity ? *out_length : capacity;
    if (n != 0) line.Key("data").Bytes(buf, n);
  }
  line.Emit();
  return r;
}

int PageSize(void* self, size_t* out_size) {
  TraceState* s = StateOf(self);
  Line line(s, "page_size");
  const int r = s->inner_ops->page_size(s->inner_self, out_size);
  line.Result(r);
  if (r == 0 && out_size != nullptr) line.Key("size").Dec(*out_size);
  line.Emit();
  return r;
}

// A table lookup, not an OS call: passed through without a trace line.
int MarketingName(void* self, uint32_t device_id, uint32_t revision, char* buf, size_t capacity) {
  TraceState* s = StateOf(self);
  return s->inner_ops->marketing_name(s->inner_self, device_id, revision, buf, capacity);
}

// libdrm's device handle: passed through (libdrm's own ioctls on the render
// node do not go through the platform table).
int AmdgpuDevice(void* self, int render_fd, void** out_handle) {
  TraceState* s = StateOf(self);
  return s->inner_ops->amdgpu_device(s->inner_self, render_fd, out_handle);
}

void AmdgpuDeviceRelease(void* self, void* handle) {
  TraceState* s = StateOf(self);
  s->inner_ops->amdgpu_device_release(s->inner_self, handle);
}

// Host perf counters: one line per call, with the values read.
int PerfOpen(void* self, uint32_t type, uint64_t config, int* out_fd) {
  TraceState* s = StateOf(self);
  Line line(s, "perf_open");
  line.Key("type").Dec(type);
  line.Key("config").Dec(config);
  const int r = s->inner_ops->perf_open(s->inner_self, type, config, out_fd);
  line.Result(r);
  if (r == 0 && out_fd != nullptr) line.Key("fd").Int(*out_fd);
  line.Emit();
  return r;
}

int PerfEnable(void* self, int fd, uint32_t enable) {
  TraceState* s = StateOf(self);
  Line line(s, "perf_enable");
  line.Key("fd").Int(fd);
  line.Key("enable").Dec(enable);
  const int r = s->inner_ops->perf_enable(s->inner_self, fd, enable);
  line.Result(r);
  line.Emit();
  return r;
}

int PerfRead(void* self, int fd, uint64_t out_values[3]) {
  TraceState* s = StateOf(self);
  Line line(s, "perf_read");
  line.Key("fd").Int(fd);
  const int r = s->inner_ops->perf_read(s->inner_self, fd, out_values);
  line.Result(r);
  if (r == 0 && out_values != nullptr) {
    line.Key("value").Dec(out_values[0]);
    line.Key("enabled").Dec(out_values[1]);
    line.Key("running").Dec(out_values[2]);
  }
  line.Emit();
  return r;
}

// NUMA memory policy: the range, the mode by name and the node.
int MemPolicy(void* self, void* addr, size_t length, uint32_t mode, uint32_t node) {
  TraceState* s = StateOf(self);
  Line line(s, "mem_policy");
  line.Key("addr").Ptr(addr);
  line.Key("len").Dec(length);
  line.Key("mode").Named(PolicyModeName(mode), mode);
  line.Key("node").Dec(node);
  const int r = s->inner_ops->mem_policy(s->inner_self, addr, length, mode, node);
  line.Result(r).Emit();
  return r;
}

using Mutexes = hke::platform::ForwardMutexOps<TraceState, StateOf>;

}  // namespace

extern "C" int hke_trace_init(hke_trace* trace, hke_platform inner, hke_trace_sink_fn sink,
                              void* user) {
  hke_platform_ops in{};
  if (trace == nullptr || sink == nullptr ||
      !hke::platform::NormalizeInnerOps(inner.ops, &in)) {
    return EINVAL;
  }
  static const hke_platform_ops kOwn = {
      sizeof(hke_platform_ops), HKE_PLATFORM_ABI_VERSION,
      Open, Close, Ioctl, Mmap, Munmap, Madvise, ReadFile, ListDir, ClockNs, CpuCount,
      ProcessId, ReadFd, PageSize, MarketingName, AmdgpuDevice, AmdgpuDeviceRelease,
      PerfOpen, PerfEnable, PerfRead, MemPolicy,
      Mutexes::Init, Mutexes::Lock, Mutexes::Unlock, Mutexes::Destroy, ReadFileAt,
      ListDirFd,
  };
  const hke_platform_ops ops = hke::platform::DecoratedOps(kOwn, in);

  TraceState* s = new (trace->opaque.bytes) TraceState;
  s->ops = ops;
  s->inner_ops = inner.ops;
  s->inner_self = inner.self;
  s->sink = sink;
  s->sink_user = user;
  s->next_seq.store(1, std::memory_order_relaxed);
  return 0;
}

extern "C" hke_platform hke_trace_platform(hke_trace* trace) {
  TraceState* s = StateOf(trace);
  hke_platform p;
  p.ops = &s->ops;
  p.self = s;
  return p;
}

extern "C" uint64_t hke_trace_next_sequence(const hke_trace* trace) {
  return StateOf(trace)->next_seq.load(std::memory_order_relaxed);
}

extern "C" void hke_trace_fd_sink(void* user, const char* line, size_t length) {
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(user));
  while (length != 0) {
    const ssize_t n = ::write(fd, line, length);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (n == 0) return;
    line += n;
    length -= static_cast<size_t>(n);
  }
}
