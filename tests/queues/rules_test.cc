// The pure queue rules: CWSR and EOP sizes, priority and type mapping, ring
// checks, doorbell slices and the HSA_QUEUEID encoding.
#include <doctest/doctest.h>

#include <cstdint>

#include "lib/kfd/abi.h"
#include "lib/queues/queues.h"

namespace q = hke::queues;
namespace k = hke::kfd;

namespace {

uint64_t PageAlign(uint64_t v) { return (v + 4095) / 4096 * 4096; }

q::NodeFacts Mi210() {
  q::NodeFacts f{};
  f.gfx_version = 90010;      // gfx90a
  f.num_fcompute_cores = 416;  // 104 CUs x 4 SIMDs
  f.num_simd_per_cu = 4;
  f.num_xcc = 1;
  f.num_shader_banks = 8;
  f.num_arrays = 1;
  f.lds_size_kb = 64;
  f.num_sdma_engines = 2;
  f.num_sdma_xgmi_engines = 3;
  return f;
}

}  // namespace

TEST_CASE("CWSR sizes follow the pre-gfx10 rule: waves capped by shader banks, 8-byte control-stack entries, large VGPR files on gfx90a") {
  q::CwsrSizes s{};
  REQUIRE(q::ComputeCwsr(Mi210(), 4096, &s).ok());
  const uint64_t cu = 104;
  const uint64_t waves = cu * 40 < 8 * 512 ? cu * 40 : 8 * 512;  // 4096 (the bank cap)
  CHECK(s.waves == waves);
  CHECK(s.ctl_stack_size == PageAlign(40 + waves * 8 + 8));
  CHECK(s.wg_data_size == PageAlign(cu * (0x80000 + 0x4000 + 64 * 1024 + 0x1000)));
  CHECK(s.per_xcc_size == s.ctl_stack_size + s.wg_data_size);
  CHECK(s.debug_size == waves * 32);
  CHECK(s.total_size == PageAlign(s.per_xcc_size + s.debug_size));
}

TEST_CASE("CWSR sizes on gfx10+: 32 waves per CU, 12-byte entries, the gfx10 control-stack cap, gfx1100's VGPR size, per-XCC scaling") {
  q::NodeFacts f{};
  f.gfx_version = 100300;  // gfx1030
  f.num_fcompute_cores = 160;
  f.num_simd_per_cu = 2;
  f.num_xcc = 1;
  f.lds_size_kb = 64;
  q::CwsrSizes s{};
  REQUIRE(q::ComputeCwsr(f, 4096, &s).ok());
  CHECK(s.waves == 80 * 32);
  CHECK(s.ctl_stack_size == 0x7000);  // 40 + 2560*12 + 8 rounds to 0x8000, capped
  CHECK(s.wg_data_size == PageAlign(80ull * (0x40000 + 0x4000 + 65536 + 0x1000)));

  f.gfx_version = 110000;  // gfx1100: no cap, 0x60000 VGPR
  REQUIRE(q::ComputeCwsr(f, 4096, &s).ok());
  CHECK(s.ctl_stack_size == PageAlign(40 + 2560 * 12 + 8));
  CHECK(s.wg_data_size == PageAlign(80ull * (0x60000 + 0x4000 + 65536 + 0x1000)));

  q::NodeFacts x = Mi210();
  x.gfx_version = 90402;
  x.num_fcompute_cores = 4 * 4 * 38;  // 4 XCCs of 38 CUs
  x.num_xcc = 4;
  x.num_shader_banks = 16;
  x.num_arrays = 4;
  q::CwsrSizes one{};
  REQUIRE(q::ComputeCwsr(x, 4096, &one).ok());
  CHECK(one.waves == 38 * 40);
  CHECK(one.total_size == PageAlign(uint64_t{one.per_xcc_size + one.debug_size} * 4));
}

TEST_CASE("CWSR sizes refuse facts that cannot describe a GPU and leave the output alone") {
  q::CwsrSizes s{};
  s.waves = 77;
  q::NodeFacts f = Mi210();
  f.num_simd_per_cu = 0;
  CHECK_FALSE(q::ComputeCwsr(f, 4096, &s).ok());
  f = Mi210();
  f.num_fcompute_cores = 0;
  CHECK_FALSE(q::ComputeCwsr(f, 4096, &s).ok());
  f = Mi210();
  f.num_xcc = 1000;  // fewer CUs than XCCs
  CHECK_FALSE(q::ComputeCwsr(f, 4096, &s).ok());
  f = Mi210();
  f.num_arrays = 0;  // pre-gfx10 needs the bank ratio
  CHECK_FALSE(q::ComputeCwsr(f, 4096, &s).ok());
  CHECK_FALSE(q::ComputeCwsr(Mi210(), 4095, &s).ok());
  f = Mi210();
  f.lds_size_kb = 0xFFFFFFFFu;  // the work-group data no longer fits 32 bits
  CHECK(q::ComputeCwsr(f, 4096, &s).is_api(HKE_STATUS_OVERFLOW));
  CHECK(s.waves == 77);
}

