// Fuzzes the GET_PROCESS_APERTURES_NEW decoders with arbitrary replies.
// Invariants: on failure neither the output array nor the count is
// written; on success the count fits both the sent capacity and the output
// array, every published range has base <= limit, ids are nonzero and
// distinct, and published entries equal the reply entries.
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  constexpr uint32_t kCap = 8;
  const uint32_t capacity = in.U8() % (kCap + 1);
  const uint32_t out_capacity = in.U8() % (kCap + 1);
  k::GetProcessAperturesNewArgs sent{};
  if (!k::EncodeGetProcessAperturesNew(capacity ? 0x10000 : 0, capacity, &sent).ok()) {
    __builtin_trap();  // a valid request must always encode
  }
  k::GetProcessAperturesNewArgs reply = sent;
  const uint8_t mode = in.U8();
  if (mode & 1) reply.num_of_nodes = in.U32();
  else reply.num_of_nodes = in.U8() % (kCap + 2);
  if ((mode & 6) == 6) reply.kfd_process_device_apertures_ptr ^= in.U64();

  k::ProcessDeviceApertures entries[kCap];
  for (auto& e : entries) {
    e.lds_base = in.Addr();
    e.lds_limit = (mode & 8) ? e.lds_base + in.U32() : in.Addr();
    e.scratch_base = in.Addr();
    e.scratch_limit = (mode & 16) ? e.scratch_base + in.U32() : in.Addr();
    e.gpuvm_base = in.Addr();
    e.gpuvm_limit = in.Addr();
    e.gpu_id = in.U8() % 4;
    e.pad = 0;
  }

  Poisoned<k::NodeApertures[kCap]> out;
  Poisoned<uint32_t> count;
  const hke::Status s = k::DecodeGetProcessAperturesNew(sent, reply, entries, out.v,
                                                        out_capacity, &count.v);
  if (!s.ok()) {
    HKE_FUZZ_ASSERT(out.untouched());
    HKE_FUZZ_ASSERT(count.untouched());
  } else {
    HKE_FUZZ_ASSERT(count.v <= capacity && count.v <= out_capacity);
    HKE_FUZZ_ASSERT(count.v == reply.num_of_nodes);
    for (uint32_t i = 0; i < count.v; ++i) {
      const k::NodeApertures& a = out.v[i];
      HKE_FUZZ_ASSERT(a.gpu_id != 0 && a.gpu_id == entries[i].gpu_id);
      HKE_FUZZ_ASSERT(a.lds.base <= a.lds.limit && a.scratch.base <= a.scratch.limit &&
                      a.gpuvm.base <= a.gpuvm.limit);
      HKE_FUZZ_ASSERT(a.gpuvm.limit < k::kMaxGpuVaExclusive);
      HKE_FUZZ_ASSERT(a.lds.base == entries[i].lds_base &&
                      a.gpuvm.limit == entries[i].gpuvm_limit);
      for (uint32_t j = 0; j < i; ++j) HKE_FUZZ_ASSERT(out.v[j].gpu_id != a.gpu_id);
    }
    // Entries past the count are never written.
    for (uint32_t i = count.v; i < kCap; ++i) {
      unsigned char ref[sizeof(k::NodeApertures)];
      std::memset(ref, 0xA5, sizeof(ref));
      HKE_FUZZ_ASSERT(std::memcmp(&out.v[i], ref, sizeof(ref)) == 0);
    }
  }

  Poisoned<uint32_t> n;
  const uint32_t max_nodes = in.U8();
  if (k::DecodeApertureCount(reply, max_nodes, &n.v).ok()) {
    HKE_FUZZ_ASSERT(n.v >= 1 && n.v <= max_nodes);
  } else {
    HKE_FUZZ_ASSERT(n.untouched());
  }
  return 0;
}
