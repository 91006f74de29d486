// GFX IP version helpers for the node getter: decoding gfx_target_version,
// the packed form, per-CU register file sizes, and the getter's device-ID
// lookup (over device_table.h).
#ifndef HKE_LIB_TOPOLOGY_GFX_H_
#define HKE_LIB_TOPOLOGY_GFX_H_

#include <cstdint>

#include "lib/topology/device_table.h"

namespace hke::topology {

struct GfxIpVersion {
  uint32_t major;
  uint32_t minor;
  uint32_t stepping;
};

// sysfs gfx_target_version is decimal MMmmss (90010 = 9.0.10, 110002 =
// 11.0.2); each part is taken modulo 100 as upstream does.
constexpr GfxIpVersion DecodeGfxTargetVersion(uint32_t decimal) {
  return GfxIpVersion{(decimal / 10000) % 100, (decimal / 100) % 100, decimal % 100};
}

// The packed form used for comparisons and names: (major << 16) |
// (minor << 8) | stepping, e.g. gfx90a = 0x09000a.
constexpr uint32_t PackGfxVersion(uint32_t major, uint32_t minor, uint32_t stepping) {
  return (major << 16) | (minor << 8) | stepping;
}

// Scalar register file bytes per CU on every GPU.
inline constexpr uint32_t kSgprSizePerCu = 0x4000;

// Vector register file bytes per CU for a packed GFX version.
uint32_t VgprSizePerCu(uint32_t packed_gfx);

// Looks `device_id` up among the device-table rows upstream's thunk has
// (device_table.h, gfx7..gfx10.3). As upstream, the table is consulted only
// when the gfx_target_version major is at most 10, and a hit takes priority
// over gfx_target_version (EngineId and AMDName). Null when the id is
// unknown there.
const GfxIpEntry* FindGfxIpByDeviceId(uint16_t device_id, uint32_t gfx_major);

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_GFX_H_
