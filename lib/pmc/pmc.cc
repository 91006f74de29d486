// Performance counters and traces; see pmc.h.
#include "lib/pmc/pmc.h"

#include <cstring>

#include "lib/context/context.h"
#include "lib/core/checked.h"
#include "lib/core/errno.h"
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/node/node.h"
#include "lib/profile/profile.h"

namespace hke::pmc {

static_assert(sizeof(HsaCounterProperties) == 64 && sizeof(HsaCounterBlockProperties) == 56 &&
                  sizeof(HsaCounter) == 32,
              "the blob layout assumes upstream's packed sizes");

namespace {

constexpr const char* kArea = "pmc";
constexpr size_t kHeaderBytes = offsetof(HsaCounterProperties, Blocks);
constexpr size_t kBlockHeaderBytes = offsetof(HsaCounterBlockProperties, Counters);

constexpr const char* kPmuDirs[] = {"/sys/bus/event_source/devices/amd_iommu_0",
                                    "/sys/bus/event_source/devices/amd_iommu"};
// Below the context's topology root (hke_config.topology_root).
constexpr const char kMaxConcurrentTail[] = "/nodes/0/perf/iommu/max_concurrent";

// ---- small parsers for the PMU's sysfs files ----

// A decimal number followed by optional whitespace.
bool ParseDecimal(const char* s, size_t n, uint64_t* out) {
  uint64_t v = 0;
  size_t i = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (!CheckedMul<uint64_t>(v, 10, &v) || !CheckedAdd<uint64_t>(v, uint64_t(s[i] - '0'), &v)) {
      return false;
    }
  }
  if (i == 0) return false;
  for (; i < n; ++i) {
    if (s[i] != '\n' && s[i] != ' ' && s[i] != '\t') return false;
  }
  *out = v;
  return true;
}

// "csource=0x<hex>" with an optional newline; the value must fit 8 bits.
bool ParseCsource(const char* s, size_t n, uint32_t* out) {
  constexpr char kPrefix[] = "csource=0x";
  constexpr size_t kPrefixLen = sizeof(kPrefix) - 1;
  if (n < kPrefixLen + 1 || std::memcmp(s, kPrefix, kPrefixLen) != 0) return false;
  uint32_t v = 0;
  size_t i = kPrefixLen;
  size_t digits = 0;
  for (; i < n; ++i, ++digits) {
    const char c = s[i];
    uint32_t d = 0;
    if (c >= '0' && c <= '9') d = uint32_t(c - '0');
    else if (c >= 'a' && c <= 'f') d = uint32_t(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = uint32_t(c - 'A' + 10);
    else break;
    v = v * 16 + d;
    if (v > 0xff) return false;
  }
  if (digits == 0) return false;
  for (; i < n; ++i) {
    if (s[i] != '\n') return false;
  }
  *out = v;
  return true;
}

Status ReadSmall(Context& ctx, const char* path, char* buf, size_t cap, size_t* n) {
  return ctx.platform().ReadFile(path, buf, cap, n);
}

struct EventScan {
  Context* ctx;
  const char* dir;
  bool ids[kMaxIommuCounters];
  Status error;
};

// Reads the IOMMU PMU once per open. Absent files leave it absent (no
// block); a malformed file leaves it absent too, with a diagnostic naming
// the file: the GPU tables do not depend on it.
void ReadIommu(Context& ctx, IommuInfo* out) {
  IommuInfo info;
  info.read = true;
  char buf[64];
  size_t n = 0;
  const char* dir = nullptr;
  for (const char* d : kPmuDirs) {
    FixedText<128> path;
    path.Append(d).Append("/type");
    if (ReadSmall(ctx, path.c_str(), buf, sizeof(buf), &n).ok()) {
      uint64_t type = 0;
      if (!ParseDecimal(buf, n, &type) || type == 0 || type > 0xFFFFFFFFu) {
        (void)ctx.diag().Error(Protocol(), kArea, "IOMMU PMU type is not a positive number; no IOMMU block",
                         path.c_str());
        *out = info;
        return;
      }
      info.perf_type = static_cast<uint32_t>(type);
      dir = d;
      break;
    }
  }
  if (dir == nullptr) {
    *out = info;
    return;
  }
  FixedText<256> max_concurrent;
  max_concurrent.Append(ctx.topology_root()).Append(kMaxConcurrentTail);
  if (!ReadSmall(ctx, max_concurrent.c_str(), buf, sizeof(buf), &n).ok()) {
    *out = info;  // no KFD IOMMU counters (kernels since 6.x drop the file)
    return;
  }
  uint64_t slots = 0;
  if (!ParseDecimal(buf, n, &slots) || slots == 0) {
    (void)ctx.diag().Error(Protocol(), kArea, "IOMMU max_concurrent is not a positive number; no IOMMU block",
                     max_concurrent.c_str());
    *out = info;
    return;
  }
  // More slots than a trace can hold are not offered.
  info.slots = slots > config::kMaxPmcTraceCounters ? config::kMaxPmcTraceCounters
                                                      : static_cast<uint32_t>(slots);
  EventScan scan{};
  scan.ctx = &ctx;
  FixedText<128> events;
  events.Append(dir).Append("/events");
  scan.dir = events.c_str();
  const Status ls = ctx.platform().ListDir(
      events.c_str(),
      [](void* user, const char* name, uint32_t kind) -> int {
        EventScan* s = static_cast<EventScan*>(user);
        if (kind == HKE_DIRENT_DIR) return 0;
        FixedText<256> path;
        path.Append(s->dir).Append("/").Append(name);
        char text[64];
        size_t len = 0;
        uint32_t id = 0;
        const Status r = s->ctx->platform().ReadFile(path.c_str(), text, sizeof(text), &len);
        if (!r.ok() || !ParseCsource(text, len, &id)) {
          s->error = s->ctx->diag().Error(r.ok() ? Protocol() : r, kArea,
                                          "IOMMU event is not \"csource=0x<id>\" below 0x100; no IOMMU block",
                                          path.c_str());
          return 1;
        }
        s->ids[id] = true;
        return 0;
      },
      &scan);
  if (!ls.ok() || !scan.error.ok()) {
    *out = info;
    return;
  }
  for (uint32_t i = 0; i < kMaxIommuCounters; ++i) {
    if (scan.ids[i]) info.ids[info.count++] = static_cast<uint8_t>(i);
  }
  info.present = info.count != 0;
  *out = info;
}

// The IOMMU view of the current open (read outside the lock, at most once
// per open in the common case; a racing second reader reads the same files).
IommuInfo CurrentIommu(Context& ctx) {
  const uint32_t epoch = device::OpenEpoch(ctx);
  {
    LockGuard g(ctx.pmc_lock());
    const IommuInfo& i = ctx.pmc().iommu;
    if (i.read && i.epoch == epoch) return i;
  }
  IommuInfo fresh;
  ReadIommu(ctx, &fresh);
  fresh.epoch = epoch;
  LockGuard g(ctx.pmc_lock());
  ctx.pmc().iommu = fresh;
  return fresh;
}

// The node's table, or INVALID_ARGUMENT with a diagnostic.
Status NodeTable(Context& ctx, uint32_t node, const char* call, TableId* out) {
  node::NodeTarget n{};
  HKE_RETURN_IF_ERROR(node::Resolve(ctx, node, &n));
  if (!SelectTable(n.gfx_version, n.device_id, out)) {
    FixedText<160> m;
    m.Append(call).Append(": node ").AppendU64(node);
    if (n.gpu_id == 0) {
      m.Append(" is a CPU node (no counter blocks)");
    } else {
      m.Append(" (gfx_target_version ").AppendU64(n.gfx_version).Append(
          ") has no counter table (gfx11 and later, Tonga)");
    }
    return ctx.diag().Error(InvalidArgument(), kArea, m.c_str());
  }
  return Status::Ok();
}

void PutCounter(unsigned char* at, uint64_t id, uint32_t bits, uint32_t block, uint32_t type) {
  HsaCounter c;
  std::memset(&c, 0, sizeof(c));
  c.Type = static_cast<HSA_PROFILE_TYPE>(type);
  c.CounterId = id;
  c.CounterSizeInBits = bits;
  c.CounterMask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  c.Flags.ui32.Global = 1;
  c.BlockIndex = block;
  std::memcpy(at, &c, sizeof(c));
}

size_t PutBlockHeader(unsigned char* at, uint32_t block, uint32_t counters, uint32_t slots) {
  const HSA_UUID uuid = BlockUuid(block);
  std::memcpy(at, &uuid, sizeof(uuid));
  std::memcpy(at + offsetof(HsaCounterBlockProperties, NumCounters), &counters, 4);
  std::memcpy(at + offsetof(HsaCounterBlockProperties, NumConcurrent), &slots, 4);
  return kBlockHeaderBytes;
}

// Writes the blob of `t` (and the IOMMU block) into `out`; its size is
// bounded by kBlobBytes (TablesFit in tables.cc and the IOMMU id range).
void BuildBlob(const Table& t, const IommuInfo& io, unsigned char* out) {
  size_t at = kHeaderBytes;
  uint32_t blocks = 0;
  uint32_t concurrent = 0;
  for (uint32_t i = 0; i < t.block_count; ++i) {
    const BlockSpec& b = t.blocks[i];
    at += PutBlockHeader(out + at, b.block, BlockCounters(b), b.slots);
    for (uint32_t r = 0; r < b.run_count; ++r) {
      for (uint32_t k = 0; k < b.runs[r].count; ++k) {
        PutCounter(out + at, uint64_t{b.runs[r].first} + k, kGpuCounterBits, b.block,
                   HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE);
        at += sizeof(HsaCounter);
      }
    }
    ++blocks;
    concurrent += b.slots;
  }
  if (io.present) {
    at += PutBlockHeader(out + at, kIommu, io.count, io.slots);
    for (uint32_t k = 0; k < io.count; ++k) {
      PutCounter(out + at, io.ids[k], kIommuCounterBits, kIommu,
                 HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE);
      at += sizeof(HsaCounter);
    }
    ++blocks;
    concurrent += io.slots;
  }
  std::memcpy(out + offsetof(HsaCounterProperties, NumBlocks), &blocks, 4);
  std::memcpy(out + offsetof(HsaCounterProperties, NumConcurrent), &concurrent, 4);
}

// ---- trace slots ----

Status BadId(Context& ctx, const char* call, uint64_t id, const char* why) {
  FixedText<160> m;
  m.Append(call).Append(": trace id ").AppendHex(id).Append(why);
  return ctx.diag().Error(InvalidHandle(), kArea, m.c_str());
}

using TracePin = SlotCopyPin<Trace, config::kMaxPmcTraces, Mutex>;

// Checks the device is open, then pins the live trace `id` of this open
// into `pin` (a copy to work on, stored back and unpinned when `pin` goes
// out of scope), on *node when `node` is not null (the calls that name a
// node; Start/Query/StopTrace name none).
Status Pin(Context& ctx, uint64_t id, const uint32_t* node, const char* call, TracePin* pin) {
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  profile::PinResult r = profile::PinResult::kUnknown;
  uint32_t owner = 0;
  {
    LockGuard g(ctx.pmc_lock());
    r = profile::PinSlot(ctx.pmc().traces, ctx.pmc_lock(), IdFormat(ctx), id, ctx.open_epoch(),
                         node, pin, &owner);
  }
  if (r == profile::PinResult::kPinned) return Status::Ok();
  if (r == profile::PinResult::kUnknown) return BadId(ctx, call, id, " is not a registered PMC trace");
  FixedText<160> m;
  m.Append(call).Append(": ");
  if (r == profile::PinResult::kBusy) {
    m.Append("another call on trace id ").AppendHex(id).Append(" is in progress");
    return ctx.diag().Error(Status::Api(HKE_STATUS_UNAVAILABLE), kArea, m.c_str());
  }
  m.Append("trace id ").AppendHex(id).Append(" belongs to node ").AppendU64(owner).Append(
      ", not ").AppendU64(*node);  // kOtherNode: the call named a node
  return ctx.diag().Error(InvalidHandle(), kArea, m.c_str());
}

void CloseFds(Context& ctx, Trace* t) {
  for (uint32_t i = 0; i < t->privileged; ++i) {
    int fd = t->fd[i];
    (void)ctx.platform().Close(&fd);
    t->fd[i] = -1;
  }
  t->access = false;
  t->started = false;
}

// Enables or disables every descriptor; on a failure undoes the ones done.
Status SetEnabled(Context& ctx, const Trace& t, bool enable, const char* call) {
  for (uint32_t i = 0; i < t.privileged; ++i) {
    const Status s = ctx.platform().PerfEnable(t.fd[i], enable);
    if (!s.ok()) {
      for (uint32_t k = 0; k < i; ++k) (void)ctx.platform().PerfEnable(t.fd[k], !enable);
      FixedText<160> m;
      m.Append(call).Append(": perf ").Append(enable ? "enable" : "disable").Append(
          " of IOMMU counter ").AppendHex(t.config[i]).Append(" failed: ").Append(StatusName(s));
      return ctx.diag().Error(s, kArea, m.c_str());
    }
  }
  return Status::Ok();
}

}  // namespace

HandleFormat IdFormat(const Context& ctx) {
  HandleFormat f = profile::kTraceIdFormat;
  f.tag |= (uint64_t{ctx.trace_tag()} << 56) | (kTraceIdTag << 32);
  return f;
}

uint64_t EncodeId(const Context& ctx, uint32_t slot, uint32_t generation) {
  return EncodeHandle(IdFormat(ctx), slot, generation);
}

Status GetCounterProperties(Context& ctx, uint32_t node, HsaCounterProperties** out) {
  if (out == nullptr) return InvalidArgument();
  TableId table = kTableCount;
  HKE_RETURN_IF_ERROR(NodeTable(ctx, node, "hsaKmtPmcGetCounterProperties", &table));
  const IommuInfo io = CurrentIommu(ctx);
  LockGuard g(ctx.pmc_lock());
  const uint32_t epoch = ctx.open_epoch();
  Blob* free_blob = nullptr;
  for (Blob& b : ctx.pmc().blobs) {
    if (b.built && b.epoch == epoch && b.table == table) {
      *out = reinterpret_cast<HsaCounterProperties*>(b.bytes);
      return Status::Ok();
    }
    if (free_blob == nullptr && (!b.built || b.epoch != epoch)) free_blob = &b;
  }
  if (free_blob == nullptr) {
    FixedText<160> m;
    m.Append("hsaKmtPmcGetCounterProperties: node ").AppendU64(node).Append(
        " needs the ").Append(GetTable(table).name).Append(" table and all ").AppendU64(
        config::kMaxPmcBlobs).Append(" counter-property blobs of the context hold other tables");
    return ctx.diag().Error(Exhausted(), kArea, m.c_str());
  }
  BuildBlob(GetTable(table), io, free_blob->bytes);
  free_blob->table = table;
  free_blob->epoch = epoch;
  free_blob->built = true;
  *out = reinterpret_cast<HsaCounterProperties*>(free_blob->bytes);
  return Status::Ok();
}

Status RegisterTrace(Context& ctx, uint32_t node, uint32_t count, const HsaCounter* counters,
                     HsaPmcTraceRoot* out_root) {
  constexpr const char* kCall = "hsaKmtPmcRegisterTrace";
  if (counters == nullptr || out_root == nullptr) return InvalidArgument();
  if (count == 0 || count > kMaxRegisterCounters) {
    FixedText<128> m;
    m.Append(kCall).Append(": ").AppendU64(count).Append(" counters (1 to 512 are accepted)");
    return ctx.diag().Error(InvalidArgument(), kArea, m.c_str());
  }
  if (ctx.trace_tag() == Context::kNoTraceTag) {
    return ctx.diag().Error(Unsupported(), kArea,
                            "hsaKmtPmcRegisterTrace: Start/Query/StopTrace take no context, so a "
                            "trace must live in a context they can find from its id: the default "
                            "context or a hsaKmtOpenSecondaryKFDCtx one, not a caller-owned one");
  }
  TableId table = kTableCount;
  HKE_RETURN_IF_ERROR(NodeTable(ctx, node, kCall, &table));
  const Table& t = GetTable(table);
  const IommuInfo io = CurrentIommu(ctx);
  uint32_t per_block[kBlockCount] = {};
  Trace fresh;
  fresh.perf_type = io.perf_type;
  for (uint32_t i = 0; i < count; ++i) {
    const HsaCounter& c = counters[i];
    const uint32_t type = static_cast<uint32_t>(c.Type);
    const char* why = nullptr;
    uint32_t slots = 0;
    if (c.BlockIndex >= kBlockCount) {
      why = " names no block";
    } else if (c.BlockIndex == kIommu) {
      bool known = false;
      for (uint32_t k = 0; k < io.count && io.present; ++k) known = known || io.ids[k] == c.CounterId;
      if (!io.present) why = " is in the IOMMU block, which this host does not have";
      else if (type > HSA_PROFILE_TYPE_PRIVILEGED_STREAMING) why = " is privileged (IOMMU) but typed non-privileged";
      else if (!known) why = " is not an IOMMU event of this host";
      slots = io.slots;
    } else {
      const BlockSpec* b = FindBlock(t, c.BlockIndex);
      if (b == nullptr) why = " is in a block this GPU's table does not have";
      else if (type != HSA_PROFILE_TYPE_NONPRIV_IMMEDIATE && type != HSA_PROFILE_TYPE_NONPRIV_STREAMING)
        why = " is a GPU-block counter but typed privileged or unknown";
      else if (!BlockHasCounter(*b, c.CounterId)) why = " is not a counter id of its block";
      else slots = b->slots;
    }
    if (why == nullptr && ++per_block[c.BlockIndex] > slots) why = " is one more than its block's slots";
    if (why != nullptr) {
      FixedText<224> m;
      m.Append(kCall).Append(": counter ").AppendU64(i).Append(" (block ").AppendU64(
          c.BlockIndex).Append(", id ").AppendU64(c.CounterId).Append(", type ").AppendU64(
          type).Append(")").Append(why);
      return ctx.diag().Error(InvalidArgument(), kArea, m.c_str());
    }
    if (c.BlockIndex == kIommu) {
      // Within the slots checked above, which are at most kMaxPmcTraceCounters.
      fresh.config[fresh.privileged] = c.CounterId;
      fresh.fd[fresh.privileged] = -1;
      ++fresh.privileged;
    }
  }
  // One u64 per privileged counter, page aligned (upstream: the counters'
  // bytes, page aligned; the same for 64-bit counters).
  uint64_t min_bytes = uint64_t{fresh.privileged} * 8;
  if (min_bytes != 0 && !CheckedAlignUp<uint64_t>(min_bytes, 4096, &min_bytes)) return Overflow();
  uint32_t slot = 0;
  uint32_t generation = 0;
  // A trace of an earlier open normally kept no descriptor (Teardown closed
  // them), but one a call had pinned while the device closed was left to
  // that call and came back with its descriptors: such a trace is
  // reclaimed here and its descriptors closed after the lock, not lost with
  // the slot.
  Trace stale;
  {
    LockGuard g(ctx.pmc_lock());
    TraceTable& traces = ctx.pmc().traces;
    const uint32_t epoch = ctx.open_epoch();
    const bool taken = traces.Allocate(&slot, [&](uint32_t i) {
      if (traces[i].epoch == epoch) return false;
      if (traces[i].access) stale = traces[i];
      return true;
    });
    if (!taken) {
      FixedText<128> m;
      m.Append(kCall).Append(": all ").AppendU64(config::kMaxPmcTraces).Append(
          " PMC trace slots of the context are in use");
      return ctx.diag().Error(Exhausted(), kArea, m.c_str());
    }
    fresh.epoch = epoch;
    fresh.node = node;
    traces[slot] = fresh;
    traces.Publish(slot);
    generation = traces.generation(slot);
  }
  // Closing a descriptor stops its counter; no disable first (a failed one
  // would only leave a diagnostic of an operation the caller did not ask for).
  if (stale.access) CloseFds(ctx, &stale);
  out_root->TraceBufferMinSizeBytes = min_bytes;
  out_root->NumberOfPasses = 1;
  out_root->TraceId = EncodeId(ctx, slot, generation);
  return Status::Ok();
}

Status UnregisterTrace(Context& ctx, uint32_t node, uint64_t id) {
  constexpr const char* kCall = "hsaKmtPmcUnregisterTrace";
  TracePin pin;
  HKE_RETURN_IF_ERROR(Pin(ctx, id, &node, kCall, &pin));
  Trace& t = pin.item();
  if (t.started) {
    const Status s = SetEnabled(ctx, t, false, kCall);
    if (!s.ok()) return s;
    t.started = false;
  }
  CloseFds(ctx, &t);
  LockGuard g(ctx.pmc_lock());
  ctx.pmc().traces.Free(pin.slot());
  return Status::Ok();
}

Status AcquireTraceAccess(Context& ctx, uint32_t node, uint64_t id) {
  constexpr const char* kCall = "hsaKmtPmcAcquireTraceAccess";
  TracePin pin;
  HKE_RETURN_IF_ERROR(Pin(ctx, id, &node, kCall, &pin));
  Trace& t = pin.item();
  if (t.access || t.privileged == 0) {
    t.access = true;
    return Status::Ok();
  }
  if (!ctx.platform().HasPerf()) {
    return ctx.diag().Error(Unsupported(), kArea,
                            "hsaKmtPmcAcquireTraceAccess: the platform has no perf_event "
                            "operations for the IOMMU counters");
  }
  for (uint32_t i = 0; i < t.privileged; ++i) {
    int fd = -1;
    const Status s = ctx.platform().PerfOpen(t.perf_type, t.config[i], &fd);
    if (!s.ok()) {
      for (uint32_t k = 0; k < i; ++k) {
        int open_fd = t.fd[k];
        (void)ctx.platform().Close(&open_fd);
        t.fd[k] = -1;
      }
      FixedText<192> m;
      m.Append(kCall).Append(": perf_event_open of IOMMU counter ").AppendHex(t.config[i]).Append(
          " (perf type ").AppendU64(t.perf_type).Append(") failed: ").Append(StatusName(s)).Append(
          s.is_errno(err::kEACCES) || s.is_errno(err::kEPERM)
              ? " (needs CAP_PERFMON or perf_event_paranoid allowing system-wide counters)"
              : "");
      return ctx.diag().Error(s, kArea, m.c_str());
    }
    t.fd[i] = fd;
  }
  t.access = true;
  return Status::Ok();
}

Status ReleaseTraceAccess(Context& ctx, uint32_t node, uint64_t id) {
  constexpr const char* kCall = "hsaKmtPmcReleaseTraceAccess";
  TracePin pin;
  HKE_RETURN_IF_ERROR(Pin(ctx, id, &node, kCall, &pin));
  Trace& t = pin.item();
  if (t.started) (void)SetEnabled(ctx, t, false, kCall);  // closing stops them anyway
  if (t.privileged != 0) {
    CloseFds(ctx, &t);
  } else {
    t.access = false;
    t.started = false;
  }
  return Status::Ok();
}

Status StartTrace(Context& ctx, uint64_t id, uint64_t buffer, uint64_t size) {
  constexpr const char* kCall = "hsaKmtPmcStartTrace";
  TracePin pin;
  HKE_RETURN_IF_ERROR(Pin(ctx, id, nullptr, kCall, &pin));
  Trace& t = pin.item();
  const uint64_t need = uint64_t{t.privileged} * 8;
  uint64_t end = 0;
  if (buffer == 0 || size == 0 || size < need || !CheckedAdd<uint64_t>(buffer, size, &end)) {
    FixedText<160> m;
    m.Append(kCall).Append(": trace buffer ").AppendHex(buffer).Append(" of ").AppendU64(
        size).Append(" bytes; a non-NULL buffer of at least ").AppendU64(need == 0 ? 1 : need).Append(
        " bytes within the address space is needed");
    return ctx.diag().Error(InvalidArgument(), kArea, m.c_str());
  }
  if (t.privileged != 0 && !t.access) {
    FixedText<128> m;
    m.Append(kCall).Append(": trace id ").AppendHex(id).Append(
        " has IOMMU counters and no access (call hsaKmtPmcAcquireTraceAccess first)");
    return ctx.diag().Error(Status::Api(HKE_STATUS_UNAVAILABLE), kArea, m.c_str());
  }
  const Status s = SetEnabled(ctx, t, true, kCall);
  if (s.ok()) {
    t.started = true;
    t.buffer = buffer;
    t.buffer_size = size;
  }
  return s;
}

Status QueryTrace(Context& ctx, uint64_t id) {
  constexpr const char* kCall = "hsaKmtPmcQueryTrace";
  TracePin pin;
  HKE_RETURN_IF_ERROR(Pin(ctx, id, nullptr, kCall, &pin));
  Trace& t = pin.item();
  if (!t.started) {
    FixedText<128> m;
    m.Append(kCall).Append(": trace id ").AppendHex(id).Append(" is not started");
    return ctx.diag().Error(Status::Api(HKE_STATUS_UNAVAILABLE), kArea, m.c_str());
  }
  uint64_t values[config::kMaxPmcTraceCounters] = {};
  for (uint32_t i = 0; i < t.privileged; ++i) {
    uint64_t v[3] = {0, 0, 0};
    const Status s = ctx.platform().PerfRead(t.fd[i], v);
    if (!s.ok()) {
      FixedText<160> m;
      m.Append(kCall).Append(": reading IOMMU counter ").AppendHex(t.config[i]).Append(
          " failed: ").Append(StatusName(s));
      return ctx.diag().Error(s, kArea, m.c_str());
    }
    values[i] = v[0];
  }
  // Checked at Start: the buffer holds 8 bytes per privileged counter.
  if (t.privileged != 0) {
    std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(t.buffer)), values,
                size_t{t.privileged} * 8);
  }
  return Status::Ok();
}

