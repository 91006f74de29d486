// Fuzzes the per-node and debugger-control codecs: SET_MEMORY_POLICY,
// GET_CLOCK_COUNTERS (request and hostile reply), SET_TRAP_HANDLER,
// DBG_TRAP ENABLE / DISABLE / SUSPEND_QUEUES and the deprecated
// wave-control / address-watch buffers. Invariants: an accepted memory
// policy has known policies, page-aligned non-wrapping ranges; a decoded
// clock sample keeps gpu_id and has a frequency, and a CPU request never
// yields a GPU counter; an ENABLE reply never reports more bytes than the
// capacity sent; a suspend request's id array fits the address space; the
// deprecated buffers are exactly the size their counts give, never larger
// than the caller's buffer, with the header naming the bytes that follow
// it. Nothing is written on failure (outputs and buffers stay 0xA5).
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

namespace {

bool AllA5(const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0xA5) return false;
  }
  return true;
}

void FuzzPolicyClockTrap(Input& in) {
  k::MemoryPolicyRequest req{};
  req.gpu_id = in.Bool() ? in.U32() : 1;
  req.default_policy = in.U8() % 4;
  req.alternate_policy = in.U8() % 4;
  req.alternate_base = in.Addr();
  req.alternate_size = in.Addr();
  req.misc_process_flag = in.U8() % 4;
  req.page_size = in.Bool() ? k::kDefaultPageSize : uint64_t{1} << (in.U8() % 40);
  Poisoned<k::SetMemoryPolicyArgs> pol;
  if (k::EncodeSetMemoryPolicy(req, &pol.v).ok()) {
    HKE_FUZZ_ASSERT(pol.v.gpu_id != 0);
    HKE_FUZZ_ASSERT(pol.v.default_policy <= 1 && pol.v.alternate_policy <= 1);
    HKE_FUZZ_ASSERT(pol.v.alternate_aperture_base % req.page_size == 0);
    HKE_FUZZ_ASSERT(pol.v.alternate_aperture_size % req.page_size == 0);
    HKE_FUZZ_ASSERT(pol.v.alternate_aperture_size <= UINT64_MAX - pol.v.alternate_aperture_base);
  } else {
    HKE_FUZZ_ASSERT(pol.untouched());
  }

  const uint32_t gpu = in.Bool() ? 0 : in.U32();
  k::GetClockCountersArgs sent{};
  if (!k::EncodeGetClockCounters(gpu, &sent).ok()) __builtin_trap();
  k::GetClockCountersArgs reply = sent;
  reply.gpu_clock_counter = in.Bool() ? 0 : in.U64();
  reply.cpu_clock_counter = in.U64();
  reply.system_clock_counter = in.U64();
  reply.system_clock_freq = in.Bool() ? 1000000000ull : in.U64();
  if (in.U8() == 0x5A) reply.gpu_id ^= 1;
  Poisoned<k::ClockSample> sample;
  if (k::DecodeGetClockCounters(sent, reply, &sample.v).ok()) {
    HKE_FUZZ_ASSERT(reply.gpu_id == gpu && sample.v.frequency != 0);
    HKE_FUZZ_ASSERT(gpu != 0 || sample.v.gpu == 0);
    HKE_FUZZ_ASSERT(sample.v.cpu == reply.cpu_clock_counter);
  } else {
    HKE_FUZZ_ASSERT(sample.untouched());
  }

  Poisoned<k::SetTrapHandlerArgs> trap;
  const uint32_t trap_gpu = in.Bool() ? 0 : in.U32();
  if (k::EncodeSetTrapHandler(trap_gpu, in.U64(), in.U64(), &trap.v).ok()) {
    HKE_FUZZ_ASSERT(trap.v.gpu_id != 0 && trap.v.pad == 0);
  } else {
    HKE_FUZZ_ASSERT(trap.untouched() && trap_gpu == 0);
  }
}

void FuzzDbgTrap(Input& in) {
  const uint32_t pid = in.Bool() ? 0 : in.U32();
  const auto fd = static_cast<int32_t>(in.U32());
  const uint64_t rinfo = in.Addr();
  const uint32_t cap = in.Bool() ? in.U32() : in.U8();
  Poisoned<k::DbgTrapArgs> en;
  if (k::EncodeDbgTrapEnable(pid, fd, in.U64(), rinfo, cap, &en.v).ok()) {
    HKE_FUZZ_ASSERT(en.v.op == k::kDbgTrapEnable && en.v.pid != 0);
    HKE_FUZZ_ASSERT(en.v.enable.rinfo_size != 0 && en.v.enable.rinfo_ptr != 0);
    HKE_FUZZ_ASSERT(en.v.enable.rinfo_size <= UINT64_MAX - en.v.enable.rinfo_ptr);
    k::DbgTrapArgs reply = en.v;
    reply.enable.rinfo_size = in.Bool() ? in.U32() : in.U8();
    if (in.U8() == 0x77) reply.enable.dbg_fd ^= 1;
    Poisoned<uint32_t> bytes;
    if (k::DecodeDbgTrapEnable(en.v, reply, &bytes.v).ok()) {
      HKE_FUZZ_ASSERT(bytes.v != 0 && bytes.v <= en.v.enable.rinfo_size);
      HKE_FUZZ_ASSERT(bytes.v <= reply.enable.rinfo_size);
    } else {
      HKE_FUZZ_ASSERT(bytes.untouched());
    }
  } else {
    HKE_FUZZ_ASSERT(en.untouched());
  }

  Poisoned<k::DbgTrapArgs> dis;
  if (k::EncodeDbgTrapDisable(pid, fd, &dis.v).ok()) {
    HKE_FUZZ_ASSERT(dis.v.op == k::kDbgTrapDisable && pid != 0 && fd >= 0);
  } else {
    HKE_FUZZ_ASSERT(dis.untouched());
  }

  const uint64_t ids = in.Addr();
  const uint32_t count = in.Bool() ? in.U32() : in.U8();
  Poisoned<k::DbgTrapArgs> sus;
  if (k::EncodeDbgSuspendQueues(pid, ids, count, in.U64(), in.U32(), &sus.v).ok()) {
    HKE_FUZZ_ASSERT(sus.v.op == k::kDbgTrapSuspendQueues);
    HKE_FUZZ_ASSERT(count >= 1 && count <= k::kMaxQueuesPerProcess);
    HKE_FUZZ_ASSERT(uint64_t{count} * 4 <= UINT64_MAX - ids);
  } else {
    HKE_FUZZ_ASSERT(sus.untouched());
  }
}

