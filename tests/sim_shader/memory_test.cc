// The memory instruction classes of the simulated shader cores, each on one
// memory kind, run on every gfx9-family board through the library's API:
// scalar loads/stores on VRAM (kernels/smem.s), FLAT on registered user
// memory (flat_userptr.s), wave accesses to one block on GTT and user
// memory (block_access.s), GLOBAL atomics on GTT (atomics.s), the LDS
// (lds.s), scratch in the queue's scratch backing (scratch.s), MUBUF on GTT
// (mubuf.s), and AGPRs (agpr.s).
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/sim_shader/boards.h"
#include "tests/sim_shader/shader_rig.h"

namespace {

using shadertest::Launch;
using shadertest::ShaderRig;
using shadertest::Va;

template <typename Args>
Launch WithArgs(const Args& a, uint8_t (&buf)[256]) {
  std::memset(buf, 0, sizeof(buf));
  std::memcpy(buf, &a, sizeof(a));
  Launch l;
  l.kernarg = buf;
  return l;
}

// Anonymous pages registered and mapped for the rig's GPU (GPU VA = host
// address); DropUserPages unmaps, deregisters and frees them.
uint8_t* UserPages(const ShaderRig& rig, size_t bytes) {
  auto* mem = static_cast<uint8_t*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(mem != MAP_FAILED);
  REQUIRE(hsaKmtRegisterMemory(mem, bytes) == HSAKMT_STATUS_SUCCESS);
  uint32_t node = rig.node();
  REQUIRE(hsaKmtMapMemoryToGPUNodes(mem, bytes, nullptr, HsaMemMapFlags{}, 1, &node) == HSAKMT_STATUS_SUCCESS);
  return mem;
}

void DropUserPages(uint8_t* mem, size_t bytes) {
  CHECK(hsaKmtUnmapMemoryToGPU(mem) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDeregisterMemory(mem) == HSAKMT_STATUS_SUCCESS);
  munmap(mem, bytes);
}

}  // namespace

TEST_CASE("SMEM: scalar loads of every width, SGPR and negative offsets, a V# range check and a scalar store on VRAM") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    auto* table = static_cast<uint32_t*>(rig.Vram(4096));
    auto* out = static_cast<uint32_t*>(rig.Vram(4096));
    for (uint32_t i = 0; i < 64; ++i) table[i] = 0xC0DE0000u + i * 3;
    std::memset(out, 0xEE, 4096);
    struct {
      uint64_t table, out;
    } args{Va(table), Va(out)};
    uint8_t ka[256];
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kSmem, "smem"), WithArgs(args, ka)));
    CHECK(out[0] == table[0]);
    CHECK(out[1] == table[1]);
    CHECK(out[2] == table[6]);
    CHECK(out[3] == table[15]);
    CHECK(out[4] == table[16]);
    CHECK(out[5] == table[23]);
    CHECK(out[6] == table[30]);  // bytes 120..127 are inside the 128-byte V#
    CHECK(out[7] == table[31]);
    CHECK(out[8] == 0u);         // bytes 128..135 are outside: read as 0
    CHECK(out[9] == 0u);
    CHECK(out[10] == table[2]);  // SGPR offset 8
    CHECK(out[11] == table[2]);  // base + 16, offset -8
    CHECK(out[12] == 1u);        // s_memrealtime does not go back
    CHECK(out[13] == 1u);        // s_memtime is running
    CHECK(out[14] == 0x5a5au);   // s_store_dword
  }
}

