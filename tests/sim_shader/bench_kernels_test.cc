// The kernels the shader benchmark times (kernels/bench.s): the grid-stride
// dwordx4 copy moves every byte from GTT to VRAM, and the ALU loop gives the
// host model's results while the simulator counts exactly the
// wave-instructions it ran (the benchmark's wave-instructions per second
// rest on that count).
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "platform/sim/sim.h"
#include "tests/sim_shader/boards.h"
#include "tests/sim_shader/shader_rig.h"

namespace {

using shadertest::Launch;
using shadertest::ShaderRig;
using shadertest::Va;

uint32_t AluModel(uint32_t gid, uint32_t iterations) {
  uint32_t v5 = gid, v6 = 0x9e37u + gid;
  for (uint32_t i = 0; i < iterations; ++i) {
    v5 = v5 + v6;
    v6 = v6 ^ v5;
    const uint32_t v7 = v5 << 3;
    v5 = (v5 & 0xFFFFFFu) * 7u + v7;
    v6 = static_cast<uint32_t>((uint64_t{v6} << 32 | v6) >> 7);
    v5 = v5 - gid;
  }
  return v5;
}

}  // namespace

TEST_CASE("the benchmark's grid-stride dwordx4 copy moves every byte from GTT to VRAM") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    constexpr uint32_t kChunks = 3 * 4096 + 77;  // not a multiple of the grid
    auto* src = static_cast<uint8_t*>(rig.Gtt(kChunks * 16));
    auto* dst = static_cast<uint8_t*>(rig.Vram(kChunks * 16 + 4096));
    for (uint32_t i = 0; i < kChunks * 16; ++i) src[i] = static_cast<uint8_t>(i * 131 + (i >> 9));
    std::memset(dst, 0, kChunks * 16 + 4096);
    struct {
      uint64_t src, dst;
      uint32_t n, total;
    } args{Va(src), Va(dst), kChunks, 1024};
    uint8_t ka[256] = {};
    std::memcpy(ka, &args, sizeof(args));
    Launch l;
    l.kernarg = ka;
    l.grid[0] = 1024;
    l.wg[0] = 256;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kBench, "copy16"), l));
    CHECK(std::memcmp(src, dst, kChunks * 16) == 0);
    CHECK(dst[kChunks * 16] == 0);  // nothing beyond
  }
}

TEST_CASE("the benchmark's ALU loop gives the model's results and the simulator counts its wave-instructions exactly") {
  ShaderRig rig(nullptr, "datacenter-4gpu");
  constexpr uint32_t kItems = 512, kIterations = 300;
  auto* out = static_cast<uint32_t*>(rig.Gtt(kItems * 4));
  struct {
    uint64_t out;
    uint32_t iterations;
  } args{Va(out), kIterations};
  uint8_t ka[256] = {};
  std::memcpy(ka, &args, sizeof(args));
  Launch l;
  l.kernarg = ka;
  l.grid[0] = kItems;
  l.wg[0] = 256;
  const uint64_t ko = rig.Load(shadertest::kBench, "alu_loop");
  uint64_t before = 0, after = 0;
  REQUIRE(kfdsim_shader_instructions(rig.board().sim(), &before) == 0);
  REQUIRE(rig.Dispatch(ko, l));
  REQUIRE(kfdsim_shader_instructions(rig.board().sim(), &after) == 0);
  for (uint32_t g = 0; g < kItems; ++g) {
    if (out[g] != AluModel(g, kIterations)) {
      CAPTURE(g);
      CHECK(out[g] == AluModel(g, kIterations));
      break;
    }
  }
  // Per wave: 9 set-up instructions, 11 per iteration, 3 to finish.
  CHECK(after - before == uint64_t{kItems / 64} * (12 + 11 * kIterations));
  CHECK(kfdsim_shader_instructions(nullptr, &after) == EINVAL);
}