TEST_CASE("EOP buffers: 4 KiB for compute from gfx8, 32 KiB on Tonga, none for SDMA, older GPUs and gfx94x AQL") {
  CHECK(q::EopBufferSize(90010, k::kQueueTypeComputeAql) == 4096);
  CHECK(q::EopBufferSize(90010, k::kQueueTypeCompute) == 4096);
  CHECK(q::EopBufferSize(80002, k::kQueueTypeComputeAql) == 32 * 1024);
  CHECK(q::EopBufferSize(70000, k::kQueueTypeComputeAql) == 0);
  CHECK(q::EopBufferSize(90010, k::kQueueTypeSdma) == 0);
  CHECK(q::EopBufferSize(90402, k::kQueueTypeComputeAql) == 0);
  CHECK(q::EopBufferSize(90402, k::kQueueTypeCompute) == 4096);
  CHECK(q::HasCwsr(80001));
  CHECK_FALSE(q::HasCwsr(80000));
}

TEST_CASE("priorities -3..3 map to the kernel's 0,3,5,7,9,11,15 and nothing else maps") {
  const int64_t in[] = {-3, -2, -1, 0, 1, 2, 3};
  const uint32_t want[] = {0, 3, 5, 7, 9, 11, 15};
  for (int i = 0; i < 7; ++i) {
    uint32_t out = 99;
    CHECK(q::PriorityToKfd(in[i], &out));
    CHECK(out == want[i]);
  }
  uint32_t out = 99;
  CHECK_FALSE(q::PriorityToKfd(4, &out));
  CHECK_FALSE(q::PriorityToKfd(-4, &out));
  CHECK_FALSE(q::PriorityToKfd(0xFFFFFFFF, &out));
  CHECK(out == 99);
}

TEST_CASE("queue types: SDMA_BY_ENG_ID only through the Ext call; multimedia and OS kinds are refused") {
  uint32_t t = 0;
  CHECK((q::TypeToKfd(HSA_QUEUE_COMPUTE_AQL, false, &t).ok() && t == k::kQueueTypeComputeAql));
  CHECK((q::TypeToKfd(HSA_QUEUE_SDMA_XGMI, false, &t).ok() && t == k::kQueueTypeSdmaXgmi));
  CHECK_FALSE(q::TypeToKfd(HSA_QUEUE_SDMA_BY_ENG_ID, false, &t).ok());
  CHECK((q::TypeToKfd(HSA_QUEUE_SDMA_BY_ENG_ID, true, &t).ok() && t == k::kQueueTypeSdmaByEngId));
  CHECK_FALSE(q::TypeToKfd(HSA_QUEUE_MULTIMEDIA_DECODE, true, &t).ok());
  CHECK_FALSE(q::TypeToKfd(HSA_QUEUE_COMPUTE_OS, true, &t).ok());
  CHECK_FALSE(q::TypeToKfd(HSA_QUEUE_DMA_AQL, true, &t).ok());
}

TEST_CASE("ring checks: non-null, 256-byte aligned, a power of two from 1 KiB to 2 GiB, no wrap; Update may disable") {
  CHECK(q::CheckRing(0x10000, 4096, false).ok());
  CHECK(q::CheckRing(0x10000, 1024, false).ok());
  CHECK_FALSE(q::CheckRing(0x10000, 512, false).ok());   // the kernel would round it up to 1 KiB
  CHECK_FALSE(q::CheckRing(0x10000, 3000, false).ok());
  CHECK_FALSE(q::CheckRing(0x10080, 4096, false).ok());
  CHECK_FALSE(q::CheckRing(0, 4096, false).ok());
  CHECK_FALSE(q::CheckRing(0, 0, false).ok());
  CHECK(q::CheckRing(0, 0, true).ok());
  CHECK(q::CheckRing(0x10000, 1ull << 33, false).is_api(HKE_STATUS_OUT_OF_RANGE));
  CHECK(q::CheckRing(0xFFFFFFFFFFFFF000ull, 1ull << 16, false).is_api(HKE_STATUS_OVERFLOW));
}

TEST_CASE("doorbell slices: 8-byte doorbells from gfx9, 4-byte before, at least a page") {
  CHECK(q::DoorbellBytes(90010) == 8);
  CHECK(q::DoorbellBytes(80003) == 4);
  CHECK(q::DoorbellSliceSize(90010, 4096) == 8192);
  CHECK(q::DoorbellSliceSize(80003, 4096) == 4096);
  CHECK(q::DoorbellSliceSize(80003, 65536) == 65536);
}

TEST_CASE("queue ids round-trip slot and generation, are never 0 and refuse foreign values") {
  uint32_t slot = 0, gen = 0;
  const uint64_t id = q::EncodeQueueId(1023, 0xABCDE);
  CHECK(id != 0);
  REQUIRE(q::DecodeQueueId(id, &slot, &gen));
  CHECK(slot == 1023);
  CHECK(gen == 0xABCDE);
  CHECK(q::EncodeQueueId(0, 1) != q::EncodeQueueId(0, 2));
  CHECK_FALSE(q::DecodeQueueId(0, &slot, &gen));
  CHECK_FALSE(q::DecodeQueueId(0x00007f0012345678ull, &slot, &gen));  // a pointer
  CHECK_FALSE(q::DecodeQueueId(q::kQueueIdTag << 48, &slot, &gen));     // slot field 0
}
