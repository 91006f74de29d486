// The scalar and vector ALUs of the simulated shader cores, one kernel per
// instruction class (kernels/salu.s, kernels/valu_int.s), each run on every
// gfx9-family board through the library's queue and memory API. Expected
// values are computed here from the ISA's definitions.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/sim_shader/boards.h"
#include "tests/sim_shader/shader_rig.h"

namespace {

using shadertest::Launch;
using shadertest::ShaderRig;
using shadertest::Va;

uint32_t Brev(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}
int32_t S(uint32_t v) { return static_cast<int32_t>(v); }
uint32_t Sext24(uint32_t v) { return static_cast<uint32_t>(S(v << 8) >> 8); }

std::vector<uint32_t> SaluExpected(uint32_t a, uint32_t b) {
  std::vector<uint32_t> e(34);
  const uint64_t sum = uint64_t{a} + b;
  e[0] = static_cast<uint32_t>(sum);
  e[1] = a + static_cast<uint32_t>(sum >> 32);
  e[2] = a - b;
  e[3] = b > a ? 111 : 222;
  e[4] = a * b;
  e[5] = static_cast<uint32_t>((uint64_t{a} * b) >> 32);
  const uint64_t ab = (uint64_t{b} << 32 | a) << 7;
  e[6] = static_cast<uint32_t>(ab);
  e[7] = static_cast<uint32_t>(ab >> 32);
  e[8] = a >> 3;
  e[9] = static_cast<uint32_t>(S(b) >> 5);
  e[10] = (a >> 4) & 0xFFF;
  e[11] = static_cast<uint32_t>(S(b << 3) >> 23);  // bits 28:20 sign-extended
  e[12] = ((1u << 5) - 1u) << 9;
  e[13] = a ^ b;
  e[14] = a & ~b;
  e[15] = ~(a | b);
  e[16] = Brev(a);
  e[17] = static_cast<uint32_t>(__builtin_popcount(b));
  e[18] = b == 0 ? ~0u : static_cast<uint32_t>(__builtin_ctz(b));
  e[19] = a == 0 ? ~0u : static_cast<uint32_t>(__builtin_clz(a));
  e[20] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(a & 0xFF)));
  e[21] = S(a) < S(b) ? a : b;
  e[22] = a > b ? a : b;
  e[23] = S(b) < 0 ? 0u - b : b;
  uint32_t n = a & 63, s = 0;
  for (; n != 0; --n) s += n;
  e[24] = s;
  e[25] = 0xFFFF8000u;
  e[26] = (a + 0x1234u) * 0xFFFFFFFDu;
  e[27] = (a << 2) + b;
  e[28] = (a & 0xFFFF) | (b & 0xFFFF0000u);
  e[29] = a << 1;
  e[30] = b;
  e[31] = (1u << 13) | 2u | 1u;
  uint32_t q = 0;
  for (int i = 0; i < 8; ++i) {
    if (((a >> (4 * i)) & 0xF) != 0) q |= 1u << i;
  }
  e[32] = q;
  uint32_t w = 0;
  for (int i = 0; i < 8; ++i) {
    if (((b >> (4 * i)) & 0xF) != 0) w |= 0xFu << (4 * i);
  }
  e[33] = w;
  return e;
}

