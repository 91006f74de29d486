// The project's one table of AMD GPU PCI device ids: for each family, the
// GFX IP version its KFD reports, its name, whether it is an integrated GPU,
// and whether upstream's thunk looks it up.
//
// Two readers:
//  - the topology getter (gfx.h FindGfxIpByDeviceId): only the rows
//    upstream's thunk carries (`thunk_lookup`, gfx7..gfx10.3), with
//    upstream's rule (consulted when gfx_target_version's major is at most
//    10; a hit names EngineId and AMDName);
//  - tools that rebuild a device from its id alone, above all the KFD
//    simulator (platform/sim/topology), which loads captures from kernels
//    older than gfx_target_version through FindDeviceFamily and iterates
//    the table in its tests. The later rows (gfx94x, gfx11, gfx12) serve
//    only those readers: their kernels always report gfx_target_version.
//
// Portable data only (no OS, no heap), so the simulator, which is not part
// of libhsakmt.a, links this object from the archive.
//
// Constant data; safe from any thread.
#ifndef HKE_LIB_TOPOLOGY_DEVICE_TABLE_H_
#define HKE_LIB_TOPOLOGY_DEVICE_TABLE_H_

#include <cstddef>
#include <cstdint>

namespace hke::topology {

// A GFX IP version with the name upstream gives the family (AMDName).
struct GfxIpEntry {
  uint8_t major;
  uint8_t minor;
  uint8_t stepping;
  const char* amd_name;  // e.g. "Aldebaran"
};

struct DeviceFamily {
  GfxIpEntry gfx;
  bool integrated;    // ships only as an APU (shares system memory)
  bool thunk_lookup;  // in upstream's device table (the getter uses it)
  const uint16_t* ids;
  uint8_t count;
};

// The rows in table order (upstream's order first). `i` < DeviceFamilyCount().
size_t DeviceFamilyCount();
const DeviceFamily& DeviceFamilyAt(size_t i);

// The family holding `device_id`, any row; null when unknown or 0.
const DeviceFamily* FindDeviceFamily(uint16_t device_id);

// The family's version as sysfs gfx_target_version writes it (decimal
// MMmmss: 9.0.10 -> 90010).
constexpr uint32_t GfxTargetVersionOf(const GfxIpEntry& e) {
  return uint32_t{e.major} * 10000u + uint32_t{e.minor} * 100u + uint32_t{e.stepping};
}

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_DEVICE_TABLE_H_
