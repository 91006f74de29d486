// Fuzzes the debugger and profiling codecs: DBG_TRAP snapshot sizing and
// replies, RUNTIME_ENABLE, PC_SAMPLE and RLC_SPM. Invariants: the snapshot
// byte count equals entry_size * count computed in 64 bits or the call
// fails with OVERFLOW; a snapshot request never names more entries than
// its buffer holds; a decoded snapshot fills at most the count sent with
// entries no larger than the stride; a PC-sample create yields a nonzero
// trace id; SPM bytes_copied never exceeds the previous buffer. Nothing is
// written on failure.
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

namespace {

void FuzzSnapshots(Input& in) {
  const uint32_t entry = in.U32();
  const uint32_t count = in.U32();
  Poisoned<size_t> bytes;
  if (k::SnapshotBufferBytes(entry, count, &bytes.v).ok()) {
    HKE_FUZZ_ASSERT(static_cast<unsigned __int128>(bytes.v) ==
                    static_cast<unsigned __int128>(entry) * count);
  } else {
    HKE_FUZZ_ASSERT(bytes.untouched());
    HKE_FUZZ_ASSERT(static_cast<unsigned __int128>(entry) * count > SIZE_MAX);
  }

  const bool queues = in.Bool();
  const uint32_t n = in.Bool() ? in.U32() : in.U8();
  const uint64_t buffer = n == 0 ? 0 : in.Addr();
  const size_t room = in.Bool() ? static_cast<size_t>(in.U32()) : SIZE_MAX;
  Poisoned<k::DbgTrapArgs> out;
  const hke::Status s = queues ? k::EncodeQueueSnapshot(in.U32(), in.U64(), buffer, room, n, &out.v)
                               : k::EncodeDeviceSnapshot(in.U32(), in.U64(), buffer, room, n, &out.v);
  if (!s.ok()) {
    HKE_FUZZ_ASSERT(out.untouched());
    return;
  }
  const uint32_t sent_n = queues ? out.v.queue_snapshot.num_queues : out.v.device_snapshot.num_devices;
  const uint32_t stride = queues ? out.v.queue_snapshot.entry_size : out.v.device_snapshot.entry_size;
  HKE_FUZZ_ASSERT(static_cast<unsigned __int128>(sent_n) * stride <= room);
  k::DbgTrapArgs reply = out.v;
  if (queues) {
    reply.queue_snapshot.num_queues = in.U32();
    reply.queue_snapshot.entry_size = in.Bool() ? in.U32() : stride - in.U8() % 8;
  } else {
    reply.device_snapshot.num_devices = in.U32();
    reply.device_snapshot.entry_size = in.Bool() ? in.U32() : stride - in.U8() % 8;
  }
  if (in.U8() == 0xEE) reply.op ^= 1;
  Poisoned<k::SnapshotResult> res;
  if (k::DecodeSnapshot(out.v, reply, &res.v).ok()) {
    HKE_FUZZ_ASSERT(res.v.filled <= sent_n && res.v.filled <= res.v.available);
    HKE_FUZZ_ASSERT(res.v.entry_size <= stride);
  } else {
    HKE_FUZZ_ASSERT(res.untouched());
  }
}

void FuzzRuntimeAndProfiling(Input& in) {
  Poisoned<k::RuntimeEnableArgs> re;
  const uint32_t mode = in.U8() % 8;
  if (k::EncodeRuntimeEnable(in.U64(), mode, &re.v).ok()) {
    HKE_FUZZ_ASSERT((re.v.mode_mask & ~k::kRuntimeEnableModeKnownMask) == 0);
    k::RuntimeEnableArgs reply = re.v;
    reply.capabilities_mask = in.U32();
    if (in.U8() == 1) reply.mode_mask ^= 2;
    Poisoned<uint32_t> caps;
    if (!k::DecodeRuntimeEnable(re.v, reply, &caps.v).ok()) HKE_FUZZ_ASSERT(caps.untouched());
  } else {
    HKE_FUZZ_ASSERT(re.untouched());
  }

  k::PcSampleRequest p{in.U8() % 6u, in.U8() % 2u, in.Addr(), in.U32() % 80, in.U32() % 3,
                       in.U32() % 3};
  Poisoned<k::PcSampleArgs> pcs;
  if (k::EncodePcSample(p, &pcs.v).ok()) {
    k::PcSampleArgs reply = pcs.v;
    const uint8_t shape = in.U8();
    reply.trace_id = (shape & 1) != 0 ? in.U32() : in.U32() % 4;
    reply.num_sample_info = in.U32() % 100;
    if ((shape & 2) != 0) reply.sample_info_ptr += (shape >> 2) % 3 * sizeof(k::PcSampleInfo);
    Poisoned<uint32_t> v;
    if (k::DecodePcSample(pcs.v, reply, &v.v).ok()) {
      if (p.op == k::kPcsOpCreate) {
        HKE_FUZZ_ASSERT(v.v != 0 && v.v <= k::kMaxPcSampleTraceId);
      }
      if (p.op == k::kPcsOpQueryCapabilities) HKE_FUZZ_ASSERT(v.v <= k::kMaxPcSampleInfos);
      HKE_FUZZ_ASSERT(reply.sample_info_ptr == pcs.v.sample_info_ptr ||
                      (p.op == k::kPcsOpQueryCapabilities && pcs.v.sample_info_ptr != 0 &&
                       reply.sample_info_ptr ==
                           pcs.v.sample_info_ptr + sizeof(k::PcSampleInfo)));
    } else {
      HKE_FUZZ_ASSERT(v.untouched());
    }
  } else {
    HKE_FUZZ_ASSERT(pcs.untouched());
  }
  k::PcSampleInfo info{in.U64(), in.U64(), in.U64(), in.U64(), in.U8() % 4u, in.U8() % 4u};
  Poisoned<k::PcSampleInfo> pinfo;
  if (k::DecodePcSampleInfo(info, &pinfo.v).ok()) {
    HKE_FUZZ_ASSERT(pinfo.v.interval_min <= pinfo.v.interval_max);
  } else {
    HKE_FUZZ_ASSERT(pinfo.untouched());
  }

  k::SpmRequest sr{in.U8() % 4u, in.U8() % 2u, in.Bool() ? 0 : in.Addr(), in.U32() % 70000,
                   in.U32()};
  Poisoned<k::SpmArgs> spm;
  if (k::EncodeRlcSpm(sr, &spm.v).ok()) {
    k::SpmArgs reply = spm.v;
    reply.bytes_copied = in.U32();
    reply.timeout = in.Bool() ? in.U32() : spm.v.timeout;
    const uint32_t prev = in.U32() % 70000;
    Poisoned<k::SpmResult> res;
    if (k::DecodeRlcSpm(spm.v, reply, prev, &res.v).ok()) {
      HKE_FUZZ_ASSERT(res.v.bytes_copied <= prev && res.v.remaining_ms <= spm.v.timeout);
    } else {
      HKE_FUZZ_ASSERT(res.untouched());
    }
  } else {
    HKE_FUZZ_ASSERT(spm.untouched());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  if (in.Bool()) FuzzSnapshots(in);
  else FuzzRuntimeAndProfiling(in);
  return 0;
}