Status StopTrace(Context& ctx, uint64_t id) {
  constexpr const char* kCall = "hsaKmtPmcStopTrace";
  TracePin pin;
  HKE_RETURN_IF_ERROR(Pin(ctx, id, nullptr, kCall, &pin));
  Trace& t = pin.item();
  Status s = Status::Ok();
  if (t.started) {
    s = SetEnabled(ctx, t, false, kCall);
    if (s.ok()) t.started = false;
  }
  return s;
}

void Teardown(Context& ctx) {
  // Descriptors are closed outside the lock: take each live trace out of
  // the table first. A pinned one is left to its call; the next open makes
  // it stale, and RegisterTrace closes its descriptors when it reuses the
  // slot (or the next close does, whichever comes first).
  // One lock hold per trace taken out (none past the last slot ever used),
  // not one per slot of the table.
  for (uint32_t i = 0;; ++i) {
    Trace t;
    {
      LockGuard g(ctx.pmc_lock());
      TraceTable& traces = ctx.pmc().traces;
      while (i < traces.high_water() && !(traces.IsLive(i) && traces.pins(i) == 0)) ++i;
      if (i >= traces.high_water()) break;
      t = traces[i];
      traces.Free(i);
    }
    if (t.access) {
      if (t.started) (void)SetEnabled(ctx, t, false, "close");
      CloseFds(ctx, &t);
    }
  }
  LockGuard g(ctx.pmc_lock());
  for (Blob& b : ctx.pmc().blobs) b.built = false;
  ctx.pmc().iommu.read = false;
}

}  // namespace hke::pmc