TEST_CASE("FLAT on registered user memory: every load and store width, sign/zero extension, d16 halves, unaligned stores") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    constexpr size_t kBytes = 64 * 96 + 4096;
    uint8_t* mem = UserPages(rig, 2 * kBytes);
    uint8_t* in = mem;
    uint8_t* out = mem + kBytes;
    for (size_t i = 0; i < 64 * 16; ++i) in[i] = static_cast<uint8_t>(i * 37 + 0x81);
    std::memset(out, 0xCC, 64 * 96);
    struct {
      uint64_t in, out;
    } args{Va(in), Va(out)};
    uint8_t ka[256];
    Launch l = WithArgs(args, ka);
    l.grid[0] = 64;
    l.wg[0] = 64;
    const bool ran = rig.Dispatch(rig.Load(shadertest::kFlatUserptr, "flat_userptr"), l);
    std::string why;
    rig.QueueStatus(&why);
    INFO(why);
    REQUIRE(ran);
    uint32_t bad = 0;
    for (uint32_t t = 0; t < 64; ++t) {
      const uint8_t* r = in + 16 * t;
      const uint8_t* o = out + 96 * t;
      auto u32 = [](const uint8_t* p) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
      };
      auto u16 = [](const uint8_t* p) { return static_cast<uint32_t>(p[0] | p[1] << 8); };
      std::vector<std::pair<uint32_t, uint32_t>> checks = {
          {u32(o + 0), u32(r + 0)},
          {u32(o + 12), u32(r + 12)},
          {u32(o + 16), r[1]},
          {u32(o + 20), static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(r[2])))},
          {u32(o + 24), u16(r + 4)},
          {u32(o + 28), static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(u16(r + 6))))},
          {u32(o + 32), u32(r + 4)},
          {u32(o + 40), u32(r + 12)},
          {u32(o + 44), (u16(r + 8) << 16) | 0x2222u},
          {u32(o + 48), 0x33330000u | r[3]},
          {o[52], r[0]},
          {u16(o + 54), u16(r + 4)},
          {u16(o + 56), u16(r + 10)},
          {u32(o + 58), u32(r + 8)},
          {u32(o + 62) & 0xFFFF, u16(r + 12)},
      };
      for (size_t i = 0; i < checks.size(); ++i) {
        if (checks[i].first != checks[i].second && ++bad <= 8) {
          CAPTURE(t);
          CAPTURE(i);
          CHECK(checks[i].first == checks[i].second);
        }
      }
    }
    CHECK(bad == 0);
    DropUserPages(mem, 2 * kBytes);
  }
}

TEST_CASE("FLAT wave accesses to one gap-free block give per-lane results on GTT and user memory: sub-dword widths, runs of lanes, inactive lanes untouched") {
  constexpr size_t kIn = 512, kOut = 1408;
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    // GTT (a host-mapped BO) and registered user pages (the simulator's
    // checked-copy path) must give the same bytes.
    for (int user = 0; user < 2; ++user) {
      CAPTURE(user);
      constexpr size_t kBytes = 8192;
      uint8_t* mem = user ? UserPages(rig, kBytes) : static_cast<uint8_t*>(rig.Gtt(kBytes));
      uint8_t* in = mem;
      uint8_t* out = mem + 4096;
      for (size_t i = 0; i < kIn; ++i) in[i] = static_cast<uint8_t>(i * 73 + 0x95);
      std::memset(out, 0xCC, kOut);
      struct {
        uint64_t in, out;
      } args{Va(in), Va(out)};
      uint8_t ka[256];
      Launch l = WithArgs(args, ka);
      l.grid[0] = 64;
      l.wg[0] = 64;
      const bool ran = rig.Dispatch(rig.Load(shadertest::kBlockAccess, "block_access"), l);
      std::string why;
      rig.QueueStatus(&why);
      INFO(why);
      REQUIRE(ran);
      auto u32 = [&](size_t off) {
        uint32_t v;
        std::memcpy(&v, out + off, 4);
        return v;
      };
      auto in16 = [&](size_t i) { return static_cast<uint16_t>(in[2 * i] | in[2 * i + 1] << 8); };
      auto out16 = [&](size_t off) { return static_cast<uint16_t>(out[off] | out[off + 1] << 8); };
      uint32_t bad = 0;
      for (uint32_t g = 0; g < 64; ++g) {
        const std::vector<std::pair<uint32_t, uint32_t>> checks = {
            {u32(4 * g), in[g]},
            {u32(256 + 4 * g), static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(in[64 + g])))},
            {u32(512 + 4 * g), in16(64 + g)},
            {u32(768 + 4 * g), static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(in16(128 + g))))},
            {out[1024 + g], in[g]},
            {out16(1088 + 2 * g), in16(64 + g)},
            {out[1216 + g], g < 37 ? in[64 + g] : 0xCCu},
            {out[1280 + g], g > 20 ? in[200 + g] : 0xCCu},
            {out[1344 + g], g % 2 == 0 ? in[g] : 0xCCu},
        };
        for (size_t i = 0; i < checks.size(); ++i) {
          if (checks[i].first != checks[i].second && ++bad <= 8) {
            CAPTURE(g);
            CAPTURE(i);
            CHECK(checks[i].first == checks[i].second);
          }
        }
      }
      CHECK(bad == 0);
      if (user) DropUserPages(mem, kBytes);
    }
  }
}

