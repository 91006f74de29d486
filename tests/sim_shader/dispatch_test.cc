// Kernel dispatch on the simulated shader cores through the library's queue
// API: grid and workgroup geometry (3-D, partial workgroups, the ids the
// waves start with), kernels longer than one engine step, back-to-back
// dispatches on one queue, and PM4 SET_SH_REG + DISPATCH_DIRECT.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <string>

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

}  // namespace

TEST_CASE("a 3-D grid with partial workgroups: every work-item runs once with its workgroup id in SGPRs and its local id in VGPRs (packed on gfx90a/gfx942)") {
  for (const shadertest::BoardRef& br : shadertest::Gfx9Boards()) {
    const std::string board_name = br.name;
    CAPTURE(board_name);
    ShaderRig rig(br.tree, br.board);
    constexpr uint32_t kX = 10, kY = 6, kZ = 3;
    auto* ids = static_cast<uint32_t*>(rig.Gtt(kX * kY * kZ * 4));
    auto* locals = static_cast<uint32_t*>(rig.Gtt(kX * kY * kZ * 4));
    std::memset(ids, 0xFF, kX * kY * kZ * 4);
    std::memset(locals, 0xFF, kX * kY * kZ * 4);
    struct {
      uint64_t ids, locals;
    } args{Va(ids), Va(locals)};
    uint8_t ka[256];
    Launch l = WithArgs(args, ka);
    l.dims = 3;
    l.grid[0] = kX;
    l.grid[1] = kY;
    l.grid[2] = kZ;
    l.wg[0] = 4;
    l.wg[1] = 4;
    l.wg[2] = 2;
    REQUIRE(rig.Dispatch(rig.Load(shadertest::kDims, "dims"), l));
    uint32_t bad = 0;
    for (uint32_t z = 0; z < kZ; ++z) {
      for (uint32_t y = 0; y < kY; ++y) {
        for (uint32_t x = 0; x < kX; ++x) {
          const uint32_t i = (z * kY + y) * kX + x;
          const uint32_t want_id = (x / 4) | (y / 4) << 8 | (z / 2) << 16;
          const uint32_t want_local = (x % 4) | (y % 4) << 8 | (z % 2) << 16;
          if ((ids[i] != want_id || locals[i] != want_local) && ++bad <= 4) {
            CAPTURE(x);
            CAPTURE(y);
            CAPTURE(z);
            CHECK(ids[i] == want_id);
            CHECK(locals[i] == want_local);
          }
        }
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("a kernel longer than one engine step resumes where it stopped; dispatches queued back to back each complete") {
  ShaderRig rig(nullptr, "datacenter-4gpu");
  auto* out = static_cast<uint32_t*>(rig.Gtt(4096));
  const uint64_t ko = rig.Load(shadertest::kDims, "spin");
  struct {
    uint64_t out;
    uint32_t count;
  } args{Va(out), 1000000};  // about 3M wave-instructions: several steps
  uint8_t ka[256];
  REQUIRE(rig.Dispatch(ko, WithArgs(args, ka)));
  CHECK(out[0] == 1000000u);
  args.count = 5;
  for (int i = 0; i < 20; ++i) REQUIRE(rig.Dispatch(ko, WithArgs(args, ka)));
  CHECK(out[0] == 1000100u);
  CHECK(rig.QueueStatus().state == KFDSIM_QUEUE_IDLE);
}

namespace {

uint32_t Pm4Header(uint32_t opcode, uint32_t body_dwords) {
  return (3u << 30) | ((body_dwords - 1u) << 16) | (opcode << 8);
}

}  // namespace

TEST_CASE("PM4: SET_SH_REG programs the compute registers and DISPATCH_DIRECT runs the kernel to completion before the next packet") {
  ShaderRig rig(nullptr, "datacenter-4gpu");
  const uint32_t node = rig.node();
  const uint64_t ko = rig.Load(shadertest::kValuInt, "valu_int");
  uint32_t kd[16];
  std::memcpy(kd, reinterpret_cast<const void*>(static_cast<uintptr_t>(ko)), sizeof(kd));
  int64_t entry_offset = 0;
  std::memcpy(&entry_offset, &kd[4], 8);
  const uint64_t entry = ko + static_cast<uint64_t>(entry_offset);
  REQUIRE((entry & 0xFF) == 0);
  constexpr uint32_t kItems = 128;
  auto* in = static_cast<uint32_t*>(rig.Vram(kItems * 4));
  auto* out = static_cast<uint32_t*>(rig.Vram(kItems * 32 * 4));
  for (uint32_t i = 0; i < kItems; ++i) in[i] = i * 0x01010101u;
  auto* kernarg = static_cast<uint64_t*>(rig.Gtt(64));
  kernarg[0] = Va(in);
  kernarg[1] = Va(out);
  auto* fence = static_cast<uint32_t*>(rig.Gtt(4096));

  auto* ring = static_cast<volatile uint32_t*>(rig.Gtt(4096));
  HsaQueueResource q{};
  REQUIRE(hsaKmtCreateQueue(node, HSA_QUEUE_COMPUTE, 100, HSA_QUEUE_PRIORITY_NORMAL,
                            const_cast<uint32_t*>(ring), 4096, nullptr, &q) == HSAKMT_STATUS_SUCCESS);
  uint64_t w = 0;
  auto put = [&](uint32_t v) { ring[w++ % 1024] = v; };
  auto set_sh = [&](uint32_t reg, std::initializer_list<uint32_t> values) {
    put(Pm4Header(0x76, static_cast<uint32_t>(values.size()) + 1));
    put(reg - 0x2C00);
    for (uint32_t v : values) put(v);
  };
  set_sh(0x2E0C, {static_cast<uint32_t>(entry >> 8), static_cast<uint32_t>(entry >> 40)});  // PGM_LO/HI
  set_sh(0x2E12, {kd[12], kd[13]});                  // PGM_RSRC1/2 from the descriptor
  set_sh(0x2E07, {64, 1, 1});                        // NUM_THREAD_X/Y/Z
  set_sh(0x2E40, {static_cast<uint32_t>(Va(kernarg)), static_cast<uint32_t>(Va(kernarg) >> 32)});
  put(Pm4Header(0x15, 4));                           // DISPATCH_DIRECT: 2 x 1 x 1 workgroups
  put(2);
  put(1);
  put(1);
  put(1);
  put(Pm4Header(0x37, 4));                           // WRITE_DATA after the kernel
  put((5u << 8) | (1u << 20));
  put(static_cast<uint32_t>(Va(fence)));
  put(static_cast<uint32_t>(Va(fence) >> 32));
  put(0xF00Du);
  __atomic_store_n(q.Queue_write_ptr_aql, w, __ATOMIC_RELEASE);
  __atomic_store_n(q.Queue_DoorBell_aql, w, __ATOMIC_RELEASE);
  for (int spin = 0; spin < 200000 && __atomic_load_n(&fence[0], __ATOMIC_ACQUIRE) != 0xF00Du; ++spin) {
    usleep(100);
  }
  REQUIRE(__atomic_load_n(&fence[0], __ATOMIC_ACQUIRE) == 0xF00Du);
  for (uint32_t gid = 0; gid < kItems; ++gid) {
    CAPTURE(gid);
    CHECK(out[gid * 32 + 0] == in[gid] + 0x12345u);  // the same kernel as through AQL
    CHECK(out[gid * 32 + 1] == in[gid] - gid);
    CHECK(out[gid * 32 + 20] == gid % 64);
  }
  CHECK(hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS);
}
