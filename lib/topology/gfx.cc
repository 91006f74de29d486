#include "lib/topology/gfx.h"

#include <cstddef>

namespace hke::topology {
namespace {

constexpr uint32_t kArcturus = 0x090008;
constexpr uint32_t kAldebaran = 0x09000a;
constexpr uint32_t kGfx94xFamily = 0x090400;  // gfx940..gfx942 (any stepping)
constexpr uint32_t kGfx950 = 0x090500;
constexpr uint32_t kGfx1100 = 0x0b0000;
constexpr uint32_t kGfx1101 = 0x0b0001;
constexpr uint32_t kGfx1200 = 0x0c0000;
constexpr uint32_t kGfx1201 = 0x0c0001;

}  // namespace

uint32_t VgprSizePerCu(uint32_t packed_gfx) {
  if (packed_gfx == kGfx950 || (packed_gfx & ~0xffu) == kGfx94xFamily || packed_gfx == kAldebaran ||
      packed_gfx == kArcturus) {
    return 0x80000;
  }
  if (packed_gfx == kGfx1100 || packed_gfx == kGfx1101 || packed_gfx == kGfx1200 ||
      packed_gfx == kGfx1201) {
    return 0x60000;
  }
  return 0x40000;
}

const GfxIpEntry* FindGfxIpByDeviceId(uint16_t device_id, uint32_t gfx_major) {
  if (gfx_major > 10) return nullptr;
  const DeviceFamily* f = FindDeviceFamily(device_id);
  return f != nullptr && f->thunk_lookup ? &f->gfx : nullptr;
}

}  // namespace hke::topology