TEST_CASE("GLOBAL atomics on GTT from 256 work-items: add returns distinct old values, umax, or, inc wraps, 64-bit add, cmpswap claims") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    auto* counters = static_cast<uint32_t*>(rig.Gtt(4096));
    auto* olds = static_cast<uint32_t*>(rig.Gtt(4096));
    auto* slots = static_cast<uint32_t*>(rig.Gtt(4096));
    counters[0] = 1000;
    counters[4] = 0xFFFFFFFFu;  // the 64-bit add carries into counters[5]
    struct {
      uint64_t counters, olds, slots;
    } args{Va(counters), Va(olds), Va(slots)};
    uint8_t ka[256];
    Launch l = WithArgs(args, ka);
    l.grid[0] = 256;
    l.wg[0] = 64;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kAtomics, "atomics"), l));
    CHECK(counters[0] == 1256u);
    CHECK(counters[1] == 255u);
    CHECK(counters[2] == 0xFFFFFFFFu);
    CHECK(counters[3] == 256u % 10u);
    CHECK(counters[4] == 255u);
    CHECK(counters[5] == 1u);
    std::vector<uint32_t> got(olds, olds + 256);
    std::sort(got.begin(), got.end());
    for (uint32_t i = 0; i < 256; ++i) {
      if (got[i] != 1000 + i) {
        CAPTURE(i);
        CHECK(got[i] == 1000 + i);
        break;
      }
    }
    for (uint32_t g = 0; g < 256; ++g) {
      CAPTURE(g);
      // slot g ^ 1 was 0 when g claimed it; it now holds g + 1.
      if (olds[256 + g] != 0u || slots[g ^ 1] != g + 1) {
        CHECK(olds[256 + g] == 0u);
        CHECK(slots[g ^ 1] == g + 1);
      }
    }
  }
}

