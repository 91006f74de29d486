// The vector float ALU (kernels/valu_float.s) on system memory through FLAT:
// f32/f64/f16 arithmetic, conversions, compares and VOP3 modifiers, checked
// bit for bit against the host's IEEE arithmetic (the simulator computes
// v_sqrt exactly, see platform/sim/core/shader/README.md).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "platform/sim/core/shader/exec.h"
#include "tests/sim_shader/boards.h"
#include "tests/sim_shader/shader_rig.h"

namespace {

using kfdsim::shader::detail::F16ToF32;
using kfdsim::shader::detail::F32ToF16;
using shadertest::Launch;
using shadertest::ShaderRig;
using shadertest::Va;

uint32_t B(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}

std::vector<uint32_t> Expected(float x, float y, uint32_t gid) {
  std::vector<uint32_t> e(26);
  e[0] = B(x + y);
  e[1] = B(x * y);
  e[2] = B(std::fma(x, y, 1.0f));
  const float xy = x * y;
  e[3] = B(xy + 2.0f);
  e[4] = B(std::fmin(x, y));
  e[5] = B(std::fmax(x, y));
  e[6] = static_cast<uint32_t>(static_cast<int32_t>(x * 100.0f));
  e[7] = B(static_cast<float>(static_cast<int32_t>(gid) - 128));
  e[8] = B(std::floor(x));
  e[9] = B(x - std::floor(x));
  e[10] = B(std::nearbyint(x));
  e[11] = B(std::ldexp(x, 5));
  int ex = 0;
  e[12] = B(std::frexp(x, &ex));
  e[13] = static_cast<uint32_t>(ex);
  e[14] = (x < 0.0f && std::isnormal(x)) ? 1u : 0u;
  e[15] = x < y ? 3u : 2u;
  const double xd = x, yd = y;
  e[16] = B(static_cast<float>(std::fma(xd, yd, xd)));
  const double s = xd + yd;
  uint64_t sb;
  std::memcpy(&sb, &s, 8);
  e[17] = static_cast<uint32_t>(sb);
  e[18] = static_cast<uint32_t>(sb >> 32);
  const uint16_t hx = F32ToF16(x), hy = F32ToF16(y);
  e[19] = B(F16ToF32(hx));
  const uint32_t lo = F32ToF16(F16ToF32(hx) + F16ToF32(hy));
  e[20] = lo | (lo << 16);  // {y, x} + {x, y}: both halves x + y
  e[21] = B(std::sqrt(std::fabs(x)));
  const float mx = std::fmax(x, y), mn = std::fmin(x, y);
  e[22] = B(0.5f > mx ? mx : (0.5f < mn ? mn : 0.5f));
  const float c = y - std::fabs(x);
  e[23] = B(c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c));
  e[24] = B(xy * 2.0f);
  e[25] = 0;
  return e;
}

}  // namespace

TEST_CASE("vector float ALU: f32/f64/f16 arithmetic, conversions, compares, class, VOP3 neg/abs/clamp/omod and packed f16 through FLAT on system memory") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    constexpr uint32_t kItems = 128;
    auto* a = static_cast<float*>(rig.Gtt(kItems * 4));
    auto* b = static_cast<float*>(rig.Gtt(kItems * 4));
    auto* out = static_cast<uint32_t*>(rig.Gtt(kItems * 32 * 4));
    uint32_t seed = 77;
    auto next = [&seed] {
      seed = seed * 1103515245u + 12345u;
      return static_cast<float>(static_cast<int32_t>(seed >> 8) % 200000) / 256.0f;
    };
    for (uint32_t i = 0; i < kItems; ++i) {
      a[i] = next() - 390.0f;
      b[i] = next() * 0.01f - 3.0f;
    }
    a[5] = 0.75f;
    b[5] = 0.25f;  // clamp below 0
    a[6] = 0.125f;
    b[6] = 0.5f;   // clamp inside [0, 1]
    struct {
      uint64_t a, b, out;
    } args{Va(a), Va(b), Va(out)};
    uint8_t ka[256] = {};
    std::memcpy(ka, &args, sizeof(args));
    Launch l;
    l.kernarg = ka;
    l.grid[0] = kItems;
    l.wg[0] = 64;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kValuFloat, "valu_float"), l));
    uint32_t bad = 0;
    for (uint32_t g = 0; g < kItems; ++g) {
      const std::vector<uint32_t> want = Expected(a[g], b[g], g);
      for (uint32_t k = 0; k < want.size(); ++k) {
        if (out[g * 32 + k] != want[k] && ++bad <= 8) {
          CAPTURE(g);
          CAPTURE(k);
          CAPTURE(a[g]);
          CAPTURE(b[g]);
          CHECK(out[g * 32 + k] == want[k]);
        }
      }
    }
    CHECK(bad == 0);
  }
}