void FuzzLegacy(Input& in) {
  unsigned char buf[k::kLegacyAddressWatchMaxBytes + 64];
  std::memset(buf, 0xA5, sizeof(buf));
  const size_t cap = in.Bool() ? sizeof(buf) : in.U8();
  k::LegacyWaveControl wc{in.U32(), in.U8() % 7u, in.U8() % 5u, in.U32(), in.U64(), in.U64()};
  Poisoned<size_t> bytes;
  if (k::BuildLegacyWaveControl(wc, buf, cap, &bytes.v).ok()) {
    HKE_FUZZ_ASSERT(bytes.v == k::kLegacyWaveControlBytes && bytes.v <= cap);
    k::DbgWaveControlArgs h{};
    std::memcpy(&h, buf, sizeof(h));
    HKE_FUZZ_ASSERT(h.buf_size_in_bytes == bytes.v && h.gpu_id == wc.gpu_id);
    HKE_FUZZ_ASSERT(h.content_ptr == reinterpret_cast<uintptr_t>(buf + sizeof(h)));
    HKE_FUZZ_ASSERT(AllA5(buf + bytes.v, sizeof(buf) - bytes.v));
  } else {
    HKE_FUZZ_ASSERT(bytes.untouched() && AllA5(buf, sizeof(buf)));
  }

  std::memset(buf, 0xA5, sizeof(buf));
  uint32_t modes[k::kLegacyMaxWatchPoints + 1];
  uint64_t addrs[k::kLegacyMaxWatchPoints + 1];
  uint64_t masks[k::kLegacyMaxWatchPoints + 1];
  uint64_t events[k::kLegacyMaxWatchPoints + 1];
  const uint32_t n = in.U8() % (k::kLegacyMaxWatchPoints + 2);
  for (uint32_t i = 0; i < n; ++i) {
    modes[i] = in.U8() % 5u;
    addrs[i] = in.U64();
    masks[i] = in.U64();
    events[i] = in.U64();
  }
  k::LegacyAddressWatch aw{};
  aw.gpu_id = in.U32();
  aw.count = n;
  aw.modes = modes;
  aw.addresses = addrs;
  aw.masks = masks;
  aw.mask_items = in.Bool() ? n : (in.Bool() ? 1u : in.U8());
  aw.events = in.Bool() ? events : nullptr;
  aw.event_items = in.Bool() ? n : 0;
  const size_t cap2 = in.Bool() ? sizeof(buf) : in.U32() % sizeof(buf);
  Poisoned<size_t> wbytes;
  if (k::BuildLegacyAddressWatch(aw, buf, cap2, &wbytes.v).ok()) {
    size_t expect = 0;
    HKE_FUZZ_ASSERT(k::LegacyAddressWatchBytes(n, aw.mask_items, aw.event_items, &expect).ok());
    HKE_FUZZ_ASSERT(wbytes.v == expect && expect <= cap2 &&
                    expect <= k::kLegacyAddressWatchMaxBytes);
    HKE_FUZZ_ASSERT(n >= 1 && n <= k::kLegacyMaxWatchPoints);
    k::DbgAddressWatchArgs h{};
    std::memcpy(&h, buf, sizeof(h));
    HKE_FUZZ_ASSERT(h.buf_size_in_bytes == expect);
    uint32_t packed_n = 0;
    std::memcpy(&packed_n, buf + sizeof(h), 4);
    HKE_FUZZ_ASSERT(packed_n == n);
    HKE_FUZZ_ASSERT(AllA5(buf + expect, sizeof(buf) - expect));
  } else {
    HKE_FUZZ_ASSERT(wbytes.untouched() && AllA5(buf, sizeof(buf)));
  }
  // The size helper is exact for every count, however large.
  const uint32_t a = in.U32();
  const uint32_t b = in.U32();
  const uint32_t c = in.U32();
  Poisoned<size_t> sz;
  if (k::LegacyAddressWatchBytes(a, b, c, &sz.v).ok()) {
    const unsigned __int128 want = 20 + static_cast<unsigned __int128>(a) * 12 +
                                   static_cast<unsigned __int128>(b) * 8 +
                                   static_cast<unsigned __int128>(c) * 8;
    HKE_FUZZ_ASSERT(static_cast<unsigned __int128>(sz.v) == want);
  } else {
    HKE_FUZZ_ASSERT(sz.untouched());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  switch (in.U8() % 3) {
    case 0:
      FuzzPolicyClockTrap(in);
      break;
    case 1:
      FuzzDbgTrap(in);
      break;
    default:
      FuzzLegacy(in);
      break;
  }
  return 0;
}
