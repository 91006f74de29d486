// Fuzzes the ALLOC/MAP/UNMAP/AVAILABLE_MEMORY/GET_TILE_CONFIG codecs.
// Invariants: encoders publish only requests the kernel can accept (one
// domain bit, page-granular non-wrapping ranges, resumable map counts) and
// write nothing on failure; decoders publish only consistent replies
// (handle of the right gpu, map progress that never goes backwards or past
// n_devices, tile counts within capacity) and write nothing on failure.
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

namespace {

void FuzzAlloc(Input& in) {
  k::AllocRequest r{};
  r.gpu_id = in.U8() % 3;
  r.flags = in.U32();
  if (in.Bool()) r.flags &= k::kAllocMemKnownMask;
  r.va_addr = in.Addr();
  r.size = in.Addr();
  r.userptr = in.Bool() ? 0 : in.Addr();
  r.page_size = in.Bool() ? k::kDefaultPageSize : (uint64_t{1} << (in.U8() % 40));
  Poisoned<k::AllocMemoryOfGpuArgs> out;
  if (!k::EncodeAllocMemoryOfGpu(r, &out.v).ok()) {
    HKE_FUZZ_ASSERT(out.untouched());
    return;
  }
  const k::AllocMemoryOfGpuArgs& a = out.v;
  HKE_FUZZ_ASSERT(__builtin_popcount(a.flags & k::kAllocMemDomainMask) == 1);
  HKE_FUZZ_ASSERT((a.flags & ~k::kAllocMemKnownMask) == 0);
  HKE_FUZZ_ASSERT(a.size != 0 && a.size % r.page_size == 0 && a.va_addr % r.page_size == 0);
  HKE_FUZZ_ASSERT(a.va_addr + a.size >= a.va_addr);
  HKE_FUZZ_ASSERT(a.gpu_id != 0 && a.handle == 0);
  HKE_FUZZ_ASSERT(((a.flags & k::kAllocMemUserptr) != 0) == (a.mmap_offset != 0));

  k::AllocMemoryOfGpuArgs reply = a;
  reply.handle = in.Bool() ? (uint64_t{a.gpu_id} << 32 | in.U32()) : in.U64();
  reply.mmap_offset = in.Addr();
  Poisoned<k::AllocResult> res;
  if (k::DecodeAllocMemoryOfGpu(a, reply, &res.v).ok()) {
    HKE_FUZZ_ASSERT(k::HandleGpuId(res.v.handle) == a.gpu_id);
  } else {
    HKE_FUZZ_ASSERT(res.untouched());
  }
}

void FuzzMap(Input& in) {
  k::MapRequest r{in.Addr(), in.Addr(), in.U32() % 2000, in.U32() % 2100};
  Poisoned<k::MapMemoryToGpuArgs> out;
  if (!k::EncodeMapMemoryToGpu(r, &out.v).ok()) {
    HKE_FUZZ_ASSERT(out.untouched());
    return;
  }
  HKE_FUZZ_ASSERT(out.v.n_devices >= 1 && out.v.n_devices <= k::kMaxMapDevices);
  HKE_FUZZ_ASSERT(out.v.n_success <= out.v.n_devices);
  k::MapMemoryToGpuArgs reply = out.v;
  reply.n_success = in.Bool() ? in.U32() : in.U32() % (out.v.n_devices + 1);
  if (in.Bool()) reply.n_devices = in.U32();
  const bool ok_call = in.Bool();
  Poisoned<uint32_t> done;
  if (k::DecodeMapProgress(out.v, reply, ok_call, &done.v).ok()) {
    HKE_FUZZ_ASSERT(done.v >= out.v.n_success && done.v <= out.v.n_devices);
    HKE_FUZZ_ASSERT(!ok_call || done.v == out.v.n_devices);
  } else {
    HKE_FUZZ_ASSERT(done.untouched());
  }
  Poisoned<k::UnmapMemoryFromGpuArgs> uout;
  k::MapRequest u = r;
  u.already_done = in.U32();
  if (!k::EncodeUnmapMemoryFromGpu(u, &uout.v).ok()) HKE_FUZZ_ASSERT(uout.untouched());
}

void FuzzTileAndAvailable(Input& in) {
  k::TileConfigRequest r{in.U8() % 2u, in.Addr(), in.U32() % 5000, in.Addr(), in.U32() % 5000};
  Poisoned<k::GetTileConfigArgs> out;
  if (k::EncodeGetTileConfig(r, &out.v).ok()) {
    k::GetTileConfigArgs reply = out.v;
    reply.num_tile_configs = in.Bool() ? in.U32() : reply.num_tile_configs;
    reply.num_macro_tile_configs = in.U32() % 64;
    Poisoned<k::TileConfigResult> res;
    if (k::DecodeGetTileConfig(out.v, reply, &res.v).ok()) {
      HKE_FUZZ_ASSERT(res.v.num_tile_configs <= out.v.num_tile_configs);
      HKE_FUZZ_ASSERT(res.v.num_macro_tile_configs <= out.v.num_macro_tile_configs);
    } else {
      HKE_FUZZ_ASSERT(res.untouched());
    }
  } else {
    HKE_FUZZ_ASSERT(out.untouched());
  }
  k::GetAvailableMemoryArgs sent{};
  if (k::EncodeAvailableMemory(in.U8() % 2u, &sent).ok()) {
    k::GetAvailableMemoryArgs reply = sent;
    reply.gpu_id ^= in.U8() & 1;
    Poisoned<uint64_t> avail;
    if (!k::DecodeAvailableMemory(sent, reply, &avail.v).ok()) HKE_FUZZ_ASSERT(avail.untouched());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  switch (in.U8() % 3) {
    case 0: FuzzAlloc(in); break;
    case 1: FuzzMap(in); break;
    default: FuzzTileAndAvailable(in); break;
  }
  return 0;
}