TEST_CASE("LDS: one workgroup of four waves shares its LDS across s_barrier; DS atomics, read2, b128, bpermute, swizzle and FLAT through the shared aperture") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    auto* out = static_cast<uint32_t*>(rig.Gtt(256 * 32));
    struct {
      uint64_t out;
    } args{Va(out)};
    uint8_t ka[256];
    Launch l = WithArgs(args, ka);
    l.grid[0] = 256;
    l.wg[0] = 256;
    l.group_segment = 9216;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kLds, "lds"), l));
    uint32_t bad = 0;
    for (uint32_t t = 0; t < 256; ++t) {
      const uint32_t* o = out + t * 8;
      const uint32_t want[8] = {255 - t,
                                256,
                                t + 1 < 256 ? t + 1 : 0u,
                                t + 4 < 256 ? t + 4 : 0u,
                                (t & ~63u) | ((t + 1) & 63u),
                                t ^ 1u,
                                4 * t + 6000,
                                3 * t};
      for (int k = 0; k < 8; ++k) {
        if (o[k] != want[k] && ++bad <= 8) {
          CAPTURE(t);
          CAPTURE(k);
          CHECK(o[k] == want[k]);
        }
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("scratch: SCRATCH, MUBUF on the private segment buffer and FLAT through the private aperture share the queue's swizzled scratch backing") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    // The queue's scratch backing, described in amd_queue_t as ROCR does.
    constexpr uint64_t kScratch = 64 * 1024;
    auto* scratch = static_cast<uint32_t*>(rig.Vram(kScratch));
    std::memset(scratch, 0, kScratch);
    shadertest::AmdQueue* q = rig.amd_queue();
    const uint64_t base = Va(scratch);
    q->scratch_backing_memory_location = base;
    q->scratch_backing_memory_byte_size = kScratch;
    q->scratch_resource_descriptor[0] = static_cast<uint32_t>(base);
    q->scratch_resource_descriptor[1] = static_cast<uint32_t>(base >> 32) | (1u << 31);
    q->scratch_resource_descriptor[2] = static_cast<uint32_t>(kScratch);
    q->scratch_resource_descriptor[3] = (1u << 19) | (3u << 21) | (1u << 23);
    auto* out = static_cast<uint32_t*>(rig.Gtt(128 * 32));
    struct {
      uint64_t out;
    } args{Va(out)};
    uint8_t ka[256];
    Launch l = WithArgs(args, ka);
    l.grid[0] = 128;
    l.wg[0] = 128;
    l.private_segment = 64;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kScratch, "scratch"), l));
    uint32_t bad = 0;
    for (uint32_t t = 0; t < 128; ++t) {
      const uint32_t* o = out + t * 8;
      const uint32_t p = t * 100;
      const uint32_t want[5] = {p + 15, p + 3, 4 * p + 4 + 5 + 6 + 7, 0x777, p + 2};
      for (int k = 0; k < 5; ++k) {
        if (o[k] != want[k] && ++bad <= 8) {
          CAPTURE(t);
          CAPTURE(k);
          CHECK(o[k] == want[k]);
        }
      }
      // The backing holds private[k] of lane l of wave w at
      // w * 4 KiB + k * 256 + l * 4.
      const uint32_t wave = t / 64, lane = t % 64;
      for (uint32_t k = 0; k < 16; ++k) {
        const uint32_t v = scratch[(wave * 4096 + k * 256 + lane * 4) / 4];
        const uint32_t w = k == 12 ? 0x777u : p + k;
        if (v != w && ++bad <= 8) {
          CAPTURE(t);
          CAPTURE(k);
          CHECK(v == w);
        }
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("MUBUF on GTT: raw and structured V#s, SGPR offsets, out-of-range loads read 0 and stores are dropped, buffer atomics") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    auto* buf = static_cast<uint32_t*>(rig.Gtt(4096));
    auto* out = static_cast<uint32_t*>(rig.Gtt(64 * 32));
    for (uint32_t i = 0; i < 1024; ++i) buf[i] = 0xB0000000u + i;
    buf[200] = 50;
    struct {
      uint64_t buf, out;
    } args{Va(buf), Va(out)};
    uint8_t ka[256];
    Launch l = WithArgs(args, ka);
    l.grid[0] = 64;
    l.wg[0] = 64;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kMubuf, "mubuf"), l));
    std::vector<uint32_t> atomic_olds;
    for (uint32_t t = 0; t < 64; ++t) {
      CAPTURE(t);
      const uint32_t* o = out + t * 8;
      CHECK(o[0] == (t + 1 < 64 ? 0xB0000000u + t + 1 : 0u));
      CHECK(o[1] == 0xB0000006u);
      CHECK(o[2] == (t < 32 ? 0xB0000000u + 2 * t + 1 : 0u));
      atomic_olds.push_back(o[3]);
      CHECK(buf[128 + t] == 0xB0000000u + 128 + t);  // the out-of-range store was dropped
      CHECK(buf[256 + t] == 0x2000u + t);
    }
    CHECK(buf[200] == 114u);
    std::sort(atomic_olds.begin(), atomic_olds.end());
    CHECK(atomic_olds.front() == 50u);
    CHECK(atomic_olds.back() == 113u);
  }
}

TEST_CASE("AGPRs: v_accvgpr_write/read on gfx908+, loads into AGPRs and v_accvgpr_mov on gfx90a and gfx942") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    auto* in = static_cast<uint32_t*>(rig.Vram(4096));
    auto* out = static_cast<uint32_t*>(rig.Gtt(4096));
    for (uint32_t i = 0; i < 64; ++i) in[i] = 0xA6000000u | (i * 13);
    struct {
      uint64_t in, out;
    } args{Va(in), Va(out)};
    uint8_t ka[256];
    Launch l = WithArgs(args, ka);
    l.grid[0] = 64;
    l.wg[0] = 64;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kAgpr, "agpr"), l));
    for (uint32_t t = 0; t < 64; ++t) {
      CAPTURE(t);
      CHECK(out[2 * t] == 7 * t);
      CHECK(out[2 * t + 1] == in[t]);
    }
  }
}
