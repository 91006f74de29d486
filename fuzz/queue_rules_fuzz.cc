// libFuzzer harness for the queue rules of lib/queues (rules.cc): the CWSR
// size computation, the ring check, the priority map and the HSA_QUEUEID
// encoding.
//
// Input: [selector][fields...] (fuzz_input.h reads missing bytes as 0).
//
// Invariants:
//  - ComputeCwsr succeeds exactly when a 128-bit reference model of the rule
//    (queues.h, rules.cc's header) finds valid facts and every size fits its
//    field, and then gives the model's values; on failure the output is
//    untouched.
//  - CheckRing accepts exactly: (allow_disable and 0/0) or a non-null
//    256-byte aligned address with a power-of-two size in [1 KiB, 2 GiB]
//    whose end does not wrap.
//  - PriorityToKfd maps exactly -3..3, monotonically, into 0..15.
//  - DecodeQueueId(EncodeQueueId(slot, gen)) gives back slot and gen mod
//    2^20; Decode of an arbitrary value either fails or names a slot that
//    re-encodes to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "lib/queues/queues.h"

namespace {

using u128 = unsigned __int128;
namespace q = hke::queues;

void Check(bool ok) {
  if (!ok) std::abort();
}

u128 AlignUp(u128 v, u128 a) { return (v + a - 1) / a * a; }

bool Model(const q::NodeFacts& f, uint32_t page, q::CwsrSizes* out) {
  if (page == 0 || (page & (page - 1)) != 0) return false;
  const uint32_t xcc = f.num_xcc == 0 ? 1 : f.num_xcc;
  if (f.num_fcompute_cores == 0 || f.num_simd_per_cu == 0) return false;
  const uint32_t cu = f.num_fcompute_cores / f.num_simd_per_cu / xcc;
  if (cu == 0) return false;
  const uint32_t major = f.gfx_version / 10000, minor = (f.gfx_version / 100) % 100,
                 step = f.gfx_version % 100;
  const bool g10 = major >= 10;
  u128 waves = u128{cu} * (g10 ? 32 : 40);
  if (!g10) {
    if (f.num_arrays == 0) return false;
    const u128 cap = u128{f.num_shader_banks / f.num_arrays} * 512;
    if (cap < waves) waves = cap;
  }
  if (waves == 0) return false;
  u128 ctl = AlignUp(waves * (g10 ? 12 : 8) + 48, page);
  if (major == 10 && ctl > 0x7000) ctl = 0x7000;
  u128 vgpr = 0x40000;
  if (major == 9 && ((minor == 0 && (step == 8 || step == 10)) || minor == 4 || minor == 5)) {
    vgpr = 0x80000;
  }
  if ((major == 11 || major == 12) && minor == 0 && (step == 0 || step == 1)) vgpr = 0x60000;
  const u128 wg = AlignUp(u128{cu} * (vgpr + 0x4000 + u128{f.lds_size_kb} * 1024 + 0x1000), page);
  const u128 debug = AlignUp(waves * 32, 64);
  const u128 per = ctl + wg;
  const u128 total = AlignUp((per + debug) * xcc, page);
  const u128 m32 = 0xFFFFFFFFu;
  if (waves > m32 || ctl > m32 || wg > m32 || per > m32 || debug > m32 || total > UINT64_MAX) {
    return false;
  }
  out->waves = static_cast<uint32_t>(waves);
  out->ctl_stack_size = static_cast<uint32_t>(ctl);
  out->wg_data_size = static_cast<uint32_t>(wg);
  out->per_xcc_size = static_cast<uint32_t>(per);
  out->debug_size = static_cast<uint32_t>(debug);
  out->total_size = static_cast<uint64_t>(total);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hke::fuzz::Input in(data, size);
  switch (in.U8() % 4) {
    case 0: {
      q::NodeFacts f{};
      // Plausible GFX versions most of the time, anything otherwise.
      static const uint32_t kGfx[] = {80001, 80002, 90000, 90008, 90010, 90012, 90402, 90500,
                                      100100, 100300, 110000, 110001, 110002, 120000, 120001};
      const uint8_t g = in.U8();
      f.gfx_version = g < 200 ? kGfx[g % (sizeof(kGfx) / sizeof(kGfx[0]))] : in.U32();
      f.num_fcompute_cores = in.U32();
      f.num_simd_per_cu = in.U8();
      f.num_xcc = in.U8() % 17;
      f.num_shader_banks = in.U8();
      f.num_arrays = in.U8() % 9;
      f.lds_size_kb = (in.U8() & 1) ? in.U32() : in.U8();
      const uint32_t page = (in.U8() & 1) ? in.U32() : (4096u << (in.U8() % 5));
      hke::fuzz::Poisoned<q::CwsrSizes> out;
      q::CwsrSizes want{};
      const bool ok = q::ComputeCwsr(f, page, &out.v).ok();
      Check(ok == Model(f, page, &want));
      if (ok) {
        Check(out.v.waves == want.waves && out.v.ctl_stack_size == want.ctl_stack_size &&
              out.v.wg_data_size == want.wg_data_size && out.v.per_xcc_size == want.per_xcc_size &&
              out.v.debug_size == want.debug_size && out.v.total_size == want.total_size);
      } else {
        Check(out.untouched());
      }
      break;
    }
    case 1: {
      const uint64_t addr = in.Addr();
      const uint64_t sz = (in.U8() & 1) ? in.U64() : (uint64_t{1} << (in.U8() % 40));
      const bool dis = in.Bool();
      const bool ok = q::CheckRing(addr, sz, dis).ok();
      const bool pow2 = sz != 0 && (sz & (sz - 1)) == 0;
      const bool want = (dis && addr == 0 && sz == 0) ||
                        (addr != 0 && (addr & 0xFF) == 0 && pow2 && sz >= 1024 &&
                         sz <= (uint64_t{1} << 31) && addr + sz >= addr);
      Check(ok == want);
      break;
    }
    case 2: {
      const int64_t p = static_cast<int64_t>(in.U64());
      uint32_t out = 0xDEAD;
      const bool ok = q::PriorityToKfd(p, &out);
      Check(ok == (p >= -3 && p <= 3));
      if (ok) {
        Check(out <= 15);
        uint32_t next = 0;
        if (p < 3) Check(q::PriorityToKfd(p + 1, &next) && next > out);
      } else {
        Check(out == 0xDEAD);
      }
      break;
    }
    default: {
      const uint32_t slot = in.U32() % ((1u << 28) - 1);
      const uint32_t gen = in.U32();
      uint32_t s = 0, g = 0;
      const uint64_t id = q::EncodeQueueId(slot, gen);
      Check(id != 0 && q::DecodeQueueId(id, &s, &g) && s == slot && g == (gen & 0xFFFFFu));
      const uint64_t any = in.U64();
      if (q::DecodeQueueId(any, &s, &g)) Check(q::EncodeQueueId(s, g) == any);
      break;
    }
  }
  return 0;
}
