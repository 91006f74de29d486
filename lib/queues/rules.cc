// Pure queue rules: CWSR sizes, EOP sizes, priority and type mapping, ring
// checks, doorbell slice sizes and the HSA_QUEUEID encoding.
//
// CWSR facts (upstream queues.c and the kernel's kfd_queue.c agree):
//   cu_num     = NumFComputeCores / NumSIMDPerCU / NumXcc
//   waves      = gfx10+: cu_num * 32; before: min(cu_num * 40,
//                NumShaderBanks / NumArrays * 512)
//   ctl stack  = page_align(40-byte header + waves * (12 from gfx10, else
//                8) + 8), at most 0x7000 on gfx10.x
//   wg data    = cu_num * (VGPR + 0x4000 SGPR + LDS KiB * 1024 + 0x1000
//                HW registers); VGPR per CU 0x40000, 0x80000 on gfx908,
//                gfx90a, gfx94x and gfx950, 0x60000 on gfx1100, gfx1101,
//                gfx1200 and gfx1201
//   debug      = align64(waves * 32)
//   per XCC    = ctl stack + page_align(wg data)
//   total      = (per XCC + debug) * NumXcc
#include "lib/core/checked.h"
#include "lib/kfd/abi.h"
#include "lib/queues/queues.h"

namespace hke::queues {

namespace {

constexpr uint32_t kCwsrHeaderBytes = 40;
constexpr uint32_t kSgprBytes = 0x4000;
constexpr uint32_t kHwRegBytes = 0x1000;
constexpr uint32_t kGfx10CtlStackCap = 0x7000;

uint32_t Major(uint32_t v) { return v / 10000; }
uint32_t Minor(uint32_t v) { return (v / 100) % 100; }
uint32_t Step(uint32_t v) { return v % 100; }

uint64_t VgprPerCu(uint32_t v) {
  const uint32_t major = Major(v);
  const uint32_t minor = Minor(v);
  const uint32_t step = Step(v);
  if (major == 9) {
    if (minor == 0 && (step == 8 || step == 10)) return 0x80000;  // gfx908, gfx90a
    if (minor == 4 || minor == 5) return 0x80000;                 // gfx94x, gfx950
  }
  if ((major == 11 && minor == 0 && (step == 0 || step == 1)) ||
      (major == 12 && minor == 0 && (step == 0 || step == 1))) {
    return 0x60000;
  }
  return 0x40000;
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

bool HasCwsr(uint32_t gfx_version) { return gfx_version >= 80001; }

Status ComputeCwsr(const NodeFacts& f, uint32_t page_size, CwsrSizes* out) {
  if (out == nullptr || !IsPowerOfTwo(page_size)) return InvalidArgument();
  const uint32_t xcc = f.num_xcc == 0 ? 1 : f.num_xcc;
  if (f.num_fcompute_cores == 0 || f.num_simd_per_cu == 0) return InvalidArgument();
  const uint32_t cu_num = f.num_fcompute_cores / f.num_simd_per_cu / xcc;
  if (cu_num == 0) return InvalidArgument();
  const bool gfx10_plus = Major(f.gfx_version) >= 10;

  uint64_t waves = uint64_t{cu_num} * (gfx10_plus ? 32u : 40u);
  if (!gfx10_plus) {
    if (f.num_arrays == 0) return InvalidArgument();
    const uint64_t cap = uint64_t{f.num_shader_banks / f.num_arrays} * 512u;
    if (cap < waves) waves = cap;
  }
  if (waves == 0) return InvalidArgument();

  const uint64_t page = page_size;
  uint64_t ctl = 0;
  if (!CheckedMul<uint64_t>(waves, gfx10_plus ? 12u : 8u, &ctl) ||
      !CheckedAdd<uint64_t>(ctl, kCwsrHeaderBytes + 8u, &ctl) ||
      !CheckedAlignUp<uint64_t>(ctl, page, &ctl)) {
    return Overflow();
  }
  if (Major(f.gfx_version) == 10 && ctl > kGfx10CtlStackCap) ctl = kGfx10CtlStackCap;

  uint64_t per_cu = 0;
  uint64_t wg = 0;
  if (!CheckedMul<uint64_t>(f.lds_size_kb, 1024u, &per_cu) ||
      !CheckedAdd<uint64_t>(per_cu, VgprPerCu(f.gfx_version) + kSgprBytes + kHwRegBytes, &per_cu) ||
      !CheckedMul<uint64_t>(per_cu, cu_num, &wg) || !CheckedAlignUp<uint64_t>(wg, page, &wg)) {
    return Overflow();
  }
  uint64_t debug = 0;
  if (!CheckedMul<uint64_t>(waves, 32u, &debug) || !CheckedAlignUp<uint64_t>(debug, 64u, &debug)) {
    return Overflow();
  }
  uint64_t per_xcc = 0;
  uint64_t total = 0;
  if (!CheckedAdd(ctl, wg, &per_xcc) || !CheckedAdd(per_xcc, debug, &total) ||
      !CheckedMul<uint64_t>(total, xcc, &total) || !CheckedAlignUp<uint64_t>(total, page, &total)) {
    return Overflow();
  }
  CwsrSizes s{};
  if (!CheckedCast(waves, &s.waves) || !CheckedCast(ctl, &s.ctl_stack_size) ||
      !CheckedCast(wg, &s.wg_data_size) || !CheckedCast(per_xcc, &s.per_xcc_size) ||
      !CheckedCast(debug, &s.debug_size)) {
    return Overflow();
  }
  s.total_size = total;
  *out = s;
  return Status::Ok();
}

uint32_t EopBufferSize(uint32_t gfx_version, uint32_t kfd_queue_type) {
  if (kfd_queue_type != kfd::kQueueTypeCompute && kfd_queue_type != kfd::kQueueTypeComputeAql) {
    return 0;
  }
  if (Major(gfx_version) < 8) return 0;
  if (gfx_version == 80002) return 32 * 1024;  // Tonga
  if (Major(gfx_version) == 9 && Minor(gfx_version) == 4 &&
      kfd_queue_type == kfd::kQueueTypeComputeAql) {
    return 0;
  }
  return 4096;
}

bool PriorityToKfd(int64_t priority, uint32_t* out) {
  static constexpr uint32_t kMap[7] = {0, 3, 5, 7, 9, 11, 15};
  if (out == nullptr || priority < -3 || priority > 3) return false;
  *out = kMap[priority + 3];
  return true;
}

Status TypeToKfd(uint32_t hsa_type, bool ext, uint32_t* out) {
  if (out == nullptr) return InvalidArgument();
  switch (hsa_type) {
    case HSA_QUEUE_COMPUTE: *out = kfd::kQueueTypeCompute; return Status::Ok();
    case HSA_QUEUE_SDMA: *out = kfd::kQueueTypeSdma; return Status::Ok();
    case HSA_QUEUE_SDMA_XGMI: *out = kfd::kQueueTypeSdmaXgmi; return Status::Ok();
    case HSA_QUEUE_COMPUTE_AQL: *out = kfd::kQueueTypeComputeAql; return Status::Ok();
    case HSA_QUEUE_SDMA_BY_ENG_ID:
      if (!ext) return InvalidArgument();
      *out = kfd::kQueueTypeSdmaByEngId;
      return Status::Ok();
    default: return InvalidArgument();
  }
}

Status CheckRing(uint64_t address, uint64_t size, bool allow_disable) {
  if (allow_disable && address == 0 && size == 0) return Status::Ok();
  if (address == 0 || (address & 0xFFu) != 0) return InvalidArgument();
  if (!IsPowerOfTwo(size) || size < kfd::kMinQueueRingSize) return InvalidArgument();
  if (size > (uint64_t{1} << 31)) return OutOfRange();  // CREATE_QUEUE's ring_size is a u32
  uint64_t end = 0;
  if (!CheckedAdd(address, size, &end)) return Overflow();
  return Status::Ok();
}

uint64_t DoorbellSliceSize(uint32_t gfx_version, uint32_t page_size) {
  const uint64_t bytes = uint64_t{DoorbellBytes(gfx_version)} * 1024u;
  return bytes > page_size ? bytes : page_size;
}

uint64_t EncodeQueueId(uint32_t slot, uint32_t generation) {
  return EncodeHandle(kQueueIdFormat, slot, generation);
}

bool DecodeQueueId(uint64_t id, uint32_t* out_slot, uint32_t* out_generation) {
  return DecodeHandle(kQueueIdFormat, id, out_slot, out_generation);
}

}  // namespace hke::queues