std::vector<uint32_t> ValuExpected(uint32_t x, uint32_t gid, const std::vector<uint32_t>& in) {
  std::vector<uint32_t> e(32);
  const uint32_t k = 0x9e3779b9u;
  e[0] = x + 0x12345u;
  e[1] = x - gid;
  e[2] = x * k;
  e[3] = static_cast<uint32_t>((uint64_t{x} * k) >> 32);
  e[4] = (x & 0xFFFFFF) * (gid & 0xFFFFFF) + 7;
  e[5] = Sext24(0xFFFFFFFBu) * Sext24(x);
  e[6] = (x >> 5) & 0x7FF;
  uint32_t f = (x >> 3) & 0x1FFFF;
  if (f & 0x10000) f |= 0xFFFE0000u;
  e[7] = f;
  e[8] = (0x00ff00ffu & x) | (~0x00ff00ffu & gid);
  e[9] = x << (gid & 31);
  e[10] = static_cast<uint32_t>(S(x) >> 3);
  e[11] = static_cast<uint32_t>((uint64_t{x} << 32 | gid) >> 13);
  // v_perm_b32 with selector 0x0c050207 over {x (bytes 4-7), gid (bytes 0-3)}.
  const uint64_t both = uint64_t{x} << 32 | gid;
  auto byte = [&](unsigned s) { return static_cast<uint32_t>(both >> (8 * s)) & 0xFF; };
  e[12] = byte(7) | byte(2) << 8 | byte(5) << 16 | 0u << 24;
  e[13] = (x << 3) + gid;
  e[14] = x + gid + k;
  const int32_t m0 = S(x), m1 = S(gid), m2 = 0x40000000;
  const int32_t mx = m0 > m1 ? m0 : m1, mn = m0 > m1 ? m1 : m0;
  e[15] = static_cast<uint32_t>(m2 > mx ? mx : (m2 < mn ? mn : m2));
  e[16] = x > gid ? x : gid;
  e[17] = x == 0 ? ~0u : static_cast<uint32_t>(__builtin_clz(x));
  e[18] = Brev(x);
  e[19] = static_cast<uint32_t>(__builtin_popcount(x)) + gid;
  e[20] = gid % 64;
  const uint32_t wave0 = gid / 64 * 64;
  e[21] = in[wave0];
  e[22] = in[wave0 + 5];
  const uint64_t mad = uint64_t{x} * gid + (uint64_t{x} << 32);
  e[23] = static_cast<uint32_t>(mad);
  e[24] = static_cast<uint32_t>(mad >> 32);
  const uint64_t sh = (uint64_t{gid} << 32 | x) << 35;
  e[25] = static_cast<uint32_t>(sh);
  e[26] = static_cast<uint32_t>(sh >> 32);
  e[27] = gid % 16 == 0 ? 0u : in[gid - 1];
  e[28] = ((((x >> 16) & 0xFF) + (gid & 0xFFFF)) & 0xFFFF) << 16;
  e[29] = gid % 64 < 10 ? 77u : 88u;
  e[30] = x >> 8;
  e[31] = gid % 64 == 3 ? 1234u : 0u;
  return e;
}

}  // namespace

TEST_CASE("scalar ALU: arithmetic, logic, bit fields, SCC, loops, calls and M0 moves give the ISA's results on every gfx9 board") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    auto* out = static_cast<uint32_t*>(rig.Gtt(4096));
    const uint64_t ko = rig.Load(shadertest::kSalu, "salu");
    for (const auto& ab : {std::pair<uint32_t, uint32_t>{0x89ABCDEFu, 0x12345678u},
                           {0x00000005u, 0xFFFFFFF0u}, {0xFFFFFFFFu, 0x00000001u}}) {
      const uint32_t a = ab.first;  // named copies: clang-14 lambdas cannot capture bindings
      const uint32_t b = ab.second;
      CAPTURE(a);
      CAPTURE(b);
      struct {
        uint64_t out;
        uint32_t a, b;
      } args{Va(out), a, b};
      uint8_t kernarg[256] = {};
      std::memcpy(kernarg, &args, sizeof(args));
      Launch l;
      l.kernarg = kernarg;
      REQUIRE(rig.Dispatch(ko, l));
      const std::vector<uint32_t> want = SaluExpected(a, b);
      for (size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        CHECK(out[i] == want[i]);
      }
    }
  }
}

TEST_CASE("vector integer ALU: VOP1/VOP2/VOP3/VOPC, carries, 64-bit ops, DPP, SDWA, EXEC masking and lane access over four workgroups in VRAM") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    constexpr uint32_t kItems = 256;
    auto* in = static_cast<uint32_t*>(rig.Vram(kItems * 4));
    auto* out = static_cast<uint32_t*>(rig.Vram(kItems * 32 * 4));
    std::vector<uint32_t> host_in(kItems);
    uint32_t seed = 0x1234567u;
    for (uint32_t i = 0; i < kItems; ++i) {
      seed = seed * 1664525u + 1013904223u;
      host_in[i] = i == 7 ? 0u : seed;  // one zero for ffbh
      in[i] = host_in[i];
    }
    std::memset(out, 0xA5, kItems * 32 * 4);
    struct {
      uint64_t in, out;
    } args{Va(in), Va(out)};
    uint8_t kernarg[256] = {};
    std::memcpy(kernarg, &args, sizeof(args));
    Launch l;
    l.grid[0] = kItems;
    l.wg[0] = 64;
    l.kernarg = kernarg;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kValuInt, "valu_int"), l));
    uint32_t mismatches = 0;
    for (uint32_t gid = 0; gid < kItems; ++gid) {
      const std::vector<uint32_t> want = ValuExpected(host_in[gid], gid, host_in);
      for (uint32_t k = 0; k < 32; ++k) {
        if (out[gid * 32 + k] != want[k] && ++mismatches <= 8) {
          CAPTURE(gid);
          CAPTURE(k);
          CHECK(out[gid * 32 + k] == want[k]);
        }
      }
    }
    CHECK(mismatches == 0);
  }
}
